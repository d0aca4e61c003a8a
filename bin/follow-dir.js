// Follows a directory of FileSessionLog files, the way deepstrike's runtime
// records sessions: `DIR/<session_id>.jsonl`, one `{"seq": N, "event": {...}}`
// line per event, appended while the agent runs.
//
// Memory stays bounded however many logs the directory holds: each file is
// folded once for its list row (a light fold, dropped once its summary is
// taken), and only the sessions opened (asked for, or growing) are held as
// live ReplaySessions, at most `maxOpen`, the least recently used leaving
// memory first. A session left and opened again is folded again from its
// file, under the same incarnation, so the cursors it gave out still resume.
//
// The entries are read by the core's log reader, as the viewer reads the
// file, each event once: a held session is written the file's chunks
// (ReplaySession.write appends and folds each event as it is read), a file
// not held is folded by a light SessionState. Positions here and in a
// viewer that read the file agree, so it can follow on from its end.
//
// A file truncated, replaced or rewritten starts a new generation with a
// new incarnation, so a cursor of the old generation gets a gap and a fresh
// observation (the foreign-incarnation rule of live-replay.md) instead of a
// silent merge.
import { createHash, randomBytes } from "node:crypto";
import { watch } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { AgentReplayError, ReplaySession, ReplayStore, SessionState } from "../js/node.js";

const SUFFIX = ".jsonl";
const NEWLINE = 0x0a;
/** The fallback poll's shortest period: it lists the directory and stats each log. */
const MIN_POLL_MS = 50;
/** Bytes at each end of what was read whose hash tells a rewrite in place. */
const PRINT_BYTES = 1024;
/** Removed sessions remembered for clients asking what changed; one further behind gets all. */
const MAX_REMOVED = 10_000;
/** Sessions held open at most by default (each its full state and live buffer). */
const MAX_OPEN = 16;
/** The largest event a held session's store takes by default: the store's own
 * default (1 MiB) would stop following a log at its first larger tool output. */
const MAX_EVENT_BYTES = 16 << 20;

/** The session id of a file name, or null when the file is no session log. */
function sessionIdOf(name) {
  if (!name.endsWith(SUFFIX)) return null;
  const id = name.slice(0, -SUFFIX.length);
  return id && !/[\r\n\0]/.test(id) ? id : null;
}

const hashOf = (bytes) => createHash("sha1").update(bytes).digest("base64");

/** A fold that keeps the summary only (no per-event lists): the core's reader. */
export const lightReader = () => {
  const empty = new SessionState();
  try {
    return empty.checkpoint();
  } finally {
    empty.free();
  }
};

/** Characters of a run's goal a list row keeps. */
const GOAL_CHARS = 200;

/**
 * What the list shows of a summary (the rest of it is let go): the core's
 * counts and totals, the run's agent and the sub-agents it started (how a
 * sub-agent's own session is nested under it), and whether its workflow
 * is done: a standalone workflow's log never gets a `run_terminal`.
 */
function rowSummary(s) {
  const t = s.totals;
  return {
    status: s.status,
    // As the viewer's header counts them: turns used once finished, else the revision.
    turns: s.status.state === "terminal" ? s.turns_used : s.revision,
    tokens: s.total_tokens,
    input_tokens: t.input_tokens,
    output_tokens: t.output_tokens,
    tool_calls: t.tool_calls,
    tools: t.tools,
    models: t.models,
    started_ms: t.first_ms,
    ended_ms: t.last_ms,
    errors: s.errors,
    events: s.event_count,
    goal: s.run?.goal.slice(0, GOAL_CHARS) ?? null,
    agent_id: s.run?.agent_id ?? null,
    sub_agents: s.processes.map((p) => ({
      agent_id: p.agent_id,
      state: p.state,
      result_termination: p.result_termination,
    })),
    workflow_done: (s.counts.workflow_completed ?? 0) > 0,
  };
}

/** The row of a session none of whose lines are read yet. */
const EMPTY_ROW = (() => {
  const empty = new SessionState();
  try {
    return rowSummary(empty.summary());
  } finally {
    empty.free();
  }
})();

