// The run's own `invoke_agent` span, the root, spanning all the others:
// the run's state, totals and (with content) its goal and final answer.
import { Attributes } from "./attributes.js";
import { compareMoments } from "./clock.js";
import { goalMessages, systemInstructions } from "./messages.js";
import { SPAN_KIND, errorStatus, putUsage, spanName, usageOf } from "./span.js";

/** The run's state as the root's attributes; its status. */
function putStatus(a, status) {
  a.str("agent_replay.status", status.state);
  if (status.state === "suspended") a.str("agent_replay.suspended_reason", status.reason);
  if (status.state !== "terminal") return {};
  a.str("agent_replay.terminal_reason", status.reason);
  if (status.reason === "completed") return {};
  a.str("error.type", status.reason);
  return errorStatus(status.reason);
}

/** The run's content: the goal and the system prompt as the conventions
 * name them, and the goal and the final answer (the last reply with text)
 * as `input.value` and `output.value`, which OpenInference backends
 * (Phoenix) show as a trace's input and output. */
function putContent(a, view) {
  const { run } = view;
  if (!run) return;
  a.str("gen_ai.input.messages", goalMessages(run.goal));
  if (typeof run.system_prompt === "string")
    a.str("gen_ai.system_instructions", systemInstructions(run.system_prompt));
  a.str("input.value", run.goal);
  a.str("input.mime_type", "text/plain");
  const answer = view.transcript.findLast((e) => e.type === "assistant" && e.text !== "");
  if (!answer) return;
  a.str("output.value", answer.text);
  a.str("output.mime_type", "text/plain");
}

/** The earliest and the latest of `moments`. */
function bounds(moments) {
  const sorted = [...moments].sort(compareMoments);
  return [sorted[0], sorted.at(-1)];
}

/** The root span over `children`, with `events`. */
export function root(cx, children, events) {
  const { view } = cx;
  const agentId = view.run?.agent_id ?? undefined;
  const runId = view.run?.run_id ?? "";
  const a = new Attributes();
  a.str("gen_ai.operation.name", "invoke_agent");
  a.optStr("gen_ai.provider.name", cx.route.provider);
  a.optStr("gen_ai.request.model", cx.route.model);
  a.optStr("gen_ai.agent.id", agentId);
  a.optStr("gen_ai.agent.name", agentId);
  a.optStr("gen_ai.conversation.id", view.sessionId);
  putUsage(a, usageOf(cx.attempts));
  if (runId !== "") a.str("agent_replay.run_id", runId);
  const status = putStatus(a, view.status);
  a.int("agent_replay.turns_used", view.turnsUsed);
  a.int("agent_replay.total_tokens", view.totalTokens);
  a.int("agent_replay.event_count", view.eventCount);
  a.int("agent_replay.load_errors", view.loadErrors);
  if (cx.content) putContent(a, view);
  const first = cx.clock.at(view.run ? BigInt(view.run.position) : 1n);
  const last = cx.clock.at(view.eventCount);
  const [start] = bounds([first, ...children.map((d) => d.start)]);
  const [, end] = bounds([last, ...children.map((d) => d.end)]);
  return {
    spanId: cx.ids.spanId("run", 0n, ""),
    parent: undefined,
    name: spanName("invoke_agent", agentId),
    kind: SPAN_KIND.internal,
    start,
    end,
    attributes: a,
    events,
    links: [],
    status,
  };
}
