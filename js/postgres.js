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
import { bounded, checkRetention, cutSession, sweep } from "./postgres-retention.js";

/** The channel every append rings (one per database). */
const CHANNEL = "agent_replay";
/** A doorbell payload's limit is 8000 bytes: a longer id rings for all. */
const MAX_DOORBELL_BYTES = 7999;
/** Events read per `tail` call at most (the caller reads on from there). */
const TAIL_ROWS = 1000;

/** The schema, one list of statements per version; the version table says
 * which have run. Append a version to change it; never edit one. */
const MIGRATIONS = [
  [
    `CREATE TABLE agent_replay_incarnation (
       singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
       incarnation text NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE agent_replay_sessions (
       session_id text PRIMARY KEY,
       next_position bigint NOT NULL,
       created_at timestamptz NOT NULL DEFAULT now())`,
    `CREATE TABLE agent_replay_events (
       session_id text NOT NULL,
       position bigint NOT NULL,
       event text NOT NULL,
       stored_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (session_id, position))`,
    `CREATE TABLE agent_replay_checkpoints (
       session_id text NOT NULL,
       position bigint NOT NULL,
       revision bigint NOT NULL,
       state text,
       stored_at timestamptz NOT NULL DEFAULT now(),
       PRIMARY KEY (session_id, position))`,
    `CREATE TABLE agent_replay_batch_keys (
       session_id text NOT NULL,
       key text NOT NULL,
       position bigint NOT NULL,
       count integer NOT NULL,
       PRIMARY KEY (session_id, key))`,
  ],
];

/** Node's error codes for a server that cannot be reached. */
const NETWORK_CODES = new Set([
  "ECONNREFUSED",
  "ECONNRESET",
  "ETIMEDOUT",
  "EPIPE",
  "ENOTFOUND",
  "EHOSTUNREACH",
  "EAI_AGAIN",
]);

/** Whether a failure is the database out of reach rather than a defect: a
 * connection refused or lost (SQLSTATE 08…), a server shutting down or
 * starting (57P…), too many connections (53300), the pool's timeout. */
function unreachable(e) {
  const code = typeof e?.code === "string" ? e.code : "";
  return (
    NETWORK_CODES.has(code) ||
    /^(08|57P)/.test(code) ||
    code === "53300" ||
    /Connection terminated|timeout exceeded when trying to connect|connection error/i.test(
      e?.message ?? "",
    )
  );
}

/** The error a database failure is for the caller: `storage_unavailable`
 * for a server out of reach, `storage_full` for a full disk (53100). */
function coded(e) {
  if (e instanceof AgentReplayError) return e;
  if (e?.code === "53100")
    return new AgentReplayError("storage_full", `PostgreSQL is out of space: ${e.message}`);
  if (unreachable(e))
    return new AgentReplayError("storage_unavailable", `PostgreSQL unavailable: ${e.message}`);
  return e;
}

/** `work(client)` in one transaction on a client of `pool`; a client whose
 * connection broke is destroyed, not returned to the pool. */
async function transaction(pool, work, begin = "BEGIN") {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    broken = await client.query("ROLLBACK").then(
      () => false,
      () => true,
    );
    throw e;
  } finally {
    client.release(broken);
  }
}

/** A new incarnation: 128 random bits as hex. */
function newIncarnation() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

/** Creates or migrates the tables and makes the incarnation once; replicas
 * starting together take turns on an advisory lock. The incarnation. */
