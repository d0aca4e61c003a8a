//! The spans of a run under the OpenTelemetry GenAI conventions: a `chat`
//! span per model call, an `execute_tool` span per tool call that ran, an
//! `invoke_agent` span per sub-agent. (The run's own `invoke_agent` span,
//! their root, is built in `mod.rs` around them.)

use std::collections::HashMap;

use super::attempts::Attempt;
use super::clock::{self, Clock, Moment};
use super::ids::Ids;
use super::model::{span_name, Attributes, Span, SpanEvent, SpanKind, Status};
use crate::json::{JsonOut, JsonText};
use crate::units::Position;
use crate::view::{ProcessView, RunHeader, SessionView, ToolOutcome, TranscriptEntry};

/// A span before its ids and times are written out.
pub struct Draft {
    pub span_id: String,
    /// Its parent span's id; `None`: the span given to `finish` (none for the root).
    pub parent: Option<String>,
    pub name: String,
    pub kind: SpanKind,
    pub start: Moment,
    pub end: Moment,
    pub attributes: Attributes,
    pub events: Vec<SpanEvent>,
    pub status: Status,
}

impl Draft {
    /// Writes the OTLP span, under `root` when it names no parent of its
    /// own (`""`: under none).
    pub fn write(mut self, out: &mut JsonOut, trace_id: &str, root: &str) {
        let synthetic = !(self.start.real && self.end.real);
        self.attributes.bool("agent_replay.time.synthetic", synthetic);
        let span = Span {
            trace_id,
            span_id: &self.span_id,
            parent_span_id: self.parent.as_deref().unwrap_or(root),
            name: &self.name,
            kind: self.kind,
            start: self.start.nanos,
            end: self.end.nanos,
            attributes: &self.attributes,
            events: &self.events,
            status: &self.status,
        };
        span.write(out);
    }
}

/// What the spans are built from, read once.
pub struct Context<'v> {
    pub view: &'v SessionView,
    pub ids: &'v Ids,
    pub clock: &'v Clock,
    pub attempts: &'v [Attempt],
    /// The run's route (`run_route`).
    pub route: &'v Route,
    pub content: bool,
}

/// A tool call's transcript entries by life and call id (`call_key`).
/// (The transcript folder's own map type: one copy in the .wasm.)
struct Calls<'v> {
    transcript: &'v [TranscriptEntry],
    index: HashMap<String, usize>,
}

fn call_key(life: u32, call_id: &str) -> String {
    [itoa::Buffer::new().format(life), " ", call_id].concat()
}

impl<'v> Calls<'v> {
    fn of(view: &'v SessionView) -> Self {
        let mut index = HashMap::new();
        for (i, e) in view.transcript.iter().enumerate() {
            if let TranscriptEntry::ToolCall { life, call_id, .. } = e {
                index.insert(call_key(*life, call_id), i);
            }
        }
        Calls { transcript: &view.transcript, index }
    }

    fn get(&self, life: u32, call_id: &str) -> Option<&'v TranscriptEntry> {
        self.index.get(&call_key(life, call_id)).and_then(|&i| self.transcript.get(i))
    }
}

/// The JSON text of arguments as a string: a JSON string's own text
/// (how deepstrike writes them), else the JSON as written.
fn arguments_text(arguments: &JsonText) -> String {
    let text = arguments.get();
    crate::view::raw::string(text).unwrap_or_else(|| text.to_string())
}

/// Why a call the model asked for did not run, or `None` if it ran.
fn not_run_reason(entry: Option<&TranscriptEntry>) -> Option<String> {
    match entry {
        Some(TranscriptEntry::ToolCall { denied: Some(reason), .. }) => {
            Some(["denied: ", reason].concat())
        }
        Some(TranscriptEntry::ToolCall { result: Some(_), .. }) => None,
        Some(TranscriptEntry::ToolCall { gated: Some(reason), .. }) => {
            Some(["gated, no result: ", reason].concat())
        }
        _ => Some("no result".into()),
    }
}

/// The conventions' messages (`gen_ai.*.messages`, opt-in content): one
/// message of `role` with `parts` (JSON objects, comma-separated).
pub fn message(role: &str, parts: &JsonOut) -> String {
    let mut out = JsonOut::default();
    out.raw("[{\"role\":");
    out.string(role);
    out.raw(",\"parts\":[");
    out.append(parts);
    out.raw("]}]");
    out.finish().unwrap_or_default()
}

