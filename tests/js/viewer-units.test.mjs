// The viewer's pure parts with node: describe.js's labels and facts for
// deepstrike 0.2.77's kinds, digest.js's model calls, workflow and runtime
// rows, and series.js's lives, against the corpus's own events; locale.js's
// language for Intl; idle.js's scheduling.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionIndex, SessionState, eventKinds, parseLog, sampleLog } from "agent-replay";
import {
  contextSummary,
  describeEvent,
  eventFacts,
  kernelFacets,
  kernelFacetsOf,
} from "../../js/viewer/describe.js";
import { compact, num, tickLabels } from "../../js/viewer/dom.js";
import { FALLBACK_LOCALE, browserLocale } from "../../js/viewer/locale.js";
import { whenIdle } from "../../js/viewer/idle.js";
import { activityAt, callAt, lifeAt, observationsAt, viewDigest } from "../../js/viewer/digest.js";
import { PANEL_LISTS, panelView } from "../../js/viewer/paged.js";
import { chartBuffers, chartColumns, chartTables, xAt } from "../../js/viewer/chart-data.js";
import { chartSeries, cutSeries, xLabel } from "../../js/viewer/series.js";
import { contractView, corpus } from "./viewer-fixtures.mjs";

const eventsOf = (name) => parseLog(corpus(name)).events;
const firstOf = (name, kind) => eventsOf(name).find((e) => e.kind === kind);

test("describe.js labels the runtime's kinds from their own fields", () => {
  const prompt = firstOf("tools.jsonl", "prompt_measured");
  assert.equal(
    describeEvent(prompt),
    `prompt ${prompt.measurement.input_tokens} tokens (heuristic, low_confidence)`,
  );
  const failed = eventsOf("provider_fatal.jsonl").find(
    (e) => e.kind === "provider_attempt" && e.status !== "success",
  );
  assert.equal(
    describeEvent(failed),
    "replay/openai-chat/replay attempt 1: transport_exhausted (model_unavailable), 1 ms",
  );
  const context = firstOf("tools.jsonl", "context_prepared");
  const c = contextSummary(context.preparation);
  assert.equal(c.included, context.preparation.plan.selections.length);
  assert.equal(
    describeEvent(context),
    `context: ${c.included} entries in (1 history, 1 state), ~${c.projected_tokens} of ${c.budget_tokens} tokens`,
  );
  const residency = eventsOf("long_run.jsonl").find(
    (e) => e.observation_kind === "payload_residency_changed",
  );
  assert.equal(
    describeEvent(residency),
    `payload_residency_changed: ${residency.raw.handle_id} → paged_out`,
  );
  assert.match(
    describeEvent(firstOf("tools.jsonl", "kernel_observation")),
    /^step_published_effects: call_provider$/,
  );
  assert.equal(
    describeEvent(firstOf("workflow.jsonl", "workflow_batch_spawned")),
    "workflow batch of 2: wf-node0, wf-node1",
  );
  assert.equal(
    describeEvent(firstOf("workflow.jsonl", "workflow_completed")),
    "workflow done: 3 of 3 nodes completed",
  );
  assert.match(
    describeEvent(firstOf("workflow.jsonl", "workflow_node_completed")),
    /^node wf-node0 completed \(completed\): Sub-agent finished/,
  );
  assert.equal(describeEvent(firstOf("loop.jsonl", "round_started")), "round 1: keep CI green");
  const paced = firstOf("loop.jsonl", "round_paced");
  assert.ok(describeEvent(paced).startsWith(`round ${paced.round} → ${paced.action}`));
  const denied = eventsOf("permission_policy_gate.jsonl").find(
    (e) => e.kind === "tool_completed" && e.results[0].error_kind === "governance_denied",
  );
  assert.match(describeEvent(denied), /: governance_denied permission denied/);
});

