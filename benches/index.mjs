// The paged index (SessionIndex) on one large log, in Node: indexing it
// in 256 KiB writes as the viewer's worker does, the memory it then holds,
// 20 random steps back in time (`stateAt` with a tail, as the viewer asks),
// and a full-text search and a filter over every event.
// Usage: node benches/index.mjs FILE   (e.g. bench-data/viewer-log-1gb.jsonl,
// which `VIEWER_EVENTS=1gb npm run bench:viewer` generates)
import { openSync, readSync, statSync } from "node:fs";
import { SessionIndex, memoryUsage } from "agent-replay";

const file = process.argv[2];
if (!file) throw new Error("usage: node benches/index.mjs FILE");
const fd = openSync(file, "r");
const buffer = new Uint8Array(4 << 20);
const index = new SessionIndex();
const t0 = performance.now();
// As the viewer's worker does: the log's size is known.
index.reserve(statSync(file).size);
for (let n = readSync(fd, buffer); n > 0; n = readSync(fd, buffer))
  for (let i = 0; i < n; i += 256 << 10)
    index.write(buffer.subarray(i, Math.min(n, i + (256 << 10))));
index.end();
const indexMs = performance.now() - t0;

let seed = 7;
const random = () => {
  seed = (seed * 1103515245 + 12345) % 2 ** 31;
  return seed / 2 ** 31;
};
const steps = [];
for (let k = 0; k < 20; k++) {
  const t = performance.now();
  index.stateAt(Math.floor(random() * index.eventCount), { tail: 15 });
  steps.push(performance.now() - t);
}
steps.sort((a, b) => a - b);
const timed = (f) => {
  const t = performance.now();
  const out = f();
  return [performance.now() - t, out];
};
const [searchMs, found] = timed(() => index.search("tool_denied", { limit: 100 }));
const [filterMs, kept] = timed(() => index.filter({ query: "TOOL_DENIED" }));
const mb = statSync(file).size / 1e6;
const memory = memoryUsage();
const held = index.memory();
console.log(`| log MB | events | index ms | MB/s | wasm memory / allocated MB (× log) | checkpoints (spacing) | stateAt median / worst ms | search, first 100 ms | filter, every event ms |
|---:|---:|---:|---:|---:|---:|---:|---:|---:|
| ${mb.toFixed(0)} | ${index.eventCount.toLocaleString("en-US")} | ${indexMs.toFixed(0)} | ${(mb / (indexMs / 1000)).toFixed(0)} | ${(memory.wasm_memory_bytes / 1e6).toFixed(0)} / ${(memory.allocated_bytes / 1e6).toFixed(0)} (${(memory.wasm_memory_bytes / 1e6 / mb).toFixed(2)} / ${(memory.allocated_bytes / 1e6 / mb).toFixed(2)}) | ${held.checkpoints} (${held.checkpoint_spacing}) | ${steps[10].toFixed(1)} / ${steps[19].toFixed(1)} | ${searchMs.toFixed(0)} (${found.positions.length} found) | ${filterMs.toFixed(0)} (${kept.length} kept) |`);
