// The PostgreSQL benchmark: replicas of examples/edge/server.mjs with
// DATABASE_URL on one throwaway cluster (tests/js/postgres.mjs), all on
// 127.0.0.1, bounded in count and time:
// - appends per second, batches of 1 and of 100 events: one writer on one
//   replica; then three writers, one on each of three replicas, to one
//   session (their batches take turns on its head row lock);
// - cross-replica delivery: an event appended on replica A to its arrival
//   at an SSE client on replica B, median and p99; then the same with
//   BENCH_CLIENTS streaming clients attached to each replica (the time to
//   the last of them), and the append rate with them attached;
// - reload on a cold replica: a session of BENCH_BIG events, a replica
//   started after it was written, spawn to its first observation and that
//   request alone.
//   npm run bench:postgres        (after npm run build)
// Sizes: BENCH_POSTS (300 appends per rate), BENCH_SAMPLES (200 deliveries),
// BENCH_CLIENTS (100 per replica), BENCH_BIG (100,000 events), RUNS (3).
import { parseCursor } from "../js/node.js";
import { freePort, spawnReplica, startPostgres } from "../tests/js/postgres.mjs";

const POSTS = Number(process.env.BENCH_POSTS ?? 300);
const SAMPLES = Number(process.env.BENCH_SAMPLES ?? 200);
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 100);
const BIG = Number(process.env.BENCH_BIG ?? 100_000);
const RUNS = Number(process.env.RUNS ?? 3);
/** The longest any one wait may take before the run is called failed. */
const WAIT_MS = 60_000;
const HEADERS = { authorization: "Bearer bench" };
const ev = (turn) =>
  JSON.stringify({ kind: "page_out", turn, message_count: turn, tokens_before: 1000 + turn });
const sorted = (xs) => [...xs].sort((a, b) => a - b);
const median = (xs) => sorted(xs)[Math.floor(xs.length / 2)];
const p99 = (xs) => sorted(xs)[Math.min(xs.length - 1, Math.floor(xs.length * 0.99))];

/** A replica on `connectionString`: `{base, kill()}` once it listens. */
async function startReplica(connectionString) {
  const port = await freePort();
  const child = await spawnReplica(connectionString, port, {
    TOKENS: JSON.stringify({ bench: "*" }),
    MAX_STREAMS_PER_CLIENT: String(10 * CLIENTS),
  });
  return {
    base: `http://127.0.0.1:${port}/sessions`,
    kill: async () => {
      if (child.exitCode !== null) return;
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    },
  };
}

/** POSTs `batch` events to `session` on `base`: the last position. */
async function append(base, session, batch, from) {
  const body = Array.from({ length: batch }, (_, i) => ev(from + i)).join("\n");
  const r = await fetch(`${base}/${session}/events`, { method: "POST", headers: HEADERS, body });
  if (r.status !== 200) throw new Error(`append answered ${r.status}: ${await r.text()}`);
  return parseCursor((await r.json()).cursor).position;
}

/** Events per second of `writers` (one per base in `bases`) appending
 * `POSTS` batches of `batch` each to `session`, after one each not timed
 * (a replica's first use of a session loads it). */
async function appendRate(bases, session, batch) {
  for (const base of bases) await append(base, session, batch, 0);
  const t0 = performance.now();
  await Promise.all(
    bases.map(async (base) => {
      for (let i = 0; i < POSTS; i++) await append(base, session, batch, i * batch);
    }),
  );
  return (bases.length * POSTS * batch) / ((performance.now() - t0) / 1000);
}

/** An SSE client of `session` on `base` from its current cursor: calls
 * `onEvent(position)` for each event; `ready` once the stream answered. */
async function stream(base, session, onEvent) {
  const { cursor } = await (await fetch(`${base}/${session}`, { headers: HEADERS })).json();
  const controller = new AbortController();
  const url = `${base}/${session}/stream?cursor=${encodeURIComponent(cursor)}`;
  const response = await fetch(url, { headers: HEADERS, signal: controller.signal });
  if (response.status !== 200) throw new Error(`stream answered ${response.status}`);
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  (async () => {
    let buffer = "";
    for (;;) {
      const { done, value } = await reader.read().catch(() => ({ done: true }));
      if (done) return;
      buffer += value;
      const messages = buffer.split("\n\n");
      buffer = messages.pop();
      for (const message of messages) {
        const id = /^id: (.+)$/m.exec(message);
        if (id && !/^event: /m.test(message)) onEvent(parseCursor(id[1]).position);
      }
    }
  })();
  return { close: () => controller.abort() };
}

/** Milliseconds from an append on `writer` to its event at every one of
 * `readers` (an SSE client on each), `SAMPLES` times, one at a time; then
 * `during()`, the clients still attached. `{times, also}`: `also` is what
 * `during` resolved to. */
