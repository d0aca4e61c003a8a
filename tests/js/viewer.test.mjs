// End to end: the viewer in real Chromium against the server `npm start`
// runs (`agent-replay serve`). Each check compares what the page shows with
// what the package computes for the same log. Screenshots of the main views
// go to target/screenshots/.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";
import { SessionState, eventKinds, parseLog, rebuildOsSnapshot, sampleLog } from "agent-replay";
import { describeEvent, kernelFacets, kernelFacetsOf } from "../../js/viewer/describe.js";
import { viewDigest } from "../../js/viewer/digest.js";
import { contractView, corpus } from "./viewer-fixtures.mjs";

const root = new URL("../..", import.meta.url).pathname;
const uplotModule = join(createRequire(import.meta.url).resolve("uplot"), "../uPlot.esm.js");
const shots = join(root, "target/screenshots");
mkdirSync(shots, { recursive: true });
const sample = sampleLog();
const lines = sample.trimEnd().split("\n");
/** The sample's events, and where it suspends asking for call-5. */
const N = lines.length;
const SUSPENDED = parseLog(sample).events.findIndex((e) => e.kind === "suspended") + 1;
const TOKEN = "test-token";
/** Real deepstrike 0.2.77 logs the server also serves (at /files/NAME). */
const CORPUS = ["long_run.jsonl", "workflow.jsonl", "provider_fatal.jsonl", "crash_wake.jsonl"];

let browser;
let logs; // the malformed log's directory
let main; // demo off, writes allowed, a short live buffer
before(async () => {
  browser = await launchChromium();
  logs = mkdtempSync(join(tmpdir(), "viewer-logs-"));
  const bad = [
    ...lines.slice(0, 10),
    "{not json",
    ...lines.slice(10, 20),
    '{"kind":"tool_completed","turn":2,"results":[{"call_id":"x","is_error":"yes"}]}',
    ...lines.slice(20),
    '{"kind":"page_in","tu',
  ];
  writeFileSync(join(logs, "broken.jsonl"), bad.join("\n"));
  main = await startServe([
    "--no-demo",
    "--write-token",
    TOKEN,
    "--max-events",
    "8",
    join(logs, "broken.jsonl"),
    ...CORPUS.map((name) => join(root, "tests/corpus/deepstrike-0.2.77", name)),
  ]);
});
after(async () => {
  await browser?.close();
  await main?.stop();
});

async function openPage(url, viewport = { width: 1400, height: 1000 }, colorScheme = "light") {
  const page = await browser.newPage({ viewport, colorScheme });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.goto(url);
  return { page, problems };
}

/**
 * A blank page of `main`'s origin for tests of the viewer's modules
 * themselves, imported unbundled as a page without a bundler imports them
 * (docs/viewer.md): its import map names uPlot, which the test serves from
 * node_modules (the viewer page gets uPlot in its bundle).
 */
async function openModulesPage() {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  const imports = { uplot: "/vendor/uplot/uPlot.esm.js" };
  await page.route(`${main.url}/modules.html`, (route) =>
    route.fulfill({
      contentType: "text/html",
      body: `<!doctype html><script type="importmap">${JSON.stringify({ imports })}</script>`,
    }),
  );
  await page.route(`${main.url}${imports.uplot}`, (route) =>
    route.fulfill({ contentType: "text/javascript", path: uplotModule }),
  );
  await page.goto(`${main.url}/modules.html`);
  return { page, problems };
}

const _positionText = (page) => page.locator("[data-testid=position]").textContent();
async function waitPosition(page, text) {
  await page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    text,
    { timeout: 20_000 },
  );
}

/** The header's numbers, as shown. */
async function headerStats(page) {
  return page.$$eval("agent-session-viewer .asv-header .asv-stat", (stats) =>
    Object.fromEntries(
      stats.map((s) => [
        s.querySelector(".asv-stat-label").textContent,
        s.querySelector(".asv-stat-value").textContent,
      ]),
    ),
  );
}

/** The OS snapshot panel's counters, as shown. */
/** The OS snapshot's counters, scrolled into view (a panel far from the
 * viewport is built when it comes near), then back to the top with what is
 * in view built. */
async function snapshotCounters(page) {
  await page.locator("[data-testid=snapshot]").scrollIntoViewIfNeeded();
  await page.waitForSelector("[data-testid=snapshot]:not(.asv-later)");
  const counters = await page.$$eval("[data-testid=snapshot] [data-key]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.key, e.textContent])),
  );
  await page.evaluate(() => scrollTo(0, 0));
  await page.waitForFunction(() =>
    [...document.querySelectorAll(".asv-later")].every(
      (el) => el.getBoundingClientRect().top >= innerHeight,
    ),
  );
  return counters;
}

const fmt = (n) => n.toLocaleString("en-US");

/** Positions of the transcript's entries (not the model calls that got no
 * answer, nor life dividers), as shown. */
const transcriptPositions = (page) =>
  page.$$eval("[data-testid=transcript] > li.asv-t:not(.asv-t-model_call)", (lis) =>
    lis.map((li) => Number(li.dataset.position)),
  );

function expectedHeader(summary) {
  const e = summary.errors;
  return {
    events: fmt(summary.event_count),
    turns: fmt(summary.status.state === "terminal" ? summary.turns_used : summary.revision),
    "budget tokens": fmt(summary.total_tokens),
    "tool errors": fmt(e.tool_errors),
    fatal: fmt(e.fatal_tool_errors),
    denied: fmt(e.denied_tools),
    "unknown events": fmt(e.unknown_events),
    "load errors": fmt(e.load_errors),
  };
}

function expectedCounters(snap) {
  const keys = [
    "page_out_count",
    "page_in_count",
    "tool_gated_count",
    "memory_written_count",
    "memory_queried_count",
    "memory_validation_failed_count",
    "memory_retrieval_result_count",
  ];
  return {
    last_suspend: snap.last_suspend
      ? `turn ${snap.last_suspend.turn}, ${snap.last_suspend.reason}${snap.last_suspend.pending_calls.length ? ` (pending ${snap.last_suspend.pending_calls.join(", ")})` : ""}`
      : "none",
    last_resumed_turn: snap.last_resumed_turn === null ? "never" : `turn ${snap.last_resumed_turn}`,
    ...Object.fromEntries(keys.map((k) => [k, fmt(snap[k])])),
  };
}

