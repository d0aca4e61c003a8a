//! Comparing two runs (`compare_runs`): identical runs match; each kind of
//! change gives the right first divergence, with its position on both
//! sides; real runs of the corpus diverge from each other and match
//! themselves.

use std::path::Path;

use agent_replay::compare::{compare_runs, Difference, DifferenceAspect as Aspect, RunComparison};
use agent_replay::generate::SAMPLE_JSONL;
use agent_replay::state::SessionState;
use agent_replay::units::Position;

fn fold(log: &str) -> SessionState {
    let mut state = SessionState::new(None);
    state.apply_str(log, Default::default()).expect("a log");
    state
}

fn compare(a: &str, b: &str) -> RunComparison {
    compare_runs(fold(a).view(), fold(b).view())
}

/// The sample with line `n` (1-based) rewritten by `edit`.
fn sample_with(n: usize, edit: impl Fn(&str) -> String) -> String {
    let lines = SAMPLE_JSONL.lines().enumerate();
    let edited: Vec<String> =
        lines.map(|(i, l)| if i + 1 == n { edit(l) } else { l.to_string() }).collect();
    edited.join("\n")
}

fn first(c: &RunComparison) -> &Difference {
    c.first_divergence.as_ref().expect("a divergence")
}

/// The first divergence's aspect, turn, call, and positions on each side.
fn at(d: &Difference) -> (Aspect, (u32, u32), Option<u32>, (u64, u64)) {
    (d.aspect, (d.life, d.turn), d.call, (d.a.position.0, d.b.position.0))
}

#[test]
fn identical_runs_match() {
    let c = compare(SAMPLE_JSONL, SAMPLE_JSONL);
    assert!(c.matches);
    assert_eq!(c.first_divergence, None);
    assert_eq!(c.difference_count, 0);
    assert_eq!(c.turns.len(), 8, "turns 0 to 7 of one life");
    assert!(c.turns.iter().all(|t| t.a.is_some() && t.a == t.b && t.differences.is_empty()));
    assert_eq!(c.turns[1].a.as_ref().map(|t| t.tool_calls), Some(2));
}

