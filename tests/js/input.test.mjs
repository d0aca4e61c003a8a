// Input buffers (js/input.js, wasm/src/input.rs): bytes written straight
// into WebAssembly memory give the same results as the same bytes copied
// in; a stale or stray view of that memory, or a length past the buffer,
// is invalid_input (never a trap, never read as another input); a buffer
// counts against the memory limit.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  allocInput,
  InputBuffer,
  memoryUsage,
  parseLog,
  rebuildOsSnapshot,
  SessionIndex,
  SessionState,
  sampleLog,
  setMemoryLimit,
} from "agent-replay";

const encode = (text) => new TextEncoder().encode(text);
const sample = encode(sampleLog());
const corpus = new URL("../corpus/deepstrike-0.2.77/", import.meta.url);
const realLog = readFileSync(new URL("long_run.jsonl", corpus));
const DEFAULT_LIMIT = memoryUsage().limit_bytes;
const MB = 2 ** 20;

/** `bytes` in a fresh input buffer of `capacity` (its whole view, or the
 * prefix they fill). */
function inBuffer(bytes, capacity = bytes.length) {
  const input = allocInput(capacity);
  input.bytes.set(bytes);
  return input.bytes.subarray(0, bytes.length);
}

/** A log whose texts hold characters of two, three and four UTF-8 bytes. */
const utf8Log = encode(
  `${sampleLog().trimEnd()}\n${JSON.stringify({
    kind: "assistant_text",
    turn: 1,
    timestamp: "2026-01-01T00:00:00Z",
    text: "héllo — wörld 😀 ünïcode ✓",
  })}\n`,
);

test("rebuildOsSnapshot and SessionState.apply read a buffer as they read bytes", () => {
  for (const log of [sample, realLog, utf8Log]) {
    assert.deepEqual(rebuildOsSnapshot(inBuffer(log)), rebuildOsSnapshot(log));
    assert.deepEqual(
      rebuildOsSnapshot(inBuffer(log, log.length + 100), { validate: "all" }),
      rebuildOsSnapshot(log, { validate: "all" }),
    );
    assert.deepEqual(
      new SessionState().apply(inBuffer(log)).view(),
      new SessionState().apply(log).view(),
    );
  }
});

/** What an index answers, to compare two. */
function answers(index) {
  const n = index.eventCount;
  return {
    events: index.events(1, n),
    summary: index.summary(),
    os: index.osSnapshot(),
    errors: index.loadErrors(),
    search: index.search("wörld 😀"),
  };
}

test("SessionIndex.apply and write keep a buffer as their chunk, events and characters split across buffers", () => {
  for (const log of [sample, realLog, utf8Log]) {
    assert.deepEqual(
      answers(new SessionIndex().apply(inBuffer(log))),
      answers(new SessionIndex().apply(log)),
    );
  }
  const size = 7;
  // Some chunk boundary falls inside a character (a continuation byte starts the next chunk).
  const splits = [];
  for (let at = size; at < utf8Log.length; at += size) splits.push(utf8Log[at]);
  assert.ok(splits.some((b) => (b & 0xc0) === 0x80));
  const viaBuffers = new SessionIndex();
  const viaBytes = new SessionIndex();
  for (let at = 0; at < utf8Log.length; at += size) {
    const chunk = utf8Log.subarray(at, at + size);
    viaBuffers.write(inBuffer(chunk, size));
    viaBytes.write(chunk);
  }
  assert.deepEqual(viaBuffers.end(), viaBytes.end());
  assert.deepEqual(answers(viaBuffers), answers(viaBytes));
  assert.equal(answers(viaBuffers).search.positions.length, 1);
});

test("a buffer is used up by the call that takes it, even one that fails", () => {
  const input = allocInput(sample.length);
  input.bytes.set(sample);
  const view = input.bytes;
  rebuildOsSnapshot(view);
  assert.throws(() => input.bytes, { code: "invalid_input", message: /used after/ });
  assert.throws(() => rebuildOsSnapshot(view), {
    code: "invalid_input",
    message: /live InputBuffer/,
  });
  const bad = allocInput(10);
  bad.bytes.set(encode("{not json"));
  assert.throws(() => rebuildOsSnapshot(bad.bytes), { code: "invalid_log" });
  assert.throws(() => bad.bytes, { code: "invalid_input" });
  const freed = allocInput(10);
  const freedView = freed.bytes;
  freed.free();
  freed.free();
  assert.throws(() => new SessionIndex().write(freedView), { code: "invalid_input" });
});

test("a view made before the memory grew is refused, and the buffer still serves through a fresh one", () => {
  const input = allocInput(sample.length);
  const stale = input.bytes;
  stale.set(sample);
  const grow = allocInput(memoryUsage().wasm_memory_bytes);
  assert.equal(stale.byteLength, 0, "the memory grew and detached the view");
  for (const use of [
    () => rebuildOsSnapshot(stale),
    () => new SessionState().apply(stale),
    () => new SessionIndex().apply(stale),
    () => new SessionIndex().write(stale),
  ]) {
    assert.throws(use, { code: "invalid_input", message: /before the memory grew/ });
  }
  assert.throws(() => parseLog(stale), { code: "invalid_input", message: /InputBuffer/ });
  grow.free();
  // The bytes are where they were: only the view was stale.
  assert.deepEqual(rebuildOsSnapshot(input.bytes), rebuildOsSnapshot(sample));
});

test("a stray view of the memory, or a length past the buffer, is invalid_input; the module goes on", () => {
  const input = allocInput(100);
  assert.throws(() => rebuildOsSnapshot(input.bytes.subarray(1)), {
    code: "invalid_input",
    message: /does not start a live InputBuffer/,
  });
  const past = new Uint8Array(input.bytes.buffer, input.bytes.byteOffset, 200);
  const index = new SessionIndex();
  assert.throws(() => index.write(past), {
    code: "invalid_input",
    message: /longer than its buffer/,
  });
  // Functions that copy bytes in refuse views of the memory.
  const other = allocInput(100);
  assert.throws(() => new SessionState().write(other.bytes), { code: "invalid_input" });
  assert.throws(() => parseLog(other.bytes), { code: "invalid_input" });
  for (const bad of [0, -1, 1.5, "8", 2 ** 32]) {
    assert.throws(() => allocInput(bad), { code: "invalid_input", message: /capacity/ });
  }
  assert.ok(other instanceof InputBuffer);
  index.write(sample);
  assert.equal(index.end().errors.length, 0);
  assert.deepEqual(rebuildOsSnapshot(sample), rebuildOsSnapshot(inBuffer(sample)));
});

test("a buffer counts against the memory limit; one past it is limit_exceeded", (t) => {
  const before = memoryUsage().allocated_bytes;
  const input = allocInput(4 * MB);
  assert.ok(memoryUsage().allocated_bytes >= before + 4 * MB);
  setMemoryLimit(memoryUsage().allocated_bytes + 2 * MB);
  t.after(() => setMemoryLimit(DEFAULT_LIMIT));
  assert.throws(() => allocInput(4 * MB), { code: "limit_exceeded" });
  input.free();
  assert.ok(memoryUsage().allocated_bytes < before + MB);
  const fits = allocInput(MB);
  fits.bytes.set(sample);
  assert.deepEqual(
    rebuildOsSnapshot(fits.bytes.subarray(0, sample.length)),
    rebuildOsSnapshot(sample),
  );
});
