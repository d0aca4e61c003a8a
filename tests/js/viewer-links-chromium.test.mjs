// End to end: the viewer's deep links and playback in Chromium, on real
// deepstrike 0.2.77 logs served by `agent-replay serve`. A link opened
// restores the position, selection, filters and search (from a `?log=`
// URL, as a paged index, and on a live session as its events arrive);
// moving rewrites the hash without adding history; playback moves the
// position at the chosen speed and pause stops it.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";
import { SessionState } from "agent-replay";
import { categoryOf } from "../../js/viewer/describe.js";

const root = new URL("../..", import.meta.url).pathname;
const shots = join(root, "target/screenshots");
mkdirSync(shots, { recursive: true });
const corpusPath = (name) => join(root, "tests/corpus/deepstrike-0.2.77", name);
const TOKEN = "links-token";

/** A log's event texts, as the package reads them (position = index + 1). */
function textsOf(name) {
  const texts = [];
  new SessionState()
    .write(readFileSync(corpusPath(name)), { onEvent: (e) => texts.push(e.json) })
    .end();
  return texts;
}
const LONG = textsOf("long_run.jsonl");
const WORKFLOW = textsOf("workflow.jsonl");
const kindOf = (text) => JSON.parse(text).kind;
/** A log with no times, long enough that pausing at 8× lands well before
 * its end on a loaded machine: the workflow run three times over. */
const UNTIMED = [...WORKFLOW, ...WORKFLOW, ...WORKFLOW];
const untimedPath = join(mkdtempSync(join(tmpdir(), "links-")), "untimed.jsonl");
writeFileSync(untimedPath, `${UNTIMED.join("\n")}\n`);

