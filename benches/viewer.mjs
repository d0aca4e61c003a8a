// The viewer in headless Chromium on generated logs of 10,000 and 100,000
// events (and, opt-in, about 1 GB: VIEWER_EVENTS=1700000): time to first
// render (the run's header, drawn while the rest loads), time until fully
// loaded (everything drawn), the longest main-thread task during the load,
// scrub latency (median and worst of 20 random jumps, until the frame
// showing the new state is painted), and memory (the renderer processes'
// RSS, which holds the worker, and the page's JS heap).
// A load that fails (an error shown: a trap, limit_exceeded) or does not
// finish within VIEWER_TIMEOUT_S (default 300) is a result row saying how
// far it got, not a crash of the benchmark.
// Logs are generated once into bench-data/ (never committed) and reused.
// Run: `npm run bench:viewer` (VERBOSE=1 lists each long task).
import { execFileSync } from "node:child_process";
import {
  closeSync,
  existsSync,
  mkdirSync,
  openSync,
  readSync,
  renameSync,
  statSync,
  truncateSync,
} from "node:fs";
import { join } from "node:path";
import { launchChromium } from "../tests/js/browsers.mjs";
import { startServe } from "../tests/js/serve.mjs";

const root = new URL("..", import.meta.url).pathname;
/** Each size: a number of events, or a size in bytes (`1gb`, `500mb`),
 * then the log is every whole event the generator writes in that size. */
const sizes = (process.env.VIEWER_EVENTS ?? "10000,100000").split(",").map((spec) => {
  const bytes = /^(\d+(?:\.\d+)?)(mb|gb)$/i.exec(spec.trim());
  if (bytes)
    return { spec, bytes: Number(bytes[1]) * (bytes[2].toLowerCase() === "gb" ? 1e9 : 1e6) };
  if (/^\d+$/.test(spec.trim())) return { spec, events: Number(spec) };
  throw new Error(`VIEWER_EVENTS: ${spec} is neither a number of events nor a size like 1gb`);
});
const timeoutMs = Number(process.env.VIEWER_TIMEOUT_S ?? 300) * 1000;
const dir = join(root, "bench-data");
mkdirSync(dir, { recursive: true });

/** The number of lines of a file and the byte offset after its `n`th (or
 * last) line, read in 16 MiB pieces. */
