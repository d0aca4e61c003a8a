// Reading a log's bytes ahead of what folds them. A network response's
// stream holds little (its pipe fills in a few milliseconds), so a worker
// that reads only when its fold is done leaves the transfer stopped most
// of the time; read ahead, the transfer runs beside the fold. No DOM: a
// Worker uses it.

/**
 * Reads `stream` (a ReadableStream of bytes: a file's, a response's) ahead
 * of its consumer, into a queue of at most about `limit` bytes: the
 * platform's own buffering, a pipe into a TransformStream whose queue
 * holds that many bytes. `next()` resolves to the next chunk (null at the
 * end); `cancel()` stops reading.
 */
export function readAhead(stream, { limit = 32 << 20 } = {}) {
  const queue = new TransformStream({}, new ByteLengthQueuingStrategy({ highWaterMark: limit }));
  const reader = stream.pipeThrough(queue).getReader();
  return {
    async next() {
      const { done, value } = await reader.read();
      return done ? null : value;
    },
    cancel() {
      reader.cancel().catch(() => {});
    },
  };
}

/** A stream of `bytes` (a Uint8Array) alone, for `readAhead` or a pipe.
 * Not a Blob's stream: WebKit fails to read a Blob (NotReadableError) on
 * a file:// page, the one-file report's, and in its worker. */
export function streamOf(bytes) {
  return new ReadableStream({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}