async function install(pool) {
  return transaction(pool, async (c) => {
    await c.query("SELECT pg_advisory_xact_lock(hashtext('agent_replay_schema'))");
    await c.query(`CREATE TABLE IF NOT EXISTS agent_replay_schema (
      singleton boolean PRIMARY KEY DEFAULT true CHECK (singleton),
      version integer NOT NULL)`);
    const { rows } = await c.query("SELECT version FROM agent_replay_schema");
    const version = rows[0]?.version ?? 0;
    if (version > MIGRATIONS.length)
      throw new AgentReplayError(
        "storage_unavailable",
        `the database's agent-replay schema is version ${version}, newer than this package's ${MIGRATIONS.length}: upgrade this replica`,
      );
    for (const statements of MIGRATIONS.slice(version))
      for (const statement of statements) await c.query(statement);
    await c.query(
      `INSERT INTO agent_replay_schema (version) VALUES ($1)
       ON CONFLICT (singleton) DO UPDATE SET version = excluded.version`,
      [MIGRATIONS.length],
    );
    await c.query(
      "INSERT INTO agent_replay_incarnation (incarnation) VALUES ($1) ON CONFLICT DO NOTHING",
      [newIncarnation()],
    );
    return (await c.query("SELECT incarnation FROM agent_replay_incarnation")).rows[0].incarnation;
  });
}

/** The pool of `options`: the one given, or one made for the connection
 * string (its idle connections' errors are the storage's to absorb). */
