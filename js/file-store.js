// A storage for durable sessions (js/durable.js) in a directory, on Node and
// Deno (node:fs). Each session's events are appended to `DIR/<name>.jsonl`
// (the name encodes the session id: see fileName) in deepstrike's
// FileSessionLog format, one `{"seq":N,"event":{...}}` line per event
// (seq = position - 1), written in one write per accepted batch and fsynced
// before the append is answered. The first line of a batch sent with a key
// also holds `"key"` and `"count"` (its events), so the key is as durable
// as the batch, in the same write. Beside it, `<name>.checkpoint.json`
// (replaced atomically every `checkpointEvery` events) holds the state at
// the last checkpoint and the marks (position, revision, byte offset, time)
// a restart seeks from, so a restart reads the retained window and the
// events since the checkpoint, never the whole log; `DIR/incarnation`
// holds the incarnation.
//
// The store writes only to a directory it owns: one it made (marked by
// `DIR/.agent-replay-store`), empty, or written by an earlier version (which
// left `incarnation` and no marker: its files are renamed to today's names
// once). A directory holding anything else (an agent's own logs) is refused
// whole. One process writes a directory at a time: `DIR/.agent-replay.lock`
// holds its pid, made with O_EXCL, taken over only from a process that is
// gone. A line the store did not write is reported (invalid_log) and kept;
// only a torn last line, what a crash mid-write leaves of its own batch, is
// cut, under the lock.
import { mkdir, open, readFile, readdir, rename, stat, truncate, unlink } from "node:fs/promises";
import { unlinkSync } from "node:fs";
import { Buffer } from "node:buffer";
import { join, resolve } from "node:path";
import process from "node:process";
import { AgentReplayError, StoredEntryReader } from "./node.js";

/** How every line this store writes begins. */
const ENTRY_START = '{"seq":';
const NEWLINE = 0x0a;
/** The longest file name most file systems take (255 bytes), less the
 * longest suffix written (`.checkpoint.json.tmp`). */
const MAX_NAME_BYTES = 230;
/** Marks a directory this store made (and the naming of its files). */
const MARKER = ".agent-replay-store";
const MARKER_TEXT = "agent-replay file store: file names of format 2\n";
/** Holds the pid of the process writing the directory. */
const LOCK = ".agent-replay.lock";
/** Names Windows reserves for devices, whatever follows a dot. */
const RESERVED = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])$/i;

/** A character as percent-encoded UTF-8 bytes (hex digits uppercase). */
function percent(c) {
  return Array.from(
    new TextEncoder().encode(c),
    (b) => `%${b.toString(16).padStart(2, "0").toUpperCase()}`,
  ).join("");
}

/**
 * A session id as a file name, distinct from every other id's on file
 * systems that ignore case or normalise Unicode (macOS, Windows), and valid
 * on Windows: only `a-z`, `0-9`, `-`, `_` and inner dots are kept, every
 * other character (uppercase letters, `<>:"/\|?*`, control characters,
 * non-ASCII) is percent-encoded as UTF-8 with uppercase hex, and so is the
 * first letter of a reserved device name (`con`, `nul`, `com1`…). `%` never
 * stands for itself, so the encoding is one-to-one even with case ignored.
 */
function fileName(id) {
  const chars = Array.from(id);
  const kept = (c, i) => /^[a-z0-9_-]$/.test(c) || (c === "." && i > 0 && i < chars.length - 1);
  let name = chars.map((c, i) => (kept(c, i) ? c : percent(c))).join("");
  if (RESERVED.test(name.split(".")[0])) name = percent(name[0]) + name.slice(1);
  if (new TextEncoder().encode(name).length > MAX_NAME_BYTES)
    throw new AgentReplayError("invalid_session_id", "the session id is too long for a file name");
  return name;
}

/** The session id of a file name of the first format (before the marker):
 * the id with only `/`, `\`, `%`, control characters and `.`/`..` encoded. */
function firstFormatId(name) {
  try {
    return decodeURIComponent(name);
  } catch {
    return undefined;
  }
}

/** The error a failed write is: `storage_full` for a full disk. */
function writeError(e, dir) {
  if (e?.code === "ENOSPC" || e?.code === "EDQUOT")
    return new AgentReplayError(
      "storage_full",
      `no space left for ${dir}: nothing of this write is stored (what was acknowledged is kept)`,
    );
  return e;
}

