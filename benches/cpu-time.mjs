// CPU time, not wall time, of the three ways to fold a log on a shared
// machine, where other work stretches wall times: per run, the user and
// system time of this process for `rebuildOsSnapshot(bytes)`,
// `new SessionIndex().apply(bytes)` and the same index written in 256 KiB
// chunks (as the viewer's worker does). Prints `{name: [median, min]}` in
// ms. TREE is a checkout whose js/ and pkg/ are measured, so a base and a
// branch can alternate in fresh processes:
//   node benches/cpu-time.mjs . bench-data/generated-100mb.jsonl 5
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [tree, file, repsArg] = process.argv.slice(2);
if (!tree || !file) throw new Error("usage: node benches/cpu-time.mjs TREE FILE [REPS]");
const api = await import(pathToFileURL(resolve(tree, "js/node.js")).href);
const bytes = readFileSync(file);
const cpu = (run) => {
  const before = process.cpuUsage();
  const made = run();
  const used = process.cpuUsage(before);
  made?.free?.(); // an index is freed untimed, as benches/contender.mjs does
  return (used.user + used.system) / 1000;
};
const indexed = (fill) => () => {
  const index = new api.SessionIndex();
  fill(index);
  return index;
};
const runs = {
  snapshot: () => {
    api.rebuildOsSnapshot(bytes);
  },
  apply: indexed((index) => index.apply(bytes)),
  write: indexed((index) => {
    for (let i = 0; i < bytes.length; i += 256 << 10)
      index.write(bytes.subarray(i, Math.min(bytes.length, i + (256 << 10))));
    index.end();
  }),
};
const ms = Object.fromEntries(Object.keys(runs).map((name) => [name, []]));
// The first round compiles and tiers up the WebAssembly: not counted.
for (let round = 0; round <= Number(repsArg ?? 5); round++)
  for (const [name, run] of Object.entries(runs)) {
    const t = cpu(run);
    if (round > 0) ms[name].push(t);
  }
const median = (xs) => [...xs].sort((a, b) => a - b)[xs.length >> 1];
const out = Object.entries(ms).map(([k, v]) => [k, [median(v), Math.min(...v)].map(Math.round)]);
console.log(JSON.stringify(Object.fromEntries(out)));