#[test]
fn a_changed_argument() {
    let b = sample_with(10, |l| l.replace(r#""path":"payments/refund.py""#, r#""path":"x.py""#));
    let c = compare(SAMPLE_JSONL, &b);
    assert!(!c.matches);
    let d = first(&c);
    assert_eq!(at(d), (Aspect::Arguments, (1, 1), Some(1), (10, 10)));
    assert_eq!(d.a.value.as_deref(), Some(r#"{"path":"payments/refund.py"}"#));
    assert_eq!(d.b.value.as_deref(), Some(r#"{"path":"x.py"}"#));
    assert_eq!(c.difference_count, 1, "{c:#?}");
}

#[test]
fn a_changed_result() {
    let b =
        sample_with(12, |l| l.replace("ttl=1)\\n    return result", "ttl=60)\\n    return result"));
    let c = compare(SAMPLE_JSONL, &b);
    let d = first(&c);
    assert_eq!(at(d), (Aspect::Result, (1, 1), Some(1), (12, 12)));
    assert!(d.b.value.as_deref().is_some_and(|v| v.contains("ttl=60")));
    assert_eq!(c.difference_count, 1);
}

#[test]
fn a_result_that_fails_on_one_side_only() {
    let b = sample_with(12, |l| l.replacen(r#""is_error":false"#, r#""is_error":true"#, 1));
    let d = first(&compare(SAMPLE_JSONL, &b)).clone();
    assert_eq!(at(&d), (Aspect::Error, (1, 1), Some(0), (12, 12)));
    assert_eq!((d.a.value, d.b.value.as_deref()), (None, Some("error")));
}

#[test]
fn an_extra_call() {
    let extra = r#"{"id":"call-9","name":"fs.grep","arguments":{"q":"ttl"}},"#;
    let insert = |l: &str| l.replace(r#"{"id":"call-2""#, &format!(r#"{extra}{{"id":"call-2""#));
    let b = sample_with(10, insert);
    let c = compare(SAMPLE_JSONL, &b);
    let d = first(&c);
    // Side a has no such call: its position is its next call (call-2, also at 10).
    assert_eq!(at(d), (Aspect::Call, (1, 1), Some(1), (10, 10)));
    assert_eq!((d.a.value.as_deref(), d.b.value.as_deref()), (None, Some("fs.grep")));
    assert_eq!(c.difference_count, 1, "call-2 still pairs with call-2: {c:#?}");
    assert_eq!(c.turns[1].b.as_ref().map(|t| t.tool_calls), Some(3));
}

#[test]
fn a_missing_turn() {
    let b: Vec<&str> = SAMPLE_JSONL.lines().filter(|l| !l.contains(r#""turn":2,"#)).collect();
    let removed = SAMPLE_JSONL.lines().count() - b.len();
    assert_eq!(removed, 7);
    let c = compare(SAMPLE_JSONL, &b.join("\n"));
    let d = first(&c);
    // Turn 2 starts at 15 in a; in b, turn 3 starts where a's turn 3 (23) is, 7 lines earlier.
    assert_eq!(at(d), (Aspect::Turn, (1, 2), None, (15, 16)));
    assert_eq!((d.a.value.as_deref(), d.b.value.as_deref()), (Some("8 events"), None));
    let turn2 = c.turns.iter().find(|t| t.turn == 2).expect("turn 2 is listed");
    assert!(turn2.a.is_some() && turn2.b.is_none());
}

#[test]
fn a_different_terminal_status() {
    let b = sample_with(77, |l| l.replace(r#""reason":"completed""#, r#""reason":"max_turns""#));
    let c = compare(SAMPLE_JSONL, &b);
    let d = first(&c);
    assert_eq!(at(d), (Aspect::Status, (1, 7), None, (77, 77)));
    assert_eq!(d.a.value.as_deref(), Some("terminal: completed after 7 turns"));
    assert_eq!(d.b.value.as_deref(), Some("terminal: max_turns after 7 turns"));
    assert_eq!(c.difference_count, 1);
}

#[test]
fn the_first_divergence_is_in_the_earliest_turn() {
    let b = sample_with(77, |l| l.replace("completed", "failed"));
    let b = b.replace(r#""token_count":412"#, r#""token_count":413"#);
    let c = compare(SAMPLE_JSONL, &b);
    assert_eq!(c.difference_count, 2);
    assert_eq!(at(first(&c)), (Aspect::Tokens, (1, 1), None, (10, 10)));
    assert_eq!(first(&c).b.value.as_deref(), Some("597 tokens (0 in, 413 out)"));
}

#[test]
fn load_errors_are_kept_and_the_rest_compared() {
    let b = format!("{}\n{{\"kind\":\"page_in\",\"turn\":\"x\"}}", SAMPLE_JSONL.trim_end());
    let c = compare(SAMPLE_JSONL, &b);
    assert!(c.matches, "the bad line is not an event: {c:#?}");
    assert_eq!((c.a.load_errors.len(), c.b.load_errors.len()), (0, 1));
    assert_eq!(c.b.load_errors[0].line, 79);
}

/// Generated runs: each matches itself; against its own first part (cut at
/// a line), it diverges, and every position named is in its run.
#[test]
fn generated_runs_against_themselves_and_their_beginnings() {
    for seed in 1..=6 {
        let log = agent_replay::generate::generate_jsonl(seed, 60_000);
        let whole = fold(&log);
        assert!(compare_runs(whole.view(), whole.view()).matches, "seed {seed}");
        let lines: Vec<&str> = log.lines().collect();
        let cut = fold(&lines[..lines.len() * (seed as usize) / 7].join("\n"));
        let c = compare_runs(whole.view(), cut.view());
        assert!(!c.matches, "seed {seed}");
        for d in c.turns.iter().flat_map(|t| &t.differences) {
            assert!((1..=whole.event_count()).contains(&d.a.position.0), "{d:?}");
            assert!(d.b.position.0 <= cut.event_count(), "{d:?}");
        }
    }
}

fn corpus(name: &str) -> String {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deepstrike-0.2.77");
    std::fs::read_to_string(dir.join(name)).expect("a corpus log")
}

#[test]
fn corpus_runs_match_themselves() {
    for name in ["tools.jsonl", "crash_wake.jsonl", "permissions.jsonl", "long_run.jsonl"] {
        let log = corpus(name);
        let c = compare(&log, &log);
        assert!(c.matches, "{name}");
        assert!(c.turns.len() > 1, "{name}");
    }
}

#[test]
fn two_real_runs_of_one_workflow_diverge_at_their_goal() {
    let (a, b) =
        (corpus("workflow.workflow-wf-node0.jsonl"), corpus("workflow.workflow-wf-node1.jsonl"));
    let c = compare(&a, &b);
    // Two sub-agents of one workflow: the same steps, the same answer, but
    // each was given its own goal (at run_started, the first event).
    let d = first(&c);
    assert_eq!(at(d), (Aspect::Message, (1, 0), None, (1, 1)));
    assert_eq!(d.a.value.as_deref(), Some("goal: survey the repository"));
    assert_eq!(d.b.value.as_deref(), Some("goal: list the risky modules"));
    assert_eq!(c.difference_count, 1, "{c:#?}");
}

#[test]
fn two_different_real_runs_diverge_at_their_first_tool_call() {
    let c = compare(&corpus("tools.jsonl"), &corpus("permissions.jsonl"));
    assert!(!c.matches);
    let d = first(&c);
    let turn1 = c.turns.iter().find(|t| (t.life, t.turn) == (1, 1)).expect("turn 1");
    assert!(turn1.differences.iter().any(|x| x.aspect == Aspect::Call));
    assert!(d.a.position > Position(0) && d.b.position > Position(0));
    assert!(d.a.position.0 <= c.a.event_count && d.b.position.0 <= c.b.event_count);
}
