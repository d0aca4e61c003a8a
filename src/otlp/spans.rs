//! The spans of a run under the OpenTelemetry GenAI conventions: a `chat`
//! span per model call, an `execute_tool` span per tool call that ran, an
//! `invoke_agent` span per sub-agent. (The run's own `invoke_agent` span,
//! their root, is built in `mod.rs` around them.)
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use std::collections::HashMap;

use super::attempts::Attempt;
use super::clock::{self, Clock, Moment};
use super::ids::Ids;
use super::messages::{self, Requested};
use super::model::{span_name, Attributes, Link, Span, SpanEvent, SpanKind, Status};
use crate::json::JsonText;
use crate::units::Position;
use crate::view::{ProcessView, RunHeader, SessionView, ToolOutcome, TranscriptEntry};

/// A span before its ids and times are written out.
pub struct Draft {
    pub span_id: String,
    /// Its parent span's id; `None`: the run's (none for the run's own span).
    pub parent: Option<String>,
    pub name: String,
    pub kind: SpanKind,
    pub start: Moment,
    pub end: Moment,
    pub attributes: Attributes,
    pub events: Vec<SpanEvent>,
    pub links: Vec<Link>,
    pub status: Status,
}

impl Draft {
    /// The OTLP span, under `root` when it names no parent of its own
    /// (`""`: under none).
    #[inline]
    pub fn resolve(mut self, root: &str) -> Span {
        let synthetic = !(self.start.real && self.end.real);
        self.attributes.bool("agent_replay.time.synthetic", synthetic);
        Span {
            parent_span_id: self.parent.unwrap_or_else(|| root.to_string()),
            span_id: self.span_id,
            name: self.name,
            kind: self.kind,
            start: self.start.nanos,
            end: self.end.nanos,
            attributes: self.attributes,
            events: self.events,
            links: self.links,
            status: self.status,
        }
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

#[inline]
fn call_key(life: u32, call_id: &str) -> String {
    [itoa::Buffer::new().format(life), " ", call_id].concat()
}

impl<'v> Calls<'v> {
    #[inline]
    fn of(view: &'v SessionView) -> Self {
        let mut index = HashMap::new();
        for (i, e) in view.transcript.iter().enumerate() {
            if let TranscriptEntry::ToolCall { life, call_id, .. } = e {
                index.insert(call_key(*life, call_id), i);
            }
        }
        Calls { transcript: &view.transcript, index }
    }

    #[inline]
    fn get(&self, life: u32, call_id: &str) -> Option<&'v TranscriptEntry> {
        self.index.get(&call_key(life, call_id)).and_then(|&i| self.transcript.get(i))
    }
}

/// The JSON text of arguments as a string: a JSON string's own text
/// (how deepstrike writes them), else the JSON as written.
#[inline]
fn arguments_text(arguments: &JsonText) -> String {
    let text = arguments.get();
    crate::view::raw::string(text).unwrap_or_else(|| text.to_string())
}

/// Why a call the model asked for did not run, or `None` if it ran.
#[inline]
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

/// One model call: the attempts that made it and the completion, if any.
struct Call<'v> {
    attempts: &'v [Attempt],
    /// The `llm_completed` transcript entry.
    completion: Option<&'v TranscriptEntry>,
    /// Its `gen_ai.input.messages` (`messages::call_inputs`), `""` for none.
    inputs: String,
}

impl Call<'_> {
    /// The position the call is known by: its completion's, else its last attempt's.
    #[inline]
    fn position(&self) -> u64 {
        match self.completion {
            Some(TranscriptEntry::Assistant { position, .. }) => position.0,
            _ => self.attempts.last().map_or(0, |a| a.position),
        }
    }

    #[inline]
    fn first_position(&self) -> u64 {
        self.attempts.first().map_or(self.position(), |a| a.position)
    }
}

/// The model calls in log order: each completion with the attempts since
/// the one before, then the attempts no completion followed, as one call;
/// with their input messages when `content` asks for them.
#[inline]
fn model_calls<'v>(view: &'v SessionView, attempts: &'v [Attempt], content: bool) -> Vec<Call<'v>> {
    let mut inputs =
        if content { messages::call_inputs(&view.transcript) } else { Vec::new() }.into_iter();
    let mut calls = Vec::new();
    let mut rest = attempts;
    for entry in &view.transcript {
        if let TranscriptEntry::Assistant { position, .. } = entry {
            let taken = rest.partition_point(|a| a.position < position.0);
            let (mine, later) = rest.split_at(taken.min(rest.len()));
            let inputs = inputs.next().unwrap_or_default();
            calls.push(Call { attempts: mine, completion: Some(entry), inputs });
            rest = later;
        }
    }
    if !rest.is_empty() {
        calls.push(Call {
            attempts: rest,
            completion: None,
            inputs: inputs.next().unwrap_or_default(),
        });
    }
    calls
}

/// The provider and model of the run: its `run_started` route's, each
/// else the first its attempts name.
#[inline]
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
#[inline]
pub fn usage_of(attempts: &[Attempt]) -> Option<(u64, u64)> {
    attempts
        .iter()
        .filter_map(|a| a.usage)
        .reduce(|(i, o), (di, d_o)| (i.saturating_add(di), o.saturating_add(d_o)))
}

#[inline]
fn put_usage(attributes: &mut Attributes, usage: Option<(u64, u64)>) {
    if let Some((input, output)) = usage {
        attributes.int("gen_ai.usage.input_tokens", input);
        attributes.int("gen_ai.usage.output_tokens", output);
    }
}

