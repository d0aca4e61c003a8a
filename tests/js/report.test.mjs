// `agent-replay report`: the command (what it writes, its exit codes) and
// the report it writes, opened in Chromium from file:// with the network
// off and every request that is not file:, data: or blob: refused.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { SessionState, parseLog, sampleLog } from "agent-replay";
import { launchChromium } from "./browsers.mjs";
import { corpus, stylesheetParts } from "./viewer-fixtures.mjs";

const root = new URL("../..", import.meta.url).pathname;
const cli = join(root, "bin/agent-replay.js");
const corpusPath = (name) => join(root, "tests/corpus/deepstrike-0.2.77", name);
const run = (args, input) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: "utf8" });
const dir = mkdtempSync(join(tmpdir(), "agent-replay-report-"));
const fmt = (n) => n.toLocaleString("en-US");

/** The log a report holds: its name and its bytes, read back from the slot. */
function embeddedLog(html) {
  const slots = [
    ...html.matchAll(
      /<script id="agent-replay-log" type="application\/gzip" data-name="([^"]*)">([^<]*)<\/script>/g,
    ),
  ];
  assert.equal(slots.length, 1, "one log slot");
  const [, name, base64] = slots[0];
  return { name, bytes: gunzipSync(Buffer.from(base64, "base64")) };
}

/** Text with some bad lines among a real log's events. */
function brokenLog() {
  const lines = corpus("tools.jsonl").trimEnd().split("\n");
  return [...lines.slice(0, 5), "{not json", ...lines.slice(5), '{"kind":"page_in","tu'].join("\n");
}

test("report writes one file holding the log as it was, and nothing to fetch", async () => {
  const out = join(dir, "long_run.html");
  const r = run(["report", corpusPath("long_run.jsonl"), "-o", out]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const html = readFileSync(out, "utf8");
  assert.match(html, /^<!doctype html>/);
  const log = embeddedLog(html);
  assert.equal(log.name, "long_run.jsonl");
  assert.ok(log.bytes.equals(readFileSync(corpusPath("long_run.jsonl"))), "the log, byte for byte");
  // No external script, stylesheet or module: only inline ones.
  assert.doesNotMatch(html, /<script[^>]*\ssrc=/);
  assert.doesNotMatch(html, /<link[^>]*stylesheet/);
  assert.doesNotMatch(html, /type="importmap"/);
  // The pages' stylesheet, every part in its order, then the report's own rules.
  const styles = [...html.matchAll(/<style>([^<]*)<\/style>/g)].map((m) => m[1]);
  const sources = [...stylesheetParts(), "www/report.css"];
  const written = sources.map((file) => readFileSync(join(root, file), "utf8")).join("\n");
  const { code } = await esbuild.transform(written, { loader: "css", minify: true });
  assert.deepEqual(styles, [code.trim()]);
});

test("report reads stdin and the sample, writes stdout with -o -, and escapes the name", () => {
  const piped = run(["report", "-", "-o", "-"], corpus("tools.jsonl"));
  assert.equal(piped.status, 0, piped.stderr);
  const fromStdin = embeddedLog(piped.stdout);
  assert.equal(fromStdin.name, "stdin.jsonl");
  assert.equal(fromStdin.bytes.toString(), corpus("tools.jsonl"));
  const sample = run(["report", "--sample", "-o", "-"]);
  assert.equal(sample.status, 0, sample.stderr);
  assert.equal(embeddedLog(sample.stdout).bytes.toString(), sampleLog());
  const odd = join(dir, 'a "b" <c> & d.jsonl');
  writeFileSync(odd, corpus("tools.jsonl"));
  const named = run(["report", odd, "-o", "-"]);
  assert.equal(named.status, 0, named.stderr);
  assert.equal(embeddedLog(named.stdout).name, "a &quot;b&quot; &lt;c&gt; &amp; d.jsonl");
});

test("report exit codes: 1 with load errors (report written), 2 when nothing is written", () => {
  const broken = join(dir, "broken.jsonl");
  writeFileSync(broken, brokenLog());
  const out = join(dir, "broken.html");
  const r = run(["report", broken, "-o", out]);
  assert.equal(r.status, 1);
  assert.match(r.stderr, /broken\.jsonl:6:2: invalid_json:/);
  assert.match(r.stderr, /broken\.jsonl:56:\d+: truncated:/);
  assert.equal(embeddedLog(readFileSync(out, "utf8")).bytes.toString(), brokenLog());

  const nothingWritten = (args, input, why) => {
    const target = join(dir, `none-${why}.html`);
    const res = run(["report", ...args.map((a) => (a === "OUT" ? target : a))], input);
    assert.equal(res.status, 2, `${why}: ${res.stderr}`);
    assert.ok(!existsSync(target), `${why}: no report`);
    return res;
  };
  assert.match(nothingWritten(["/no/such.jsonl", "-o", "OUT"], "", "missing").stderr, /ENOENT/);
  mkdirSync(join(dir, "a-dir"), { recursive: true });
  assert.match(nothingWritten([join(dir, "a-dir"), "-o", "OUT"], "", "dir").stderr, /EISDIR/);
  const garbage = nothingWritten(["-", "-o", "OUT"], "garbage\n", "not-a-log");
  assert.match(garbage.stderr, /^stdin:1:1: invalid_json/m);
  assert.match(garbage.stderr, /not a log: no event could be read/);
  nothingWritten([corpusPath("tools.jsonl")], "", "no-output");
  nothingWritten([corpusPath("tools.jsonl"), "-o", "OUT", "--strict"], "", "unknown-flag");
  nothingWritten([corpusPath("tools.jsonl"), corpusPath("loop.jsonl"), "-o", "OUT"], "", "two");
  const unwritable = run(["report", corpusPath("tools.jsonl"), "-o", join(dir, "no/such/x.html")]);
  assert.equal(unwritable.status, 2);
  assert.match(unwritable.stderr, /cannot write .*ENOENT/);
});

// ---- In Chromium, from file:// -----------------------------------------------

let browser;
before(async () => {
  browser = await launchChromium();
});
after(() => browser?.close());

/**
 * Opens a report from file:// offline, refusing every request that is not
 * a file: one; resolves when its position label reads `event N of N`. Every
 * request the page or its worker attempted is kept, with page errors.
 */
async function openReport(path, events) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.setOffline(true);
  const requests = [];
  context.on("request", (r) => requests.push(r.url()));
  await context.route("**", (r) =>
    r.request().url().startsWith("file:") ? r.continue() : r.abort(),
  );
  const page = await context.newPage();
  const problems = [];
  const workers = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  page.on("worker", (w) => workers.push(w.url()));
  await page.goto(`file://${path}`);
  await waitPosition(page, `event ${fmt(events)} of ${fmt(events)}`);
  return { page, context, requests, problems, workers };
}

