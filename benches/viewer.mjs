// The viewer on generated logs in Chromium, Firefox and WebKit, each log
// opened two ways: `?log=` through `agent-replay serve` ("serve") and the
// file picked in the page's file input ("file"). Per load, as the page
// itself shows it (viewer-page.mjs): first render (the run's header, drawn
// while the rest loads), navigable (the loaded log's position shown: the
// timeline and scrubber usable), checked (no "checking…" indicator left:
// viewer-page.mjs's CHECKING), a search typed until its match count is
// painted, scrub latency (median and worst of 20 random jumps, until the
// frame showing the new state is painted), the longest main-thread task
// (Chromium alone reports them), and memory: the browser's whole process
// tree's PSS and RSS (from /proc, process-rss.mjs) once checked, and their
// peaks over the load, the jumps and the search.
// Each load runs in a fresh browser; loads alternate engines, sources and
// builds, and rounds flip the builds' order, so neighbours compare.
//
//   VIEWER_EVENTS=10000,100000   sizes: numbers of events, or bytes (1gb, 500mb)
//   VIEWER_ENGINES=chromium,firefox,webkit   VIEWER_SOURCES=serve,file
//   VIEWER_ROUNDS=1              loads of each (log, engine, source, build)
//   VIEWER_BASE=/path/to/checkout   a previous build, side by side: its own
//       `serve` (its bin/, pkg/ and www/; pkg/ built there) serves its loads
//   VIEWER_TIMEOUT_S=300         a load not checked by then is a failed row
//
// e.g. 1 GB in every engine and source beside the build before the split:
//   VIEWER_EVENTS=1gb VIEWER_ROUNDS=3 VIEWER_BASE=/work/base node benches/viewer.mjs
// Prints a table of every load and a table of medians (with a base: each
// cell "current / base (current ÷ base)"), in markdown for RESULTS.md
// (viewer-tables.mjs).
// A load that fails (an error shown: a trap, limit_exceeded) or does not
// finish in time is a row saying how far it got, not a crash of the benchmark.
// Logs are generated once into bench-data/ (never committed) and reused.
// Run: `npm run bench:viewer`.
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
import { loadavg } from "node:os";
import { join, resolve } from "node:path";
import { ENGINES, launchBrowser } from "../tests/js/browsers.mjs";
import { startServe } from "../tests/js/serve.mjs";
import { childrenOf, memorySampler, treeMemoryMb } from "./process-rss.mjs";
import {
  CHECKING,
  GIVE_UP_MS,
  forgetLongTasks,
  jump,
  milestones,
  probe,
  readMarks,
  search,
  workerMemory,
} from "./viewer-page.mjs";
import { label, median, printTables } from "./viewer-tables.mjs";

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

/** The comma-separated names of `variable`, each one of `known`. */
function listOf(variable, known) {
  const names = (process.env[variable] ?? known.join(",")).split(",").map((n) => n.trim());
  for (const name of names)
    if (!known.includes(name)) throw new Error(`${variable}: ${name} is not one of ${known}`);
  return names;
}

const engines = listOf("VIEWER_ENGINES", ENGINES);
const sources = listOf("VIEWER_SOURCES", ["serve", "file"]);
const rounds = Number(process.env.VIEWER_ROUNDS ?? 1);
const QUERY = "budget_exceeded";
const JUMPS = 20;

/** A checkout's commit, short, with "+changes" if its tree differs from it. */
function revision(checkout) {
  const git = (...args) =>
    execFileSync("git", ["-C", checkout, ...args], {
      encoding: "utf8",
      stdio: ["ignore", "pipe", "ignore"],
    });
  try {
    const dirty = git("status", "--porcelain", "--untracked-files=no").trim() !== "";
    return `${git("rev-parse", "--short", "HEAD").trim()}${dirty ? "+changes" : ""}`;
  } catch {
    return "not a git checkout";
  }
}

/** A fresh browser of `engine`, and the processes it started (its tree's
 * roots: not Xvfb, which WebKit's display runs in, but not the browser). */
async function launch(engine) {
  const before = new Set(childrenOf().map((p) => p.pid));
  const browser = await launchBrowser(engine);
  const roots = childrenOf()
    .filter((p) => !before.has(p.pid) && p.name !== "Xvfb")
    .map((p) => p.pid);
  return { browser, roots };
}

/** Opens `log` from `source` in `page` with the probe installed: its marks
 * count from the navigation ("serve") or the file's pick ("file"). */
async function open(page, url, source, log) {
  if (source === "file") {
    await page.goto(`${url}/`);
    await page.evaluate(probe, CHECKING);
    await page.setInputFile("#file", log.path);
    return;
  }
  const early = await page.addInitScript(probe, CHECKING);
  await page.goto(`${url}/?log=${encodeURIComponent(`/files/${log.path.split("/").pop()}`)}`);
  if (!early) await page.evaluate(probe, CHECKING);
}