test("describe.js labels the kinds 0.2.77 never writes from their TypedDicts", () => {
  const cases = [
    [
      { kind: "workflow_nodes_submitted", turn: 3, nodes: [{}, {}], submitter_agent_id: "a1" },
      "2 workflow nodes submitted by a1",
    ],
    [
      { kind: "group_member_joined", session_id: "s2", role: "reviewer", member_kind: "peer" },
      "s2 joined the group as reviewer (peer)",
    ],
    [
      { kind: "group_budget_charged", tokens: 900, subagents: 1, rounds: 2 },
      "group charged 900 tokens, 1 sub-agents, 2 rounds",
    ],
    [
      { kind: "memory_write_failed", turn: 1, record_id: "r1", error: "quota" },
      "memory write r1 failed: quota",
    ],
    [
      { kind: "memory_query_failed", turn: 1, scope: {}, query: "deploy", error: "timeout" },
      'memory query "deploy" failed: timeout',
    ],
    [
      { kind: "summary_upgraded", compressed_seq: 4, summary: "the plan" },
      "summary of compression #4 upgraded: the plan",
    ],
    [
      { kind: "semantic_archive_pending", effect_id: "e", action: "archive" },
      "semantic archive pending (archive)",
    ],
    [
      { kind: "semantic_archive_completed", effect_id: "e", record_id: "r9" },
      "semantic archive done: r9",
    ],
    [
      { kind: "semantic_archive_failed", effect_id: "e", error: "disk" },
      "semantic archive failed: disk",
    ],
  ];
  for (const [event, label] of cases) assert.equal(describeEvent(event), label, event.kind);
});

test("the details of a prompt measure name its source and confidence", () => {
  const post = eventsOf("tools.jsonl").filter((e) => e.kind === "prompt_measured")[1];
  const facts = Object.fromEntries(eventFacts(post));
  assert.equal(facts.source, "postflight");
  assert.equal(facts.confidence, "exact");
  assert.equal(facts["input tokens"], post.measurement.input_tokens);
  const context = Object.fromEntries(eventFacts(firstOf("tools.jsonl", "context_prepared")));
  assert.equal(context.route, "replay/openai-chat/replay");
  assert.match(context.include, /^state:task_state:.* \(volatile_state_turn\)$/);
  assert.deepEqual(eventFacts({ kind: "checkpoint_taken", turn: 1, history_len: 2 }), []);
});

test("kernel categories and primitives come from the kind table", () => {
  const table = {
    categories: ["run"],
    kinds: [
      { kind: "a", kernel_category: "mm", primitive: "mm" },
      { kind: "b", kernel_category: "proc", primitive: "sched" },
      { kind: "c", kernel_category: "mm", primitive: "mm" },
    ],
  };
  assert.deepEqual(kernelFacets(table), {
    kernel_categories: ["mm", "proc"],
    primitives: ["mm", "sched"],
  });
  assert.deepEqual(kernelFacets({ categories: [], kinds: [{ kind: "a" }] }), {
    kernel_categories: [],
    primitives: [],
  });
  // The real table: whatever it names, kernelFacetsOf agrees with it.
  for (const k of eventKinds().kinds)
    assert.deepEqual(kernelFacetsOf(k.kind), {
      kernel_category: k.kernel_category ?? null,
      primitive: k.primitive ?? null,
    });
  assert.deepEqual(kernelFacetsOf("warp"), { kernel_category: null, primitive: null });
});

