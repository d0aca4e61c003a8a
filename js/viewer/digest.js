// What the panels show of the runtime's lists in a view (model calls,
// workflow, rounds, groups, memory failures, summary upgrades, semantic
// archiving, interrupted tools, kernel observations): compact rows taken
// from the view once, each with the position it is known from, so they can
// be cut at any position (time travel) without the view. No DOM: a Worker
// can use it. Every row comes from a view list of `{position, event}` (or
// the transcript); a view without a list (an older core) gives no rows.
import { contentText, contextSummary } from "./event-text.js";

const entries = (list) => list ?? [];

/** Index of the first item whose `key` is > p (items sorted by that key). */
export function upperBound(list, p, key = (x) => x.position) {
  let lo = 0;
  let hi = list.length;
  while (lo < hi) {
    const mid = (lo + hi) >>> 1;
    if (key(list[mid]) <= p) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** The life a position belongs to (1 when the view has no lives). */
export function lifeAt(lives, position) {
  const i = upperBound(lives ?? [], position, (l) => l.first_position) - 1;
  return i >= 0 ? lives[i].life : 1;
}

const routeOf = (r) => (r ? { provider: r.provider, protocol: r.protocol, model: r.model } : null);

/**
 * The model calls: the view's context preparations, prompt measures and
 * provider attempts grouped by their `effect_id`, in the order of their
 * first event. `answer` is the position of the assistant message the call
 * produced: the first one after the call's last event and before the next
 * call's first (the runtime writes a call's events, then its
 * `llm_completed`); `null` when there is none (the call failed, or is still
 * going on). `route` is the attempt's, else the context's, else the run's
 * (`view.run.route`, as `run_started` wrote it).
 */
export function modelCalls(view) {
  const model = view.model ?? {};
  const byEffect = new Map();
  const callOf = (position, effect) => {
    let c = byEffect.get(effect);
    if (!c) {
      c = { effect_id: effect, position, last_position: position, answer: null, route: null };
      Object.assign(c, { life: 1, context: null, prompts: [], attempts: [] });
      byEffect.set(effect, c);
    }
    c.position = Math.min(c.position, position);
    c.last_position = Math.max(c.last_position, position);
    return c;
  };
  for (const { position, event: e } of entries(model.contexts)) {
    const c = callOf(position, e.effect_id);
    c.context = { position, ...contextSummary(e.preparation) };
    c.route ??= routeOf(e.preparation?.provider_route);
  }
  for (const { position, event: e } of entries(model.prompts)) {
    const m = e.measurement ?? {};
    callOf(position, e.effect_id).prompts.push({
      position,
      input_tokens: m.input_tokens,
      source: m.source?.kind ?? null,
      confidence: m.confidence ?? null,
    });
  }
  for (const { position, event: e } of entries(model.attempts)) {
    const c = callOf(position, e.effect_id);
    c.route = routeOf(e.route) ?? c.route;
    c.attempts.push({
      position,
      attempt_seq: e.attempt_seq,
      status: e.status,
      error: e.last_error_class ?? null,
      ms: e.finished_at_ms - e.started_at_ms,
      input_tokens: e.usage?.input_tokens ?? null,
      output_tokens: e.usage?.output_tokens ?? null,
    });
  }
  const calls = [...byEffect.values()].sort((a, b) => a.position - b.position);
  const answers = view.transcript.filter((t) => t.type === "assistant");
  let i = 0;
  calls.forEach((c, k) => {
    const next = calls[k + 1]?.position ?? Infinity;
    while (i < answers.length && answers[i].position <= c.last_position) i += 1;
    if (i < answers.length && answers[i].position < next) c.answer = answers[i].position;
    c.route ??= routeOf(view.run?.route);
    c.life = lifeAt(view.lives, c.position);
  });
  return calls;
}

/** A call as of position `at`: what was written by then. */
export function callAt(call, at) {
  if (call.last_position <= at && (call.answer ?? 0) <= at) return call;
  const by = (x) => x.position <= at;
  return {
    ...call,
    answer: call.answer !== null && call.answer <= at ? call.answer : null,
    context: call.context && by(call.context) ? call.context : null,
    prompts: call.prompts.filter(by),
    attempts: call.attempts.filter(by),
  };
}

/** The workflow: its batches, submissions, nodes (by id, in the order they
 * were spawned or submitted) and completion, with positions. */
function workflowOf(view) {
  const w = view.workflow ?? {};
  const nodes = new Map();
  const node = (id) => {
    if (!nodes.has(id)) nodes.set(id, { node_id: id, spawned_at: null, batch: null, ends: [] });
    return nodes.get(id);
  };
  const batches = entries(w.batches).map(({ position, event: e }, b) => {
    for (const id of e.node_ids ?? [])
      Object.assign(node(id), { spawned_at: position, batch: b + 1 });
    return { position, node_count: e.node_count, node_ids: e.node_ids ?? [] };
  });
  const submissions = entries(w.submissions).map(({ position, event: e }) => ({
    position,
    count: (e.nodes ?? []).length,
    submitter: e.submitter_agent_id ?? null,
  }));
  const end = (position, id, o) =>
    node(id).ends.push({
      position,
      status: o.status,
      termination: o.termination,
      output: o.output ? contentText(o.output.content) : null,
    });
  for (const { position, event: e } of entries(w.nodes)) end(position, e.agent_id, e);
  const completions = entries(w.completions).map(({ position, event: e }) => {
    for (const o of e.node_outcomes ?? []) end(position, o.node_id, o);
    return { position, total_nodes: e.total_nodes, outcomes: (e.node_outcomes ?? []).length };
  });
  return { batches, submissions, nodes: [...nodes.values()], completions };
}

/** Tool results whose error kind is a governance denial, a user interrupt
 * or a timeout (the run was stopped, not the tool broken). */
const STOPPED = new Set(["governance_denied", "user_interrupt", "timeout"]);

/** Rows of the runtime's other events, each list sorted by position. */
function activityOf(view) {
  const rows = (list, f) => entries(list).map(({ position, event: e }) => ({ position, ...f(e) }));
  const stopped = view.transcript
    .filter((t) => t.type === "tool_call" && STOPPED.has(t.result?.error_kind))
    .map((t) => ({
      position: t.result.position,
      call: t.call_id,
      tool: t.name,
      error_kind: t.result.error_kind,
      output: t.result.output,
    }))
    .sort((a, b) => a.position - b.position);
  return {
    rounds: rows(view.rounds, (e) => ({
      round: e.round,
      what: e.kind === "round_started" ? "started" : e.action,
      detail: e.kind === "round_started" ? e.goal : e.reason,
    })),
    groups: rows(view.groups, (e) =>
      e.kind === "group_member_joined"
        ? { what: "joined", detail: `${e.session_id} as ${e.role} (${e.member_kind})` }
        : {
            what: "charged",
            detail: `${e.tokens} tokens, ${e.subagents} sub-agents, ${e.rounds} rounds`,
          },
    ),
    stopped_tools: stopped,
    memory_failures: [
      ...rows(view.memory?.write_failures, (e) => ({
        what: "write",
        detail: `${e.record_id}: ${e.error}`,
      })),
      ...rows(view.memory?.query_failures, (e) => ({
        what: "query",
        detail: `"${e.query}": ${e.error}`,
      })),
    ].sort((a, b) => a.position - b.position),
    summary_upgrades: rows(view.summary_upgrades, (e) => ({
      what: `compression #${e.compressed_seq}`,
      detail: e.summary,
    })),
    semantic_archive: rows(view.semantic_archive, (e) => ({
      what: e.kind.replace("semantic_archive_", ""),
      detail: e.record_id ?? e.error ?? e.action ?? "",
    })),
  };
}

/** Positions of the kernel observations by `observation_kind`. */
function observationsOf(view) {
  const byKind = {};
  for (const { position, event: e } of entries(view.kernel_observations)) {
    byKind[e.observation_kind] ??= [];
    byKind[e.observation_kind].push(position);
  }
  return byKind;
}

/** Everything the runtime panels show of a view, once. */
export function viewDigest(view) {
  return {
    calls: modelCalls(view),
    workflow: workflowOf(view),
    activity: activityOf(view),
    observations: observationsOf(view),
  };
}

/** The rows of each activity list as of `at`: the last `max` and the total. */
export function activityAt(activity, at = Infinity, max = 12) {
  return Object.fromEntries(
    Object.entries(activity).map(([name, list]) => {
      const n = upperBound(list, at);
      return [name, { rows: list.slice(Math.max(0, n - max), n), total: n }];
    }),
  );
}

/** Kernel observations counted by kind as of `at`. */
export function observationsAt(observations, at = Infinity) {
  return Object.fromEntries(
    Object.entries(observations)
      .map(([kind, positions]) => [kind, upperBound(positions, at, (p) => p)])
      .filter(([, n]) => n > 0),
  );
}
