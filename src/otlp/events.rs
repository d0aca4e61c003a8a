//! Span events from the view's records of what happened during the run:
//! suspensions, permissions, budgets, signals and cancellations. Each
//! event is named by its kind and carries the event's own top-level
//! fields as `agent_replay.{field}` attributes, and its position.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use super::clock::Clock;
use super::model::{Attributes, SpanEvent};
use crate::view::raw::{items, string};
use crate::view::{Entry, PermissionRequest, SessionView};

#[inline]
fn event(position: u64, clock: &Clock, name: String, attributes: Attributes) -> SpanEvent {
    SpanEvent { time: clock.at(position).nanos, name, attributes }
}

/// The span event of a recorded event.
#[inline]
pub fn of_entry(entry: &Entry, clock: &Clock) -> SpanEvent {
    let mut name = String::from("event");
    let mut attributes = Attributes::default();
    attributes.int("agent_replay.position", entry.position.0);
    for item in items(entry.event.get(), b'{').unwrap_or_default() {
        let Some(key) = string(item.key) else { continue };
        if key == "kind" {
            name = string(item.value).unwrap_or(name);
        } else {
            attributes.json(&["agent_replay.", &key].concat(), item.value);
        }
    }
    event(entry.position.0, clock, name, attributes)
}

/// A permission request and, when it came, its resolution: two events.
#[inline]
fn of_permission(request: &PermissionRequest, clock: &Clock, out: &mut Vec<SpanEvent>) {
    let mut asked = Attributes::default();
    asked.int("agent_replay.position", request.position.0);
    asked.int("agent_replay.turn", u64::from(request.turn));
    asked.str("gen_ai.tool.name", &request.tool);
    asked.str("agent_replay.arguments", &request.arguments);
    asked.opt_str("agent_replay.reason", request.reason.as_deref());
    out.push(event(request.position.0, clock, "permission_requested".into(), asked));
    if let Some(r) = &request.resolution {
        let mut resolved = Attributes::default();
        resolved.int("agent_replay.position", r.position.0);
        resolved.str("gen_ai.tool.name", &request.tool);
        resolved.bool("agent_replay.approved", r.approved);
        resolved.str("agent_replay.responder", &r.responder);
        out.push(event(r.position.0, clock, "permission_resolved".into(), resolved));
    }
}

/// Every suspension and resumption, permission request and resolution,
/// gate, denial, budget report, exceeded budget, signal and cancellation
/// (grouped by what they record; each has its time and position).
#[inline]
pub fn run_events(view: &SessionView, clock: &Clock) -> Vec<SpanEvent> {
    let entries = [
        &view.suspensions,
        &view.permissions.gated,
        &view.permissions.denied,
        &view.budgets.usage,
        &view.budgets.exceeded,
        &view.signals,
        &view.cancellations,
    ];
    let mut out: Vec<SpanEvent> =
        entries.iter().flat_map(|list| list.iter()).map(|e| of_entry(e, clock)).collect();
    for request in &view.permissions.requests {
        of_permission(request, clock, &mut out);
    }
    out
}
