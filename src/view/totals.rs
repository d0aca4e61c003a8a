//! Run-wide totals: what a runs dashboard sorts, filters and charts one
//! run by (tokens in and out, tool calls and failures by tool, models, the
//! provider's clock). Folded at every detail, so a summary-only fold (a
//! directory's list row, a checkpoint) has them without per-turn lists.

use super::calls::CallNames;
use super::raw::{self, readable};
use crate::event::{PromptMeasured, SessionEvent};

/// Distinct tools tallied by name; calls to further tools count in
/// `tool_calls` only, so a log of ever-new names keeps a row small.
pub const MAX_TOOLS: usize = 256;
/// Distinct models kept; further ones are not listed.
pub const MAX_MODELS: usize = 16;
/// Calls remembered to name the tool of a failed result (a call may get
/// several results: denied, then run); past it, all are forgotten at once
/// (failures of their results then count in `errors.tool_errors` only).
const MAX_CALLS: usize = 4096;

readable! {
    /// One tool's calls and failed results.
    #[derive(Debug, Clone, Default, PartialEq)]
    pub struct ToolTally {
        pub name: String,
        pub calls: u64,
        pub errors: u64,
    }
}

crate::json::writable! {
    /// Totals over the whole run, as a runs table shows them. Read back by
    /// hand (below), not by `readable!`: a view written before it existed
    /// (a durable checkpoint of an earlier version) has none.
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

impl raw::FromView for RunTotals {
    /// Missing (`null`) reads as empty: `RunTotals::of_view` makes them
    /// from the rest of such a view.
    fn read(text: &str, at: &raw::At<'_>) -> Self {
        if text == "null" {
            return RunTotals::default();
        }
        let o = raw::Obj::parse(text, "RunTotals", at);
        RunTotals {
            input_tokens: o.field("input_tokens"),
            output_tokens: o.field("output_tokens"),
            tool_calls: o.field("tool_calls"),
            models: o.field("models"),
            tools: o.field("tools"),
            first_ms: o.field("first_ms"),
            last_ms: o.field("last_ms"),
        }
    }
}

impl RunTotals {
    /// The totals of a full view written without them, from what it keeps:
    /// the turns' tokens and calls, the transcript's failed results, the
    /// run's route and the provider attempts.
    pub fn of_view(view: &super::SessionView) -> Self {
        let mut t = RunTotals::default();
        for turn in &view.turns {
            t.input_tokens = t.input_tokens.saturating_add(turn.input_tokens);
            t.output_tokens = t.output_tokens.saturating_add(turn.output_tokens);
            for name in &turn.tool_calls {
                t.tool_calls = t.tool_calls.saturating_add(1);
                if let Some(index) = tool_index(&mut t.tools, name) {
                    add_calls(&mut t, index);
                }
            }
        }
        // Failed results of the calls the transcript names, as the fold counts them.
        for entry in &view.transcript {
            let super::TranscriptEntry::ToolCall { name: Some(name), result: Some(r), .. } = entry
            else {
                continue;
            };
            let tool = t.tools.iter_mut().find(|x| &x.name == name);
            if let (true, Some(tool)) = (r.is_error, tool) {
                tool.errors = tool.errors.saturating_add(1);
            }
        }
        if let Some(route) = view.run.as_ref().and_then(|r| r.route.as_ref()) {
            note_model(&mut t, route.get());
        }
        for attempt in &view.model.attempts {
            note_route_and_clock(&mut t, attempt.event.get(), true);
        }
        t
    }
}

/// What folding the totals remembers between events.
#[derive(Debug, Clone, Default)]
pub struct TotalsFolder {
    /// Call id → its tool's name, from the assistant's message or the
    /// request; every time-travel checkpoint clones it.
    calls: CallNames,
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
                let attempt = matches!(event, SessionEvent::ProviderAttempt(_));
                note_route_and_clock(t, text, attempt);
            }
            SessionEvent::LlmCompleted(e) => {
                let tokens = u64::from(e.message.token_count.unwrap_or(0));
                t.output_tokens = t.output_tokens.saturating_add(tokens);
                // A call denied before it is requested is named here only.
                for call in &e.message.tool_calls {
                    self.remember(call.id.as_str(), call.name.as_str());
                }
            }
            SessionEvent::ToolRequested(e) => {
                for call in &e.calls {
                    t.tool_calls = t.tool_calls.saturating_add(1);
                    if let Some(index) = tool_index(&mut t.tools, call.name.as_str()) {
                        add_calls(t, index);
                    }
                    self.remember(call.id.as_str(), call.name.as_str());
                }
            }
            SessionEvent::ToolCompleted(e) => {
                for r in &e.results {
                    if r.is_error {
                        let name = self.calls.get(r.call_id.as_str());
                        let tool = name.and_then(|n| t.tools.iter_mut().find(|x| *x.name == *n));
                        if let Some(tool) = tool {
                            tool.errors = tool.errors.saturating_add(1);
                        }
                    }
                }
            }
            SessionEvent::PromptMeasured(e) => self.measure(t, e, at),
            _ => {}
        }
    }

    /// The folder that made `view`'s totals, given the view's last prompt
    /// measurement: the calls are those of its transcript.
    pub fn restore(view: &super::SessionView, measured: Option<((u32, u32), String, u64)>) -> Self {
        let mut folder = TotalsFolder { measured, ..TotalsFolder::default() };
        for entry in &view.transcript {
            if let super::TranscriptEntry::ToolCall { call_id, name: Some(name), .. } = entry {
                folder.remember(call_id, name);
            }
        }
        folder
    }

    fn remember(&mut self, call_id: &str, name: &str) {
        if self.calls.len() >= MAX_CALLS {
            self.calls = CallNames::default();
        }
        self.calls.set(call_id, name);
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

/// Adds the model of the event's `route`, if it names one not listed
/// yet, and with `clock` widens the run's clock to the event's start and
/// end (a provider attempt's): the event's members read once.
fn note_route_and_clock(t: &mut RunTotals, text: &str, clock: bool) {
    let members = raw::items(text, b'{').unwrap_or_default();
    let member = |key| members.iter().rev().find(|m| m.key == key).map(|m| m.value);
    if let Some(route) = member("\"route\"") {
        note_model(t, route);
    }
    if clock {
        note_clock(t, member("\"started_at_ms\""), member("\"finished_at_ms\""));
    }
}

/// Adds the model a route names, if it is not listed yet.
fn note_model(t: &mut RunTotals, route: &str) {
    let Some(model) = member(route, "\"model\"") else { return };
    let Some(model) = raw::string(model).filter(|m| !m.is_empty()) else { return };
    if t.models.len() < MAX_MODELS && !t.models.contains(&model) {
        t.models.push(model);
    }
}

/// Widens the run's clock to a provider attempt's start and end (their
/// values as written).
fn note_clock(t: &mut RunTotals, started: Option<&str>, finished: Option<&str>) {
    let started = started.and_then(raw::unsigned);
    let Some(end) = finished.and_then(raw::unsigned).or(started) else { return };
    let start = started.unwrap_or(end);
    t.first_ms = Some(t.first_ms.map_or(start, |f| f.min(start)));
    t.last_ms = Some(t.last_ms.map_or(end, |l| l.max(end)));
}
