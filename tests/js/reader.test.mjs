// js/viewer/reader.js: a log read on another thread (the viewer's reader
// worker) must reach the fold whole and in order, in pieces whose buffers
// come back, never more than the limit ahead; errors, HTTP failures and
// cancelling must reach the right end. Both ends run here over a
// MessageChannel, as the viewer runs them over a Worker.
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";
import { readThrough, serveReads } from "../../js/viewer/reader.js";
import { source, streamOf } from "./byte-streams.mjs";

/** The two ends over a MessageChannel; `open` gives the reader's streams. */
function ends({ piece, limit, open }) {
  const { port1, port2 } = new MessageChannel();
  serveReads(port1, { piece, open });
  const read = readThrough(port2, { limit });
  const close = () => {
    port1.close();
    port2.close();
  };
  return { read, close };
}

/** Every piece `next()` gives, copied, with `pause()` after each. */
async function drain(reading, pause = () => Promise.resolve()) {
  const parts = [];
  for (let piece = await reading.next(); piece; piece = await reading.next()) {
    parts.push(Buffer.from(piece));
    await pause();
  }
  return Buffer.concat(parts);
}

for (const byteStream of [true, false]) {
  const kind = byteStream ? "a byte stream" : "a stream of chunks";

  test(`${kind} read on the other end arrives whole and in order, its size first`, async () => {
    const log = source(3_000_000, 11);
    const { read, close } = ends({
      piece: 256 * 1024,
      limit: 1 << 20,
      open: async () => ({ stream: streamOf(log, { byteStream }).stream, total: log.bytes.length }),
    });
    try {
      const reading = read({ url: "log" });
      assert.deepEqual(await reading.head, { total: 3_000_000 });
      const slow = () => new Promise((resolve) => setTimeout(resolve, 1));
      assert.deepEqual(await drain(reading, slow), Buffer.from(log.bytes));
      assert.equal(await reading.next(), null, "the end stays the end");
    } finally {
      close();
    }
  });

  test(`${kind} is read ahead while the fold works, up to the limit, and stops on cancel`, async () => {
    const log = source(8_000_000, 11);
    const s = streamOf(log, { byteStream });
    const piece = 128 * 1024;
    const limit = 1 << 20;
    const { read, close } = ends({ piece, limit, open: async () => ({ stream: s.stream }) });
    try {
      const reading = read({ url: "log" });
      const first = await reading.next();
      // The fold holds its piece and works: the reading goes on, bounded.
      for (let i = 0; i < 300; i++) await new Promise((resolve) => setImmediate(resolve));
      const largestCut = Math.max(...log.cuts.map(([a, b]) => b - a));
      assert.ok(s.pulled() > limit / 2, `read ahead: ${s.pulled()} bytes`);
      assert.ok(s.pulled() <= limit + piece + largestCut, `bounded: ${s.pulled()}`);
      assert.ok(first.length <= piece);
      // Giving the piece back (asking for the next) lets the reading go on.
      const before = s.pulled();
      await reading.next();
      for (let i = 0; i < 300; i++) await new Promise((resolve) => setImmediate(resolve));
      assert.ok(s.pulled() > before, "a piece given back makes room");
      reading.cancel();
      for (let i = 0; i < 50 && !s.cancelled(); i++)
        await new Promise((resolve) => setTimeout(resolve, 2));
      assert.ok(s.cancelled(), "cancel() cancels the reader's stream");
    } finally {
      close();
    }
  });
}

test("what the reader has goes at once while the fold waits for a slow stream", async () => {
  // Two chunks far apart: the first must not wait for a piece to fill.
  let release;
  const later = new Promise((resolve) => (release = resolve));
  let step = 0;
  const stream = new ReadableStream({
    async pull(controller) {
      step += 1;
      if (step === 1) return controller.enqueue(new Uint8Array([1, 2, 3]));
      if (step === 2) {
        await later;
        return controller.enqueue(new Uint8Array([4]));
      }
      controller.close();
    },
  });
  const { read, close } = ends({ piece: 1 << 20, limit: 4 << 20, open: async () => ({ stream }) });
  try {
    const reading = read({ url: "log" });
    assert.deepEqual([...(await reading.next())], [1, 2, 3]);
    release();
    assert.deepEqual([...(await reading.next())], [4]);
    assert.equal(await reading.next(), null);
  } finally {
    close();
  }
});

test("an error of the stream is the fold's", async () => {
  const broken = new ReadableStream({
    pull(controller) {
      controller.error(new Error("the connection was reset"));
    },
  });
  const { read, close } = ends({
    piece: 1024,
    limit: 4096,
    open: async () => ({ stream: broken }),
  });
  try {
    await assert.rejects(read({ url: "log" }).next(), /connection was reset/);
  } finally {
    close();
  }
});

test("URLs are fetched (an HTTP error is the fold's) and files read, by default", async () => {
  const server = createServer((req, res) => {
    if (req.url === "/missing") res.writeHead(404).end();
    else res.writeHead(200, { "content-length": "5" }).end("hello");
  });
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const base = `http://127.0.0.1:${server.address().port}`;
  const { port1, port2 } = new MessageChannel();
  serveReads(port1, { piece: 1024 });
  const read = readThrough(port2, { limit: 4096 });
  try {
    const missing = read({ url: `${base}/missing` });
    await assert.rejects(missing.head, /\/missing: HTTP 404/);
    await assert.rejects(missing.next(), /HTTP 404/);
    const ok = read({ url: `${base}/log` });
    assert.deepEqual(await ok.head, { total: 5 });
    assert.equal((await drain(ok)).toString(), "hello");
    const file = read({ file: new File(["a file's bytes"], "log.jsonl") });
    assert.deepEqual(await file.head, { total: 14 });
    assert.equal((await drain(file)).toString(), "a file's bytes");
  } finally {
    port1.close();
    port2.close();
    server.close();
  }
});
