//! A deterministic generator of realistic session logs of any size, for
//! tests, benchmarks and demos: multi-turn runs with their provider calls
//! (prompt measurements, prepared contexts, attempts, kernel observations,
//! in deepstrike 0.2.77's proportions), tool calls and results, sub-agents,
//! budgets, signals, memory, entropy, suspensions.

// Not on an input path: seeds and sizes come from tests and benchmarks,
// and the PRNG's arithmetic wraps by design.
#![allow(clippy::arithmetic_side_effects)]

use serde_json::{json, Value};

/// xorshift64*: small, fast, and the same sequence on every platform.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }
    #[allow(
        clippy::indexing_slicing,
        reason = "`below(len)` is below `len`: every list picked from is a non-empty constant"
    )]
    fn pick<'a>(&mut self, items: &[&'a str]) -> &'a str {
        items[self.below(items.len() as u64) as usize]
    }
}

const WORDS: &[&str] = &[
    "the",
    "refund",
    "handler",
    "cache",
    "retry",
    "ledger",
    "test",
    "fails",
    "when",
    "key",
    "expires",
    "before",
    "client",
    "request",
    "arrives",
    "again",
    "so",
    "we",
    "create",
    "a",
    "second",
    "entry",
    "fix",
    "ttl",
    "order",
    "payment",
    "service",
    "checks",
    "idempotency",
    "log",
];
const TOOLS: &[&str] = &["fs.read", "fs.write", "shell.run", "git.diff", "http.get", "search.code"];

fn sentence(rng: &mut Rng, words: u64) -> String {
    let mut s = String::new();
    for i in 0..words {
        if i > 0 {
            s.push(' ');
        }
        s.push_str(rng.pick(WORDS));
    }
    s
}

/// The provider call that produces turn `t`'s completion, as deepstrike
/// 0.2.77 logs it: the kernel publishes the effect, the prompt is measured
/// before (an estimate) and after (the provider's count) the call, the
/// context is prepared (listing the recent history), and the call is
/// attempted, one time in ten failing once first. These events are
/// stamped with the runtime's turn before the completion's.
fn provider_call(rng: &mut Rng, t: u32, out: &mut Vec<Value>) {
    let before = t - 1;
    let effect = format!("op-gen:step:{}:effect:0", 2 * t - 1);
    let request = format!("sha256:{:016x}{:016x}", rng.next(), rng.next());
    out.push(json!({"kind": "kernel_observation", "turn": before,
        "observation_kind": "step_published_effects", "raw": {"kind": "step_published_effects",
        "effects": [{"effect_id": effect, "kind": "call_provider"}]}}));
    let tokens = 800 + u64::from(t) * 120 + rng.below(400);
    let measured = |tokens: u64, source: &str, confidence: &str| {
        json!({"kind": "prompt_measured", "turn": before, "measurement": {
            "request_fingerprint": request, "input_tokens": tokens, "source": {"kind": source},
            "confidence": confidence}, "effect_id": effect})
    };
    out.push(measured(tokens + tokens / 5, "heuristic", "low_confidence"));
    let history: Vec<Value> = (t.saturating_sub(8)..t)
        .map(|h| {
            json!({"entry_id": format!("history:{h}"), "source": "history",
            "content_digest": format!("sha256:{:016x}", rng.next())})
        })
        .collect();
    out.push(json!({"kind": "context_prepared", "turn": before, "effect_id": effect,
        "preparation": {"execution_input": {"schema": "context/v1", "operation_id": "op-gen",
        "input_sequence": t}, "state": {"schema": "context/v1", "generation": t,
        "history": history}, "prompt_measurement": {"inputTokens": tokens}}}));
    out.push(measured(tokens, "postflight", "exact"));
    let attempt = |seq: u32, status: &str, at: u64| {
        json!({"kind": "provider_attempt", "effect_id": effect, "attempt_seq": seq,
            "request_fingerprint": request, "status": status, "transport_rungs": 1,
            "started_at_ms": at, "finished_at_ms": at + 900})
    };
    let at = 1_767_225_600_000 + u64::from(t) * 10_000;
    let retried = rng.below(10) == 0;
    if retried {
        let mut failed = attempt(1, "transport_exhausted", at);
        if let Some(fields) = failed.as_object_mut() {
            fields.insert("last_error_class".into(), json!("rate_limit"));
        }
        out.push(failed);
    }
    out.push(attempt(1 + u32::from(retried), "success", at + 2_000));
}

