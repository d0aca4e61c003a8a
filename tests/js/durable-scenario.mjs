// The kill-and-restart scenario of durable sessions, run against a server
// on any runtime (`agent-replay serve --data` on Node, workerd with
// Durable Object SQLite storage): a writer posts, real EventSource clients
// follow, the server is killed with SIGKILL and restarted.
import assert from "node:assert/strict";
import { parseCursor } from "agent-replay";
import { EventSource } from "eventsource";

export const ev = (turn) => JSON.stringify({ kind: "page_out", turn, message_count: turn });

async function until(check, what, ms = 20_000) {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Follows a stream with a real EventSource sending `headers`; `seen`
 * gets every message. */
function follow(url, headers) {
  const seen = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...headers } }),
  });
  es.onmessage = (m) => seen.push({ position: parseCursor(m.lastEventId).position, data: m.data });
  es.addEventListener("gap", (m) => seen.push({ gap: m.data }));
  return { es, seen };
}

/**
 * The kill-and-restart scenario against a server at `base` (its API root):
 * `kill()` SIGKILLs it mid-stream and `restart()` brings it back on the
 * same address; EventSource clients follow the whole time. Every client
 * must end with every acknowledged event, in order, no duplicate, no gap.
 */
export async function killScenario(base, { kill, restart, headers, session = "run-1" }) {
  const path = `${base}/sessions/${session}`;
  const { cursor } = await (await fetch(path, { headers })).json();
  const clients = [0, 1, 2].map(() =>
    follow(`${path}/stream?cursor=${encodeURIComponent(cursor)}`, headers),
  );
  await until(() => clients.every((c) => c.es.readyState === 1), "the streams to open");
  const acked = new Set();
  let turn = 0;
  /** Posts batches of 1 to 5 events until `stop()`; a batch whose POST fails is in flight. */
  const write = async (stop) => {
    while (!stop()) {
      const size = 1 + (turn % 5);
      const turns = Array.from({ length: size }, () => ++turn);
      try {
        const r = await fetch(`${path}/events`, {
          method: "POST",
          headers,
          body: turns.map(ev).join("\n"),
        });
        if (r.status === 200) for (const n of turns) acked.add(n);
        else await r.body?.cancel();
      } catch {
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  };
  let writing = true;
  const writer = write(() => !writing);
  await until(() => acked.size >= 100, "100 acknowledged events");
  await kill();
  const killedAt = acked.size;
  await restart();
  await until(() => acked.size >= killedAt + 100, "100 more acknowledged events");
  writing = false;
  await writer;
  const { cursor: last } = await (await fetch(path, { headers })).json();
  const tail = parseCursor(last).position;
  try {
    await until(
      () => clients.every((c) => c.seen.at(-1)?.position === tail),
      "every client to reach the last event",
    );
  } finally {
    for (const c of clients) c.es.close();
  }
  for (const { seen } of clients) {
    assert.ok(!seen.some((m) => m.gap), "no gap");
    assert.deepEqual(
      seen.map((m) => m.position),
      Array.from({ length: tail }, (_, i) => i + 1),
      "every position once, in order",
    );
    const turns = new Set(seen.map((m) => JSON.parse(m.data).turn));
    for (const n of acked) assert.ok(turns.has(n), `acknowledged turn ${n} delivered`);
    assert.equal(turns.size, seen.length, "no event twice");
  }
  assert.deepEqual(clients[1].seen, clients[0].seen, "every client the same events");
  assert.deepEqual(clients[2].seen, clients[0].seen);
  return { acked: acked.size, tail, clients: clients.map((c) => c.seen) };
}
