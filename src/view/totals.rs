//! Run-wide totals: what a runs dashboard sorts, filters and charts one
//! run by (tokens in and out, tool calls and failures by tool, models, the
//! provider's clock). Folded at every detail, so a summary-only fold (a
//! directory's list row, a checkpoint) has them without per-turn lists.

use std::collections::HashMap;

use super::raw::{self, readable};
use crate::event::{PromptMeasured, SessionEvent};

/// Distinct tools tallied by name; calls to further tools count in
/// `tool_calls` only, so a log of ever-new names keeps a row small.
pub const MAX_TOOLS: usize = 256;
/// Distinct models kept; further ones are not listed.
pub const MAX_MODELS: usize = 16;
/// Calls awaiting their result kept to name the tool of a failed result;
/// past it, the oldest are forgotten (their failures then count as `tool_errors` only).
const MAX_PENDING_CALLS: usize = 4096;

readable! {
    /// One tool's calls and failed results.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct ToolTally {
        pub name: String,
        pub calls: u64,
        pub errors: u64,
    }
}

readable! {
    /// Totals over the whole run, as a runs table shows them.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct RunTotals {
        /// The prompt's measured size summed over requests: each request's
        /// latest measurement in its turn (the provider's count replaces an
        /// estimate), as the turns count it.
        pub input_tokens: u64,
        /// Completion token counts.
        pub output_tokens: u64,
        /// Tool calls requested.
        pub tool_calls: u64,
        /// The models the run's route and its provider attempts named, first seen first.
        pub models: Vec<String>,
        /// Calls and failed results by tool, first called first.
        pub tools: Vec<ToolTally>,
        /// The earliest `started_at_ms` of a provider attempt (Unix ms):
        /// events carry no time of their own, attempts do.
        pub first_ms: Option<u64>,
        /// The latest `finished_at_ms` (else `started_at_ms`) of an attempt.
        pub last_ms: Option<u64>,
    }
}

/// What folding the totals remembers between events.
#[derive(Debug, Clone, Default)]
pub struct TotalsFolder {
    /// Call id → its tool's index in `tools`, until its result comes.
    pending: HashMap<String, usize>,
    /// The last prompt measurement: its (life, turn), request and tokens.
    measured: Option<((u32, u32), String, u64)>,
}

impl TotalsFolder {
    /// Folds one event (its text as written: the untyped kinds are read from it)
    /// of turn `at` (life, turn).
    pub fn apply(
        &mut self,
        t: &mut RunTotals,
        event: &SessionEvent<'_>,
        text: &str,
        at: (u32, u32),
    ) {
        match event {
            SessionEvent::RunStarted(_) | SessionEvent::ProviderAttempt(_) => {
                note_route_model(t, text);
                if matches!(event, SessionEvent::ProviderAttempt(_)) {
                    note_clock(t, text);
                }
            }
            SessionEvent::LlmCompleted(e) => {
                let tokens = u64::from(e.message.token_count.unwrap_or(0));
                t.output_tokens = t.output_tokens.saturating_add(tokens);
            }
            SessionEvent::ToolRequested(e) => {
                for call in &e.calls {
                    t.tool_calls = t.tool_calls.saturating_add(1);
                    if let Some(index) = tool_index(&mut t.tools, call.name.as_str()) {
                        add_calls(t, index);
                        self.remember(call.id.as_str(), index);
                    }
                }
            }
            SessionEvent::ToolCompleted(e) => {
                for r in &e.results {
                    let index = self.pending.remove(r.call_id.as_str());
                    if let (true, Some(tool)) = (r.is_error, index.and_then(|i| t.tools.get_mut(i)))
                    {
                        tool.errors = tool.errors.saturating_add(1);
                    }
                }
            }
            SessionEvent::PromptMeasured(e) => self.measure(t, e, at),
            _ => {}
        }
    }

    /// The folder that made `view`'s totals, given the view's last prompt
    /// measurement: the calls still awaiting a result are those of its transcript.
    pub fn restore(view: &super::SessionView, measured: Option<((u32, u32), String, u64)>) -> Self {
        let mut folder = TotalsFolder { pending: HashMap::new(), measured };
        for entry in &view.transcript {
            if let super::TranscriptEntry::ToolCall { call_id, name: Some(name), result, .. } =
                entry
            {
                let index = view.totals.tools.iter().position(|t| &t.name == name);
                match (result, index) {
                    (None, Some(index)) => folder.remember(call_id, index),
                    _ => drop(folder.pending.remove(call_id)),
                }
            }
        }
        folder
    }

    fn remember(&mut self, call_id: &str, index: usize) {
        if self.pending.len() >= MAX_PENDING_CALLS {
            self.pending.clear();
        }
        self.pending.insert(call_id.to_owned(), index);
    }

    /// A measurement of the same request as the last, in the same turn, replaces it.
    fn measure(&mut self, t: &mut RunTotals, e: &PromptMeasured<'_>, at: (u32, u32)) {
        let m = &e.measurement;
        let request = m.request_fingerprint.as_str();
        let replaced = match &self.measured {
            Some((turn, last, tokens)) if *turn == at && last == request => *tokens,
            _ => 0,
        };
        t.input_tokens = t.input_tokens.saturating_sub(replaced).saturating_add(m.input_tokens);
        self.measured = Some((at, request.to_owned(), m.input_tokens));
    }
}

fn add_calls(t: &mut RunTotals, index: usize) {
    if let Some(tool) = t.tools.get_mut(index) {
        tool.calls = tool.calls.saturating_add(1);
    }
}

/// The tally of `name`, added if there is room.
fn tool_index(tools: &mut Vec<ToolTally>, name: &str) -> Option<usize> {
    if let Some(i) = tools.iter().position(|t| t.name == name) {
        return Some(i);
    }
    (tools.len() < MAX_TOOLS).then(|| {
        tools.push(ToolTally { name: name.to_owned(), calls: 0, errors: 0 });
        tools.len().saturating_sub(1)
    })
}

/// The top-level member `key` (quoted) of the object `text`.
fn member<'t>(text: &'t str, key: &str) -> Option<&'t str> {
    let members = raw::items(text, b'{')?;
    members.iter().rev().find(|m| m.key == key).map(|m| m.value)
}

/// Adds the model of the event's `route`, if it names one not listed yet.
fn note_route_model(t: &mut RunTotals, text: &str) {
    let Some(model) = member(text, "\"route\"").and_then(|r| member(r, "\"model\"")) else {
        return;
    };
    let Some(model) = raw::string(model).filter(|m| !m.is_empty()) else { return };
    if t.models.len() < MAX_MODELS && !t.models.contains(&model) {
        t.models.push(model);
    }
}

/// Widens the run's clock to a provider attempt's start and end.
fn note_clock(t: &mut RunTotals, text: &str) {
    let at = |key| member(text, key).and_then(raw::unsigned);
    let started = at("\"started_at_ms\"");
    let Some(end) = at("\"finished_at_ms\"").or(started) else { return };
    let start = started.unwrap_or(end);
    t.first_ms = Some(t.first_ms.map_or(start, |f| f.min(start)));
    t.last_ms = Some(t.last_ms.map_or(end, |l| l.max(end)));
}
