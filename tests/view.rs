//! The session view over the sample session and small scenarios.

use agent_replay::generate::SAMPLE_JSONL;
use agent_replay::json::to_js_json;
use agent_replay::state::SessionState;
use agent_replay::SessionEvent;
use serde_json::{json, Value};

fn view_of(text: &str) -> Value {
    let mut state = SessionState::new(Some("s-1".into()));
    state.apply_str(text, Default::default()).unwrap();
    serde_json::from_str(&to_js_json(state.view())).unwrap()
}

#[test]
fn header_status_and_totals_of_the_sample() {
    let v = view_of(SAMPLE_JSONL);
    assert_eq!(v["session_id"], "s-1");
    assert_eq!(v["event_count"], 78);
    assert_eq!(v["revision"], 7);
    assert_eq!(v["run"]["run_id"], "run-7f3a");
    assert_eq!(v["run"]["agent_id"], "triage-agent");
    assert_eq!(v["run"]["criteria"].as_array().unwrap().len(), 3);
    assert_eq!(
        v["status"],
        json!({"state":"terminal","position":77,"reason":"completed","turns_used":7,"total_tokens":44810})
    );
    assert_eq!(v["total_tokens"], 44810);
    assert_eq!(v["counts"].as_object().unwrap().len(), 50);
    assert_eq!(
        v["errors"],
        json!({"tool_errors":2,"fatal_tool_errors":1,"denied_tools":1,"unknown_events":0,"load_errors":0})
    );
}

#[test]
fn status_follows_suspension_and_resume() {
    let lines: Vec<&str> = SAMPLE_JSONL.lines().collect();
    let suspended_at = lines.iter().position(|l| l.contains("\"kind\":\"suspended\"")).unwrap();
    let v = view_of(&lines[..=suspended_at].join("\n"));
    assert_eq!(
        v["status"],
        json!({"state":"suspended","position":suspended_at + 1,"turn":6,"reason":"ask_user","pending_calls":["call-5"]})
    );
    let v = view_of(&lines[..suspended_at + 3].join("\n"));
    assert_eq!(v["status"]["state"], "running");
    assert_eq!(view_of("")["status"]["state"], "not_started");
}

#[test]
fn transcript_pairs_calls_with_results_and_marks_the_rollback() {
    let v = view_of(SAMPLE_JSONL);
    let t = v["transcript"].as_array().unwrap();
    assert_eq!(t[0]["type"], "goal");
    let calls: Vec<&Value> = t.iter().filter(|e| e["type"] == "tool_call").collect();
    assert_eq!(calls.len(), 6);
    assert!(calls.iter().all(|c| c["result"].is_object()), "every call has its result");
    let push = calls.iter().find(|c| c["call_id"] == "call-4").unwrap();
    assert_eq!(push["name"], "git.push");
    assert_eq!(push["denied"], "force-push to a protected branch is never allowed");
    assert_eq!(push["result"]["is_fatal"], true);
    assert_eq!(push["result"]["error_kind"], "governance_denied");
    assert_eq!(push["rolled_back_at"], 48);
    let write = calls.iter().find(|c| c["call_id"] == "call-5").unwrap();
    assert_eq!(write["gated"], "awaiting user approval");
    assert_eq!(write["rolled_back_at"], Value::Null);
    // Checkpoint at history_len 4 came after turn 1: turn 1 stays, turn 5 is rolled back.
    let first = calls.iter().find(|c| c["call_id"] == "call-1").unwrap();
    assert_eq!(first["rolled_back_at"], Value::Null);
    let sdk = t.iter().find(|e| e["type"] == "assistant" && e["turn"] == 5).unwrap();
    assert!(sdk["text"].as_str().unwrap().starts_with("Bisect points"));
    assert_eq!(sdk["rolled_back_at"], 48);
    assert!(t
        .iter()
        .any(|e| e["type"] == "rollback" && e["reason"]["kind"] == "governance_denied"));
    let parts = t.iter().find(|e| e["type"] == "assistant" && e["turn"] == 2).unwrap();
    assert!(parts["text"].as_str().unwrap().contains("\nLet me run"));
}

