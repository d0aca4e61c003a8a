// Follows a directory of FileSessionLog files, the way deepstrike's runtime
// records sessions: `DIR/<session_id>.jsonl`, one `{"seq": N, "event": {...}}`
// line per event, appended while the agent runs. Each file is tailed from the
// offset last read and served as a live ReplaySession. A file truncated,
// replaced or rewritten starts a new generation with its own ReplayStore, so
// a cursor of the old generation gets a gap and a fresh observation (the
// foreign-incarnation rule of live-replay.md) instead of a silent merge.
import { watch } from "node:fs";
import { open, readdir, stat } from "node:fs/promises";
import { join } from "node:path";
import { AgentReplayError, ReplaySession, ReplayStore } from "../js/node.js";

const SUFFIX = ".jsonl";
const NEWLINE = 0x0a;
/** A stored entry as FileSessionLog writes it; group 2 is the event's own text. With `s`,
 * as the SDK writes U+2028 and U+2029 raw, and `.` alone stops at them. */
const ENTRY = /^\{"seq":(0|[1-9][0-9]*),"event":(\{.*\})\}$/s;
/** Line errors kept per file (the count goes on). */
const KEEP_LINE_ERRORS = 20;
/** The fallback poll's shortest period: it lists the directory and stats each log. */
const MIN_POLL_MS = 50;

/** The session id of a file name, or null when the file is no session log. */
function sessionIdOf(name) {
  if (!name.endsWith(SUFFIX)) return null;
  const id = name.slice(0, -SUFFIX.length);
  return id && !/[\r\n\0]/.test(id) ? id : null;
}

/** One session log file: the generation being followed and how far it is read. */
class FollowedFile {
  #running = null;
  #again = false;
  #row = null;

  constructor(id, path, { storeOptions, chunkBytes, maxLineBytes }) {
    this.id = id;
    this.path = path;
    this.storeOptions = storeOptions;
    this.chunkBytes = chunkBytes;
    this.maxLineBytes = maxLineBytes;
    this.generation = 0;
    this.reset = null;
    this.readError = null;
    this.mtimeMs = 0;
    this.freed = false;
  }

