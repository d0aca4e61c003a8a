// SessionIndex, the paged index for large logs, through the public entry:
// its pages, filters, search and state at a position agree with the view
// and with a plain scan, on the sample and on the real-runtime corpus.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { AgentReplayError, SessionIndex, SessionState, eventKinds, sampleLog } from "agent-replay";

const sample = sampleLog();
const lines = sample.split("\n").filter((l) => l.trim());
const corpus = new URL("../corpus/deepstrike-0.2.77/", import.meta.url);
// A FileSessionLog: one stored entry `{seq, event}` a line.
const realLog = readFileSync(new URL("long_run.jsonl", corpus), "utf8");
/** Each event's text as the log reader gives it. */
const realLines = [];
new SessionState().write(realLog, { onEvent: (e) => realLines.push(e.json) }).end();
const indexOf = (log) => new SessionIndex().apply(log);

test("apply returns the index, as SessionState's returns the state; errors by loadErrors()", () => {
  const index = new SessionIndex();
  assert.equal(index.apply(`${sample}{"kind":"pa`), index);
  assert.equal(index.eventCount, lines.length);
  assert.deepEqual(
    index.loadErrors().map((e) => [e.line, e.code]),
    [[lines.length + 1, "truncated"]],
  );
  const state = new SessionState();
  assert.equal(state.apply(sample), state);
});

test("pages give each event as written, with its position, kind and turn", () => {
  const index = indexOf(sample);
  assert.equal(index.eventCount, lines.length);
  const page = index.events(3, 7);
  assert.deepEqual(
    page.map((e) => e.position),
    [3, 4, 5, 6, 7],
  );
  for (const e of page) {
    assert.equal(e.json, lines[e.position - 1]);
    const parsed = JSON.parse(e.json);
    assert.equal(e.kind, parsed.kind);
    assert.equal(e.turn, parsed.turn ?? null);
  }
  assert.equal(index.events(lines.length, lines.length + 10).length, 1, "clamped");
  assert.equal(index.event(0), null);
  assert.equal(index.event(1).json, lines[0]);
  index.free();
});

test("the state at a position is the view's fold of the events before it", () => {
  const index = indexOf(realLog);
  for (const at of [0, 1, 250, 257, 1000, realLines.length]) {
    const state = new SessionState();
    for (const line of realLines.slice(0, at)) state.apply(JSON.parse(line));
    const got = index.stateAt(at);
    assert.equal(got.position, at);
    assert.deepEqual(got.summary, state.summary(), `summary at ${at}`);
    assert.deepEqual(got.osSnapshot, state.osSnapshot(), `snapshot at ${at}`);
    state.free();
  }
  const whole = new SessionState().apply(realLog);
  assert.deepEqual(index.summary(), whole.summary());
  assert.deepEqual(index.osSnapshot(), whole.osSnapshot());
  assert.deepEqual(index.turns(), whole.view().turns);
  // The series are the turns' numbers, column by column.
  const series = index.turnSeries();
  const turns = whole.view().turns;
  for (const [name, column] of Object.entries(series)) {
    assert.ok(column instanceof Float64Array, name);
    assert.deepEqual(
      [...column],
      turns.map((t) => Number(t[name])),
      name,
    );
  }
  assert.deepEqual(
    Object.keys(series).sort(),
    Object.keys(turns[0])
      .filter((k) => typeof turns[0][k] === "number")
      .sort(),
    "every number of a turn, and only those",
  );
  assert.deepEqual(index.loadErrors(), []);
  whole.free();
  index.free();
});

test("a state cut to a tail keeps the last items of each growing list, with totals", () => {
  // The sample, and usage of two more operations (one entry each in
  // tokens_by_operation).
  const usage = lines.find((l) => l.includes('"budget_usage_reported"'));
  const more = ["op-a", "op-z"].map((op) => usage.replace('"op-bisect"', `"${op}"`));
  const index = indexOf(`${sample}\n${more.join("\n")}\n`);
  const end = lines.length + more.length;
  const cut = index.stateAt(end, { tail: 1 });
  const full = index.stateAt(end);
  assert.ok(full.osSnapshot.signals.length > 1, "the sample has lists to cut");
  assert.equal(full.totals, undefined);
  for (const [name, total] of Object.entries(cut.totals.lists)) {
    assert.equal(total, full.osSnapshot[name].length, name);
    assert.deepEqual(cut.osSnapshot[name], full.osSnapshot[name].slice(-1), name);
  }
  for (const p of full.summary.processes) {
    assert.equal(cut.totals.history[p.agent_id], p.history.length);
    const shown = cut.summary.processes.find((q) => q.agent_id === p.agent_id);
    assert.deepEqual(shown, { ...p, history: p.history.slice(-1) });
  }
  const operations = Object.entries(full.summary.tokens_by_operation);
  assert.equal(operations.length, 3);
  assert.equal(cut.totals.tokens_by_operation, operations.length);
  assert.deepEqual(Object.entries(cut.summary.tokens_by_operation), operations.slice(-1));
  index.free();
});

