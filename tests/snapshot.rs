//! The OS snapshot fold, rule by rule, the seed's scenarios with expected
//! JSON derived from the spec, and fold-by-event = fold-of-log.

mod common;

use agent_replay::snapshot::{rebuild_os_snapshot, OsSnapshot, OsSnapshotFolder};
use agent_replay::state::SessionState;
use agent_replay::SessionEvent;
use serde_json::{json, Value};

fn snapshot_of(lines: &[&str]) -> OsSnapshot {
    let events: Vec<SessionEvent> =
        lines.iter().map(|l| SessionEvent::from_json(l).unwrap()).collect();
    rebuild_os_snapshot(&events)
}

fn snapshot_json(lines: &[&str]) -> Value {
    serde_json::from_str(&snapshot_of(lines).to_json()).unwrap()
}

const EMPTY: &str = r#"{"last_suspend":null,"last_resumed_turn":null,"process_by_agent":[],"budget_exceeded":[],"budget_usage_reported":[],"cancellations":[],"signals":[],"page_out_count":0,"page_in_count":0,"tool_gated_count":0,"memory_written_count":0,"memory_queried_count":0,"memory_validation_failed_count":0,"memory_retrieval_result_count":0}"#;

#[test]
fn empty_snapshot_has_every_key_in_the_kernel_order() {
    assert_eq!(snapshot_of(&[]).to_json(), EMPTY);
}

#[test]
fn suspended_last_wins_and_resumed_does_not_clear_it() {
    let s = snapshot_json(&[
        r#"{"kind":"suspended","turn":1,"reason":"ask_user","pending_calls":["a"]}"#,
        r#"{"kind":"suspended","turn":2,"reason":"approval","pending_calls":["b","c"]}"#,
        r#"{"kind":"resumed","turn":3,"approved":["b"]}"#,
    ]);
    assert_eq!(s["last_suspend"], json!({"turn":2,"reason":"approval","pending_calls":["b","c"]}));
    assert_eq!(s["last_resumed_turn"], json!(3));
}

#[test]
fn process_by_agent_keeps_first_seen_order_and_the_newest_record() {
    let s = snapshot_json(&[
        r#"{"kind":"agent_process_changed","turn":1,"agent_id":"a","parent_session_id":"p","role":"r","isolation":"i","context_inheritance":"c","state":"spawned"}"#,
        r#"{"kind":"agent_process_changed","turn":2,"agent_id":"b","parent_session_id":"p","role":"r","isolation":"i","context_inheritance":"c","state":"spawned"}"#,
        r#"{"kind":"agent_process_changed","turn":3,"agent_id":"a","parent_session_id":"p2","role":"r","isolation":"i","context_inheritance":"c","state":"joined","result_termination":"completed"}"#,
    ]);
    assert_eq!(
        s["process_by_agent"],
        json!([
            {"turn":3,"agent_id":"a","parent_session_id":"p2","state":"joined"},
            {"turn":2,"agent_id":"b","parent_session_id":"p","state":"spawned"},
        ])
    );
}

/// deepstrike-core 0.2.60's record keeps `parent_session_id` and `state` as
/// written, empty or not: byte for byte the kernel's JSON.
#[test]
fn a_core_process_record_keeps_its_fields_as_written() {
    let s = snapshot_of(&[
        r#"{"kind":"agent_process_changed","turn":1,"agent_id":"a","parent_session_id":"","role":"r","isolation":"i","context_inheritance":"c","state":""}"#,
    ]);
    assert!(s.to_json().contains(
        r#""process_by_agent":[{"turn":1,"agent_id":"a","parent_session_id":"","state":""}]"#
    ));
}