let browser;
let server;
before(async () => {
  browser = await launchChromium();
  server = await startServe([
    "--no-demo",
    "--write-token",
    TOKEN,
    corpusPath("long_run.jsonl"),
    corpusPath("workflow.jsonl"),
    untimedPath,
  ]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function open(path) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.goto(`${server.url}/${path}`);
  return { page, problems };
}

const fmt = (n) => n.toLocaleString("en-US");

async function waitPosition(page, text) {
  try {
    await page.waitForFunction(
      (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
      text,
      { timeout: 20_000 },
    );
  } catch (e) {
    assert.fail(`${e.message}: ${await page.textContent("[data-testid=position]")}`);
  }
}

async function waitHash(page, hash) {
  try {
    await page.waitForFunction((h) => location.hash === h, hash, { timeout: 5000 });
  } catch (e) {
    assert.equal(await page.evaluate(() => location.hash), hash, e.message);
  }
}

const position = (page) => page.evaluate(() => window.agentReplayViewer.position);

/** The link the tests open, and what it should show on long_run.jsonl. */
const AT = 120;
const QUERY = "l1";
const matching = LONG.map((t, i) => [t, i + 1]).filter(
  ([t]) =>
    kindOf(t) === "tool_completed" &&
    categoryOf(kindOf(t)) === "tools" &&
    t.toLowerCase().includes(QUERY),
);
const SEL = matching.find(([, p]) => p > 100 && p < AT)[1];
const LINK = `#at=${AT}&sel=${SEL}&kind=tool_completed&category=tools&q=${QUERY}`;

/** Checks the page shows LINK's view of long_run.jsonl. */
async function assertRestored(page) {
  await waitPosition(page, `event ${fmt(AT)} of ${fmt(LONG.length)}`);
  assert.equal(await page.inputValue("[data-testid=scrubber]"), String(AT));
  assert.equal(await page.inputValue("[data-testid=search]"), QUERY);
  assert.equal(await page.inputValue("[data-testid=kind-filter]"), "tool_completed");
  assert.equal(
    await page.getAttribute(".chip[data-category=tools]", "aria-pressed"),
    "true",
    "the category chip is pressed",
  );
  await page.waitForFunction(
    (t) => document.querySelector("[data-testid=match-count]")?.textContent.startsWith(t),
    `${fmt(matching.length)} of ${fmt(LONG.length)} events match`,
  );
  await page.waitForSelector(`[data-testid=detail]:not([hidden])`);
  assert.match(await page.textContent("#detail-title"), new RegExp(`^#${SEL} · tool_completed`));
  // The selected row is drawn, in view.
  await page.waitForSelector(`.row.selected[data-position="${SEL}"]`);
  const shown = await page.$$eval(".row[data-position]", (rows) =>
    rows.map((r) => Number(r.dataset.position)),
  );
  assert.deepEqual(
    shown,
    matching.map(([, p]) => p).slice(0, shown.length),
    "the timeline holds what the filter and search keep",
  );
}

test("a ?log= link restores the position, selection, filters and search; moving rewrites the hash", async () => {
  const { page, problems } = await open(`?log=/files/long_run.jsonl${LINK}`);
  const historyLength = await page.evaluate(() => history.length);
  await assertRestored(page);
  await page.screenshot({ path: join(shots, "viewer-link.png") });
  await waitHash(page, LINK);
  // Time travel, then a selection, then the filters, each rewrite the hash.
  await page.locator("[data-testid=timeline]").focus();
  await page.keyboard.press("ArrowRight");
  await waitPosition(page, `event ${fmt(AT + 1)} of`);
  await page.keyboard.press("ArrowRight");
  await waitPosition(page, `event ${fmt(AT + 2)} of`);
  await waitHash(page, LINK.replace(`at=${AT}`, `at=${AT + 2}`));
  const other = matching.find(([, p]) => p > SEL)[1];
  await page.click(`.row[data-position="${other}"]`);
  await waitHash(page, `#at=${AT + 2}&sel=${other}&kind=tool_completed&category=tools&q=${QUERY}`);
  await page.selectOption("[data-testid=kind-filter]", "");
  await page.click(".chip[data-category=tools]");
  await page.fill("[data-testid=search]", "step 3");
  await waitHash(page, `#at=${AT + 2}&sel=${other}&q=step%203`);
  // The end is the latest: no position in the hash.
  await page.locator("[data-testid=timeline]").focus();
  await page.keyboard.press("End");
  await waitHash(page, `#sel=${other}&q=step%203`);
  assert.equal(await page.evaluate(() => history.length), historyLength, "no history added");
  // Editing the hash by hand travels there.
  await page.evaluate(() => {
    location.hash = "#at=7&sel=7";
  });
  await waitPosition(page, `event 7 of ${fmt(LONG.length)}`);
  await page.waitForFunction(() =>
    document.querySelector("#detail-title")?.textContent.startsWith("#7 ·"),
  );
  assert.equal(await page.inputValue("[data-testid=search]"), "");
  assert.deepEqual(problems, []);
  await page.close();
});

test("quick moves rewrite the hash once they pause, and every second while they go on", async () => {
  const { page, problems } = await open(`?log=/files/long_run.jsonl#at=${AT}`);
  await waitPosition(page, `event ${fmt(AT)} of`);
  await waitHash(page, `#at=${AT}`);
  // Each replaceState counted, and the position the hash had at the last move.
  const writes = await page.evaluate(async (at) => {
    window.__writes = 0;
    const replace = history.replaceState.bind(history);
    history.replaceState = (...args) => {
      window.__writes += 1;
      return replace(...args);
    };
    const scrubber = document.getElementById("scrubber");
    const move = async (p, pause) => {
      scrubber.value = String(p);
      scrubber.dispatchEvent(new Event("input"));
      await new Promise((r) => setTimeout(r, pause));
    };
    // A write the load left pending lands first (within the quiet time
    // and the idle callback's timeout): the moves below start after it.
    await new Promise((r) => setTimeout(r, 1500));
    // Eight moves 40 ms apart write nothing until they pause. A busy
    // machine can stretch their gaps past the quiet time (a pause, which
    // writes): such a try is run again, at most three times in all.
    let quick = { writes: -1 };
    for (let run = 0; run < 3; run++) {
      const start = window.__writes;
      let gap = 0;
      let last = performance.now();
      for (let i = 1; i <= 8; i++) {
        await move(at + (run % 2 ? -i : i), 40);
        gap = Math.max(gap, performance.now() - last);
        last = performance.now();
      }
      quick = { writes: window.__writes - start, gap };
      if (gap < 200) break;
      await new Promise((r) => setTimeout(r, 1500));
    }
    const before = window.__writes;
    for (let i = 1; i <= 30; i++) await move(at - i, 100);
    return { quick, going: window.__writes - before };
  }, AT);
  assert.ok(writes.quick.gap < 200, `moves 40 ms apart in one try of three: ${writes.quick.gap}`);
  assert.equal(writes.quick.writes, 0, "no write between moves 40 ms apart");
  assert.ok(writes.going >= 1, "a write within three seconds of moves");
  await waitHash(page, `#at=${AT - 30}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("the same link restores a paged log (?paged=1)", async () => {
  const { page, problems } = await open(`?log=/files/long_run.jsonl&paged=1${LINK}`);
  await assertRestored(page);
  await page.keyboard.press("ArrowLeft");
  await waitHash(page, LINK.replace(`at=${AT}`, `at=${AT - 1}`));
  // A paged log's times are read on the first play.
  assert.equal(await page.textContent("[data-testid=pace]"), "");
  await page.click("[data-testid=play]");
  await waitPosition(page, `event ${fmt(LONG.length)} of ${fmt(LONG.length)}`);
  assert.equal(await page.textContent("[data-testid=pace]"), "log times");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a link without ?log= waits for the file opened next", async () => {
  const { page, problems } = await open(LINK);
  await page.setInputFiles("#file", corpusPath("long_run.jsonl"));
  await assertRestored(page);
  await waitHash(page, LINK);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a position past the end is clamped once the log is loaded; bad links are ignored", async () => {
  const { page, problems } = await open(`?log=/files/workflow.jsonl#at=999999&sel=abc&kind=`);
  await waitPosition(page, `event ${WORKFLOW.length} of ${WORKFLOW.length}`);
  assert.equal(await page.inputValue("[data-testid=kind-filter]"), "");
  await waitHash(page, "");
  assert.deepEqual(problems, []);
  await page.close();
});

async function post(session, body) {
  const r = await fetch(`${server.url}/api/sessions/${session}/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
    body,
  });
  assert.equal(r.status, 200, await r.text());
}

test("a live session's link waits for its position, then stays there as events arrive", async () => {
  // Stored entries ({seq, event}) posted as bare events, a few at a time.
  const lines = readFileSync(corpusPath("tools.jsonl"), "utf8")
    .trimEnd()
    .split("\n")
    .map((line) => JSON.stringify(JSON.parse(line).event));
  await post("links-live", lines[0]);
  const { page, problems } = await open(
    "?live=/api/sessions/links-live/stream#at=12&sel=10&kind=prompt_measured",
  );
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "open",
  );
  for (let i = 1; i < 8; i++) await post("links-live", lines[i]);
  await waitPosition(page, "event 8 of 8 · turn");
  // Not there yet: the link is kept.
  assert.match(await page.evaluate(() => location.hash), /^#at=12&sel=10&/);
  await post("links-live", lines.slice(8, 20).join("\n"));
  await waitPosition(page, "event 12 of 20");
  // The attempts streamed in gave the playback its clock.
  assert.equal(await page.textContent("[data-testid=pace]"), "log times");
  await page.waitForFunction(() =>
    document.querySelector("#detail-title")?.textContent.startsWith("#10 ·"),
  );
  await post("links-live", lines.slice(20, 30).join("\n"));
  await page.waitForFunction(() => window.agentReplayViewer.end === 30);
  assert.equal(await position(page), 12);
  assert.equal(await page.inputValue("[data-testid=kind-filter]"), "prompt_measured");
  // Playing from there returns to following the session at its end.
  await page.selectOption("[data-testid=speed]", "8");
  await page.click("[data-testid=play]");
  await waitPosition(page, "event 30 of 30 · turn");
  await post("links-live", lines.slice(30, 34).join("\n"));
  await waitPosition(page, "event 34 of 34 · turn");
  assert.equal(await page.evaluate(() => window.agentReplayViewer.playing), false);
  assert.deepEqual(problems, []);
  await page.close();
});

/** Checks that playing stopped at `paused` (the position read at the
 * pause): a step the clock asked for before it may still land, nothing
 * after it. (8× plays 16 events a second: 800 ms would show a dozen.) */
async function assertStopped(page, paused) {
  await page.waitForTimeout(800);
  const settled = await position(page);
  assert.ok(settled - paused <= 1, `paused at ${paused}, then moved to ${settled}`);
  await page.waitForTimeout(800);
  assert.equal(await position(page), settled, "pause stopped the position");
}

test("play at 8× moves the position; pause stops it; space toggles", async () => {
  const { page, problems } = await open("?log=/files/untimed.jsonl#at=1");
  await waitPosition(page, `event 1 of ${UNTIMED.length}`);
  assert.equal(await page.textContent("[data-testid=pace]"), "2 events/s (no times in the log)");
  await page.selectOption("[data-testid=speed]", "8");
  await page.click("[data-testid=play]");
  assert.equal(await page.getAttribute("[data-testid=play]", "aria-pressed"), "true");
  await page.waitForFunction(() => window.agentReplayViewer.position >= 4, null, { timeout: 5000 });
  await page.click("[data-testid=play]");
  const paused = await position(page);
  assert.ok(paused < UNTIMED.length, `paused at ${paused}, before the end`);
  await assertStopped(page, paused);
  assert.equal(await page.getAttribute("[data-testid=play]", "aria-pressed"), "false");
  await page.screenshot({ path: join(shots, "viewer-playback.png") });
  // Space plays on to the end (where playing stops by itself).
  await page.locator("[data-testid=timeline]").focus();
  await page.keyboard.press(" ");
  await waitPosition(page, `event ${UNTIMED.length} of ${UNTIMED.length}`);
  await page.waitForFunction(() => !window.agentReplayViewer.playing);
  await waitHash(page, ""); // at the end: the latest
  // Played at the end, it starts over; space pauses.
  await page.keyboard.press(" ");
  await page.waitForFunction(() => window.agentReplayViewer.position < 5);
  await page.keyboard.press(" ");
  await assertStopped(page, await position(page));
  assert.deepEqual(problems, []);
  await page.close();
});

test("a timed log plays at its own pace", async () => {
  const { page, problems } = await open(`?log=/files/long_run.jsonl#at=100`);
  await waitPosition(page, `event 100 of ${fmt(LONG.length)}`);
  assert.equal(await page.textContent("[data-testid=pace]"), "log times");
  // The corpus's clock ticks a few ms a call: its 2,436 events last under a second.
  await page.click("[data-testid=play]");
  await waitPosition(page, `event ${fmt(LONG.length)} of ${fmt(LONG.length)}`);
  assert.deepEqual(problems, []);
  await page.close();
});