/// Appends a text part.
pub fn text_part(parts: &mut JsonOut, content: &str) {
    if !parts.is_empty() {
        parts.raw(",");
    }
    parts.raw("{\"type\":\"text\",\"content\":");
    parts.string(content);
    parts.raw("}");
}

/// One model call: the attempts that made it and the completion, if any.
struct Call<'v> {
    attempts: &'v [Attempt],
    /// The `llm_completed` transcript entry.
    completion: Option<&'v TranscriptEntry>,
}

impl Call<'_> {
    /// The position the call is known by: its completion's, else its last attempt's.
    fn position(&self) -> u64 {
        match self.completion {
            Some(TranscriptEntry::Assistant { position, .. }) => position.0,
            _ => self.attempts.last().map_or(0, |a| a.position),
        }
    }

    fn first_position(&self) -> u64 {
        self.attempts.first().map_or(self.position(), |a| a.position)
    }
}

/// The model calls in log order: each completion with the attempts since
/// the one before, then the attempts no completion followed, as one call.
fn model_calls<'v>(view: &'v SessionView, attempts: &'v [Attempt]) -> Vec<Call<'v>> {
    let mut calls = Vec::new();
    let mut rest = attempts;
    for entry in &view.transcript {
        if let TranscriptEntry::Assistant { position, .. } = entry {
            let taken = rest.partition_point(|a| a.position < position.0);
            let (mine, later) = rest.split_at(taken.min(rest.len()));
            calls.push(Call { attempts: mine, completion: Some(entry) });
            rest = later;
        }
    }
    if !rest.is_empty() {
        calls.push(Call { attempts: rest, completion: None });
    }
    calls
}

/// The provider and model of the run: its `run_started` route's, each
/// else the first its attempts name.
pub fn run_route(run: Option<&RunHeader>, attempts: &[Attempt]) -> Route {
    let (provider, model) = run
        .and_then(|r| r.route.as_ref())
        .map_or((None, None), |route| super::attempts::route_names(route.get()));
    Route {
        provider: provider.or_else(|| attempts.iter().find_map(|a| a.provider.clone())),
        model: model.or_else(|| attempts.iter().find_map(|a| a.model.clone())),
    }
}

/// A provider and model, as a route names them.
#[derive(Debug, Default)]
pub struct Route {
    pub provider: Option<String>,
    pub model: Option<String>,
}

/// Input and output tokens summed over the attempts that report both.
pub fn usage_of(attempts: &[Attempt]) -> Option<(u64, u64)> {
    attempts
        .iter()
        .filter_map(|a| a.usage)
        .reduce(|(i, o), (di, d_o)| (i.saturating_add(di), o.saturating_add(d_o)))
}

fn put_usage(attributes: &mut Attributes, usage: Option<(u64, u64)>) {
    if let Some((input, output)) = usage {
        attributes.int("gen_ai.usage.input_tokens", input);
        attributes.int("gen_ai.usage.output_tokens", output);
    }
}

/// The position of the rollback that undid what the span records, if one did.
fn put_rollback(attributes: &mut Attributes, rolled_back_at: Option<Position>) {
    if let Some(position) = rolled_back_at {
        attributes.int("agent_replay.rolled_back_at", position.0);
    }
}

fn attempt_event(attempt: &Attempt, clock: &Clock) -> SpanEvent {
    let mut attributes = Attributes::default();
    attributes.int("agent_replay.position", attempt.position);
    if let Some(seq) = attempt.seq {
        attributes.int("agent_replay.attempt_seq", seq);
    }
    attributes.opt_str("agent_replay.status", attempt.status.as_deref());
    attributes.opt_str("error.type", attempt.error_class.as_deref());
    let at = attempt.times.map_or(clock.at(attempt.position), |(start, _)| clock::real(start));
    SpanEvent { time: at.nanos, name: "provider_attempt".into(), attributes }
}

/// The call's span times: its timed attempts' first start and last
/// finish, else from the event before it to its completion (synthetic).
fn call_times(call: &Call<'_>, clock: &Clock) -> (Moment, Moment) {
    let mut timed = call.attempts.iter().filter_map(|a| a.times);
    match (timed.next(), timed.next_back()) {
        (Some((start, end)), last) => {
            (clock::real(start), clock::real(last.map_or(end, |(_, end)| end)))
        }
        (None, _) => (clock.at(call.first_position().saturating_sub(1)), clock.at(call.position())),
    }
}

