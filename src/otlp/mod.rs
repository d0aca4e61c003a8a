//! OpenTelemetry export: a session as an OTLP trace (an
//! `ExportTraceServiceRequest` in its JSON encoding; js/otlp-protobuf.js
//! re-encodes it as protobuf, outside the .wasm)
//! under the OpenTelemetry GenAI semantic conventions, built from the
//! folded `SessionView` (docs/otlp.md).
//!
//! The run is an `invoke_agent` root span; each model call a `chat
//! {model}` span, each tool call that ran an `execute_tool {tool}` span,
//! each sub-agent an `invoke_agent {agent}` span; suspensions,
//! permissions, budgets, signals and cancellations are events on the
//! root. Ids are derived from the session and the position (`ids`), times
//! are the log's where it has them and synthetic elsewhere (`clock`),
//! each span within its parent (`nesting`). The spans are defined once
//! (`model::Trace`) and written as OTLP/JSON (`encode_json`).
//!
//! Every function here is `#[inline]` (but the few `#[inline(never)]`
//! ones, kept in the core on purpose), and not for speed: an inline
//! function is compiled by the crate that calls it, so the binding crate
//! (wasm/, built at `opt-level = "z"`) compiles this cold code for size,
//! where the core's own `"s"` builds for the hot fold's speed
//! (benches/RESULTS.md, "The .wasm under its budget";
//! tests/js/wasm-size.test.mjs checks each function has it). It holds only
//! because nothing else in the core calls this module: a function compiled
//! by both crates would be in the .wasm twice.

mod attempts;
mod clock;
mod encode_json;
mod events;
mod ids;
mod messages;
mod model;
mod nesting;
mod spans;

use model::{Attributes, SpanKind, Status, Trace};
use spans::{Context, Draft};

use crate::view::{SessionView, Status as RunStatus, TranscriptEntry};

/// What the export includes beyond the spans' structure.
#[derive(Debug, Clone, Copy, Default)]
pub struct OtlpOptions {
    /// Message content (the goal, the system prompt, the model's replies,
    /// the tools' results as the model read them) as the conventions'
    /// opt-in attributes. Off by default: it may hold sensitive data.
    pub content: bool,
    /// Where a log with no recorded time starts, in Unix milliseconds
    /// (`None`: the Unix epoch). A log with recorded times ignores it.
    pub start_time_ms: Option<u64>,
}

/// The instrumentation scope the spans are attributed to.
const SCOPE: &str = "agent-replay";

/// The run's state as the root's attributes and status.
#[inline]
fn put_status(a: &mut Attributes, status: &RunStatus) -> Status {
    match status {
        RunStatus::NotStarted => {
            a.str("agent_replay.status", "not_started");
        }
        RunStatus::Running => {
            a.str("agent_replay.status", "running");
        }
        RunStatus::Suspended { reason, .. } => {
            a.str("agent_replay.status", "suspended");
            a.str("agent_replay.suspended_reason", reason);
        }
        RunStatus::Terminal { reason, .. } => {
            a.str("agent_replay.status", "terminal");
            a.str("agent_replay.terminal_reason", reason);
            if reason != "completed" {
                a.str("error.type", reason);
                return Status::error(reason);
            }
        }
    }
    Status::default()
}