/** `length` bytes of `handle` at `position` (fewer at its end). */
async function readAt(handle, position, length) {
  const bytes = Buffer.alloc(length);
  const { bytesRead } = await handle.read(bytes, 0, length, position);
  return bytes.subarray(0, bytesRead);
}

/**
 * One session log file: its current generation, how far it is read, what
 * the list shows of it, and, while it is open, its live session.
 */
class FollowedFile {
  #running = null;
  #again = false;
  #wantOpen = false;
  #leave = false;

  /** `options`: the follower's; `opened(file)`: tells the follower it now holds a
   * session; `touched(file)`: that its row may have changed (after each read). */
  constructor(id, path, options, opened, touched) {
    this.id = id;
    this.path = path;
    this.options = options;
    this.opened = opened;
    this.touched = touched;
    this.version = 0; // the follower's version when the row last changed
    this.generation = 0;
    this.reset = null;
    this.readError = null;
    this.mtimeMs = 0;
    this.offset = 0; // bytes of this generation read
    this.complete = 0; // of them, up to the end of the last whole line
    this.summary = null; // rowSummary of the lines read
    this.held = null; // {store, session} while open
    this.failure = null; // why a read of this generation failed: nothing more until it is reset
    this.freed = false;
  }

  /** Reads what changed since the last read; calls made meanwhile run once after it. */
  refresh() {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#read();
      } while (this.#again);
    })().finally(() => {
      this.#running = null;
      this.touched(this);
      if (this.#leave) this.close();
    });
    return this.#running;
  }

  /** The held session; one not held is folded from the file first (what is
   * held is kept up to date by the follower's watch and poll). */
  async open() {
    // Twice at most: sessions opened meanwhile may have made this one leave.
    for (let tries = 0; tries < 2 && !this.held && !this.freed; tries += 1) {
      this.#wantOpen = true;
      // A file that cannot be opened is told below, by its read error.
      await this.refresh().catch(() => {});
    }
    if (this.held) return this.held.session;
    if (this.failure) throw this.failure;
    throw new AgentReplayError("not_found", `${this.id}${SUFFIX}: ${this.readError}`);
  }

  /** True when `info` (a stat) may say the file changed since it was read. */
  changed(info) {
    return info.ino !== this.ino || info.size !== this.offset || info.mtimeMs !== this.mtimeMs;
  }

  async #read() {
    if (this.freed) return;
    let handle;
    try {
      handle = await open(this.path, "r");
    } catch (e) {
      this.readError = e.code ?? e.message;
      throw e;
    }
    try {
      const info = await handle.stat();
      const { reset, ends } = await this.#check(handle, info);
      if (this.freed) return;
      if (reset) this.#startGeneration(reset, info);
      this.mtimeMs = info.mtimeMs;
      if (this.failure) return;
      await this.#readFrom(handle, info, ends);
    } catch (e) {
      if (!(e instanceof AgentReplayError)) throw e;
      // The reader or the session refused (over the memory budget, …): this
      // generation is not followed further; a new one is tried again.
      this.readError = e.code;
      this.failure = e;
      this.#release();
    } finally {
      await handle.close();
    }
  }

  /**
   * Why the bytes already read are no longer the file's start (`reset`, or
   * null), and the first and last bytes read, checked unchanged (`ends`): a
   * new inode, a file shorter than what was read, or either end of what was
   * read rewritten (its hash differs) start a new generation.
   */
  async #check(handle, info) {
    if (this.generation === 0) return { reset: "new" };
    if (info.ino !== this.ino || info.dev !== this.dev) return { reset: "replaced" };
    if (info.size < this.offset) return { reset: "truncated" };
    const head = await readAt(handle, 0, Math.min(PRINT_BYTES, this.offset));
    const tailAt = Math.max(0, this.offset - PRINT_BYTES);
    const tail = await readAt(handle, tailAt, this.offset - tailAt);
    const same = hashOf(head) === this.headHash && hashOf(tail) === this.tailHash;
    return same ? { reset: null, ends: { head, tail } } : { reset: "rewritten" };
  }

  /** A new generation: a new incarnation; the old one's session (and streams) end. */
  #startGeneration(reason, info) {
    this.#release();
    this.generation += 1;
    this.reset = reason === "new" ? null : reason;
    this.incarnation = randomBytes(16).toString("base64url");
    this.ino = info.ino;
    this.dev = info.dev;
    this.offset = 0;
    this.complete = 0;
    this.summary = EMPTY_ROW; // listed at once, before its lines are read
    this.failure = null;
    this.headHash = hashOf(Buffer.alloc(0));
    this.tailHash = this.headHash;
  }

  /**
   * Reads on from what was read into the held session; or, for a session
   * not held, folds the whole file: into a session held from now on when it
   * is asked for or has grown (a running agent's), else just for its list
   * row (a new generation).
   */
  async #readFrom(handle, info, ends) {
    if (!this.held && !this.#wantOpen && this.offset > 0 && info.size === this.offset) return;
    if (!this.held && (this.#wantOpen || this.offset > 0)) this.#hold();
    this.#wantOpen = false;
    if (this.held) return this.#readInto(handle, info, this.held.session, ends);
    const reader = lightReader();
    try {
      await this.#readInto(handle, info, reader, ends);
    } finally {
      reader.free();
    }
  }

  /** A new session for this generation (its incarnation), read from the file's start. */
  #hold() {
    const store = new ReplayStore({
      maxEventBytes: MAX_EVENT_BYTES,
      ...this.options.storeOptions,
      incarnation: this.incarnation,
    });
    const session = new ReplaySession(this.id, { store });
    this.held = { store, session };
    this.offset = 0;
    this.complete = 0;
    this.#leave = false;
    this.opened(this);
  }

  /**
   * Reads to the size seen now in bounded chunks into `reader` (the held
   * session or a light fold; later appends come with the next change), on
   * from `ends`, the first and last bytes read before (none from the
   * start): the new ends' hashes tell the next change's check.
   */
  async #readInto(handle, info, reader, ends) {
    const { chunkBytes } = this.options;
    const empty = Buffer.alloc(0);
    let { head, tail } = this.offset === 0 ? { head: empty, tail: empty } : ends;
    while (this.offset < info.size) {
      const chunk = await readAt(
        handle,
        this.offset,
        Math.min(chunkBytes, info.size - this.offset),
      );
      if (chunk.length === 0 || this.freed) return;
      reader.write(chunk);
      // The reader and `complete` move together: its events are those of the whole lines.
      const nl = chunk.lastIndexOf(NEWLINE);
      if (nl >= 0) this.complete = this.offset + nl + 1;
      this.offset += chunk.length;
      if (head.length < PRINT_BYTES)
        head = Buffer.concat([head, chunk.subarray(0, PRINT_BYTES - head.length)]);
      tail = Buffer.from(
        Buffer.concat([tail, chunk.subarray(-PRINT_BYTES)]).subarray(-PRINT_BYTES),
      );
    }
    this.headHash = hashOf(head);
    this.tailHash = hashOf(tail);
    this.summary = rowSummary(reader.summary());
    this.readError = null;
  }

  /** Lets the held session go (its streams end; a client reconnects and it is folded again). */
  #release() {
    if (!this.held) return;
    const { store, session } = this.held;
    this.held = null;
    session.free();
    store.free();
  }

  /** Leaves memory (the list row stays); a read in progress finishes first. */
  close() {
    this.#leave = Boolean(this.#running);
    if (!this.#leave) this.#release();
  }

  /** The session list's row (documented in docs/viewer.md). */
  row() {
    return {
      session_id: this.id,
      ...this.summary,
      modified_ms: Math.round(this.mtimeMs),
      bytes: this.offset,
      generation: this.generation,
      reset: this.reset,
      open: this.held !== null,
      read_error: this.readError,
    };
  }

  free() {
    this.freed = true;
    this.#release();
  }
}

