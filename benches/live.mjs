// The live replay benchmark (issue 3): the same scenarios in WASM (this
// process) and native Rust (benches/native_live.rs), side by side in one run.
//   node benches/live.mjs               (--wasm-only: the WASM column alone, as JSON)
import { execFileSync } from "node:child_process";
import { ReplayStore, memoryUsage } from "agent-replay";

const root = new URL("..", import.meta.url).pathname;
const SMALL = '{"kind":"page_in","turn":12,"entry_count":1}';
const BIG = `{"kind":"milestone_blocked","turn":1,"phase_id":"p","reason":"${"x".repeat(4000)}"}`;
const store = (max) =>
  new ReplayStore({
    maxEventsPerSession: max,
    maxAgeMs: 2 ** 50,
    incarnation: "bench",
    now: () => 0,
  });
const nsPer = (n, f) => {
  const t = performance.now();
  f();
  return ((performance.now() - t) * 1e6) / n;
};

const wasm = {};
for (const [name, json, n] of [
  ["append_small_ns", SMALL, 200_000],
  ["append_4kb_ns", BIG, 20_000],
]) {
  const s = store(2048);
  for (let i = 0; i < 2000; i++) s.append("s", json); // warm up
  wasm[name] = nsPer(n, () => {
    for (let i = 0; i < n; i++) s.append("s", json);
  });
  s.free();
}
for (const [cap, ks] of [
  [2048, [1, 100, 2048]],
  [1_000_000, [100]],
]) {
  const s = store(cap);
  for (let i = 0; i < cap; i++) s.append("s", SMALL);
  for (const k of ks) {
    const cursor = `arc1:bench:12:${cap - k}:s`;
    const reps = Math.max(50, Math.floor(200_000 / k));
    s.replayAfter(cursor);
    wasm[`replay_${k}_of_${cap}_ns`] = nsPer(reps, () => {
      for (let i = 0; i < reps; i++) s.replayAfter(cursor);
    });
    if (k !== 100 || cap !== 2048) continue;
    // What the edge does: every event's cursor is an SSE id.
    wasm.replay_100_cursors_ns = nsPer(reps, () => {
      for (let i = 0; i < reps; i++) for (const e of s.replayAfter(cursor).events) e.cursor;
    });
  }
  s.free();
}
for (const subs of [1, 100]) {
  const s = store(2048);
  const readers = Array.from({ length: subs }, () => s.subscribe("arc1:bench:0:0:s").subscription);
  const n = 20_000;
  const ns = nsPer(n * subs, () => {
    for (let i = 0; i < n; i++) {
      s.append("s", SMALL);
      for (const r of readers) r.next();
    }
  });
  wasm[`deliver_${subs}_subs_events_per_s`] = 1e9 / ns;
  s.free();
}
{
  const before = memoryUsage().allocated_bytes;
  const s = store(1_000_000);
  for (let i = 0; i < 1_000_000; i++) s.append("s", SMALL);
  wasm.bytes_per_small_event = (memoryUsage().allocated_bytes - before) / 1e6;
  wasm.small_event_json_bytes = SMALL.length;
  wasm.wasm_memory_mb = memoryUsage().wasm_memory_bytes / 2 ** 20;
  s.free();
}

if (process.argv.includes("--wasm-only")) {
  console.log(JSON.stringify(wasm));
  process.exit(0);
}
const native = JSON.parse(
  execFileSync("cargo", ["bench", "-q", "--bench", "native_live"], { cwd: root, encoding: "utf8" }),
);
const f = (x, d = 0) =>
  x.toLocaleString("en-US", { maximumFractionDigits: d, minimumFractionDigits: d });
const cell = (x, unit, d) => (x === undefined ? "–" : `${f(x, d)} ${unit}`);
const row = (label, key, unit, d = 0) =>
  `| ${label} | ${cell(wasm[key], unit, d)} | ${cell(native[key], unit, d)} |`;
console.log(`| measure | WASM (Node ${process.version}) | native |
|---|---|---|
${row("append, small event (45 B)", "append_small_ns", "ns", 0)}
${row("append, 4 KB event", "append_4kb_ns", "ns", 0)}
${row("replayAfter: 1 event (buffer 2,048)", "replay_1_of_2048_ns", "ns")}
${row("replayAfter: 100 events (buffer 2,048)", "replay_100_of_2048_ns", "ns")}
${row("replayAfter: 2,048 events (buffer 2,048)", "replay_2048_of_2048_ns", "ns")}
${row("replayAfter: 100 events (buffer 1,000,000)", "replay_100_of_1000000_ns", "ns")}
${row("replayAfter: 100 events, every cursor read", "replay_100_cursors_ns", "ns")}
${row("live delivery, 1 subscriber", "deliver_1_subs_events_per_s", "events/s")}
${row("live delivery, 100 subscribers", "deliver_100_subs_events_per_s", "events/s")}
${row("memory per retained small event (45 B of JSON)", "bytes_per_small_event", "B", 1)}

WASM linear memory after 1,000,000 retained small events: ${f(wasm.wasm_memory_mb)} MB.`);
