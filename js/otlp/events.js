// Span events on the run from the view's records of what happened during
// it: suspensions, permissions, budgets, signals and cancellations. Each
// is named by its kind and carries the event's own top-level fields as
// `agent_replay.{field}` attributes (as the log wrote them), and its
// position.
import { Attributes } from "./attributes.js";
import { items, string } from "./raw.js";

const event = (position, clock, name, attributes) => ({
  time: clock.at(BigInt(position)).nanos,
  name,
  attributes,
});

/** The span event of a recorded event (`{position, event}`, as text). */
function ofEntry(entry, clock) {
  let name = "event";
  const attributes = new Attributes();
  attributes.int("agent_replay.position", entry.position);
  for (const item of items(entry.event, "{") ?? []) {
    const key = string(item.key);
    if (key === undefined) continue;
    if (key === "kind") name = string(item.value) ?? name;
    else attributes.json(`agent_replay.${key}`, item.value);
  }
  return event(entry.position, clock, name, attributes);
}

/** A permission request and, when it came, its resolution: two events. */
function ofPermission(request, clock, out) {
  const asked = new Attributes();
  asked.int("agent_replay.position", request.position);
  asked.int("agent_replay.turn", request.turn);
  asked.str("gen_ai.tool.name", request.tool);
  asked.str("agent_replay.arguments", request.arguments);
  asked.optStr("agent_replay.reason", request.reason);
  out.push(event(request.position, clock, "permission_requested", asked));
  const r = request.resolution;
  if (!r) return;
  const resolved = new Attributes();
  resolved.int("agent_replay.position", r.position);
  resolved.str("gen_ai.tool.name", request.tool);
  resolved.bool("agent_replay.approved", r.approved);
  resolved.str("agent_replay.responder", r.responder);
  out.push(event(r.position, clock, "permission_resolved", resolved));
}

/** Every suspension and resumption, gate, denial, budget report, exceeded
 * budget, signal and cancellation, then each permission request and its
 * resolution. */
export function runEvents(view, clock) {
  const out = view.runEvents.map((e) => ofEntry(e, clock));
  for (const request of view.requests) ofPermission(request, clock, out);
  return out;
}