test("model calls: attempts beside the message they produced, a failed call on its own", () => {
  const text = corpus("provider_fatal.jsonl");
  const events = parseLog(text).events;
  const view = contractView(text);
  const { calls } = viewDigest(view);
  const model = new Set(["provider_attempt", "prompt_measured", "context_prepared"]);
  const effects = [...new Set(events.filter((e) => model.has(e.kind)).map((e) => e.effect_id))];
  assert.deepEqual(
    calls.map((c) => c.effect_id),
    effects,
  );
  const llm = events.findIndex((e) => e.kind === "llm_completed") + 1;
  assert.equal(calls[0].answer, llm);
  assert.equal(events[llm - 1].effect_id, calls[0].effect_id, "the answer has the call's effect");
  assert.deepEqual(calls[0].route, {
    provider: "replay",
    protocol: "openai-chat",
    model: "replay",
  });
  assert.deepEqual(
    calls[0].prompts.map((p) => [p.source, p.confidence]),
    [
      ["heuristic", "low_confidence"],
      ["postflight", "exact"],
    ],
  );
  assert.equal(calls[1].answer, null, "the second call failed: no answer");
  assert.deepEqual(
    calls[1].attempts.map((a) => [a.status, a.error]),
    [["transport_exhausted", "model_unavailable"]],
  );
  // As of the first call's attempt, it has no answer yet.
  const before = callAt(calls[0], llm - 1);
  assert.equal(before.answer, null);
  assert.equal(before.attempts.length, 1);
  assert.equal(callAt(calls[0], calls[0].position).attempts.length, 0);
});

test("the run's route is run_started's, and names the calls whose events name none", () => {
  const events = parseLog(corpus("tools.jsonl")).events;
  const started = events.find((e) => e.kind === "run_started");
  assert.ok(started.route, "the runtime writes a route on run_started");
  const unnamed = events.filter((e) => !["provider_attempt", "context_prepared"].includes(e.kind));
  const view = new SessionState().apply(unnamed).view();
  assert.deepEqual(view.run.route, started.route);
  const { calls } = viewDigest(view);
  assert.ok(calls.length > 0);
  for (const c of calls)
    assert.deepEqual(c.route, { provider: "replay", protocol: "openai-chat", model: "replay" });
  assert.equal(contractView(sampleLog()).run.route, null, "the kernel's run_started has none");
});

test("model calls after a wake belong to the second life", () => {
  const text = corpus("crash_wake.jsonl");
  const view = contractView(text);
  const { calls } = viewDigest(view);
  const answers = view.transcript.filter((t) => t.type === "assistant").map((t) => t.position);
  assert.deepEqual(
    calls.map((c) => c.answer),
    answers,
  );
  const events = parseLog(text).events;
  for (const c of calls) assert.equal(events[c.answer - 1].effect_id, c.effect_id);
  assert.deepEqual(
    calls.map((c) => c.life),
    calls.map((c) => lifeAt(view.lives, c.position)),
  );
  assert.equal(calls.at(-1).life, view.lives.at(-1).life);
});

test("the workflow digest has each node's outcome and the batches", () => {
  const text = corpus("workflow.jsonl");
  const events = parseLog(text).events;
  const { workflow } = viewDigest(contractView(text));
  const spawned = events.filter((e) => e.kind === "workflow_batch_spawned");
  assert.deepEqual(
    workflow.batches.map((b) => b.node_ids),
    spawned.map((e) => e.node_ids),
  );
  const done = events.find((e) => e.kind === "workflow_completed");
  assert.deepEqual(
    workflow.nodes.map((n) => [n.node_id, n.ends.at(-1).status]),
    done.node_outcomes.map((o) => [o.node_id, o.status]),
  );
  assert.deepEqual(
    workflow.completions.map((c) => c.total_nodes),
    [done.total_nodes],
  );
});

test("activity rows and observation counts are cut at a position", () => {
  const text = corpus("loop.jsonl");
  const events = parseLog(text).events;
  const { activity, observations } = viewDigest(contractView(text));
  const rounds = events.filter((e) => e.kind.startsWith("round_"));
  assert.equal(activity.rounds.length, rounds.length);
  const second = activity.rounds[1].position;
  assert.equal(activityAt(activity, second).rounds.total, 2);
  assert.equal(activityAt(activity, second, 1).rounds.rows.length, 1);
  const kernel = events.filter((e) => e.kind === "kernel_observation");
  const counted = observationsAt(observations);
  assert.equal(
    Object.values(counted).reduce((a, b) => a + b, 0),
    kernel.length,
  );
  assert.deepEqual(observationsAt(observations, 0), {});
  const denied = viewDigest(contractView(corpus("permission_policy_gate.jsonl"))).activity;
  assert.deepEqual(
    denied.stopped_tools.map((r) => r.error_kind),
    ["governance_denied"],
  );
});