async function delivery(writer, readers, session, during = async () => {}) {
  const waiting = new Map();
  const clients = await Promise.all(
    readers.map(({ base }) =>
      stream(base, session, (position) => {
        const wait = waiting.get(position);
        if (wait && --wait.left === 0) wait.done();
      }),
    ),
  );
  const times = [];
  try {
    let next = parseCursor(
      (await (await fetch(`${writer}/${session}`, { headers: HEADERS })).json()).cursor,
    ).position;
    for (let i = 0; i < SAMPLES; i++) {
      next += 1;
      const t0 = performance.now();
      const arrived = new Promise((done, fail) => {
        const timer = setTimeout(() => fail(new Error("an event did not arrive")), WAIT_MS);
        waiting.set(next, {
          left: clients.length,
          done: () => {
            clearTimeout(timer);
            done();
          },
        });
      });
      const position = await append(writer, session, 1, i);
      if (position !== next) throw new Error(`appended at ${position}, not ${next}`);
      await arrived;
      times.push(performance.now() - t0);
      waiting.delete(next);
    }
    return { times, also: await during() };
  } finally {
    for (const c of clients) c.close();
  }
}

/** Appends `BIG` events to `session` in batches of 1,000: the last position. */
async function fill(base, session) {
  let position = 0;
  for (let turn = 0; turn < BIG; turn += 1000)
    position = await append(base, session, Math.min(1000, BIG - turn), turn);
  return position;
}

/** Spawn to the first observation of `session` on a new replica, and that
 * request alone, `RUNS` times (each replica killed after). */
async function coldReload(connectionString, session, position) {
  const spawned = [];
  const requests = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const cold = await startReplica(connectionString);
    try {
      const t1 = performance.now();
      const r = await fetch(`${cold.base}/${session}`, { headers: HEADERS });
      const observed = await r.json();
      requests.push(performance.now() - t1);
      spawned.push(performance.now() - t0);
      if (parseCursor(observed.cursor).position !== position)
        throw new Error(`the cold replica stands at ${observed.cursor}, not ${position}`);
    } finally {
      await cold.kill();
    }
  }
  return { spawned: median(spawned), request: median(requests) };
}

const db = await startPostgres();
const replicas = [];
const rows = [];
const ms = (x) => x.toFixed(1);
const rate = (x) => Math.round(x).toLocaleString("en-US");
try {
  for (let i = 0; i < 3; i++) replicas.push(await startReplica(db.connectionString));
  const [a, b, c] = replicas.map((r) => r.base);
  rows.push(["appends/s, batches of 1, one replica", rate(await appendRate([a], "one-1", 1))]);
  rows.push(["events/s, batches of 100, one replica", rate(await appendRate([a], "one-100", 100))]);
  rows.push([
    "appends/s, batches of 1, three replicas, one session",
    rate(await appendRate([a, b, c], "three-1", 1)),
  ]);
  rows.push([
    "events/s, batches of 100, three replicas, one session",
    rate(await appendRate([a, b, c], "three-100", 100)),
  ]);
  const { times: lone } = await delivery(a, [replicas[1]], "latency-1");
  rows.push(["A → SSE client on B, median (ms)", ms(median(lone))]);
  rows.push(["A → SSE client on B, p99 (ms)", ms(p99(lone))]);

  // CLIENTS streaming clients on each replica, attached the whole time.
  const crowd = replicas.flatMap((r) => Array.from({ length: CLIENTS }, () => r));
  const { times: crowded, also: crowdedRate } = await delivery(a, crowd, "crowd-1", () =>
    appendRate([a, b, c], "crowd-1", 1),
  );
  rows.push([
    `A → the last of ${crowd.length} clients (all replicas), median (ms)`,
    ms(median(crowded)),
  ]);
  rows.push(["the same, p99 (ms)", ms(p99(crowded))]);
  rows.push([
    `appends/s, batches of 1, three replicas, ${crowd.length} clients attached`,
    rate(crowdedRate),
  ]);

  const position = await fill(a, "big");
  const cold = await coldReload(db.connectionString, "big", position);
  rows.push([
    `cold replica: spawn → first observation, ${rate(BIG)} events (ms)`,
    ms(cold.spawned),
  ]);
  rows.push([`cold replica: the first observation's request alone (ms)`, ms(cold.request)]);
} finally {
  await Promise.all(replicas.map((r) => r.kill()));
  await db.close();
}

console.log(`PostgreSQL, examples/edge/server.mjs replicas on Node ${process.version}; \
${POSTS} appends per rate, ${SAMPLES} deliveries, ${CLIENTS} clients per replica\n`);
console.log("| measure | value |\n|---|---|");
for (const [name, value] of rows) console.log(`| ${name} | ${value} |`);
