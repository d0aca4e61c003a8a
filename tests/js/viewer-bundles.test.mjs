// What the viewer's bundles (scripts/viewer-bundles.mjs) hold, built here
// into a directory of their own: the page's start-up code carries none of
// the package's API (its worker folds the log; the page only renders), and
// every chunk a bundle loads later is one the build checks and the package
// ships. And the page's own modules stay split by concern, each small.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { VIEWER_CHUNKS, buildViewerBundles } from "../../scripts/viewer-bundles.mjs";

const root = new URL("../..", import.meta.url).pathname;

/** What only the package's API holds: the wasm-bindgen glue, and where
 * its classes are defined (the page may name them, as the element's
 * `setLog` does). */
const API_MARKERS = [
  /__wbindgen/,
  /\b(?:class|var|let|const) (?:SessionState|SessionIndex|ReplayStore)\b/,
];

const staticImports = (code) =>
  [...code.matchAll(/^import\s+(?:[^"';]*?\s+from\s+)?"\.\/([^"]+)";?$/gm)].map((m) => m[1]);
const dynamicImports = (code) => [...code.matchAll(/\bimport\("\.\/([^"]+)"\)/g)].map((m) => m[1]);

/** The files a bundle in `dir` runs at once: itself and what it imports statically. */
function startGraph(dir, file, seen = new Set()) {
  if (seen.has(file)) return seen;
  seen.add(file);
  for (const next of staticImports(readFileSync(join(dir, file), "utf8")))
    startGraph(dir, next, seen);
  return seen;
}

test("the page's bundle starts without the package's API; its later chunks ship", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-bundles-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  await buildViewerBundles(root, dir);

  const read = (file) => readFileSync(join(dir, file), "utf8");
  // The markers are the API's: the worker's bundle, which folds, holds them.
  const worker = read("viewer-worker.js");
  for (const marker of API_MARKERS) assert.match(worker, marker);

  const start = [...startGraph(dir, "viewer-page.js")];
  for (const file of start)
    for (const marker of API_MARKERS)
      assert.doesNotMatch(read(file), marker, `${file} (the page's start) holds ${marker}`);

  // What the page imports later (uPlot; the API, only for the element's
  // setLog, which the page never calls) is a chunk the build knows and the
  // package lists.
  const files = JSON.parse(readFileSync(join(root, "package.json"), "utf8")).files;
  const later = start.flatMap((file) => dynamicImports(read(file)));
  assert.ok(later.length > 0, "the page imports uPlot later");
  for (const chunk of later) {
    assert.ok(VIEWER_CHUNKS.includes(chunk), `${chunk} in VIEWER_CHUNKS`);
    assert.ok(files.includes(`pkg/${chunk}`), `pkg/${chunk} in package.json's files`);
  }
});

/** Lines a module of the page may hold: more, and it holds more than one concern. */
const MODULE_LINES = 400;

test("the page's own modules (www/app.js and what it imports from www/) are each small", () => {
  const seen = new Set();
  const visit = (file) => {
    if (seen.has(file)) return;
    seen.add(file);
    for (const next of staticImports(readFileSync(join(root, "www", file), "utf8"))) visit(next);
  };
  visit("app.js");
  assert.ok(seen.size > 10, `app.js imports its parts: ${[...seen]}`);
  for (const file of seen) {
    const lines = readFileSync(join(root, "www", file), "utf8").split("\n").length;
    assert.ok(lines <= MODULE_LINES, `www/${file}: ${lines} lines`);
  }
});
