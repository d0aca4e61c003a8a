// The model calls of a run: each completion with the provider attempts
// since the one before, then the attempts no completion followed, as one
// call; and the run's route, where a call's own attempts name none.
import { routeNames } from "./attempts.js";
import { callInputs } from "./messages.js";

/** The model calls in log order (`{attempts, completion, inputs}`), with
 * their input messages when `content` asks for them. */
export function modelCalls(view, attempts, content) {
  const inputs = content ? callInputs(view.transcript) : [];
  const calls = [];
  // The attempts before `next` belong to the calls so far.
  let next = 0;
  for (const entry of view.transcript) {
    if (entry.type !== "assistant") continue;
    const position = BigInt(entry.position);
    const first = next;
    while (next < attempts.length && attempts[next].position < position) next++;
    const mine = attempts.slice(first, next);
    calls.push({ attempts: mine, completion: entry, inputs: inputs[calls.length] ?? "" });
  }
  const rest = attempts.slice(next);
  if (rest.length)
    calls.push({ attempts: rest, completion: undefined, inputs: inputs[calls.length] ?? "" });
  return calls;
}

/** The provider and model of the run: its `run_started` route's, each
 * else the first its attempts name. */
export function runRoute(run, attempts) {
  const route = run && run.routeText !== "null" ? routeNames(run.routeText) : {};
  return {
    provider: route.provider ?? attempts.find((a) => a.provider !== undefined)?.provider,
    model: route.model ?? attempts.find((a) => a.model !== undefined)?.model,
  };
}

/** The transcript's tool calls by `"{life} {call id}"`. */
export const callsByKey = (transcript) =>
  new Map(
    transcript.filter((e) => e.type === "tool_call").map((e) => [`${e.life} ${e.call_id}`, e]),
  );
