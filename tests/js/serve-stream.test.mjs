// `agent-replay serve` sends files by streaming them: byte-exact past the
// stream's chunk size, the first bytes before the rest is read, files past
// Node's 2 GiB whole-file read, HEAD and Range. Small files (the viewer's
// own) are read whole and sent at once, with the same answers. The viewer's
// own files carry a validator; a served log is never cached.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import {
  closeSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { serve } from "../../bin/serve.js";

const HUGE = 3 * 2 ** 30; // past the 2 GiB Node's readFile refuses
const HEAD_MARK = "first bytes";
const TAIL_MARK = "last bytes";

let dir;
let server;
let small;
let tiny;
before(async () => {
  dir = mkdtempSync(join(tmpdir(), "serve-stream-"));
  // More than twice serve's 4 MiB chunk: it is read and sent in several.
  small = randomBytes(9 * 2 ** 20 + 17);
  writeFileSync(join(dir, "small.bin"), small);
  // Under the size serve reads whole.
  tiny = randomBytes(100_003);
  writeFileSync(join(dir, "tiny.bin"), tiny);
  // A sparse file: 3 GiB long, almost nothing on disk; marked at both ends.
  const fd = openSync(join(dir, "huge.jsonl"), "w");
  writeSync(fd, HEAD_MARK, 0);
  writeSync(fd, TAIL_MARK, HUGE - TAIL_MARK.length);
  closeSync(fd);
  const files = [join(dir, "small.bin"), join(dir, "tiny.bin"), join(dir, "huge.jsonl")];
  server = await serve({ port: 0, files, demo: false });
});
after(async () => {
  await server?.close();
  rmSync(dir, { recursive: true, force: true });
});

const url = (name) => `${server.url}/files/${name}`;

