//! Span events from the view's records of what happened during the run:
//! suspensions, permissions, budgets, signals and cancellations. Each
//! event is named by its kind and carries the event's own top-level
//! fields as `agent_replay.{field}` attributes, and its position.

use std::collections::BTreeMap;

use serde_json::value::RawValue;

use super::clock::Clock;
use super::model::{AnyValue, Attributes, SpanEvent};
use crate::view::{Entry, PermissionRequest, SessionView};

/// A JSON value as an attribute value: strings, booleans and numbers as
/// themselves (integers as decimal strings), objects and arrays as their
/// JSON text; `null` as nothing.
pub fn any_value(raw: &RawValue) -> Option<AnyValue> {
    let text = raw.get();
    match text.as_bytes().first()? {
        b'"' => serde_json::from_str::<String>(text).ok().map(AnyValue::String),
        b't' => Some(AnyValue::Bool(true)),
        b'f' => Some(AnyValue::Bool(false)),
        b'n' => None,
        b'{' | b'[' => Some(AnyValue::String(text.to_string())),
        _ => Some(match text.parse::<i64>() {
            Ok(_) => AnyValue::Int(text.to_string()),
            Err(_) => text.parse::<f64>().map_or(AnyValue::String(text.into()), AnyValue::Double),
        }),
    }
}

/// The span event of a recorded event.
pub fn of_entry(entry: &Entry, clock: &Clock) -> SpanEvent {
    let fields: BTreeMap<String, &RawValue> =
        serde_json::from_str(entry.event.get()).unwrap_or_default();
    let mut name = String::from("event");
    let mut attributes = Attributes::default();
    attributes.int("agent_replay.position", entry.position.0);
    for (key, raw) in &fields {
        if key == "kind" {
            if let Some(AnyValue::String(kind)) = any_value(raw) {
                name = kind;
            }
        } else if let Some(value) = any_value(raw) {
            attributes.put(format!("agent_replay.{key}"), value);
        }
    }
    SpanEvent {
        time_unix_nano: clock.at(entry.position.0).nanos.to_string(),
        name,
        attributes: attributes.0,
    }
}

/// A permission request and, when it came, its resolution: two events.
fn of_permission(request: &PermissionRequest, clock: &Clock) -> Vec<SpanEvent> {
    let mut asked = Attributes::default();
    asked.int("agent_replay.position", request.position.0);
    asked.int("agent_replay.turn", u64::from(request.turn));
    asked.str("gen_ai.tool.name", &*request.tool);
    asked.str("agent_replay.arguments", &*request.arguments);
    asked.opt_str("agent_replay.reason", request.reason.as_deref());
    let mut events = vec![SpanEvent {
        time_unix_nano: clock.at(request.position.0).nanos.to_string(),
        name: "permission_requested".into(),
        attributes: asked.0,
    }];
    if let Some(r) = &request.resolution {
        let mut resolved = Attributes::default();
        resolved.int("agent_replay.position", r.position.0);
        resolved.str("gen_ai.tool.name", &*request.tool);
        resolved.bool("agent_replay.approved", r.approved);
        resolved.str("agent_replay.responder", &*r.responder);
        events.push(SpanEvent {
            time_unix_nano: clock.at(r.position.0).nanos.to_string(),
            name: "permission_resolved".into(),
            attributes: resolved.0,
        });
    }
    events
}

/// Every suspension, resumption, permission, gate, denial by policy,
/// budget report, exceeded budget, signal and cancellation, in log order.
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
    let mut positioned: Vec<(u64, SpanEvent)> = entries
        .iter()
        .flat_map(|list| list.iter())
        .map(|e| (e.position.0, of_entry(e, clock)))
        .collect();
    for request in &view.permissions.requests {
        let events = of_permission(request, clock);
        let positions =
            [Some(request.position.0), request.resolution.as_ref().map(|r| r.position.0)];
        positioned.extend(positions.into_iter().flatten().zip(events));
    }
    positioned.sort_by_key(|(position, _)| *position);
    positioned.into_iter().map(|(_, event)| event).collect()
}
