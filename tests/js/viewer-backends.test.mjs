// The viewer worker's two backends (www/backend-view.js, the full view;
// www/backend-index.js, the paged index) with node, through the interface
// the worker uses (www/backend.js's `Backend`): the same log gives the same
// answers from either. The backends import the package by the URLs the
// worker is served (`/agent-replay/js/…`); a resolve hook maps them to the
// files, `web.js` to the node entry.
import { test } from "node:test";
import assert from "node:assert/strict";
import { register } from "node:module";
import { sampleLog } from "agent-replay";
import { corpus } from "./viewer-fixtures.mjs";

const js = new URL("../../js/", import.meta.url).href;
const hook = `
export async function resolve(specifier, context, next) {
  if (!specifier.startsWith("/agent-replay/js/")) return next(specifier, context);
  const path = specifier.slice("/agent-replay/js/".length);
  return next(new URL(path === "web.js" ? "node.js" : path, ${JSON.stringify(js)}).href, context);
}`;
register(`data:text/javascript,${encodeURIComponent(hook)}`);
const { backendFor } = await import("../../www/backend.js");

/** The worker's slices (worker-load.js's CHUNK), smaller: several per log. */
const SLICE = 64 * 1024;

/** `log` loaded into the backend `paged` picks ("1": the paged index, "0":
 * the full view), as worker-load.js loads it: `{backend, loaded}`. */
function load(log, paged) {
  const bytes = typeof log === "string" ? new TextEncoder().encode(log) : log;
  const backend = backendFor({ query: `?paged=${paged}` }, bytes.length);
  for (let i = 0; i < bytes.length; i += SLICE) backend.write(bytes.subarray(i, i + SLICE));
  return { backend, loaded: backend.end() };
}

const LOGS = {
  sample: () => sampleLog(),
  workflow: () => corpus("workflow.jsonl"),
  long_run: () => corpus("long_run.jsonl"),
};

for (const [name, log] of Object.entries(LOGS)) {
  test(`${name}: the full view and the paged index answer alike`, () => {
    const text = log();
    const view = load(text, "0");
    const index = load(text, "1");
    const [a, b] = [view.backend, index.backend];
    assert.notEqual(a.constructor, b.constructor, "one backend of each");
    assert.equal(a.eventCount, b.eventCount);
    for (const key of ["framing", "errors", "kinds"])
      assert.deepEqual(view.loaded[key], index.loaded[key], key);
    assert.deepEqual(a.series(), b.series(), "the chart series");
    assert.deepEqual(a.digest().workflow, b.digest().workflow, "the workflow panel");
    assert.deepEqual(a.marks(), b.marks(), "the clock marks");
    const filters = [
      {},
      { kinds: ["llm_completed", "kernel_observation"] },
      { categories: ["model"] },
      { query: "error" },
    ];
    for (const filter of filters)
      assert.deepEqual(a.filter(filter), b.filter(filter), JSON.stringify(filter));
    const end = a.eventCount;
    const narrowed = filters.slice(1).map((filter) => a.filter(filter).length);
    assert.ok(
      narrowed.some((n) => n > 0 && n < end),
      `the filters narrow the log: ${narrowed}`,
    );
    for (const at of [1, Math.floor(end / 3), end - 1, end]) {
      const [x, y] = [a.event(at), b.event(at)];
      assert.deepEqual([x.kind, x.turn, x.json], [y.kind, y.turn, y.json], `event ${at}`);
      const [s, t] = [a.stateAt(at), b.stateAt(at)];
      assert.equal(s.shownAt, t.shownAt, `shown at ${at}`);
      assert.deepEqual(s.summary.status, t.summary.status, `status at ${at}`);
      assert.equal(s.summary.turns_used, t.summary.turns_used, `turns at ${at}`);
      // (The index also cuts the summary's tokens by operation, and counts them.)
      assert.deepEqual(s.totals.lists, t.totals.lists, `list lengths at ${at}`);
      assert.deepEqual(s.totals.history, t.totals.history, `history lengths at ${at}`);
      assert.deepEqual(
        s.view.transcript.at(-1)?.position,
        t.view.transcript.at(-1)?.position,
        `last transcript entry at ${at}`,
      );
    }
    assert.deepEqual(a.gaps, b.gaps);
    assert.equal(a.memory().events, b.memory().events);
    assert.equal(a.liveRefusal(), null, "the full view follows live");
    assert.match(b.liveRefusal(), /^live: /, "the paged index says why it does not");
    a.free();
    b.free();
  });
}

test("rows the page asks of the last log's filter after a new source replaced it are none", async () => {
  // The worker's modules post to the page through `self`.
  const posted = [];
  globalThis.self = { postMessage: (msg) => posted.push(msg) };
  const session = await import("../../www/worker-session.js");
  const queries = await import("../../www/worker-queries.js");
  const { backend } = load(sampleLog(), "0");
  session.replace(() => backend);
  queries.postFiltered({ seq: 1 });
  const all = posted.at(-1).positions.length;
  assert.ok(all > 10, "the first log's filter passes its events");
  // A new source: its log not yet written, the page's rows request still
  // of the first filter (as when a file is dropped while rows load).
  session.replace(() => backendFor({ query: "?paged=0" }, 0));
  queries.postRows({ seq: 1, start: 0, count: all });
  assert.deepEqual(posted.at(-1), { op: "rows", seq: 1, start: 0, rows: [] });
  delete globalThis.self;
});
