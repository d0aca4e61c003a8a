// A storage for durable sessions (js/durable.js) in PostgreSQL, shared by
// every replica of a service: a client that reconnects to another replica
// finds its session there. The table is the log. An append takes the
// session's head row lock (SELECT … FOR UPDATE) and assigns positions from
// it in the transaction that stores the events, so commit order is position
// order and two replicas appending to one session at once get contiguous
// positions; the append answers the positions the database gave. Each
// replica keeps a live copy of the sessions it serves and brings it up to
// date from the table (`tail`): on a doorbell, a `pg_notify` sent with each
// append's commit and heard by one LISTEN connection per storage; on a poll
// every `pollMs`, the safety net for a doorbell missed while that
// connection was down; and before every read and append. An incarnation row
// names the history: when the database is emptied or replaced it no longer
// matches, and the replica refuses to serve rather than mix two histories.
// `pg` (node-postgres) is an optional peer dependency, imported only here.
import { AgentReplayError } from "./common.js";
import { bounded, checkRetention, sweep } from "./postgres-retention.js";
import {
  CHANNEL,
  appendBatch,
  coded,
  install,
  loadSession,
  readHeads,
  readTail,
  storeCheckpoint,
  transaction,
} from "./postgres-sql.js";

/**
 * A storage in PostgreSQL for `createReplayHandler({storage})` and
 * `DurableSessions`: `postgresStore({connectionString})` (a pool of its
 * own, ended by `close()`) or `postgresStore({pool})` (a pg Pool the host
 * owns and ends). `pollMs` (5000): how often the sessions a replica holds
 * are checked against the table, in case a doorbell was missed; `retryMs`
 * (500): the delay before a lost LISTEN connection is made again;
 * `queryTimeoutMs` (10000): how long a query of the pool it makes may go
 * unanswered before it fails as `storage_unavailable` (pg's
 * `query_timeout`), so that a connection the network lost without a word
 * (half-open) cannot hold a request for ever;
 * `retention: {events, bytes, ageMs}`: what the table keeps of each
 * session (js/postgres-retention.js; by default everything). The tables
 * are made on first use.
 */
export function postgresStore({
  connectionString,
  pool,
  pollMs = 5000,
  retryMs = 500,
  queryTimeoutMs = 10_000,
  retention: kept,
} = {}) {
  const retention = checkRetention(kept);
  if (!pool && typeof connectionString !== "string")
    throw new AgentReplayError("invalid_input", "postgresStore needs {connectionString} or {pool}");
  for (const [name, value] of Object.entries({ pollMs, retryMs, queryTimeoutMs }))
    if (typeof value !== "number" || !(value > 0))
      throw new AgentReplayError("invalid_input", `${name} must be a positive number`);
  const db = database(() => makePool({ connectionString, pool, queryTimeoutMs }));
  const listeners = new Set();
  let unlisten;
  /** Where the cleanup's sweep goes on from (undefined: the start). */
  let swept;

  return {
    incarnation: () => db.run(async (_, mine) => mine),
    /** What a replica restores: the events after the checkpoint mark at or
     * before both the latest checkpoint and the newest `retainEvents`,
     * their times from their age by the database's clock, their keys. */
    load: (id, { retainEvents }) => db.run((p, mine) => loadSession(p, id, retainEvents, mine)),
    append: (id, batch) => db.run((p, mine) => appendBatch(p, id, batch, mine)),
    tail: (id, after) => db.run((p, mine) => readTail(p, id, after, mine)),
    heads: (ids) => db.run((p) => readHeads(p, ids)),
    checkpoint: (id, checkpoint) => db.run((p) => storeCheckpoint(p, id, checkpoint, retention)),

    /** Cuts the next sessions (a hundred at most) to `retention`, so that
     * the table keeps no more of a session nobody appends to either, and
     * forgets whole those idle past `retention.ageMs`: call it now and
     * then. How many sessions lost events. */
    cleanup() {
      if (!bounded(retention)) return Promise.resolve(0);
      return db.run(async (p) => {
        const { cut, next } = await sweep(p, swept, retention, transaction);
        swept = next;
        return cut;
      });
    },

    /** Calls `onDoorbell(sessionId)` when a session may have new events
     * (`undefined`: any may have); returns what stops it. */
    subscribe(onDoorbell) {
      listeners.add(onDoorbell);
      const ring = (id) => {
        for (const l of listeners) l(id);
      };
      unlisten ??= listen(db.pool, ring, { pollMs, retryMs });
      return () => {
        listeners.delete(onDoorbell);
        if (listeners.size === 0 && unlisten) {
          unlisten();
          unlisten = undefined;
        }
      };
    },

    /** Stops listening and ends the pool this storage made (not one given). */
    async close() {
      listeners.clear();
      unlisten?.();
      unlisten = undefined;
      if (!pool) await db.end();
    },
  };
}

