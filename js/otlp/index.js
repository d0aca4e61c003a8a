// OpenTelemetry export: a session as an OTLP trace (an
// `ExportTraceServiceRequest` in its JSON encoding, as an object;
// ../otlp-protobuf.js re-encodes it as protobuf) under the OpenTelemetry
// GenAI semantic conventions, built from the session view (docs/otlp.md).
// An export format layered on the view, like the viewer: it is here, not
// in the .wasm, which stays within its size budget.
//
// The run is an `invoke_agent` root span; each model call a `chat {model}`
// span (chat.js), each tool call that ran an `execute_tool {tool}` span
// (tools.js), each sub-agent an `invoke_agent {agent}` span (agents.js);
// suspensions, permissions, budgets, signals and cancellations are events
// on the root (events.js). Ids are derived from the session and the
// position (ids.js), times are the log's where it has them and synthetic
// elsewhere (clock.js), each span within its parent (nesting.js).
import { agentSpans } from "./agents.js";
import { readAttempt } from "./attempts.js";
import { chatSpan } from "./chat.js";
import { callsByKey, modelCalls, runRoute } from "./calls.js";
import { Clock, mulSat } from "./clock.js";
import { runEvents } from "./events.js";
import { Ids } from "./ids.js";
import { nest, order } from "./nesting.js";
import { root } from "./root.js";
import { resolve } from "./span.js";
import { toolSpans } from "./tools.js";
import { readView } from "./view.js";

/** The instrumentation scope the spans are attributed to: the package, in
 * its version (package.json's; tests/js/otlp.test.mjs checks they agree). */
export const SCOPE = { name: "agent-replay", version: "0.1.0" };

/** The session view `viewText` (JSON text) as one OTLP trace. Options:
 * `content` (message content), `startTime` (Unix milliseconds, where a log
 * with no recorded time starts; else the Unix epoch). */
export function otlpTrace(viewText, { content = false, startTime } = {}) {
  const view = readView(viewText);
  const runId = view.run?.run_id ?? "";
  const ids = new Ids(view.sessionId ?? "", runId);
  const attempts = view.attempts.map(readAttempt);
  const origin = startTime === undefined ? 0n : mulSat(BigInt(startTime), 1000000n);
  const clock = new Clock(attempts, origin);
  const route = runRoute(view.run, attempts);
  const cx = { view, ids, clock, attempts, route, content };
  const calls = callsByKey(view.transcript);
  const children = [
    ...modelCalls(view, attempts, content).map((call) => chatSpan(cx, call, calls)),
    ...toolSpans(cx),
    ...agentSpans(cx),
  ];
  children.forEach(order);
  const run = root(cx, children, runEvents(view, clock));
  order(run);
  nest(run, children);
  const agentId = view.run?.agent_id ?? undefined;
  const spans = [
    resolve(run, ids.traceId, ""),
    ...children.map((d) => resolve(d, ids.traceId, run.spanId)),
  ];
  const service = { key: "service.name", value: { stringValue: agentId ?? SCOPE.name } };
  const scopeSpans = [{ scope: { ...SCOPE }, spans }];
  return { resourceSpans: [{ resource: { attributes: [service] }, scopeSpans }] };
}
