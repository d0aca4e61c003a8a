//! OpenTelemetry export: a session as OTLP/JSON traces (an
//! `ExportTraceServiceRequest`) under the OpenTelemetry GenAI semantic
//! conventions, built from the folded `SessionView` (docs/otlp.md).
//!
//! The run is an `invoke_agent` root span; each model call a `chat
//! {model}` span, each tool call that ran an `execute_tool {tool}` span,
//! each sub-agent an `invoke_agent {agent}` span; suspensions,
//! permissions, budgets, signals and cancellations are events on the
//! root. Ids are derived from the session and the position (`ids`), times
//! are the log's where it has them and synthetic elsewhere (`clock`).

mod attempts;
mod clock;
mod events;
mod ids;
mod model;
mod spans;

use model::{Attributes, SpanKind, Status};
use spans::{message, text_part, Context, Draft};

use crate::json::JsonOut;
use crate::view::{SessionView, Status as RunStatus};

/// What the export includes beyond the spans' structure.
#[derive(Debug, Clone, Copy, Default)]
pub struct OtlpOptions {
    /// Message content (the goal, the system prompt, the model's replies)
    /// as the conventions' opt-in attributes. Off by default: it may hold
    /// sensitive data.
    pub content: bool,
}

/// The instrumentation scope the spans are attributed to.
const SCOPE: &str = "agent-replay";

/// The run's state as the root's attributes and status.
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
        if let Some(run) = &view.run {
            let mut goal = JsonOut::default();
            text_part(&mut goal, &run.goal);
            a.str("gen_ai.input.messages", &message("user", &goal));
            if let Some(system) = &run.system_prompt {
                let mut part = JsonOut::default();
                text_part(&mut part, system);
                let mut parts = JsonOut::default();
                parts.raw("[");
                parts.append(&part);
                parts.raw("]");
                a.str("gen_ai.system_instructions", &parts.finish().unwrap_or_default());
            }
        }
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
        status,
    }
}

/// The session as one OTLP trace: an `ExportTraceServiceRequest` in
/// its JSON encoding.
pub fn to_otlp(view: &SessionView, options: OtlpOptions) -> String {
    let run_id = view.run.as_ref().map_or("", |r| r.run_id.as_str());
    let ids = ids::Ids::new(view.session_id.as_deref().unwrap_or(""), run_id);
    let attempts: Vec<attempts::Attempt> = view.model.attempts.iter().map(attempts::read).collect();
    let clock = clock::Clock::new(&attempts);
    let route = spans::run_route(view.run.as_ref(), &attempts);
    let cx = Context {
        view,
        ids: &ids,
        clock: &clock,
        attempts: &attempts,
        route: &route,
        content: options.content,
    };
    let children = spans::child_spans(&cx);
    let root = root_span(&cx, &children, run_id);
    let root_id = root.span_id.clone();
    let trace_id = ids.trace_id();
    let agent_id = view.run.as_ref().and_then(|r| r.agent_id.as_deref());
    let mut resource = Attributes::default();
    resource.str("service.name", agent_id.unwrap_or(SCOPE));
    let mut out = JsonOut::default();
    model::write_request(&mut out, &resource, (SCOPE, env!("CARGO_PKG_VERSION")), |out| {
        root.write(out, trace_id, "");
        for child in children {
            out.raw(",");
            child.write(out, trace_id, &root_id);
        }
    });
    // (No memory budget here: the output is never refused.)
    out.finish().unwrap_or_default()
}
