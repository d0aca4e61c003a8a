// The durable edge benchmark (issue 13), on 127.0.0.1, bounded in count and
// time, for `agent-replay serve --data` (Node, the file store) and
// examples/edge/worker.mjs on workerd (Durable Object SQLite on disk):
// - durable appends per second: POSTs answered once stored, in batches of 1
//   and of 100 events, one writer;
// - restart to first answer: a session of 100,000 events, the server
//   killed (SIGKILL) and started again, spawn to the first observation;
// - resume after a restart: a cursor 10,000 events back, the resume answer
//   with exactly those events.
//   npm run bench:durable        (after npm run build)
import { rmSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCursor } from "../js/node.js";
import { TOKEN, startServe, startWorkerd, workerDir } from "../tests/js/durable-servers.mjs";

const BATCH_POSTS = Number(process.env.BENCH_POSTS ?? 300);
const BIG = 100_000;
const MISSED = 10_000;
const RUNS = 3;
const ev = (turn) =>
  JSON.stringify({ kind: "page_out", turn, message_count: turn, tokens_before: 1000 + turn });
const port = () => 20000 + Math.floor(Math.random() * 20000);
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

/** Events per second through `POSTS` appends of `batch` events. */
async function appendRate(url, headers, batch, posts) {
  let turn = 0;
  const t0 = performance.now();
  for (let i = 0; i < posts; i++) {
    const body = Array.from({ length: batch }, () => ev(++turn)).join("\n");
    const r = await fetch(url, { method: "POST", headers, body });
    if (r.status !== 200) throw new Error(`append answered ${r.status}: ${await r.text()}`);
    await r.arrayBuffer();
  }
  return (batch * posts) / ((performance.now() - t0) / 1000);
}

/** Appends `count` events in batches of 1,000; resolves to the last cursor. */
async function fill(url, headers, count) {
  let cursor;
  for (let turn = 0; turn < count; ) {
    const body = Array.from({ length: Math.min(1000, count - turn) }, () => ev(++turn)).join("\n");
    const r = await fetch(url, { method: "POST", headers, body });
    if (r.status !== 200) throw new Error(`fill answered ${r.status}`);
    ({ cursor } = await r.json());
  }
  return cursor;
}

/** One runtime: `start(port)` starts its server, `stop(child)` SIGKILLs it. */
async function measure(name, { start, api, headers }) {
  const p = port();
  let child = await start(p);
  const base = `http://127.0.0.1:${p}${api}`;
  const kill = async () => {
    child.kill("SIGKILL");
    await new Promise((r) => child.once("exit", r));
  };
  try {
    const one = await appendRate(`${base}/sessions/rate-1/events`, headers, 1, BATCH_POSTS);
    const hundred = await appendRate(`${base}/sessions/rate-100/events`, headers, 100, 100);
    const cursor = await fill(`${base}/sessions/big/events`, headers, BIG);
    const { incarnation, position } = parseCursor(cursor);
    const back = position - MISSED;
    const missedFrom = `arc1:${incarnation}:${back}:${back}:big`;
    const restarts = [];
    const resumes = [];
    for (let run = 0; run < RUNS; run++) {
      await kill();
      const t0 = performance.now();
      child = await start(p);
      for (;;) {
        if (performance.now() - t0 > 60_000) throw new Error(`${name}: no answer in 60 s`);
        const r = await fetch(`${base}/sessions/big`, { headers }).catch(() => undefined);
        if (r?.status === 200) {
          const observed = await r.json();
          if (parseCursor(observed.cursor).position !== position) throw new Error("lost events");
          break;
        }
        await new Promise((r) => setTimeout(r, 2));
      }
      restarts.push(performance.now() - t0);
      await kill();
      child = await start(p);
      const t1 = performance.now();
      const r = await fetch(
        `${base}/sessions/big/events?cursor=${encodeURIComponent(missedFrom)}`,
        {
          headers,
        },
      );
      const resumed = await r.json();
      resumes.push(performance.now() - t1);
      if (resumed.events?.length !== MISSED)
        throw new Error(`${name}: resumed ${resumed.events?.length ?? resumed.type} events`);
    }
    return { name, one, hundred, restart: median(restarts), resume: median(resumes) };
  } finally {
    await kill().catch(() => {});
  }
}

const dataDir = mkdtempSync(join(tmpdir(), "agent-replay-bench-"));
const doDir = await workerDir({
  MAX_EVENTS_PER_SESSION: String(2 * MISSED),
  MAX_EVENTS_PER_REQUEST: "1000",
});
const results = [];
try {
  results.push(
    await measure("Node, serve --data (file store)", {
      start: (p) => startServe(dataDir, p, ["--max-events", String(2 * MISSED)]),
      api: "/api",
      headers: { authorization: "Bearer w" },
    }),
  );
  results.push(
    await measure("workerd, Durable Object SQLite (on disk)", {
      start: (p) => startWorkerd(doDir, p),
      api: "",
      headers: { authorization: `Bearer ${TOKEN}` },
    }),
  );
} finally {
  rmSync(dataDir, { recursive: true, force: true });
  rmSync(doDir, { recursive: true, force: true });
}

const round = (x) => Math.round(x).toLocaleString("en-US");
console.log(`| runtime | appends/s, batches of 1 | events/s, batches of 100 | restart → first answer, ${BIG.toLocaleString("en-US")} events (ms) | resume of ${MISSED.toLocaleString("en-US")} missed after a restart (ms) |
|---|---|---|---|---|`);
for (const r of results)
  console.log(
    `| ${r.name} | ${round(r.one)} | ${round(r.hundred)} | ${round(r.restart)} | ${round(r.resume)} |`,
  );
