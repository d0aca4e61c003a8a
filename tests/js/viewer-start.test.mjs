// End to end: how the viewer page starts (www/index.html, www/worker-start.js).
// The page, its worker and the reader load as one bundle each (pkg/, built
// by scripts/viewer-bundles.mjs); the worker's entry starts the .wasm's
// compile and the reader before worker.js's bundle arrives, and the page's
// `?log=` is opened by index.html, once, before app.js has loaded; the log
// must still open as app.js would open it. The pages' stylesheet is one
// file too, pkg/viewer.css, bundled from www/app.css's parts (www/css/).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  copyFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  utimesSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import * as esbuild from "esbuild";
import {
  VIEWER_BUNDLES,
  VIEWER_CHUNKS,
  VIEWER_CSS,
  viewerBundlesStale,
} from "../../scripts/viewer-bundles.mjs";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";
import { stylesheetParts } from "./viewer-fixtures.mjs";
import { SessionState } from "agent-replay";

const root = new URL("../..", import.meta.url).pathname;
const LOG = join(root, "tests/corpus/deepstrike-0.2.77/long_run.jsonl");
const state = new SessionState();
state.apply(readFileSync(LOG));
const N = state.eventCount;
state.free();

let browser;
let server;
before(async () => {
  browser = await launchChromium();
  server = await startServe(["--no-demo", LOG]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

const fmt = (n) => n.toLocaleString("en-US");

/** Opens `search` on the viewer page until the whole log is shown; returns
 * the page, its problems, the paths it requested (its workers' too) in the
 * order requested, and `network`: each request and response (`["request",
 * path]`, `["response", path]`) in the order seen. */
async function open(search) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  const requested = [];
  const network = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("request", (r) => {
    requested.push(new URL(r.url()).pathname);
    network.push(["request", new URL(r.url()).pathname]);
  });
  page.on("response", (r) => network.push(["response", new URL(r.url()).pathname]));
  await page.goto(`${server.url}/${search}`);
  await page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    `event ${fmt(N)} of ${fmt(N)}`,
    { timeout: 20_000 },
  );
  return { page, problems, requested, network };
}

const count = (list, path) => list.filter((p) => p === path).length;

const BUNDLES = ["viewer-page.js", "viewer-worker.js", "viewer-reader.js"].map(
  (name) => `/agent-replay/pkg/${name}`,
);

test("the page's scripts are the worker's entry, three bundles and uPlot's chunk; the entry starts the .wasm and the reader first", async () => {
  const { page, problems, requested, network } = await open("?log=/files/long_run.jsonl");
  // Every module the page and its workers run comes in a bundle, each once;
  // uPlot in a chunk of its own, not in the page's bundle.
  await page.locator(".uplot").first().waitFor();
  const scripts = requested.filter((path) => path.endsWith(".js"));
  assert.deepEqual(
    scripts.toSorted(),
    ["/www/worker-start.js", ...BUNDLES, "/agent-replay/pkg/viewer-uPlot.esm.js"].toSorted(),
  );
  // The stylesheet is one request too: the bundle, not its parts.
  const styles = requested.filter((path) => path.endsWith(".css"));
  assert.deepEqual(styles, ["/agent-replay/pkg/viewer.css"]);
  // Opened by index.html only: a second open would read the log again.
  assert.equal(count(requested, "/files/long_run.jsonl"), 1);
  // The entry's compile is the one init() uses: no second fetch.
  assert.equal(count(requested, "/agent-replay/pkg/agent_replay_bg.wasm"), 1);
  // Both requested before worker.js's bundle has arrived: the entry starts
  // them, and imports worker.js only after.
  const at = (kind, path) => network.findIndex(([k, p]) => k === kind && p === path);
  const arrived = at("response", "/agent-replay/pkg/viewer-worker.js");
  assert.ok(arrived > 0, "worker.js's bundle loads");
  for (const early of [
    "/agent-replay/pkg/agent_replay_bg.wasm",
    "/agent-replay/pkg/viewer-reader.js",
  ])
    assert.ok(
      at("request", early) < arrived,
      `${early} before worker.js's bundle: ${network.join(" ")}`,
    );
  const { view } = await page.evaluate(() => window.agentReplayViewer.exportState());
  assert.ok(view, "a small log opens as a view");
  // The hidden header the page lays out at start-up (for its fonts) is gone.
  assert.equal(await page.locator("[data-testid=header]").count(), 1);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the ?paged= of the page's address holds for the log index.html opens", async () => {
  const { page, problems, requested } = await open("?log=/files/long_run.jsonl&paged=1");
  assert.equal(count(requested, "/files/long_run.jsonl"), 1);
  const exported = await page.evaluate(() => window.agentReplayViewer.exportState());
  assert.equal(exported.view, null, "a paged index builds no view");
  assert.equal(exported.events, N);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a log opened after the page's own is read as before", async () => {
  const { page, problems, requested } = await open("?log=/files/long_run.jsonl");
  const read = page.waitForRequest((r) => r.url().endsWith("/files/long_run.jsonl"));
  await page.fill("#url", "/files/long_run.jsonl");
  await page.click("button[value=log]");
  await read;
  assert.equal(count(requested, "/files/long_run.jsonl"), 2);
  // The worker folds the whole log again.
  let events = 0;
  for (let i = 0; i < 200 && events !== N; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    events = (await page.evaluate(() => window.agentReplayViewer.memory())).events;
  }
  assert.equal(events, N);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Opens `search` with the request for `path` held forever: the script a
 * worker starts from never arrives, as when a worker never starts. */
async function openHolding(path, search) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.route(`**${path}`, () => {});
  await page.goto(`${server.url}/${search}`);
  return { page, problems };
}

test("a reader worker that never starts: the fold worker reads the log itself", async () => {
  const { page, problems } = await openHolding(
    "/agent-replay/pkg/viewer-reader.js",
    "?log=/files/long_run.jsonl",
  );
  // After READER_START_MS (worker-load.js) of waiting for the reader.
  await page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    `event ${fmt(N)} of ${fmt(N)}`,
    { timeout: 30_000 },
  );
  assert.equal(await page.locator("[data-testid=error]").isHidden(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a worker that never starts: the page says so, not just its top bar", async () => {
  const { page, problems } = await openHolding(
    "/www/worker-start.js",
    "?log=/files/long_run.jsonl",
  );
  // After WORKER_START_MS (app.js).
  await page.waitForSelector("[data-testid=error]:not([hidden])", { timeout: 30_000 });
  assert.match(await page.textContent("[data-testid=error]"), /worker did not start: reload/);
  // It stays: a page that has nothing else to show keeps saying why.
  await new Promise((resolve) => setTimeout(resolve, 9000));
  assert.equal(await page.locator("[data-testid=error]").isVisible(), true);
  assert.deepEqual(problems, []);
  await page.close();
});

test("every page links one stylesheet, pkg/viewer.css: every part of www/css/, in app.css's order", async () => {
  for (const page of ["www/index.html", "www/compare.html", "www/sessions.html"]) {
    const html = readFileSync(join(root, page), "utf8");
    const links = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)">/g)].map((m) => m[1]);
    assert.deepEqual(links, [`/agent-replay/pkg/${VIEWER_CSS.out}`], page);
  }
  const parts = stylesheetParts();
  const files = readdirSync(join(root, "www/css")).map((name) => `www/css/${name}`);
  assert.deepEqual(parts.toSorted(), files.toSorted(), "app.css imports each part once");
  for (const part of parts) {
    const lines = readFileSync(join(root, part), "utf8").split("\n").length;
    assert.ok(lines < 400, `${part}: ${lines} lines`);
  }
  // The bundle: each part under its name, in order, and their rules as written.
  const bundle = readFileSync(join(root, "pkg", VIEWER_CSS.out), "utf8");
  const marker = /^\/\* (www\/[\w/-]+\.css) \*\/\n/gm;
  assert.deepEqual(
    [...bundle.matchAll(marker)].map((m) => m[1]),
    [...parts, VIEWER_CSS.entry],
  );
  const written = parts.map((part) => readFileSync(join(root, part), "utf8")).join("\n");
  const { code } = await esbuild.transform(written, { loader: "css" });
  assert.equal(bundle.replace(marker, "").replace(/\n\n/g, "\n"), code);
});

test("the bundles are stale when a part of the stylesheet is newer, or the stylesheet's bundle is missing", () => {
  const copy = mkdtempSync(join(tmpdir(), "agent-replay-stale-"));
  try {
    const out = join(copy, "pkg");
    const files = [...VIEWER_BUNDLES.map((b) => b.out), ...VIEWER_CHUNKS, VIEWER_CSS.out];
    mkdirSync(out);
    for (const file of files) writeFileSync(join(out, file), "");
    for (const source of [...stylesheetParts(), VIEWER_CSS.entry, "js/viewer/palette.js"]) {
      mkdirSync(dirname(join(copy, source)), { recursive: true });
      copyFileSync(join(root, source), join(copy, source));
      utimesSync(join(copy, source), 1000, 1000);
    }
    assert.equal(viewerBundlesStale(copy, out), false, "bundles newer than their sources");
    const part = join(copy, stylesheetParts()[0]);
    utimesSync(part, new Date(), new Date(Date.now() + 60_000));
    assert.equal(viewerBundlesStale(copy, out), true, "a part newer than the bundles");
    utimesSync(part, 1000, 1000);
    rmSync(join(out, VIEWER_CSS.out));
    assert.equal(viewerBundlesStale(copy, out), true, "the stylesheet's bundle missing");
  } finally {
    rmSync(copy, { recursive: true, force: true });
  }
});
