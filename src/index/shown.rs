//! A state as a client shows it: the summary and the OS snapshot with each
//! list that grows with the log (the snapshot's records, each process's
//! history, the summary's tokens by operation) cut to its last items, and
//! how many each had. A time-travel step then sends a page's worth, not the
//! log's.

use std::collections::BTreeMap;

use crate::json::to_js_json;
use crate::shared_map::SharedMap;
use crate::state::SessionState;

/// `{summary, os_snapshot, totals}` of `state` as JSON, its lists cut to
/// their last `tail` items; `totals` is `{lists: {name: count}, history:
/// {agent_id: count}, tokens_by_operation: count}`.
pub fn shown_state_json(mut state: SessionState, tail: usize) -> String {
    let totals = state.keep_last(tail);
    let history: Vec<(&str, usize)> =
        totals.history.iter().map(|(a, n)| (a.as_str(), *n)).collect();
    let mut summary = state.summary();
    let all_operations = summary.tokens_by_operation.merged();
    let operations = all_operations.len();
    // The last by operation id: one entry per operation of the log.
    // (Inserted one by one: collecting would add a sort to the .wasm.)
    let mut last_operations = BTreeMap::new();
    for (operation, tokens) in all_operations.iter().rev().take(tail) {
        last_operations.insert(operation.clone(), *tokens);
    }
    let last_operations = SharedMap::from(last_operations);
    summary.tokens_by_operation = &last_operations;
    // Each part by the serializer the rest of the API uses for it.
    format!(
        "{{\"summary\":{},\"os_snapshot\":{},\"totals\":{{\"lists\":{},\"history\":{},\"tokens_by_operation\":{operations}}}}}",
        to_js_json(&summary),
        to_js_json(state.os_snapshot()),
        counts_json(&totals.lists),
        counts_json(&history)
    )
}

/// `{"name": count, ...}`.
fn counts_json(counts: &[(&str, usize)]) -> String {
    let fields: Vec<String> =
        counts.iter().map(|(name, n)| format!("{}:{n}", to_js_json(name))).collect();
    format!("{{{}}}", fields.join(","))
}
