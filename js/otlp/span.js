// What the spans share: names, kinds, statuses, usage, and the span as
// OTLP/JSON once its times and parent are settled.
import { addSat } from "./clock.js";

/** `Span.SpanKind`: the values this export uses. */
export const SPAN_KIND = { internal: 1, client: 3 };

/** A span's name under the conventions: `op name`, or `op` alone. */
export const spanName = (op, name) => (name === undefined || name === null ? op : `${op} ${name}`);

/** An error status (`{}`: unset; this export never claims "ok": the
 * conventions leave a successful operation's status unset). */
export const errorStatus = (message) => ({ error: message });

/** Input and output tokens summed over the attempts that report both. */
export function usageOf(attempts) {
  const usages = attempts.map((a) => a.usage).filter(Boolean);
  if (!usages.length) return undefined;
  return usages.reduce(([i, o], [di, d]) => [addSat(i, di), addSat(o, d)]);
}

export function putUsage(attributes, usage) {
  if (!usage) return;
  attributes.int("gen_ai.usage.input_tokens", usage[0]);
  attributes.int("gen_ai.usage.output_tokens", usage[1]);
}

/** The position of the rollback that undid what the span records, if one did. */
export function putRollback(attributes, rolledBackAt) {
  if (rolledBackAt !== null && rolledBackAt !== undefined)
    attributes.int("agent_replay.rolled_back_at", rolledBackAt);
}

/** A span drafted (its `parent` undefined: the run's) as an OTLP/JSON
 * span of `traceId`, under `root` when it names no parent of its own
 * (`""`: under none). */
export function resolve(draft, traceId, root) {
  const synthetic = !(draft.start.real && draft.end.real);
  draft.attributes.bool("agent_replay.time.synthetic", synthetic);
  const parentSpanId = draft.parent ?? root;
  const span = { traceId, spanId: draft.spanId, ...(parentSpanId ? { parentSpanId } : {}) };
  Object.assign(span, {
    name: draft.name,
    kind: draft.kind,
    startTimeUnixNano: String(draft.start.nanos),
    endTimeUnixNano: String(draft.end.nanos),
    attributes: draft.attributes.list,
  });
  if (draft.events.length)
    span.events = draft.events.map((e) => ({
      timeUnixNano: String(e.time),
      name: e.name,
      attributes: e.attributes.list,
    }));
  if (draft.links.length)
    span.links = draft.links.map((l) => ({
      traceId,
      spanId: l.spanId,
      attributes: l.attributes.list,
    }));
  const { error } = draft.status;
  span.status = error === undefined ? { code: 0 } : { code: 2, message: error };
  return span;
}
