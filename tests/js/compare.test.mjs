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