/** Resolves to the probe's marks once checked, an error is shown before
 * the log is navigable, or `timeoutMs` has passed. */
async function awaitLoad(page) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const marks = await page.evaluate(readMarks);
    if (marks.checked !== undefined || (marks.error && marks.navigable === undefined)) return marks;
    if (Date.now() > deadline) return marks;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
}

/** The 20 scrubber positions of a log of `n` events (the same every run). */
function jumps(n) {
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  return Array.from({ length: JUMPS }, () => 1 + Math.floor(random() * (n - 1)));
}

/** The 20 jumps of a log of `n` events, one at a time: `{times, missed,
 * longest}` (the jumps not shown in time left out of `times`, counted). */
async function scrub(page, n) {
  await page.evaluate(forgetLongTasks);
  const times = [];
  let missed = 0;
  for (const position of jumps(n)) {
    const ms = await page.evaluate(jump, [position, GIVE_UP_MS]);
    if (ms === null) missed += 1;
    else times.push(ms);
  }
  return { times, missed, longest: (await page.evaluate(readMarks)).longest };
}

/** Why a load did not get to checked: how far it got. */
function failure(marks) {
  const why = marks.error
    ? `error after ${((marks.error.at - marks.t0) / 1000).toFixed(1)} s: ${marks.error.message}`
    : `not ${marks.navigable === undefined ? "navigable" : "checked"} after ${timeoutMs / 1000} s`;
  return `${why}; last progress: ${marks.progress ?? "none"}`;
}

/** Opens `log` from `source` by `build` in `page` and measures it into
 * `row`; one not checked in time gets an `outcome` saying how far it got. */
async function measurePage(page, row, { build, source, log }, roots) {
  await open(page, build.server.url, source, log);
  const marks = await awaitLoad(page);
  const held = treeMemoryMb(roots);
  Object.assign(row, milestones(marks), { rss: held.rss, pss: held.pss });
  const wasm = await page.evaluate(workerMemory);
  if (wasm) row.wasmMemory = wasm.wasm_memory_bytes / 1e6;
  if (marks.checked === undefined) {
    row.outcome = failure(marks);
    return;
  }
  const scrubbed = await scrub(page, log.events);
  const searchMs = await page.evaluate(search, [QUERY, GIVE_UP_MS]);
  Object.assign(row, {
    loaded: true,
    searchMs: searchMs ?? undefined,
    scrubMedian: median(scrubbed.times),
    scrubWorst: Math.max(...scrubbed.times),
    longestScrubTask: marks.longtasks ? scrubbed.longest : undefined,
  });
  const missing = [];
  if (scrubbed.missed) missing.push(`${scrubbed.missed} of ${JUMPS} jumps not shown`);
  if (searchMs === null) missing.push("no match count");
  row.outcome = ["loaded", ...missing].join("; ");
}

/** One load in a fresh browser of its engine: a row of figures; a failed
 * load is a row with `outcome` saying what failed. */
async function measure(load) {
  const { round, build, engine, source, log } = load;
  const row = { round, build: build.name, engine, source, log, load: loadavg()[0] };
  let launched;
  let memory;
  try {
    launched = await launch(engine);
    memory = memorySampler(launched.roots);
    await measurePage(await launched.browser.newPage(), row, load, launched.roots);
  } catch (e) {
    row.outcome = `benchmark error: ${e.message.split("\n")[0]}`;
  } finally {
    if (memory) {
      const peak = memory.peak();
      Object.assign(row, { rssPeak: peak.rss, pssPeak: peak.pss });
      memory.stop();
    }
    await launched?.browser.close().catch(() => {});
  }
  return row;
}

const logs = sizes.map((size) => ({ ...size, ...generate(size), mb: 0 }));
for (const log of logs) log.mb = statSync(log.path).size / 1e6;
const serveArgs = ["--no-demo", ...logs.map((log) => log.path)];
const builds = [{ name: "current", checkout: root }];
if (process.env.VIEWER_BASE)
  builds.push({ name: "base", checkout: resolve(process.env.VIEWER_BASE) });
for (const build of builds) {
  build.revision = revision(build.checkout);
  build.server = await startServe(serveArgs, { root: build.checkout });
}
const rows = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const order = round % 2 ? builds : [...builds].reverse();
    for (const log of logs)
      for (const engine of engines)
        for (const source of sources)
          for (const build of order) {
            const row = await measure({ round, build, engine, source, log });
            console.error(
              `round ${round}, ${label(log)}, ${engine}, ${source}, ${build.name}: ${row.outcome}`,
            );
            rows.push(row);
          }
  }
} finally {
  for (const build of builds) await build.server.stop();
}

printTables({ rows, logs, engines, sources, builds, rounds });
