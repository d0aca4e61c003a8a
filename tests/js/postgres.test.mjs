// Durable sessions in PostgreSQL shared by replicas (js/postgres.js and the
// shared-storage path of js/durable.js), on a real server this file starts
// (tests/js/postgres.mjs): each replica is an edge handler with a storage
// (pool and LISTEN connection) of its own over one database.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, readFileSync } from "node:fs";
import { connect, createServer } from "node:net";
import { DurableSessions, httpStatusOf, parseCursor } from "agent-replay";
import { createReplayHandler } from "agent-replay/edge";
import { postgresStore } from "agent-replay/postgres";
import { EventSource } from "eventsource";
import pg from "pg";
import { serve } from "../../bin/serve.js";
import { freePort, spawnReplica, startPostgres } from "./postgres.mjs";

let db;
before(async () => {
  db = await startPostgres();
});
after(() => db?.close());

/** A distinct event: `n` is its turn and its message count. */
const ev = (n) => JSON.stringify({ kind: "page_out", turn: n, message_count: n });

/** Waits for `check()` to hold, up to `ms`. */
async function until(check, what, ms = 20_000) {
  const t0 = Date.now();
  while (!(await check())) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** A replica: an edge handler (with `handlerOptions`) over a storage of
 * its own (with `options`); closed after the test. */
function replica(t, options = {}, handlerOptions = {}) {
  const storage = postgresStore({ connectionString: db.connectionString, ...options });
  t.after(() => storage.close());
  const handler = createReplayHandler({
    authorize: () => true,
    storage,
    checkpointEvery: 5,
    ...handlerOptions,
  });
  const request = (path, init) => handler(new Request(`http://edge.test/sessions/${path}`, init));
  return {
    storage,
    request,
    post: (id, body, headers = {}) => request(`${id}/events`, { method: "POST", body, headers }),
    observe: async (id) => (await request(id)).json(),
    resume: async (id, cursor) =>
      (await request(`${id}/events?cursor=${encodeURIComponent(cursor)}`)).json(),
  };
}

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

/** A cursor of the same incarnation and session at `position`. */
function cursorAt(cursor, position) {
  const { incarnation, session_id } = parseCursor(cursor);
  return `arc1:${incarnation}:0:${position}:${session_id}`;
}

/** Reads an SSE response as it streams: `seen` gets each event's
 * position and data, `gaps` each gap. */
function follow(response) {
  const reader = response.body.pipeThrough(new TextDecoderStream()).getReader();
  const seen = [];
  const gaps = [];
  let buffer = "";
  const pump = (async () => {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      buffer += value;
      const messages = buffer.split("\n\n");
      buffer = messages.pop();
      for (const message of messages) {
        const field = (name) =>
          message
            .split("\n")
            .filter((l) => l.startsWith(`${name}: `))
            .map((l) => l.slice(name.length + 2))
            .join("\n");
        if (field("event") === "gap") gaps.push(JSON.parse(field("data")));
        else if (!field("event") && field("id"))
          seen.push({ position: parseCursor(field("id")).position, data: field("data") });
      }
    }
  })();
  return { seen, gaps, close: () => reader.cancel().then(() => pump) };
}

test("a session appended on one replica is observed and resumed on another", async (t) => {
  const a = replica(t);
  const b = replica(t);
  const first = await (await a.post("resume-1", [ev(1), ev(2), ev(3)].join("\n"))).json();
  assert.equal(first.appended, 3);
  const seen = await b.observe("resume-1");
  assert.equal(seen.cursor, first.cursor);
  assert.equal(seen.state.event_count, 3);
  const resumed = await b.resume("resume-1", cursorAt(first.cursor, 1));
  assert.equal(resumed.type, "replayed");
  assert.deepEqual(
    resumed.events.map((e) => [e.position, e.event.turn]),
    [
      [2, 2],
      [3, 3],
    ],
  );
  // B appends after what A stored (its live copy caught up first), and A
  // serves it in turn.
  const second = await (await b.post("resume-1", ev(4))).json();
  assert.equal(parseCursor(second.cursor).position, 4);
  assert.equal((await a.observe("resume-1")).cursor, second.cursor);
  const onA = await a.resume("resume-1", first.cursor);
  assert.deepEqual(
    onA.events.map((e) => e.event.turn),
    [4],
  );
});

