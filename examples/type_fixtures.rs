//! Prints JSON the Rust code produces (events in every shape, snapshots,
//! views at every status) for scripts/check-types.mjs, which compiles it
//! against js/index.d.ts.
use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::event::KIND_TABLE;
use agent_replay::generate::SAMPLE_JSONL;
use agent_replay::json::to_js_json;
use agent_replay::live::{ReplaySession, ReplayStore, Resume, StoreConfig};
use agent_replay::state::SessionState;
use agent_replay::units::Millis;
use agent_replay::SessionEvent;

/// Events with every optional field present, and with none.
const EXTRA: &[&str] = &[
    r#"{"kind":"run_started","run_id":"r","goal":"g"}"#,
    r#"{"kind":"llm_completed","turn":1,"message":{"role":"user","content":[{"type":"image","url":"u","data":"d","media_type":"m","detail":"high"},{"type":"audio","data":"d","media_type":"m"},{"type":"tool_result","call_id":"c","output":"o","is_error":false,"durable_content":{"blocks":[]}}]},"provider_replay":{"protocol":"p","provider":"a","model":"m","native_blocks":[1],"reasoning_content":"r","reasoning_details":{"x":1},"native_message":null,"tool_calls":[]}}"#,
    r#"{"kind":"tool_completed","turn":1,"results":[{"call_id":"c","output":"x","is_error":true,"is_fatal":true,"error_kind":"timeout","token_count":3,"durable_content":{"blocks":[{"type":"text","text":"t"},{"type":"file","source":{"kind":"file_id","id":"f","affinity":{"provider_id":"p","endpoint_id":"e"}},"media_type":"m","provider_options":{"a":1}},{"type":"image","source":{"kind":"object","handle":"h","owner":"o","payload_ref":"r"}},{"type":"video","source":{"kind":"base64","data":"d"}},{"type":"audio","source":{"kind":"url","url":"u"}}]}}]}"#,
    r#"{"kind":"compressed","turn":1,"archived_seq_range":[1,2]}"#,
    r#"{"kind":"page_out","turn":1}"#,
    r#"{"kind":"capability_changed","turn":1}"#,
    r#"{"kind":"suspended","turn":1,"reason":"r"}"#,
    r#"{"kind":"resumed","turn":1,"denied":["c"]}"#,
    r#"{"kind":"budget_exceeded","turn":1,"operation_id":"o","reservation_id":"r","budget":"b"}"#,
    r#"{"kind":"rollbacked","turn":1,"checkpoint_history_len":1}"#,
    r#"{"kind":"rollbacked","turn":1,"checkpoint_history_len":1,"reason":{"kind":"timeout"}}"#,
    r#"{"kind":"agent_process_changed","turn":1,"agent_id":"a","parent_session_id":"p","role":"r","isolation":"i","context_inheritance":"c","state":"s"}"#,
    r#"{"kind":"memory_retrieval_result","hits":[{"record":{"record_id":"r","scope":{"tenant_id":"t","namespace":"n"},"name":"n","kind":"user","content":"c","description":"d","provenance":{"author":"host","trust":"untrusted"},"created_at":1,"updated_at":2,"confidence":0.5,"links":[],"ttl_days":3},"score":1.0,"why":"w"}]}"#,
    r#"{"kind":"permission_requested","turn":1,"tool":"t","arguments":"{}"}"#,
    r#"{"kind":"run_terminal","reason":"r","turns_used":1,"total_tokens":18446744073709551615}"#,
];

fn main() {
    let mut events = Vec::new();
    for line in SAMPLE_JSONL.lines().chain(EXTRA.iter().copied()) {
        let event = SessionEvent::from_json(line).expect("fixture event");
        // The kinds beyond the core are typed only in part: JS sees them as written.
        let core = agent_replay::event::kind_info(event.kind()).is_some_and(|k| k.core);
        events.push(if core { to_js_json(&event) } else { line.to_string() });
    }
    let mut views = Vec::new();
    let mut summaries = Vec::new();
    let mut snapshots = Vec::new();
    let lines: Vec<&str> = SAMPLE_JSONL.lines().collect();
    // Prefixes that end not started, running, suspended and terminal.
    let suspended = lines.iter().position(|l| l.contains("\"kind\":\"suspended\"")).unwrap_or(0);
    for n in [0, 3, suspended + 1, lines.len()] {
        let mut state = SessionState::new(Some("fixture".into()));
        let _ = state.apply_str(&lines[..n].join("\n"), Default::default());
        views.push(to_js_json(state.view()));
        summaries.push(to_js_json(&state.summary()));
        snapshots.push(to_js_json(state.os_snapshot()));
    }
    let mut errs = SessionState::new(None);
    let _ = errs.apply_str("{\"kind\":\"x\"}\n{\"kind\":\"page_in\"}\n[", Default::default());
    views.push(to_js_json(errs.view()));
    // Live replay: an observation and a gap, as the session handle makes them.
    let store = Rc::new(RefCell::new(
        ReplayStore::new(
            StoreConfig { max_events_per_session: 2, max_age_ms: 1000, ..Default::default() },
            "t",
        )
        .expect("store"),
    ));
    let session = ReplaySession::new("fixture", store).expect("session");
    let start = session.cursor();
    session.append(SAMPLE_JSONL.as_bytes(), Millis(0), None).expect("sample appends");
    let gaps = match session.resume(&start, Millis(0)).expect("resume") {
        Resume::Gap { gap, observation } => format!(
            "{{\"type\":\"gap\",\"gap\":{},\"observation\":{}}}",
            to_js_json(&gap),
            to_js_json(&observation)
        ),
        Resume::Replayed { .. } => unreachable!("a buffer of 2 is trimmed past the start"),
    };
    println!(
        "{{\"events\":[{}],\"views\":[{}],\"snapshots\":[{}],\"gaps\":[{gaps}],\"observations\":[{}],\"summaries\":[{}],\"kinds\":{}}}",
        events.join(","),
        views.join(","),
        snapshots.join(","),
        to_js_json(&session.observe_sent()),
        summaries.join(","),
        to_js_json(&KIND_TABLE)
    );
}