function countLines(path, n = Number.POSITIVE_INFINITY) {
  const fd = openSync(path, "r");
  const buffer = Buffer.allocUnsafe(1 << 24);
  let lines = 0;
  let end = 0;
  try {
    for (let offset = 0; ; ) {
      const read = readSync(fd, buffer, 0, buffer.length, offset);
      if (read === 0) return { lines, end };
      for (let i = buffer.indexOf(10); i !== -1 && i < read; i = buffer.indexOf(10, i + 1)) {
        lines += 1;
        end = offset + i + 1;
        if (lines === n) return { lines, end };
      }
      offset += read;
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A generated log (seed 7) for a size: cut to exactly its events, or every
 * whole event in its bytes; in bench-data/, made once and reused (delete
 * the file to make it again). Written to a file and cut there: a 1 GB log
 * is never one string. Returns `{path, events}`.
 */
function generate({ spec, events, bytes }) {
  const path = join(dir, `viewer-log-${spec}.jsonl`);
  if (!existsSync(path)) {
    const partial = `${path}.partial`;
    const out = openSync(partial, "w");
    try {
      const size = String(Math.round(bytes ?? events * 700));
      execFileSync("cargo", ["run", "-q", "--release", "--example", "generate", "--", "7", size], {
        cwd: root,
        stdio: ["ignore", out, "inherit"],
      });
    } finally {
      closeSync(out);
    }
    const cut = countLines(partial, events);
    if (events !== undefined && cut.lines < events)
      throw new Error(`generated ${cut.lines} events, wanted ${events}`);
    truncateSync(partial, cut.end);
    renameSync(partial, path);
  }
  return { path, events: events ?? countLines(path).lines };
}

/** Resident memory of this benchmark's Chromium renderer processes, in
 * MB (the descendants of this process: other Chromiums on a shared
 * machine are not counted). */
function rendererRss() {
  const ps = execFileSync("ps", ["-eo", "pid=,ppid=,rss=,args="], { encoding: "utf8" });
  const rows = ps
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => {
      const [pid, ppid, rss] = l.trim().split(/\s+/, 3).map(Number);
      return { pid, ppid, rss, renderer: l.includes("--type=renderer") };
    });
  const ours = new Set([process.pid]);
  for (let grew = true; grew; ) {
    grew = false;
    for (const r of rows) {
      if (!ours.has(r.pid) && ours.has(r.ppid)) {
        ours.add(r.pid);
        grew = true;
      }
    }
  }
  return (
    rows.filter((r) => r.renderer && ours.has(r.pid)).reduce((sum, r) => sum + r.rss, 0) / 1024
  );
}

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Samples the renderers' RSS every second; `peak()` is the highest seen. */
function rssSampler() {
  let peak = rendererRss();
  const timer = setInterval(() => {
    peak = Math.max(peak, rendererRss());
  }, 1000);
  return {
    peak: () => Math.max(peak, rendererRss()),
    stop: () => clearInterval(timer),
  };
}

/** Marks what the page shows: first render, fully loaded, the first error
 * shown (a worker trap or a coded error), and the last progress line. */
function observePage() {
  window.__long = [];
  window.__longAt = [];
  new PerformanceObserver((list) => {
    for (const e of list.getEntries()) {
      window.__long.push(e.duration);
      window.__longAt.push([Math.round(e.startTime), Math.round(e.duration)]);
    }
  }).observe({ type: "longtask", buffered: true });
  window.__marks = {};
  document.addEventListener("viewer-partial", () => (window.__marks.first ??= performance.now()));
  document.addEventListener("viewer-state", () => (window.__marks.full ??= performance.now()));
  addEventListener("DOMContentLoaded", () => {
    const watch = () => {
      const box = document.getElementById("error");
      if (box && !box.hidden && box.textContent && !window.__marks.error)
        window.__marks.error = { message: box.textContent, at: performance.now() };
      const text = document.getElementById("progress-text")?.textContent;
      if (text) window.__marks.progress = text;
    };
    new MutationObserver(watch).observe(document.body, {
      subtree: true,
      childList: true,
      attributes: true,
      characterData: true,
    });
  });
}

/** Resolves to the page's marks once fully loaded, an error is shown, or
 * `timeoutMs` has passed (then `timedOut` is set). */
async function awaitLoad(page) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const marks = await page.evaluate(() => window.__marks);
    if (marks.full !== undefined || marks.error) return marks;
    if (Date.now() > deadline) return { ...marks, timedOut: true };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The worker's memory report, or null if it does not answer (a trapped worker). */
function workerMemory(page) {
  return page.evaluate(
    () =>
      Promise.race([
        window.agentReplayViewer.memory(),
        new Promise((resolve) => setTimeout(() => resolve(null), 5000)),
      ]),
    null,
  );
}

/** 20 random scrubber jumps, each timed until the frame showing it is painted. */
async function scrub(page, n) {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const jumps = Array.from({ length: 20 }, () => 1 + Math.floor(random() * (n - 1)));
  return page.evaluate(async (positions) => {
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
}

/** A full-text search typed into the search box, timed until the match
 * count for it is painted (the filter runs over every event). */
async function search(page, query) {
  return page.evaluate(async (q) => {
    const count = document.querySelector("[data-testid=match-count]");
    const before = count.textContent;
    const t0 = performance.now();
    const box = document.querySelector("[data-testid=search]");
    box.value = q;
    box.dispatchEvent(new Event("input", { bubbles: true }));
    while (count.textContent === before) await new Promise((r) => setTimeout(r, 1));
    await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
    return performance.now() - t0;
  }, query);
}

/** Opens one log in a new page and measures it; a failed load is a row
 * with `outcome` saying what failed and how far it got. */
async function measure(browser, server, n, path) {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  const workerErrors = [];
  page.on("worker", (worker) =>
    worker.on("console", (m) => m.type() === "error" && workerErrors.push(m.text())),
  );
  page.on("pageerror", (e) => workerErrors.push(e.message));
  await page.addInitScript(observePage);
  const rss = rssSampler();
  const name = path.split("/").pop();
  const row = { events: n, mb: statSync(path).size / 1e6 };
  try {
    await page.goto(`${server.url}/?log=${encodeURIComponent(`/files/${name}`)}`);
    const marks = await awaitLoad(page);
    if (process.env.VERBOSE)
      console.error(n, await page.evaluate(() => JSON.stringify({ long: window.__longAt })));
    const long = await page.evaluate(() => window.__long);
    Object.assign(row, {
      first: Math.min(
        marks.first ?? Number.POSITIVE_INFINITY,
        marks.full ?? Number.POSITIVE_INFINITY,
      ),
      full: marks.full,
      longestLoadTask: Math.max(0, ...long),
      longTasks: long.length,
      rssLoaded: rendererRss(),
      pageHeap: await page.evaluate(() => performance.memory?.usedJSHeapSize / 1e6),
    });
    const wasm = await workerMemory(page);
    if (wasm) {
      row.wasmMemory = wasm.wasm_memory_bytes / 1e6;
      row.wasmAllocated = wasm.allocated_bytes / 1e6;
      row.checkpoints = wasm.checkpoints;
      row.eventsHeld = wasm.events;
    }
    if (marks.full === undefined) {
      const why = marks.error
        ? `error after ${(marks.error.at / 1000).toFixed(1)} s: ${marks.error.message}`
        : `not loaded after ${timeoutMs / 1000} s`;
      row.outcome = `${why}; last progress: ${marks.progress ?? "none"}`;
      if (workerErrors.length) row.outcome += `; console: ${workerErrors[0]}`;
      return row;
    }
    const scrubbed = await scrub(page, n);
    if (process.env.VERBOSE)
      console.error(n, "scrub times", scrubbed.times.map((t) => Math.round(t)).join(" "));
    Object.assign(row, {
      outcome: "loaded",
      searchMs: await search(page, "budget_exceeded"),
      scrubMedian: median(scrubbed.times),
      scrubWorst: Math.max(...scrubbed.times),
      longestScrubTask: scrubbed.longest,
    });
    return row;
  } catch (e) {
    row.outcome = `benchmark error: ${e.message.split("\n")[0]}`;
    return row;
  } finally {
    row.rssPeak = rss.peak();
    rss.stop();
    await page.close().catch(() => {});
  }
}

const logs = sizes.map(generate);
const server = await startServe(["--no-demo", ...logs.map((log) => log.path)]);
const browser = await launchChromium(["--enable-precise-memory-info"]);
const results = [];
for (const { path, events } of logs) results.push(await measure(browser, server, events, path));
await browser.close();
await server.stop();

const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
console.log(
  "| events | log MB | first render ms | fully loaded ms | longest main-thread task during load ms | scrub median / worst ms | longest task while scrubbing ms | search ms | renderer RSS MB (peak) | page JS heap MB | worker wasm memory / allocated MB (checkpoints) | outcome |",
);
console.log("|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|");
for (const r of results) {
  console.log(
    `| ${r.events.toLocaleString("en-US")} | ${f(r.mb, 1)} | ${f(r.first)} | ${f(r.full)} | ${f(r.longestLoadTask)} (${r.longTasks ?? "–"} over 50) | ${f(r.scrubMedian, 1)} / ${f(r.scrubWorst, 1)} | ${f(r.longestScrubTask)} | ${f(r.searchMs)} | ${f(r.rssLoaded)} (${f(r.rssPeak)}) | ${f(r.pageHeap, 1)} | ${f(r.wasmMemory)} / ${f(r.wasmAllocated)} (${r.checkpoints ?? "–"}) | ${r.outcome} |`,
  );
}
