// Chaos: three replicas (examples/edge/server.mjs with DATABASE_URL, as
// deployed) on one database, behind a round-robin HTTP proxy, a writer
// retrying each batch with its Idempotency-Key and real EventSource
// clients; each replica is SIGKILLed mid-stream and started again in turn.
// Every client must end with every acknowledged event, in order, once.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import http from "node:http";
import { parseCursor } from "agent-replay";
import { EventSource } from "eventsource";
import pg from "pg";
import { freePort, spawnReplica, startPostgres } from "./postgres.mjs";

let db;
before(async () => {
  db = await startPostgres();
});
after(() => db?.close());

const HEADERS = { authorization: "Bearer secret" };
const ev = (n) => JSON.stringify({ kind: "page_out", turn: n, message_count: n });

/** Waits for `check()` to hold, up to `ms`. */
async function until(check, what, ms = 30_000) {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A replica on a port of its own: `start()` spawns examples/edge/server.mjs
 * there (again after a kill), `kill()` SIGKILLs it. */
async function replica() {
  const port = await freePort();
  let child;
  return {
    port,
    async start() {
      child = await spawnReplica(db.connectionString, port, {
        TOKENS: JSON.stringify({ secret: "*" }),
        RETRY_MS: "50",
      });
    },
    async kill() {
      const killed = child;
      if (killed.exitCode !== null || killed.signalCode !== null) return;
      killed.kill("SIGKILL");
      await new Promise((r) => killed.once("exit", r));
    },
  };
}

/**
 * A round-robin HTTP proxy on 127.0.0.1: each request goes to the next
 * replica; one that refuses the connection is skipped (the request, its
 * body buffered, goes to the next). A request lost on its way (its replica
 * killed) gets 502 and is not sent again: the client decides. A response
 * cut upstream is cut downstream too, so its client reconnects.
 * `killDuringPost(port, kill)`: `kill()` runs as the next POST to `port`
 * has been sent, so that the replica dies with an append in flight.
 */
async function roundRobin(ports) {
  let next = 0;
  let armed;
  const server = http.createServer(async (req, res) => {
    const chunks = [];
    for await (const chunk of req) chunks.push(chunk);
    const body = Buffer.concat(chunks);
    const attempt = (left) => {
      const port = ports[next++ % ports.length];
      const upstream = http.request(
        { host: "127.0.0.1", port, method: req.method, path: req.url, headers: req.headers },
        (response) => {
          res.writeHead(response.statusCode, response.headers);
          res.flushHeaders();
          response.pipe(res);
          response.on("error", () => res.destroy());
          response.on("close", () => {
            if (!response.complete) res.destroy();
          });
        },
      );
      upstream.on("error", (e) => {
        if (res.headersSent) res.destroy();
        else if (e.code === "ECONNREFUSED" && left > 1) attempt(left - 1);
        else res.writeHead(502).end();
      });
      res.on("close", () => upstream.destroy());
      upstream.end(body, () => {
        if (req.method !== "POST" || armed?.port !== port) return;
        const { kill } = armed;
        armed = undefined;
        kill();
      });
    };
    attempt(ports.length);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}`,
    killDuringPost: (port, kill) =>
      new Promise((resolve, reject) => {
        armed = { port, kill: () => kill().then(resolve, reject) };
      }),
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

/** A real EventSource through the proxy; `seen` gets every event. */
function follow(url) {
  const seen = [];
  const es = new EventSource(url, {
    fetch: (input, init) => fetch(input, { ...init, headers: { ...init.headers, ...HEADERS } }),
  });
  es.onmessage = (m) => seen.push({ position: parseCursor(m.lastEventId).position, data: m.data });
  es.addEventListener("gap", (m) => seen.push({ gap: m.data }));
  return { es, seen };
}

test("three replicas behind a round-robin proxy, each SIGKILLed mid-stream in turn: every client gets every acknowledged event, in order, once", async (t) => {
  const replicas = await Promise.all([replica(), replica(), replica()]);
  t.after(() => Promise.all(replicas.map((r) => r.kill())));
  await Promise.all(replicas.map((r) => r.start()));
  const proxy = await roundRobin(replicas.map((r) => r.port));
  t.after(() => proxy.close());
  const path = `${proxy.url}/sessions/chaos-1`;

  // Three clients: round robin puts each on a replica of its own.
  const clients = [0, 1, 2].map(() => follow(`${path}/stream`));
  t.after(() => {
    for (const c of clients) c.es.close();
  });
  await until(() => clients.every((c) => c.es.readyState === EventSource.OPEN), "the streams");

  // The writer: batches of 1 to 3 events, each retried with its key until
  // acknowledged (an answer lost with a killed replica is asked again).
  const acked = new Set();
  let turn = 0;
  let batches = 0;
  let lost = 0;
  let writing = true;
  const writer = (async () => {
    while (writing) {
      batches += 1;
      const turns = Array.from({ length: 1 + (batches % 3) }, () => ++turn);
      const key = `batch-${batches}`;
      for (let tries = 0; ; tries++) {
        assert.ok(tries < 500, `batch ${key} acknowledged within 500 tries`);
        const response = await fetch(`${path}/events`, {
          method: "POST",
          headers: { ...HEADERS, "idempotency-key": key },
          body: turns.map(ev).join("\n"),
        }).catch(() => undefined);
        await response?.body?.cancel();
        if (response?.status === 200) break;
        lost += 1;
        await new Promise((r) => setTimeout(r, 20));
      }
      for (const n of turns) acked.add(n);
    }
  })();
  const moreAcked = async (count, what) => {
    const from = acked.size;
    await until(() => acked.size >= from + count, what);
  };

  await moreAcked(30, "30 acknowledged events");
  for (const [i, r] of replicas.entries()) {
    await proxy.killDuringPost(r.port, () => r.kill());
    await moreAcked(30, `30 events with replica ${i} down`);
    await r.start();
    await moreAcked(30, `30 events with replica ${i} back`);
  }
  writing = false;
  await writer;
  assert.ok(lost >= 1, "a kill lost an append's answer, retried");

  const rows = await sql("SELECT event FROM agent_replay_events WHERE session_id = 'chaos-1'");
  const stored = rows.map((r) => JSON.parse(r.event).turn);
  assert.equal(new Set(stored).size, stored.length, "no batch stored twice");
  const tail = stored.length;
  await until(
    () => clients.every((c) => c.seen.at(-1)?.position === tail),
    "every client at the last event",
  );
  for (const { seen } of clients) {
    assert.ok(!seen.some((m) => m.gap), "no gap");
    assert.deepEqual(
      seen.map((m) => m.position),
      Array.from({ length: tail }, (_, i) => i + 1),
      "every position once, in order",
    );
    const turns = new Set(seen.map((m) => JSON.parse(m.data).turn));
    assert.equal(turns.size, seen.length, "no event twice");
    for (const n of acked) assert.ok(turns.has(n), `acknowledged turn ${n} delivered`);
  }
  assert.deepEqual(clients[1].seen, clients[0].seen, "every client the same events");
  assert.deepEqual(clients[2].seen, clients[0].seen);
});

/** Runs SQL on the test database. */
async function sql(text, values) {
  const client = new pg.Client(db.connectionString);
  await client.connect();
  try {
    return (await client.query(text, values)).rows;
  } finally {
    await client.end();
  }
}