#[test]
fn processes_keep_every_field_and_their_state_history() {
    let v = view_of(SAMPLE_JSONL);
    let p = &v["processes"];
    assert_eq!(p.as_array().unwrap().len(), 2);
    assert_eq!(p[0]["agent_id"], "bisect-1");
    assert_eq!(p[0]["state"], "joined");
    assert_eq!(p[0]["isolation"], "worktree");
    assert_eq!(p[0]["permitted_capability_ids"], json!(["git.diff", "shell.run"]));
    assert_eq!((p[0]["first_turn"].clone(), p[0]["last_turn"].clone()), (json!(3), json!(4)));
    let states: Vec<&str> =
        p[0]["history"].as_array().unwrap().iter().map(|h| h["state"].as_str().unwrap()).collect();
    assert_eq!(states, ["spawned", "running", "joined"]);
    assert_eq!(p[1]["result_termination"], "budget_exceeded");
}

#[test]
fn permissions_budgets_capabilities_and_the_rest() {
    let v = view_of(SAMPLE_JSONL);
    let req = &v["permissions"]["requests"][0];
    assert_eq!(req["tool"], "fs.write");
    assert_eq!(req["resolution"]["approved"], true);
    assert_eq!(req["resolution"]["responder"], "user");
    assert_eq!(v["permissions"]["denied"][0]["event"]["tool_name"], "git.push");
    assert_eq!(v["budgets"]["tokens_by_operation"], json!({"op-bisect": 23900}));
    assert_eq!(v["budgets"]["exceeded"][0]["event"]["budget"], "tokens:20000");
    assert_eq!(
        v["capabilities"]["current"],
        json!(["fs.read", "shell.run", "git.diff", "fs.write"])
    );
    assert_eq!(v["milestones"].as_array().unwrap().len(), 3);
    assert_eq!(v["entropy"]["samples"].as_array().unwrap().len(), 4);
    assert_eq!(v["entropy"]["alerts"][0]["event"]["threshold"], 0.7);
    assert_eq!(v["memory"]["retrievals"][0]["event"]["hits"][0]["record"]["record_id"], "mem-118");
    assert_eq!(v["context"]["compressions"][0]["event"]["archived_seq_range"], json!([2, 13]));
    assert_eq!(v["argument_repairs"].as_array().unwrap().len(), 1);
    assert_eq!(v["signals"].as_array().unwrap().len(), 2);
    assert_eq!(v["cancellations"][0]["event"]["reason"], "deadline");
}

#[test]
fn turn_index_covers_every_event() {
    let v = view_of(SAMPLE_JSONL);
    let turns = v["turns"].as_array().unwrap();
    let total: u64 = turns.iter().map(|t| t["event_count"].as_u64().unwrap()).sum();
    assert_eq!(total, 78);
    let t1 = &turns[1];
    assert_eq!(
        (t1["life"].clone(), t1["turn"].clone(), t1["first_position"].clone()),
        (json!(1), json!(1), json!(9))
    );
    assert_eq!(t1["last_position"], 14);
    assert_eq!(t1["tool_calls"], json!(["fs.read", "fs.read"]));
    assert_eq!(t1["tokens"], 412 + 96 + 88);
    assert_eq!(t1["output_tokens"], 412, "the completion's tokens, not the tools'");
    assert_eq!(t1["input_tokens"], 0);
    // Turn 0 measured its prompt twice: the provider's count replaced the estimate.
    assert_eq!(
        (turns[0]["input_tokens"].clone(), turns[0]["output_tokens"].clone()),
        (json!(2184), json!(0))
    );
}

/// Only a measurement of the request measured last, in the same turn,
/// replaces it: the last request is compared whatever came before it.
#[test]
fn a_measurement_replaces_only_the_last_of_its_request_and_turn() {
    let measured = |turn: u32, request: &str, tokens: u32| {
        format!(
            r#"{{"kind":"prompt_measured","turn":{turn},"measurement":{{"request_fingerprint":"{request}","input_tokens":{tokens}}}}}"#
        )
    };
    let log = [
        measured(1, "sha256:long-request", 100),
        measured(1, "sha256:b", 7),
        measured(1, "sha256:b", 9),
        measured(1, "sha256:long-request", 5),
        measured(1, "sha256:long-request", 6),
        measured(2, "sha256:long-request", 3),
        measured(2, "sha256:long", 4),
    ]
    .map(|line| line + "\n")
    .concat();
    let v = view_of(&log);
    let input: Vec<Value> =
        v["turns"].as_array().unwrap().iter().map(|t| t["input_tokens"].clone()).collect();
    assert_eq!(input, [json!(100 + 9 + 6), json!(3 + 4)]);
}

