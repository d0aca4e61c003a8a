// The viewer in headless Chromium on generated logs of 10,000 and 100,000
// events: time to first render (the run's header, drawn while the rest
// loads), time until fully loaded (everything drawn), the longest
// main-thread task during the load, scrub latency (median and worst of 20
// random jumps, until the frame showing the new state is painted), and
// memory (the renderer
// processes' RSS, which holds the worker, and the page's JS heap).
// Run: `npm run bench:viewer` (VERBOSE=1 lists each long task).
import { execFileSync, spawn } from "node:child_process";
import { mkdtempSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "../tests/js/chromium.mjs";

const root = new URL("..", import.meta.url).pathname;
const sizes = (process.env.VIEWER_EVENTS ?? "10000,100000").split(",").map(Number);
const dir = mkdtempSync(join(tmpdir(), "viewer-bench-"));

/** A generated log cut to exactly `n` events. */
function generate(n) {
  const text = execFileSync(
    "cargo",
    ["run", "-q", "--release", "--example", "generate", "--", "7", String(n * 700)],
    { cwd: root, maxBuffer: 1 << 30, encoding: "utf8" },
  );
  const lines = text.split("\n").filter(Boolean);
  if (lines.length < n) throw new Error(`generated ${lines.length} events, wanted ${n}`);
  const path = join(dir, `log-${n}.jsonl`);
  writeFileSync(path, `${lines.slice(0, n).join("\n")}\n`);
  return path;
}

function startServer(files) {
  const child = spawn(
    process.execPath,
    [join(root, "bin/agent-replay.js"), "serve", "--port", "0", "--no-demo", ...files],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  return new Promise((resolve) => {
    let out = "";
    child.stdout.on("data", (d) => {
      out += d;
      const m = /viewer: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (m) resolve({ url: m[1], stop: () => child.kill() });
    });
  });
}

/** Resident memory of Chromium's renderer processes, in MB. */
function rendererRss() {
  const ps = execFileSync("ps", ["-eo", "rss,args"], { encoding: "utf8" });
  return (
    ps
      .split("\n")
      .filter((l) => l.includes("--type=renderer"))
      .reduce((sum, l) => sum + Number(l.trim().split(/\s+/)[0]), 0) / 1024
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

const paths = sizes.map(generate);
const server = await startServer(paths);
const browser = await launchChromium(["--enable-precise-memory-info"]);
const results = [];
for (const [i, n] of sizes.entries()) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript(() => {
    window.__long = [];
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) {
        window.__long.push(e.duration);
        window.__longAt.push([Math.round(e.startTime), Math.round(e.duration)]);
      }
    }).observe({ type: "longtask", buffered: true });
    window.__longAt = [];
    window.__marks = {};
    document.addEventListener("viewer-partial", () => (window.__marks.first ??= performance.now()));
    document.addEventListener("viewer-state", () => (window.__marks.full ??= performance.now()));
  });
  const name = paths[i].split("/").pop();
  await page.goto(`${server.url}/?log=${encodeURIComponent(`/files/${name}`)}`);
  await page.waitForFunction(() => window.__marks.full !== undefined, null, { timeout: 120_000 });
  if (process.env.VERBOSE)
    console.error(
      n,
      await page.evaluate(() => JSON.stringify({ long: window.__longAt, marks: window.__marks })),
    );
  const load = await page.evaluate(() => ({
    first: Math.min(window.__marks.first ?? Infinity, window.__marks.full),
    full: window.__marks.full,
    longest: Math.max(0, ...window.__long),
    long: window.__long.length,
  }));
  const rssLoaded = rendererRss();
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const jumps = Array.from({ length: 20 }, () => 1 + Math.floor(random() * (n - 1)));
  const scrub = await page.evaluate(async (positions) => {
    window.__long = [];
    const times = [];
    for (const p of positions) {
      const drawn = new Promise((resolve) => {
        const on = (e) => {
          if (e.detail.position !== p) return;
          document.removeEventListener("viewer-state", on);
          resolve();
        };
        document.addEventListener("viewer-state", on);
      });
      const t0 = performance.now();
      const s = document.getElementById("scrubber");
      s.value = String(p);
      s.dispatchEvent(new Event("input"));
      await drawn;
      // Until the frame with the new state is painted.
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      times.push(performance.now() - t0);
    }
    return { times, longest: Math.max(0, ...window.__long) };
  }, jumps);
  if (process.env.VERBOSE)
    console.error(n, "scrub times", scrub.times.map((t) => Math.round(t)).join(" "));
  const heap = await page.evaluate(() => performance.memory?.usedJSHeapSize / 1e6);
  const wasm = await page.evaluate(() => window.agentReplayViewer.memory());
  results.push({
    events: n,
    mb: statSync(paths[i]).size / 1e6,
    first: load.first,
    full: load.full,
    longestLoadTask: load.longest,
    longTasks: load.long,
    scrubMedian: median(scrub.times),
    scrubWorst: Math.max(...scrub.times),
    longestScrubTask: scrub.longest,
    rss: rendererRss(),
    rssLoaded,
    pageHeap: heap,
    wasmMemory: wasm.wasm_memory_bytes / 1e6,
    wasmAllocated: wasm.allocated_bytes / 1e6,
    checkpoints: wasm.checkpoints,
  });
  await page.close();
}
await browser.close();
server.stop();

const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
console.log(
  "| events | log MB | first render ms | fully loaded ms | longest main-thread task during load ms | scrub median / worst ms | longest task while scrubbing ms | renderer RSS MB | page JS heap MB | worker wasm memory / allocated MB (checkpoints) |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");
for (const r of results) {
  console.log(
    `| ${r.events.toLocaleString("en-US")} | ${f(r.mb, 1)} | ${f(r.first)} | ${f(r.full)} | ${f(r.longestLoadTask)} (${r.longTasks} over 50) | ${f(r.scrubMedian, 1)} / ${f(r.scrubWorst, 1)} | ${f(r.longestScrubTask)} | ${f(r.rss)} | ${f(r.pageHeap, 1)} | ${f(r.wasmMemory)} / ${f(r.wasmAllocated)} (${r.checkpoints}) |`,
  );
}
