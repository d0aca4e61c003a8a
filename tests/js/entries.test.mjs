// StoredEntryReader: stored entries read as entries through the core's
// reader, however the bytes are cut into chunks; and the file store and the
// directory follower read them through the core, with no entry parsing of
// their own.
import { test } from "node:test";
import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  AgentReplayError,
  ReplaySession,
  SessionState,
  StoredEntryReader,
  parseCursor,
  sampleLog,
} from "agent-replay";
import { DirectoryFollower } from "../../bin/follow-dir.js";

const encoder = new TextEncoder();
const EV0 = '{"kind":"session_started","turn":0}';
const EV1 = '{"kind":"agent_message","turn":1,"text":"héllo ✓ 🎉"}';
const LINE0 = `{"seq":0,"key":"batch-1","count":2,"event":${EV0}}\n`;
const LINE1 = `{"seq":1,"event":${EV1},"writer":{"version":2}}\n`;
const LOG = encoder.encode(LINE0 + LINE1);

/** Everything a reader gives for `chunks`, then its end. */
function readAll(chunks, options) {
  const reader = new StoredEntryReader(options);
  try {
    const entries = [];
    const errors = [];
    for (const chunk of chunks) {
      const read = reader.write(chunk);
      entries.push(...read.entries);
      errors.push(...read.errors);
    }
    const last = reader.end();
    return { entries: [...entries, ...last.entries], errors: [...errors, ...last.errors], last };
  } finally {
    reader.free();
  }
}

test("entries: seq, the event's text as stored, the line's place, key and count", () => {
  const { entries, errors } = readAll([LOG]);
  assert.deepEqual(errors, []);
  const first = encoder.encode(LINE0).length;
  assert.deepEqual(entries, [
    { seq: 0, text: EV0, offset: 0, length: first, key: "batch-1", count: 2 },
    // A field a newer writer adds is skipped.
    { seq: 1, text: EV1, offset: first, length: LOG.length - first },
  ]);
});

test("every cut into two chunks, inside a line or a UTF-8 character, reads the same", () => {
  const whole = readAll([LOG]);
  const emoji = LOG.indexOf(0xf0);
  assert.ok(emoji > 0, "the log holds a four-byte character");
  for (let at = 0; at <= LOG.length; at++) {
    const cut = readAll([LOG.subarray(0, at), LOG.subarray(at)]);
    assert.deepEqual(cut, whole, `cut at ${at}`);
  }
  const bytewise = Array.from({ length: LOG.length }, (_, i) => LOG.subarray(i, i + 1));
  assert.deepEqual(readAll(bytewise), whole);
});

test("a line is given once it is whole; seq and offset can start anywhere", () => {
  const reader = new StoredEntryReader({ seq: 41, offset: 5000 });
  try {
    const line = `{"seq":41,"event":${EV0}}\n`;
    assert.deepEqual(reader.write(line.slice(0, 10)), { entries: [], errors: [] });
    const { entries, errors } = reader.write(`${line.slice(10)}{"seq":42`);
    assert.deepEqual(errors, []);
    assert.deepEqual(entries, [{ seq: 41, text: EV0, offset: 5000, length: line.length }]);
  } finally {
    reader.free();
  }
});

test("a bad line is a positioned error, skipped; seq gaps and disorder keep their entries", () => {
  const lines = [
    `{"seq":0,"event":${EV0}}`,
    "not an entry",
    `{"seq":"one","event":${EV0}}`,
    `{"seq":3,"event":${EV0}}`,
    `{"seq":2,"event":${EV0}}`,
  ];
  const { entries, errors } = readAll([`${lines.join("\n")}\n`]);
  assert.deepEqual(
    entries.map((e) => e.seq),
    [0, 3, 2],
  );
  const offsetOf = (i) => lines.slice(0, i).join("\n").length + (i > 0 ? 1 : 0);
  assert.deepEqual(
    errors.map((e) => [e.offset, e.line, e.code]),
    [
      [offsetOf(1), 2, "invalid_json"],
      [offsetOf(2), 3, "invalid_entry"],
      [offsetOf(3), 4, "seq_gap"],
      [offsetOf(4), 5, "seq_disorder"],
    ],
  );
  assert.equal(errors[1].field, "seq");
  assert.equal(entries[1].offset, offsetOf(3));
});

test("a torn last line is `truncated` at end(); a whole bad last line is not", () => {
  const torn = `${LINE0}{"seq":1,"event":{"kind":"agent_mes`;
  const reader = new StoredEntryReader();
  try {
    assert.deepEqual(reader.write(torn).errors, []);
    const { entries, errors } = reader.end();
    assert.deepEqual(entries, []);
    assert.deepEqual(
      errors.map((e) => [e.offset, e.code]),
      [[encoder.encode(LINE0).length, "truncated"]],
    );
  } finally {
    reader.free();
  }
  assert.equal(readAll([`${torn}\n`]).errors[0].code, "invalid_json");
  assert.equal(readAll([`${LINE0}garbage`]).last.errors[0].code, "invalid_json");
  // An unterminated last line that is whole is an entry.
  const whole = readAll([LINE1.trimEnd()], { seq: 1 });
  assert.deepEqual(whole.last.errors, []);
  assert.equal(whole.last.entries[0].text, EV1);
});

