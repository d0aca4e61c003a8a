// The runs dashboard of `serve DIR` (/sessions): the API it reads (rows with
// the core's totals, sub-agent sessions naming their parent, changes since a
// version, search across runs) and, in Chromium, sorting, filters, nesting,
// live updates, a search result's deep link into the viewer, and Compare.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  unlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionState, parseLog } from "agent-replay";
import { launchChromium } from "./browsers.mjs";
import { serve } from "../../bin/serve.js";
import { writeRuns } from "../../benches/dashboard-data.mjs";
import { searchFiles } from "../../bin/search-dir.js";
import { failingTools, runsOverTime } from "../../www/sessions-charts.js";
import { OUTCOMES, outcomeTone } from "../../js/viewer/status.js";
import { THEMES, TONE_COLORS } from "../../js/viewer/palette.js";
import { figuresOf, noFilter, visibleRows } from "../../www/sessions-rows.js";

const root = new URL("../..", import.meta.url).pathname;
const corpus = new URL("../corpus/deepstrike-0.2.77/", import.meta.url).pathname;
/** Runs written: one of each corpus family but the longest, a workflow with its three nodes. */
const RUNS = 20;

let dir;
let server;
let ids;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "dashboard-"));
  ids = writeRuns(dir, RUNS);
  server = await serve({ port: 0, dir, pollMs: 100 });
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const get = async (path) => {
  const response = await fetch(`${server.url}${path}`);
  return { status: response.status, body: await response.json() };
};
const list = async () => (await get("/api/sessions")).body;
const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));
const workflow = () => ids.find((id) => /^workflow-\d+$/.test(id));

/** Polls `read` until `check` holds of what it gives (at most 10 s); returns it. */
async function until(read, check, what) {
  for (let tries = 0; tries < 500; tries += 1) {
    const value = await read();
    if (check(value)) return value;
    await sleep(20);
  }
  assert.fail(what);
}

test("each row carries the core's summary totals, as a fold of its file gives them", async () => {
  const { sessions, version } = await list();
  assert.equal(sessions.length, ids.length);
  assert.ok(Number.isInteger(version) && version > 0);
  const tools = ids.find((id) => id.startsWith("tools-"));
  const row = sessions.find((s) => s.session_id === tools);
  const state = new SessionState();
  state.write(readFileSync(join(dir, `${tools}.jsonl`)));
  const totals = state.summary().totals;
  state.free();
  assert.deepEqual(
    [row.input_tokens, row.output_tokens, row.tool_calls, row.tools, row.models],
    [totals.input_tokens, totals.output_tokens, totals.tool_calls, totals.tools, totals.models],
  );
  assert.deepEqual([row.started_ms, row.ended_ms], [totals.first_ms, totals.last_ms]);
  assert.ok(
    row.tools.some((t) => t.errors > 0),
    "a failing tool is named",
  );
  assert.ok(row.goal.includes("wipe the disk"));
});

test("a workflow's sub-agent sessions name it as their parent; its row says its workflow finished", async () => {
  const { sessions } = await list();
  const parent = workflow();
  const children = sessions.filter((s) => s.parent_session_id === parent);
  assert.deepEqual(
    children.map((c) => c.session_id).sort(),
    [0, 1, 2].map((n) => `${parent}-wf-node${n}`),
  );
  const row = sessions.find((s) => s.session_id === parent);
  assert.equal(row.parent_session_id, null);
  assert.equal(row.status.state, "running", "the log never gets run_terminal");
  assert.equal(row.workflow_done, true);
  assert.deepEqual(
    row.sub_agents.map((p) => [p.agent_id, p.state]),
    [0, 1, 2].map((n) => [`wf-node${n}`, "joined"]),
  );
  // What the table shows of it: finished, its sub-agents' turns and clock.
  const figures = figuresOf(row, children);
  assert.equal(figures.status, "workflow finished: completed");
  assert.equal(
    figures.turns,
    children.reduce((sum, c) => sum + c.turns, 0),
  );
  assert.ok(figures.turns > 0 && figures.duration >= 0);
});

