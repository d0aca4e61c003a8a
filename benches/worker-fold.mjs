// Folds a log as the viewer's worker does (www/worker-load.js's 256 KiB
// writes, www/backend-view.js's checkpoint every 500 events), without
// Chromium, and prints how it ends: loaded, or the error with how far it
// got and the memory. Then frees everything and folds a new state, to
// show the instance is still usable.
// Run: `node benches/worker-fold.mjs LOG [MEMORY_LIMIT_BYTES]`.
import { openSync, readSync } from "node:fs";
import { SessionState, memoryUsage, setMemoryLimit } from "agent-replay";

const [path, limit] = process.argv.slice(2);
if (!path) throw new Error("usage: node benches/worker-fold.mjs LOG [MEMORY_LIMIT_BYTES]");
if (limit) setMemoryLimit(Number(limit));
const CHUNK = 256 * 1024;
const CHECKPOINT_EVERY = 500;

const state = new SessionState();
const checkpoints = [];
const fd = openSync(path, "r");
const chunk = Buffer.allocUnsafe(CHUNK);
let offset = 0;
const started = performance.now();
const where = () =>
  `${(offset / 1e6).toFixed(1)} MB read, ${checkpoints.length} checkpoints, ` +
  `${((performance.now() - started) / 1000).toFixed(1)} s`;
try {
  for (let read = readSync(fd, chunk, 0, CHUNK, 0); read > 0; ) {
    offset += read;
    state.write(chunk.subarray(0, read));
    if (state.eventCount - checkpoints.length * CHECKPOINT_EVERY >= CHECKPOINT_EVERY)
      checkpoints.push(state.checkpoint());
    read = readSync(fd, chunk, 0, CHUNK, offset);
  }
  state.end();
  console.log(`loaded ${state.eventCount} events: ${where()}`, memoryUsage());
} catch (e) {
  console.log(`${e.name} ${e.code}: ${e.message}`);
  console.log(`at ${where()}`, memoryUsage());
}
for (const c of checkpoints) c.free();
state.free();
const fresh = new SessionState();
fresh.apply('{"kind":"page_out","turn":1}');
console.log("then a new state folds:", fresh.eventCount === 1, memoryUsage());