test("an event appended on replica A reaches a stream on replica B by the doorbell", async (t) => {
  const a = replica(t);
  // No poll in this test's time: only the doorbell can bring it.
  const b = replica(t, { pollMs: 600_000 });
  const { cursor } = await (await a.post("live-1", ev(1))).json();
  const stream = follow(await b.request(`live-1/stream?cursor=${encodeURIComponent(cursor)}`));
  t.after(() => stream.close());
  for (const n of [2, 3, 4]) assert.equal((await a.post("live-1", ev(n))).status, 200);
  await until(() => stream.seen.length === 3, "the three events on B's stream");
  assert.deepEqual(
    stream.seen.map((s) => [s.position, JSON.parse(s.data).turn]),
    [
      [2, 2],
      [3, 3],
      [4, 4],
    ],
  );
  assert.deepEqual(stream.gaps, []);
  // A stream opened on B before the session has any event.
  const early = follow(await b.request("live-2/stream"));
  t.after(() => early.close());
  assert.equal((await a.post("live-2", ev(1))).status, 200);
  await until(() => early.seen.length === 1, "the first event on B's stream");
  assert.equal(early.seen[0].position, 1);
});

test("a doorbell missed (the LISTEN connection lost) is made up by the poll", async (t) => {
  const a = replica(t);
  // Its LISTEN connection, once lost, is not made again in this test's time.
  const b = replica(t, { pollMs: 100, retryMs: 600_000 });
  const { cursor } = await (await a.post("poll-1", ev(1))).json();
  const stream = follow(await b.request(`poll-1/stream?cursor=${encodeURIComponent(cursor)}`));
  t.after(() => stream.close());
  await until(
    async () => (await sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")).length,
    "the LISTEN connections",
  );
  await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'");
  assert.equal((await a.post("poll-1", ev(2))).status, 200);
  await until(() => stream.seen.length === 1, "the event on B's stream");
  assert.deepEqual(
    stream.seen.map((s) => s.position),
    [2],
  );
});

test("a poll asks the heads in one query and reads on only the sessions behind", async (t) => {
  const a = replica(t);
  const storage = postgresStore({ connectionString: db.connectionString });
  t.after(() => storage.close());
  let ring;
  const tails = [];
  const spy = {
    ...storage,
    subscribe: (onDoorbell) => {
      ring = onDoorbell;
      return () => {};
    },
    tail: (id, after) => {
      tails.push(id);
      return storage.tail(id, after);
    },
  };
  const sessions = new DurableSessions({ storage: spy });
  const ids = ["heads-1", "heads-2", "heads-3"];
  for (const id of ids) {
    assert.equal((await a.post(id, ev(1))).status, 200);
    await sessions.open(id);
  }
  assert.equal((await a.post("heads-2", ev(2))).status, 200);
  tails.length = 0;
  await ring(undefined);
  // The refreshes it started have read the table by the next macrotask.
  await new Promise((resolve) => setImmediate(resolve));
  assert.deepEqual(tails, ["heads-2"]);
  await until(
    async () => (await sessions.open("heads-2")).observe().state.event_count === 2,
    "heads-2",
  );
  sessions.close();
});

test("two replicas appending to one session at once: contiguous positions, none lost or doubled", async (t) => {
  const replicas = [replica(t), replica(t)];
  const acknowledged = new Map();
  const writer = async (r, offset) => {
    for (let i = 0; i < 15; i++) {
      const batch = [1, 2].map((k) => offset + i * 10 + k);
      const response = await r.post("race-1", batch.map(ev).join("\n"));
      assert.equal(response.status, 200, await response.clone().text());
      const { cursor } = await response.json();
      const last = parseCursor(cursor).position;
      batch.forEach((n, k) => {
        acknowledged.set(n, last - batch.length + 1 + k);
      });
    }
  };
  await Promise.all([writer(replicas[0], 1000), writer(replicas[1], 2000)]);
  const rows = await sql(
    "SELECT position, event FROM agent_replay_events WHERE session_id = $1 ORDER BY position",
    ["race-1"],
  );
  assert.deepEqual(
    rows.map((r) => Number(r.position)),
    Array.from({ length: 60 }, (_, i) => i + 1),
  );
  const stored = new Map(rows.map((r) => [JSON.parse(r.event).turn, Number(r.position)]));
  assert.deepEqual(stored, acknowledged, "each event stored once, where its answer said");
  // A batch is never split by another replica's.
  for (const [n, position] of stored)
    if (n % 10 === 2) assert.equal(stored.get(n - 1), position - 1);
  const [a, b] = await Promise.all(replicas.map((r) => r.observe("race-1")));
  assert.equal(a.cursor, b.cursor);
  assert.deepEqual(a.state, b.state);
  assert.equal(a.state.event_count, 60);
});

test("a retry with the same Idempotency-Key on another replica stores nothing", async (t) => {
  const a = replica(t);
  const b = replica(t);
  const headers = { "idempotency-key": "batch-7" };
  const first = await (await a.post("keys-1", [ev(1), ev(2)].join("\n"), headers)).json();
  const retry = await b.post("keys-1", [ev(1), ev(2)].join("\n"), headers);
  assert.equal(retry.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(await retry.json(), first);
  const rows = await sql(
    "SELECT count(*)::int AS n FROM agent_replay_events WHERE session_id = $1",
    ["keys-1"],
  );
  assert.equal(rows[0].n, 2);
});

test("a replica started later restores from the checkpoint and the table", async (t) => {
  const a = replica(t);
  let cursor;
  for (let n = 1; n <= 12; n++) ({ cursor } = await (await a.post("restart-1", ev(n))).json());
  const checkpoints = await sql(
    "SELECT position FROM agent_replay_checkpoints WHERE session_id = $1 AND state IS NOT NULL",
    ["restart-1"],
  );
  assert.deepEqual(
    checkpoints.map((r) => Number(r.position)),
    [10],
  );
  const later = replica(t);
  const seen = await later.observe("restart-1");
  assert.equal(seen.cursor, cursor);
  assert.equal(seen.state.event_count, 12);
  const resumed = await later.resume("restart-1", cursorAt(cursor, 3));
  assert.deepEqual(
    resumed.events.map((e) => e.position),
    [4, 5, 6, 7, 8, 9, 10, 11, 12],
  );
});

test("idle sessions leave a replica's memory, however many, and come back from the checkpoint, not a refold of the log", async (t) => {
  const storage = postgresStore({ connectionString: db.connectionString });
  t.after(() => storage.close());
  const loads = [];
  const spy = {
    ...storage,
    // No doorbells: a refresh they start would keep a session busy, in memory.
    subscribe: undefined,
    load: async (id, options) => {
      const loaded = await storage.load(id, options);
      loads.push({ id, checkpoint: loaded?.checkpoint?.position, events: loaded?.events.length });
      return loaded;
    },
  };
  let clock = 1_000_000;
  const sessions = new DurableSessions({
    storage: spy,
    storeOptions: { now: () => clock },
    retention: { events: 4 },
    checkpointEvery: 5,
    idleMs: 1000,
  });
  t.after(() => sessions.close());
  const ids = Array.from({ length: 40 }, (_, i) => `idle-${i}`);
  for (const id of ids) {
    const session = await sessions.open(id);
    for (let n = 1; n <= 12; n++) await session.append(ev(n));
  }
  // Every session unused past idleMs leaves memory when another is used.
  assert.equal(sessions.size, ids.length);
  clock += 2000;
  await sessions.open("idle-other");
  assert.equal(sessions.size, 1, "only the session just used is kept");
  // Its checkpoint (at 10), marked so a refold of the log would not show it.
  await sql(
    `UPDATE agent_replay_checkpoints SET state = replace(state, '"event_count":10', '"event_count":1010')
     WHERE session_id = 'idle-7' AND position = 10`,
  );
  loads.length = 0;
  const seen = await sessions.read("idle-7", (s) => s.observe());
  assert.deepEqual(loads, [{ id: "idle-7", checkpoint: 10, events: 7 }]);
  assert.equal(seen.state.event_count, 1012, "folded on from the checkpoint");
  assert.equal(parseCursor(seen.cursor).position, 12);
  assert.equal(sessions.size, 2);
});

/** The positions the table holds of session `id`. */
async function storedPositions(id) {
  const rows = await sql(
    "SELECT position FROM agent_replay_events WHERE session_id = $1 ORDER BY position",
    [id],
  );
  return rows.map((r) => Number(r.position));
}

const range = (from, to) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

test("retention by count: a checkpoint cuts the table at a mark, old cursors get the trimmed gap", async (t) => {
  const a = replica(t, { retention: { events: 6 } });
  let cursor;
  for (let n = 1; n <= 23; n++) ({ cursor } = await (await a.post("keep-1", ev(n))).json());
  // At the checkpoint at 20 the newest six start at 15: cut at the mark at 10.
  assert.deepEqual(await storedPositions("keep-1"), range(11, 23));
  const later = replica(t);
  const seen = await later.observe("keep-1");
  assert.equal(seen.cursor, cursor);
  assert.equal(seen.state.event_count, 23);
  assert.deepEqual(
    (await later.resume("keep-1", cursorAt(cursor, 12))).events.map((e) => e.position),
    range(13, 23),
  );
  const old = await later.resume("keep-1", cursorAt(cursor, 5));
  assert.equal(old.type, "gap");
  assert.equal(old.gap.reason, "trimmed");
});

test("retention with a live window smaller than the table's: cut all the same, loaded from the cut", async (t) => {
  const options = [{ retention: { events: 6 } }, { retention: { events: 3 } }];
  const a = replica(t, ...options);
  let cursor;
  for (let n = 1; n <= 23; n++) ({ cursor } = await (await a.post("window-1", ev(n))).json());
  assert.deepEqual(await storedPositions("window-1"), range(11, 23));
  const later = replica(t, ...options);
  const seen = await later.observe("window-1");
  assert.equal(seen.cursor, cursor);
  assert.equal(seen.state.event_count, 23);
  assert.deepEqual(
    (await later.resume("window-1", cursorAt(cursor, 20))).events.map((e) => e.event.turn),
    [21, 22, 23],
  );
});

test("a streamed copy the retention cut past: its streams end, and a client resuming gets the trimmed gap", async (t) => {
  const a = replica(t, { retention: { events: 6 } });
  // B hears no doorbell and polls not in this test's time: it falls behind.
  const b = replica(t, { pollMs: 600_000, retryMs: 600_000 });
  const { cursor } = await (await a.post("behind-1", ev(1))).json();
  const response = await b.request(`behind-1/stream?cursor=${encodeURIComponent(cursor)}`);
  const reader = response.body.getReader();
  t.after(() => reader.cancel());
  await until(
    async () => (await sql("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'LISTEN%'")).length,
    "the LISTEN connections",
  );
  await sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE query LIKE 'LISTEN%'");
  for (let n = 2; n <= 23; n++) assert.equal((await a.post("behind-1", ev(n))).status, 200);
  assert.deepEqual(await storedPositions("behind-1"), range(11, 23));
  // B's read catches up: the table no longer has what follows its copy.
  const seen = await b.observe("behind-1");
  assert.equal(seen.state.event_count, 23);
  await until(async () => (await reader.read()).done, "B's stream to end");
  const resumed = await b.resume("behind-1", cursor);
  assert.equal(resumed.type, "gap");
  assert.equal(resumed.gap.reason, "trimmed");
  assert.equal(resumed.observation.state.event_count, 23);
});

test("retention by bytes: the newest events' UTF-8 bytes", async (t) => {
  // Events of one size: two-digit turns.
  const size = Buffer.byteLength(ev(10));
  const a = replica(t, { retention: { bytes: 5 * size } });
  for (let n = 10; n < 22; n++) assert.equal((await a.post("bytes-1", ev(n))).status, 200);
  // At the checkpoint at 10, the newest five (6 to 10) fill the bytes: cut at the mark at 5.
  assert.deepEqual(await storedPositions("bytes-1"), range(6, 12));
});

test("retention by age, judged by the database's clock; cleanup cuts sessions nobody appends to", async (t) => {
  const a = replica(t, { retention: { ageMs: 60_000 } });
  for (let n = 1; n <= 12; n++) assert.equal((await a.post("age-1", ev(n))).status, 200);
  assert.deepEqual(await storedPositions("age-1"), range(1, 12));
  // Two minutes old by the database's clock (this process's clock is not asked).
  await sql(
    `UPDATE agent_replay_events SET stored_at = clock_timestamp() - interval '2 minutes'
     WHERE session_id = $1 AND position <= 7`,
    ["age-1"],
  );
  assert.equal(await a.storage.cleanup(), 1);
  assert.deepEqual(await storedPositions("age-1"), range(6, 12));
  assert.equal(await a.storage.cleanup(), 0, "nothing more to cut");
  const unbounded = replica(t);
  assert.equal(await unbounded.storage.cleanup(), 0);
  assert.throws(() => postgresStore({ connectionString: "x", retention: { ageMs: -1 } }), {
    code: "invalid_input",
  });
});

test("cleanup forgets whole the sessions idle past ageMs; one made again starts above them, old cursors get a gap", async (t) => {
  // The later tests' sessions start at position 1 again.
  t.after(() => sql("UPDATE agent_replay_incarnation SET forgotten_below = 0"));
  const a = replica(t, { retention: { ageMs: 60_000 } });
  // B holds a live copy of the session forgotten, and polls not in this test's time.
  const b = replica(t, { pollMs: 600_000 });
  let old;
  for (let n = 1; n <= 12; n++)
    ({ cursor: old } = await (
      await a.post("forget-1", ev(n), { "idempotency-key": `k${n}` })
    ).json());
  assert.equal((await a.post("forget-2", ev(1))).status, 200);
  assert.equal((await b.observe("forget-1")).cursor, old);
  // Its last append two minutes ago by the database's clock.
  await sql(
    `UPDATE agent_replay_sessions SET appended_at = clock_timestamp() - interval '2 minutes'
     WHERE session_id = 'forget-1'`,
  );
  assert.equal(await a.storage.cleanup(), 1);
  for (const table of ["sessions", "events", "checkpoints", "batch_keys"]) {
    const rows = await sql(
      `SELECT DISTINCT session_id FROM agent_replay_${table} WHERE session_id LIKE 'forget-%'`,
    );
    assert.deepEqual(
      rows.map((r) => r.session_id),
      table === "sessions" || table === "events" ? ["forget-2"] : [],
      `${table} of forget-1 forgotten, forget-2 kept`,
    );
  }
  assert.equal(await a.storage.cleanup(), 0, "nothing more to forget");
  // Made again: its positions start past the forgotten session's last, one never used.
  const again = await (await b.post("forget-1", ev(100))).json();
  assert.equal(parseCursor(again.cursor).position, 14);
  const seen = await b.observe("forget-1");
  assert.equal(seen.state.event_count, 1, "B's copy of the forgotten session reloaded");
  assert.equal(seen.cursor, again.cursor);
  const fresh = replica(t);
  for (const r of [a, b, fresh]) {
    const resumed = await r.resume("forget-1", old);
    assert.equal(resumed.type, "gap", "an old cursor never gets the new session's events");
    assert.equal(resumed.gap.reason, "trimmed");
    assert.equal(resumed.observation.state.event_count, 1);
  }
  // A session never seen starts there too, and resumes from its start.
  const first = await (await fresh.post("forget-3", ev(1))).json();
  assert.equal(parseCursor(first.cursor).position, 14);
  const replayed = await a.resume("forget-3", cursorAt(first.cursor, 13));
  assert.deepEqual(
    replayed.events.map((e) => e.position),
    [14],
  );
});

test("a database of schema version 1 is migrated by the first replica of this package, its sessions kept", async (t) => {
  const a = replica(t);
  const { cursor } = await (await a.post("migrate-1", [ev(1), ev(2)].join("\n"))).json();
  // The tables as version 1 made them.
  await sql(`ALTER TABLE agent_replay_sessions DROP COLUMN appended_at, DROP COLUMN base_position;
    ALTER TABLE agent_replay_incarnation DROP COLUMN forgotten_below;
    UPDATE agent_replay_schema SET version = 1`);
  const later = replica(t);
  assert.equal((await later.observe("migrate-1")).cursor, cursor);
  const next = await (await later.post("migrate-1", ev(3))).json();
  assert.equal(parseCursor(next.cursor).position, 3);
  assert.deepEqual(await sql("SELECT version FROM agent_replay_schema"), [{ version: 2 }]);
});

test("the database stopped hard: appends get storage_unavailable, nothing acknowledged is lost, clients resume", async (t) => {
  const a = replica(t, { retryMs: 100 });
  const b = replica(t, { retryMs: 100, pollMs: 600_000 });
  const { cursor } = await (await a.post("crash-1", ev(1))).json();
  const stream = follow(await b.request(`crash-1/stream?cursor=${encodeURIComponent(cursor)}`));
  t.after(() => stream.close());
  const acknowledged = [1];
  let n = 1;
  const post = async () => {
    n += 1;
    const response = await a.post("crash-1", ev(n));
    const body = await response.json();
    if (response.status === 200) acknowledged.push(n);
    return { response, body };
  };
  for (let i = 0; i < 5; i++) await post();
  await until(() => stream.seen.length === 5, "B's copy at the table's end");
  await db.stop();
  try {
    const { response, body } = await post();
    assert.equal(response.status, 503);
    assert.equal(response.status, httpStatusOf("storage_unavailable"));
    assert.equal(body.error.code, "storage_unavailable");
    assert.equal(response.headers.get("retry-after"), "1");
    // A kept session still answers reads from what it holds: a prefix of the table.
    assert.equal((await b.observe("crash-1")).state.event_count, 6);
  } finally {
    await db.start();
  }
  for (let i = 0; i < 5; i++) assert.equal((await post()).response.status, 200);
  // B's stream gets what A appended after the restart: its LISTEN
  // connection came back and read on from where its copy stood.
  const last = acknowledged.at(-1);
  await until(() => stream.seen.some((s) => JSON.parse(s.data).turn === last), "B's stream");
  const turns = stream.seen.map((s) => JSON.parse(s.data).turn);
  assert.deepEqual(
    stream.seen.map((s) => s.position),
    Array.from({ length: stream.seen.length }, (_, i) => i + 2),
    "in order, no gap, no duplicate",
  );
  for (const turn of acknowledged.slice(1)) assert.ok(turns.includes(turn), `event ${turn}`);
  const rows = await sql(
    "SELECT event FROM agent_replay_events WHERE session_id = $1 ORDER BY position",
    ["crash-1"],
  );
  const stored = rows.map((r) => JSON.parse(r.event).turn);
  for (const turn of acknowledged) assert.ok(stored.includes(turn), `stored ${turn}`);
  // A client resumes on a replica started after the restart.
  const fresh = replica(t);
  const resumed = await fresh.resume("crash-1", cursor);
  assert.deepEqual(
    resumed.events.map((e) => e.event.turn),
    stored.slice(1),
  );
});

test("a replica whose first request finds the database down serves once it is up", async (t) => {
  const a = replica(t);
  await db.stop();
  try {
    const refused = await a.post("late-1", ev(1));
    assert.equal(refused.status, 503);
    assert.equal((await refused.json()).error.code, "storage_unavailable");
    assert.equal((await a.request("late-1")).status, 503);
  } finally {
    await db.start();
  }
  const { cursor } = await (await a.post("late-1", ev(1))).json();
  assert.equal(parseCursor(cursor).position, 1);
  assert.equal((await a.observe("late-1")).cursor, cursor);
});

test("a database emptied: the incarnation rotates, old cursors get a gap, old replicas refuse", async (t) => {
  const a = replica(t);
  const { cursor } = await (await a.post("rotate-1", [ev(1), ev(2)].join("\n"))).json();
  const tables = await sql(
    "SELECT tablename FROM pg_tables WHERE schemaname = 'public' AND tablename LIKE 'agent_replay%'",
  );
  await sql(`DROP TABLE ${tables.map((r) => r.tablename).join(", ")}`);
  const fresh = replica(t);
  const resumed = await fresh.resume("rotate-1", cursor);
  assert.equal(resumed.type, "gap");
  assert.equal(resumed.gap.reason, "unavailable");
  assert.notEqual(
    parseCursor(resumed.observation.cursor).incarnation,
    parseCursor(cursor).incarnation,
  );
  // The old replica writes nothing under the old incarnation, each time.
  for (const attempt of [1, 2]) {
    const refused = await a.post("rotate-1", ev(3));
    assert.equal(refused.status, 503, `attempt ${attempt}`);
    assert.equal((await refused.json()).error.code, "storage_unavailable");
  }
  const rows = await sql("SELECT count(*)::int AS n FROM agent_replay_events");
  assert.equal(rows[0].n, 0);
  const appended = await (await fresh.post("rotate-1", ev(3))).json();
  assert.equal(parseCursor(appended.cursor).position, 1);
});

/**
 * A TCP proxy on 127.0.0.1 in front of the test database that can go
 * silent as a network losing a connection does, telling neither side:
 * `freeze()` stops every connection open now (new ones pass);
 * `freezeAfter(text)` stops the next connection that sends `text`, once
 * it is sent. A client that closes a silent connection is not heard by
 * the server.
 */
async function silentLine(t) {
  const { port } = new URL(db.connectionString);
  const lines = new Set();
  let trigger;
  const server = createServer((client) => {
    const line = { client, upstream: connect(Number(port), "127.0.0.1"), silent: false };
    lines.add(line);
    for (const s of [client, line.upstream]) s.on("error", () => {});
    client.on("data", (chunk) => {
      if (line.silent) return;
      line.upstream.write(chunk);
      if (trigger && chunk.includes(trigger)) {
        trigger = undefined;
        line.silent = true;
      }
    });
    line.upstream.on("data", (chunk) => line.silent || client.write(chunk));
    client.on("close", () => line.silent || line.upstream.destroy());
    line.upstream.on("close", () => line.silent || client.destroy());
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  t.after(() => {
    for (const { client, upstream } of lines) {
      client.destroy();
      upstream.destroy();
    }
    server.close();
  });
  return {
    connectionString: `postgres://postgres@127.0.0.1:${server.address().port}/postgres`,
    freeze: () => {
      for (const line of lines) line.silent = true;
    },
    freezeAfter: (text) => {
      trigger = Buffer.from(text);
    },
  };
}

/** `promise`, or a failure once `ms` passed without it settling. */
function within(promise, ms, what) {
  let timer;
  const late = new Promise((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} still unanswered after ${ms} ms`)), ms);
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

test("a half-open connection fails the request as storage_unavailable after queryTimeoutMs, not never", async (t) => {
  const line = await silentLine(t);
  const a = replica(t, { connectionString: line.connectionString, queryTimeoutMs: 300 });
  assert.equal((await a.post("halfopen-1", ev(1))).status, 200);
  line.freeze();
  await assert.rejects(
    within(a.storage.append("halfopen-1", { events: [ev(2)] }), 4000, "the append"),
    { code: "storage_unavailable" },
  );
  // The silent connection left the pool: a request gets a new one.
  assert.equal((await within(a.post("halfopen-1", ev(2)), 4000, "the retry")).status, 200);
  assert.equal((await a.observe("halfopen-1")).state.event_count, 2);
  assert.throws(() => postgresStore({ connectionString: "x", queryTimeoutMs: 0 }), {
    code: "invalid_input",
  });
});

test("a replica gone silent holding a session's head row lock: the server ends its transaction, the others append", async (t) => {
  const line = await silentLine(t);
  const a = replica(t, { connectionString: line.connectionString, queryTimeoutMs: 300 });
  const b = replica(t);
  assert.equal((await b.post("halfopen-2", ev(1))).status, 200);
  // A's connection goes silent once its append has the row lock.
  line.freezeAfter("FOR UPDATE");
  const refused = await within(a.post("halfopen-2", ev(2)), 5000, "A's append");
  assert.equal(refused.status, 503);
  const appended = await within(b.post("halfopen-2", ev(3)), 5000, "B's append");
  assert.equal(appended.status, 200);
  assert.deepEqual(await storedPositions("halfopen-2"), [1, 2]);
});

/** examples/edge/server.mjs with DATABASE_URL, as a replica is deployed;
 * killed after the test. Its base URL once it listens. */
async function exampleServer(t) {
  const port = await freePort();
  const child = await spawnReplica(db.connectionString, port, {
    TOKENS: JSON.stringify({ secret: "*" }),
    RETRY_MS: "50",
  });
  t.after(() => child.kill("SIGKILL"));
  return { base: `http://127.0.0.1:${port}/sessions`, child };
}

test("examples/edge/server.mjs replicas on DATABASE_URL: a real EventSource client moves between them", async (t) => {
  const [one, two] = [await exampleServer(t), await exampleServer(t)];
  const headers = { authorization: "Bearer secret" };
  const post = async (server, n) => {
    const body = ev(n);
    const response = await fetch(`${server.base}/lb-1/events`, { method: "POST", body, headers });
    assert.equal(response.status, 200);
  };
  const follow = (server, lastEventId) => {
    const seen = [];
    const es = new EventSource(`${server.base}/lb-1/stream`, {
      fetch: (input, init) =>
        fetch(input, {
          ...init,
          headers: {
            ...init.headers,
            ...headers,
            ...(lastEventId && { "last-event-id": lastEventId }),
          },
        }),
    });
    es.onmessage = (m) =>
      seen.push({ position: parseCursor(m.lastEventId).position, id: m.lastEventId });
    t.after(() => es.close());
    return { es, seen };
  };
  await post(one, 1);
  const onTwo = follow(two);
  await until(() => onTwo.es.readyState === EventSource.OPEN, "the stream on replica two");
  for (const n of [2, 3]) await post(one, n);
  await until(() => onTwo.seen.length === 2, "replica one's events on replica two's stream");
  // Replica two dies; the client goes on from replica one where it stopped.
  two.child.kill("SIGKILL");
  onTwo.es.close();
  const onOne = follow(one, onTwo.seen.at(-1).id);
  for (const n of [4, 5]) await post(one, n);
  await until(() => onOne.seen.length === 2, "the rest on replica one's stream");
  assert.deepEqual(
    [...onTwo.seen, ...onOne.seen].map((s) => s.position),
    [2, 3, 4, 5],
  );
});

test("agent-replay serve --data postgres://: two servers share the sessions; a database out of reach stops the start", async (t) => {
  const options = { port: 0, data: db.connectionString, writeToken: "w" };
  const [one, two] = [await serve(options), await serve(options)];
  t.after(() => Promise.all([one.close(), two.close()]));
  const appended = await fetch(`${one.url}/api/sessions/serve-1/events`, {
    method: "POST",
    body: [ev(1), ev(2)].join("\n"),
    headers: { authorization: "Bearer w" },
  });
  assert.equal(appended.status, 200);
  const { cursor } = await appended.json();
  const seen = await (await fetch(`${two.url}/api/sessions/serve-1`)).json();
  assert.equal(seen.cursor, cursor);
  assert.equal(seen.state.event_count, 2);
  await assert.rejects(serve({ port: 0, data: "postgres://postgres@127.0.0.1:1/none" }), {
    code: "storage_unavailable",
  });
});

test("only agent-replay/postgres imports pg, an optional peer dependency", () => {
  const root = new URL("../../", import.meta.url);
  const pkg = JSON.parse(readFileSync(new URL("package.json", root), "utf8"));
  assert.equal(pkg.peerDependenciesMeta.pg.optional, true);
  assert.ok(pkg.peerDependencies.pg);
  assert.equal(pkg.dependencies.pg, undefined);
  const importers = readdirSync(new URL("js/", root), { recursive: true })
    .filter((f) => f.endsWith(".js"))
    .filter((f) =>
      /\bimport\b[^;]*["']pg["']/.test(readFileSync(new URL(`js/${f}`, root), "utf8")),
    );
  assert.deepEqual(importers, ["postgres.js"]);
});
