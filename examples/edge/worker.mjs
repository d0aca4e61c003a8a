// A Cloudflare Worker that routes each session to its own Durable Object, so
// every client of a session shares one live buffer whichever isolate serves
// it. Each object keeps its session's events in its SQLite storage
// (`ctx.storage.sql`; wrangler.toml's `new_sqlite_classes`): every accepted
// event is stored before the POST is answered, and an object evicted,
// redeployed or restarted reloads its session from there (the checkpoint and
// the retained window), with the same incarnation and positions.
// Deploy with wrangler (examples/edge/wrangler.toml); TOKENS is a secret:
// JSON {"<bearer token>": ["session-id", ...] | "*"}. Optional variables:
// MAX_EVENTS_PER_SESSION (2048), MAX_BODY_BYTES (1048576), MAX_EVENTS_PER_REQUEST (1000),
// MAX_STREAMS_PER_CLIENT (20), CHECKPOINT_EVERY (1000).
import { createReplayHandler, bearerTokens } from "agent-replay/edge";

const SCHEMA = `
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS events (position INTEGER PRIMARY KEY, json TEXT NOT NULL, at INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS checkpoints (position INTEGER PRIMARY KEY, revision INTEGER NOT NULL);
CREATE TABLE IF NOT EXISTS state_parts (part INTEGER PRIMARY KEY, text TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS batch_keys (key TEXT PRIMARY KEY, position INTEGER NOT NULL, count INTEGER NOT NULL);
`;
/** Characters of the state per row: a row holds at most 2 MB, and a character
 * takes up to 3 bytes of UTF-8. */
const STATE_PART = 512 * 1024;

/**
 * The storage of one object's session (agent-replay's SessionStorage) in
 * its SQLite database: the events by position with when they were stored,
 * the keys of keyed batches (a client's Idempotency-Key) with their first
 * position, checkpoints (seek marks), the state at the newest in parts,
 * and the incarnation. A batch and its key are one transaction. Writes made while a request runs are committed before
 * its response leaves (the object's output gate); `sync()` waits for that.
 */