test("?since=VERSION answers only the rows changed and the ids removed since", async () => {
  const { version } = await list();
  const quiet = await get(`/api/sessions?since=${version}`);
  assert.deepEqual(quiet.body, { version, full: false, sessions: [], removed: [] });
  const lines = readFileSync(join(corpus, "tools.jsonl"), "utf8").trimEnd().split("\n");
  writeFileSync(join(dir, "late.jsonl"), `${lines.slice(0, 5).join("\n")}\n`);
  const added = await until(
    () => get(`/api/sessions?since=${version}`),
    (a) => a.body.sessions.length > 0,
    "the new file is a change",
  );
  assert.deepEqual(
    added.body.sessions.map((s) => [s.session_id, s.events]),
    [["late", 5]],
  );
  appendFileSync(join(dir, "late.jsonl"), `${lines[5]}\n`);
  const grown = await until(
    () => get(`/api/sessions?since=${added.body.version}`),
    (a) => a.body.sessions.some((s) => s.events === 6),
    "the appended line is a change",
  );
  assert.deepEqual(grown.body.removed, []);
  unlinkSync(join(dir, "late.jsonl"));
  const gone = await until(
    () => get(`/api/sessions?since=${grown.body.version}`),
    (a) => a.body.removed.length > 0,
    "the removal is a change",
  );
  assert.deepEqual([gone.body.removed, gone.body.sessions], [["late"], []]);
  const unknown = await get(`/api/sessions?since=${gone.body.version + 5}`);
  assert.equal(unknown.body.full, true, "a version from elsewhere gets the whole list");
  assert.equal(unknown.body.sessions.length, ids.length);
});

test("a parent written after its sub-agent's session: the sub-agent's row is sent again, nested", async () => {
  const child = readFileSync(join(corpus, "workflow.workflow-wf-node0.jsonl"));
  writeFileSync(join(dir, "fam-wf-node0.jsonl"), child);
  const alone = await until(
    list,
    (l) => l.sessions.some((s) => s.session_id === "fam-wf-node0"),
    "listed",
  );
  const row = (answer) => answer.body.sessions.find((s) => s.session_id === "fam-wf-node0");
  assert.equal(alone.sessions.find((s) => s.session_id === "fam-wf-node0").parent_session_id, null);
  writeFileSync(join(dir, "fam.jsonl"), readFileSync(join(corpus, "workflow.jsonl")));
  const nested = await until(
    () => get(`/api/sessions?since=${alone.version}`),
    (a) => row(a)?.parent_session_id === "fam",
    "the sub-agent's row is sent again with its parent",
  );
  unlinkSync(join(dir, "fam.jsonl"));
  const orphan = await until(
    () => get(`/api/sessions?since=${nested.body.version}`),
    (a) => a.body.removed.includes("fam"),
    "the parent's removal is a change",
  );
  assert.equal(row(orphan)?.parent_session_id, null, "and its sub-agent's row with it");
  unlinkSync(join(dir, "fam-wf-node0.jsonl"));
  await until(list, (l) => !l.sessions.some((s) => s.session_id === "fam-wf-node0"), "removed");
});

