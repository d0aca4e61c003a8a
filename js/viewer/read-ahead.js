// Reading a log's bytes ahead of what folds them. A network response's
// stream holds little (its pipe fills in a few milliseconds), so a worker
// that reads only when its fold is done leaves the transfer stopped most
// of the time; read ahead, the transfer runs beside the fold. No DOM: a
// Worker uses it.

/**
 * Reads `stream` (a ReadableStream of bytes: a file's, a response's) ahead
 * of its consumer, into a queue of at most `limit` bytes. `next()` resolves
 * to the next chunk (null at the end); `cancel()` stops reading.
 */
export function readAhead(stream, { limit = 32 << 20 } = {}) {
  const reader = stream.getReader();
  const queue = [];
  let queued = 0;
  let ended = false;
  let cancelled = false;
  let failure = null;
  let wake = null; // the consumer, waiting for a chunk
  let resume = null; // the reader, waiting for room
  const readAll = async () => {
    while (!cancelled) {
      if (queued >= limit) {
        await new Promise((resolve) => (resume = resolve));
        continue;
      }
      const { done, value } = await reader.read();
      if (done) return;
      queue.push(value);
      queued += value.length;
      wake?.();
      wake = null;
    }
  };
  readAll()
    .catch((error) => {
      failure = error;
    })
    .finally(() => {
      ended = true;
      wake?.();
    });
  return {
    async next() {
      while (!queue.length && !ended) await new Promise((resolve) => (wake = resolve));
      if (failure) throw failure;
      const chunk = queue.shift() ?? null;
      queued -= chunk?.length ?? 0;
      resume?.();
      resume = null;
      return chunk;
    },
    cancel() {
      cancelled = true;
      resume?.();
      reader.cancel().catch(() => {});
    },
  };
}
