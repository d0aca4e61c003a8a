// compareRuns on two generated logs of 100,000 events each (seeds 7 and 8,
// the generator of src/generate.rs, as benches/viewer.mjs makes them): the
// whole call from bytes (both folds and the comparison), a run against
// itself, the two folds alone beside them, the comparison alone of two
// folded SessionStates, and `agent-replay diff` end to end. COMPARE_EVENTS sets the size,
// COMPARE_REPS the repetitions (the median is reported).
// Usage: npm run bench:compare
import { execFileSync, spawnSync } from "node:child_process";
import { loadavg } from "node:os";
import { closeSync, existsSync, mkdirSync, openSync, readFileSync, renameSync } from "node:fs";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { SessionState, compareRuns } from "agent-replay";

const root = new URL("..", import.meta.url).pathname;
const dir = join(root, "bench-data");
const events = Number(process.env.COMPARE_EVENTS ?? 100_000);
const reps = Number(process.env.COMPARE_REPS ?? 3);

/** The first `n` events of a generated log for `seed`, kept in bench-data/. */
function generated(seed, n) {
  const path = join(dir, `compare-log-${seed}-${n}.jsonl`);
  if (!existsSync(path)) {
    mkdirSync(dir, { recursive: true });
    const partial = `${path}.partial`;
    const out = openSync(partial, "w");
    try {
      const args = ["run", "-q", "--release", "--example", "generate", "--", String(seed)];
      execFileSync("cargo", [...args, String(n * 700)], {
        cwd: root,
        stdio: ["ignore", out, "inherit"],
      });
    } finally {
      closeSync(out);
    }
    const text = readFileSync(partial);
    let end = 0;
    for (let lines = 0; lines < n; lines++) {
      end = text.indexOf(10, end) + 1;
      if (end === 0) throw new Error(`seed ${seed}: fewer than ${n} events generated`);
    }
    writeFileSync(partial, text.subarray(0, end));
    renameSync(partial, path);
  }
  return path;
}

function median(f) {
  const times = [];
  let out;
  for (let i = 0; i < reps; i++) {
    const t = performance.now();
    out = f();
    times.push(performance.now() - t);
  }
  times.sort((x, y) => x - y);
  return [times[Math.floor(times.length / 2)], out];
}

const [pathA, pathB] = [generated(7, events), generated(8, events)];
const [a, b] = [readFileSync(pathA), readFileSync(pathB)];
const [wholeMs, diverging] = median(() => compareRuns(a, b));
const [selfMs, itself] = median(() => compareRuns(a, a));
// The reference beside it: folding both logs alone (what compareRuns does
// first), measured in the same run since the machine is shared.
let states = [];
const [foldMs] = median(() => {
  for (const state of states) state.free();
  states = [new SessionState().apply(a), new SessionState().apply(b)];
});
const [aloneMs] = median(() => compareRuns(states[0], states[1]));
const cli = join(root, "bin/agent-replay.js");
const [cliMs, run] = median(() =>
  spawnSync(process.execPath, [cli, "diff", pathA, pathB], {
    encoding: "utf8",
    stdio: ["ignore", "ignore", "pipe"],
  }),
);
if (run.status !== 1) throw new Error(`diff exited ${run.status}: ${run.stderr}`);
if (!itself.matches || diverging.matches) throw new Error("a run must match itself only");
const mb = (a.length + b.length) / 2 / 1e6;
console.log(`| events per log | MB per log | compareRuns(bytes, bytes) ms | a run with itself ms | both folds alone ms | compareRuns(state, state) ms | agent-replay diff ms | turns | differences | load average |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| ${events.toLocaleString("en-US")} | ${mb.toFixed(1)} | ${wholeMs.toFixed(0)} | ${selfMs.toFixed(0)} | ${foldMs.toFixed(0)} | ${aloneMs.toFixed(0)} | ${cliMs.toFixed(0)} | ${diverging.turns.length.toLocaleString("en-US")} | ${diverging.difference_count.toLocaleString("en-US")} | ${loadavg()[0].toFixed(1)} |`);
