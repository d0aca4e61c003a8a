// The SQL of the PostgreSQL storage (js/postgres.js): its schema and
// migrations, its transactions and the statements of each operation, each
// given a client or pool and the incarnation the storage serves. It
// imports no driver: js/postgres.js hands it pg's clients.
import { AgentReplayError } from "./common.js";
import { bounded, cutSession } from "./postgres-retention.js";

/** The channel every append rings (one per database). */
export const CHANNEL = "agent_replay";
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
  [
    // When each session was last appended to (by the database's clock), so
    // the cleanup can forget the idle ones whole; where a session's
    // positions start; the position every session forgotten stood below,
    // so a new one starts above it and no old cursor resolves into it.
    `ALTER TABLE agent_replay_sessions
       ADD COLUMN appended_at timestamptz NOT NULL DEFAULT now(),
       ADD COLUMN base_position bigint NOT NULL DEFAULT 0`,
    `ALTER TABLE agent_replay_incarnation
       ADD COLUMN forgotten_below bigint NOT NULL DEFAULT 0`,
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
 * starting (57P…), too many connections (53300), the pool's timeout, a
 * query unanswered past the client's `query_timeout` or cancelled by the
 * server's `statement_timeout` (57014). */
function unreachable(e) {
  const code = typeof e?.code === "string" ? e.code : "";
  return (
    NETWORK_CODES.has(code) ||
    /^(08|57P)/.test(code) ||
    code === "53300" ||
    code === "57014" ||
    /Connection terminated|timeout exceeded when trying to connect|connection error|Query read timeout/i.test(
      e?.message ?? "",
    )
  );
}

/** The error a database failure is for the caller: `storage_unavailable`
 * for a server out of reach, `storage_full` for a full disk (53100). */
export function coded(e) {
  if (e instanceof AgentReplayError) return e;
  if (e?.code === "53100")
    return new AgentReplayError("storage_full", `PostgreSQL is out of space: ${e.message}`);
  if (unreachable(e))
    return new AgentReplayError("storage_unavailable", `PostgreSQL unavailable: ${e.message}`);
  return e;
}

/** `work(client)` in one transaction on a client of `pool`; a client whose
 * connection broke is destroyed, not returned to the pool (one out of
 * reach is not asked to roll back: that would wait for its timeout again;
 * the server rolls back a transaction whose connection it loses). */
export async function transaction(pool, work, begin = "BEGIN") {
  const client = await pool.connect();
  let broken = false;
  try {
    await client.query(begin);
    const result = await work(client);
    await client.query("COMMIT");
    return result;
  } catch (e) {
    broken =
      unreachable(e) ||
      (await client.query("ROLLBACK").then(
        () => false,
        () => true,
      ));
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
export async function install(pool) {
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

/** Throws unless the database still holds the history `mine` names. */
function same(found, mine) {
  if (found !== mine)
    throw new AgentReplayError(
      "storage_unavailable",
      "the database's incarnation is not this replica's (the database was emptied, restored or replaced): restart the replica",
    );
}

/** What a replica restores of session `id` (see `restored`), in one
 * snapshot; undefined for a session the table does not hold. */
export function loadSession(pool, id, retainEvents, mine) {
  return transaction(
    pool,
    async (c) => {
      const { rows: heads } = await c.query(
        `SELECT s.next_position, s.base_position, i.incarnation FROM agent_replay_incarnation i
         LEFT JOIN agent_replay_sessions s ON s.session_id = $1`,
        [id],
      );
      same(heads[0]?.incarnation, mine);
      const { next_position: next, base_position: start } = heads[0];
      if (next === null) return undefined;
      return restored(c, id, { start: Number(start), tail: Number(next) - 1 }, retainEvents);
    },
    "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY",
  );
}

/** Session `id`'s next position and the incarnation, its head row locked;
 * no row for a session the table does not hold. */
function lockHead(c, id) {
  return c.query(
    `SELECT s.next_position, i.incarnation FROM agent_replay_sessions s
     CROSS JOIN agent_replay_incarnation i WHERE s.session_id = $1 FOR UPDATE OF s`,
    [id],
  );
}

/** Makes the row of a session the table does not hold, its positions
 * starting above every forgotten session's (the incarnation row read under
 * a share lock: a cleanup forgetting one waits, or is waited for). */
async function createHead(c, id, mine) {
  const { rows } = await c.query(
    "SELECT incarnation, forgotten_below FROM agent_replay_incarnation FOR SHARE",
  );
  same(rows[0]?.incarnation, mine);
  await c.query(
    `INSERT INTO agent_replay_sessions (session_id, next_position, base_position)
     VALUES ($1, $2::bigint + 1, $2) ON CONFLICT DO NOTHING`,
    [id, rows[0].forgotten_below],
  );
}

/** Stores `events` after session `id`'s last position under its head row
 * lock, with `key`, and rings the doorbell with the commit: `{position,
 * count}` of the batch, or of the one stored before under `key`
 * (`replayed`). */
export function appendBatch(pool, id, { events, key }, mine) {
  return transaction(pool, async (c) => {
    let { rows } = await lockHead(c, id);
    if (!rows[0]) {
      await createHead(c, id, mine);
      ({ rows } = await lockHead(c, id));
    }
    same(rows[0]?.incarnation, mine);
    const known = key === undefined ? undefined : await keyedBatch(c, id, key);
    if (known) return { ...known, replayed: true };
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
      `UPDATE agent_replay_sessions SET next_position = $2, appended_at = now()
       WHERE session_id = $1`,
      [id, position + events.length],
    );
    const doorbell = new TextEncoder().encode(id).length > MAX_DOORBELL_BYTES ? "" : id;
    await c.query("SELECT pg_notify($1, $2)", [CHANNEL, doorbell]);
    return { position, count: events.length };
  });
}

/** `{position, count}` of the batch stored under `key`, if any. */
async function keyedBatch(c, id, key) {
  const { rows } = await c.query(
    "SELECT position, count FROM agent_replay_batch_keys WHERE session_id = $1 AND key = $2",
    [id, key],
  );
  return rows[0] && { position: Number(rows[0].position), count: rows[0].count };
}

/** The stored events of `id` after position `after`, at most a thousand:
 * `{position, events}` (`position` that of the first). */
export async function readTail(pool, id, after, mine) {
  const { rows } = await pool.query(
    `SELECT i.incarnation, e.position, e.event FROM agent_replay_incarnation i
     LEFT JOIN LATERAL (SELECT position, event FROM agent_replay_events
       WHERE session_id = $1 AND position > $2 ORDER BY position LIMIT $3) e ON true
     ORDER BY e.position`,
    [id, after, TAIL_ROWS],
  );
  same(rows[0]?.incarnation, mine);
  const found = rows.filter((r) => r.position !== null);
  return {
    position: found.length ? Number(found[0].position) : after + 1,
    events: found.map((r) => r.event),
  };
}

/** The last stored position of each of `ids` the table holds, in one
 * query: a Map. */
export async function readHeads(pool, ids) {
  const { rows } = await pool.query(
    `SELECT session_id, next_position - 1 AS tail FROM agent_replay_sessions
     WHERE session_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.session_id, Number(r.tail)]));
}

/** Stores the state at `position` as session `id`'s checkpoint (an older
 * one a slower replica sends keeps only its mark); forgets the marks no
 * load needs (all but the last at or before `keepFrom`), or with a
 * `retention`, cuts the session to it (js/postgres-retention.js). */
export function storeCheckpoint(pool, id, { position, revision, state, keepFrom }, retention) {
  return transaction(pool, async (c) => {
    await c.query("SELECT 1 FROM agent_replay_sessions WHERE session_id = $1 FOR UPDATE", [id]);
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
  });
}

/**
 * Where a load folds from: the newest mark at or before `limit` (`start`,
 * where the session's positions start, is one) among those the table
 * still has the events after; when the retention cut past `limit`, the
 * oldest such mark.
 */
async function baseMark(c, id, { start, tail }, limit) {
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
  if (floor === start) return { position: start, revision: 0 };
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

/** A session's stored window (see `load`), read in `load`'s snapshot;
 * `head`: where its positions start and its last. */
async function restored(c, id, head, retainEvents) {
  const from = Math.max(head.start, head.tail - retainEvents);
  const { rows: checkpoints } = await c.query(
    `SELECT position, state FROM agent_replay_checkpoints
     WHERE session_id = $1 AND state IS NOT NULL ORDER BY position DESC LIMIT 1`,
    [id],
  );
  const checkpoint = checkpoints[0] && {
    position: Number(checkpoints[0].position),
    state: checkpoints[0].state,
  };
  const limit = checkpoint ? Math.min(from, checkpoint.position) : head.start;
  const base = await baseMark(c, id, head, limit);
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