/// The position of the rollback that undid what the span records, if one did.
#[inline]
fn put_rollback(attributes: &mut Attributes, rolled_back_at: Option<Position>) {
    if let Some(position) = rolled_back_at {
        attributes.int("agent_replay.rolled_back_at", position.0);
    }
}

#[inline]
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

/// The call's span times: its timed attempts' earliest start and latest
/// finish (attempts may overlap: the last need not finish last), else from
/// the event before it to its completion (synthetic).
#[inline]
fn call_times(call: &Call<'_>, clock: &Clock) -> (Moment, Moment) {
    let timed = call.attempts.iter().filter_map(|a| a.times);
    let start = timed.clone().map(|(start, _)| start).min();
    let end = timed.map(|(_, end)| end).max();
    match (start, end) {
        (Some(start), Some(end)) => (clock::real(start), clock::real(end)),
        _ => (clock.at(call.first_position().saturating_sub(1)), clock.at(call.position())),
    }
}

/// The `chat` span of one model call.
#[inline]
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
    if !call.inputs.is_empty() {
        a.str("gen_ai.input.messages", &call.inputs);
    }
    let (start, end) = call_times(call, cx.clock);
    let mut events: Vec<SpanEvent> =
        call.attempts.iter().map(|t| attempt_event(t, cx.clock)).collect();
    let failed = call.attempts.last().filter(|t| !t.succeeded());
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
            let reason = messages::finish_reason(!tool_call_ids.is_empty(), failed.is_some());
            a.str(
                "gen_ai.output.messages",
                &messages::output(text, &tool_parts(&requested), reason),
            );
        }
    }
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
        links: Vec::new(),
        status,
    }
}

/// The requested calls that were seen, as output message parts.
#[inline]
fn tool_parts<'a>(requested: &[(&'a str, Option<&'a TranscriptEntry>)]) -> Vec<Requested<'a>> {
    requested
        .iter()
        .filter_map(|&(id, entry)| match entry {
            Some(TranscriptEntry::ToolCall { name, arguments, .. }) => {
                Some(Requested { id, name: name.as_deref(), arguments })
            }
            _ => None,
        })
        .collect()
}

/// An event for each requested call that did not run, with its id.
#[inline]
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

/// The `execute_tool` span of a call that ran: from when the call was
/// first seen to its result.
#[inline]
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
        links: Vec::new(),
        status,
    })
}

/// The span of the sub-agent `agent_id` names, other than `process`'s own.
#[inline]
fn other_agent(cx: &Context<'_>, process: &ProcessView, agent_id: &str) -> Option<String> {
    let other = cx.view.processes.iter().find(|p| p.agent_id == agent_id)?;
    (other.agent_id != process.agent_id).then(|| agent_span_id(cx.ids, other))
}

/// A sub-agent's parent: the process that spawned it. A log records the
/// spawns of the process that writes it (`workflow_batch_spawned`), so
/// that is the run, unless the agent names another sub-agent of the log as
/// its `parent_session_id` (the session that started it, in the kernel's
/// schema). `None`: the run.
#[inline]
fn agent_parent(cx: &Context<'_>, process: &ProcessView) -> Option<String> {
    other_agent(cx, process, &process.parent_session_id)
}

/// A workflow dependency as a link: `parent_task_id` (deepstrike 0.2.77)
/// names the node whose output this one waited for, which need not be the
/// process that started it and may have ended before it began.
#[inline]
fn dependency_links(cx: &Context<'_>, process: &ProcessView) -> Vec<Link> {
    let Some(task) = process.parent_task_id.as_deref() else { return Vec::new() };
    let Some(span_id) = other_agent(cx, process, task) else { return Vec::new() };
    let mut attributes = Attributes::default();
    attributes.str("agent_replay.link.type", "workflow_dependency");
    attributes.str("agent_replay.parent_task_id", task);
    vec![Link { span_id, attributes }]
}

/// The `invoke_agent` span of a sub-agent, from its first recorded state
/// to its last, under the span of the process that spawned it.
#[inline]
fn agent_span(cx: &Context<'_>, process: &ProcessView) -> Draft {
    let first = process.history.iter().next().map_or(0, |t| t.position.0);
    let last = process.history.iter().last().map_or(first, |t| t.position.0);
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
        parent: agent_parent(cx, process),
        name: span_name("invoke_agent", Some(&process.agent_id)),
        kind: SpanKind::Internal,
        start: cx.clock.at(first),
        end: cx.clock.at(last),
        attributes: a,
        events,
        links: dependency_links(cx, process),
        status: failed.map_or_else(Status::default, Status::error),
    }
}

#[inline]
fn agent_span_id(ids: &Ids, process: &ProcessView) -> String {
    ids.span_id("agent", 0, &process.agent_id)
}

/// Every span below the run's: chats, tools and sub-agents.
#[inline]
pub fn child_spans(cx: &Context<'_>) -> Vec<Draft> {
    let calls = Calls::of(cx.view);
    let mut drafts: Vec<Draft> = model_calls(cx.view, cx.attempts, cx.content)
        .iter()
        .map(|c| chat_span(cx, c, &calls))
        .collect();
    for entry in &cx.view.transcript {
        if let TranscriptEntry::ToolCall { result: Some(outcome), denied: None, .. } = entry {
            drafts.extend(tool_span(cx, entry, outcome));
        }
    }
    drafts.extend(cx.view.processes.iter().map(|p| agent_span(cx, p)));
    drafts
}
