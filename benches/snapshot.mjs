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

const root = new URL("..", import.meta.url).pathname;
const mb = Number(process.env.BENCH_MB ?? 100);
const reps = Number(process.env.BENCH_REPS ?? 3);
mkdirSync(`${root}bench-data`, { recursive: true });
const file = `${root}bench-data/generated-${mb}mb.jsonl`;
if (!existsSync(file)) {
  writeFileSync(
    file,
    execFileSync(
      "cargo",
      ["run", "-q", "--release", "--example", "generate", "--", "2026", String(mb * 1e6)],
      { cwd: root, maxBuffer: 2 ** 31 - 1 },
    ),
  );
}
const size = readFileSync(file).length;
const lines = readFileSync(file, "utf8").split("\n").filter(Boolean).length;

const node = (which) =>
  JSON.parse(
    execFileSync(process.execPath, [`${root}benches/contender.mjs`, which, file, String(reps)], {
      encoding: "utf8",
      maxBuffer: 1 << 28,
    }),
  );
execFileSync("cargo", ["bench", "--bench", "native_snapshot", "--no-run"], {
  cwd: root,
  stdio: "ignore",
});
const native = (...mode) =>
  JSON.parse(
    execFileSync(
      "cargo",
      ["bench", "-q", "--bench", "native_snapshot", "--", file, String(reps), ...mode],
      { cwd: root, encoding: "utf8", maxBuffer: 1 << 28 },
    ),
  );

// Interleave rounds so drift on a shared machine hits every contender alike.
const results = {};
for (let round = 0; round < 2; round++) {
  for (const [name, f] of [
    ["wasm-snapshot", () => node("wasm-snapshot")],
    ["js-fold", () => node("js-fold")],
    ["wasm-snapshot-all", () => node("wasm-snapshot-all")],
    ["wasm-view", () => node("wasm-view")],
    ["wasm-index", () => node("wasm-index")],
    ["native", () => native()],
    ["native-all", () => native("all")],
  ]) {
    const r = f();
    const prev = results[name];
    results[name] = prev
      ? {
          ...r,
          ms: [...prev.ms, ...r.ms],
          readMs: [...(prev.readMs ?? []), ...(r.readMs ?? [])],
          stepMs: [...(prev.stepMs ?? []), ...(r.stepMs ?? [])],
          firsts: [...prev.firsts, r.firstMs],
          peakRssMb: Math.max(prev.peakRssMb, r.peakRssMb),
        }
      : { ...r, firsts: [r.firstMs] };
  }
}
for (const name of ["js-fold", "native", "native-all", "wasm-snapshot-all"]) {
  if (!isDeepStrictEqual(results[name].snapshot, results["wasm-snapshot"].snapshot))
    throw new Error(`${name} snapshot differs from WASM`);
}
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const t = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, median(v.ms)]));
const wasm = readFileSync(`${root}pkg/agent_replay_bg.wasm`);
const first = (name) =>
  results[name].firsts[0] === undefined ? "–" : median(results[name].firsts).toFixed(0);
const row = (name, label) =>
  `| ${label} | ${t[name].toFixed(0)} | ${first(name)} | ${(size / 1e6 / (t[name] / 1000)).toFixed(0)} | ${(t["js-fold"] / t[name]).toFixed(2)}× | ${results[name].peakRssMb.toFixed(0)}${results[name].wasmMemoryMb ? ` (wasm memory ${results[name].wasmMemoryMb.toFixed(0)})` : ""} |`;
console.log(`Log: ${(size / 1e6).toFixed(1)} MB, ${lines.toLocaleString("en-US")} events (examples/generate.rs, seed 2026). ${reps * 2} runs each, median. ${cpus()[0].model}, Node ${process.version}.

| contender | warm ms (median) | first run ms | MB/s | speed vs pure JS | peak RSS MB |
|---|---|---|---|---|---|
${row("wasm-snapshot", "`rebuildOsSnapshot(bytes)` WASM")}
${row("js-fold", "pure JS: `JSON.parse` per line + the same fold")}
${row("native", "native Rust, same function (release)")}
${row("wasm-snapshot-all", '`rebuildOsSnapshot(bytes, {validate: "all"})` WASM')}
${row("native-all", "native Rust, every event checked field by field")}
${row("wasm-view", "`new SessionState().apply(bytes)` WASM: the full view built")}
${row("wasm-index", "`new SessionIndex().apply(bytes)` WASM: the paged index built")}

- WASM / native: ${(t.native / t["wasm-snapshot"]).toFixed(2)}× (every event checked field by field: ${(t["native-all"] / t["wasm-snapshot-all"]).toFixed(2)}×).
- Reading the whole view out to JS (\`view()\`: serialise, decode, \`JSON.parse\`): ${median(results["wasm-view"].readMs).toFixed(0)} ms more.
- The paged index: ${(t["wasm-index"] / t["wasm-snapshot"]).toFixed(2)}× the time of \`rebuildOsSnapshot\`; a search of every event's text ${median(results["wasm-index"].readMs).toFixed(0)} ms; \`stateAt\` the middle of the log ${median(results["wasm-index"].stepMs).toFixed(1)} ms.
- "First run" includes V8 compiling and tiering up the WebAssembly (done once per process).
- Every snapshot above is identical (checked).
\`.wasm\`: ${wasm.length.toLocaleString("en-US")} bytes raw, ${gzipSync(wasm, { level: 9 }).length.toLocaleString("en-US")} bytes gzipped.`);