/** Writes a file whole or not at all: a temporary file, fsynced, renamed. */
async function replaceFile(path, text) {
  const temporary = `${path}.tmp`;
  const file = await open(temporary, "w");
  try {
    await file.writeFile(text);
    await file.datasync();
  } finally {
    await file.close();
  }
  await rename(temporary, path);
}

/** Makes a file just created in `dir` survive a power loss too. */
async function syncDirectory(dir) {
  const handle = await open(dir, "r");
  try {
    await handle.sync();
  } catch {
    // Some platforms cannot sync a directory: the file's data is synced.
  } finally {
    await handle.close();
  }
}

/** The bytes of `path` from `start` to `end` (the end of the file if omitted). */
async function readRange(path, start, end) {
  const file = await open(path, "r");
  try {
    const size = end ?? (await file.stat()).size;
    const buffer = Buffer.alloc(Math.max(0, size - start));
    let at = 0;
    while (at < buffer.length) {
      const { bytesRead } = await file.read(buffer, at, buffer.length - at, start + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return buffer.subarray(0, at);
  } finally {
    await file.close();
  }
}

/**
 * The whole stored lines in `bytes` (read from byte `offset` of the file,
 * at the line of seq `seq`), read by the core's entry reader: the events'
 * texts, the keyed batches among them, the byte length they span, and what
 * ends them: `end`, `torn` (bytes after the last line break, an entry cut
 * short or unterminated: a write a crash cut short, if they begin as this
 * store's lines do) or `foreign` (a line this store did not write, or not
 * at the next seq).
 */
function wholeLines(bytes, seq, offset) {
  const reader = new StoredEntryReader({ seq, offset });
  try {
    const { entries, errors } = reader.write(bytes);
    const stop = errors.length > 0 ? errors[0].offset : Number.POSITIVE_INFINITY;
    const texts = [];
    const keys = [];
    for (const entry of entries) {
      if (entry.offset >= stop) break;
      if (entry.key !== undefined)
        keys.push({ key: entry.key, position: entry.seq + 1, count: entry.count });
      texts.push(entry.text);
    }
    if (errors.length > 0) return { texts, keys, length: stop - offset, end: "foreign" };
    const length = bytes.lastIndexOf(NEWLINE) + 1;
    if (length === bytes.length) return { texts, keys, length, end: "end" };
    return { texts, keys, length, end: torn(reader.end(), bytes.subarray(length)) };
  } finally {
    reader.free();
  }
}

/** What the bytes after the last line break are: `torn` if they are an
 * entry (whole or cut short) that begins as this store's lines do, else
 * `foreign`. */
function torn(last, rest) {
  const entry = last.entries.length > 0 || last.errors[0]?.code === "truncated";
  const start = rest.toString("utf8", 0, Math.min(rest.length, ENTRY_START.length));
  const ours = ENTRY_START.startsWith(start) || start.startsWith(ENTRY_START);
  return entry && ours ? "torn" : "foreign";
}

/** Whether a process with this pid runs (one we may not signal runs too). */
function running(pid) {
  if (!Number.isSafeInteger(pid) || pid <= 0) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e.code === "EPERM";
  }
}

/** The locks this process holds: path → how many stores share it. */
const locks = new Map();
/** Whether the exit hook that leaves them is set (once per process). */
let exitHooked = false;

/** Takes `DIR/.agent-replay.lock` for this process (stores of one process
 * share it), taking it over from a process that is gone. */
async function lock(dir) {
  const path = join(dir, LOCK);
  if (locks.has(path)) {
    locks.set(path, locks.get(path) + 1);
    return path;
  }
  for (let attempt = 0; attempt < 3; attempt++) {
    try {
      const file = await open(path, "wx");
      try {
        await file.writeFile(`${process.pid}\n`);
        await file.datasync();
      } finally {
        await file.close();
      }
      if (!exitHooked) process.once("exit", releaseAll);
      exitHooked = true;
      locks.set(path, 1);
      return path;
    } catch (e) {
      if (e.code !== "EEXIST") throw writeError(e, dir);
    }
    const pid = Number((await readFile(path, "utf8").catch(() => "")).trim());
    if (running(pid) && pid !== process.pid)
      throw new AgentReplayError(
        "invalid_input",
        `${dir} is in use by process ${pid} (${path}): one process writes a directory at a time`,
      );
    await unlink(path).catch(() => {});
  }
  throw new AgentReplayError("invalid_input", `${dir}: could not take ${path}`);
}

/** Leaves a lock when its last store closes. */
async function unlock(path) {
  const count = (locks.get(path) ?? 0) - 1;
  if (count > 0) return locks.set(path, count);
  locks.delete(path);
  await unlink(path).catch(() => {});
}

/** At exit, leaves every lock this process holds. */
function releaseAll() {
  for (const path of locks.keys()) {
    try {
      unlinkSync(path);
    } catch {}
  }
  locks.clear();
}

/**
 * Whether `dir` is this store's to write: `new` (nothing in it but hidden
 * files), `marked`, `first` (written by the first format), or refused.
 */
async function ownership(dir) {
  const names = await readdir(dir);
  if (names.includes(MARKER)) return "marked";
  if (names.includes("incarnation")) return "first";
  if (names.every((n) => n.startsWith("."))) return "new";
  throw new AgentReplayError(
    "invalid_input",
    `${dir} holds files this store did not write (no ${MARKER}): it writes only to a ` +
      "directory of its own; to view another program's logs, use `agent-replay serve DIR`",
  );
}

/** Renames the files of the first format to today's names. */
async function migrate(dir) {
  for (const name of await readdir(dir)) {
    const suffix = [".checkpoint.json", ".jsonl"].find((s) => name.endsWith(s));
    const id = suffix && firstFormatId(name.slice(0, -suffix.length));
    if (id === undefined || id === "") continue;
    const renamed = `${fileName(id)}${suffix}`;
    if (renamed !== name) await rename(join(dir, name), join(dir, renamed));
  }
}

const NO_MARK = { position: 0, revision: 0, offset: 0, at: 0 };

/**
 * A file store in `dir` (made if missing). `fileStore(dir)` is the storage
 * `createReplayHandler({storage})` and `DurableSessions` take. `open()`
 * takes the directory (done by the first call of any method): it throws
 * when another process writes it or it holds files this store did not
 * write; `close()` leaves it.
 */
export function fileStore(dir) {
  let opened;
  let lockPath;
  /** The size of each session's file before its last batch, for `undo`. */
  const before = new Map();
  const paths = (id) => {
    const base = join(dir, fileName(id));
    return { log: `${base}.jsonl`, checkpoint: `${base}.checkpoint.json` };
  };

  async function take() {
    await mkdir(dir, { recursive: true }).catch((e) => {
      throw writeError(e, dir);
    });
    const owned = await ownership(dir);
    lockPath = await lock(resolve(dir));
    try {
      if (owned === "marked") return;
      if (owned === "first") await migrate(dir);
      await replaceFile(join(dir, MARKER), MARKER_TEXT);
      await syncDirectory(dir);
    } catch (e) {
      await unlock(lockPath);
      throw writeError(e, dir);
    }
  }
  const ready = () => {
    opened ??= take().catch((e) => {
      opened = undefined;
      throw e;
    });
    return opened;
  };

  /** The checkpoint file, or none (a session never checkpointed). */
  async function readCheckpoint(path) {
    try {
      return JSON.parse(await readFile(path, "utf8"));
    } catch (e) {
      if (e.code === "ENOENT") return { marks: [NO_MARK] };
      throw e;
    }
  }

  /** The whole lines of `log` from `mark`; a torn last line cut, a line
   * this store did not write reported (and kept). */
  async function linesFrom(log, mark, size) {
    const lines = wholeLines(await readRange(log, mark.offset), mark.position, mark.offset);
    const at = mark.offset + lines.length;
    if (lines.end === "foreign")
      throw new AgentReplayError(
        "invalid_log",
        `${log}: the line at byte ${at} is not one this store wrote; the file is kept as it is`,
      );
    if (lines.end === "torn" && at < size) await truncate(log, at);
    return lines;
  }

  return {
    open: ready,

    async close() {
      if (!opened) return;
      const taken = opened;
      opened = undefined;
      await taken.then(() => unlock(lockPath)).catch(() => {});
    },

    async incarnation() {
      await ready();
      const path = join(dir, "incarnation");
      try {
        return (await readFile(path, "utf8")).trim();
      } catch (e) {
        if (e.code !== "ENOENT") throw e;
      }
      const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
      const incarnation = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      await replaceFile(path, `${incarnation}\n`).catch((e) => {
        throw writeError(e, dir);
      });
      return incarnation;
    },

    /** What a restart restores: the events from the latest mark at or
     * before both the checkpoint and the retained window, with times and
     * the keyed batches among them. */
    async load(id, { retainEvents }) {
      await ready();
      const { log, checkpoint } = paths(id);
      let size;
      let mtime;
      try {
        ({ size, mtimeMs: mtime } = await stat(log));
      } catch (e) {
        if (e.code === "ENOENT") return undefined;
        throw e;
      }
      const saved = await readCheckpoint(checkpoint);
      const latest = saved.marks.at(-1);
      const recent = await linesFrom(log, latest, size);
      const tail = latest.position + recent.texts.length;
      const from = Math.max(0, tail - retainEvents);
      const base = saved.marks.findLast((m) => m.position <= from) ?? saved.marks[0];
      const older = wholeLines(
        await readRange(log, base.offset, latest.offset),
        base.position,
        base.offset,
      );
      if (base.position + older.texts.length !== latest.position)
        throw new AgentReplayError("invalid_log", `${log}: lines before the checkpoint are lost`);
      // An event is stored no later than the mark after it; those after the
      // last mark, no later than the file's last write.
      const times = [];
      for (const [i, mark] of saved.marks.entries())
        if (mark.position > base.position) {
          const previous = Math.max(base.position, saved.marks[i - 1].position);
          for (let p = previous; p < mark.position; p++) times.push(mark.at);
        }
      for (let i = 0; i < recent.texts.length; i++) times.push(mtime);
      return {
        base: { position: base.position, revision: base.revision },
        events: [...older.texts, ...recent.texts],
        times,
        checkpoint: saved.state && { position: latest.position, state: saved.state },
        keys: [...older.keys, ...recent.keys],
      };
    },

    /** Appends the events at `position` on in one write, fsynced; a key
     * rides on the first line. */
    async append(id, { position, events, key }) {
      await ready();
      let text = "";
      for (const [i, event] of events.entries()) {
        const batch =
          i === 0 && key !== undefined
            ? `"key":${JSON.stringify(key)},"count":${events.length},`
            : "";
        text += `{"seq":${position - 1 + i},${batch}"event":${event}}\n`;
      }
      const { log } = paths(id);
      let size;
      try {
        const file = await open(log, "a");
        try {
          ({ size } = await file.stat());
          await file.writeFile(text);
          await file.datasync();
        } catch (e) {
          // A batch that failed half-written (a full disk) is taken back
          // whole, so that no later append lands after half an event.
          if (size !== undefined) await file.truncate(size).catch(() => {});
          throw e;
        } finally {
          await file.close();
        }
        if (position === 1) await syncDirectory(dir);
      } catch (e) {
        throw writeError(e, dir);
      }
      before.set(id, { position, size });
    },

    /** Takes the last batch appended back out (the live session refused it). */
    async undo(id, { position }) {
      const last = before.get(id);
      if (last?.position !== position)
        throw new AgentReplayError(
          "internal",
          `undo of a batch at ${position}: not the last stored`,
        );
      before.delete(id);
      const file = await open(paths(id).log, "r+");
      try {
        await file.truncate(last.size);
        await file.datasync();
      } finally {
        await file.close();
      }
    },

    /** Stores the state at `position` and a mark there; forgets the marks
     * no restart needs (all but the last at or before `keepFrom`). */
    async checkpoint(id, { position, revision, state, at, keepFrom }) {
      await ready();
      const { log, checkpoint } = paths(id);
      const saved = await readCheckpoint(checkpoint);
      const { size } = await stat(log);
      const marks = [...saved.marks, { position, revision, offset: size, at }];
      const first = Math.max(
        0,
        marks.findLastIndex((m) => m.position <= keepFrom),
      );
      await replaceFile(checkpoint, JSON.stringify({ marks: marks.slice(first), state })).catch(
        (e) => {
          throw writeError(e, dir);
        },
      );
    },
  };
}
