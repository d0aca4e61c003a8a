// compareRuns and `agent-replay diff`: two runs compared from every input
// the package loads, load errors carried along, and the CLI's three exits.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { AgentReplayError, SessionState, compareRuns, parseLog, sampleLog } from "agent-replay";

const corpus = new URL("../corpus/deepstrike-0.2.77/", import.meta.url).pathname;
const node0 = join(corpus, "workflow.workflow-wf-node0.jsonl");
const node1 = join(corpus, "workflow.workflow-wf-node1.jsonl");
const cli = new URL("../../bin/agent-replay.js", import.meta.url).pathname;
const run = (args, input) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: "utf8" });

/** The sample with its run ending otherwise (line 77, run_terminal). */
const failedSample = () => sampleLog().replace('"reason":"completed"', '"reason":"failed"');

test("compareRuns: a run matches itself, whatever form each side takes", () => {
  const log = sampleLog();
  const state = new SessionState().apply(log);
  const forms = [log, new TextEncoder().encode(log), parseLog(log).events, state];
  for (const b of forms) {
    const c = compareRuns(log, b);
    assert.equal(c.matches, true);
    assert.equal(c.first_divergence, null);
    assert.equal(c.difference_count, 0);
    assert.equal(c.turns.length, 8);
    assert.deepEqual(c.a, c.b);
  }
  assert.equal(state.eventCount, 78, "a state passed in is still usable");
  assert.equal(compareRuns(state, state).matches, true, "one state on both sides");
  state.free();
  assert.throws(
    () => compareRuns(log, state),
    (e) => e instanceof AgentReplayError && e.code === "closed",
  );
});

test("compareRuns: one run on both sides, read once, gives each side its own objects", () => {
  const bytes = new TextEncoder().encode(`${sampleLog().trimEnd()}\nnot json\n`);
  const once = compareRuns(bytes, bytes);
  assert.deepEqual(once, compareRuns(bytes, bytes.slice()), "as two copies of the log");
  assert.equal(once.matches, true);
  assert.equal(once.a.load_errors.length, 1);
  assert.notEqual(once.a.status, once.b.status);
  assert.notEqual(once.a.load_errors, once.b.load_errors);
  const state = new SessionState().apply(bytes);
  assert.deepEqual(compareRuns(state, state), once);
  state.free();
});

test("compareRuns: the first divergence of two real runs, with positions on both sides", () => {
  const c = compareRuns(readFileSync(node0), readFileSync(node1, "utf8"));
  assert.equal(c.matches, false);
  assert.deepEqual(c.first_divergence, {
    aspect: "message",
    life: 1,
    turn: 0,
    call: null,
    a: { position: 1, value: "goal: survey the repository" },
    b: { position: 1, value: "goal: list the risky modules" },
  });
  assert.equal(c.difference_count, 1, "the same steps, the same answer, each its own goal");
  const status = compareRuns(sampleLog(), failedSample()).first_divergence;
  assert.equal(status.aspect, "status");
  assert.deepEqual([status.a.position, status.b.position], [77, 77]);
});

test("compareRuns: load errors of either side are in the result, the rest compared", () => {
  const bad = `${sampleLog().trimEnd()}\n{"kind":"page_in","turn":"x"}\nnot json\n`;
  const c = compareRuns(bad, sampleLog());
  assert.equal(c.matches, true);
  assert.deepEqual(
    c.a.load_errors.map((e) => [e.line, e.code]),
    [
      [79, "invalid_event"],
      [80, "invalid_json"],
    ],
  );
  assert.deepEqual(c.b.load_errors, []);
  const core = '{"kind":"page_in","turn":1,"entry_count":1}\n';
  assert.equal(compareRuns(core, `${core}{"kind":"page_in","turn":"x"}\n`).matches, true);
  assert.throws(
    () => compareRuns(core, `${core}{"kind":"page_in","turn":"x"}\n`, { strict: true }),
    (e) => e instanceof AgentReplayError && e.errors?.[0]?.line === 2,
  );
  assert.throws(
    () => compareRuns(sampleLog(), 42),
    (e) => e instanceof AgentReplayError && e.code === "invalid_input",
  );
});

/** The sample with line `n` (1-based) rewritten by `edit`. */
const sampleWith = (n, edit) =>
  sampleLog()
    .split("\n")
    .map((l, i) => (i + 1 === n ? edit(l) : l))
    .join("\n");