/**
 * Follows `dir`: every `*.jsonl` in it is a session, read now and then as it
 * grows. Changes are seen through fs.watch and, as a fallback, a poll every
 * `pollMs` (fs.watch misses changes on some filesystems).
 */
export class DirectoryFollower {
  #dir;
  #options;
  #files = new Map(); // session id → FollowedFile
  #version = 0; // counts row changes: a client asks for those since the version it has
  #removed = new Map(); // session id → the version its file left the directory at
  #forgotten = 0; // the latest version of a removal no longer in #removed
  #rows = new Map(); // FollowedFile → the JSON of its row last seen, to tell a change
  #open = new Set(); // the files holding a session, least recently used first
  #watcher = null;
  #timer = null;
  #scanning = null;
  #rescan = false;
  #closed = false;

  /**
   * Options: `pollMs` (1000, at least 50), `storeOptions` (each held
   * session's ReplayStore; `maxEventBytes` 16 MiB unless given), `maxOpen` (16: sessions held in memory at
   * once, the least recently used let go first), `chunkBytes` (1 MiB read
   * at a time), `watch` (true; false leaves the poll alone, for filesystems
   * where fs.watch misbehaves).
   */
  constructor(
    dir,
    {
      pollMs = 1000,
      storeOptions = {},
      maxOpen = MAX_OPEN,
      chunkBytes = 1 << 20,
      watch = true,
    } = {},
  ) {
    if (!Number.isInteger(pollMs) || pollMs < MIN_POLL_MS)
      throw new AgentReplayError(
        "invalid_input",
        `pollMs must be a whole number >= ${MIN_POLL_MS}`,
      );
    if (!Number.isInteger(maxOpen) || maxOpen < 1)
      throw new AgentReplayError("invalid_input", "maxOpen must be a whole number >= 1");
    this.#dir = dir;
    this.#options = { pollMs, storeOptions, maxOpen, chunkBytes, watch };
  }