/// Appends one turn's events (as JSON lines) to `out`.
fn turn(rng: &mut Rng, t: u32, out: &mut Vec<Value>) {
    provider_call(rng, t, out);
    let calls: Vec<Value> = (0..1 + rng.below(3))
        .map(|i| {
            json!({"id": format!("call-{t}-{i}"), "name": rng.pick(TOOLS),
                   "arguments": {"path": format!("src/{}.rs", rng.pick(WORDS)), "line": rng.below(500)}})
        })
        .collect();
    let text_len = 20 + rng.below(120);
    out.push(json!({"kind": "llm_completed", "turn": t, "message": {
        "role": "assistant", "content": sentence(rng, text_len), "tool_calls": calls.clone(),
        "token_count": 100 + rng.below(900)}}));
    let effect = format!("op-gen:step:{}:effect:0", 2 * t);
    out.push(json!({"kind": "kernel_observation", "turn": t,
        "observation_kind": "step_published_effects", "raw": {"kind": "step_published_effects",
        "effects": [{"effect_id": effect, "kind": "execute_tools"}]}}));
    out.push(json!({"kind": "tool_requested", "turn": t, "calls": calls}));
    let results: Vec<Value> = calls
        .iter()
        .map(|c| {
            let failed = rng.below(10) == 0;
            let output_len = 10 + rng.below(200);
            json!({"call_id": c["id"], "output": sentence(rng, output_len), "is_error": failed,
                   "token_count": 20 + rng.below(400)})
        })
        .collect();
    out.push(json!({"kind": "tool_completed", "turn": t, "results": results}));
    out.push(json!({"kind": "entropy_sample", "turn": t, "score": (rng.below(1000) as f64) / 1000.0,
        "rho": (rng.below(1000) as f64) / 1000.0, "repeat_pressure": (rng.below(100) as f64) / 100.0,
        "failure_rate": (rng.below(100) as f64) / 100.0, "rollbacks_in_window": rng.below(3),
        "window_turns": 8}));
    let op = format!("op-{}", t / 10);
    match rng.below(12) {
        0 => out.push(json!({"kind": "agent_process_changed", "turn": t, "agent_id": format!("agent-{}", t % 17),
            "parent_session_id": "run-gen", "role": "worker", "isolation": "shared",
            "context_inheritance": "summary", "state": rng.pick(&["spawned", "running", "joined"])})),
        1 => out.push(json!({"kind": "budget_usage_reported", "turn": t, "operation_id": op,
            "reservation_id": format!("rsv-{t}"), "tokens": rng.below(50_000), "subagents": rng.below(4),
            "rounds": rng.below(20)})),
        2 => out.push(json!({"kind": "signal_delivery_disposed", "turn": t, "operation_id": op,
            "delivery_id": format!("dlv-{t}"), "attempt": 1 + rng.below(3), "signal_id": "progress",
            "disposition": rng.pick(&["queue", "deliver", "drop"]), "queue_depth": rng.below(8)})),
        3 => out.push(json!({"kind": "memory_written", "turn": t, "record_id": format!("mem-{t}"),
            "scope": {"tenant_id": "acme", "namespace": "gen"}, "memory_kind": "project",
            "name": sentence(rng, 4), "size_bytes": rng.below(4096)})),
        4 => {
            out.push(json!({"kind": "suspended", "turn": t, "reason": "ask_user",
                "pending_calls": [format!("call-{t}-0")]}));
            out.push(json!({"kind": "resumed", "turn": t, "approved": [format!("call-{t}-0")]}));
        }
        5 => out.push(json!({"kind": "page_out", "turn": t, "message_count": rng.below(30)})),
        6 => out.push(json!({"kind": "tool_gated", "turn": t, "call_id": format!("call-{t}-0"),
            "tool": "fs.write", "reason": "needs approval"})),
        7 => out.push(json!({"kind": "checkpoint_taken", "turn": t, "history_len": t * 4})),
        _ => {}
    }
}

/// A log of about `target_bytes` of JSON Lines (at least the header).
pub fn generate_jsonl(seed: u64, target_bytes: usize) -> String {
    let mut rng = Rng(seed.max(1));
    let mut text = String::with_capacity(target_bytes + 4096);
    let header = json!({"kind": "run_started", "run_id": format!("run-gen-{seed}"),
        "goal": "Generated session for tests and benchmarks", "criteria": ["finish"],
        "agent_id": "gen-agent", "system_prompt": null, "attachments": []});
    text.push_str(&header.to_string());
    text.push('\n');
    let mut events = Vec::new();
    let mut t = 0u32;
    while text.len() < target_bytes {
        t += 1;
        events.clear();
        turn(&mut rng, t, &mut events);
        for e in &events {
            text.push_str(&e.to_string());
            text.push('\n');
        }
    }
    let tail = json!({"kind": "run_terminal", "reason": "completed", "turns_used": t, "total_tokens": t as u64 * 1500});
    text.push_str(&tail.to_string());
    text.push('\n');
    text
}

/// The embedded sample session (JSON Lines, all 50 kinds).
pub const SAMPLE_JSONL: &str = include_str!("../data/sample-session.jsonl");
