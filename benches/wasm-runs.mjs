// Runs `rebuildOsSnapshot`, `SessionIndex.apply` or the index written in
// 256 KiB chunks (`write`, as benches/index.mjs and the viewer's worker
// write it) N times on one log with TREE's js/ and pkg/, and prints
// nothing: for counting the WebAssembly's instructions under valgrind,
// which a shared machine does not disturb.
// The per-run count is the difference of two run counts over their
// difference (it cancels start-up and compilation), e.g.:
//   valgrind --tool=cachegrind --cache-sim=no --cachegrind-out-file=/dev/null \
//     node --single-threaded benches/wasm-runs.mjs . FILE snapshot 20
// and the same with 4 runs: (I refs of 20 - I refs of 4) / 16.
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";

const [tree, file, which, runs] = process.argv.slice(2);
if (!tree || !file || !["snapshot", "index", "write"].includes(which))
  throw new Error("usage: node benches/wasm-runs.mjs TREE FILE snapshot|index|write RUNS");
const api = await import(pathToFileURL(resolve(tree, "js/node.js")).href);
const bytes = readFileSync(file);
for (let i = 0; i < Number(runs ?? 1); i++) {
  if (which === "snapshot") api.rebuildOsSnapshot(bytes);
  else {
    const index = new api.SessionIndex();
    if (which === "index") index.apply(bytes);
    else {
      for (let at = 0; at < bytes.length; at += 256 << 10)
        index.write(bytes.subarray(at, Math.min(bytes.length, at + (256 << 10))));
      index.end();
    }
    index.free();
  }
}