/// The run's `invoke_agent` span, spanning all the others.
#[inline]
fn root_span(cx: &Context<'_>, children: &[Draft], run_id: &str) -> Draft {
    let view = cx.view;
    let agent_id = view.run.as_ref().and_then(|r| r.agent_id.as_deref());
    let mut a = Attributes::default();
    a.str("gen_ai.operation.name", "invoke_agent");
    a.opt_str("gen_ai.provider.name", cx.route.provider.as_deref());
    a.opt_str("gen_ai.request.model", cx.route.model.as_deref());
    a.opt_str("gen_ai.agent.id", agent_id);
    a.opt_str("gen_ai.agent.name", agent_id);
    a.opt_str("gen_ai.conversation.id", view.session_id.as_deref());
    if let Some((input, output)) = spans::usage_of(cx.attempts) {
        a.int("gen_ai.usage.input_tokens", input);
        a.int("gen_ai.usage.output_tokens", output);
    }
    if !run_id.is_empty() {
        a.str("agent_replay.run_id", run_id);
    }
    let status = put_status(&mut a, &view.status);
    a.int("agent_replay.turns_used", u64::from(view.turns_used));
    a.int("agent_replay.total_tokens", view.total_tokens);
    a.int("agent_replay.event_count", view.event_count);
    a.int("agent_replay.load_errors", view.errors.load_errors);
    if cx.content {
        put_content(&mut a, view);
    }
    let first = cx.clock.at(view.run.as_ref().map_or(1, |r| r.position.0));
    let last = cx.clock.at(view.event_count);
    let start = children.iter().map(|d| d.start).fold(first, |m, t| m.min(t));
    let end = children.iter().map(|d| d.end).fold(last, |m, t| m.max(t));
    Draft {
        span_id: cx.ids.span_id("run", 0, ""),
        parent: None,
        name: model::span_name("invoke_agent", agent_id),
        kind: SpanKind::Internal,
        start,
        end,
        attributes: a,
        events: events::run_events(view, cx.clock),
        links: Vec::new(),
        status,
    }
}

/// The run's content: the goal and the system prompt as the conventions
/// name them, and the goal and the final answer (the last reply with
/// text) as `input.value` and `output.value`, which OpenInference backends
/// (Phoenix) show as a trace's input and output.
#[inline]
fn put_content(a: &mut Attributes, view: &SessionView) {
    let Some(run) = &view.run else { return };
    a.str("gen_ai.input.messages", &messages::goal(&run.goal));
    if let Some(system) = &run.system_prompt {
        a.str("gen_ai.system_instructions", &messages::system_instructions(system));
    }
    a.str("input.value", &run.goal);
    a.str("input.mime_type", "text/plain");
    let answer = view.transcript.iter().rev().find_map(|e| match e {
        TranscriptEntry::Assistant { text, .. } if !text.is_empty() => Some(text),
        _ => None,
    });
    if let Some(answer) = answer {
        a.str("output.value", answer);
        a.str("output.mime_type", "text/plain");
    }
}

/// The session as one OTLP trace.
#[inline]
pub fn trace(view: &SessionView, options: OtlpOptions) -> Trace {
    let run_id = view.run.as_ref().map_or("", |r| r.run_id.as_str());
    let ids = ids::Ids::new(view.session_id.as_deref().unwrap_or(""), run_id);
    let attempts: Vec<attempts::Attempt> = view.model.attempts.iter().map(attempts::read).collect();
    let origin = options.start_time_ms.map_or(0, |ms| ms.saturating_mul(1_000_000));
    let clock = clock::Clock::new(&attempts, origin);
    let route = spans::run_route(view.run.as_ref(), &attempts);
    let cx = Context {
        view,
        ids: &ids,
        clock: &clock,
        attempts: &attempts,
        route: &route,
        content: options.content,
    };
    let mut children = spans::child_spans(&cx);
    children.iter_mut().for_each(nesting::order);
    let mut root = root_span(&cx, &children, run_id);
    nesting::order(&mut root);
    nesting::nest(&root, &mut children);
    let root_id = root.span_id.clone();
    let agent_id = view.run.as_ref().and_then(|r| r.agent_id.as_deref());
    let mut resource = Attributes::default();
    resource.str("service.name", agent_id.unwrap_or(SCOPE));
    let mut spans = vec![root.resolve("")];
    spans.extend(children.into_iter().map(|d| d.resolve(&root_id)));
    Trace {
        trace_id: ids.trace_id().to_string(),
        resource,
        scope: (SCOPE, env!("CARGO_PKG_VERSION")),
        spans,
    }
}

/// The session as one OTLP trace: an `ExportTraceServiceRequest` in its
/// JSON encoding (OTLP/JSON).
#[inline]
pub fn to_otlp(view: &SessionView, options: OtlpOptions) -> String {
    encode_json::to_json(&trace(view, options))
}