test("/api/search answers each matching event's session, position and text, bounded", async () => {
  const query = "WIPE_disk"; // matched whatever the case
  const { body } = await get(`/api/search?q=${query}&limit=1000`);
  assert.equal(body.truncated, false);
  assert.equal(body.sessions_searched, ids.length);
  assert.ok(body.matches.length > 0);
  for (const m of body.matches.slice(0, 10)) {
    const { events } = parseLog(readFileSync(join(dir, `${m.session_id}.jsonl`)));
    const text = JSON.stringify(events[m.position - 1]).toLowerCase();
    assert.ok(text.includes(query.toLowerCase()), `${m.session_id} at ${m.position}`);
    assert.ok(m.text.toLowerCase().includes(query.toLowerCase()));
  }
  const first = await get(`/api/search?q=${query}&limit=2`);
  assert.deepEqual([first.body.matches.length, first.body.truncated], [2, true]);
  const none = await get("/api/search?q=no%20such%20text%20anywhere");
  assert.deepEqual([none.body.matches, none.body.truncated], [[], false]);
  for (const bad of ["", "?q=", "?q=x&limit=0", `?q=${"x".repeat(1001)}`]) {
    const answer = await get(`/api/search${bad}`);
    assert.equal(answer.status, 400, bad);
    assert.equal(answer.body.error.code, "invalid_request");
  }
});

test("a search out of time answers what it found so far and says it stopped", async () => {
  const path = join(corpus, "tools.jsonl");
  const file = {
    id: "tools",
    path,
    complete: readFileSync(path).length,
    mtimeMs: 0,
    summary: null,
  };
  const found = await searchFiles([file], "wipe_disk");
  assert.deepEqual([found.matches.length > 0, found.timed_out], [true, false]);
  const late = await searchFiles([file], "wipe_disk", { maxMs: -1 });
  assert.deepEqual([late.matches, late.sessions_searched, late.timed_out], [[], 0, true]);
});

test("a search across runs finds what the viewer finds, at the position the viewer shows", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-search-"));
  const events = [
    { kind: "run_started", run_id: "r", goal: "Ärger im Büro" },
    { kind: "page_out", turn: 1, message_count: 3 },
    { kind: "page_out", turn: 2, message_count: 4, note: "mehr ärger" },
  ];
  // A line the reader rejects between them: the viewer does not count it.
  const lines = [
    JSON.stringify(events[0]),
    "{not json",
    ...events.slice(1).map((e) => JSON.stringify(e)),
  ];
  const path = join(dir, "r.jsonl");
  writeFileSync(path, `${lines.join("\n")}\n`);
  const file = { id: "r", path, complete: readFileSync(path).length, mtimeMs: 0, summary: null };
  const found = await searchFiles([file], "ÄRGER");
  assert.deepEqual(
    found.matches.map((m) => m.position),
    [1, 3],
  );
  const viewer = parseLog(readFileSync(path)).events;
  for (const m of found.matches) assert.match(JSON.stringify(viewer[m.position - 1]), /ärger/i);
});

test("sorting and filtering: empty values last, a parent shown when a sub-agent matches", async () => {
  const { sessions } = await list();
  const show = (options) =>
    visibleRows(sessions, { filter: noFilter(), expanded: new Set(), ...options });
  const byTurns = show({ sort: { key: "turns", dir: -1 } }).map((e) => e.figures.turns);
  assert.deepEqual(
    byTurns,
    [...byTurns].sort((a, b) => b - a),
  );
  const failed = show({
    sort: { key: "session", dir: 1 },
    filter: { ...noFilter(), status: "failed" },
  });
  assert.ok(failed.length > 0 && failed.every((e) => e.figures.outcome === "failed"));
  const readFile = show({
    sort: { key: "session", dir: 1 },
    filter: { ...noFilter(), tool: "read_file", error: "tool_errors" },
  });
  assert.ok(readFile.every((e) => e.row.tools.some((t) => t.name === "read_file" && t.errors)));
  const nodes = show({
    sort: { key: "session", dir: 1 },
    filter: { ...noFilter(), text: "wf-node2" },
    expanded: new Set([workflow()]),
  });
  assert.deepEqual(
    nodes.map((e) => [e.row.session_id, e.depth]),
    [
      [workflow(), 0],
      [`${workflow()}-wf-node2`, 1],
    ],
  );
});