/** A difference's aspect, turn, call, and positions on each side. */
const at = (d) => [d.aspect, [d.life, d.turn], d.call, [d.a.position, d.b.position]];
const values = (d) => [d.a.value, d.b.value];

test("compareRuns: identical runs pair every turn, each side the same", () => {
  const c = compareRuns(sampleLog(), sampleLog());
  assert.ok(c.turns.every((t) => t.a !== null && t.differences.length === 0));
  assert.ok(c.turns.every((t) => JSON.stringify(t.a) === JSON.stringify(t.b)));
  assert.equal(c.turns[1].a.tool_calls, 2);
});

test("compareRuns: a changed argument, compared as the log wrote it", () => {
  const path = '"path":"payments/refund.py"';
  const c = compareRuns(
    sampleLog(),
    sampleWith(10, (l) => l.replace(path, '"path":"x.py"')),
  );
  assert.deepEqual(at(c.first_divergence), ["arguments", [1, 1], 1, [10, 10]]);
  assert.deepEqual(values(c.first_divergence), [`{${path}}`, '{"path":"x.py"}']);
  assert.equal(c.difference_count, 1);
  // The same value written otherwise is another text: not folded away.
  const spaced = sampleWith(10, (l) => l.replace(`{${path}}`, '{ "path": "payments/refund.py" }'));
  const d = compareRuns(sampleLog(), spaced).first_divergence;
  assert.deepEqual(at(d), ["arguments", [1, 1], 1, [10, 10]]);
  assert.deepEqual(values(d), [`{${path}}`, '{ "path": "payments/refund.py" }']);
});

test("compareRuns: raw values that look like the view's own members are cut where the log put them", () => {
  // Raw texts are cut out of the view's text, not parsed: these hold keys
  // the view itself has, brackets inside strings, and whitespace.
  const tricky =
    '{"type":"tool_call","arguments":{"load_errors":[]} , "reason":"]}\\\\", "x": [{"type":"rollback","reason":1}],"processes":[] }';
  const path = '{"path":"payments/refund.py"}';
  const route = '"route":{"turns":[],"transcript":[{"type":"tool_call","arguments":1}]},';
  const named = sampleWith(10, (l) => l.replace('"fs.read"', '"fs.\\"arguments\\":"'))
    .split("\n")
    .map((l, i) =>
      i === 1 ? l.replace('"kind":"run_started",', `"kind":"run_started",${route}`) : l,
    )
    .join("\n");
  const bad = `${named.replace(path, tricky).trimEnd()}\nnot json\n`;
  const c = compareRuns(bad, named);
  assert.deepEqual(at(c.first_divergence), ["arguments", [1, 1], 1, [10, 10]]);
  assert.deepEqual(values(c.first_divergence), [tricky, path]);
  assert.equal(c.difference_count, 1, "the calls after it cut where they are");
  assert.deepEqual(
    c.a.load_errors.map((e) => [e.line, e.code]),
    [[79, "invalid_json"]],
  );
  assert.deepEqual(c.b.load_errors, []);
  assert.equal(compareRuns(bad, bad).matches, true);
});

test("compareRuns: a changed result, and a result that fails on one side only", () => {
  const ttl = (l) => l.replace("ttl=1)\\n    return result", "ttl=60)\\n    return result");
  const c = compareRuns(sampleLog(), sampleWith(12, ttl));
  assert.deepEqual(at(c.first_divergence), ["result", [1, 1], 1, [12, 12]]);
  assert.match(c.first_divergence.b.value, /ttl=60/);
  assert.equal(c.difference_count, 1);
  const failing = sampleWith(12, (l) => l.replace('"is_error":false', '"is_error":true'));
  const d = compareRuns(sampleLog(), failing).first_divergence;
  assert.deepEqual(at(d), ["error", [1, 1], 0, [12, 12]]);
  assert.deepEqual(values(d), [null, "error"]);
});

