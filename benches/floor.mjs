// What this machine allows the viewer at best (issue 12's "first render"
// and "fully indexed"), in headless Chromium as benches/viewer.mjs runs it,
// each load a fresh Chromium and a fresh server, the probes alternated:
// - `transfer`: the log's bytes from a Node server to a worker through the
//   viewer's reader (js/viewer/reader.js), then dropped: what moving them
//   costs, with no fold.
// - `index`: the same, each piece written to a `SessionIndex` in the
//   viewer's 256 KiB slices: the fold with no page beside it.
// - `first`: the least a first render can be: a page, one bundled worker
//   that compiles the .wasm and fetches the log at once, the log's first
//   256 KiB folded, one line of its summary painted.
// `ms` is from navigation (first: to the painted frame; the others: to the
// last byte dropped or folded); `fold ms` the wall time inside `write`;
// `CPU ms` the server's and Chromium's processes', from /proc.
// Usage: node benches/floor.mjs FILE [ROUNDS] [PROBES]   (PROBES: first,transfer,index)
import { spawn } from "node:child_process";
import { createReadStream, readFileSync, readdirSync, statSync } from "node:fs";
import { createServer } from "node:http";
import * as esbuild from "esbuild";
import { viewerBuildOptions } from "../scripts/viewer-bundles.mjs";
import { launchChromium } from "../tests/js/browsers.mjs";

const root = new URL("..", import.meta.url).pathname;
const [file, roundsArg = "3", probesArg = "first,transfer,index"] = process.argv.slice(2);
if (!file) throw new Error("usage: node benches/floor.mjs FILE [ROUNDS] [PROBES]");
const SLICE = 256 * 1024;

/** The probes' worker: everything but the .wasm in one script. */
const WORKER = `
import { init, SessionIndex } from "./js/web.js";
import { readThrough } from "./js/viewer/reader.js";
const wasm = WebAssembly.compileStreaming(fetch("/agent_replay_bg.wasm"));
async function first() {
  const response = fetch("/log");
  await init(await wasm);
  const reader = (await response).body.getReader();
  const index = new SessionIndex();
  for (let got = 0; got < ${SLICE}; ) {
    const { value, done } = await reader.read();
    if (done) break;
    index.write(value);
    got += value.length;
  }
  reader.cancel();
  const { turns_used } = index.summary();
  return { line: turns_used + " turns · " + index.eventCount + " events" };
}
async function stream(fold) {
  // The reader worker serves reads over a channel it is handed, as the viewer's page hands it one.
  const channel = new MessageChannel();
  new Worker("/reader.js", { type: "module" }).postMessage({ op: "port", port: channel.port1 }, [channel.port1]);
  const source = readThrough(channel.port2)({ url: new URL("/log", location.href).href });
  const { total } = await source.head;
  await init(await wasm);
  // As the viewer's worker does: room for the index made at once.
  const index = fold ? new SessionIndex().reserve(total) : null;
  let foldMs = 0;
  for (let piece = await source.next(); piece; piece = await source.next()) {
    const t = performance.now();
    for (let i = 0; fold && i < piece.length; i += ${SLICE}) index.write(piece.subarray(i, i + ${SLICE}));
    foldMs += performance.now() - t;
  }
  index?.end();
  return { foldMs, events: index?.eventCount ?? 0 };
}
self.onmessage = async ({ data: probe }) =>
  postMessage(await (probe === "first" ? first() : stream(probe === "index")));
`;

const PAGE = `<!doctype html><meta charset="utf-8"><title>floor</title><h1 id="line">…</h1>
<script>
const worker = new Worker("/worker.js", { type: "module" });
worker.postMessage(new URLSearchParams(location.search).get("probe"));
worker.onmessage = ({ data }) => {
  if (data.line) document.getElementById("line").textContent = data.line;
  requestAnimationFrame(() => setTimeout(() => (globalThis.done = { ...data, ms: performance.now() })));
};
</script>`;

/** The server: the page, the probes' worker (bundled as the viewer's
 * bundles are), the viewer's reader bundle and .wasm as `serve` sends them
 * (pkg/, built by scripts/build.mjs), and the log (streamed from disk, as
 * `serve` streams it). Runs in a child process of its own, so its CPU is
 * counted apart from the bench's. */