/// The `chat` span of one model call.
fn chat_span(cx: &Context<'_>, call: &Call<'_>, calls: &Calls<'_>) -> Draft {
    let own = |get: fn(&Attempt) -> Option<&str>| call.attempts.iter().find_map(get);
    let provider = own(|a| a.provider.as_deref()).or(cx.route.provider.as_deref());
    let model = own(|a| a.model.as_deref()).or(cx.route.model.as_deref());
    let position = call.position();
    let mut a = Attributes::default();
    a.str("gen_ai.operation.name", "chat");
    a.opt_str("gen_ai.provider.name", provider);
    a.opt_str("gen_ai.request.model", model);
    put_usage(&mut a, usage_of(call.attempts));
    a.int("agent_replay.position", position);
    let (start, end) = call_times(call, cx.clock);
    let mut events: Vec<SpanEvent> =
        call.attempts.iter().map(|t| attempt_event(t, cx.clock)).collect();
    if let Some(TranscriptEntry::Assistant {
        life,
        turn,
        text,
        tool_call_ids,
        token_count,
        rolled_back_at,
        ..
    }) = call.completion
    {
        a.int("agent_replay.life", u64::from(*life));
        a.int("agent_replay.turn", u64::from(*turn));
        if let Some(n) = token_count {
            a.int("agent_replay.token_count", u64::from(*n));
        }
        put_rollback(&mut a, *rolled_back_at);
        let requested: Vec<(&str, Option<&TranscriptEntry>)> =
            tool_call_ids.iter().map(|id| (id.as_str(), calls.get(*life, id))).collect();
        let not_run = not_run_events(&requested, end);
        let ids: Vec<String> = not_run.iter().map(|(id, _)| id.to_string()).collect();
        if !ids.is_empty() {
            a.strings("agent_replay.tool_calls.not_run", &ids);
        }
        events.extend(not_run.into_iter().map(|(_, e)| e));
        if cx.content {
            a.str("gen_ai.output.messages", &output_messages(text, &requested));
        }
    }
    let failed = call.attempts.last().filter(|t| !t.succeeded());
    let status = failed.map_or_else(Status::default, |t| {
        let kind = t.error_class.as_deref().or(t.status.as_deref()).unwrap_or("failed");
        a.str("error.type", kind);
        Status::error(["provider attempt ", kind].concat())
    });
    Draft {
        span_id: cx.ids.span_id("chat", position, ""),
        parent: None,
        name: span_name("chat", model),
        kind: SpanKind::Client,
        start,
        end,
        attributes: a,
        events,
        status,
    }
}

