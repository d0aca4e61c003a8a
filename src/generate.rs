//! A deterministic generator of realistic session logs of any size, for
//! tests, benchmarks and demos: multi-turn runs with tool calls and
//! results, sub-agents, budgets, signals, memory, entropy, suspensions.

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

/// Appends one turn's events (as JSON lines) to `out`.
fn turn(rng: &mut Rng, t: u32, out: &mut Vec<Value>) {
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