test("the charts count every run shown by outcome, and the failed results of each tool", async () => {
  const { sessions } = await list();
  const entries = visibleRows(sessions, {
    filter: noFilter(),
    sort: { key: "written", dir: -1 },
    expanded: new Set(),
  });
  const { buckets } = runsOverTime(entries);
  for (const outcome of OUTCOMES) {
    const counted = buckets.reduce((sum, b) => sum + b[outcome], 0);
    assert.equal(counted, entries.filter((e) => e.figures.outcome === outcome).length, outcome);
  }
  const failed = new Map();
  for (const s of sessions)
    for (const t of s.tools) failed.set(t.name, (failed.get(t.name) ?? 0) + t.errors);
  const top = failingTools(entries);
  assert.ok(top.length > 0);
  for (const [name, n] of top) assert.equal(n, failed.get(name), name);
  assert.deepEqual(
    top.map(([, n]) => n),
    top.map(([, n]) => n).sort((a, b) => b - a),
  );
});

test("in Chromium: sort, filter, nest, follow live, search with a deep link, compare two runs", async () => {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    const polls = [];
    page.on("request", (r) => r.url().includes("/api/sessions") && polls.push(r.url()));
    await page.goto(`${server.url}/sessions`);
    await page.waitForSelector("tr[data-session]");
    const shownIds = () =>
      page.$$eval("tbody tr[data-session]", (trs) => trs.map((tr) => tr.dataset.session));
    const column = (key) =>
      page.$$eval(`tbody td[data-col=${key}]`, (tds) =>
        tds.map((td) => Number(td.textContent.replace(/,/g, ""))),
      );

    // Sort: by tool calls, most first; again, fewest first.
    await page.click("[data-testid=sort-tool_calls]");
    const most = await column("tool_calls");
    assert.deepEqual(
      most,
      [...most].sort((a, b) => b - a),
    );
    await page.click("[data-testid=sort-tool_calls]");
    const fewest = await column("tool_calls");
    assert.deepEqual(
      fewest,
      [...fewest].sort((a, b) => a - b),
    );

    // Nesting: the workflow's sub-agents under it, once opened.
    const parent = workflow();
    assert.ok(!(await shownIds()).some((id) => id.startsWith(`${parent}-`)));
    await page.click(`tr[data-session="${parent}"] [data-testid=toggle]`);
    const nested = await page.$$eval(`tr[data-parent="${parent}"]`, (trs) =>
      trs.map((tr) => tr.dataset.session),
    );
    assert.equal(nested.length, 3);
    const status = await page.$eval(
      `tr[data-session="${parent}"] td[data-col=status]`,
      (td) => td.textContent,
    );
    assert.equal(status, "workflow finished: completed");

    // Each status pill and runs-over-time bar in its tone's colour, the palette's.
    const rgb = (hex) =>
      `rgb(${[1, 3, 5].map((i) => Number.parseInt(hex.slice(i, i + 2), 16)).join(", ")})`;
    const pills = await page.$$eval("tbody td[data-col=status] .pill", (spans) =>
      spans.map((s) => [s.classList[1], getComputedStyle(s).color]),
    );
    assert.ok(pills.length > 0);
    for (const [tone, color] of pills)
      assert.equal(color, rgb(THEMES.light[TONE_COLORS[tone][0]]), tone);
    const bars = await page.$$eval("[data-testid=charts] rect.bar", (rects) =>
      rects.map((r) => [r.classList[1], getComputedStyle(r).fill]),
    );
    const outcomeBars = bars.filter(([outcome]) => OUTCOMES.includes(outcome));
    assert.ok(outcomeBars.length > 0);
    for (const [outcome, fill] of outcomeBars)
      assert.equal(fill, rgb(THEMES.light[TONE_COLORS[outcomeTone(outcome)][0]]), outcome);

    // Filters: failed runs only; then a model no run has not among the choices.
    await page.selectOption("[data-testid=filter-status]", "failed");
    const failedStatuses = await page.$$eval("tbody td[data-col=status]", (tds) =>
      tds.map((td) => td.textContent),
    );
    assert.ok(failedStatuses.length > 0);
    assert.ok(
      failedStatuses.every((s) => s.startsWith("finished: ") && s !== "finished: completed"),
      failedStatuses.join(),
    );
    await page.selectOption("[data-testid=filter-status]", "");
    await page.selectOption("[data-testid=filter-tool]", "wipe_disk");
    const wipers = await shownIds();
    assert.ok(wipers.length > 0 && wipers.every((id) => id.startsWith("tools-")), wipers.join());
    await page.selectOption("[data-testid=filter-tool]", "");

    // Live: a run written now appears, by polls that ask for changes only.
    const lines = readFileSync(join(corpus, "signals.jsonl"), "utf8");
    writeFileSync(join(dir, "written-now.jsonl"), lines);
    await page.waitForSelector('tr[data-session="written-now"]', { timeout: 10_000 });
    assert.ok(
      polls.slice(1).every((url) => url.includes("since=")),
      "polls after the first ask for changes",
    );

    // Search across runs, and its deep link into the viewer at the event.
    await page.fill("[data-testid=run-search]", "wipe_disk");
    await page.press("[data-testid=run-search]", "Enter");
    const link = page.locator("[data-testid=search-match] a").first();
    await link.waitFor();
    const href = await link.getAttribute("href");
    const [, id, at] = /^\/sessions\/([^#]+)#at=(\d+)&sel=\d+&q=wipe_disk$/.exec(href);
    await page.screenshot({ path: join(root, "target/screenshots/dashboard.png") });
    await link.click();
    const total = parseLog(readFileSync(join(dir, `${decodeURIComponent(id)}.jsonl`))).events
      .length;
    await page.waitForFunction(
      (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
      `event ${at} of ${total}`,
      { timeout: 20_000 },
    );

    // Compare: two runs picked open side by side.
    await page.goto(`${server.url}/sessions`);
    const [a, b] = ids.filter((x) => x.startsWith("tools-") || x.startsWith("permissions-"));
    await page.check(`tr[data-session="${a}"] [data-testid=pick]`);
    assert.equal(await page.isVisible("[data-testid=compare]"), false, "one run is not enough");
    await page.check(`tr[data-session="${b}"] [data-testid=pick]`);
    await page.click("[data-testid=compare]");
    await page.waitForURL(/compare\.html/);
    await page.waitForFunction(
      ([x, y]) => document.body.textContent.includes(x) && document.body.textContent.includes(y),
      [a, b],
      { timeout: 20_000 },
    );
    assert.deepEqual(problems, []);
  } finally {
    await browser.close();
  }
});

test("in Chromium: ten times more runs than fit draw only the rows in view", async () => {
  const big = mkdtempSync(join(tmpdir(), "dashboard-big-"));
  writeRuns(big, 400);
  const many = await serve({ port: 0, dir: big, pollMs: 1000 });
  const browser = await launchChromium();
  try {
    const page = await browser.newPage({ viewport: { width: 1200, height: 700 } });
    await page.goto(`${many.url}/sessions`);
    await page.waitForSelector("tr[data-session]");
    const drawn = () => page.$$eval("tbody tr[data-session]", (trs) => trs.length);
    assert.ok((await drawn()) < 80, `${await drawn()} rows drawn`);
    const sessions = (await (await fetch(`${many.url}/api/sessions`)).json()).sessions;
    const top = visibleRows(sessions, {
      filter: noFilter(),
      sort: { key: "written", dir: -1 },
      expanded: new Set(),
    });
    await page.$eval("#scroller", (el) => {
      el.scrollTop = el.scrollHeight;
    });
    // The last run is drawn once scrolled to, and still only those in view.
    await page.waitForSelector(`tr[data-session="${top.at(-1).row.session_id}"]`);
    assert.ok((await drawn()) < 80, `${await drawn()} rows drawn`);
  } finally {
    await browser.close();
    await many.close();
    rmSync(big, { recursive: true, force: true });
  }
});
