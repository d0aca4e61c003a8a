// Chunked loading of one long first line (defect 10): a log whose first
// event is a BENCH_LINE_MB megabyte line (default 32), written to
// SessionState in chunks of each size, against the same log applied whole.
// The time should not grow as the chunks shrink: the loader must look at each
// byte of a pending line once, not once per chunk.
//   node scripts/build.mjs && node benches/chunking.mjs
import { SessionState } from "../js/node.js";

const lineMb = Number(process.env.BENCH_LINE_MB ?? 32);
const reps = Number(process.env.BENCH_REPS ?? 3);
const filler = "x".repeat(lineMb * 2 ** 20);
const first = `{"kind":"checkpoint_taken","turn":1,"history_len":4,"note":"${filler}"}`;
const bytes = new TextEncoder().encode(
  `${first}\n{"kind":"checkpoint_taken","turn":1,"history_len":4}\n`,
);

function timed(load) {
  const ms = [];
  for (let i = 0; i < reps; i++) {
    const t0 = performance.now();
    load();
    ms.push(performance.now() - t0);
  }
  return ms.sort((a, b) => a - b)[Math.floor(reps / 2)];
}

function chunked(size) {
  const state = new SessionState();
  for (let at = 0; at < bytes.length; at += size) state.write(bytes.subarray(at, at + size));
  const report = state.end();
  if (report.events !== 2 || report.errors.length) throw new Error(JSON.stringify(report));
}

console.log(`| ${lineMb} MB first line | median ms of ${reps} |`);
console.log("|---|---|");
console.log(`| whole (\`apply\`) | ${timed(() => new SessionState().apply(bytes)).toFixed(0)} |`);
for (const kb of [1024, 256, 64]) {
  console.log(`| ${kb} KB chunks (\`write\`) | ${timed(() => chunked(kb * 1024)).toFixed(0)} |`);
}
