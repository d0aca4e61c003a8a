// Logs as the viewer's streams deliver them, for the tests of reading
// them (read-ahead.test.mjs, reader.test.mjs): deterministic bytes, cut
// into chunks of any size, streamed a chunk per turn of the event loop.

/** Deterministic bytes, and cuts of them of sizes from 1 byte to 300 KB. */
export function source(total, seed = 7) {
  let s = seed;
  const random = () => {
    s = (s * 1103515245 + 12345) % 2 ** 31;
    return s / 2 ** 31;
  };
  const bytes = Uint8Array.from({ length: total }, () => Math.floor(random() * 256));
  const cuts = [];
  for (let at = 0; at < total; ) {
    const n = Math.min(
      total - at,
      random() < 0.3 ? 1 + Math.floor(random() * 10) : Math.floor(random() * 300_000) + 1,
    );
    cuts.push([at, at + n]);
    at += n;
  }
  return { bytes, cuts };
}

/** A stream of `cuts` of `bytes` (a byte stream, or a default one), each
 * after a turn of the event loop; `pulled()` is how many bytes it gave,
 * `cancelled()` whether it was cancelled. */
export function streamOf({ bytes, cuts }, { byteStream }) {
  let next = 0;
  let pulled = 0;
  let cancelled = false;
  const stream = new ReadableStream({
    type: byteStream ? "bytes" : undefined,
    async pull(controller) {
      await new Promise((resolve) => setImmediate(resolve));
      if (next === cuts.length) {
        controller.close();
        controller.byobRequest?.respond(0);
        return;
      }
      const [from, to] = cuts[next++];
      pulled += to - from;
      controller.enqueue(bytes.slice(from, to));
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, pulled: () => pulled, cancelled: () => cancelled };
}
