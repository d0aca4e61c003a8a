//! Run-wide totals (`SessionView.totals`, in every summary): they agree with
//! the per-turn counts of a full fold, a summary-only fold (a directory's
//! list row, a checkpoint) gives the same, and they name tools, their
//! failures, models and the provider's clock as the real runtime wrote them.

use std::path::Path;

use agent_replay::index::SessionIndex;
use agent_replay::log::LogOptions;
use agent_replay::state::SessionState;
use agent_replay::view::{Detail, RunTotals, ToolTally};

fn corpus_logs() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deepstrike-0.2.77");
    let mut logs: Vec<(String, String)> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "jsonl"))
        .map(|p| (p.display().to_string(), std::fs::read_to_string(&p).unwrap()))
        .collect();
    logs.sort();
    assert!(logs.len() > 20, "the corpus is there");
    logs
}

fn fold(text: &str, detail: Detail) -> SessionState {
    let mut state = SessionState::with_detail(None, detail);
    state.apply_str(text, LogOptions::default()).unwrap();
    state
}

#[test]
fn totals_agree_with_the_turns_and_a_summary_only_fold_gives_them_too() {
    for (name, text) in corpus_logs() {
        let full = fold(&text, Detail::Full);
        let v = full.view();
        let t = &v.totals;
        let input: u64 = v.turns.iter().map(|t| t.input_tokens).sum();
        let output: u64 = v.turns.iter().map(|t| t.output_tokens).sum();
        let calls: usize = v.turns.iter().map(|t| t.tool_calls.len()).sum();
        assert_eq!((t.input_tokens, t.output_tokens), (input, output), "{name}: tokens");
        assert_eq!(t.tool_calls, calls as u64, "{name}: tool calls");
        assert_eq!(t.tools.iter().map(|t| t.calls).sum::<u64>(), t.tool_calls, "{name}");
        let failed: u64 = t.tools.iter().map(|t| t.errors).sum();
        assert!(failed <= v.errors.tool_errors, "{name}: failures by tool");
        let light = fold(&text, Detail::Summary);
        assert_eq!(light.summary().totals, t, "{name}: a summary-only fold");
    }
}

#[test]
fn totals_name_the_tools_that_failed_the_models_and_the_clock() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/deepstrike-0.2.77");
    let text = std::fs::read_to_string(dir.join("tools.jsonl")).unwrap();
    let state = fold(&text, Detail::Summary);
    let t: &RunTotals = state.summary().totals;
    let tally = |name: &str| t.tools.iter().find(|x| x.name == name).cloned();
    assert_eq!(t.models, ["replay"]);
    assert!(t.tools.iter().any(|x| x.errors > 0), "a failed result is named by its tool");
    assert_eq!(
        t.tools.iter().map(|x| x.errors).sum::<u64>(),
        state.view().errors.tool_errors,
        "every failed result of the corpus log answers a call it saw"
    );
    assert!(tally("read_file").is_some_and(|x: ToolTally| x.calls > 0));
    let (first, last) = (t.first_ms.unwrap(), t.last_ms.unwrap());
    assert!(first > 1_700_000_000_000 && first <= last, "{first}..{last}");
}

#[test]
fn a_prompt_measured_again_replaces_the_estimate_and_untimed_logs_have_no_clock() {
    let measured = |tokens: u32, source: &str| {
        format!(
            r#"{{"kind":"prompt_measured","turn":1,"measurement":{{"request_fingerprint":"r1","input_tokens":{tokens},"source":{{"kind":"{source}"}},"confidence":"exact"}}}}"#
        )
    };
    let log = [
        r#"{"kind":"run_started","run_id":"r","goal":"g","criteria":[],"agent_id":null,"system_prompt":null,"attachments":[]}"#.to_string(),
        measured(100, "heuristic"),
        measured(90, "postflight"),
        r#"{"kind":"llm_completed","turn":1,"message":{"role":"assistant","content":"hi","token_count":7}}"#.to_string(),
    ]
    .join("\n");
    let state = fold(&log, Detail::Summary);
    let t = state.summary().totals;
    assert_eq!((t.input_tokens, t.output_tokens), (90, 7));
    assert_eq!((t.first_ms, t.last_ms), (None, None));
    assert!(t.models.is_empty());
}

#[test]
fn a_view_written_without_totals_restores_them_from_its_lists() {
    for (name, text) in corpus_logs() {
        let full = fold(&text, Detail::Full);
        let mut json: serde_json::Value =
            serde_json::from_str(&agent_replay::json::to_js_json(full.view())).unwrap();
        json.as_object_mut().unwrap().remove("totals");
        let restored = SessionState::from_view_json(&json.to_string()).unwrap();
        assert_eq!(restored.view().totals, full.view().totals, "{name}");
    }
}

/// A log of `calls` tool calls, one a turn, a seventh of them failed, and
/// from the 3000th on every eleventh a second failed result for the call
/// made 3000 before: past the calls remembered, some of those are unnamed.
fn calls_log(calls: usize) -> Vec<String> {
    let mut lines = vec![
        r#"{"kind":"run_started","run_id":"r","goal":"g","criteria":[],"agent_id":null,"system_prompt":null,"attachments":[]}"#.to_string(),
    ];
    let result = |turn: usize, call: usize, failed: bool| {
        format!(
            r#"{{"kind":"tool_completed","turn":{turn},"results":[{{"call_id":"c{call}","output":"o","is_error":{failed}}}]}}"#
        )
    };
    for i in 0..calls {
        let turn = i + 1;
        lines.push(format!(
            r#"{{"kind":"tool_requested","turn":{turn},"calls":[{{"id":"c{i}","name":"tool-{}","arguments":{{}}}}]}}"#,
            i % 5
        ));
        lines.push(result(turn, i, i % 7 == 0));
        if i >= 3000 && i % 11 == 0 {
            lines.push(result(turn, i - 3000, true));
        }
    }
    lines
}

#[test]
fn time_travel_names_failed_results_as_the_fold_does_past_the_calls_remembered() {
    let lines = calls_log(9000);
    let mut index = SessionIndex::with_checkpoints(None, 64, 32);
    index.apply_bytes(lines.join("\n").as_bytes(), LogOptions::default()).unwrap();
    let mut fold = SessionState::with_detail(None, Detail::Summary);
    for (i, line) in lines.iter().enumerate() {
        let position = i as u64;
        if position % 733 == 0 || position % 512 < 2 {
            let light = index.state_at(position);
            assert_eq!(light.summary().totals, fold.summary().totals, "at {position}");
        }
        fold.apply_json(line).unwrap();
    }
    let t = fold.summary().totals;
    assert_eq!(index.state().summary().totals, t);
    let named: u64 = t.tools.iter().map(|x| x.errors).sum();
    let failed = fold.view().errors.tool_errors;
    assert!(named > 9000 / 7 && named < failed, "{named} of {failed} failures named");
}