  /** Reads what was appended since the last read; calls made meanwhile run once after it. */
  refresh() {
    if (this.#running) {
      this.#again = true;
      return this.#running;
    }
    this.#running = (async () => {
      do {
        this.#again = false;
        await this.#readNew();
      } while (this.#again);
    })().finally(() => {
      this.#running = null;
    });
    return this.#running;
  }

  /** True when `info` (a stat) may hold bytes not read yet. */
  changed(info) {
    return info.ino !== this.ino || info.size !== this.offset || info.mtimeMs !== this.mtimeMs;
  }

  async #readNew() {
    if (this.freed) return;
    let handle;
    try {
      handle = await open(this.path, "r");
    } catch (e) {
      this.readError = e.code ?? e.message;
      this.#row = null;
      throw e;
    }
    try {
      const info = await handle.stat();
      const reset = await this.#resetReason(handle, info);
      if (this.freed) return;
      if (reset) this.#startGeneration(reset, info);
      this.mtimeMs = info.mtimeMs;
      this.readError = null;
      this.#row = null; // the new mtime even when nothing was appended
      // Up to the size seen now, in bounded chunks; later appends come with the next change.
      while (this.offset < info.size) {
        const want = Math.min(this.chunkBytes, info.size - this.offset);
        const chunk = Buffer.allocUnsafe(want);
        const { bytesRead } = await handle.read(chunk, 0, want, this.offset);
        if (bytesRead === 0 || this.freed) break;
        this.offset += bytesRead;
        this.lastByte = chunk[bytesRead - 1];
        this.#take(chunk.subarray(0, bytesRead));
      }
    } finally {
      await handle.close();
    }
  }

  /** Why the bytes already read are no longer the file's start, or null. */
  async #resetReason(handle, info) {
    if (this.generation === 0) return "new";
    if (info.ino !== this.ino || info.dev !== this.dev) return "replaced";
    if (info.size < this.offset) return "truncated";
    if (this.offset === 0) return null;
    // Truncated and written again past the old size: the last byte read has changed.
    const probe = Buffer.alloc(1);
    await handle.read(probe, 0, 1, this.offset - 1);
    return probe[0] === this.lastByte ? null : "rewritten";
  }

  /** A fresh store (new incarnation) and session; the old store's streams end. */
  #startGeneration(reason, info) {
    this.store?.free();
    this.session?.free();
    this.store = new ReplayStore(this.storeOptions);
    this.session = new ReplaySession(this.id, { store: this.store });
    this.generation += 1;
    this.reset = reason === "new" ? null : reason;
    this.ino = info.ino;
    this.dev = info.dev;
    this.offset = 0;
    this.lastByte = undefined;
    this.partial = null;
    this.skipping = false;
    this.line = 0;
    this.nextSeq = 0;
    this.lineErrors = { count: 0, last: [] };
  }

  /** Splits bytes into complete lines (a partial last line waits for its newline). */
  #take(bytes) {
    const entries = [];
    let start = 0;
    for (let nl = bytes.indexOf(NEWLINE); nl >= 0; nl = bytes.indexOf(NEWLINE, start)) {
      const piece = bytes.subarray(start, nl);
      const line = this.partial ? Buffer.concat([this.partial, piece]) : piece;
      this.partial = null;
      this.line += 1;
      if (this.skipping) this.skipping = false;
      else {
        const entry = this.#entry(line);
        if (entry) entries.push(entry);
      }
      start = nl + 1;
    }
    const rest = bytes.subarray(start);
    if (rest.length && !this.skipping) {
      if ((this.partial?.length ?? 0) + rest.length > this.maxLineBytes) {
        this.#lineError(this.line + 1, "limit_exceeded", `longer than ${this.maxLineBytes} bytes`);
        this.partial = null;
        this.skipping = true;
      } else this.partial = Buffer.concat(this.partial ? [this.partial, rest] : [rest]);
    }
    this.#append(entries);
    this.#row = null;
  }

  /** `{line, text}` of a stored entry's event, or null (with a line error). */
  #entry(bytes) {
    let text = bytes.toString("utf8");
    if (text.endsWith("\r")) text = text.slice(0, -1);
    if (!text.trim()) return null;
    const match = ENTRY.exec(text);
    if (!match) {
      this.#lineError(this.line, "invalid_entry", 'expected {"seq":N,"event":{...}}');
      return null;
    }
    const seq = Number(match[1]);
    if (seq !== this.nextSeq)
      this.#lineError(this.line, "seq_gap", `seq ${seq} where ${this.nextSeq} was expected`);
    this.nextSeq = seq + 1;
    return { line: this.line, text: match[2] };
  }

  /** Appends the events; those the reader rejects are left out, each with a line error. */
  #append(entries) {
    let batch = entries;
    for (let attempt = 0; batch.length; attempt += 1) {
      const text = batch.map((e) => e.text).join("\n");
      try {
        this.session.append(text);
        return;
      } catch (e) {
        if (!(e instanceof AgentReplayError)) throw e;
        const bad = new Set(e.errors?.map((err) => err.line));
        const placed = [...bad].every((line) => batch[line - 1] !== undefined);
        if (attempt > 0 || !bad.size || !placed) return this.#appendEach(batch);
        for (const err of e.errors)
          this.#lineError(batch[err.line - 1].line, err.code, err.message);
        batch = batch.filter((_, i) => !bad.has(i + 1));
      }
    }
  }

  #appendEach(entries) {
    for (const { line, text } of entries) {
      try {
        this.session.append(text);
      } catch (e) {
        if (!(e instanceof AgentReplayError)) throw e;
        this.#lineError(line, e.errors?.[0]?.code ?? e.code, e.errors?.[0]?.message ?? e.message);
      }
    }
  }

  #lineError(line, code, message) {
    const { lineErrors } = this;
    lineErrors.count += 1;
    lineErrors.last.push({ line, code, message });
    if (lineErrors.last.length > KEEP_LINE_ERRORS) lineErrors.last.shift();
  }

  /** The session list's row (documented in docs/viewer.md), from the live session's summary. */
  row() {
    if (this.#row) return this.#row;
    const s = this.session.summary();
    this.#row = {
      session_id: this.id,
      status: s.status,
      // As the viewer's header counts them: turns used once finished, else the revision.
      turns: s.status.state === "terminal" ? s.turns_used : s.revision,
      tokens: s.total_tokens,
      errors: s.errors,
      events: s.event_count,
      modified_ms: Math.round(this.mtimeMs),
      bytes: this.offset,
      generation: this.generation,
      reset: this.reset,
      line_errors: { count: this.lineErrors.count, last: [...this.lineErrors.last] },
      read_error: this.readError,
    };
    return this.#row;
  }

  free() {
    this.freed = true;
    this.store?.free();
    this.session?.free();
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
  #watcher = null;
  #timer = null;
  #scanning = null;
  #rescan = false;
  #closed = false;

  /**
   * Options: `pollMs` (1000, at least 50), `storeOptions` (each generation's ReplayStore),
   * `chunkBytes` (1 MiB read at a time), `maxLineBytes` (16 MiB: a longer
   * line is skipped with a line error), `watch` (true; false leaves the
   * poll alone, for filesystems where fs.watch misbehaves).
   */
  constructor(
    dir,
    { pollMs = 1000, storeOptions = {}, chunkBytes = 1 << 20, maxLineBytes, watch = true } = {},
  ) {
    if (!Number.isInteger(pollMs) || pollMs < MIN_POLL_MS)
      throw new AgentReplayError(
        "invalid_input",
        `pollMs must be a whole number >= ${MIN_POLL_MS}`,
      );
    this.#dir = dir;
    this.#options = {
      pollMs,
      storeOptions,
      chunkBytes,
      maxLineBytes: maxLineBytes ?? 16 << 20,
      watch,
    };
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

  async #scanOnce() {
    if (this.#closed) return;
    const names = await readdir(this.#dir);
    const present = new Set();
    await Promise.all(
      names.map(async (name) => {
        const id = sessionIdOf(name);
        if (id === null) return;
        const path = join(this.#dir, name);
        let info;
        try {
          info = await stat(path);
        } catch {
          return; // gone since the listing
        }
        if (!info.isFile()) return;
        present.add(id);
        let file = this.#files.get(id);
        if (!file) {
          file = new FollowedFile(id, path, this.#options);
          this.#files.set(id, file);
        } else if (!file.changed(info)) return;
        await file.refresh().catch(() => {});
      }),
    );
    for (const [id, file] of this.#files) {
      if (present.has(id)) continue;
      file.free();
      this.#files.delete(id);
    }
  }

  has(id) {
    return this.#files.get(id)?.session !== undefined;
  }

  /** The ReplaySession of the file's current generation, or undefined. */
  session(id) {
    return this.#files.get(id)?.session;
  }

  /** The session list: most recently written first. */
  list() {
    return [...this.#files.values()]
      .filter((f) => f.session)
      .map((f) => f.row())
      .sort((a, b) => b.modified_ms - a.modified_ms || a.session_id.localeCompare(b.session_id));
  }

  close() {
    this.#closed = true;
    this.#stopWatching();
    clearInterval(this.#timer);
    for (const file of this.#files.values()) file.free();
    this.#files.clear();
  }
}

/** Starts following `dir` (see DirectoryFollower); resolves once every log is read. */
export function followDirectory(dir, options) {
  return new DirectoryFollower(dir, options).start();
}
