//! The real-runtime corpus (tests/corpus/deepstrike-0.2.77/, logs written
//! by deepstrike's Python SDK 0.2.77, MANIFEST.json): every log reads with
//! no load error and no unknown kind, its OS snapshot equals the SDK's own
//! fold stored beside it, each dump (`<name>.events.json`) reads as its
//! `.jsonl` twin, and the view's lives follow the runtime's turn restarts.

use std::path::{Path, PathBuf};

use agent_replay::log::{self, Framing, LoadReport, LogOptions};
use agent_replay::snapshot::{rebuild_os_snapshot_from_str, OsSnapshot};
use agent_replay::state::SessionState;
use agent_replay::SessionEvent;
use serde_json::{Map, Value};

fn corpus() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deepstrike-0.2.77")
}

fn read(name: &str) -> String {
    std::fs::read_to_string(corpus().join(name)).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The logs, by MANIFEST.json (each `log`), checked against the directory.
fn logs() -> Vec<String> {
    let manifest: Value = serde_json::from_str(&read("MANIFEST.json")).unwrap();
    let logs: Vec<String> = manifest["logs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["log"].as_str().unwrap().to_string())
        .collect();
    let mut on_disk: Vec<String> = std::fs::read_dir(corpus())
        .unwrap()
        .map(|e| e.unwrap().file_name().into_string().unwrap())
        .filter(|n| n.ends_with(".jsonl"))
        .collect();
    on_disk.sort();
    let mut listed = logs.clone();
    listed.sort();
    assert_eq!(listed, on_disk, "MANIFEST.json lists every log of the corpus");
    logs
}

/// Each event as a JSON value (the texts of a dump are pretty-printed),
/// and the load report, read tolerantly from a string. Every kind is known.
fn events_of(text: &str) -> (Vec<Value>, LoadReport) {
    let mut events = Vec::new();
    let report =
        log::read_str(text, LogOptions::default(), &mut |t: &str, e: &SessionEvent<'_>| {
            assert!(!matches!(e, SessionEvent::Unknown(_)), "unknown kind: {t}");
            events.push(serde_json::from_str(t).unwrap())
        })
        .unwrap();
    (events, report)
}

/// The SDK's snapshot (`dataclasses.asdict(OsSnapshot)`, keys sorted) in
/// our terms. Each top-level key is mapped explicitly, so that a field the
/// SDK adds fails here rather than passing unseen; the mapping is the
/// identity on names and nesting:
/// - `last_suspend` `{turn, reason, pending_calls}` or null, and
///   `last_resumed_turn`: as ours.
/// - `process_by_agent`: a list (ours too), records `{turn, agent_id, state,
///   parent_task_id?, parent_session_id?}`, as ours for an SDK event.
/// - `budget_exceeded`, `budget_usage_reported`, `cancellations`, `signals`:
///   lists of records with our field names.
/// - the six `*_count` fields: as ours.
///
/// Objects compare as values: key order (the SDK's sorted, ours the
/// kernel's) does not matter.
fn sdk_snapshot_in_our_terms(sdk: &Value) -> Value {
    const SAME: [&str; 14] = [
        "last_suspend",
        "last_resumed_turn",
        "process_by_agent",
        "budget_exceeded",
        "budget_usage_reported",
        "cancellations",
        "signals",
        "page_out_count",
        "page_in_count",
        "tool_gated_count",
        "memory_written_count",
        "memory_queried_count",
        "memory_validation_failed_count",
        "memory_retrieval_result_count",
    ];
    let mut ours = Map::new();
    for (key, value) in sdk.as_object().unwrap() {
        assert!(SAME.contains(&key.as_str()), "a snapshot field with no mapping: {key}");
        ours.insert(key.clone(), value.clone());
    }
    Value::Object(ours)
}

fn snapshot_value(snapshot: &OsSnapshot) -> Value {
    serde_json::from_str(&snapshot.to_json()).unwrap()
}

#[test]
fn every_log_reads_without_errors_and_folds_the_sdk_snapshot() {
    for name in logs() {
        let text = read(&name);
        let (events, report) = events_of(&text);
        assert_eq!(report.errors, [], "{name}");
        assert_eq!(report.framing, Framing::StoredEntries, "{name}");
        assert_eq!(events.len(), text.lines().count(), "{name}: every line is an event");
        // The snapshot of a full check, and of the fold's own fast path.
        let sdk = read(&name.replace(".jsonl", ".snapshot.json"));
        let expected = sdk_snapshot_in_our_terms(&serde_json::from_str(&sdk).unwrap());
        for full_check in [true, false] {
            let (snapshot, report) =
                rebuild_os_snapshot_from_str(&text, false, full_check).unwrap();
            assert_eq!(report.errors, [], "{name}");
            assert_eq!(snapshot_value(&snapshot), expected, "{name}, full check: {full_check}");
        }
    }
}

/// The state of a log fed to `SessionState::write` in chunks of `size`.
fn written_in_chunks(text: &str, size: usize) -> (OsSnapshot, LoadReport) {
    let mut state = SessionState::new(None);
    for chunk in text.as_bytes().chunks(size) {
        state.write(chunk, LogOptions::default()).unwrap();
    }
    let report = state.end().unwrap();
    (state.os_snapshot().clone(), report)
}

#[test]
fn each_dump_reads_as_its_jsonl_twin() {
    for dump in ["tools.events.json", "workflow.events.json"] {
        let dump_text = read(dump);
        let twin_text = read(&dump.replace(".events.json", ".jsonl"));
        let (events, report) = events_of(&dump_text);
        let (twin_events, twin_report) = events_of(&twin_text);
        assert_eq!(report.framing, Framing::StoredEntriesArray, "{dump}");
        assert_eq!((report.errors.as_slice(), report.events), ([].as_slice(), twin_report.events));
        assert_eq!(events, twin_events, "{dump}");
        let (bytes_report, bytes_events) = {
            let mut n = 0;
            let report = log::read_bytes(
                dump_text.as_bytes(),
                LogOptions::default(),
                &mut |_: &str, _: &SessionEvent<'_>| n += 1,
            )
            .unwrap();
            (report, n)
        };
        assert_eq!((bytes_report, bytes_events), (report.clone(), events.len()), "{dump}");
        let (twin_snapshot, _) = rebuild_os_snapshot_from_str(&twin_text, false, true).unwrap();
        for size in [1, 7, 4096, dump_text.len()] {
            let (snapshot, chunked) = written_in_chunks(&dump_text, size);
            assert_eq!((&snapshot, &chunked), (&twin_snapshot, &report), "{dump} in {size}");
        }
    }
}

/// The view of a corpus log, as JSON.
fn view_of(name: &str) -> Value {
    let mut state = SessionState::new(None);
    state.apply_str(&read(name), LogOptions::default()).unwrap();
    serde_json::from_str(&agent_replay::json::to_js_json(state.view())).unwrap()
}

#[test]
fn every_log_has_no_unknown_kind_and_one_life_per_run_or_wake() {
    for name in logs() {
        let v = view_of(&name);
        assert_eq!(v["errors"]["unknown_events"], 0, "{name}");
        assert_eq!(v["unknown"], Value::Array(vec![]), "{name}");
        let lives = v["lives"].as_array().unwrap().len();
        let expected = match name.as_str() {
            "crash_wake.jsonl" => 2,
            "loop.jsonl" => 3,
            _ => 1,
        };
        assert_eq!(lives, expected, "{name}");
    }
}

#[test]
fn a_wake_starts_a_new_life_whose_turns_are_not_merged() {
    let v = view_of("crash_wake.jsonl");
    // The crash came after `tool_requested` turn 1 (seq 9); the wake re-ran
    // it at turn 0 (seq 10, position 11), and turns counted up again.
    assert_eq!(
        v["lives"],
        serde_json::json!([
            {"life": 1, "first_position": 1, "last_position": 10, "first_turn": 0, "last_turn": 1},
            {"life": 2, "first_position": 11, "last_position": 32, "first_turn": 0, "last_turn": 2},
        ])
    );
    let turns: Vec<(u64, u64)> = v["turns"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| (t["life"].as_u64().unwrap(), t["turn"].as_u64().unwrap()))
        .collect();
    assert_eq!(turns, [(1, 0), (1, 1), (2, 0), (2, 1), (2, 2)]);
    let completions = |life: u64| {
        v["transcript"]
            .as_array()
            .unwrap()
            .iter()
            .filter(|e| e["type"] == "assistant" && e["life"] == life)
            .count()
    };
    assert_eq!((completions(1), completions(2)), (1, 2));
    // The call pending at the crash is an entry of each life: the first
    // without a result, the one re-run after the wake with it.
    let w1: Vec<&Value> = v["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["type"] == "tool_call" && e["call_id"] == "w1")
        .collect();
    assert_eq!(w1.len(), 2);
    assert_eq!((&w1[0]["life"], &w1[0]["result"]), (&serde_json::json!(1), &Value::Null));
    assert_eq!(w1[1]["life"], 2);
    assert_eq!(w1[1]["result"]["is_error"], false);
}

#[test]
fn each_run_of_a_loop_is_a_life_from_its_round() {
    let v = view_of("loop.jsonl");
    let firsts: Vec<&Value> =
        v["lives"].as_array().unwrap().iter().map(|l| &l["first_position"]).collect();
    let rounds: Vec<&Value> = v["rounds"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["event"]["kind"] == "round_started")
        .map(|r| &r["position"])
        .collect();
    assert_eq!(firsts, rounds, "each round's start opens a life");
}