export function sqliteStorage(storage) {
  const { sql } = storage;
  sql.exec(SCHEMA);
  const one = (query, ...values) => sql.exec(query, ...values).toArray()[0];
  return {
    async incarnation() {
      const stored = one("SELECT value FROM meta WHERE key = 'incarnation'");
      if (stored) return stored.value;
      const incarnation = crypto.randomUUID();
      sql.exec("INSERT INTO meta (key, value) VALUES ('incarnation', ?)", incarnation);
      return incarnation;
    },

    async load(_id, { retainEvents }) {
      const tail = one("SELECT MAX(position) AS p FROM events")?.p;
      const latest = one("SELECT position FROM checkpoints ORDER BY position DESC LIMIT 1");
      if (tail == null && !latest) return undefined;
      const end = Math.max(tail ?? 0, latest?.position ?? 0);
      const from = Math.max(0, end - retainEvents);
      // The newest mark at or before the window and the checkpoint; with
      // none, the start if every event is kept, else the oldest mark kept.
      const base = one(
        "SELECT position, revision FROM checkpoints WHERE position <= ? ORDER BY position DESC LIMIT 1",
        from,
      ) ??
        (one("SELECT MIN(position) AS p FROM events")?.p > 1
          ? one("SELECT position, revision FROM checkpoints ORDER BY position LIMIT 1")
          : undefined) ?? { position: 0, revision: 0 };
      const rows = sql
        .exec("SELECT json, at FROM events WHERE position > ? ORDER BY position", base.position)
        .toArray();
      const keys = sql
        .exec(
          "SELECT key, position, count FROM batch_keys WHERE position > ? ORDER BY position",
          base.position,
        )
        .toArray();
      return {
        base: { position: base.position, revision: base.revision },
        events: rows.map((r) => r.json),
        times: rows.map((r) => r.at),
        keys: keys.map(({ key, position, count }) => ({ key, position, count })),
        checkpoint: latest && {
          position: latest.position,
          state: sql
            .exec("SELECT text FROM state_parts ORDER BY part")
            .toArray()
            .map((r) => r.text)
            .join(""),
        },
      };
    },

    /** The batch and its key, all or nothing. */
    async append(_id, { position, events, at, key }) {
      storage.transactionSync(() => {
        for (const [i, json] of events.entries())
          sql.exec(
            "INSERT INTO events (position, json, at) VALUES (?, ?, ?)",
            position + i,
            json,
            at,
          );
        if (key !== undefined)
          sql.exec(
            "INSERT INTO batch_keys (key, position, count) VALUES (?, ?, ?)",
            key,
            position,
            events.length,
          );
      });
      await storage.sync?.();
    },

    /** Takes the batch at `position` back out (the live session refused it). */
    async undo(_id, { position }) {
      storage.transactionSync(() => {
        sql.exec("DELETE FROM events WHERE position >= ?", position);
        sql.exec("DELETE FROM batch_keys WHERE position >= ?", position);
      });
      await storage.sync?.();
    },

    /** The state at `position`; events and marks no restart needs go. */
    async checkpoint(_id, { position, revision, state, keepFrom }) {
      // One transaction: the mark and its whole state, or neither.
      storage.transactionSync(() => {
        sql.exec("DELETE FROM state_parts");
        for (let part = 0, at = 0; at < state.length; part++) {
          let end = Math.min(state.length, at + STATE_PART);
          // Never between the two halves of a surrogate pair (stored as UTF-8).
          const last = state.charCodeAt(end - 1);
          if (end < state.length && last >= 0xd800 && last <= 0xdbff) end -= 1;
          sql.exec(
            "INSERT INTO state_parts (part, text) VALUES (?, ?)",
            part,
            state.slice(at, end),
          );
          at = end;
        }
        sql.exec(
          "INSERT OR REPLACE INTO checkpoints (position, revision) VALUES (?, ?)",
          position,
          revision,
        );
      });
      const keep = one(
        "SELECT position FROM checkpoints WHERE position <= ? ORDER BY position DESC LIMIT 1",
        keepFrom,
      );
      if (keep) {
        sql.exec("DELETE FROM checkpoints WHERE position < ?", keep.position);
        sql.exec("DELETE FROM events WHERE position <= ?", keep.position);
        sql.exec("DELETE FROM batch_keys WHERE position <= ?", keep.position);
      }
      await storage.sync?.();
    },
  };
}

/** One session, kept in the object's SQLite storage. */
export class SessionObject {
  #handler;

  constructor(ctx, env) {
    const maxEventsPerSession = Number(env.MAX_EVENTS_PER_SESSION ?? 2048);
    this.#handler = createReplayHandler({
      // The Worker in front authorized the request.
      authorize: () => true,
      storage: sqliteStorage(ctx.storage),
      storeOptions: { maxEventsPerSession, maxSessions: 1 },
      checkpointEvery: Number(env.CHECKPOINT_EVERY ?? 1000),
      maxBodyBytes: Number(env.MAX_BODY_BYTES ?? 1 << 20),
      maxEventsPerRequest: Number(env.MAX_EVENTS_PER_REQUEST ?? 1000),
      maxStreamsPerClient: Number(env.MAX_STREAMS_PER_CLIENT ?? 20),
      retryMs: 1000,
    });
  }

  fetch(request) {
    return this.#handler(request);
  }
}

export default {
  async fetch(request, env) {
    const match = /^\/sessions\/([^/]+)/.exec(new URL(request.url).pathname);
    if (!match)
      return Response.json(
        { error: { code: "not_found", message: "no such route" } },
        { status: 404 },
      );
    let id;
    try {
      id = decodeURIComponent(match[1]);
    } catch {
      return Response.json(
        { error: { code: "invalid_session_id", message: "bad percent-encoding" } },
        { status: 400 },
      );
    }
    const authorize = bearerTokens(JSON.parse(env.TOKENS ?? "{}"));
    if (!(await authorize(request, id))) {
      return Response.json(
        { error: { code: "forbidden", message: "not allowed for this session" } },
        { status: 403 },
      );
    }
    return env.SESSIONS.get(env.SESSIONS.idFromName(id)).fetch(request);
  },
};
