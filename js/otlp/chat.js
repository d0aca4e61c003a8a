// The `chat {model}` span of each model call: its attempts (as events),
// its usage, its completion, and the tool calls it asked for that did
// not run.
import { Attributes } from "./attributes.js";
import { compareMoments, real, subSat } from "./clock.js";
import { finishReason, outputMessages } from "./messages.js";
import { SPAN_KIND, errorStatus, putRollback, putUsage, spanName, usageOf } from "./span.js";

/** Why a call the model asked for did not run, or undefined if it ran. */
function notRunReason(entry) {
  if (typeof entry?.denied === "string") return `denied: ${entry.denied}`;
  if (entry?.result) return undefined;
  if (typeof entry?.gated === "string") return `gated, no result: ${entry.gated}`;
  return "no result";
}

/** The position a call is known by: its completion's, else its last attempt's. */
const positionOf = (call) =>
  call.completion ? BigInt(call.completion.position) : (call.attempts.at(-1)?.position ?? 0n);

function attemptEvent(attempt, clock) {
  const a = new Attributes();
  a.int("agent_replay.position", attempt.position);
  if (attempt.seq !== undefined) a.int("agent_replay.attempt_seq", attempt.seq);
  a.optStr("agent_replay.status", attempt.status);
  a.optStr("error.type", attempt.errorClass);
  const at = attempt.times ? real(attempt.times[0]) : clock.at(attempt.position);
  return { time: at.nanos, name: "provider_attempt", attributes: a };
}

/** The call's span times: its timed attempts' earliest start and latest
 * finish (attempts may overlap: the last need not finish last), else from
 * the event before it to its completion (synthetic). */
function callTimes(call, clock) {
  const timed = call.attempts.filter((a) => a.times).map((a) => a.times);
  if (timed.length) {
    const starts = timed.map((t) => real(t[0])).sort(compareMoments);
    const ends = timed.map((t) => real(t[1])).sort(compareMoments);
    return [starts[0], ends.at(-1)];
  }
  const first = call.attempts[0]?.position ?? positionOf(call);
  return [clock.at(subSat(first, 1n)), clock.at(positionOf(call))];
}

/** An event for each requested call (`[id, entry]`) that did not run, with its id. */
function notRunEvents(requested, at) {
  const out = [];
  for (const [id, entry] of requested) {
    const reason = notRunReason(entry);
    if (reason === undefined) continue;
    const a = new Attributes();
    a.str("gen_ai.tool.call.id", id);
    a.optStr("gen_ai.tool.name", entry?.name);
    a.str("agent_replay.reason", reason);
    out.push([id, { time: at.nanos, name: "agent_replay.tool_call.not_run", attributes: a }]);
  }
  return out;
}

/** What the completion says: its life and turn, the calls it asked for
 * that did not run, and (with content) its reply. */
function putCompletion(cx, call, span, failed, calls) {
  const { life, turn, text, tool_call_ids: ids, token_count, rolled_back_at } = call.completion;
  const a = span.attributes;
  a.int("agent_replay.life", life);
  a.int("agent_replay.turn", turn);
  if (token_count !== null && token_count !== undefined)
    a.int("agent_replay.token_count", token_count);
  putRollback(a, rolled_back_at);
  const requested = ids.map((id) => [id, calls.get(`${life} ${id}`)]);
  const notRun = notRunEvents(requested, span.end);
  if (notRun.length)
    a.strings(
      "agent_replay.tool_calls.not_run",
      notRun.map(([id]) => id),
    );
  span.events.push(...notRun.map(([, e]) => e));
  if (!cx.content) return;
  const parts = requested
    .filter(([, e]) => e)
    .map(([id, e]) => ({ id, name: e.name, arguments: e.argumentsText }));
  const reason = finishReason(ids.length > 0, failed !== undefined);
  a.str("gen_ai.output.messages", outputMessages(text, parts, reason));
}

/** The `chat` span of one model call (`{attempts, completion, inputs}`);
 * `calls`: the transcript's tool calls by life and call id. */
export function chatSpan(cx, call, calls) {
  const own = (field) => call.attempts.find((t) => t[field] !== undefined)?.[field];
  const provider = own("provider") ?? cx.route.provider;
  const model = own("model") ?? cx.route.model;
  const position = positionOf(call);
  const a = new Attributes();
  a.str("gen_ai.operation.name", "chat");
  a.optStr("gen_ai.provider.name", provider);
  a.optStr("gen_ai.request.model", model);
  putUsage(a, usageOf(call.attempts));
  a.int("agent_replay.position", position);
  if (call.inputs) a.str("gen_ai.input.messages", call.inputs);
  const [start, end] = callTimes(call, cx.clock);
  const events = call.attempts.map((t) => attemptEvent(t, cx.clock));
  const last = call.attempts.at(-1);
  const failed = last && last.status !== "success" ? last : undefined;
  const span = { start, end, attributes: a, events };
  if (call.completion) putCompletion(cx, call, span, failed, calls);
  let status = {};
  if (failed) {
    const kind = failed.errorClass ?? failed.status ?? "failed";
    a.str("error.type", kind);
    status = errorStatus(`provider attempt ${kind}`);
  }
  return {
    ...span,
    spanId: cx.ids.spanId("chat", position, ""),
    parent: undefined,
    name: spanName("chat", model),
    kind: SPAN_KIND.client,
    links: [],
    status,
  };
}
