// The snapshot benchmark (issue 2): on a generated JSON Lines log of
// BENCH_MB megabytes (default 100), side by side in one run, each contender
// in a fresh process: rebuildOsSnapshot from bytes in WASM, the idiomatic
// pure-JS fold, the full SessionState view in WASM, and the native Rust
// fold. Prints a markdown table for benches/RESULTS.md.
//   npm run bench          (BENCH_MB=20 npm run bench for a quick look)
import { execFileSync } from "node:child_process";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { cpus } from "node:os";
import { isDeepStrictEqual } from "node:util";
import { generateLog } from "agent-replay";

const root = new URL("..", import.meta.url).pathname;
const mb = Number(process.env.BENCH_MB ?? 100);
const reps = Number(process.env.BENCH_REPS ?? 3);
mkdirSync(`${root}bench-data`, { recursive: true });
const file = `${root}bench-data/generated-${mb}mb.jsonl`;
if (!existsSync(file)) writeFileSync(file, generateLog({ seed: 2026, bytes: mb * 1e6 }));
const size = readFileSync(file).length;
const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).length;

const node = (which) => JSON.parse(execFileSync(process.execPath, [`${root}benches/contender.mjs`, which, file, String(reps)], { encoding: "utf8", maxBuffer: 1 << 28 }));
execFileSync("cargo", ["bench", "--bench", "native_snapshot", "--no-run"], { cwd: root, stdio: "ignore" });
const native = () => JSON.parse(execFileSync("cargo", ["bench", "-q", "--bench", "native_snapshot", "--", file, String(reps)], { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 }));

// Interleave rounds so drift on a shared machine hits every contender alike.
const results = {};
for (let round = 0; round < 2; round++) {
  for (const [name, f] of [["wasm-snapshot", () => node("wasm-snapshot")], ["js-fold", () => node("js-fold")], ["wasm-view", () => node("wasm-view")], ["native", native]]) {
    const r = f();
    const prev = results[name];
    results[name] = prev ? { ...r, ms: [...prev.ms, ...r.ms], peakRssMb: Math.max(prev.peakRssMb, r.peakRssMb) } : r;
  }
}
for (const name of ["js-fold", "native"]) {
  if (!isDeepStrictEqual(results[name].snapshot, results["wasm-snapshot"].snapshot)) throw new Error(`${name} snapshot differs from WASM`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const t = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v.ms)]));
const wasm = readFileSync(`${root}pkg/agent_replay_bg.wasm`);
const row = (name, label) => `| ${label} | ${t[name].toFixed(0)} | ${(size / 1e6 / (t[name] / 1000)).toFixed(0)} | ${(t["js-fold"] / t[name]).toFixed(2)}× | ${results[name].peakRssMb.toFixed(0)}${results[name].wasmMemoryMb ? ` (wasm memory ${results[name].wasmMemoryMb.toFixed(0)})` : ""} |`;
console.log(`Log: ${(size / 1e6).toFixed(1)} MB, ${lines.toLocaleString("en-US")} events (generateLog seed 2026). ${reps * 2} runs each, median. ${cpus()[0].model}, Node ${process.version}.

| contender | ms | MB/s | speed vs pure JS | peak RSS MB |
|---|---|---|---|---|
${row("wasm-snapshot", "`rebuildOsSnapshot(bytes)` WASM")}
${row("js-fold", "pure JS: `JSON.parse` per line + fold")}
${row("wasm-view", "`new SessionState().apply(bytes).view()` WASM")}
${row("native", "native Rust fold (release)")}

WASM / native speed: ${(t.native / t["wasm-snapshot"]).toFixed(2)}×. All three snapshots are identical.
\`.wasm\`: ${wasm.length.toLocaleString("en-US")} bytes raw, ${gzipSync(wasm, { level: 9 }).length.toLocaleString("en-US")} bytes gzipped.`);