test("a log written in chunks indexes as the whole log", () => {
  const whole = indexOf(realLog);
  const chunked = new SessionIndex();
  const bytes = new TextEncoder().encode(realLog);
  for (let i = 0; i < bytes.length; i += 997) chunked.write(bytes.subarray(i, i + 997));
  assert.equal(chunked.end().events, whole.eventCount);
  assert.equal(chunked.eventCount, whole.eventCount);
  assert.deepEqual(chunked.events(1, 1e9), whole.events(1, 1e9));
  chunked.free();
  whole.free();
});

test("search pages find what a plain scan finds, letters in either case", () => {
  const index = indexOf(realLog);
  for (const query of ["PROVIDER_ATTEMPT", '"turn":2,', "zzz no such text"]) {
    const expected = [];
    realLines.forEach((l, i) => {
      if (l.toLowerCase().includes(query.toLowerCase())) expected.push(i + 1);
    });
    const found = [];
    let from = 1;
    while (from !== null) {
      const page = index.search(query, { from, limit: 7 });
      assert.ok(page.positions.length <= 7);
      found.push(...page.positions);
      from = page.next;
    }
    assert.deepEqual(found, expected, query);
  }
  index.free();
});

test("the WebAssembly SIMD search finds what a plain scan finds on random texts", () => {
  // Few distinct bytes, so that the scan's two-byte prefilter often passes
  // and the full comparison often fails; letters in both cases, and bytes
  // that differ from others by the case bit without being letters (@ and `,
  // [ and {). Texts of every length around the 16-byte blocks, over more
  // than one of the index's segments.
  let seed = 99;
  const below = (n) => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed % n;
  };
  const alphabet = "aAbBxX_@`[{ ";
  const word = (n) => Array.from({ length: n }, () => alphabet[below(alphabet.length)]).join("");
  const log = Array.from({ length: 3000 }, (_, i) =>
    JSON.stringify({ kind: "note", n: i, text: word(below(70)) }),
  );
  const index = indexOf(`${log.join("\n")}\n`);
  for (let k = 0; k < 150; k++) {
    const query = word(1 + below(6));
    const expected = [];
    log.forEach((l, i) => {
      if (l.toLowerCase().includes(query.toLowerCase())) expected.push(i + 1);
    });
    assert.deepEqual(Array.from(index.filter({ query })), expected, query);
    const first = index.search(query, { limit: 5 }).positions;
    assert.deepEqual(first, expected.slice(0, 5), query);
  }
  index.free();
});

test("the transcript of a range is the view's of its events alone, at the log's positions", () => {
  const index = indexOf(realLog);
  for (const [from, to] of [
    [1, realLines.length],
    [40, 160],
    [0, 25],
  ]) {
    const alone = new SessionState();
    for (const line of realLines.slice(Math.max(1, from) - 1, to)) alone.apply(line);
    const shift = Math.max(1, from) - 1;
    const expected = alone.view().transcript.map((t) => {
      const entry = { ...t, position: t.position + shift };
      if (t.rolled_back_at != null) entry.rolled_back_at = t.rolled_back_at + shift;
      if (t.result?.position != null)
        entry.result = { ...t.result, position: t.result.position + shift };
      return entry;
    });
    alone.free();
    assert.ok(expected.length > 3, `${from}..${to} has entries`);
    assert.deepEqual(index.transcript(from, to), expected, `${from}..${to}`);
    assert.deepEqual(index.transcript(from, to, { last: 3 }), expected.slice(-3));
    assert.deepEqual(index.transcript(from, to, { last: 0 }), []);
  }
  assert.ok(
    index.transcript(1, realLines.length).some((t) => t.result?.position != null),
    "tool results' positions are shifted too",
  );
  assert.throws(() => index.transcript(1, 5, { last: -1 }), { code: "invalid_input" });
  index.free();
});

test("filters select by kind, category, kernel facet, observation kind and text", () => {
  const index = indexOf(realLog);
  const kindAt = (p) => JSON.parse(realLines[p - 1]).kind;
  const table = new Map(eventKinds().kinds.map((k) => [k.kind, k]));
  const all = realLines.map((_, i) => i + 1);
  const expect = (keep) => all.filter(keep);
  assert.deepEqual([...index.filter()], all);
  assert.deepEqual(
    [...index.filter({ categories: ["model"] })],
    expect((p) => table.get(kindAt(p)).category === "model"),
  );
  assert.deepEqual(
    [...index.filter({ kernelCategories: ["mm"], primitives: ["mm"] })],
    expect((p) => table.get(kindAt(p)).kernel_category === "mm"),
  );
  assert.deepEqual(
    [...index.filter({ kinds: ["tool_completed"], query: "ERROR" })],
    expect((p) => kindAt(p) === "tool_completed" && /error/i.test(realLines[p - 1])),
  );
  const observations = index.observationKinds();
  const [sub, count] = Object.entries(observations)[0];
  const bySub = index.filter({ kinds: [`kernel_observation/${sub}`] });
  assert.equal(bySub.length, count);
  for (const p of bySub) assert.equal(JSON.parse(realLines[p - 1]).observation_kind, sub);
  index.free();
});

