// The `invoke_agent {agent}` span of each sub-agent, from its first
// recorded state to its last, under the span of the process that spawned
// it, linked to the workflow node it waited for.
import { Attributes } from "./attributes.js";
import { SPAN_KIND, errorStatus, spanName } from "./span.js";

const agentSpanId = (cx, process) => cx.ids.spanId("agent", 0n, process.agent_id);

/** The span of the sub-agent `agentId` names, other than `process`'s own. */
function otherAgent(cx, process, agentId) {
  const other = cx.view.processes.find((p) => p.agent_id === agentId);
  return other && other.agent_id !== process.agent_id ? agentSpanId(cx, other) : undefined;
}

/** A workflow dependency as a link: `parent_task_id` (deepstrike 0.2.77)
 * names the node whose output this one waited for, which need not be the
 * process that started it and may have ended before it began. */
function dependencyLinks(cx, process) {
  const task = process.parent_task_id;
  if (task === null || task === undefined) return [];
  const spanId = otherAgent(cx, process, task);
  if (spanId === undefined) return [];
  const attributes = new Attributes();
  attributes.str("agent_replay.link.type", "workflow_dependency");
  attributes.str("agent_replay.parent_task_id", task);
  return [{ spanId, attributes }];
}

function historyEvent(cx, change) {
  const e = new Attributes();
  e.int("agent_replay.position", change.position);
  e.int("agent_replay.turn", change.turn);
  e.str("agent_replay.state", change.state);
  e.optStr("agent_replay.result_termination", change.result_termination);
  const time = cx.clock.at(BigInt(change.position)).nanos;
  return { time, name: "agent_process_changed", attributes: e };
}

/** A sub-agent's span. Its parent: the process that spawned it. A log
 * records the spawns of the process that writes it, so that is the run,
 * unless the agent names another sub-agent of the log as its
 * `parent_session_id` (the session that started it, in the kernel's
 * schema). */
function agentSpan(cx, process) {
  const first = BigInt(process.history[0]?.position ?? 0);
  const last = BigInt(process.history.at(-1)?.position ?? first);
  const a = new Attributes();
  a.str("gen_ai.operation.name", "invoke_agent");
  a.str("gen_ai.agent.id", process.agent_id);
  a.str("gen_ai.agent.name", process.agent_id);
  a.str("agent_replay.role", process.role);
  a.str("agent_replay.isolation", process.isolation);
  a.str("agent_replay.state", process.state);
  a.optStr("agent_replay.result_termination", process.result_termination);
  const failed = process.result_termination;
  return {
    spanId: agentSpanId(cx, process),
    parent: otherAgent(cx, process, process.parent_session_id),
    name: spanName("invoke_agent", process.agent_id),
    kind: SPAN_KIND.internal,
    start: cx.clock.at(first),
    end: cx.clock.at(last),
    attributes: a,
    events: process.history.map((change) => historyEvent(cx, change)),
    links: dependencyLinks(cx, process),
    status: typeof failed === "string" && failed !== "completed" ? errorStatus(failed) : {},
  };
}

export const agentSpans = (cx) => cx.view.processes.map((p) => agentSpan(cx, p));
