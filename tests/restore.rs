//! Restoring a state from a view's JSON (a live-replay observation) and
//! time-travel checkpoints: folding on from either must give exactly what
//! folding the whole log gives.

mod common;

use agent_replay::generate::{generate_jsonl, SAMPLE_JSONL};
use agent_replay::json::to_js_json;
use agent_replay::state::SessionState;
use serde_json::Value;
use std::collections::{BTreeMap, BTreeSet};

fn texts(log: &str) -> Vec<String> {
    common::load(log, false).unwrap().0
}

fn fold(state: &mut SessionState, events: &[String]) {
    for t in events {
        state.apply_json(t).unwrap();
    }
}

/// Folds `events` whole, and split at `k` through `resume`; compares.
fn check_split(
    events: &[String],
    k: usize,
    resume: impl Fn(&SessionState) -> SessionState,
    full_view: bool,
) {
    let mut whole = SessionState::new(Some("s".into()));
    fold(&mut whole, events);
    let mut head = SessionState::new(Some("s".into()));
    fold(&mut head, &events[..k]);
    let mut resumed = resume(&head);
    fold(&mut resumed, &events[k..]);
    assert_eq!(
        to_js_json(resumed.os_snapshot()),
        to_js_json(whole.os_snapshot()),
        "OS snapshot after a split at {k}"
    );
    assert_eq!(
        to_js_json(&resumed.summary()),
        to_js_json(&whole.summary()),
        "summary after a split at {k}"
    );
    if full_view {
        assert_eq!(
            to_js_json(resumed.view()),
            to_js_json(whole.view()),
            "view after a split at {k}"
        );
    }
}

fn from_json(head: &SessionState) -> SessionState {
    SessionState::from_view_json(&to_js_json(head.view())).unwrap()
}

#[test]
fn a_view_restored_at_every_position_of_the_sample_folds_on_exactly() {
    let events = texts(SAMPLE_JSONL);
    for k in 0..=events.len() {
        check_split(&events, k, from_json, true);
    }
}

#[test]
fn a_checkpoint_at_every_position_of_the_sample_folds_on_exactly() {
    let events = texts(SAMPLE_JSONL);
    for k in 0..=events.len() {
        check_split(&events, k, SessionState::checkpoint, false);
    }
}

#[test]
fn restores_and_checkpoints_hold_on_a_long_generated_log() {
    let events = texts(&generate_jsonl(7, 400_000));
    assert!(events.len() > 500, "{} events", events.len());
    let mut rng = common::Rng(99);
    for _ in 0..12 {
        let k = rng.below(events.len() as u64) as usize;
        check_split(&events, k, from_json, true);
        check_split(&events, k, SessionState::checkpoint, false);
    }
}

#[test]
fn a_checkpoint_keeps_no_per_event_lists() {
    let events = texts(SAMPLE_JSONL);
    let mut state = SessionState::new(None);
    fold(&mut state, &events);
    let light = state.checkpoint();
    let v = light.view();
    assert!(v.transcript.is_empty() && v.turns.is_empty() && v.signals.is_empty());
    assert_eq!(v.processes, state.view().processes);
    assert_eq!(v.counts, state.view().counts);
}

#[test]
fn load_errors_and_unknown_events_survive_a_restore() {
    let log = format!(
        "{SAMPLE_JSONL}{{\"kind\":\"warp\",\"turn\":9}}\n{{\"kind\":\"page_in\"}}\nnot json\n"
    );
    let mut state = SessionState::new(Some("s".into()));
    state.apply_str(&log, Default::default()).unwrap();
    let restored = SessionState::from_view_json(&to_js_json(state.view())).unwrap();
    assert_eq!(to_js_json(restored.view()), to_js_json(state.view()));
    assert_eq!(restored.view().load_errors.len(), 2);
}