test("a file larger than the stream's chunks arrives byte-exact, with its length", async () => {
  const response = await fetch(url("small.bin"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-length"), String(small.length));
  assert.equal(response.headers.get("accept-ranges"), "bytes");
  assert.ok(Buffer.from(await response.arrayBuffer()).equals(small));
});

test("a 3 GiB file streams: its first bytes arrive before the body is done", async () => {
  const events = [];
  await new Promise((resolve, reject) => {
    const req = request(url("huge.jsonl"), (res) => {
      events.push(`status ${res.statusCode}`, `length ${res.headers["content-length"]}`);
      res.once("data", (chunk) => {
        events.push(`data ${chunk.subarray(0, HEAD_MARK.length)}`);
        // Ends the exchange mid-body: what arrived so far is all the test reads.
        res.destroy();
        resolve();
      });
      res.once("end", () => {
        events.push("end");
        resolve();
      });
    });
    req.on("error", reject);
    req.end();
  });
  assert.deepEqual(events, ["status 200", `length ${HUGE}`, `data ${HEAD_MARK}`]);
  // The server is still serving, and the file's far end is reachable by a range.
  const tail = await fetch(url("huge.jsonl"), { headers: { range: `bytes=-${TAIL_MARK.length}` } });
  assert.equal(tail.status, 206);
  assert.equal(
    tail.headers.get("content-range"),
    `bytes ${HUGE - TAIL_MARK.length}-${HUGE - 1}/${HUGE}`,
  );
  assert.equal(await tail.text(), TAIL_MARK);
});

test("Range answers a slice; HEAD answers the headers only", async () => {
  const slice = async (range) => {
    const response = await fetch(url("small.bin"), { headers: { range } });
    const body = Buffer.from(await response.arrayBuffer());
    return { status: response.status, range: response.headers.get("content-range"), body };
  };
  const size = small.length;
  assert.deepEqual(await slice("bytes=0-3"), {
    status: 206,
    range: `bytes 0-3/${size}`,
    body: small.subarray(0, 4),
  });
  assert.deepEqual(await slice("bytes=100000-"), {
    status: 206,
    range: `bytes 100000-${size - 1}/${size}`,
    body: small.subarray(100000),
  });
  assert.deepEqual(await slice(`bytes=${size - 5}-${size + 100}`), {
    status: 206,
    range: `bytes ${size - 5}-${size - 1}/${size}`,
    body: small.subarray(size - 5),
  });
  const whole = await slice("bytes=0-1,5-6");
  assert.equal(whole.status, 200);
  assert.ok(whole.body.equals(small));
  assert.deepEqual(await slice(`bytes=${size}-`), {
    status: 416,
    range: `bytes */${size}`,
    body: Buffer.alloc(0),
  });
  const head = await fetch(url("small.bin"), { method: "HEAD" });
  assert.equal(head.status, 200);
  assert.equal(head.headers.get("content-length"), String(size));
  assert.equal((await head.arrayBuffer()).byteLength, 0);
  const missing = await fetch(`${server.url}/www/no-such-file.js`);
  assert.equal(missing.status, 404);
});

test("a small file, read whole, answers as a streamed one: its bytes, HEAD and Range", async () => {
  const response = await fetch(url("tiny.bin"));
  assert.equal(response.status, 200);
  assert.equal(response.headers.get("content-length"), String(tiny.length));
  assert.equal(response.headers.get("cache-control"), "no-cache");
  assert.ok(Buffer.from(await response.arrayBuffer()).equals(tiny));
  const head = await fetch(url("tiny.bin"), { method: "HEAD" });
  assert.equal(head.headers.get("content-length"), String(tiny.length));
  assert.equal((await head.arrayBuffer()).byteLength, 0);
  const slice = await fetch(url("tiny.bin"), { headers: { range: "bytes=10-19" } });
  assert.equal(slice.status, 206);
  assert.equal(slice.headers.get("content-range"), `bytes 10-19/${tiny.length}`);
  assert.ok(Buffer.from(await slice.arrayBuffer()).equals(tiny.subarray(10, 20)));
  // The viewer's own files: the .wasm typed for compileStreaming, byte-exact.
  const wasm = await fetch(`${server.url}/agent-replay/pkg/agent_replay_bg.wasm`);
  assert.equal(wasm.headers.get("content-type"), "application/wasm");
  const root = new URL("../..", import.meta.url).pathname;
  const bytes = readFileSync(join(root, "pkg/agent_replay_bg.wasm"));
  assert.ok(Buffer.from(await wasm.arrayBuffer()).equals(bytes));
});

test("the viewer's files carry an ETag (304 when it matches), a served log never", async () => {
  for (const [path, cache] of [
    ["/agent-replay/pkg/agent_replay_bg.wasm", "max-age=5"],
    ["/agent-replay/pkg/viewer-page.js", "max-age=5"],
    ["/", "no-cache"],
  ]) {
    const first = await fetch(`${server.url}${path}`);
    const etag = first.headers.get("etag");
    assert.match(etag ?? "", /^"[0-9a-z]+-[0-9a-z]+"$/, path);
    assert.equal(first.headers.get("cache-control"), cache, path);
    await first.arrayBuffer();
    const again = await fetch(`${server.url}${path}`, { headers: { "if-none-match": etag } });
    assert.equal(again.status, 304, path);
    assert.equal(again.headers.get("etag"), etag);
    assert.equal((await again.arrayBuffer()).byteLength, 0);
    const weak = await fetch(`${server.url}${path}`, {
      headers: { "if-none-match": `"other", W/${etag}` },
    });
    assert.equal(weak.status, 304, `${path}: a weak match in a list`);
    const other = await fetch(`${server.url}${path}`, { headers: { "if-none-match": '"other"' } });
    assert.equal(other.status, 200, `${path}: another tag`);
    await other.arrayBuffer();
  }
  // A log may grow while it is served: never cached, never a 304.
  for (const name of ["tiny.bin", "small.bin"]) {
    const log = await fetch(url(name), { headers: { "if-none-match": "*" } });
    assert.equal(log.status, 200);
    assert.equal(log.headers.get("etag"), null);
    assert.equal(log.headers.get("cache-control"), "no-cache");
    await log.arrayBuffer();
  }
});