test("a seq past 2^53-1 arrives as an exact string", () => {
  const { entries, errors } = readAll([`{"seq":9007199254740993,"event":${EV0}}\n`]);
  assert.equal(entries[0].seq, "9007199254740993");
  assert.equal(errors[0].code, "seq_gap");
});

test("bad options and use after free() throw with a code", () => {
  assert.throws(() => new StoredEntryReader({ seq: -1 }), { code: "invalid_input" });
  assert.throws(() => new StoredEntryReader({ offset: 1.5 }), { code: "invalid_input" });
  const reader = new StoredEntryReader();
  assert.throws(() => reader.write(42), { code: "invalid_input" });
  reader.free();
  assert.throws(
    () => reader.write(LOG),
    (e) => e instanceof AgentReplayError && e.code === "closed",
  );
});

/** The regular expression literals of a JS source (comments and strings aside, roughly). */
function regexLiterals(source) {
  const code = source.replace(/\/\*[\s\S]*?\*\//g, "").replace(/^\s*\/\/.*$/gm, "");
  return code.match(/(?<=[=(,:!&|?;]\s*)\/(?:\\.|\[(?:\\.|[^\]])*\]|[^/\\\n])+\/[dgimsuy]*/g) ?? [];
}

test("the file store and the directory follower have no entry parsing of their own", () => {
  for (const path of ["js/file-store.js", "bin/follow-dir.js"]) {
    const source = readFileSync(new URL(`../../${path}`, import.meta.url), "utf8");
    const entryRegexes = regexLiterals(source).filter((r) => /seq|event/.test(r));
    assert.deepEqual(entryRegexes, [], `${path} parses entries itself`);
    assert.doesNotMatch(source, /JSON\.parse\([^)]*line/, `${path} parses lines itself`);
  }
  const store = readFileSync(new URL("../../js/file-store.js", import.meta.url), "utf8");
  assert.match(store, /new StoredEntryReader\(/);
  // The check itself finds the regex the file store had.
  const before = 'const ENTRY =\n  /^\\{"seq":(0|[1-9][0-9]*),"event":(\\{.*\\})\\}$/s;';
  assert.equal(regexLiterals(before).length, 1);
});

/** The sample as stored entries, with a bad line and a seq gap among them. */
function storedSample() {
  const lines = sampleLog().trimEnd().split("\n");
  const stored = lines.map((line, i) => `{"seq":${i < 10 ? i : i + 1},"event":${line}}`);
  stored.splice(6, 0, "not an entry");
  return { events: lines, log: encoder.encode(`${stored.join("\n")}\n`) };
}

test("ReplaySession.write: a log in chunks, each event appended and folded as read", async () => {
  const { events, log } = storedSample();
  const session = new ReplaySession("s1");
  const state = new SessionState("s1");
  try {
    const start = session.observe().cursor;
    const live = session.subscribe(start)[Symbol.asyncIterator]();
    // Cuts inside lines and inside characters; the seq is checked across them.
    for (let at = 0; at < log.length; at += 61) {
      session.write(log.subarray(at, at + 61));
      state.write(log.subarray(at, at + 61));
    }
    session.end();
    state.end();
    const first = await live.next(); // woken by the write
    assert.equal(first.value.json, events[0]);
    const view = session.observe().state;
    assert.deepEqual(view, state.view());
    assert.deepEqual(
      view.load_errors.map((e) => e.code),
      ["invalid_json", "seq_gap"],
    );
    const replayed = session.resume(start);
    assert.deepEqual(
      replayed.events.map((e) => [e.position, e.json]),
      events.map((json, i) => [i + 1, json]),
    );
    await live.return();
  } finally {
    session.free();
    state.free();
  }
});

test("ReplaySession.write: an event the store refuses stops the log there", () => {
  const small = '{"kind":"page_in","turn":1,"entry_count":1}';
  const large = `{"kind":"page_in","turn":2,"entry_count":1,"pad":"${"x".repeat(300)}"}`;
  const session = new ReplaySession("s2", { maxEventBytes: 200 });
  try {
    assert.throws(() => session.write(`${small}\n${large}\n${small}\n`), {
      code: "limit_exceeded",
    });
    // The store and the state hold the first event only.
    assert.equal(session.observe().state.event_count, 1);
    assert.equal(parseCursor(session.observe().cursor).position, 1);
    assert.throws(() => session.write(`${small}\n`), { code: "limit_exceeded" });
  } finally {
    session.free();
  }
});

test("a directory's held session is its file read once, load errors and all", async () => {
  const dir = mkdtempSync(join(tmpdir(), "entries-follow-"));
  const { log } = storedSample();
  writeFileSync(join(dir, "run.jsonl"), log);
  const follower = await new DirectoryFollower(dir, { watch: false, chunkBytes: 97 }).start();
  const state = new SessionState("run");
  try {
    const session = await follower.session("run");
    state.apply(log);
    assert.deepEqual(session.observe().state, state.view());
    const row = follower.list()[0];
    assert.equal(row.errors.load_errors, 2);
    assert.equal(row.events, state.eventCount);
  } finally {
    follower.close();
    state.free();
    rmSync(dir, { recursive: true, force: true });
  }
  // It writes the file's chunks to the session: no event texts collected to append again.
  const source = readFileSync(new URL("../../bin/follow-dir.js", import.meta.url), "utf8");
  assert.doesNotMatch(source, /onEvent|\.append\(/);
});