test("chart series keep lives apart on the x axis and split prompt and output tokens", () => {
  const turn = (life, t, first, input) => ({
    life,
    turn: t,
    first_position: first,
    last_position: first + 1,
    event_count: 2,
    kinds: {},
    tool_calls: [],
    tokens: 5,
    input_tokens: input,
    output_tokens: 5,
    errors: 0,
  });
  const view = {
    lives: [
      { life: 1, first_position: 1, last_position: 6, first_turn: 1, last_turn: 3 },
      { life: 2, first_position: 7, last_position: 10, first_turn: 1, last_turn: 2 },
    ],
    turns: [
      turn(1, 1, 1, 100),
      turn(1, 2, 3, 120),
      turn(1, 3, 5, 130),
      turn(2, 1, 7, 90),
      turn(2, 2, 9, 95),
    ],
    entropy: {
      samples: [
        { position: 4, event: { kind: "entropy_sample", turn: 2, score: 0.1 } },
        { position: 8, event: { kind: "entropy_sample", turn: 1, score: 0.2 } },
      ],
      alerts: [],
    },
    budgets: { usage: [] },
  };
  const s = chartSeries(view);
  assert.deepEqual(
    Array.from(s.turns.x, (x) => xLabel(s.lives, x)),
    ["L1·t1", "L1·t2", "L1·t3", "L2·t1", "L2·t2"],
  );
  assert.equal(new Set(s.turns.x).size, 5, "no two turns share an x");
  assert.ok(s.turns.x[3] > s.turns.x[2] + 1, "an empty column between the lives");
  assert.deepEqual(
    s.samples.map((p) => xLabel(s.lives, p.x)),
    ["L1·t2", "L2·t1"],
  );
  assert.deepEqual(
    Array.from(s.turns.input, (input, k) => [input, s.turns.output[k]]),
    [
      [100, 5],
      [120, 5],
      [130, 5],
      [90, 5],
      [95, 5],
    ],
  );
  assert.deepEqual(cutSeries(s, 6).turns.position, new Float64Array([1, 3, 5]));
  // One life: the x is the turn, labelled plainly.
  const one = chartSeries({ ...view, lives: undefined, turns: view.turns.slice(0, 3) });
  assert.deepEqual(
    Array.from(one.turns.x, (x) => [x, xLabel(one.lives, x)]),
    [
      [1, "1"],
      [2, "2"],
      [3, "3"],
    ],
  );
});

test("paged.js reads from an index the same panel lists the view keeps", () => {
  const at = (object, path) => path.split(".").reduce((o, k) => o?.[k], object);
  for (const log of [sampleLog(), corpus("workflow.jsonl"), corpus("long_run.jsonl")]) {
    const view = new SessionState().apply(log).view();
    const index = new SessionIndex();
    index.apply(log);
    const panels = panelView(index);
    for (const path of Object.keys(PANEL_LISTS))
      assert.deepEqual(at(panels, path), at(view, path), path);
    assert.deepEqual(
      panels.transcript.map((t) => t.position),
      view.transcript.filter((t) => t.type === "assistant").map((t) => t.position),
    );
    // One series of either: the charts have one path.
    assert.deepEqual(chartSeries(panels, index.turnSeries()), chartSeries(view), "the series");
    assert.deepEqual(panels.lives, view.lives);
    assert.deepEqual(viewDigest(panels).workflow, viewDigest(view).workflow);
    index.free();
  }
});