async function runServer() {
  const worker = await esbuild.build({
    ...viewerBuildOptions(root),
    stdin: { contents: WORKER, resolveDir: root },
    format: "esm",
    write: false,
  });
  const files = {
    "/": ["text/html", PAGE],
    "/worker.js": ["text/javascript", worker.outputFiles[0].text],
    "/reader.js": ["text/javascript", readFileSync(`${root}pkg/viewer-reader.js`)],
    "/agent_replay_bg.wasm": ["application/wasm", readFileSync(`${root}pkg/agent_replay_bg.wasm`)],
  };
  const server = createServer((req, res) => {
    const path = new URL(req.url, "http://x").pathname;
    if (path === "/log") {
      res.writeHead(200, { "content-length": statSync(file).size });
      // Read 4 MiB at a time, as `serve` reads a log (bin/serve.js's FILE_CHUNK).
      return createReadStream(file, { highWaterMark: 4 << 20 }).pipe(res);
    }
    const [type, body] = files[path] ?? ["text/plain", null];
    res.writeHead(body ? 200 : 404, { "content-type": type });
    res.end(body ?? "not found");
  });
  server.listen(0, "127.0.0.1", () => console.log(`http://127.0.0.1:${server.address().port}`));
}

/** CPU ms of the descendants of `root`, from /proc (utime + stime). */
function descendantsCpuMs(root) {
  const children = new Map(); // parent pid → child pids
  const ticks = new Map(); // pid → utime + stime, in clock ticks (10 ms)
  for (const name of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    let fields;
    try {
      fields = readFileSync(`/proc/${name}/stat`, "utf8").split(") ")[1].split(" ");
    } catch {
      continue; // gone meanwhile
    }
    const pid = Number(name);
    const parent = Number(fields[1]);
    children.set(parent, [...(children.get(parent) ?? []), pid]);
    ticks.set(pid, Number(fields[11]) + Number(fields[12]));
  }
  let total = 0;
  for (const queue = [...(children.get(root) ?? [])]; queue.length; ) {
    const pid = queue.shift();
    total += ticks.get(pid) ?? 0;
    queue.push(...(children.get(pid) ?? []));
  }
  return total * 10;
}

/** One load of `probe`: a fresh server and a fresh Chromium. */
async function load(probe) {
  const server = spawn(process.execPath, [import.meta.filename, file, "serve"], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise((resolve) =>
    server.stdout.once("data", (d) => resolve(String(d).trim())),
  );
  const browser = await launchChromium();
  const loadAverage = readFileSync("/proc/loadavg", "utf8").split(" ")[0];
  const page = await browser.newPage();
  await page.goto(`${url}/?probe=${probe}`);
  const handle = await page.waitForFunction(() => globalThis.done, null, {
    timeout: 300_000,
    polling: 20,
  });
  const done = await handle.jsonValue();
  const cpu = descendantsCpuMs(process.pid);
  await browser.close();
  server.kill();
  return { probe, loadAverage, ...done, cpu };
}

if (process.argv[3] === "serve") await runServer();
else {
  const probes = probesArg.split(",");
  const rows = [];
  for (let round = 0; round < Number(roundsArg); round++)
    for (const probe of round % 2 ? [...probes].reverse() : probes) {
      const row = await load(probe);
      rows.push(row);
      console.error(JSON.stringify(row));
    }
  const f = (x) => (x === undefined ? "–" : Math.round(x).toLocaleString("en-US"));
  console.log("| probe | load | ms | fold ms | events | CPU ms (server + Chromium) |");
  console.log("|---|---:|---:|---:|---:|---:|");
  for (const r of rows)
    console.log(
      `| ${r.probe} | ${r.loadAverage} | ${f(r.ms)} | ${f(r.foldMs)} | ${f(r.events)} | ${f(r.cpu)} |`,
    );
  for (const probe of probes) {
    const ms = rows
      .filter((r) => r.probe === probe)
      .map((r) => r.ms)
      .sort((a, b) => a - b);
    console.log(
      `${probe}: median ${f(ms[Math.floor(ms.length / 2)])} ms (${f(ms[0])}–${f(ms.at(-1))})`,
    );
  }
}
