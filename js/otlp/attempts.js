// The provider attempts (`provider_attempt`, deepstrike 0.2.77) read back
// from the view's entries: the only events with real clock times, and the
// route, status and token usage of each model call. A field of an
// unexpected type leaves what it would have given unknown rather than
// failing the export.
import { Obj, U64_MAX, string, unsigned } from "./raw.js";

/** Two unsigned fields of an object (an `Obj`), if it is one and has
 * both, none of them of another type. */
function pair(obj, keys) {
  if (!obj.isObject) return undefined;
  const values = keys.map((k) => obj.raw(k)).map((raw) => (raw === "null" ? null : unsigned(raw)));
  if (values.includes(undefined) || values.includes(null)) return undefined;
  return values;
}

/** Milliseconds to nanoseconds, undefined past what a u64 holds. */
function nanos(ms) {
  const n = ms * 1000000n;
  return n <= U64_MAX ? n : undefined;
}

function timesOf(obj) {
  const ms = pair(obj, ["started_at_ms", "finished_at_ms"]);
  const times = ms?.map(nanos);
  if (!times || times.includes(undefined) || times[0] > times[1]) return undefined;
  return times;
}

/** The attempt an entry (`{position, event}`, the event as text) records. */
export function readAttempt(entry) {
  const obj = new Obj(entry.event);
  return {
    position: entry.position,
    seq: unsigned(obj.raw("attempt_seq")),
    status: string(obj.raw("status")),
    errorClass: string(obj.raw("last_error_class")),
    times: timesOf(obj),
    usage: pair(new Obj(obj.raw("usage")), ["input_tokens", "output_tokens"]),
    ...routeNames(obj.raw("route")),
  };
}

/** The provider and model a route record (as text) names. */
export function routeNames(route) {
  const obj = new Obj(route);
  return { provider: string(obj.raw("provider")), model: string(obj.raw("model")) };
}
