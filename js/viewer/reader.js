// Reading a log's bytes on another thread than the one folding them. A
// worker that reads a response or a file itself spends a good part of its
// time on the reading (each chunk copied out of the network pipe, the
// stream's promises, the garbage of a chunk each); a reader worker does
// that beside it, on another core, and hands over pieces of several MB whose
// buffers travel back and forth (transferred, never copied or collected).
// Both ends talk over a port (a Worker, a MessagePort): no DOM, so a test
// runs them over a MessageChannel.

/** Bytes per piece handed to the fold (the last of a stream, or one sent
 * while the fold waits, holds less). Each piece is two messages between
 * the threads, and on a busy machine each one that wakes the other thread
 * costs the fold's thread far more than its bytes: half the fold's limit
 * (`readThrough`), two pieces out, one filling. */
const PIECE = 16 << 20;

/** The stream and size of what a read names: a URL fetched (failing on an
 * HTTP error as the viewer reports it) or a File. */
async function openSource({ url, file }) {
  if (file) return { stream: file.stream(), total: file.size };
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { stream: response.body, total: Number(response.headers.get("content-length")) || 0 };
}

/** A BYOB reader of `stream`, or null when it is not a byte stream. */
function byteReader(stream) {
  try {
    return stream.getReader({ mode: "byob" });
  } catch {
    return null;
  }
}

/**
 * The reader's end: answers `{op: "read", id, url | file, limit}` on `port`
 * with `{id, op: "head", total}`, then the bytes in pieces `{id, op:
 * "piece", buffer, length}` (the buffer transferred), then `{id, op:
 * "end"}`, or `{id, op: "error", message}`. At most `limit` bytes are
 * handed over and not yet given back (`{op: "took", id, buffer}`, the
 * buffer returned for the next piece); a piece goes as soon as it is full,
 * or at once when the fold has nothing left. `{op: "cancel", id}` stops a
 * read. `open` makes a read's stream (tests give their own); `limit` is
 * at least `piece`.
 */
export function serveReads(port, { piece = PIECE, open = openSource } = {}) {
  const reads = new Map(); // id → the read's state
  const spare = []; // buffers given back, for the next pieces
  port.onmessage = ({ data: msg }) => {
    const read = reads.get(msg.id);
    if (msg.op === "read") serve(msg);
    else if (msg.op === "took") {
      // Kept for the read's next pieces (and let go with the last read).
      if (read && msg.buffer.byteLength === piece) spare.push(msg.buffer);
      read?.took(msg.length);
    } else if (msg.op === "cancel") read?.cancel();
  };

  async function serve({ id, limit, ...source }) {
    let buffer = new Uint8Array(spare.pop() ?? new ArrayBuffer(piece));
    let filled = 0;
    let handedOver = 0; // bytes sent and not given back
    let waiting = null; // resolves when bytes come back or the read is cancelled
    let idle = false; // waiting for the stream, the piece in hand (not lent to a byte read)
    let cancelled = false;
    let stream = null;
    const wake = () => {
      waiting?.();
      waiting = null;
    };
    const handOver = () => {
      port.postMessage({ id, op: "piece", buffer: buffer.buffer, length: filled }, [buffer.buffer]);
      handedOver += filled;
      buffer = new Uint8Array(spare.pop() ?? new ArrayBuffer(piece));
      filled = 0;
    };
    /** Hands the piece over once `limit` allows it (false: cancelled). */
    const handOverWhenAllowed = async () => {
      while (handedOver + filled > limit && !cancelled) await new Promise((r) => (waiting = r));
      if (!cancelled) handOver();
      return !cancelled;
    };
    reads.set(id, {
      took(length) {
        handedOver -= length;
        // The fold has nothing left while the stream is slow: what is here goes now.
        if (handedOver === 0 && filled > 0 && idle) handOver();
        wake();
      },
      cancel() {
        cancelled = true;
        stream?.cancel().catch(() => {});
        wake();
      },
    });
    try {
      const opened = await open(source);
      if (cancelled) return opened.stream.cancel().catch(() => {});
      // A byte stream (a response's, a file's) reads straight into the
      // piece: no chunk of its own to copy, then to collect.
      const bytes = byteReader(opened.stream);
      stream = bytes ?? opened.stream.getReader();
      port.postMessage({ id, op: "head", total: opened.total });
      for (;;) {
        if (filled === piece && !(await handOverWhenAllowed())) return;
        idle = !bytes;
        const { done, value } = await (bytes
          ? bytes.read(new Uint8Array(buffer.buffer, filled))
          : stream.read());
        idle = false;
        if (cancelled) return;
        // The piece's buffer came back from the byte read (empty at the end).
        if (bytes) buffer = new Uint8Array(value.buffer);
        if (done) break;
        if (bytes) filled += value.length;
        else {
          for (let at = 0; at < value.length; ) {
            if (filled === piece && !(await handOverWhenAllowed())) return;
            const n = Math.min(piece - filled, value.length - at);
            buffer.set(value.subarray(at, at + n), filled);
            filled += n;
            at += n;
          }
        }
        if ((filled === piece || handedOver === 0) && !(await handOverWhenAllowed())) return;
      }
      if (filled > 0 && !(await handOverWhenAllowed())) return;
      port.postMessage({ id, op: "end" });
    } catch (error) {
      if (!cancelled) port.postMessage({ id, op: "error", message: error.message });
    } finally {
      reads.delete(id);
      if (!reads.size) spare.length = 0;
    }
  }
}