#[test]
fn totals_beyond_2_pow_53_come_back_from_their_string_form() {
    let log = "{\"kind\":\"run_started\",\"run_id\":\"r\",\"goal\":\"g\",\"criteria\":[],\"agent_id\":null,\"system_prompt\":null,\"attachments\":[]}\n\
               {\"kind\":\"run_terminal\",\"reason\":\"done\",\"turns_used\":1,\"total_tokens\":18446744073709551615}\n";
    let mut state = SessionState::new(None);
    state.apply_str(log, Default::default()).unwrap();
    let json = to_js_json(state.view());
    assert!(json.contains("\"total_tokens\":\"18446744073709551615\""));
    let restored = SessionState::from_view_json(&json).unwrap();
    assert_eq!(restored.view().total_tokens, u64::MAX);
    assert_eq!(to_js_json(restored.view()), json);
}

#[test]
fn what_is_not_a_view_is_refused_with_a_reason() {
    let mut state = SessionState::new(None);
    state.apply_str(SAMPLE_JSONL, Default::default()).unwrap();
    let good = to_js_json(state.view());
    let cases = [
        "".to_string(),
        "null".to_string(),
        "{}".to_string(),
        "[1,2]".to_string(),
        good.replacen("\"state\":\"terminal\"", "\"state\":\"exploded\"", 1),
        good.replacen("\"approved\":[", "\"approved\":5,\"was\":[", 1),
        good.replacen("\"kind\":\"checkpoint_taken\"", "\"kind\":\"page_in\"", 1),
        good.replacen(
            "\"kind\":\"budget_exceeded\"",
            "\"kind\":\"budget_exceeded\",\"turn\":\"x\"",
            1,
        ),
        good[..good.len() / 2].to_string(),
    ];
    for (i, bad) in cases.iter().enumerate() {
        assert!(SessionState::from_view_json(bad).is_err(), "case {i} was accepted");
    }
}

/// The sample with a resume that denies, an unknown kind, bad lines, and a
/// second round whose run crashes and wakes (three lives): a view with a
/// value in every field.
fn every_field_log() -> String {
    let resumed = r#"{"kind":"resumed","turn":8,"approved":[],"denied":["call-9"]}"#;
    let unknown = r#"{"kind":"warp","turn":9}"#;
    let invalid = r#"{"kind":"page_in"}"#;
    // A sub-agent as deepstrike 0.2.77 writes it: its parent named by task.
    let by_task = r#"{"kind":"agent_process_changed","turn":9,"agent_id":"node-1","parent_task_id":"task-1","role":"worker","isolation":"readonly","context_inheritance":"systemonly","state":"","permitted_capability_ids":[]}"#;
    format!(
        "{SAMPLE_JSONL}{resumed}\n{by_task}\n{unknown}\n{invalid}\nnot json\n{}",
        crash_and_wake()
    )
}