test("the sample: header, transcript and OS snapshot show what the package computes", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=/sample.jsonl`);
  await waitPosition(page, `event ${N} of ${N}`);
  const state = new SessionState().apply(sample);
  const view = state.view();
  assert.deepEqual(await headerStats(page), expectedHeader(state.summary()));
  assert.equal(await page.locator("[data-testid=run-id]").textContent(), view.run.run_id);
  assert.equal(await page.locator("[data-testid=goal]").textContent(), view.run.goal);
  assert.equal(await page.locator("[data-testid=status]").textContent(), "finished: completed");
  assert.deepEqual(
    await transcriptPositions(page),
    view.transcript.map((t) => t.position),
  );
  assert.equal(
    await page.locator(".asv-t.asv-fatal").count(),
    view.transcript.filter((t) => t.result?.is_fatal).length,
  );
  assert.equal(await page.locator(".asv-t-rollback").count(), view.rollbacks.length);
  assert.deepEqual(await snapshotCounters(page), expectedCounters(rebuildOsSnapshot(sample)));
  const procRows = await page.$$eval("[data-testid=snapshot] table:first-of-type tbody tr", (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => c.textContent)),
  );
  assert.deepEqual(
    procRows,
    rebuildOsSnapshot(sample).process_by_agent.map((p) => [
      p.agent_id,
      p.parent_session_id,
      p.state,
      String(p.turn),
    ]),
  );
  assert.equal(
    await page.locator("[data-testid=processes] .asv-proc").count(),
    view.processes.length,
  );
  assert.equal(
    (await page.locator("[data-testid=charts] canvas").count()) >= 4,
    true,
    "four charts drawn",
  );
  await page.screenshot({ path: join(shots, "viewer-sample.png"), fullPage: true });
  // Selecting an event shows its details and raw JSON.
  await page.locator(".row[data-position='30']").click();
  await page.waitForSelector("[data-testid=detail]:not([hidden])");
  assert.deepEqual(
    JSON.parse(await page.locator("#detail-json").textContent()),
    JSON.parse(lines[29]),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("a kind filter, a category and a search narrow the timeline correctly", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=/sample.jsonl`);
  await waitPosition(page, `event ${N} of ${N}`);
  const events = parseLog(sample).events;
  const rowsShown = (n) =>
    page.waitForFunction(
      (k) => document.querySelectorAll("[data-testid=timeline] .row[data-position]").length === k,
      n,
    );
  const shownPositions = () =>
    page.$$eval("[data-testid=timeline] .row[data-position]", (rows) =>
      rows.map((r) => Number(r.dataset.position)),
    );
  const expectPositions = (keep) =>
    events
      .map((e, i) => [e, i + 1])
      .filter(([e, i]) => keep(e, lines[i - 1]))
      .map(([, p]) => p);

  await page.selectOption("[data-testid=kind-filter]", "tool_completed");
  const completed = expectPositions((e) => e.kind === "tool_completed");
  await page.waitForFunction(
    ([n, total]) =>
      document
        .querySelector("[data-testid=match-count]")
        .textContent.startsWith(`${n} of ${total}`),
    [completed.length, N],
  );
  await rowsShown(completed.length);
  assert.deepEqual(await shownPositions(), completed);

  await page.selectOption("[data-testid=kind-filter]", "");
  await page.fill("[data-testid=search]", "IDEMPOTENCY");
  const matching = expectPositions((_, text) => text.toLowerCase().includes("idempotency"));
  await page.waitForFunction(
    ([n, total]) =>
      document
        .querySelector("[data-testid=match-count]")
        .textContent.startsWith(`${n} of ${total}`),
    [matching.length, N],
  );
  await rowsShown(matching.length);
  assert.deepEqual(await shownPositions(), matching);

  await page.locator(".chip[data-category=memory]").click();
  const both = expectPositions(
    (e, text) => e.kind.startsWith("memory_") && text.toLowerCase().includes("idempotency"),
  );
  await page.waitForFunction(
    ([n, total]) =>
      document
        .querySelector("[data-testid=match-count]")
        .textContent.startsWith(`${n} of ${total}`),
    [both.length, N],
  );
  await rowsShown(both.length);
  assert.deepEqual(await shownPositions(), both);
  assert.ok(both.length > 0 && both.length < matching.length);
  await page.screenshot({ path: join(shots, "viewer-filtered.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("typing a search asks the worker at once, then only for the latest query", async () => {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript(() => {
    window.__queries = [];
    const send = Worker.prototype.postMessage;
    Worker.prototype.postMessage = function (msg, ...rest) {
      if (msg?.op === "filter") window.__queries.push(msg.query);
      return send.call(this, msg, ...rest);
    };
  });
  await page.goto(`${main.url}/?log=/sample.jsonl`);
  const matchCount = (n) =>
    page.waitForFunction(
      ([k, total]) =>
        document
          .querySelector("[data-testid=match-count]")
          .textContent.startsWith(`${k} of ${total}`),
      [n, N],
    );
  await page.waitForFunction(
    (text) => document.querySelector("[data-testid=match-count]").textContent === text,
    `${N} events`,
  );
  const before = await page.evaluate(() => window.__queries.length);
  await page.evaluate(() => {
    const box = document.querySelector("[data-testid=search]");
    for (const query of ["i", "id", "idem", "IDEMPOTENCY"]) {
      box.value = query;
      box.dispatchEvent(new Event("input", { bubbles: true }));
    }
  });
  await matchCount(lines.filter((l) => l.toLowerCase().includes("idempotency")).length);
  const sent = await page.evaluate(() => window.__queries);
  assert.deepEqual(sent.slice(before), ["i", "IDEMPOTENCY"]);
  await page.close();
});

