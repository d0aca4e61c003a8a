// The runs dashboard of `serve DIR` on a directory of many runs
// (DASHBOARD_RUNS, default 10,000, plus their sub-agent sessions: copies of
// the real-runtime corpus under new ids, benches/dashboard-data.mjs): the
// time the server takes to list them at start, the time to first paint of
// the table in headless Chromium (navigation to the first row drawn), the
// list's size over the wire, and the time to answer a search across every
// run (a text in a few runs, and one in none: every file read).
// The directory is written once into bench-data/ and reused.
// Run: `npm run bench:dashboard` (DASHBOARD_RUNS=500 for a quick check).
import { existsSync, mkdirSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { serve } from "../bin/serve.js";
import { launchChromium } from "../tests/js/browsers.mjs";
import { writeRuns } from "./dashboard-data.mjs";

const root = new URL("..", import.meta.url).pathname;
const runs = Number(process.env.DASHBOARD_RUNS ?? 10_000);
const dir = join(root, "bench-data", `dashboard-${runs}`);

function ensureRuns() {
  if (existsSync(dir) && readdirSync(dir).length >= runs) return;
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  const started = performance.now();
  const ids = writeRuns(dir, runs);
  console.log(`wrote ${ids.length} sessions in ${Math.round(performance.now() - started)} ms`);
}

const ms = (t) => `${Math.round(t)} ms`;

async function timeSearch(url, query) {
  const started = performance.now();
  const found = await (await fetch(`${url}/api/search?q=${encodeURIComponent(query)}`)).json();
  const took = performance.now() - started;
  return `${ms(took)} (${found.matches.length} matches, ${found.sessions_searched} sessions searched${found.timed_out ? ", timed out" : ""})`;
}

ensureRuns();
let started = performance.now();
const server = await serve({ port: 0, dir });
const listed = performance.now() - started;
const browser = await launchChromium();
try {
  const list = await (await fetch(`${server.url}/api/sessions`)).text();
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } });
  started = performance.now();
  await page.goto(`${server.url}/sessions`);
  await page.waitForSelector("tr[data-session]");
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => done())));
  const paint = performance.now() - started;
  const drawn = await page.$$eval("tr[data-session]", (rows) => rows.length);
  console.log(`runs ${runs} (${JSON.parse(list).sessions.length} sessions)`);
  console.log(`server start, every file folded for its row: ${ms(listed)}`);
  console.log(`GET /api/sessions: ${(list.length / 1e6).toFixed(1)} MB`);
  console.log(`first paint of the table: ${ms(paint)} (${drawn} rows drawn)`);
  console.log(`search, a text in some runs: ${await timeSearch(server.url, "wipe_disk")}`);
  console.log(`search, a text in none: ${await timeSearch(server.url, "no such text in any run")}`);
} finally {
  await browser.close();
  await server.close();
}
