// File times the build compares, apart from any one build step: the .wasm
// (build.mjs) and the viewer's bundles (viewer-bundles.mjs) are each built
// again only when a source is newer than they are.
import { readdirSync, statSync } from "node:fs";
import { join } from "node:path";

/** The latest modification time of a file under `dir`. */
export function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}