/// A round and its run that crashes after requesting a tool; the wake
/// re-runs the call at turn 0 and measures the next prompt.
fn crash_and_wake() -> String {
    let measured = |turn: u32, tokens: u32| {
        format!(
            r#"{{"kind":"prompt_measured","turn":{turn},"measurement":{{"request_fingerprint":"sha256:a","input_tokens":{tokens}}}}}"#
        )
    };
    let call = r#"{"id":"w1","name":"fs.read","arguments":{"path":"a"}}"#;
    [
        r#"{"kind":"round_started","round":2,"goal":"again"}"#.to_string(),
        r#"{"kind":"run_started","run_id":"run-2","goal":"again","criteria":["done"],"agent_id":"a","system_prompt":"s","route":{"provider":"p","model":"m"}}"#.to_string(),
        measured(0, 40),
        measured(0, 30),
        format!(r#"{{"kind":"llm_completed","turn":1,"content":"","tool_calls":[{call}]}}"#),
        format!(r#"{{"kind":"tool_requested","turn":1,"calls":[{call}]}}"#),
        format!(r#"{{"kind":"tool_requested","turn":0,"calls":[{call}]}}"#),
        r#"{"kind":"tool_completed","turn":0,"results":[{"call_id":"w1","output":"a","is_error":false}]}"#.to_string(),
        measured(0, 50),
    ]
    .map(|line| line + "\n")
    .concat()
}

/// Every field path of a JSON value (array items as `[]`, each tagged
/// variant apart), split into those seen holding a value and the rest.
fn field_paths(v: &Value, path: &str, all: &mut BTreeSet<String>, valued: &mut BTreeSet<String>) {
    all.insert(path.to_string());
    let filled = match v {
        Value::Null => false,
        Value::Array(items) => !items.is_empty(),
        Value::Object(fields) => !fields.is_empty(),
        _ => true,
    };
    if filled {
        valued.insert(path.to_string());
    }
    match v {
        Value::Array(items) => {
            items.iter().for_each(|i| field_paths(i, &format!("{path}[]"), all, valued))
        }
        Value::Object(fields) => {
            let tag = match path {
                ".status" => fields.get("state"),
                _ => fields.get("type"),
            }
            .and_then(Value::as_str);
            for (k, f) in fields {
                let at = match (
                    tag,
                    path.ends_with("counts")
                        || path.ends_with("kinds")
                        || path.ends_with("tokens_by_operation"),
                ) {
                    (_, true) => format!("{path}.*"),
                    (Some(tag), false) => format!("{path}<{tag}>.{k}"),
                    (None, false) => format!("{path}.{k}"),
                };
                if !path.ends_with(".event") {
                    field_paths(f, &at, all, valued);
                }
            }
        }
        _ => {}
    }
}

#[test]
fn the_round_trip_log_gives_every_field_of_the_view_a_value() {
    let mut state = SessionState::new(Some("s".into()));
    state.apply_str(&every_field_log(), Default::default()).unwrap();
    let view: Value = serde_json::from_str(&to_js_json(state.view())).unwrap();
    let (mut all, mut valued) = (BTreeSet::new(), BTreeSet::new());
    field_paths(&view, "", &mut all, &mut valued);
    let empty: Vec<&String> = all.difference(&valued).collect();
    assert!(empty.is_empty(), "fields the round trip does not exercise: {empty:?}");
    let types: BTreeSet<&str> = view["transcript"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["type"].as_str().unwrap())
        .collect();
    assert_eq!(types.len(), 6, "every transcript entry type: {types:?}");
}

#[test]
fn a_view_restored_at_every_position_of_the_every_field_log_folds_on_exactly() {
    let events = texts(&every_field_log());
    for k in 0..=events.len() {
        check_split(&events, k, from_json, true);
    }
}

#[test]
fn the_view_keeps_every_event_the_os_snapshot_fold_reads() {
    let mut state = SessionState::new(None);
    state.apply_str(SAMPLE_JSONL, Default::default()).unwrap();
    let view: Value = serde_json::from_str(&to_js_json(state.view())).unwrap();
    let mut kept = BTreeMap::<String, u64>::new();
    count_entries(&view, &mut kept);
    for kind in agent_replay::event::KINDS.iter().filter(|k| agent_replay::snapshot::folds(k)) {
        assert!(view["counts"][kind].as_u64().unwrap() > 0, "the sample has no {kind}");
        assert_eq!(kept.get(*kind).copied(), view["counts"][kind].as_u64(), "{kind}");
    }
}

/// Counts the entries (`{position, event}`) of a view by kind.
fn count_entries(v: &Value, kept: &mut BTreeMap<String, u64>) {
    match v {
        Value::Object(fields) if fields.len() == 2 && fields.contains_key("event") => {
            *kept.entry(v["event"]["kind"].as_str().unwrap().to_string()).or_default() += 1;
        }
        Value::Object(fields) => fields.values().for_each(|f| count_entries(f, kept)),
        Value::Array(items) => items.iter().for_each(|i| count_entries(i, kept)),
        _ => {}
    }
}

#[test]
fn the_every_field_log_has_three_lives() {
    let mut state = SessionState::new(None);
    state.apply_str(&every_field_log(), Default::default()).unwrap();
    let lives: Vec<(u32, u32)> =
        state.view().lives.iter().map(|l| (l.first_turn, l.last_turn)).collect();
    assert_eq!(lives, [(0, 7), (0, 1), (0, 0)]);
    assert_eq!(state.summary().lives.len(), 3);
    assert_eq!(state.checkpoint().summary().lives, state.view().lives);
    let last = state.view().turns.last().unwrap();
    assert_eq!((last.life, last.turn, last.input_tokens), (3, 0, 50));
}