/// An event for each requested call that did not run, with its id.
fn not_run_events<'a>(
    requested: &[(&'a str, Option<&TranscriptEntry>)],
    at: Moment,
) -> Vec<(&'a str, SpanEvent)> {
    let mut out = Vec::new();
    for &(id, entry) in requested {
        let Some(reason) = not_run_reason(entry) else { continue };
        let mut a = Attributes::default();
        a.str("gen_ai.tool.call.id", id);
        if let Some(TranscriptEntry::ToolCall { name: Some(name), .. }) = entry {
            a.str("gen_ai.tool.name", name.as_str());
        }
        a.str("agent_replay.reason", &reason);
        let name = "agent_replay.tool_call.not_run".into();
        let event = SpanEvent { time: at.nanos, name, attributes: a };
        out.push((id, event));
    }
    out
}

fn output_messages(text: &str, requested: &[(&str, Option<&TranscriptEntry>)]) -> String {
    let mut parts = JsonOut::default();
    if !text.is_empty() {
        text_part(&mut parts, text);
    }
    for &(id, entry) in requested {
        if let Some(TranscriptEntry::ToolCall { name, arguments, .. }) = entry {
            if !parts.is_empty() {
                parts.raw(",");
            }
            parts.raw("{\"type\":\"tool_call\",\"id\":");
            parts.string(id);
            parts.raw(",\"name\":");
            parts.string(name.as_deref().unwrap_or(""));
            parts.raw(",\"arguments\":");
            parts.raw(arguments.get());
            parts.raw("}");
        }
    }
    message("assistant", &parts)
}

/// The `execute_tool` span of a call that ran: from when the call was
/// first seen to its result.
fn tool_span(cx: &Context<'_>, entry: &TranscriptEntry, outcome: &ToolOutcome) -> Option<Draft> {
    let TranscriptEntry::ToolCall {
        position,
        life,
        turn,
        call_id,
        name,
        arguments,
        rolled_back_at,
        ..
    } = entry
    else {
        return None;
    };
    let mut a = Attributes::default();
    a.str("gen_ai.operation.name", "execute_tool");
    a.opt_str("gen_ai.tool.name", name.as_deref());
    a.str("gen_ai.tool.call.id", call_id.as_str());
    a.str("gen_ai.tool.type", "function");
    a.str("gen_ai.tool.call.arguments", &arguments_text(arguments));
    a.str("gen_ai.tool.call.result", outcome.output.as_str());
    a.int("agent_replay.position", outcome.position.0);
    a.int("agent_replay.life", u64::from(*life));
    a.int("agent_replay.turn", u64::from(*turn));
    put_rollback(&mut a, *rolled_back_at);
    let mut status = Status::default();
    if outcome.is_error {
        let kind = outcome.error_kind.as_ref().map_or("tool_error", |k| k.as_str());
        a.str("error.type", kind);
        a.bool("agent_replay.tool.fatal", outcome.is_fatal);
        status = Status::error(outcome.output.as_str());
    }
    Some(Draft {
        span_id: cx.ids.span_id("tool", position.0, call_id),
        parent: None,
        name: span_name("execute_tool", name.as_deref()),
        kind: SpanKind::Internal,
        start: cx.clock.at(position.0),
        end: cx.clock.at(outcome.position.0),
        attributes: a,
        events: Vec::new(),
        status,
    })
}

/// The `invoke_agent` span of a sub-agent, from its first recorded state
/// to its last, under its parent agent's span when that is one of them.
fn agent_span(cx: &Context<'_>, process: &ProcessView) -> Draft {
    let first = process.history.iter().next().map_or(0, |t| t.position.0);
    let last = process.history.iter().last().map_or(first, |t| t.position.0);
    let parent_key = process.parent_task_id.as_deref().unwrap_or(&process.parent_session_id);
    let mut a = Attributes::default();
    a.str("gen_ai.operation.name", "invoke_agent");
    a.str("gen_ai.agent.id", process.agent_id.as_str());
    a.str("gen_ai.agent.name", process.agent_id.as_str());
    a.str("agent_replay.role", process.role.as_str());
    a.str("agent_replay.isolation", process.isolation.as_str());
    a.str("agent_replay.state", process.state.as_str());
    a.opt_str("agent_replay.result_termination", process.result_termination.as_deref());
    let events = process
        .history
        .iter()
        .map(|t| {
            let mut e = Attributes::default();
            e.int("agent_replay.position", t.position.0);
            e.int("agent_replay.turn", u64::from(t.turn));
            e.str("agent_replay.state", t.state.as_str());
            e.opt_str("agent_replay.result_termination", t.result_termination.as_deref());
            let name = "agent_process_changed".into();
            SpanEvent { time: cx.clock.at(t.position.0).nanos, name, attributes: e }
        })
        .collect();
    let failed = process.result_termination.as_deref().filter(|t| *t != "completed");
    Draft {
        span_id: agent_span_id(cx.ids, process),
        parent: cx
            .view
            .processes
            .iter()
            .find(|p| p.agent_id == parent_key)
            .map(|p| agent_span_id(cx.ids, p)),
        name: span_name("invoke_agent", Some(&process.agent_id)),
        kind: SpanKind::Internal,
        start: cx.clock.at(first),
        end: cx.clock.at(last),
        attributes: a,
        events,
        status: failed.map_or_else(Status::default, Status::error),
    }
}

fn agent_span_id(ids: &Ids, process: &ProcessView) -> String {
    ids.span_id("agent", 0, &process.agent_id)
}

/// Every span below the run's: chats, tools and sub-agents.
pub fn child_spans(cx: &Context<'_>) -> Vec<Draft> {
    let calls = Calls::of(cx.view);
    let mut drafts: Vec<Draft> =
        model_calls(cx.view, cx.attempts).iter().map(|c| chat_span(cx, c, &calls)).collect();
    for entry in &cx.view.transcript {
        if let TranscriptEntry::ToolCall { result: Some(outcome), denied: None, .. } = entry {
            drafts.extend(tool_span(cx, entry, outcome));
        }
    }
    drafts.extend(cx.view.processes.iter().map(|p| agent_span(cx, p)));
    drafts
}
