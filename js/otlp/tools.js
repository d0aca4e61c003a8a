// The `execute_tool {tool}` span of each tool call that ran: from when the
// call was first seen to its result.
import { Attributes } from "./attributes.js";
import { string } from "./raw.js";
import { SPAN_KIND, errorStatus, putRollback, spanName } from "./span.js";

/** Arguments as a string: a JSON string's own text (how deepstrike writes
 * them), else the JSON as the log wrote it. */
const argumentsText = (text) => string(text) ?? text;

function toolSpan(cx, entry) {
  const outcome = entry.result;
  const a = new Attributes();
  a.str("gen_ai.operation.name", "execute_tool");
  a.optStr("gen_ai.tool.name", entry.name);
  a.str("gen_ai.tool.call.id", entry.call_id);
  a.str("gen_ai.tool.type", "function");
  a.str("gen_ai.tool.call.arguments", argumentsText(entry.argumentsText));
  a.str("gen_ai.tool.call.result", outcome.output);
  a.int("agent_replay.position", outcome.position);
  a.int("agent_replay.life", entry.life);
  a.int("agent_replay.turn", entry.turn);
  putRollback(a, entry.rolled_back_at);
  let status = {};
  if (outcome.is_error) {
    a.str("error.type", outcome.error_kind ?? "tool_error");
    a.bool("agent_replay.tool.fatal", outcome.is_fatal);
    status = errorStatus(outcome.output);
  }
  const position = BigInt(entry.position);
  return {
    spanId: cx.ids.spanId("tool", position, entry.call_id),
    parent: undefined,
    name: spanName("execute_tool", entry.name),
    kind: SPAN_KIND.internal,
    start: cx.clock.at(position),
    end: cx.clock.at(BigInt(outcome.position)),
    attributes: a,
    events: [],
    links: [],
    status,
  };
}

/** The spans of the transcript's tool calls that ran (a result, no denial). */
export function toolSpans(cx) {
  return cx.view.transcript
    .filter(
      (e) => e.type === "tool_call" && e.result && (e.denied === null || e.denied === undefined),
    )
    .map((e) => toolSpan(cx, e));
}
