// js/viewer/read-ahead.js: what the viewer's worker folds must be the
// stream's bytes, whole and in order, however the stream cuts them and
// however far the reading runs ahead of the fold.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readAhead } from "../../js/viewer/read-ahead.js";
import { source, streamOf } from "./byte-streams.mjs";

/** Every chunk `next()` gives, copied (a chunk is valid until the next
 * call), with a pause of the consumer's after each. */
async function drain(ahead, pause = () => Promise.resolve()) {
  const parts = [];
  for (let chunk = await ahead.next(); chunk; chunk = await ahead.next()) {
    parts.push(chunk.slice());
    await pause();
  }
  return Buffer.concat(parts);
}

for (const byteStream of [true, false]) {
  const kind = byteStream ? "a byte stream" : "a stream of chunks";

  test(`${kind} read ahead arrives whole and in order`, async () => {
    const log = source(3_000_000);
    const { stream } = streamOf(log, { byteStream });
    const ahead = readAhead(stream, { limit: 1 << 20 });
    const slow = () => new Promise((resolve) => setTimeout(resolve, 1));
    assert.deepEqual(await drain(ahead, slow), Buffer.from(log.bytes));
    assert.equal(await ahead.next(), null, "the end stays the end");
  });

  test(`${kind} is read ahead while the consumer works, up to the limit`, async () => {
    const log = source(8_000_000);
    const s = streamOf(log, { byteStream });
    const limit = 1 << 20;
    const ahead = readAhead(s.stream, { limit });
    const first = await ahead.next();
    // The consumer holds its chunk and works: the reading goes on.
    for (let i = 0; i < 200; i++) await new Promise((resolve) => setImmediate(resolve));
    const largestCut = Math.max(...log.cuts.map(([a, b]) => b - a));
    assert.ok(s.pulled() > first.length + limit / 2, `read ahead: ${s.pulled()} bytes`);
    assert.ok(s.pulled() <= first.length + limit + largestCut, `bounded: ${s.pulled()}`);
    ahead.cancel();
    await new Promise((resolve) => setTimeout(resolve, 5));
    assert.ok(s.cancelled(), "cancel() cancels the stream");
  });
}

test("an error of the stream is the consumer's", async () => {
  const stream = new ReadableStream({
    pull(controller) {
      controller.error(new Error("the connection was reset"));
    },
  });
  await assert.rejects(readAhead(stream).next(), /connection was reset/);
});