test("compareRuns: an extra call is on one side only; the calls after it still pair", () => {
  const extra = '{"id":"call-9","name":"fs.grep","arguments":{"q":"ttl"}},';
  const b = sampleWith(10, (l) => l.replace('{"id":"call-2"', `${extra}{"id":"call-2"`));
  const c = compareRuns(sampleLog(), b);
  // Side a has no such call: its position is its next call's (call-2, also at 10).
  assert.deepEqual(at(c.first_divergence), ["call", [1, 1], 1, [10, 10]]);
  assert.deepEqual(values(c.first_divergence), [null, "fs.grep"]);
  assert.equal(c.difference_count, 1);
  assert.equal(c.turns[1].b.tool_calls, 3);
  // A tool the other side does not call later pairs up as a different call.
  const other = sampleWith(10, (l) => l.replaceAll('"name":"fs.read"', '"name":"fs.stat"'));
  const d = compareRuns(sampleLog(), other).first_divergence;
  assert.deepEqual(at(d), ["call", [1, 1], 0, [10, 10]]);
  assert.deepEqual(values(d), ["fs.read", "fs.stat"]);
  // A tool the other side calls a little later: the call before it is extra.
  const later = sampleWith(10, (l) => l.replace('"name":"fs.read"', '"name":"fs.stat"'));
  const e = compareRuns(sampleLog(), later).first_divergence;
  assert.deepEqual(
    [at(e), values(e)],
    [
      ["call", [1, 1], 0, [10, 10]],
      [null, "fs.stat"],
    ],
  );
});

test("compareRuns: a missing turn, set against where the other run stands", () => {
  const lines = sampleLog().split("\n");
  const b = lines.filter((l) => !l.includes('"turn":2,'));
  assert.equal(lines.length - b.length, 7);
  const c = compareRuns(sampleLog(), b.join("\n"));
  // Turn 2 starts at 15 in a; in b, turn 3 starts where a's turn 3 (23) is, 7 lines earlier.
  assert.deepEqual(at(c.first_divergence), ["turn", [1, 2], null, [15, 16]]);
  assert.deepEqual(values(c.first_divergence), ["8 events", null]);
  const turn2 = c.turns.find((t) => t.turn === 2);
  assert.ok(turn2.a !== null && turn2.b === null);
});

test("compareRuns: how the runs ended, suspensions and rollbacks, and tokens", () => {
  const maxTurns = sampleWith(77, (l) => l.replace('"reason":"completed"', '"reason":"max_turns"'));
  let c = compareRuns(sampleLog(), maxTurns);
  assert.deepEqual(at(c.first_divergence), ["status", [1, 7], null, [77, 77]]);
  assert.deepEqual(values(c.first_divergence), [
    "terminal: completed after 7 turns",
    "terminal: max_turns after 7 turns",
  ]);
  assert.equal(c.difference_count, 1);
  // The earliest turn's difference comes first, wherever the run ended.
  const tokens = failedSample().replace('"token_count":412', '"token_count":413');
  c = compareRuns(sampleLog(), tokens);
  assert.equal(c.difference_count, 2);
  assert.deepEqual(at(c.first_divergence), ["tokens", [1, 1], null, [10, 10]]);
  assert.equal(c.first_divergence.b.value, "597 tokens (0 in, 413 out)");
  const reason = '{"kind":"provider_failure","error":"boom \\"x\\""}';
  const rollback = sampleWith(48, (l) => l.replace(/"reason":\{.*\}\}$/, `"reason":${reason}}`));
  c = compareRuns(sampleLog(), rollback);
  assert.deepEqual(at(c.first_divergence), ["status", [1, 5], null, [48, 48]]);
  assert.equal(c.first_divergence.b.value, `rolled back to history 4 (${reason})`);
  const resumed = sampleWith(63, (l) => l.replace('"approved":["call-5"]', '"denied":["call-5"]'));
  assert.deepEqual(values(compareRuns(sampleLog(), resumed).first_divergence), [
    "resumed: 1 approved, 0 denied",
    "resumed: 0 approved, 1 denied",
  ]);
});

test("compareRuns: real runs match themselves; against their beginnings every position is in its run", () => {
  for (const name of ["tools.jsonl", "crash_wake.jsonl", "permissions.jsonl", "long_run.jsonl"]) {
    const log = readFileSync(join(corpus, name), "utf8");
    const c = compareRuns(log, log);
    assert.ok(c.matches && c.turns.length > 1, name);
    const lines = log.trimEnd().split("\n");
    for (let cut = 1; cut < lines.length; cut += 5) {
      const part = compareRuns(log, lines.slice(0, cut).join("\n"));
      assert.equal(part.matches, false, `${name} cut at ${cut}`);
      for (const d of part.turns.flatMap((t) => t.differences)) {
        assert.ok(d.a.position >= 1 && d.a.position <= c.a.event_count, JSON.stringify(d));
        assert.ok(d.b.position <= part.b.event_count, JSON.stringify(d));
      }
    }
  }
});