/**
 * The database behind a storage: its pool, made on first use by `makePool`,
 * and `run(work)`, which calls `work(pool, incarnation)` once the tables
 * are installed, its failures coded. The incarnation is fixed by the first
 * install: tables gone (the database emptied) are made again on the next
 * call, and their new incarnation is not this storage's.
 */
function database(makePool) {
  let pooled;
  let mine;
  let installing;
  const pool = () => (pooled ??= makePool());
  const ready = () => {
    installing ??= pool()
      .then(install)
      .then((found) => {
        mine ??= found;
      })
      .catch((e) => {
        installing = undefined;
        throw e;
      });
    return installing;
  };
  return {
    pool,
    async run(work) {
      try {
        await ready();
        return await work(await pool(), mine);
      } catch (e) {
        if (e?.code === "42P01") installing = undefined;
        throw coded(e);
      }
    },
    async end() {
      if (pooled) await (await pooled).end();
    },
  };
}

/** The pool of `options`: the one given, or one made for the connection
 * string (its idle connections' errors are the storage's to absorb). */
async function makePool({ connectionString, pool, queryTimeoutMs }) {
  if (pool) return pool;
  const { default: pg } = await import("pg");
  const made = new pg.Pool({
    connectionString,
    connectionTimeoutMillis: 5000,
    query_timeout: queryTimeoutMs,
    // The server's side of the same bound: a statement the client gave up
    // on is cancelled, and a transaction whose client went silent ends,
    // its session's head row lock released for the other replicas.
    statement_timeout: queryTimeoutMs,
    idle_in_transaction_session_timeout: queryTimeoutMs,
  });
  made.on("error", () => {
    // An idle connection lost (a server restart): the pool drops it.
  });
  return made;
}

/**
 * The LISTEN connection: rings `ring(sessionId)` on each doorbell, and
 * `ring(undefined)` (every session may have changed) when it connects and
 * every `pollMs`. A lost connection is made again after `retryMs`.
 */
function listen(pool, ring, { pollMs, retryMs }) {
  let client;
  let closed = false;
  let retry;
  const poll = setInterval(() => ring(undefined), pollMs);
  poll.unref?.();
  const lost = (c) => {
    if (c !== client) return;
    client = undefined;
    c.release(true);
    if (!closed) {
      retry = setTimeout(connect, retryMs);
      retry.unref?.();
    }
  };
  async function connect() {
    let c;
    try {
      c = await (await pool()).connect();
      client = c;
      c.on("error", () => lost(c));
      c.on("end", () => lost(c));
      c.on("notification", (m) => ring(m.payload || undefined));
      await c.query(`LISTEN ${CHANNEL}`);
      if (closed) return lost(c);
      // What was appended while no connection listened.
      ring(undefined);
    } catch {
      if (c) lost(c);
      else if (!closed) {
        retry = setTimeout(connect, retryMs);
        retry.unref?.();
      }
    }
  }
  connect();
  return () => {
    closed = true;
    clearInterval(poll);
    clearTimeout(retry);
    if (client) lost(client);
  };
}
