// Thousands of random and adversarial inputs through every entry point of the
// built package: each call returns or throws an AgentReplayError with a code
// (a WebAssembly trap would surface as a RuntimeError and kill the instance
// for every later call), and afterwards the same instance answers correctly.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  parseLog,
  rebuildOsSnapshot,
  SessionState,
  ReplayStore,
  ReplaySession,
  AgentReplayError,
  sampleLog,
  parseCursor,
  toOtlp,
} from "agent-replay";

let seed = 0x5eed;
const rnd = (n) => {
  seed ^= seed << 13;
  seed ^= seed >>> 17;
  seed ^= seed << 5;
  return (seed >>> 0) % n;
};
const enc = new TextEncoder();
const sampleLines = sampleLog().trim().split("\n");

/** One hostile input: bytes or a string. */
function hostile() {
  switch (rnd(12)) {
    case 0:
      return Uint8Array.from({ length: rnd(300) }, () => rnd(256)); // garbage bytes
    case 1:
      return Uint8Array.from([
        ...enc.encode(sampleLines[rnd(sampleLines.length)]),
        0xff,
        0xfe,
        0xc3,
        0x28,
      ]); // invalid UTF-8
    case 2:
      return "[".repeat(1 + rnd(200_000)); // deep nesting
    case 3:
      return `{"kind":"page_in","turn":1,"entry_count":1,"x":${"[".repeat(rnd(5000))}${"]".repeat(rnd(5000))}}`;
    case 4:
      return `{"kind":"run_terminal","reason":"r","turns_used":1,"total_tokens":${"9".repeat(1 + rnd(400))}}`; // huge numbers
    case 5:
      return `{"kind":"milestone_blocked","turn":1,"phase_id":"p","reason":"${"x".repeat(rnd(2_000_000))}"}`; // huge strings
    case 6:
      return `{"kind":"${"k".repeat(rnd(100_000))}"}`;
    case 7: {
      // a real line with one byte changed, removed or added
      const b = [...enc.encode(sampleLines[rnd(sampleLines.length)])];
      const at = rnd(b.length);
      if (rnd(2)) b.splice(at, 1);
      else b[at] = rnd(256);
      return Uint8Array.from(b);
    }
    case 8:
      return (
        sampleLines.slice(0, rnd(sampleLines.length)).join(rnd(2) ? "\r\n" : "\n") +
        sampleLines[rnd(sampleLines.length)].slice(0, rnd(80))
      );
    case 9:
      return `{"seq":${rnd(3) - 1},"event":${sampleLines[rnd(sampleLines.length)]}}\n{"seq":"x"}`;
    case 10:
      return ["", "\ufeff", "\0", "null", "1e999", "-0", "[]", "{}", '"\\ud800"', "[{}]"][rnd(10)];
    default:
      return `[${sampleLines.slice(0, rnd(10)).join(",")}${rnd(2) ? "]" : ","}`;
  }
}

function cursor() {
  const parts = [
    "arc1",
    ["inc", "other", "", "a:b", "in/c"][rnd(5)],
    ["0", "007", "+5", "9007199254740992", String(rnd(10))][rnd(5)],
    String(rnd(12)),
    ["s", "", "s\n", "s\r", "s\0", "t", "s:x"][rnd(7)],
  ];
  return rnd(8)
    ? parts.join(":")
    : ["", "arc1", "arc1:inc:0:0", "x".repeat(rnd(10_000)), "\u2028"][rnd(5)];
}

/** Runs one call: it may return or throw an AgentReplayError with one of
 * `codes`, nothing else; `mustThrow` for a call on a freed object. */
function survive(fn, what, codes, mustThrow = false) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof AgentReplayError, `${what}: ${e?.name}: ${e?.message}`);
    assert.ok(codes.includes(e.code), `${what}: ${e.code}: ${e.message}`);
    return;
  }
  assert.ok(!mustThrow, `${what}: no error`);
}

/** Objects freed, then used (each use must throw `closed`). */
function freed() {
  const store = new ReplayStore({ incarnation: "inc" });
  const session = new ReplaySession("s", { store });
  const state = new SessionState("s");
  const uses = [
    () => session.append(sampleLines[0]),
    () => session.observe(),
    () => session.resume(cursor()),
    () => session.subscribe(cursor()),
    () => state.apply(hostile()),
    () => state.write(hostile()),
    () => state.view(),
    () => state.toOtlp(),
    () => state.end(),
  ];
  // The session is closed when it is freed or when its store is.
  if (rnd(2)) {
    store.free();
    uses.push(
      () => store.append("s", sampleLines[0]),
      () => store.appendLog("s", hostile()),
      () => store.replayAfter(cursor()),
      () => store.subscribe(cursor()),
      () => store.currentCursor("s"),
      () => store.trimSession("s"),
    );
  } else session.free();
  state.free();
  return uses[rnd(uses.length)];
}

