// The viewer's shape (issue 27): small files in www/ and js/viewer/, and
// the viewer worker's two backends (the full view, the paged index) behind
// one interface: only the backend modules name either, and only
// backend.js picks one.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, readdirSync } from "node:fs";

const root = new URL("../..", import.meta.url);
const MAX_LINES = 420;
const DIRS = ["www", "js/viewer"];
/** The backend modules: the interface and its choice (backend.js), the
 * two backends and what they share, and the paged index's reading
 * helpers (js/viewer/paged.js, backend-index.js's). */
const isBackend = (file) => /^www\/backend[\w-]*\.js$/.test(file) || file === "js/viewer/paged.js";
/** What names a backend or asks which one is open, in code. */
const BACKEND_KIND =
  /\b(SessionIndex|IndexBackend|ViewBackend|pagedFor|indexedSeries)\b|\.paged\b|\bpaged\s*:|\bif \(index\b|\bindex\s*\?|\bindex\.\w+\(/;

const files = DIRS.flatMap((dir) =>
  readdirSync(new URL(`${dir}/`, root))
    .filter((name) => name.endsWith(".js"))
    .map((name) => `${dir}/${name}`),
);
const source = (file) => readFileSync(new URL(file, root), "utf8");
/** The code of a file without its comments. */
const code = (file) =>
  source(file)
    .replace(/\/\*[\s\S]*?\*\//g, "")
    .replace(/(^|\s)\/\/.*$/gm, "$1");

test(`no file in www/ or js/viewer/ is over ${MAX_LINES} lines`, () => {
  assert.ok(files.includes("www/worker.js") && files.includes("js/viewer/series.js"));
  const long = files
    .map((file) => [file, source(file).split("\n").length - 1])
    .filter(([, lines]) => lines > MAX_LINES);
  assert.deepEqual(long, [], `files over ${MAX_LINES} lines`);
});

test("only the backend modules name a backend or ask which one is open", () => {
  // The page passes the address's `?paged=` on as it stands (sources.js):
  // the user's choice, which backend.js reads; the page never asks it back.
  const naming = files
    .filter((file) => !isBackend(file))
    .flatMap((file) => {
      const match = code(file).match(BACKEND_KIND);
      return match ? [`${file}: ${match[0]}`] : [];
    });
  assert.deepEqual(naming, []);
  // The rule catches what it is for.
  assert.match("if (index) return index.event(p);", BACKEND_KIND);
  assert.match("const loaded = msg.paged;", BACKEND_KIND);
});

test("only backend.js imports the backends; only the paged one reads paged.js", () => {
  const importers = (module) =>
    files.filter((file) => code(file).includes(module)).map((file) => file.split("/").pop());
  assert.deepEqual(importers("./backend-view.js"), ["backend.js"]);
  assert.deepEqual(importers("./backend-index.js"), ["backend.js"]);
  assert.deepEqual(importers("/js/viewer/paged.js"), ["backend-index.js"]);
  // The rest of the worker reaches them through backend.js.
  for (const file of files.filter((f) => /^www\/worker[\w-]*\.js$/.test(f)))
    assert.doesNotMatch(code(file), /from "\.\/backend-(view|index|shared)\.js"/, file);
});