test("the scrubber shows the state as of a chosen position", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=/sample.jsonl`);
  await waitPosition(page, `event ${N} of ${N}`);
  for (const at of [30, SUSPENDED, 1, 0]) {
    await page.$eval(
      "[data-testid=scrubber]",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      at,
    );
    await waitPosition(page, `event ${at} of ${N}`);
    const prefix = lines.slice(0, at).join("\n");
    const state = new SessionState().apply(prefix);
    assert.deepEqual(await headerStats(page), expectedHeader(state.summary()), `header at ${at}`);
    assert.deepEqual(
      await snapshotCounters(page),
      expectedCounters(rebuildOsSnapshot(prefix)),
      `snapshot at ${at}`,
    );
    assert.deepEqual(
      await transcriptPositions(page),
      state.view().transcript.map((t) => t.position),
      `transcript at ${at}`,
    );
    if (at === SUSPENDED) {
      assert.equal(
        await page.locator("[data-testid=status]").textContent(),
        "suspended: ask_user (pending call-5)",
      );
      await page.screenshot({ path: join(shots, "viewer-time-travel.png"), fullPage: true });
      await page.screenshot({ path: join(shots, "viewer-overview.png") }); // the README's picture
    }
  }
  // The keyboard moves through time too.
  await page.locator("body").press("End");
  await waitPosition(page, `event ${N} of ${N}`);
  await page.locator("body").press("ArrowLeft");
  await waitPosition(page, `event ${N - 1} of ${N}`);
  assert.deepEqual(problems, []);
  await page.close();
});

test("a malformed log shows its errors with line numbers and every valid event", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=/files/broken.jsonl`);
  const text = await (await fetch(`${main.url}/files/broken.jsonl`)).text();
  const parsed = parseLog(text);
  assert.equal(parsed.errors.length, 3);
  await waitPosition(page, `event ${parsed.events.length} of ${parsed.events.length}`);
  const items = await page.$$eval("[data-testid=load-errors] li", (lis) =>
    lis.map((li) => li.textContent),
  );
  assert.equal(items.length, parsed.errors.length);
  for (const [i, e] of parsed.errors.entries()) {
    assert.ok(
      items[i].startsWith(`line ${e.line}, column ${e.column}`) && items[i].includes(e.code),
      items[i],
    );
  }
  assert.equal(
    await page.locator("[data-testid=match-count]").textContent(),
    `${parsed.events.length} events`,
  );
  const state = new SessionState().apply(text);
  assert.deepEqual(await headerStats(page), expectedHeader(state.summary()));
  await page.screenshot({ path: join(shots, "viewer-malformed.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a log opens from the file picker and by drag and drop", async () => {
  const { page, problems } = await openPage(`${main.url}/`);
  await page.setInputFiles("#file", {
    name: "picked.jsonl",
    mimeType: "application/x-ndjson",
    buffer: Buffer.from(sample),
  });
  await waitPosition(page, `event ${N} of ${N}`);
  assert.equal(await page.locator("[data-testid=match-count]").textContent(), `${N} events`);
  const half = lines.slice(0, 20).join("\n");
  await page.evaluate((text) => {
    const data = new DataTransfer();
    data.items.add(new File([text], "dropped.jsonl"));
    document.body.dispatchEvent(
      new DragEvent("drop", { dataTransfer: data, bubbles: true, cancelable: true }),
    );
  }, half);
  await waitPosition(page, "event 20 of 20");
  assert.deepEqual(
    await headerStats(page),
    expectedHeader(new SessionState().apply(half).summary()),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

async function post(session, body) {
  const r = await fetch(`${main.url}/api/sessions/${session}/events`, {
    method: "POST",
    headers: { authorization: `Bearer ${TOKEN}` },
    body,
  });
  assert.equal(r.status, 200, await r.text());
}
const observe = async (session) => (await fetch(`${main.url}/api/sessions/${session}`)).json();

async function viewerMatchesServer(page, session) {
  const server = await observe(session);
  await waitPosition(page, `event ${server.state.event_count} of ${server.state.event_count}`);
  const mine = await page.evaluate(() => window.agentReplayViewer.exportState());
  assert.deepEqual(mine.view, server.state);
  return { server, mine };
}

test("live mode follows appended events", async () => {
  await post("live-1", lines.slice(0, 5).join("\n"));
  const { page, problems } = await openPage(`${main.url}/?live=/api/sessions/live-1/stream`);
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "open",
  );
  await viewerMatchesServer(page, "live-1");
  for (const i of [5, 6, 7, 8]) await post("live-1", lines[i]);
  await viewerMatchesServer(page, "live-1");
  const cursor = await page.locator("[data-testid=cursor]").inputValue();
  assert.equal(cursor, (await observe("live-1")).cursor);
  // The first observation stood for events 1–5 (the stream began with it).
  assert.match(
    await page.locator("[data-testid=gaps]").textContent(),
    /events 1–5 came as the first observation/,
  );
  await page.screenshot({ path: join(shots, "viewer-live.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("resuming from a pasted cursor replays exactly what was missed", async () => {
  await post("live-3", lines.slice(0, 4).join("\n"));
  const { page, problems } = await openPage(`${main.url}/?live=/api/sessions/live-3/stream`);
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "open",
  );
  await viewerMatchesServer(page, "live-3");
  const cursor = await page.locator("[data-testid=cursor]").inputValue();
  await page.click("[data-testid=connect]");
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "disconnected",
  );
  await post("live-3", lines.slice(4, 9).join("\n")); // five events: within the 8-event buffer
  await page.fill("#resume-cursor", cursor);
  await page.click("#resume-form button");
  await viewerMatchesServer(page, "live-3");
  assert.equal(
    await page.locator("[data-testid=gaps] li").count(),
    1,
    "only the first observation: the five were replayed",
  );
  await page.waitForFunction(() => document.querySelectorAll(".row[data-position]").length === 5);
  assert.deepEqual(
    await page.$$eval(".row[data-position]", (rows) => rows.map((r) => Number(r.dataset.position))),
    [5, 6, 7, 8, 9],
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("after a trim past its cursor the viewer shows the gap, reloads the observation and continues", async () => {
  await post("live-2", lines.slice(0, 3).join("\n"));
  const { page, problems } = await openPage(`${main.url}/?live=/api/sessions/live-2/stream`);
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "open",
  );
  await post("live-2", lines.slice(3, 6).join("\n"));
  await viewerMatchesServer(page, "live-2");
  assert.equal(
    await page.locator("[data-testid=gaps] li").count(),
    1,
    "only the first observation so far",
  );
  await page.click("[data-testid=connect]"); // disconnect
  await page.waitForFunction(
    () => document.querySelector("[data-testid=live-status]").textContent === "disconnected",
  );
  await post("live-2", lines.slice(6, 30).join("\n")); // 24 events: the buffer keeps 8
  await page.click("[data-testid=connect]"); // reconnect from its cursor
  await page.waitForFunction(() => document.querySelectorAll("[data-testid=gaps] li").length === 2);
  assert.match(
    await page.locator("[data-testid=gaps]").textContent(),
    /gap \(trimmed\): events 7–30 missed; recovered from the observation at event 30/,
  );
  await viewerMatchesServer(page, "live-2");
  // It continues: live again, in bursts the 8-event buffer holds.
  for (let i = 30; i < lines.length; i += 5) {
    await post("live-2", lines.slice(i, i + 5).join("\n"));
    await viewerMatchesServer(page, "live-2");
  }
  const { mine } = await viewerMatchesServer(page, "live-2");
  assert.deepEqual(mine.snapshot, rebuildOsSnapshot(sample));
  // Both gaps head the timeline (scrolled to the latest while following).
  await page.$eval("[data-testid=timeline]", (el) => {
    el.scrollTop = 0;
  });
  await page.waitForFunction(() => document.querySelectorAll(".gap-row").length === 2);
  assert.equal(
    await page.locator(".gap-row").count(),
    2,
    await page.locator("[data-testid=gaps]").textContent(),
  );
  // Time travel still works on both sides of the gap.
  await page.$eval("[data-testid=scrubber]", (el) => {
    el.value = "4";
    el.dispatchEvent(new Event("input"));
  });
  await waitPosition(page, `event 4 of ${N}`);
  assert.deepEqual(
    await headerStats(page),
    expectedHeader(new SessionState().apply(lines.slice(0, 4).join("\n")).summary()),
  );
  await page.$eval("[data-testid=scrubber]", (el) => {
    el.value = "40";
    el.dispatchEvent(new Event("input"));
  });
  await waitPosition(page, `event 40 of ${N}`);
  assert.deepEqual(
    await headerStats(page),
    expectedHeader(new SessionState().apply(lines.slice(0, 40).join("\n")).summary()),
  );
  await page.screenshot({ path: join(shots, "viewer-gap.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

test("npm start's demo plays the sample live, and the page works on a narrow dark screen", async () => {
  const demo = await startServe([
    "--interval-ms",
    "20",
    "--pause-ms",
    "300",
    "--max-events",
    "256",
  ]);
  try {
    const { page, problems } = await openPage(`${demo.url}/`, { width: 420, height: 900 }, "dark");
    await waitPosition(page, `event ${N} of ${N}`);
    assert.equal(await page.locator("[data-testid=status]").textContent(), "finished: completed");
    assert.equal(
      await page.locator("[data-testid=gaps] li").count(),
      0,
      "the demo is followed from its start cursor",
    );
    assert.deepEqual(
      await headerStats(page),
      expectedHeader(new SessionState().apply(sample).summary()),
    );
    const width = await page.evaluate(() => document.documentElement.scrollWidth);
    assert.ok(width <= 420, `no horizontal scrolling on a narrow screen (${width}px)`);
    await page.screenshot({ path: join(shots, "viewer-narrow-dark.png"), fullPage: true });
    // The next run of the demo is offered, and followed from its start.
    await page.waitForSelector("#next-run:not([hidden])", { timeout: 15_000 });
    await page.click("#next-run");
    await page.waitForFunction(() =>
      /\/sessions\/sample-([2-9]|\d\d+)\/stream$/.test(document.querySelector("#url").value),
    );
    await waitPosition(page, `event ${N} of ${N}`);
    assert.equal(await page.locator("[data-testid=gaps] li").count(), 0);
    assert.deepEqual(problems, []);
    await page.close();
  } finally {
    await demo.stop();
  }
});

/** Opens a corpus log in the app; resolves when its latest state is shown. */
async function openCorpus(name, viewport) {
  const opened = await openPage(`${main.url}/?log=/files/${name}`, viewport);
  const n = parseLog(corpus(name)).events.length;
  await waitPosition(opened.page, `event ${fmt(n)} of ${fmt(n)}`);
  return opened;
}

/** The timeline rows shown: position → [kind, label]. */
const timelineRows = (page) =>
  page.$$eval("[data-testid=timeline] .row[data-position]", (rows) =>
    rows.map((r) => [
      Number(r.dataset.position),
      r.querySelector(".kind").textContent,
      r.querySelector(".label").textContent,
    ]),
  );

async function filterTo(page, expected) {
  await page.waitForFunction(
    ([n, first]) =>
      document.querySelector("[data-testid=match-count]").textContent.startsWith(`${n} of `) &&
      document.querySelector("[data-testid=timeline] .row[data-position]")?.dataset.position ===
        String(first),
    [expected.length, expected[0]],
  );
  const shown = (await timelineRows(page)).map(([p]) => p);
  assert.ok(shown.length > 0);
  assert.deepEqual(shown, expected.slice(0, shown.length));
}

test("a real deepstrike 0.2.77 log: labels, observation kinds and kernel filters from its own events", async () => {
  const text = corpus("long_run.jsonl");
  const events = parseLog(text).events;
  const { page, problems } = await openCorpus("long_run.jsonl");
  // Every row on screen is labelled by describe.js from the event as written.
  for (const [position, kind, label] of await timelineRows(page)) {
    assert.equal(kind, events[position - 1].kind);
    assert.equal(label, describeEvent(events[position - 1]), `#${position}`);
  }
  // Kernel observations by their observation kind.
  const residency = events
    .map((e, i) => [e, i + 1])
    .filter(([e]) => e.observation_kind === "payload_residency_changed")
    .map(([, p]) => p);
  assert.ok(residency.length > 0);
  const option = "kernel_observation/payload_residency_changed";
  assert.match(
    await page.locator(`[data-testid=kind-filter] option[value="${option}"]`).textContent(),
    new RegExp(`payload_residency_changed \\(${residency.length}\\)`),
  );
  await page.selectOption("[data-testid=kind-filter]", option);
  await filterTo(page, residency);
  for (const [, , label] of await timelineRows(page))
    assert.match(label, /^payload_residency_changed: .* → paged_out$/);
  await page.screenshot({ path: join(shots, "viewer-observations.png") });
  await page.selectOption("[data-testid=kind-filter]", "");
  // deepstrike's kernel categories and primitives, as the kind table has them.
  const { kernel_categories, primitives } = kernelFacets(eventKinds());
  assert.deepEqual(
    await page.$$eval("#kernel-categories .chip", (chips) => chips.map((c) => c.textContent)),
    kernel_categories,
  );
  assert.deepEqual(
    await page.$$eval("#primitives .chip", (chips) => chips.map((c) => c.textContent)),
    primitives,
  );
  assert.equal(await page.locator("#kernel-filters").isHidden(), kernel_categories.length === 0);
  if (primitives.includes("mm")) {
    await page.locator("#primitives .chip", { hasText: /^mm$/ }).click();
    await filterTo(
      page,
      events
        .map((e, i) => [e, i + 1])
        .filter(([e]) => kernelFacetsOf(e.kind).primitive === "mm")
        .map(([, p]) => p),
    );
    await page.locator("#primitives .chip", { hasText: /^mm$/ }).click();
  }
  // A prompt measure's details name its source and confidence.
  const measured = events.findIndex((e) => e.kind === "prompt_measured") + 1;
  await page.selectOption("[data-testid=kind-filter]", "prompt_measured");
  await page.locator(`.row[data-position='${measured}']`).click();
  await page.waitForSelector("[data-testid=detail]:not([hidden])");
  const facts = await page.$$eval("[data-testid=detail-facts] dd", (dds) =>
    dds.map((d) => d.textContent),
  );
  const m = events[measured - 1].measurement;
  assert.deepEqual(facts.slice(0, 3), [String(m.input_tokens), m.source.kind, m.confidence]);
  await page.screenshot({ path: join(shots, "viewer-prompt-details.png") });
  // The runtime panel counts kernel observations by kind.
  const observed = await page.$$eval("[data-testid=activity] [data-observation]", (els) =>
    Object.fromEntries(els.map((e) => [e.dataset.observation, e.textContent])),
  );
  const expected = {};
  for (const e of events)
    if (e.kind === "kernel_observation")
      expected[e.observation_kind] = (expected[e.observation_kind] ?? 0) + 1;
  assert.deepEqual(
    observed,
    Object.fromEntries(Object.entries(expected).map(([k, n]) => [k, fmt(n)])),
  );
  assert.deepEqual(problems, []);
  await page.close();
});

/** Shows `view` in the page's <agent-session-viewer> (a fixture from the
 * core's contract: see viewer-fixtures.mjs), as of `at`. */
async function showView(page, view, at) {
  await page.evaluate(
    ({ view, at }) =>
      new Promise((resolve) => {
        document.getElementById("main").hidden = false;
        document.getElementById("welcome").hidden = true;
        const viewer = document.getElementById("viewer");
        viewer.addEventListener("rendered", resolve, { once: true });
        viewer.data = { view, snapshot: view.snapshot, at: at ?? undefined };
      }),
    { view, at },
  );
}

test("the panels: model calls beside their answers, failed calls, lives and the workflow", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await page.waitForFunction(() => customElements.get("agent-session-viewer"));
  // provider_fatal: the first call answered, the second failed on its own.
  const fatal = corpus("provider_fatal.jsonl");
  const fatalView = { ...contractView(fatal), snapshot: rebuildOsSnapshot(fatal) };
  const { calls } = viewDigest(fatalView);
  await showView(page, fatalView);
  const answered = page.locator(
    `[data-testid=transcript] > li[data-position='${calls[0].answer}'] .asv-call`,
  );
  assert.equal(await answered.getAttribute("data-effect"), calls[0].effect_id);
  assert.match(await answered.textContent(), /replay\/openai-chat\/replay.*attempt 1: success/);
  const failed = page.locator("[data-testid=transcript] > li.asv-t-model_call");
  assert.equal(await failed.count(), 1);
  assert.equal(Number(await failed.getAttribute("data-position")), calls[1].position);
  assert.match(
    await failed.textContent(),
    /Model call failed.*attempt 1: transport_exhausted \(model_unavailable\)/,
  );
  assert.deepEqual(
    await transcriptPositions(page),
    fatalView.transcript.map((t) => t.position),
  );
  await page.screenshot({ path: join(shots, "viewer-model-calls.png"), fullPage: true });
  // Time travel: as of the attempt, the first call has no answer yet.
  await showView(page, fatalView, calls[0].answer - 1);
  assert.match(
    await page.locator("li.asv-t-model_call").first().textContent(),
    /Model call · no answer yet/,
  );

  // crash_wake: a divider where the second life begins, its calls after it.
  const wake = corpus("crash_wake.jsonl");
  const wakeView = {
    ...contractView(wake),
    snapshot: rebuildOsSnapshot(wake),
  };
  await showView(page, wakeView);
  const items = await page.$$eval("[data-testid=transcript] > li", (lis) =>
    lis.map((li) =>
      li.classList.contains("asv-life") ? `life ${li.dataset.life}` : li.dataset.position,
    ),
  );
  const second = wakeView.transcript.filter((t) => t.life === 2).map((t) => String(t.position));
  assert.equal(items.filter((i) => i.startsWith("life")).length, wakeView.lives.length - 1);
  assert.deepEqual(items.slice(items.indexOf("life 2") + 1), second);
  assert.match(await page.locator(".asv-life").textContent(), /life 2 \(after wake\)/);
  await page.screenshot({ path: join(shots, "viewer-lives.png"), fullPage: true });

  // workflow: a node per outcome, with its status and its process's state.
  const flow = corpus("workflow.jsonl");
  const flowView = { ...contractView(flow), snapshot: rebuildOsSnapshot(flow) };
  await showView(page, flowView);
  const done = parseLog(flow).events.find((e) => e.kind === "workflow_completed");
  const rows = await page.$$eval("[data-testid=workflow] tbody tr", (trs) =>
    trs.map((tr) => [...tr.cells].map((c) => c.textContent)),
  );
  const state = new Map(flowView.processes.map((p) => [p.agent_id, p.state]));
  assert.deepEqual(
    rows.map(([node, , status, process]) => [node, status, process]),
    done.node_outcomes.map((o) => [
      o.node_id,
      o.termination === o.status ? o.status : `${o.status} (${o.termination})`,
      state.get(o.node_id) ?? "",
    ]),
  );
  assert.match(
    await page.locator("[data-key=workflow-status]").textContent(),
    new RegExp(`completed: ${done.node_outcomes.length} of ${done.total_nodes}`),
  );
  await page
    .locator("[data-testid=workflow]")
    .screenshot({ path: join(shots, "viewer-workflow.png") });
  assert.deepEqual(problems, []);
  await page.close();
});

/** Shows the page's viewer element, for tests that drive it from the
 * page: `showData(el, data)` sets `el.data` and resolves once it has
 * rendered, `nextFrame()` resolves after the next frame's task. */
async function installShowData(page) {
  await page.waitForFunction(() => customElements.get("agent-session-viewer"));
  await page.evaluate(() => {
    document.getElementById("main").hidden = false;
    document.getElementById("welcome").hidden = true;
    window.showData = (el, data) =>
      new Promise((resolve) => {
        el.addEventListener("rendered", resolve, { once: true });
        el.data = data;
      });
    window.nextFrame = () =>
      new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  });
}

test("a time-travel step keeps what did not change and shows what a fresh render shows", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await installShowData(page);
  const log = corpus("long_run.jsonl");
  const view = { ...contractView(log), snapshot: rebuildOsSnapshot(log) };
  const positions = view.transcript.map((t) => t.position);
  // The end, one entry back, halfway back, and the end again.
  const steps = [positions.at(-1), positions.at(-2), positions[positions.length >> 1]];
  steps.push(steps[0]);
  const shown = await page.evaluate(
    async ({ view, steps }) => {
      const viewer = document.getElementById("viewer");
      const show = (el, at) => showData(el, { view, snapshot: view.snapshot, at });
      // The charts are canvases drawn apart: compared elsewhere. Which
      // entries are built (not `asv-later`) depends on the scroll: the
      // panels are compared with each entry's box alone, and the entries
      // built in both one by one.
      const html = (el) => {
        const copy = el.cloneNode(true);
        copy.querySelector(".asv-charts")?.remove();
        const built = [];
        for (const li of copy.querySelectorAll("[data-testid=transcript] > .asv-t")) {
          built.push(li.classList.contains("asv-later") ? null : li.innerHTML);
          li.classList.remove("asv-later");
          li.replaceChildren();
        }
        return { boxes: copy.innerHTML, built };
      };
      const sameAs = (a, b) => {
        const [x, y] = [html(a), html(b)];
        const both = x.built.filter((e, i) => e !== null && y.built[i] !== null);
        return {
          same:
            x.boxes === y.boxes && x.built.every((e, i) => !e || !y.built[i] || e === y.built[i]),
          builtInBoth: both.length,
        };
      };
      // Entries by position (the tool calls of one event share it: counted).
      const entries = () => {
        const seen = new Map();
        return new Map(
          [...viewer.querySelectorAll("[data-testid=transcript] > li")].map((li) => {
            const n = seen.get(li.dataset.position) ?? 0;
            seen.set(li.dataset.position, n + 1);
            return [`${li.dataset.position}#${n}`, li];
          }),
        );
      };
      const out = [];
      for (const at of steps) {
        const before = entries();
        const snapshot = [...viewer.querySelectorAll("[data-testid=snapshot] *")];
        await show(viewer, at);
        const fresh = document.createElement("agent-session-viewer");
        document.body.append(fresh);
        await show(fresh, at);
        const now = [...entries()].filter(([key]) => before.has(key));
        const { same, builtInBoth } = sameAs(viewer, fresh);
        out.push({
          asFresh: same,
          builtInBoth,
          entriesKept: now.filter(([key, li]) => before.get(key) === li).length,
          entriesShared: now.length,
          snapshotKept: snapshot.filter((el) => viewer.contains(el)).length,
          snapshotBefore: snapshot.length,
        });
        fresh.remove();
      }
      return out;
    },
    { view, steps },
  );
  for (const [i, step] of shown.entries()) {
    assert.ok(step.asFresh, `step ${i}: the panels differ from a fresh render`);
    assert.ok(step.builtInBoth >= 3, `step ${i}: too few entries built in both`);
    // Entries shown before and after are the same elements, not rebuilt.
    assert.equal(step.entriesKept, step.entriesShared, `step ${i}: entries rebuilt`);
    // The snapshot's input does not change: none of its elements is replaced.
    assert.equal(step.snapshotKept, step.snapshotBefore, `step ${i}: snapshot rebuilt`);
  }
  assert.ok(shown[1].entriesShared > 10 && shown[1].snapshotBefore > 10, "too little to compare");
  assert.deepEqual(problems, []);
  await page.close();
});

test("a step lays out the transcript entries near the viewport; scrolling lays out the rest", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await page.waitForFunction(() => customElements.get("agent-session-viewer"));
  const log = corpus("long_run.jsonl");
  const view = { ...contractView(log), snapshot: rebuildOsSnapshot(log) };
  const at = view.transcript.at(-1).position;
  /** Per entry: built and laid out (its contents rendered), in the
   * viewport, within a viewport of it. */
  const entries = () =>
    page.$$eval("#viewer [data-testid=transcript] > li.asv-t", (lis) =>
      lis.map((li) => {
        const { top, bottom } = li.getBoundingClientRect();
        return {
          position: Number(li.dataset.position),
          laidOut: li.querySelector(".asv-t-body")?.checkVisibility() ?? false,
          inView: bottom > 0 && top < innerHeight,
          near: bottom > -innerHeight && top < innerHeight * 2,
        };
      }),
    );
  await page.evaluate(
    ({ view, at }) => {
      document.getElementById("main").hidden = false;
      document.getElementById("welcome").hidden = true;
      const viewer = document.getElementById("viewer");
      return new Promise((resolve) => {
        viewer.addEventListener("rendered", resolve, { once: true });
        viewer.data = { view, snapshot: view.snapshot, at };
      });
    },
    { view, at },
  );
  const first = await entries();
  assert.ok(first.length > 50, "too few entries to lay out in part");
  assert.ok(first.some((e) => e.inView));
  for (const e of first) {
    if (e.inView) assert.ok(e.laidOut, `entry #${e.position}, in view, is laid out`);
    if (!e.near) assert.ok(!e.laidOut, `entry #${e.position}, far from view, is not laid out`);
  }
  // Scrolled to the last entry: the entries now in view are laid out, and
  // a click on one selects its position. (Entries above it that are laid
  // out grow from their estimated height and move it: scrolled to again.)
  for (let i = 0; i < 2; i++) {
    await page
      .locator("#viewer [data-testid=transcript] > li.asv-t")
      .last()
      .evaluate((li) => li.scrollIntoView({ block: "end" }));
    await page.waitForFunction(() =>
      [...document.querySelectorAll("#viewer [data-testid=transcript] > li.asv-t")].every((li) => {
        const { top, bottom } = li.getBoundingClientRect();
        return (
          bottom <= 0 || top >= innerHeight || li.querySelector(".asv-t-body")?.checkVisibility()
        );
      }),
    );
  }
  const last = (await entries()).at(-1);
  assert.ok(
    last.inView && last.laidOut,
    `the last entry, scrolled to, is laid out: ${JSON.stringify(last)}`,
  );
  const selected = page.evaluate(
    () =>
      new Promise((resolve) =>
        document.addEventListener("select-position", (e) => resolve(e.detail.position), {
          once: true,
        }),
      ),
  );
  await page.locator("#viewer [data-testid=transcript] > li.asv-t .asv-pos").last().click();
  assert.equal(await selected, last.position);
  assert.deepEqual(problems, []);
  await page.close();
});

test("an entry far from view when its state changes shows the new state once scrolled near", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await installShowData(page);
  const log = corpus("long_run.jsonl");
  const view = { ...contractView(log), snapshot: rebuildOsSnapshot(log) };
  // A tool call late in the list, whose result comes a few events after it.
  const call = view.transcript.filter((t) => t.type === "tool_call" && t.result).at(-20);
  const seen = await page.evaluate(
    async ({ view, call }) => {
      const viewer = document.getElementById("viewer");
      const show = (el, at) => showData(el, { view, snapshot: view.snapshot, at });
      const entry = (root) =>
        root.querySelector(
          `[data-testid=transcript] > li.asv-t-tool_call[data-position="${call.position}"]`,
        );
      /** Scrolls the entry into view; resolves once its body is drawn. */
      const reveal = async () => {
        for (let i = 0; i < 50; i++) {
          entry(viewer).scrollIntoView({ block: "center" });
          await nextFrame();
          if (entry(viewer).querySelector(".asv-t-body")?.checkVisibility()) return true;
        }
        return false;
      };
      const output = () => entry(viewer).querySelector(".asv-output")?.textContent ?? null;
      await show(viewer, call.result.position - 1);
      const before = { revealed: await reveal(), output: output() };
      // Far from view (the list's top), the result comes.
      viewer.querySelector("[data-testid=transcript]").scrollIntoView({ block: "start" });
      await nextFrame();
      await show(viewer, call.result.position);
      const far = entry(viewer).querySelector(".asv-t-body")?.checkVisibility() ?? false;
      const after = { revealed: await reveal(), output: output() };
      const fresh = document.createElement("agent-session-viewer");
      document.body.append(fresh);
      await show(fresh, call.result.position);
      entry(fresh).scrollIntoView({ block: "center" });
      for (let i = 0; i < 50 && !entry(fresh).querySelector(".asv-t-body"); i++) await nextFrame();
      const same = entry(fresh).outerHTML === entry(viewer).outerHTML;
      fresh.remove();
      return { before, far, after, same };
    },
    { view, call },
  );
  assert.deepEqual(seen, {
    before: { revealed: true, output: null },
    far: false,
    after: { revealed: true, output: call.result.output },
    same: true,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("the first render leaves the panels below the charts for tasks of their own, each then shown as built in place", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await installShowData(page);
  const state = new SessionState().apply(sample);
  const data = { view: state.view(), snapshot: state.osSnapshot() };
  state.free();
  const seen = await page.evaluate(async (data) => {
    const viewer = await import("/agent-replay/js/viewer/index.js");
    const ids = ["workflow", "activity", "snapshot", "processes"];
    const el = document.getElementById("viewer");
    const panel = (id) => el.querySelector(`[data-testid=${id}]`);
    const rendered = new Promise((resolve) =>
      el.addEventListener("rendered", resolve, { once: true }),
    );
    el.data = data;
    await Promise.resolve();
    // Right after the render's task: stand-ins, empty and hidden.
    const first = ids.map((id) => [id, panel(id)?.matches(".asv-later:empty") ?? null]);
    await rendered;
    await new Promise((resolve) => requestIdleCallback(resolve));
    await nextFrame();
    // Each laid out once, far from view too: the page is as tall as if built at the render.
    const heights = ids.map((id) => panel(id).getBoundingClientRect().height);
    const digest = viewer.viewDigest(data.view);
    const built = {
      workflow: viewer.renderWorkflow(digest.workflow, data.view.processes, Infinity),
      activity: viewer.renderActivity(digest.activity, digest.observations, Infinity),
      snapshot: viewer.renderSnapshot(data.snapshot),
      processes: viewer.renderProcesses(data.view.processes, data.view.run?.run_id),
    };
    const shown = [];
    for (const id of ids) {
      panel(id).scrollIntoView();
      await nextFrame();
      shown.push([
        id,
        {
          drawn: panel(id).firstElementChild?.checkVisibility() ?? false,
          same: panel(id).outerHTML === built[id].outerHTML,
          height: panel(id).getBoundingClientRect().height === heights[ids.indexOf(id)],
        },
      ]);
    }
    return { first, shown };
  }, data);
  const ids = ["workflow", "activity", "snapshot", "processes"];
  assert.deepEqual(seen, {
    first: ids.map((id) => [id, true]),
    shown: ids.map((id) => [id, { drawn: true, same: true, height: true }]),
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("a panel far from view is left as it was, then shows the new state once scrolled near", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=`);
  await installShowData(page);
  const stateAt = (at) => {
    const state = new SessionState().apply(lines.slice(0, at).join("\n"));
    const data = { view: state.view(), snapshot: state.osSnapshot() };
    state.free();
    return data;
  };
  const [early, late] = [stateAt(30), stateAt(N)];
  assert.notDeepEqual(early.view.processes, late.view.processes);
  const seen = await page.evaluate(
    async ({ early, late }) => {
      const viewer = document.getElementById("viewer");
      const show = showData;
      const panel = (root) => root.querySelector("[data-testid=processes]");
      scrollTo(0, 0);
      await show(viewer, early);
      await nextFrame();
      const before = panel(viewer).outerHTML;
      const far = panel(viewer).getBoundingClientRect().top > innerHeight * 1.5;
      await show(viewer, late);
      await nextFrame();
      const left = {
        hidden: panel(viewer).classList.contains("asv-later"),
        drawn: panel(viewer).firstElementChild?.checkVisibility() ?? false,
      };
      panel(viewer).scrollIntoView();
      for (let i = 0; i < 50 && panel(viewer).classList.contains("asv-later"); i++)
        await nextFrame();
      const fresh = document.createElement("agent-session-viewer");
      document.body.append(fresh);
      await show(fresh, late);
      const same = panel(fresh).outerHTML === panel(viewer).outerHTML;
      fresh.remove();
      return { far, left, changed: before !== panel(viewer).outerHTML, same };
    },
    { early, late },
  );
  assert.deepEqual(seen, {
    far: true,
    left: { hidden: true, drawn: false },
    changed: true,
    same: true,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("printing builds what was left for later", async () => {
  const { page, problems } = await openPage(`${main.url}/?log=/sample.jsonl`);
  await waitPosition(page, `event ${N} of ${N}`);
  await page.$eval("[data-testid=scrubber]", (el) => {
    el.value = "30";
    el.dispatchEvent(new Event("input"));
  });
  await waitPosition(page, `event 30 of ${N}`);
  const later = () => page.evaluate(() => document.querySelectorAll(".asv-later").length);
  assert.ok((await later()) > 0, "nothing left for later to print");
  await page.pdf({ path: join(shots, "viewer-print.pdf") });
  assert.equal(await later(), 0);
  assert.deepEqual(problems, []);
  await page.close();
});

test("time travel marks the position on charts of the whole run, and redraws no canvas", async () => {
  const { page, problems } = await openModulesPage();
  const view = contractView(corpus("long_run.jsonl"));
  const seen = await page.evaluate(async (view) => {
    const { renderCharts, chartSeries } = await import("/agent-replay/js/viewer/index.js");
    const host = document.createElement("section");
    host.style.width = "600px";
    document.body.prepend(host);
    const series = chartSeries(view);
    const { x: xs, position } = series.turns;
    const turns = Array.from(xs, (x, k) => ({ x, position: position[k] })).sort(
      (a, b) => a.position - b.position,
    );
    const charts = renderCharts(host, series, turns[1].position);
    await new Promise((resolve) => charts.whenDrawn(resolve));
    const pixels = () => [...host.querySelectorAll("canvas")].map((c) => c.toDataURL());
    const drawn = pixels();
    const [lo, hi] = [Math.min(...xs), Math.max(...xs)];
    /** Each plot's playhead: hidden, or its offset from where the plot
     * area starts, against where the position's turn is on the x axis. */
    const playheads = (x) =>
      [...host.querySelectorAll(".u-over")].map((over) => {
        const after = over.querySelector(".asv-after");
        if (after.hidden) return "hidden";
        const offset = after.getBoundingClientRect().left - over.getBoundingClientRect().left;
        const want = x === null ? 0 : ((x - lo) / (hi - lo)) * over.getBoundingClientRect().width;
        return Math.abs(offset - want) < 1.5 ? "at its turn" : `${offset} px, not ${want}`;
      });
    const at = {};
    // A turn's start, an event in the middle of a turn, before the first
    // turn, and no position (Infinity: the whole run, unmarked).
    const middle = Math.floor((turns[4].position + turns[5].position) / 2);
    for (const [name, position, x] of [
      ["turn 3", turns[2].position, turns[2].x],
      ["last turn", turns.at(-1).position, turns.at(-1).x],
      ["within turn 5", middle, turns[4].x],
      ["before the first turn", turns[0].position - 1, null],
      ["none", Infinity],
    ]) {
      charts.update(series, position);
      at[name] = [...new Set(playheads(x))];
    }
    // uPlot draws new data in a microtask: none was given.
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
    const unchanged = pixels().join() === drawn.join();
    charts.destroy();
    host.remove();
    return { plots: drawn.length, at, unchanged };
  }, view);
  // The run reports no budget usage: three plots.
  assert.deepEqual(seen, {
    plots: 3,
    at: {
      "turn 3": ["at its turn"],
      "last turn": ["at its turn"],
      "within turn 5": ["at its turn"],
      "before the first turn": ["at its turn"],
      none: ["hidden"],
    },
    unchanged: true,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("charts far from the viewport take the grown run once they come near, or when flushed", async () => {
  const { page, problems } = await openModulesPage();
  const view = contractView(corpus("long_run.jsonl"));
  const seen = await page.evaluate(async (view) => {
    const { renderCharts, chartSeries, cutSeries } = await import(
      "/agent-replay/js/viewer/index.js"
    );
    const frames = (n) =>
      new Promise((resolve) => {
        const next = (k) => (k ? requestAnimationFrame(() => next(k - 1)) : setTimeout(resolve));
        next(n);
      });
    const spacer = document.createElement("div");
    spacer.style.height = `${innerHeight * 4}px`;
    const host = document.createElement("section");
    document.body.append(spacer, host);
    // The run as it was at event 12, then as it grew (live).
    const series = chartSeries(view);
    const early = cutSeries(series, 12);
    const charts = renderCharts(host, early, 12);
    await new Promise((resolve) => charts.whenDrawn(resolve));
    const pixels = () => [...host.querySelectorAll("canvas")].map((c) => c.toDataURL());
    const first = pixels();
    charts.update(series, 12);
    await frames(2);
    const farAfterUpdate = pixels();
    host.scrollIntoView();
    let nearAfterScroll = pixels();
    for (let k = 0; k < 20 && nearAfterScroll.join() === first.join(); k++) {
      await frames(1);
      nearAfterScroll = pixels();
    }
    scrollTo(0, 0);
    await frames(2);
    // uPlot draws new data in a microtask.
    charts.update(early, 12);
    await Promise.resolve();
    const farBeforeFlush = pixels();
    charts.flush();
    await Promise.resolve();
    const flushed = pixels();
    charts.destroy();
    const fresh = renderCharts(host, series, 12);
    await new Promise((resolve) => fresh.whenDrawn(resolve));
    const latest = pixels();
    fresh.destroy();
    spacer.remove();
    host.remove();
    const same = (a, b) => a.join() === b.join();
    return {
      canvasesAt12: first.length,
      farUpdateLeftAsWas: same(farAfterUpdate, first),
      nearShowsLatest: same(nearAfterScroll, latest),
      latestDiffers: !same(latest, first),
      flushWaitsFor: same(farBeforeFlush, latest),
      flushShowsEarly: same(flushed, first),
    };
  }, view);
  // By event 12 one chart has no data yet: three canvases.
  assert.deepEqual(seen, {
    canvasesAt12: 3,
    farUpdateLeftAsWas: true,
    nearShowsLatest: true,
    latestDiffers: true,
    flushWaitsFor: true,
    flushShowsEarly: true,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("renderCharts imports uPlot, makes one chart per task and says when all are drawn", async () => {
  const { page, problems } = await openModulesPage();
  const log = corpus("long_run.jsonl");
  const view = contractView(log);
  const counts = await page.evaluate(async (view) => {
    const { renderCharts, chartSeries } = await import("/agent-replay/js/viewer/index.js");
    // uPlot is imported with the first chart, not with the page's modules.
    const uPlotLoaded = () =>
      performance.getEntriesByType("resource").some((r) => r.name.endsWith("/uPlot.esm.js"));
    const loadedBefore = uPlotLoaded();
    const host = document.createElement("section");
    document.body.append(host);
    const charts = renderCharts(host, chartSeries(view));
    const figures = () => host.querySelectorAll("figure").length;
    const atReturn = figures();
    let drawn = false;
    charts.whenDrawn(() => {
      drawn = true;
    });
    const drawnAtReturn = drawn;
    const atEnd = await new Promise((resolve) => charts.whenDrawn(() => resolve(figures())));
    // Once drawn, a callback runs at once.
    let now = false;
    charts.whenDrawn(() => (now = true));
    charts.destroy();
    // Once uPlot is loaded, the first chart is made at once.
    const again = renderCharts(host, chartSeries(view));
    const againAtReturn = figures();
    again.destroy();
    return {
      loadedBefore,
      atReturn,
      drawnAtReturn,
      atEnd,
      now,
      left: figures(),
      loadedAfter: uPlotLoaded(),
      againAtReturn,
    };
  }, view);
  assert.deepEqual(counts, {
    loadedBefore: false,
    atReturn: 0,
    drawnAtReturn: false,
    atEnd: 4,
    now: true,
    left: 0,
    loadedAfter: true,
    againAtReturn: 1,
  });
  assert.deepEqual(problems, []);
  await page.close();
});

test("each state brings the model calls its transcript shows, as the whole digest places them", async () => {
  const text = corpus("long_run.jsonl");
  const n = text.trimEnd().split("\n").length;
  const state = new SessionState();
  state.apply(text);
  const view = { ...state.view(), snapshot: state.osSnapshot() };
  // A viewport that holds every entry: each is built at once (not when
  // scrolled near), and all are compared.
  const { page, problems } = await openPage(`${main.url}/?log=/files/long_run.jsonl`, {
    width: 1400,
    height: 40_000,
  });
  const of = (p) => `event ${p.toLocaleString("en-US")} of ${n.toLocaleString("en-US")}`;
  await waitPosition(page, of(n));
  for (const at of [Math.floor(n / 2), n]) {
    await page.$eval(
      "[data-testid=scrubber]",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      at,
    );
    await waitPosition(page, of(at));
    // The page's viewer (fed by the worker) beside one given the whole view.
    const [shown, whole] = await page.evaluate(
      async ({ view, at }) => {
        const calls = (root) =>
          Object.fromEntries(
            [...root.querySelectorAll("[data-testid=transcript] > li")].map((li) => [
              `${li.dataset.position} ${li.className.replace(" asv-later", "")}`,
              [...li.querySelectorAll(".asv-call")].map((c) => c.dataset.effect).join(),
            ]),
          );
        const fresh = document.createElement("agent-session-viewer");
        document.body.append(fresh);
        await new Promise((resolve) => {
          fresh.addEventListener("rendered", resolve, { once: true });
          fresh.data = { view, snapshot: view.snapshot, at };
        });
        const out = [calls(document.getElementById("viewer")), calls(fresh)];
        fresh.remove();
        return out;
      },
      { view, at },
    );
    const entries = Object.keys(shown);
    assert.ok(entries.length > 10, `at ${at}: too few entries`);
    assert.ok(Object.values(shown).filter(Boolean).length > 3, `at ${at}: too few calls`);
    assert.deepEqual(
      shown,
      Object.fromEntries(entries.map((key) => [key, whole[key]])),
      `at ${at}`,
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
});
