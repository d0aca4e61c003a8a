// The one-file report (`agent-replay report`): the template's size, raw and
// gzipped, and what it holds (the .wasm, the JS, the CSS); for real
// deepstrike logs and the sample, the report's size against the log's, and
// the time until the report, opened from file:// in headless Chromium with
// the network off, shows its last event (median of REPORT_REPS, default 3).
// REPORT_REPEAT=N adds long_run.jsonl written N times over, its `seq`
// numbers going on (bench-data/, never committed): past 64 MB the viewer
// opens it as a paged index.
// Run: `npm run bench:report`.
import { execFileSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { parseLog } from "../js/node.js";
import { launchChromium } from "../tests/js/browsers.mjs";

const root = new URL("..", import.meta.url).pathname;
const reps = Number(process.env.REPORT_REPS ?? 3);
const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
const kb = (n) => (n / 1024).toFixed(1);

function templateParts() {
  const html = readFileSync(join(root, "pkg/report-template.html"), "utf8");
  const script = /<script type="module">([\s\S]*?)<\/script>/.exec(html)[1];
  const wasm = /"([A-Za-z0-9+/=]{100000,})"/.exec(script)[1];
  const style = /<style>([\s\S]*?)<\/style>/.exec(html)[1];
  return [
    ["whole template", html],
    ["the .wasm (gzip, base64)", wasm],
    ["the JS (page and worker, minified)", script.replace(wasm, "")],
    ["the CSS (minified)", style],
  ];
}

/** Milliseconds from navigation until the position label reads the last event. */
async function openTime(browser, path, events) {
  const context = await browser.newContext({ viewport: { width: 1400, height: 1000 } });
  await context.setOffline(true);
  await context.route("**", (r) =>
    r.request().url().startsWith("file:") ? r.continue() : r.abort(),
  );
  try {
    const page = await context.newPage();
    const label = `event ${events.toLocaleString("en-US")} of ${events.toLocaleString("en-US")}`;
    const started = performance.now();
    await page.goto(`file://${path}`);
    await page.waitForFunction(
      (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
      label,
      { timeout: 60_000 },
    );
    return performance.now() - started;
  } finally {
    await context.close();
  }
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

console.log("| part | bytes | gzipped bytes (KB) |\n|---|---:|---:|");
for (const [name, text] of templateParts()) {
  const bytes = Buffer.byteLength(text);
  console.log(
    `| ${name} | ${bytes.toLocaleString("en-US")} | ${gz(text).toLocaleString("en-US")} (${kb(gz(text))}) |`,
  );
}
const template = gz(readFileSync(join(root, "pkg/report-template.html")));

const dir = mkdtempSync(join(tmpdir(), "report-bench-"));
const corpus = join(root, "tests/corpus/deepstrike-0.2.77");
const logs = [
  ["tools.jsonl", join(corpus, "tools.jsonl")],
  ["compression.jsonl", join(corpus, "compression.jsonl")],
  ["long_run.jsonl", join(corpus, "long_run.jsonl")],
];
const repeat = Number(process.env.REPORT_REPEAT ?? 0);
if (repeat > 1) {
  mkdirSync(join(root, "bench-data"), { recursive: true });
  const path = join(root, "bench-data", `long_run_x${repeat}.jsonl`);
  // Stored entries: each copy's `seq` goes on from the last, so the log has no error.
  const lines = readFileSync(join(corpus, "long_run.jsonl"), "utf8").trimEnd().split("\n");
  let seq = 0;
  const copy = () => lines.map((l) => l.replace(/^\{"seq":\d+,/, () => `{"seq":${seq++},`));
  writeFileSync(path, `${Array.from({ length: repeat }, copy).flat().join("\n")}\n`);
  logs.push([`long_run.jsonl ×${repeat}`, path]);
}
const browser = await launchChromium();
console.log(
  "\n| log | events | log bytes | log gzipped | report bytes | report gzipped | report gzipped − template gzipped | `report` ms | opened, last event shown (ms, median) |\n|---|---:|---:|---:|---:|---:|---:|---:|---:|",
);
try {
  for (const [name, path] of logs) {
    const out = join(dir, `${name.replace(/\W+/g, "_")}.html`);
    const started = performance.now();
    execFileSync(process.execPath, [join(root, "bin/agent-replay.js"), "report", path, "-o", out]);
    const written = performance.now() - started;
    const log = readFileSync(path);
    const report = readFileSync(out);
    const events = parseLog(log).events.length;
    const times = [];
    for (let i = 0; i < reps; i++) times.push(await openTime(browser, out, events));
    const n = (x) => x.toLocaleString("en-US");
    console.log(
      `| ${name} | ${n(events)} | ${n(log.length)} | ${n(gz(log))} | ${n(statSync(out).size)} | ${n(gz(report))} | ${n(gz(report) - template)} | ${written.toFixed(0)} | ${median(times).toFixed(0)} |`,
    );
  }
} finally {
  await browser.close();
}
