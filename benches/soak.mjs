// Soak (issue 6): a store under a million appends over ten thousand
// sessions stays under its byte budget, measured from the WebAssembly
// memory and the process; no event is lost outside documented trimming and
// eviction (every append is accounted: replayable, trimmed or evicted).
//   node benches/soak.mjs        (APPENDS, SESSIONS, BUDGET_MB to change)
import { ReplayStore, memoryUsage } from "agent-replay";

const APPENDS = Number(process.env.APPENDS ?? 1_000_000);
const SESSIONS = Number(process.env.SESSIONS ?? 10_000);
const BUDGET = Number(process.env.BUDGET_MB ?? 2) << 20;
const store = new ReplayStore({
  maxSessions: 5_000,
  maxTotalBytes: BUDGET,
  maxEventsPerSession: 256,
  maxAgeMs: 2 ** 50,
  now: () => 0,
  incarnation: "soak",
});

let seed = 0x2545f491;
const rnd = (n) => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
};
const last = new Map(); // session → last appended position
let peakWasm = 0;
let peakAllocated = 0;
let peakRss = 0;
const t0 = performance.now();
for (let i = 1; i <= APPENDS; i++) {
  const session = `session-${rnd(SESSIONS)}`;
  const e = store.append(
    session,
    `{"kind":"page_out","turn":${i % 1000},"summary":"${"x".repeat(rnd(200))}"}`,
  );
  const before = last.get(session) ?? 0;
  if (e.position <= before)
    throw new Error(`position went back in ${session}: ${before} -> ${e.position}`);
  last.set(session, e.position);
  if (i % 50_000 === 0) {
    const m = memoryUsage();
    peakWasm = Math.max(peakWasm, m.wasm_memory_bytes);
    peakAllocated = Math.max(peakAllocated, m.allocated_bytes);
    peakRss = Math.max(peakRss, process.memoryUsage().rss);
  }
}
const seconds = (performance.now() - t0) / 1000;

// Every session: from just before its last event, a replay gives exactly
// that event, or a gap says it cannot (trimmed, evicted); a replay from its
// last position gives nothing or a gap. A replay with anything else is wrong.
let exact = 0;
let gaps = 0;
let wrong = 0;
for (const [session, position] of last) {
  const head = store.replayAfter(`arc1:soak:0:${position}:${session}`);
  if (head.type === "replayed" && head.events.length !== 0) wrong++;
  const r = store.replayAfter(`arc1:soak:0:${position - 1}:${session}`);
  if (r.type === "gap") gaps++;
  else if (r.events.length === 1 && r.events[0].position === position) exact++;
  else wrong++;
}
const mb = (b) => (b / 2 ** 20).toFixed(1);
console.log(`| appends | sessions touched | budget | peak allocated in WASM | peak WASM memory | peak process RSS | appends/s | last events replayable | gaps (evicted/trimmed) | wrong replays |
|---|---|---|---|---|---|---|---|---|---|
| ${APPENDS.toLocaleString("en-US")} | ${last.size.toLocaleString("en-US")} | ${mb(BUDGET)} MB | ${mb(peakAllocated)} MB | ${mb(peakWasm)} MB | ${mb(peakRss)} MB | ${Math.round(APPENDS / seconds).toLocaleString("en-US")} | ${exact.toLocaleString("en-US")} | ${gaps.toLocaleString("en-US")} | ${wrong} |`);
if (wrong) process.exit(1);