function waitPosition(page, text) {
  return page.waitForFunction(
    (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
    text,
    { timeout: 30_000 },
  );
}

/** The header's numbers, as shown. */
function headerStats(page) {
  return page.$$eval("agent-session-viewer .asv-header .asv-stat", (stats) =>
    Object.fromEntries(
      stats.map((s) => [
        s.querySelector(".asv-stat-label").textContent,
        s.querySelector(".asv-stat-value").textContent,
      ]),
    ),
  );
}

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

function waitMatchCount(page, text) {
  return page.waitForFunction(
    (t) => document.querySelector("[data-testid=match-count]")?.textContent === t,
    text,
  );
}

test("a corpus log's report opens from file:// offline: timeline, search, time travel, charts", async () => {
  const name = "long_run.jsonl";
  const out = join(dir, "long_run-chromium.html");
  assert.equal(run(["report", corpusPath(name), "-o", out]).status, 0);
  const text = corpus(name);
  const lines = text.trimEnd().split("\n");
  const n = parseLog(text).events.length;
  assert.equal(lines.length, n);
  const { page, context, requests, problems, workers } = await openReport(out, n);
  try {
    assert.equal(await page.title(), `${name} · agent-replay viewer`);
    await waitMatchCount(page, `${fmt(n)} events`);
    assert.deepEqual(
      await headerStats(page),
      expectedHeader(new SessionState().apply(text).summary()),
    );
    assert.ok((await page.locator("[data-testid=charts] .uplot").count()) > 0, "charts drawn");

    // Search: the events whose text holds the query, as the timeline counts them.
    const query = "payload_residency_changed";
    const hits = lines.filter((l) => l.toLowerCase().includes(query)).length;
    assert.ok(hits > 0 && hits < n);
    await page.fill("[data-testid=search]", query);
    await waitMatchCount(page, `${fmt(hits)} of ${fmt(n)} events match`);
    const first = lines.findIndex((l) => l.includes(query)) + 1;
    await page.waitForSelector(`.row[data-position='${first}']`);

    // Time travel: the scrubber, then the keyboard.
    const at = Math.floor(n / 3);
    await page.$eval(
      "[data-testid=scrubber]",
      (el, v) => {
        el.value = String(v);
        el.dispatchEvent(new Event("input"));
      },
      at,
    );
    await waitPosition(page, `event ${fmt(at)} of ${fmt(n)}`);
    const prefix = lines.slice(0, at).join("\n");
    assert.deepEqual(
      await headerStats(page),
      expectedHeader(new SessionState().apply(prefix).summary()),
    );
    await page.locator("[data-testid=search]").blur(); // keys typed in the search are text
    await page.locator("body").press("ArrowLeft");
    await waitPosition(page, `event ${fmt(at - 1)} of ${fmt(n)}`);

    assert.deepEqual(problems, []);
    assert.deepEqual(
      requests.filter((u) => !/^(file|data|blob):/.test(u)),
      [],
      "no request left the machine",
    );
    assert.equal(requests.filter((u) => u.startsWith("file:")).length, 1, "the report alone");
    assert.equal(workers.length, 1);
    assert.match(workers[0], /^blob:/);
  } finally {
    await context.close();
  }
});

test("a report of a log with bad lines shows its valid events and its load errors", async () => {
  const broken = join(dir, "broken-chromium.jsonl");
  writeFileSync(broken, brokenLog());
  const out = join(dir, "broken-chromium.html");
  assert.equal(run(["report", broken, "-o", out]).status, 1);
  const n = parseLog(brokenLog()).events.length;
  const { page, context, problems } = await openReport(out, n);
  try {
    assert.equal((await headerStats(page))["load errors"], "2");
    assert.match(await page.locator("agent-session-viewer").textContent(), /line 6.*invalid_json/s);
    assert.deepEqual(problems, []);
  } finally {
    await context.close();
  }
});