#[test]
fn the_kinds_deepstrike_0_2_77_adds_have_their_lists() {
    let v = view_of(SAMPLE_JSONL);
    let len = |list: &Value| list.as_array().unwrap().len();
    let m = &v["model"];
    assert_eq!((len(&m["attempts"]), len(&m["prompts"]), len(&m["contexts"])), (2, 2, 1));
    assert_eq!(m["attempts"][0]["event"]["status"], "transport_exhausted");
    assert!(m["contexts"][0]["event"]["preparation"].is_object(), "kept as written");
    let w = &v["workflow"];
    let lens = [&w["batches"], &w["submissions"], &w["nodes"], &w["completions"]].map(len);
    assert_eq!(lens, [1, 1, 2, 1]);
    assert_eq!(w["nodes"][1]["event"]["agent_id"], "log-miner-1");
    assert_eq!(len(&v["kernel_observations"]), 2);
    assert_eq!(v["rounds"][1]["event"]["action"], "sleep");
    assert_eq!(v["rounds"][0]["position"], 1);
    assert_eq!(len(&v["groups"]), 2);
    assert_eq!(v["memory"]["write_failures"][0]["event"]["record_id"], "mem-207");
    assert_eq!(len(&v["memory"]["query_failures"]), 1);
    assert_eq!(len(&v["summary_upgrades"]), 1);
    let archive: Vec<&str> = v["semantic_archive"]
        .as_array()
        .unwrap()
        .iter()
        .map(|e| e["event"]["kind"].as_str().unwrap())
        .collect();
    assert_eq!(
        archive,
        [
            "semantic_archive_pending",
            "semantic_archive_pending",
            "semantic_archive_completed",
            "semantic_archive_failed"
        ]
    );
    assert_eq!(
        v["lives"],
        json!([{"life":1,"first_position":1,"last_position":78,"first_turn":0,"last_turn":7}])
    );
}

#[test]
fn unknown_events_and_load_errors_are_shown() {
    let v = view_of("{\"kind\":\"warp\",\"turn\":1}\n{\"kind\":\"page_in\"}\n");
    assert_eq!(
        v["unknown"],
        json!([{"position":1,"kind":"warp","json":"{\"kind\":\"warp\",\"turn\":1}"}])
    );
    assert_eq!(v["load_errors"][0]["line"], 2);
    assert_eq!(v["errors"]["load_errors"], 1);
    assert_eq!(v["counts"]["warp"], 1);
}

#[test]
fn integers_beyond_2_pow_53_reach_js_as_exact_strings() {
    let text = r#"{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":18446744073709551615}"#;
    let v = view_of(text);
    assert_eq!(v["total_tokens"], "18446744073709551615");
    assert_eq!(v["status"]["total_tokens"], "18446744073709551615");
    let e = SessionEvent::from_json(text).unwrap();
    assert!(to_js_json(&e).contains("\"18446744073709551615\""));
    assert!(e.to_json().contains(":18446744073709551615}"), "the kernel JSON keeps the number");
}

#[test]
fn a_gate_or_denial_before_its_call_leaves_the_arguments_to_the_call() {
    let log = [
        r#"{"kind":"tool_gated","turn":1,"call_id":"c1","tool":"fs.write","reason":"wait"}"#,
        r#"{"kind":"tool_denied","turn":1,"call_id":"c2","tool_name":"git.push","reason":"no"}"#,
        r#"{"kind":"tool_requested","turn":1,"calls":[{"id":"c1","name":"fs.write","arguments":{"path":"a"}}]}"#,
        r#"{"kind":"llm_completed","turn":1,"message":{"role":"assistant","content":"","tool_calls":[{"id":"c2","name":"git.push","arguments":{"force":true}}]}}"#,
    ]
    .join("\n");
    let v = view_of(&log);
    let calls: Vec<&Value> =
        v["transcript"].as_array().unwrap().iter().filter(|e| e["type"] == "tool_call").collect();
    assert_eq!(calls.len(), 2);
    assert_eq!(
        (&calls[0]["name"], &calls[0]["arguments"]),
        (&json!("fs.write"), &json!({"path":"a"}))
    );
    assert_eq!(calls[0]["gated"], "wait");
    assert_eq!(calls[1]["arguments"], json!({"force": true}));
    assert_eq!(calls[1]["denied"], "no");
}

