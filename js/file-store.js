// A storage for durable sessions (js/durable.js) in a directory, on Node and
// Deno (node:fs). Each session's events are appended to
// `DIR/<session_id>.jsonl` in deepstrike's FileSessionLog format, one
// `{"seq":N,"event":{...}}` line per event (seq = position - 1), written in
// one write per accepted batch and fsynced before the append is answered.
// Beside it, `<session_id>.checkpoint.json` (replaced atomically every
// `checkpointEvery` events) holds the state at the last checkpoint and the
// marks (position, revision, byte offset, time) a restart seeks from, so a
// restart reads the retained window and the events since the checkpoint,
// never the whole log; `DIR/incarnation` holds the incarnation. A torn last
// line (a crash mid-write) is cut off when the session is next loaded.
import { mkdir, open, readFile, rename, stat, truncate } from "node:fs/promises";
import { Buffer } from "node:buffer";
import { join } from "node:path";
import { AgentReplayError } from "./common.js";

/** A stored line; group 2 is the event's text (as bin/follow-dir.js reads it). */
const ENTRY = /^\{"seq":(0|[1-9][0-9]*),"event":(\{.*\})\}$/s;
const NEWLINE = 0x0a;
/** The longest file name most file systems take, less the suffixes. */
const MAX_NAME_BYTES = 200;

/** A session id as a file name: `/`, `\`, `%` and control characters
 * percent-encoded, so no id names a path outside the directory. */
function fileName(id) {
  const encoded = (c) => c < " " || c === "\u007f" || "/\\%".includes(c);
  const hex = (c) => `%${c.charCodeAt(0).toString(16).padStart(2, "0").toUpperCase()}`;
  const name = Array.from(id, (c) => (encoded(c) ? hex(c) : c)).join("");
  const safe =
    name === "." || name === ".." ? encodeURIComponent(name).replace(/\./g, "%2E") : name;
  if (new TextEncoder().encode(safe).length > MAX_NAME_BYTES)
    throw new AgentReplayError("invalid_session_id", "the session id is too long for a file name");
  return safe;
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
 * The events of whole stored lines in `bytes` (read from the line of seq
 * `seq`): their texts and the byte length they span. A torn or foreign
 * line ends them: what follows it was never acknowledged.
 */
function wholeLines(bytes, seq) {
  const texts = [];
  let start = 0;
  let next = seq;
  for (;;) {
    const end = bytes.indexOf(NEWLINE, start);
    if (end < 0) break;
    const match = ENTRY.exec(bytes.toString("utf8", start, end));
    if (!match || Number(match[1]) !== next) break;
    texts.push(match[2]);
    next += 1;
    start = end + 1;
  }
  return { texts, length: start };
}

const NO_MARK = { position: 0, revision: 0, offset: 0, at: 0 };

/**
 * A file store in `dir` (made if missing). `fileStore(dir)` is the storage
 * `createReplayHandler({storage})` and `DurableSessions` take.
 */
export function fileStore(dir) {
  let ready;
  const made = () => (ready ??= mkdir(dir, { recursive: true }));
  const paths = (id) => {
    const base = join(dir, fileName(id));
    return { log: `${base}.jsonl`, checkpoint: `${base}.checkpoint.json` };
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

  return {
    async incarnation() {
      await made();
      const path = join(dir, "incarnation");
      try {
        return (await readFile(path, "utf8")).trim();
      } catch (e) {
        if (e.code !== "ENOENT") throw e;
      }
      const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
      const incarnation = Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      await replaceFile(path, `${incarnation}\n`);
      return incarnation;
    },

    /** What a restart restores: the events from the latest mark at or
     * before both the checkpoint and the retained window, with times. */
    async load(id, { retainEvents }) {
      await made();
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
      const recent = wholeLines(await readRange(log, latest.offset), latest.position);
      if (latest.offset + recent.length < size) await truncate(log, latest.offset + recent.length);
      const tail = latest.position + recent.texts.length;
      const from = Math.max(0, tail - retainEvents);
      const base = saved.marks.findLast((m) => m.position <= from) ?? saved.marks[0];
      const older = wholeLines(await readRange(log, base.offset, latest.offset), base.position);
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
      };
    },

    /** Appends the events at `position` on in one write, fsynced. */
    async append(id, { position, events }) {
      await made();
      let text = "";
      for (const [i, event] of events.entries())
        text += `{"seq":${position - 1 + i},"event":${event}}\n`;
      const file = await open(paths(id).log, "a");
      let size;
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
    },

    /** Stores the state at `position` and a mark there; forgets the marks
     * no restart needs (all but the last at or before `keepFrom`). */
    async checkpoint(id, { position, revision, state, at, keepFrom }) {
      const { log, checkpoint } = paths(id);
      const saved = await readCheckpoint(checkpoint);
      const { size } = await stat(log);
      const marks = [...saved.marks, { position, revision, offset: size, at }];
      const first = Math.max(
        0,
        marks.findLastIndex((m) => m.position <= keepFrom),
      );
      await replaceFile(checkpoint, JSON.stringify({ marks: marks.slice(first), state }));
    },
  };
}