async function makePool({ connectionString, pool }) {
  if (pool) return pool;
  const { default: pg } = await import("pg");
  const made = new pg.Pool({ connectionString, connectionTimeoutMillis: 5000 });
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

/**
 * A storage in PostgreSQL for `createReplayHandler({storage})` and
 * `DurableSessions`: `postgresStore({connectionString})` (a pool of its
 * own, ended by `close()`) or `postgresStore({pool})` (a pg Pool the host
 * owns and ends). `pollMs` (5000): how often every live session is read
 * again, in case a doorbell was missed; `retryMs` (500): the delay before
 * a lost LISTEN connection is made again; `retention: {events, bytes,
 * ageMs}`: what the table keeps of each session (js/postgres-retention.js;
 * by default everything). The tables are made on first use.
 */
export function postgresStore({
  connectionString,
  pool,
  pollMs = 5000,
  retryMs = 500,
  retention: kept,
} = {}) {
  const retention = checkRetention(kept);
  if (!pool && typeof connectionString !== "string")
    throw new AgentReplayError("invalid_input", "postgresStore needs {connectionString} or {pool}");
  if (typeof pollMs !== "number" || !(pollMs > 0))
    throw new AgentReplayError("invalid_input", "pollMs must be a positive number");
  let pooled;
  const connections = () => (pooled ??= makePool({ connectionString, pool }));
  /** The incarnation this storage serves, fixed by its first install. */
  let mine;
  let installing;
  const ready = () => {
    installing ??= connections()
      .then(install)
      .then((found) => {
        mine ??= found;
        return mine;
      })
      .catch((e) => {
        installing = undefined;
        throw e;
      });
    return installing;
  };
  /** `work(pool)` once the tables are there, its failures coded; tables
   * gone (the database emptied) are made again on the next call. */
  const guarded = async (work) => {
    try {
      await ready();
      return await work(await connections());
    } catch (e) {
      if (e?.code === "42P01") installing = undefined;
      throw coded(e);
    }
  };
  /** Throws unless the database still holds this storage's history. */
  const same = (found) => {
    if (found !== mine)
      throw new AgentReplayError(
        "storage_unavailable",
        "the database's incarnation is not this replica's (the database was emptied, restored or replaced): restart the replica",
      );
  };
  const listeners = new Set();
  let unlisten;
  /** Where the cleanup's sweep goes on from (undefined: the start). */
  let swept;

  return {
    async incarnation() {
      try {
        return await ready();
      } catch (e) {
        throw coded(e);
      }
    },

    /** What a replica restores: the events after the checkpoint mark at or
     * before both the latest checkpoint and the newest `retainEvents`
     * (all of them without a checkpoint), their times from their age by
     * the database's clock, the batch keys among them. */
    load(id, { retainEvents }) {
      return guarded((p) =>
        transaction(
          p,
          async (c) => {
            const { rows: heads } = await c.query(
              `SELECT s.next_position, i.incarnation FROM agent_replay_incarnation i
               LEFT JOIN agent_replay_sessions s ON s.session_id = $1`,
              [id],
            );
            same(heads[0]?.incarnation);
            if (heads[0].next_position === null) return undefined;
            const tail = Number(heads[0].next_position) - 1;
            return restored(c, id, tail, retainEvents);
          },
          "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
        ),
      );
    },

    /** Stores the events after the session's last position, under its head
     * row lock, and rings the doorbell with the commit: `{position, count}`
     * of the batch, or of the batch stored before under `key` (`replayed`). */
    append(id, { events, key }) {
      return guarded((p) =>
        transaction(p, async (c) => {
          await c.query(
            `INSERT INTO agent_replay_sessions (session_id, next_position) VALUES ($1, 1)
             ON CONFLICT DO NOTHING`,
            [id],
          );
          const { rows } = await c.query(
            `SELECT s.next_position, i.incarnation FROM agent_replay_sessions s
             CROSS JOIN agent_replay_incarnation i WHERE s.session_id = $1 FOR UPDATE OF s`,
            [id],
          );
          same(rows[0]?.incarnation);
          if (key !== undefined) {
            const known = await c.query(
              "SELECT position, count FROM agent_replay_batch_keys WHERE session_id = $1 AND key = $2",
              [id, key],
            );
            const batch = known.rows[0];
            if (batch)
              return { position: Number(batch.position), count: batch.count, replayed: true };
          }
          const position = Number(rows[0].next_position);
          await c.query(
            `INSERT INTO agent_replay_events (session_id, position, event)
             SELECT $1, $2::bigint + n - 1, e FROM unnest($3::text[]) WITH ORDINALITY AS t(e, n)`,
            [id, position, events],
          );
          if (key !== undefined)
            await c.query(
              `INSERT INTO agent_replay_batch_keys (session_id, key, position, count)
               VALUES ($1, $2, $3, $4)`,
              [id, key, position, events.length],
            );
          await c.query(
            "UPDATE agent_replay_sessions SET next_position = $2 WHERE session_id = $1",
            [id, position + events.length],
          );
          const doorbell = new TextEncoder().encode(id).length > MAX_DOORBELL_BYTES ? "" : id;
          await c.query("SELECT pg_notify($1, $2)", [CHANNEL, doorbell]);
          return { position, count: events.length };
        }),
      );
    },

    /** The stored events after position `after`, at most a thousand:
     * `{position, events}` (`position` that of the first). */
    tail(id, after) {
      return guarded(async (p) => {
        const { rows } = await p.query(
          `SELECT i.incarnation, e.position, e.event FROM agent_replay_incarnation i
           LEFT JOIN LATERAL (SELECT position, event FROM agent_replay_events
             WHERE session_id = $1 AND position > $2 ORDER BY position LIMIT $3) e ON true
           ORDER BY e.position`,
          [id, after, TAIL_ROWS],
        );
        same(rows[0]?.incarnation);
        const found = rows.filter((r) => r.position !== null);
        return {
          position: found.length ? Number(found[0].position) : after + 1,
          events: found.map((r) => r.event),
        };
      });
    },

    /** The last stored position of each of `ids` the table holds, in one
     * query: a Map (what a poll asks before reading any session on). */
    heads(ids) {
      return guarded(async (p) => {
        const { rows } = await p.query(
          `SELECT session_id, next_position - 1 AS tail FROM agent_replay_sessions
           WHERE session_id = ANY($1::text[])`,
          [ids],
        );
        return new Map(rows.map((r) => [r.session_id, Number(r.tail)]));
      });
    },

    /** Stores the state at `position` as the checkpoint (an older one a
     * slower replica sends keeps only its mark); forgets the marks no load
     * needs (all but the last at or before `keepFrom`), or with a
     * `retention`, cuts the session to it. */
    checkpoint(id, { position, revision, state, keepFrom }) {
      return guarded((p) =>
        transaction(p, async (c) => {
          await c.query("SELECT 1 FROM agent_replay_sessions WHERE session_id = $1 FOR UPDATE", [
            id,
          ]);
          await c.query(
            `INSERT INTO agent_replay_checkpoints (session_id, position, revision, state)
             VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING`,
            [id, position, revision, state],
          );
          await c.query(
            `UPDATE agent_replay_checkpoints SET state = NULL WHERE session_id = $1
             AND state IS NOT NULL AND position < (SELECT max(position)
               FROM agent_replay_checkpoints WHERE session_id = $1 AND state IS NOT NULL)`,
            [id],
          );
          // With a retention, the cut forgets marks with the events before them.
          if (bounded(retention)) await cutSession(c, id, retention);
          else
            await c.query(
              `DELETE FROM agent_replay_checkpoints WHERE session_id = $1 AND position < (
                 SELECT max(position) FROM agent_replay_checkpoints
                 WHERE session_id = $1 AND position <= $2)`,
              [id, keepFrom],
            );
        }),
      );
    },

    /** Cuts the next sessions (a hundred at most) to `retention`, so that
     * the table keeps no more of a session nobody appends to either: call
     * it now and then. How many sessions lost events. */
    cleanup() {
      if (!bounded(retention)) return Promise.resolve(0);
      return guarded(async (p) => {
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
      unlisten ??= listen(connections, ring, { pollMs, retryMs });
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
      if (!pool && pooled) await (await pooled).end();
    },
  };
}

/**
 * Where a load folds from: the newest mark at or before `limit` (0, the
 * start, is one) among those the table still has the events after; when
 * the retention cut past `limit`, the oldest such mark.
 */
async function baseMark(c, id, tail, limit) {
  const { rows: first } = await c.query(
    "SELECT min(position) AS position FROM agent_replay_events WHERE session_id = $1",
    [id],
  );
  // Every event after `floor` is stored; those up to it were cut.
  const floor = first[0].position === null ? tail : Number(first[0].position) - 1;
  const markOf = (row) => ({ position: Number(row.position), revision: Number(row.revision) });
  const { rows: newest } = await c.query(
    `SELECT position, revision FROM agent_replay_checkpoints
     WHERE session_id = $1 AND position >= $2 AND position <= $3 ORDER BY position DESC LIMIT 1`,
    [id, floor, limit],
  );
  if (newest[0]) return markOf(newest[0]);
  if (floor === 0) return { position: 0, revision: 0 };
  const { rows: oldest } = await c.query(
    `SELECT position, revision FROM agent_replay_checkpoints
     WHERE session_id = $1 AND position >= $2 ORDER BY position LIMIT 1`,
    [id, floor],
  );
  if (!oldest[0])
    throw new AgentReplayError(
      "invalid_log",
      `session ${id}: the events before the checkpoint are lost`,
    );
  return markOf(oldest[0]);
}

/** A session's stored window (see `load`), read in `load`'s snapshot. */
async function restored(c, id, tail, retainEvents) {
  const from = Math.max(0, tail - retainEvents);
  const { rows: checkpoints } = await c.query(
    `SELECT position, state FROM agent_replay_checkpoints
     WHERE session_id = $1 AND state IS NOT NULL ORDER BY position DESC LIMIT 1`,
    [id],
  );
  const checkpoint = checkpoints[0] && {
    position: Number(checkpoints[0].position),
    state: checkpoints[0].state,
  };
  const base = await baseMark(c, id, tail, checkpoint ? Math.min(from, checkpoint.position) : 0);
  const { rows: events } = await c.query(
    `SELECT event, extract(epoch FROM clock_timestamp() - stored_at) * 1000 AS age
     FROM agent_replay_events WHERE session_id = $1 AND position > $2 ORDER BY position`,
    [id, base.position],
  );
  const { rows: keys } = await c.query(
    `SELECT key, position, count FROM agent_replay_batch_keys
     WHERE session_id = $1 AND position > $2 ORDER BY position`,
    [id, base.position],
  );
  const now = Date.now();
  return {
    base,
    events: events.map((r) => r.event),
    times: events.map((r) => now - Number(r.age)),
    checkpoint,
    keys: keys.map((k) => ({ key: k.key, position: Number(k.position), count: k.count })),
  };
}