/// The kind table against the events of the sample (all 32 kinds): a kind
/// bears a turn when its events carry one, and the snapshot fold reads it
/// when one of its events changes the snapshot.
#[test]
fn the_kind_table_agrees_with_the_events_and_the_snapshot_fold() {
    use agent_replay::event::{kind_info, KIND_TABLE};
    use agent_replay::snapshot::{OsSnapshot, OsSnapshotFolder};
    let mut seen = std::collections::BTreeSet::new();
    for line in SAMPLE_JSONL.lines() {
        let event = SessionEvent::from_json(line).unwrap();
        let info = kind_info(event.kind()).unwrap();
        let json: Value = serde_json::from_str(line).unwrap();
        assert_eq!(json.get("turn").is_some(), info.bears_turn, "{}: turn", info.kind);
        assert_eq!(event.turn().is_some(), info.bears_turn, "{}: turn()", info.kind);
        assert_eq!(event.is_kernel_os_event(), info.kernel_os, "{}", info.kind);
        let mut folder = OsSnapshotFolder::new();
        folder.apply(&event);
        let changed = folder.snapshot() != &OsSnapshot::default();
        assert_eq!(changed, info.snapshot_fold, "{}: snapshot fold", info.kind);
        seen.insert(info.kind);
    }
    assert_eq!(seen.len(), KIND_TABLE.len(), "the sample has every kind of the table");
}

#[test]
fn past_a_bound_of_distinct_unknown_kinds_a_state_refuses_their_events() {
    use agent_replay::state::MAX_UNKNOWN_KINDS;
    let n = MAX_UNKNOWN_KINDS + 100;
    let log: String = (0..n).map(|i| format!("{{\"kind\":\"future_{i}\"}}\n")).collect();
    let mut state = SessionState::new(None);
    let report = state.apply_str(&log, Default::default()).unwrap();
    assert_eq!(state.event_count(), MAX_UNKNOWN_KINDS as u64);
    assert_eq!(report.errors.len(), 100);
    let first = &report.errors[0];
    assert_eq!((first.line, first.kind.as_deref()), (MAX_UNKNOWN_KINDS + 1, Some("future_4096")));
    assert_eq!(to_js_json(&first.code), "\"limit_exceeded\"");
    // A kind already folded is taken, from chunks too, and by a state
    // restored from the view (which counts the unknown kinds again).
    state
        .write(b"{\"kind\":\"future_7\"}\n{\"kind\":\"future_9999\"}\n", Default::default())
        .unwrap();
    assert_eq!(state.end().unwrap().errors.len(), 1);
    assert_eq!(state.event_count(), MAX_UNKNOWN_KINDS as u64 + 1);
    let mut restored = SessionState::from_view_json(&to_js_json(state.view())).unwrap();
    let again =
        restored.apply_str("{\"kind\":\"future_8\"}\n{\"kind\":\"new\"}\n", Default::default());
    assert_eq!(again.unwrap().errors.len(), 1);
    assert_eq!(restored.event_count(), MAX_UNKNOWN_KINDS as u64 + 2);
}

#[test]
fn each_turn_counts_its_events_by_kind_in_name_order() {
    let log =
        format!("{SAMPLE_JSONL}\n{{\"kind\":\"warp\",\"turn\":9}}\n{{\"kind\":\"a_warp\"}}\n");
    let v = view_of(&log);
    let turns = v["turns"].as_array().unwrap();
    let mut by_kind = serde_json::Map::new();
    for t in turns {
        let kinds = t["kinds"].as_object().unwrap();
        let names: Vec<&String> = kinds.keys().collect();
        assert!(names.windows(2).all(|w| w[0] < w[1]), "{names:?}");
        let counted: u64 = kinds.values().map(|n| n.as_u64().unwrap()).sum();
        assert_eq!(counted, t["event_count"].as_u64().unwrap());
        for (kind, n) in kinds {
            let sum = by_kind.get(kind).and_then(Value::as_u64).unwrap_or(0);
            by_kind.insert(kind.clone(), json!(sum + n.as_u64().unwrap()));
        }
    }
    // Every event is in a turn: the turns' counts add up to the session's.
    assert_eq!(Value::Object(by_kind), v["counts"]);
    let last = &turns[turns.len() - 1]["kinds"];
    assert_eq!((&last["warp"], &last["a_warp"]), (&json!(1), &json!(1)));
    assert_eq!(v["counts"]["tool_completed"], 5);
}
