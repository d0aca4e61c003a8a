// What the PostgreSQL storage (js/postgres.js) keeps of a session's events:
// the newest `events`, the newest `bytes` (of their JSON text, in UTF-8),
// those stored within `ageMs`, the age judged by the database's clock so
// that no replica's clock decides it. A session is cut at a checkpoint mark
// only: the events up to the newest mark outside the retention go, with
// the marks before it and the batch keys of the events gone, so the mark
// left first is where a load folds from and an older cursor gets the
// `trimmed` gap. A session is cut when one of its checkpoints is stored,
// and by `cleanup()` (the sessions nobody appends to), which also forgets
// whole the sessions nobody appended to within `ageMs`: their row, events,
// checkpoints and keys. A session made after that starts its positions
// above every forgotten one's, past a position never used, so that an old
// cursor of the same id gets a gap, never another history's events, and a
// replica's live copy of the forgotten session, no longer followed by the
// table's next position, reloads.
import { AgentReplayError } from "./common.js";

/** Sessions `cleanup()` visits per call at most. */
const SWEEP_SESSIONS = 100;

/** `retention` checked: each bound a positive number or absent (no bound). */
export function checkRetention(retention = {}) {
  const { events, bytes, ageMs } = retention;
  for (const [name, value] of Object.entries({ events, bytes, ageMs }))
    if (value !== undefined && (typeof value !== "number" || !(value >= 0)))
      throw new AgentReplayError(
        "invalid_input",
        `retention.${name} must be a non-negative number`,
      );
  return { events, bytes, ageMs };
}

/** Whether `retention` bounds anything. */
export function bounded({ events, bytes, ageMs }) {
  return events !== undefined || bytes !== undefined || ageMs !== undefined;
}

/**
 * Cuts session `id` to `retention` on client `c`, in a transaction that
 * holds its head row lock: the position of the mark it was cut at, or
 * undefined when nothing is outside the retention up to a mark.
 */
export async function cutSession(c, id, { events, bytes, ageMs }) {
  const { rows } = await c.query(
    `WITH cut AS (SELECT GREATEST(
       (SELECT next_position - 1 - $2::bigint FROM agent_replay_sessions WHERE session_id = $1),
       (SELECT max(position) FROM agent_replay_events WHERE session_id = $1
          AND stored_at < clock_timestamp() - $3::double precision * interval '1 millisecond'),
       (SELECT max(position) FROM (SELECT position,
          sum(octet_length(event)) OVER (ORDER BY position DESC) AS suffix
          FROM agent_replay_events WHERE session_id = $1) w WHERE suffix > $4::bigint)) AS k)
     SELECT max(m.position) AS mark FROM agent_replay_checkpoints m, cut
     WHERE m.session_id = $1 AND m.position <= cut.k`,
    [id, events ?? null, ageMs ?? null, bytes ?? null],
  );
  const mark = rows[0].mark === null ? undefined : Number(rows[0].mark);
  if (mark === undefined) return undefined;
  const { rowCount } = await c.query(
    "DELETE FROM agent_replay_events WHERE session_id = $1 AND position <= $2",
    [id, mark],
  );
  await c.query("DELETE FROM agent_replay_checkpoints WHERE session_id = $1 AND position < $2", [
    id,
    mark,
  ]);
  await c.query("DELETE FROM agent_replay_batch_keys WHERE session_id = $1 AND position <= $2", [
    id,
    mark,
  ]);
  return rowCount > 0 ? mark : undefined;
}

/** Forgets session `id` whole on client `c` (its head row lock held),
 * first raising the position new sessions start above past its last. */
async function forgetSession(c, id) {
  await c.query(
    `UPDATE agent_replay_incarnation SET forgotten_below = GREATEST(forgotten_below,
       (SELECT next_position FROM agent_replay_sessions WHERE session_id = $1))`,
    [id],
  );
  for (const table of ["events", "checkpoints", "batch_keys", "sessions"])
    await c.query(`DELETE FROM agent_replay_${table} WHERE session_id = $1`, [id]);
}

/**
 * One pass of the cleanup: the next sessions after `after` (by id, up to
 * a hundred), each forgotten (idle past `ageMs`) or cut in a transaction
 * of its own; a session an append holds is skipped (the next pass or its
 * next checkpoint cuts it). `{cut, next}`: how many sessions lost events,
 * and where the next pass starts (undefined: the sweep is through, the
 * next starts over).
 */
export async function sweep(pool, after, retention, transaction) {
  const { rows } = await pool.query(
    `SELECT session_id FROM agent_replay_sessions WHERE session_id > $1
     ORDER BY session_id LIMIT $2`,
    [after ?? "", SWEEP_SESSIONS],
  );
  let cut = 0;
  for (const { session_id: id } of rows) {
    const done = await transaction(pool, async (c) => {
      const { rows: locked } = await c.query(
        `SELECT appended_at < clock_timestamp() - $2::double precision * interval '1 millisecond'
           AS idle FROM agent_replay_sessions WHERE session_id = $1 FOR UPDATE SKIP LOCKED`,
        [id, retention.ageMs ?? null],
      );
      if (!locked[0]) return false;
      if (locked[0].idle) return forgetSession(c, id).then(() => true);
      return (await cutSession(c, id, retention)) !== undefined;
    });
    if (done) cut += 1;
  }
  const next = rows.length === SWEEP_SESSIONS ? rows.at(-1).session_id : undefined;
  return { cut, next };
}