test("kinds the table does not know filter as the category unknown", () => {
  const index = indexOf('{"kind":"from_the_future","x":1}\n{"kind":"page_out","turn":1}\n');
  assert.deepEqual([...index.filter({ categories: ["unknown"] })], [1]);
  assert.deepEqual([...index.filter({ kinds: ["from_the_future"] })], [1]);
  assert.deepEqual([...index.filter({ categories: ["context"] })], [2]);
  index.free();
});

test("bad arguments and use after free are coded errors", () => {
  const index = indexOf(sample);
  const code = (fn) => {
    try {
      fn();
    } catch (e) {
      assert.ok(e instanceof AgentReplayError);
      return e.code;
    }
    return "no error";
  };
  assert.equal(
    code(() => index.events(-1, 3)),
    "invalid_input",
  );
  assert.equal(
    code(() => index.search(42)),
    "invalid_input",
  );
  assert.equal(
    code(() => index.search("x", { limit: 0 })),
    "invalid_input",
  );
  assert.equal(
    code(() => index.filter({ kinds: "tool_gated" })),
    "invalid_input",
  );
  assert.equal(
    code(() => index.apply(null)),
    "invalid_input",
  );
  assert.equal(
    code(() => new SessionIndex().apply("{oops\n", { strict: true })),
    "invalid_log",
  );
  index.free();
  assert.equal(
    code(() => index.eventCount),
    "closed",
  );
  index.free();
});

test("eventsAt gives the events at scattered positions, in the order asked", () => {
  const index = indexOf(sample);
  const got = index.eventsAt([9, 2, lines.length, lines.length + 5, 0]);
  assert.deepEqual(
    got.map((e) => e.position),
    [9, 2, lines.length],
  );
  for (const e of got) assert.equal(e.json, lines[e.position - 1]);
  const positions = index.filter({ kinds: ["tool_completed"] });
  assert.deepEqual(
    index.eventsAt(positions).map((e) => e.kind),
    Array(positions.length).fill("tool_completed"),
  );
  index.free();
});

test("deferCheck: the log is navigable first, checkStep finds the rest of the errors", () => {
  const bad = [
    '{"kind":"entropy_sample","turn":2,"score":"high","rho":0,"repeat_pressure":0,"failure_rate":0,"rollbacks_in_window":0,"window_turns":1}',
    '{"kind":"checkpoint_taken","turn":2}',
  ];
  const log = `${lines.slice(0, 10).join("\n")}\n${bad[0]}\n${lines.slice(10).join("\n")}\n${bad[1]}\n{"kind":"pa`;
  const eager = new SessionIndex().apply(log);
  const deferred = new SessionIndex(undefined, { deferCheck: true });
  // Written in chunks that cut events, as the viewer's worker writes.
  for (let at = 0; at < log.length; at += 97) deferred.write(log.slice(at, at + 97));
  deferred.end();
  assert.deepEqual(deferred.checkProgress(), { checkedTo: 10, done: false });
  assert.equal(deferred.eventCount, eager.eventCount + 2, "navigable before the check");
  assert.equal(deferred.loadErrors().length, eager.loadErrors().length - 2);
  // Read before the check reaches it: refused, as the eager load has none.
  assert.equal(deferred.event(11), null);
  assert.deepEqual(
    deferred.events(1, deferred.eventCount).map((e) => e.json),
    eager.events(1, eager.eventCount).map((e) => e.json),
  );
  assert.deepEqual(
    { ...deferred.stateAt(deferred.eventCount), position: 0 },
    { ...eager.stateAt(eager.eventCount), position: 0 },
  );
  let progress;
  let steps = 0;
  do {
    progress = deferred.checkStep(1);
    steps++;
  } while (!progress.done && steps < 1000);
  assert.deepEqual(progress, { checkedTo: eager.eventCount, done: true });
  assert.deepEqual(deferred.loadErrors(), eager.loadErrors());
  assert.deepEqual(
    deferred
      .loadErrors()
      .filter((e) => e.code === "invalid_event")
      .map((e) => [e.line, e.field]),
    [
      [11, "score"],
      [lines.length + 2, "history_len"],
    ],
  );
  assert.equal(deferred.eventCount, eager.eventCount);
  assert.deepEqual(deferred.summary(), eager.summary());
  assert.deepEqual(deferred.turns(), eager.turns());
  assert.deepEqual(deferred.stateAt(20), eager.stateAt(20));
  // Strict reading never defers; without the option nothing is deferred.
  const strictError = (options) => {
    try {
      new SessionIndex(undefined, options).apply(log);
    } catch (e) {
      return [e.code, e.message];
    }
  };
  assert.equal(strictError({ strict: true })[0], "invalid_log");
  assert.deepEqual(strictError({ strict: true, deferCheck: true }), strictError({ strict: true }));
  assert.deepEqual(eager.checkProgress(), { checkedTo: eager.eventCount, done: true });
  assert.throws(() => deferred.checkStep(-1), { code: "invalid_input" });
});