/**
 * The fold's end of `serveReads` on `port`: `read(source)` (`{url}` or
 * `{file}`) returns `{head, next(), cancel()}`, as read-ahead.js's
 * `readAhead` does but read on the other end: `head` resolves to `{total}`
 * once the source is open (or rejects with its error), `next()` to the
 * next piece (valid until the next call, which gives its buffer back) or
 * null at the end. At most `limit` bytes wait unfolded.
 */
export function readThrough(port, { limit = 32 << 20 } = {}) {
  const reads = new Map(); // id → the handler of its messages
  let lastId = 0;
  const fail = (message) => {
    for (const handle of [...reads.values()]) handle({ op: "error", message });
  };
  port.onmessage = ({ data: msg }) => reads.get(msg.id)?.(msg);
  port.onerror = (event) => fail(`reader: ${event.message ?? "failed to start"}`);

  return function read(source) {
    const id = ++lastId;
    const pieces = [];
    let failure = null;
    let ended = false;
    let waiting = null;
    let held = null; // the piece `next()` last gave, given back on the next call
    let opened;
    let openFailed;
    const head = new Promise((resolve, reject) => {
      opened = resolve;
      openFailed = reject;
    });
    head.catch(() => {}); // a failure is also `next()`'s
    reads.set(id, (msg) => {
      if (msg.op === "head") opened({ total: msg.total });
      else if (msg.op === "piece") pieces.push(new Uint8Array(msg.buffer, 0, msg.length));
      else if (msg.op === "end") ended = true;
      else if (msg.op === "error") {
        failure = new Error(msg.message);
        openFailed(failure);
      }
      if (msg.op !== "head") {
        waiting?.();
        waiting = null;
      }
    });
    const giveBack = () => {
      if (!held) return;
      port.postMessage({ op: "took", id, buffer: held.buffer, length: held.length }, [held.buffer]);
      held = null;
    };
    port.postMessage({ op: "read", id, limit, ...source });
    return {
      head,
      async next() {
        giveBack();
        for (;;) {
          if (pieces.length) {
            held = pieces.shift();
            return held;
          }
          if (failure) throw failure;
          if (ended) {
            reads.delete(id);
            return null;
          }
          await new Promise((resolve) => (waiting = resolve));
        }
      },
      cancel() {
        reads.delete(id);
        port.postMessage({ op: "cancel", id });
      },
    };
  };
}
