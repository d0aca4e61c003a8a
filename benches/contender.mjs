// Runs one benchmark contender on a log file in this (fresh) process and
// prints {ms: [...], peakRssMb, wasmMemoryMb?} as JSON. Usage:
//   node benches/contender.mjs <wasm-snapshot|wasm-snapshot-all|wasm-view|wasm-index|js-fold> FILE REPS
import { readFileSync } from "node:fs";
import { rebuildOsSnapshot, SessionIndex, SessionState } from "agent-replay";
import { initSync } from "../pkg/agent_replay.js";
import { jsRebuildOsSnapshot } from "./js-fold.mjs";

const [which, file, repsArg] = process.argv.slice(2);
const readMs = [];
const stepMs = [];
let built;
const bytes = readFileSync(file);
const run = {
  "wasm-snapshot": () => rebuildOsSnapshot(bytes),
  "wasm-snapshot-all": () => rebuildOsSnapshot(bytes, { validate: "all" }),
  // Building the view in WASM; reading it out (view()) is timed apart.
  "wasm-view": () => {
    built = new SessionState();
    built.apply(bytes);
  },
  // The paged index: a search of the whole log and a step back in time
  // are timed apart (readMs: search, then stateAt the middle).
  "wasm-index": () => {
    built = new SessionIndex();
    built.apply(bytes);
  },
  "js-fold": () => jsRebuildOsSnapshot(bytes),
}[which];
// The first run includes compiling and tiering up the WebAssembly (V8
// compiles lazily): reported apart as `firstMs`, not in the medians.
const ms = [];
let result;
for (let i = 0; i <= Number(repsArg ?? 3); i++) {
  const t0 = performance.now();
  result = run();
  ms.push(performance.now() - t0);
  if (built) {
    const t1 = performance.now();
    if (which === "wasm-view") built.view();
    else {
      built.search("no such text in any event", { limit: 1 });
      readMs.push(performance.now() - t1);
      const t2 = performance.now();
      built.stateAt(Math.floor(built.eventCount / 2) - 1);
      stepMs.push(performance.now() - t2);
    }
    if (which === "wasm-view") readMs.push(performance.now() - t1);
    built.free();
    built = undefined;
  }
}
const firstMs = ms.shift();
const out = { which, ms, firstMs, peakRssMb: process.resourceUsage().maxRSS / 1024 };
if (readMs.length) out.readMs = readMs.slice(1);
if (stepMs.length) out.stepMs = stepMs.slice(1);
if (which.startsWith("wasm"))
  out.wasmMemoryMb = initSync(undefined).memory.buffer.byteLength / 2 ** 20;
if (result) out.snapshot = result;
console.log(JSON.stringify(out));