/** The codes each call may throw. */
const CODES = {
  parseLog: ["invalid_log"],
  "parseLog strict": ["invalid_log"],
  rebuildOsSnapshot: ["invalid_log"],
  "rebuildOsSnapshot all": ["invalid_log"],
  "SessionState.apply": ["invalid_log"],
  "SessionState.write": ["invalid_log"],
  "ReplayStore.append": ["invalid_event", "limit_exceeded"],
  "ReplayStore.appendLog": ["invalid_session_id", "invalid_log"],
  "ReplaySession.append": ["invalid_log", "limit_exceeded"],
  replayAfter: ["malformed_cursor"],
  subscribe: ["malformed_cursor"],
  resume: ["malformed_cursor", "wrong_session"],
  "session subscribe": ["malformed_cursor", "wrong_session"],
  parseCursor: ["malformed_cursor"],
  fromObservation: ["invalid_observation", "invalid_input"],
  checkpoint: ["invalid_log"],
  "write onEvent": ["invalid_log"],
  toOtlp: ["invalid_log"],
  "toOtlp of an observation": ["invalid_observation", "invalid_input", "invalid_log"],
};

test("thousands of hostile inputs, then correct answers from the same instance", () => {
  const expected = rebuildOsSnapshot(sampleLog());
  const store = new ReplayStore({ incarnation: "inc", maxEventsPerSession: 16 });
  const session = new ReplaySession("s", { store });
  // A real view's JSON, to damage for fromObservation.
  const viewJson = JSON.stringify(new SessionState().apply(sampleLog()).view());
  const damaged = () => {
    const at = rnd(viewJson.length);
    return rnd(2)
      ? viewJson.slice(0, at)
      : viewJson.slice(0, at) + String.fromCharCode(rnd(128)) + viewJson.slice(at + 1);
  };
  let cases = 0;
  for (let i = 0; i < 6000; i++) {
    const input = hostile();
    const calls = [
      ["parseLog", () => parseLog(input)],
      ["parseLog strict", () => parseLog(input, { strict: true })],
      ["rebuildOsSnapshot", () => rebuildOsSnapshot(input)],
      ["rebuildOsSnapshot all", () => rebuildOsSnapshot(input, { validate: "all" })],
      ["SessionState.apply", () => new SessionState("s").apply(input).view()],
      ["SessionState.write", () => new SessionState().write(input).write(input).end()],
      [
        "ReplayStore.append",
        () =>
          store.append("s", typeof input === "string" ? input : new TextDecoder().decode(input)),
      ],
      ["ReplayStore.appendLog", () => store.appendLog(rnd(2) ? "s" : "s\n", input)],
      ["ReplaySession.append", () => session.append(input)],
      ["replayAfter", () => store.replayAfter(cursor())],
      ["subscribe", () => store.subscribe(cursor()).subscription?.close()],
      ["resume", () => session.resume(cursor())],
      ["session subscribe", () => session.subscribe(cursor()).close()],
      ["parseCursor", () => parseCursor(cursor())],
      [
        "fromObservation",
        () =>
          SessionState.fromObservation(
            rnd(2) ? damaged() : typeof input === "string" ? input : "{}",
          )
            .apply(sampleLines[0])
            .summary(),
      ],
      ["checkpoint", () => new SessionState().apply(input).checkpoint().apply(input).summary()],
      ["toOtlp", () => toOtlp(input, { content: rnd(2) === 1, strict: rnd(4) === 0 })],
      [
        "toOtlp of an observation",
        () => SessionState.fromObservation(damaged()).apply(input).toOtlp({ content: true }),
      ],
      [
        "write onEvent",
        () => new SessionState().write(input, { onEvent: () => {} }).end({ onEvent: () => {} }),
      ],
    ];
    const [what, fn] = calls[rnd(calls.length)];
    survive(fn, what, CODES[what] ?? []);
    if (rnd(20) === 0) survive(freed(), "freed", ["closed"], true);
    cases++;
  }
  // The same instance still answers correctly.
  assert.deepEqual(rebuildOsSnapshot(sampleLog()), expected);
  assert.equal(parseLog(sampleLog()).events.length, 78);
  const fresh = new ReplayStore({ incarnation: "after" });
  const e = fresh.append("x", { kind: "page_in", turn: 1, entry_count: 1 });
  assert.deepEqual(
    fresh.replayAfter("arc1:after:0:0:x").events.map((x) => x.cursor),
    [e.cursor],
  );
  console.log(`adversarial: ${cases} hostile calls, 0 traps`);
});
