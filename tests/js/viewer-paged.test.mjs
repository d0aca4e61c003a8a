// End to end: the viewer in Chromium opening a log as a paged index (what
// it does above 64 MB; `?paged=1` forces it, so a CI-sized real log takes
// the same path). The timeline, search, filters and time travel must show
// what the package computes from the whole log, with no view built.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";
import { SessionState } from "agent-replay";

const root = new URL("../..", import.meta.url).pathname;
const shots = join(root, "target/screenshots");
mkdirSync(shots, { recursive: true });
const LOG = join(root, "tests/corpus/deepstrike-0.2.77/long_run.jsonl");
/** The log's event texts, as the package reads them. */
const texts = [];
new SessionState().write(readFileSync(LOG), { onEvent: (e) => texts.push(e.json) }).end();
const N = texts.length;
/** As the worker sends them with a state (www/backend-shared.js). */
const TRANSCRIPT_WINDOW = 30;
const FOLDED_BEFORE = 400;

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

async function openPaged() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.goto(`${server.url}/?log=/files/long_run.jsonl&paged=1`);
  await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
  return { page, problems };
}

const fmt = (n) => n.toLocaleString("en-US");

async function waitPosition(page, text) {
  await page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    text,
    { timeout: 20_000 },
  );
}

const stat = (page, label) =>
  page.$eval(
    `agent-session-viewer .asv-stat:has(.asv-stat-label:text-is("${label}")) .asv-stat-value`,
    (el) => el.textContent,
  );

/** An OS snapshot counter, scrolled into view (a panel far from the
 * viewport is built when it comes near), then back to the top with what is
 * in view built. */
async function counter(page, key) {
  await page.locator("[data-testid=snapshot]").scrollIntoViewIfNeeded();
  await page.waitForSelector("[data-testid=snapshot]:not(.asv-later)");
  const value = await page.$eval(
    `[data-testid=snapshot] [data-key=${key}]`,
    (el) => el.textContent,
  );
  await page.evaluate(() => scrollTo(0, 0));
  await page.waitForFunction(() =>
    [...document.querySelectorAll(".asv-later")].every(
      (el) => el.getBoundingClientRect().top >= innerHeight,
    ),
  );
  return value;
}

const transcriptPositions = (page) =>
  page.$$eval("[data-testid=transcript] > li.asv-t:not(.asv-t-model_call)", (lis) =>
    lis.map((li) => Number(li.dataset.position)),
  );

const matchCount = (page, text) =>
  page.waitForFunction(
    (t) => document.querySelector("[data-testid=match-count]")?.textContent.startsWith(t),
    text,
  );

test("a paged log travels in time to the state the package folds", async () => {
  const { page, problems } = await openPaged();
  const memory = await page.evaluate(() => window.agentReplayViewer.memory());
  assert.equal(memory.events, N);
  for (const at of [700, 257, 1, 0]) {
    await page.$eval(
      "[data-testid=scrubber]",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      at,
    );
    await waitPosition(page, `event ${fmt(at)} of ${fmt(N)}`);
    const state = new SessionState();
    for (const text of texts.slice(0, at)) state.apply(text);
    const summary = state.summary();
    assert.equal(await stat(page, "events"), fmt(summary.event_count));
    assert.equal(await stat(page, "budget tokens"), fmt(summary.total_tokens));
    assert.equal(await counter(page, "page_out_count"), fmt(state.osSnapshot().page_out_count));
    const expected = state
      .view()
      .transcript.map((t) => t.position)
      .filter((p) => p > at - FOLDED_BEFORE);
    assert.deepEqual(
      await transcriptPositions(page),
      expected.slice(-TRANSCRIPT_WINDOW),
      `transcript at ${at}`,
    );
    state.free();
  }
  await page.screenshot({ path: join(shots, "viewer-paged.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a paged log's search and filters find what a scan of the log finds", async () => {
  const { page, problems } = await openPaged();
  const search = texts.filter((t) => t.toLowerCase().includes("provider_attempt")).length;
  await page.fill("[data-testid=search]", "PROVIDER_ATTEMPT");
  await matchCount(page, `${fmt(search)} of ${fmt(N)}`);
  await page.fill("[data-testid=search]", "");
  const kindOf = (t) => JSON.parse(t).kind;
  const completed = texts.map((t, i) => [kindOf(t), i + 1]).filter(([k]) => k === "tool_completed");
  await page.selectOption("[data-testid=kind-filter]", "tool_completed");
  await matchCount(page, `${fmt(completed.length)} of ${fmt(N)}`);
  await page.waitForSelector("[data-testid=timeline] .row[data-position]");
  const shown = await page.$$eval("[data-testid=timeline] .row[data-position]", (rows) =>
    rows.map((r) => Number(r.dataset.position)),
  );
  assert.ok(shown.length > 5);
  assert.deepEqual(
    shown,
    completed.slice(0, shown.length).map(([, p]) => p),
  );
  await page.locator("[data-testid=timeline] .row[data-position]").first().click();
  await page.waitForSelector("[data-testid=detail]:not([hidden])");
  assert.match(await page.locator("[data-testid=detail]").textContent(), /tool_completed/);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a paged log's kind filter lists kernel observations by kind, and filters by one", async () => {
  const { page, problems } = await openPaged();
  const byKind = new Map();
  texts.forEach((t, i) => {
    const e = JSON.parse(t);
    if (e.kind !== "kernel_observation") return;
    const list = byKind.get(e.observation_kind) ?? [];
    list.push(i + 1);
    byKind.set(e.observation_kind, list);
  });
  assert.ok(byKind.size > 1);
  // Asked for by the page once the timeline is filtered: they come after.
  await page.waitForSelector('[data-testid=kind-filter] option[value^="kernel_observation/"]', {
    state: "attached",
  });
  const options = await page.$$eval(
    '[data-testid=kind-filter] option[value^="kernel_observation/"]',
    (os) => os.map((o) => [o.value, o.textContent]),
  );
  assert.deepEqual(
    options,
    [...byKind]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([sub, ps]) => [
        `kernel_observation/${sub}`,
        `  kernel_observation › ${sub} (${fmt(ps.length)})`,
      ]),
  );
  const [sub, positions] = [...byKind].sort((a, b) => b[1].length - a[1].length)[0];
  await page.selectOption("[data-testid=kind-filter]", `kernel_observation/${sub}`);
  await matchCount(page, `${fmt(positions.length)} of ${fmt(N)}`);
  assert.deepEqual(problems, []);
  await page.close();
});