test("compareRuns: two different real runs diverge at their first tool call", () => {
  const read = (name) => readFileSync(join(corpus, name), "utf8");
  const c = compareRuns(read("tools.jsonl"), read("permissions.jsonl"));
  assert.equal(c.matches, false);
  const turn1 = c.turns.find((t) => t.life === 1 && t.turn === 1);
  assert.ok(turn1.differences.some((d) => d.aspect === "call"));
  const d = c.first_divergence;
  assert.ok(d.a.position > 0 && d.a.position <= c.a.event_count);
  assert.ok(d.b.position > 0 && d.b.position <= c.b.event_count);
});

function files(contents) {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-diff-"));
  return Object.entries(contents).map(([name, text]) => {
    const file = join(dir, name);
    writeFileSync(file, text);
    return file;
  });
}

test("diff: exit 0 when the runs match", () => {
  const r = run(["diff", node0, node0]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^The runs match \(2 turns\)\.$/m);
  assert.match(r.stdout, /^ {2}life 1 turns 0–1: same$/m);
  assert.doesNotMatch(r.stdout, /First divergence/);
});

test("diff: exit 1 with the first divergence, the event of each side and the turns", () => {
  const r = run(["diff", node0, node1]);
  assert.equal(r.status, 1, r.stderr);
  const lines = r.stdout.split("\n");
  const at = lines.indexOf("First divergence: life 1 turn 0 · message");
  assert.ok(at > 0, r.stdout);
  assert.match(lines[at + 1], /^ {2}A .*wf-node0\.jsonl #1: goal: survey the repository$/);
  assert.match(lines[at + 2], /^ {6}\{"kind":"run_started","run_id":"467c0714-/);
  assert.match(lines[at + 3], /^ {2}B .*wf-node1\.jsonl #1: goal: list the risky modules$/);
  assert.match(lines[at + 4], /^ {6}\{"kind":"run_started","run_id":"ac189004-/);
  assert.match(r.stdout, /^ {2}life 1 turn 0: message {2}A #1–7 \(7 events, 0 calls\)/m);
  assert.match(r.stdout, /^ {2}life 1 turn 1: same$/m);
  assert.match(r.stdout, /^1 differences in 1 of 2 turns\.$/m);
});

test("diff: a log with bad lines is compared, its errors on stderr", () => {
  const [bad, failed] = files({
    "bad.jsonl": `${sampleLog().trimEnd()}\n{"kind":"page_in","turn":"x"}\n`,
    "failed.jsonl": failedSample(),
  });
  const same = run(["diff", "--sample", bad]);
  assert.equal(same.status, 0, same.stderr);
  assert.match(same.stderr, /bad\.jsonl:79:\d+: invalid_event: field `turn`/);
  const r = run(["diff", bad, failed]);
  assert.equal(r.status, 1);
  assert.match(r.stdout, /^First divergence: life 1 turn 7 · status$/m);
  assert.match(r.stdout, /^ {2}B .*failed\.jsonl #77: terminal: failed after 7 turns$/m);
});

test("diff: exit 2 when an input is not a log, with positioned errors", () => {
  const [empty, garbage] = files({ "empty.jsonl": "", "garbage.jsonl": "not a log\n[1,\n" });
  const missing = run(["diff", node0, "/no/such/file.jsonl"]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read \/no\/such\/file\.jsonl: ENOENT/);
  const none = run(["diff", empty, node0]);
  assert.equal(none.status, 2);
  assert.match(none.stderr, /empty\.jsonl: not a log: no events/);
  const bad = run(["diff", node0, garbage]);
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^.*garbage\.jsonl:1:\d+: invalid_json/m);
  assert.match(bad.stderr, /garbage\.jsonl: not a log: no events/);
  const strict = run(["diff", "-", node0, "--strict"], '{"kind":"warp"}\n');
  assert.equal(strict.status, 2);
  assert.match(strict.stderr, /^stdin:1:\d+: unknown_kind/m);
  assert.equal(run(["diff", node0]).status, 2, "usage");
});