/// The SDKs' process records (`parent_task_id`, no `parent_session_id`)
/// fold as the SDKs' `os_snapshot.py` does: each parent only when
/// non-empty, an empty `state` as `"running"`.
#[test]
fn an_sdk_process_record_follows_the_sdk_fold() {
    let event = |turn: u32, agent: &str, parents: &str, state: &str| {
        format!(
            r#"{{"kind":"agent_process_changed","turn":{turn},"agent_id":"{agent}",{parents}"role":"explore","isolation":"readonly","context_inheritance":"systemonly","state":"{state}","permitted_capability_ids":[]}}"#
        )
    };
    let lines = [
        event(0, "n0", r#""parent_task_id":"root","#, "running"),
        event(0, "n1", r#""parent_task_id":"","#, ""),
        event(1, "n2", r#""parent_task_id":"n1","parent_session_id":"s","#, "joined"),
        event(2, "n3", "", "joined"),
        event(3, "n0", r#""parent_task_id":"root","#, "joined"),
    ];
    let lines: Vec<&str> = lines.iter().map(String::as_str).collect();
    assert_eq!(
        snapshot_json(&lines)["process_by_agent"],
        json!([
            {"turn":3,"agent_id":"n0","parent_task_id":"root","state":"joined"},
            {"turn":0,"agent_id":"n1","state":"running"},
            {"turn":1,"agent_id":"n2","parent_task_id":"n1","parent_session_id":"s","state":"joined"},
            {"turn":2,"agent_id":"n3","state":"joined"},
        ])
    );
}

#[test]
fn lists_are_pushed_in_order_with_their_fields() {
    let s = snapshot_json(&[
        r#"{"kind":"budget_exceeded","turn":1,"operation_id":"o","budget":"tokens"}"#,
        r#"{"kind":"budget_exceeded","turn":2,"operation_id":"o","reservation_id":"r","budget":"rounds"}"#,
        r#"{"kind":"budget_usage_reported","turn":2,"operation_id":"o","reservation_id":"r","tokens":9007199254740993,"subagents":1,"rounds":2}"#,
        r#"{"kind":"operation_cancelled","turn":3,"operation_id":"o","reason":"lease_lost"}"#,
        r#"{"kind":"signal_delivery_disposed","turn":4,"operation_id":"o","delivery_id":"d","attempt":2,"signal_id":"s","disposition":"drop","queue_depth":3}"#,
    ]);
    assert_eq!(
        s["budget_exceeded"],
        json!([
            {"turn":1,"operation_id":"o","reservation_id":null,"budget":"tokens"},
            {"turn":2,"operation_id":"o","reservation_id":"r","budget":"rounds"},
        ])
    );
    assert_eq!(s["budget_usage_reported"][0]["tokens"].as_u64(), Some(9007199254740993));
    assert_eq!(
        s["cancellations"],
        json!([{"turn":3,"operation_id":"o","reason":"lease_lost","pending_call_ids":[]}])
    );
    assert_eq!(
        s["signals"],
        json!([{"turn":4,"operation_id":"o","delivery_id":"d","attempt":2,"signal_id":"s","disposition":"drop","queue_depth":3}])
    );
}

#[test]
fn counters_and_ignored_kinds() {
    let s = snapshot_json(&[
        r#"{"kind":"page_out","turn":1}"#,
        r#"{"kind":"page_out","turn":1}"#,
        r#"{"kind":"page_in","turn":1,"entry_count":1}"#,
        r#"{"kind":"tool_gated","turn":1,"call_id":"c","tool":"t","reason":"r"}"#,
        r#"{"kind":"memory_written","turn":1,"record_id":"m","scope":{"tenant_id":"t","namespace":"n"},"memory_kind":"user","name":"n","size_bytes":1}"#,
        r#"{"kind":"memory_queried","turn":1,"scope":{"tenant_id":"t","namespace":"n"},"query":"q","requested_k":3,"requires_async_response":false}"#,
        r#"{"kind":"memory_validation_failed","turn":1,"record_id":"m","error":"e"}"#,
        r#"{"kind":"memory_retrieval_result","hits":[]}"#,
        r#"{"kind":"checkpoint_taken","turn":1,"history_len":3}"#,
        r#"{"kind":"entropy_alert","turn":1,"score":0.9,"threshold":0.5}"#,
        r#"{"kind":"tool_denied","turn":1,"call_id":"c","tool_name":"t","reason":"r"}"#,
        r#"{"kind":"some_future_kind","turn":1}"#,
    ]);
    for (key, n) in [
        ("page_out_count", 2),
        ("page_in_count", 1),
        ("tool_gated_count", 1),
        ("memory_written_count", 1),
        ("memory_queried_count", 1),
        ("memory_validation_failed_count", 1),
        ("memory_retrieval_result_count", 1),
    ] {
        assert_eq!(s[key], json!(n), "{key}");
    }
    assert_eq!(s["last_suspend"], Value::Null);
}

#[test]
fn reading_a_snapshot_back_defaults_the_memory_counts() {
    let old = r#"{"last_suspend":null,"last_resumed_turn":4,"process_by_agent":[],"budget_exceeded":[],"budget_usage_reported":[],"cancellations":[],"signals":[],"page_out_count":1,"page_in_count":2,"tool_gated_count":3}"#;
    let snap: OsSnapshot = serde_json::from_str(old).unwrap();
    assert_eq!(
        (snap.memory_written_count, snap.memory_retrieval_result_count, snap.page_in_count),
        (0, 0, 2)
    );
}

/// The seed's test, as events in the wire format.
#[test]
fn seed_rebuild_tracks_process_and_signals() {
    let s = snapshot_of(&[
        r#"{"kind":"agent_process_changed","turn":1,"agent_id":"child-1","parent_session_id":"parent","role":"worker","isolation":"shared","context_inheritance":"none","state":"running"}"#,
        r#"{"kind":"signal_delivery_disposed","turn":2,"operation_id":"op","delivery_id":"delivery","attempt":1,"signal_id":"sig-a","disposition":"queue","queue_depth":1}"#,
        r#"{"kind":"suspended","turn":3,"reason":"ask_user","pending_calls":["c1"]}"#,
        r#"{"kind":"agent_process_changed","turn":4,"agent_id":"child-1","parent_session_id":"parent","role":"worker","isolation":"shared","context_inheritance":"none","state":"joined","result_termination":"completed"}"#,
    ]);
    assert_eq!(s.process_by_agent.len(), 1);
    assert_eq!(s.process_by_agent[0].state, "joined");
    assert_eq!(s.signals.len(), 1);
    assert_eq!(s.last_suspend.as_ref().map(|s| s.reason.as_str()), Some("ask_user"));
}

/// The ask-user scenario: a gated write, a suspension and its resume.
#[test]
fn seed_ask_user_scenario() {
    let s = snapshot_of(&[
        r#"{"kind":"run_started","run_id":"r1","goal":"edit a file","agent_id":null,"system_prompt":null,"attachments":[]}"#,
        r#"{"kind":"llm_completed","turn":1,"message":{"role":"assistant","content":"writing","tool_calls":[{"id":"c1","name":"fs.write","arguments":{}}]}}"#,
        r#"{"kind":"tool_requested","turn":1,"calls":[{"id":"c1","name":"fs.write","arguments":{}}]}"#,
        r#"{"kind":"permission_requested","turn":1,"tool":"fs.write","arguments":"{}","reason":null}"#,
        r#"{"kind":"tool_gated","turn":1,"call_id":"c1","tool":"fs.write","reason":"needs approval"}"#,
        r#"{"kind":"suspended","turn":1,"reason":"ask_user","pending_calls":["c1"]}"#,
        r#"{"kind":"permission_resolved","turn":2,"approved":true,"responder":"user"}"#,
        r#"{"kind":"resumed","turn":2,"approved":["c1"]}"#,
        r#"{"kind":"tool_completed","turn":2,"results":[{"call_id":"c1","output":"ok","is_error":false}]}"#,
        r#"{"kind":"run_terminal","reason":"completed","turns_used":2,"total_tokens":120}"#,
    ]);
    let expected = r#"{"last_suspend":{"turn":1,"reason":"ask_user","pending_calls":["c1"]},"last_resumed_turn":2,"process_by_agent":[],"budget_exceeded":[],"budget_usage_reported":[],"cancellations":[],"signals":[],"page_out_count":0,"page_in_count":0,"tool_gated_count":1,"memory_written_count":0,"memory_queried_count":0,"memory_validation_failed_count":0,"memory_retrieval_result_count":0}"#;
    assert_eq!(s.to_json(), expected);
}

/// The sub-agent lifecycle scenario: spawn, run, budget, signal, cancel, join.
#[test]
fn seed_spawn_lifecycle_scenario() {
    let s = snapshot_of(&[
        r#"{"kind":"agent_process_changed","turn":1,"agent_id":"w1","parent_session_id":"root","role":"worker","isolation":"worktree","context_inheritance":"summary","state":"spawned","permitted_capability_ids":["fs.read"]}"#,
        r#"{"kind":"agent_process_changed","turn":1,"agent_id":"w2","parent_session_id":"root","role":"worker","isolation":"shared","context_inheritance":"none","state":"spawned"}"#,
        r#"{"kind":"agent_process_changed","turn":2,"agent_id":"w1","parent_session_id":"root","role":"worker","isolation":"worktree","context_inheritance":"summary","state":"running"}"#,
        r#"{"kind":"budget_usage_reported","turn":2,"operation_id":"op-w1","reservation_id":"rsv-1","tokens":1200,"subagents":1,"rounds":3}"#,
        r#"{"kind":"signal_delivery_disposed","turn":2,"operation_id":"op-w1","delivery_id":"d1","attempt":1,"signal_id":"progress","disposition":"queue","queue_depth":1}"#,
        r#"{"kind":"budget_exceeded","turn":3,"operation_id":"op-w2","budget":"tokens"}"#,
        r#"{"kind":"operation_cancelled","turn":3,"operation_id":"op-w2","reason":"deadline","pending_call_ids":["c9"]}"#,
        r#"{"kind":"agent_process_changed","turn":3,"agent_id":"w2","parent_session_id":"root","role":"worker","isolation":"shared","context_inheritance":"none","state":"cancelled","result_termination":"budget_exceeded"}"#,
        r#"{"kind":"agent_process_changed","turn":4,"agent_id":"w1","parent_session_id":"root","role":"worker","isolation":"worktree","context_inheritance":"summary","state":"joined","result_termination":"completed"}"#,
    ]);
    let expected = r#"{"last_suspend":null,"last_resumed_turn":null,"process_by_agent":[{"turn":4,"agent_id":"w1","parent_session_id":"root","state":"joined"},{"turn":3,"agent_id":"w2","parent_session_id":"root","state":"cancelled"}],"budget_exceeded":[{"turn":3,"operation_id":"op-w2","reservation_id":null,"budget":"tokens"}],"budget_usage_reported":[{"turn":2,"operation_id":"op-w1","reservation_id":"rsv-1","tokens":1200,"subagents":1,"rounds":3}],"cancellations":[{"turn":3,"operation_id":"op-w2","reason":"deadline","pending_call_ids":["c9"]}],"signals":[{"turn":2,"operation_id":"op-w1","delivery_id":"d1","attempt":1,"signal_id":"progress","disposition":"queue","queue_depth":1}],"page_out_count":0,"page_in_count":0,"tool_gated_count":0,"memory_written_count":0,"memory_queried_count":0,"memory_validation_failed_count":0,"memory_retrieval_result_count":0}"#;
    assert_eq!(s.to_json(), expected);
}

/// Property: folding event by event (and snapshotting at every step) gives
/// what folding each prefix as a whole gives, for generated logs.
#[test]
fn folding_event_by_event_equals_folding_the_whole_log() {
    for seed in 1..=5u64 {
        let log = agent_replay::generate::generate_jsonl(seed, 40_000);
        let lines: Vec<&str> = log.lines().collect();
        let events: Vec<SessionEvent> =
            lines.iter().map(|l| SessionEvent::from_json(l).unwrap()).collect();
        let mut folder = OsSnapshotFolder::new();
        let mut state = SessionState::new(None);
        let mut rng = common::Rng(seed * 7919);
        for (i, event) in events.iter().enumerate() {
            folder.apply(event);
            state.apply(event, lines[i]);
            if rng.below(25) == 0 || i + 1 == events.len() {
                let prefix = rebuild_os_snapshot(&events[..=i]);
                assert_eq!(folder.snapshot(), &prefix, "seed {seed} at {i}");
                let mut whole = SessionState::new(None);
                whole.apply_str(&lines[..=i].join("\n"), Default::default()).unwrap();
                assert_eq!(state.view(), whole.view(), "seed {seed} at {i}");
                assert_eq!(state.os_snapshot(), whole.os_snapshot());
            }
        }
    }
}

#[test]
fn from_bytes_checks_folded_kinds_fully_and_others_as_json_unless_asked() {
    use agent_replay::snapshot::rebuild_os_snapshot_from_bytes;
    let bad_unfolded = b"{\"kind\":\"page_in\",\"turn\":1,\"entry_count\":1}\n{\"kind\":\"llm_completed\",\"turn\":\"x\"}\n";
    let (snap, report) = rebuild_os_snapshot_from_bytes(bad_unfolded, false, false).unwrap();
    assert_eq!((snap.page_in_count, report.events, report.errors.len()), (1, 2, 0));
    let (_, report) = rebuild_os_snapshot_from_bytes(bad_unfolded, false, true).unwrap();
    assert_eq!(report.errors[0].field.as_deref(), Some("turn"));
    // Folded kinds are always checked field by field, and broken JSON is always an error.
    let bad_folded =
        b"{\"kind\":\"page_in\",\"turn\":1}\n{\"kind\":\"llm_completed\",\"turn\":1,\n";
    let (_, report) = rebuild_os_snapshot_from_bytes(bad_folded, false, false).unwrap();
    let codes: Vec<_> = report.errors.iter().map(|e| (e.line, e.code)).collect();
    use agent_replay::log::LogErrorCode::*;
    assert_eq!(codes, [(1, InvalidEvent), (2, InvalidJson)]);
    // Strict mode still rejects unknown kinds it does not fold.
    let err = rebuild_os_snapshot_from_bytes(b"{\"kind\":\"warp\"}", true, false).unwrap_err();
    assert_eq!(err.code, UnknownKind);
    // And the kinds beyond deepstrike-core 0.2.60's, which tolerant reading knows.
    let paced = b"{\"kind\":\"round_paced\",\"round\":1,\"action\":\"stop\",\"reason\":\"r\"}";
    assert!(rebuild_os_snapshot_from_bytes(paced, false, false).unwrap().1.errors.is_empty());
    let err = rebuild_os_snapshot_from_bytes(paced, true, false).unwrap_err();
    assert_eq!((err.code, err.kind.as_deref()), (UnknownKind, Some("round_paced")));
}