/** A series' turns (columns) as a record each. */
const turnRows = (turns) =>
  Array.from(turns.x, (x, k) => ({
    x,
    position: turns.position[k],
    input_tokens: Number.isNaN(turns.input[k]) ? null : turns.input[k],
    output_tokens: turns.output[k],
    event_count: turns.events[k],
    errors: turns.errors[k],
  }));

/** Records of turns as a series' columns. */
const turnColumns = (rows) => ({
  x: Float64Array.from(rows, (t) => t.x),
  position: Float64Array.from(rows, (t) => t.position),
  input: Float64Array.from(rows, (t) => t.input_tokens ?? Number.NaN),
  output: Float64Array.from(rows, (t) => t.output_tokens),
  events: Float64Array.from(rows, (t) => t.event_count),
  errors: Float64Array.from(rows, (t) => t.errors),
});

/** The charts' columns the plain way: bucket every point of the series
 * (a bucket keeps each series' maximum). */
function columnsByScan(chart, full) {
  const turns = turnRows(full.turns);
  const xs = chartColumns(chart)[0];
  const width = xs.length > 1 ? xs[1] - xs[0] : 1;
  const pointsOf = {
    score: full.samples.map((e) => [e.x, e.score]),
    alert: full.alerts.map((e) => [e.x, e.score]),
    threshold: full.alerts.map((e) => [e.x, e.threshold]),
    prompt: turns.filter((t) => t.input_tokens !== null).map((t) => [t.x, t.input_tokens]),
    output: turns.map((t) => [t.x, t.output_tokens]),
    events: turns.map((t) => [t.x, t.event_count]),
    errors: turns.map((t) => [t.x, t.errors]),
  };
  let total = 0;
  pointsOf.cumulative = [];
  for (const t of [...turns].sort((a, b) => a.position - b.position)) {
    total += (t.input_tokens ?? 0) + t.output_tokens;
    pointsOf.cumulative.push([t.x, total]);
  }
  const columns = chart.series.map(({ label }) => {
    const points =
      pointsOf[label] ??
      full.usage.filter((u) => u.operation_id === label).map((u) => [u.x, u.tokens]);
    const ys = xs.map(() => null);
    for (const [x, y] of points) {
      const i = Math.floor((x - xs[0]) / width);
      if (ys[i] === null || y > ys[i]) ys[i] = y;
    }
    return ys;
  });
  return [xs, ...columns];
}

/** The x of a position the plain way: its turn's (the last turn started
 * at or before it), null before the first. */
function xByScan(full, at) {
  const started = turnRows(full.turns).filter((t) => t.position <= at);
  if (!started.length) return null;
  return started.reduce((a, b) => (b.position > a.position ? b : a)).x;
}

test("the charts' columns bucket the whole series, and xAt gives each position's turn", () => {
  const sample = chartSeries(contractView(sampleLog()));
  const turns = Array.from({ length: 3000 }, (_, i) => ({
    position: 2 * i + 1,
    turn: i + 1,
    x: i + 1,
    tokens: i % 97,
    input_tokens: i % 5 ? (i * 7) % 89 : null,
    output_tokens: i % 97,
    event_count: 1 + (i % 13),
    errors: i % 3 === 0 ? 1 : 0,
  }));
  // Past 1,200 turns the columns are buckets; turns out of position order
  // test that the total is summed in the order the turns happened.
  [turns[10], turns[2500]] = [turns[2500], turns[10]];
  const long = {
    lives: sample.lives,
    samples: [],
    alerts: [],
    turns: turnColumns(turns),
    usage: [],
  };
  for (const full of [sample, long]) {
    const last = Math.max(...full.turns.position, 1);
    // As the page reads them: bucketed in the worker, sent with their
    // buffers transferred.
    const made = chartTables(full, 7);
    const tables = structuredClone(made, { transfer: chartBuffers(made) });
    assert.equal(made.charts[0].xs.length, 0, "the buffers were transferred");
    for (const chart of tables.charts)
      assert.deepEqual(chartColumns(chart), columnsByScan(chart, full), chart.title);
    for (const at of [0, 1, 2, 7, Math.floor(last / 3), last - 1, last, last + 5])
      assert.equal(xAt(tables, at), xByScan(full, at), `x @${at}`);
  }
});