  /** Reads every log in the directory, then starts watching. Throws if it is no directory. */
  async start() {
    const info = await stat(this.#dir);
    if (!info.isDirectory())
      throw Object.assign(new Error(`${this.#dir} is not a directory`), { code: "ENOTDIR" });
    await this.scan();
    if (this.#options.watch) {
      try {
        this.#watcher = watch(this.#dir, (type, name) => this.#changed(type, name));
        this.#watcher.on("error", () => this.#stopWatching());
      } catch {
        this.#watcher = null; // the poll alone follows the directory
      }
    }
    this.#timer = setInterval(() => this.scan().catch(() => {}), this.#options.pollMs);
    this.#timer.unref();
    return this;
  }

  #stopWatching() {
    this.#watcher?.close();
    this.#watcher = null;
  }

  #changed(type, name) {
    const file = typeof name === "string" && this.#files.get(sessionIdOf(name));
    if (type === "change" && file) file.refresh().catch(() => this.scan().catch(() => {}));
    else this.scan().catch(() => {});
  }

  /** Marks `file` the most recently used holder; lets the least recently used go past maxOpen. */
  #used(file) {
    this.#open.delete(file);
    // Those that let their session go themselves (a new generation, a failed read).
    for (const other of this.#open) if (!other.held) this.#open.delete(other);
    this.#open.add(file);
    for (const oldest of this.#open) {
      if (this.#open.size <= this.#options.maxOpen) break;
      this.#open.delete(oldest);
      oldest.close();
    }
  }

  /** Lists the directory and reads what changed; concurrent calls share one pass after it. */
  scan() {
    if (this.#scanning) {
      this.#rescan = true;
      return this.#scanning;
    }
    this.#scanning = (async () => {
      do {
        this.#rescan = false;
        await this.#scanOnce();
      } while (this.#rescan && !this.#closed);
    })().finally(() => {
      this.#scanning = null;
    });
    return this.#scanning;
  }

  /** One file at a time: at most one fold not held is in memory. */
  async #scanOnce() {
    if (this.#closed) return;
    const names = await readdir(this.#dir);
    const present = new Set();
    for (const name of names) {
      const id = sessionIdOf(name);
      if (id === null || this.#closed) continue;
      const path = join(this.#dir, name);
      let info;
      try {
        info = await stat(path);
      } catch {
        continue; // gone since the listing
      }
      if (!info.isFile()) continue;
      present.add(id);
      let file = this.#files.get(id);
      if (!file) {
        file = new FollowedFile(
          id,
          path,
          this.#options,
          (f) => this.#used(f),
          (f) => this.#touched(f),
        );
        this.#files.set(id, file);
      } else if (!file.changed(info)) continue;
      await file.refresh().catch(() => {});
    }
    for (const [id, file] of this.#files) {
      if (present.has(id)) continue;
      this.#open.delete(file);
      file.free();
      this.#files.delete(id);
      this.#rows.delete(file);
      this.#version += 1;
      this.#removed.set(id, this.#version);
      this.#resendChildren(file);
      if (this.#removed.size > MAX_REMOVED) {
        const [[oldest, at]] = this.#removed;
        this.#removed.delete(oldest);
        this.#forgotten = at;
      }
    }
  }

  /** Whether `id` is a session of the directory (listed, open or not). */
  has(id) {
    return (this.#files.get(id)?.generation ?? 0) > 0;
  }

  /** The file of a listed session, or undefined. */
  file(id) {
    return this.has(id) ? this.#files.get(id) : undefined;
  }

  /**
   * The ReplaySession of the file's current generation, folded from the
   * file if it is not held; marked most recently used. Rejects with
   * `not_found` for no such session (or an unreadable file), or with the
   * error that stopped its generation's read (`limit_exceeded`, …).
   */
  async session(id) {
    const file = this.file(id);
    if (!file) throw new AgentReplayError("not_found", `no session log ${id}${SUFFIX}`);
    const session = await file.open();
    this.#used(file);
    return session;
  }

  /** How many sessions are held in memory now. */
  get openCount() {
    return [...this.#open].filter((f) => f.held).length;
  }

  /** A new version when `file`'s row differs from the one last seen. */
  #touched(file) {
    if (!file.summary || this.#files.get(file.id) !== file) return;
    const json = JSON.stringify(file.row());
    if (this.#rows.get(file) === json) return;
    this.#rows.set(file, json);
    this.#version += 1;
    file.version = this.#version;
    // A file back under a removed name is listed again, not removed.
    this.#removed.delete(file.id);
    this.#resendChildren(file);
  }

  /** Marks the sessions of `file`'s sub-agents changed: their parent (`#rowOf`) may be another. */
  #resendChildren(file) {
    for (const { agent_id } of file.summary?.sub_agents ?? []) {
      const child = this.#files.get(`${file.id}-${agent_id}`);
      if (child) child.version = this.#version;
    }
  }

  /** The version of the list now: it grows with each row changed, added or removed. */
  get version() {
    return this.#version;
  }

  /** The session list: most recently written first (docs/viewer.md, "The runs dashboard"). */
  list() {
    return [...this.#files.values()]
      .filter((f) => f.summary)
      .map((f) => this.#rowOf(f))
      .sort((a, b) => b.modified_ms - a.modified_ms || a.session_id.localeCompare(b.session_id));
  }

  /**
   * What changed since `version`: the rows changed or added since, and the
   * ids removed since (kept MAX_REMOVED at most: a client further behind
   * gets the whole list, `full`).
   */
  changes(version) {
    if (!Number.isInteger(version) || version < this.#forgotten || version > this.#version)
      return { version: this.#version, full: true, sessions: this.list(), removed: [] };
    const sessions = [...this.#files.values()]
      .filter((f) => f.summary && f.version > version)
      .map((f) => this.#rowOf(f));
    const removed = [...this.#removed].filter(([, v]) => v > version).map(([id]) => id);
    return { version: this.#version, full: false, sessions, removed };
  }

  /**
   * A file's row with its parent: the session whose sub-agent it ran. A
   * runtime names a sub-agent's session `<parent session>-<agent id>`
   * (deepstrike: a workflow's nodes), and the parent's summary lists that
   * agent among its processes: both must hold.
   */
  #rowOf(file) {
    const row = file.row();
    const agent = row.agent_id;
    let parent = null;
    if (agent && row.session_id.endsWith(`-${agent}`)) {
      const id = row.session_id.slice(0, -agent.length - 1);
      const started = this.#files.get(id)?.summary?.sub_agents;
      if (started?.some((p) => p.agent_id === agent)) parent = id;
    }
    return { ...row, parent_session_id: parent };
  }

  /** The files of the sessions listed, for a search over them. */
  files() {
    return [...this.#files.values()].filter((f) => f.summary);
  }

  close() {
    this.#closed = true;
    this.#stopWatching();
    clearInterval(this.#timer);
    for (const file of this.#files.values()) file.free();
    this.#files.clear();
    this.#open.clear();
  }
}

/** Starts following `dir` (see DirectoryFollower); resolves once every log is read. */
export function followDirectory(dir, options) {
  return new DirectoryFollower(dir, options).start();
}
