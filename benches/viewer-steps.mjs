// Where a time-travel step's time goes in the viewer, in headless Chromium:
// 20 scrubber jumps (the positions benches/viewer.mjs uses) on one log,
// each split into the worker's part (the page's `at` request to the
// `state` message's arrival), the page's handling of it (to the
// `viewer-state` event) and the frame (to the painted frame after it);
// medians over the jumps. Then the thread CPU time of the same kind of
// jumps from a Chromium trace (the top-level tasks' thread durations, per
// jump): the renderer's main thread and the worker. Thread time moves
// less than wall time when the machine is shared.
// Usage: node benches/viewer-steps.mjs FILE   (e.g. bench-data/viewer-log-1gb.jsonl)
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { launchChromium } from "../tests/js/browsers.mjs";
import { startServe } from "../tests/js/serve.mjs";

const file = process.argv[2];
if (!file) throw new Error("usage: node benches/viewer-steps.mjs FILE");
const JUMPS = 20;

/** Records, in the page, when each `at` request leaves for the worker,
 * when each `state` message arrives from it, and each `viewer-state`. */
function observeSteps() {
  window.__steps = [];
  const Native = window.Worker;
  window.Worker = class extends Native {
    constructor(...args) {
      super(...args);
      this.addEventListener("message", (e) => {
        if (e.data.op === "state") window.__steps.push({ arrived: performance.now() });
      });
      const post = this.postMessage.bind(this);
      this.postMessage = (msg, transfer) => {
        if (msg.op === "at") window.__steps.push({ sent: performance.now() });
        return post(msg, transfer);
      };
    }
  };
}

/** Jumps to each position; per jump `{worker, handle, frame}` in ms. */
function jump(page, positions) {
  return page.evaluate(async (list) => {
    const out = [];
    for (const p of list) {
      window.__steps = [];
      const shown = new Promise((resolve) => {
        const on = (e) => {
          if (e.detail.position !== p) return;
          document.removeEventListener("viewer-state", on);
          resolve(performance.now());
        };
        document.addEventListener("viewer-state", on);
      });
      const s = document.getElementById("scrubber");
      s.value = String(p);
      s.dispatchEvent(new Event("input"));
      const shownAt = await shown;
      await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
      const paintedAt = performance.now();
      const sent = window.__steps.find((x) => x.sent).sent;
      const arrived = window.__steps.find((x) => x.arrived).arrived;
      out.push({ worker: arrived - sent, handle: shownAt - arrived, frame: paintedAt - shownAt });
    }
    return out;
  }, positions);
}

/** Thread CPU ms per jump of the renderer's main thread and the worker. */
function threadTimes(tracePath, jumps) {
  const trace = JSON.parse(readFileSync(tracePath, "utf8"));
  const events = trace.traceEvents ?? trace;
  const threads = new Map();
  for (const e of events)
    if (e.ph === "M" && e.name === "thread_name") threads.set(`${e.pid}:${e.tid}`, e.args.name);
  const sums = { main: 0, worker: 0 };
  for (const e of events) {
    if (e.ph !== "X" || e.name !== "ThreadControllerImpl::RunTask" || e.tdur == null) continue;
    const thread = threads.get(`${e.pid}:${e.tid}`) ?? "";
    if (thread.startsWith("CrRendererMain")) sums.main += e.tdur / 1000;
    else if (thread.startsWith("DedicatedWorker")) sums.worker += e.tdur / 1000;
  }
  return { main: sums.main / jumps, worker: sums.worker / jumps };
}

const server = await startServe(["--no-demo", file]);
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1400, height: 1000 } });
  await page.addInitScript(observeSteps);
  await page.goto(`${server.url}/?log=${encodeURIComponent(`/files/${file.split("/").pop()}`)}`);
  await page.waitForFunction(() => window.__steps.some((s) => s.arrived), null, {
    timeout: 300_000,
  });
  const end = Number(await page.evaluate(() => document.getElementById("scrubber").max));
  let seed = 12345;
  const random = () => {
    seed = (seed * 1103515245 + 12345) % 2 ** 31;
    return seed / 2 ** 31;
  };
  const positions = Array.from({ length: JUMPS }, () => 1 + Math.floor(random() * (end - 1)));
  const steps = await jump(page, positions);
  const tracePath = join(tmpdir(), `viewer-steps-${process.pid}.json`);
  await browser.startTracing(page, { path: tracePath, categories: ["toplevel"] });
  await jump(
    page,
    positions.map((p) => end - p),
  );
  await browser.stopTracing();
  const cpu = threadTimes(tracePath, JUMPS);
  rmSync(tracePath);
  const median = (key) => {
    const sorted = steps.map((s) => s[key]).sort((a, b) => a - b);
    return sorted[Math.floor(sorted.length / 2)].toFixed(1);
  };
  console.log(
    "| events | worker ms | page ms | frame ms | main-thread CPU ms / jump | worker CPU ms / jump |",
  );
  console.log("|---:|---:|---:|---:|---:|---:|");
  console.log(
    `| ${end.toLocaleString("en-US")} | ${median("worker")} | ${median("handle")} | ${median("frame")} | ${cpu.main.toFixed(1)} | ${cpu.worker.toFixed(1)} |`,
  );
} finally {
  await browser.close();
  await server.stop();
}