test("num groups whole numbers as Intl does, and keeps U64 strings", () => {
  const intl = new Intl.NumberFormat("en-US");
  for (const n of [0, 7, -7, 999, 1000, -1000, 123456, 1234567, 2 ** 53 - 1, -(2 ** 53 - 1)])
    assert.equal(num(n), intl.format(n));
  assert.equal(num(1.5), intl.format(1.5));
  assert.equal(num("18446744073709551615"), "18446744073709551615");
  assert.equal(num(undefined), "–");
});

test("compact keeps an axis's tick labels to a few characters", () => {
  const ticks = [0, 0.5, 950, 1200, 400000, 1200000, 3.45e9];
  assert.deepEqual(ticks.map(compact), ["0", "0.5", "950", "1.2K", "400K", "1.2M", "3.5B"]);
  for (const n of ticks) assert.ok(compact(n).length <= 4, compact(n));
});

test("browserLocale: the browser's language where Intl takes it, else en-US", () => {
  assert.equal(browserLocale("de-DE"), "de-DE");
  assert.equal(browserLocale("en-us"), "en-US", "canonical");
  // WebKit under LANG=C.UTF-8 says "C": Intl refuses it.
  assert.throws(() => new Intl.NumberFormat("C"), RangeError);
  for (const language of ["C", "", "en_US.UTF-8", undefined])
    assert.equal(browserLocale(language), FALLBACK_LOCALE, String(language));
  assert.equal(FALLBACK_LOCALE, "en-US");
  assert.doesNotThrow(() => new Intl.NumberFormat(browserLocale("C")));
});

test("axis ticks read apart: the increment's decimals below a thousand, compact above", () => {
  assert.deepEqual(tickLabels([0.25, 0.3, 0.35], 0.05), ["0.25", "0.30", "0.35"]);
  assert.deepEqual(tickLabels([0, 0.25, 0.5], 0.25), ["0.00", "0.25", "0.50"]);
  assert.deepEqual(tickLabels([0, 500, 1000, 1500], 500), ["0", "500", "1K", "1.5K"]);
});

test("the running token total is charted on a scale of its own, not beside per-turn figures", () => {
  const state = new SessionState();
  state.apply(sampleLog());
  const tables = chartTables(chartSeries(state.view()));
  const tokens = tables.charts.find((c) => c.title.startsWith("Tokens per turn"));
  assert.deepEqual(
    tokens.series.map((s) => [s.label, s.scale ?? "y"]),
    [
      ["prompt", "y"],
      ["output", "y"],
      ["cumulative", "total"],
    ],
  );
  state.free();
});

test("idle.js: an idle callback with a timeout, else a frame's wait", (t) => {
  const asked = [];
  globalThis.requestIdleCallback = (f, options) => asked.push([f, options]);
  try {
    const f = () => {};
    whenIdle(f);
    whenIdle(f, { timeout: 1000 });
    assert.deepEqual(asked, [
      [f, { timeout: 200 }],
      [f, { timeout: 1000 }],
    ]);
  } finally {
    delete globalThis.requestIdleCallback;
  }
  t.mock.timers.enable({ apis: ["setTimeout"] });
  let ran = 0;
  whenIdle(() => ran++);
  assert.equal(ran, 0, "never in the same task");
  t.mock.timers.tick(15);
  assert.equal(ran, 0, "one scheduled from another waits a frame");
  t.mock.timers.tick(1);
  assert.equal(ran, 1);
});
