//! A state as a client shows it: the summary and the OS snapshot with each
//! list that grows with the log (the snapshot's records, each process's
//! history) cut to its last items, and how many each had. A time-travel
//! step then sends a page's worth, not the log's.

use crate::json::to_js_json;
use crate::state::SessionState;
use crate::view::{ProcessView, SessionSummary};

/// `{summary, os_snapshot, totals}` of `state` as JSON, its lists cut to
/// their last `tail` items; `totals` is `{lists: {name: count}, history:
/// {agent_id: count}}`.
pub fn shown_state_json(state: &SessionState, tail: usize) -> String {
    let mut os_snapshot = state.os_snapshot().clone();
    let lists = os_snapshot.keep_last(tail);
    let summary = state.summary();
    let history: Vec<(&str, usize)> =
        summary.processes.iter().map(|p| (p.agent_id.as_str(), p.history.len())).collect();
    let processes: Vec<ProcessView> =
        summary.processes.iter().map(|p| cut_history(p, tail)).collect();
    let summary = SessionSummary { processes: &processes, ..summary };
    // Each part by the serializer the rest of the API uses for it.
    format!(
        "{{\"summary\":{},\"os_snapshot\":{},\"totals\":{{\"lists\":{},\"history\":{}}}}}",
        to_js_json(&summary),
        to_js_json(&os_snapshot),
        counts_json(&lists),
        counts_json(&history)
    )
}

/// `{"name": count, ...}`.
fn counts_json(counts: &[(&str, usize)]) -> String {
    let fields: Vec<String> =
        counts.iter().map(|(name, n)| format!("{}:{n}", to_js_json(name))).collect();
    format!("{{{}}}", fields.join(","))
}

fn cut_history(process: &ProcessView, tail: usize) -> ProcessView {
    let mut cut = process.clone();
    cut.history.keep_last(tail);
    cut
}
