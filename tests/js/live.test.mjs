// The live replay store, subscriptions and session handle through the package.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  ReplayStore,
  ReplaySession,
  SessionState,
  AgentReplayError,
  parseLog,
  sampleLog,
} from "agent-replay";

const ev = (turn) => ({ kind: "page_in", turn, entry_count: 1 });
const clock = () => {
  const c = { t: 0 };
  c.now = () => c.t;
  return c;
};

test("append, cursors and replay after a cursor", () => {
  const store = new ReplayStore({ incarnation: "inc" });
  const first = store.append("tenant:a:1", ev(3));
  assert.deepEqual(
    {
      session_id: first.session_id,
      revision: first.revision,
      position: first.position,
      cursor: first.cursor,
    },
    { session_id: "tenant:a:1", revision: 3, position: 1, cursor: "arc1:inc:3:1:tenant:a:1" },
  );
  assert.deepEqual(first.event, ev(3));
  const text = '{"kind":"page_out",  "turn":4}';
  assert.equal(store.append("tenant:a:1", text).json, text, "the original text, byte for byte");
  assert.equal(store.currentCursor("tenant:a:1"), "arc1:inc:4:2:tenant:a:1");
  const replay = store.replayAfter(first.cursor);
  assert.equal(replay.type, "replayed");
  assert.deepEqual(
    replay.events.map((e) => [e.position, e.json]),
    [[2, text]],
  );
  assert.deepEqual(
    JSON.parse(JSON.stringify(replay.events[0])).event,
    { kind: "page_out", turn: 4 },
    "event serialises",
  );
  assert.equal(store.append("tenant:a:1", ev(1), 99).revision, 99);
  assert.equal(store.incarnation, "inc");
  // The cursor of an append (formatted on first use) is the one of its replay.
  assert.equal(store.append("tenant:a:1", ev(5)).cursor, store.currentCursor("tenant:a:1"));
  assert.equal(
    store.replayAfter(first.cursor).events.at(-1).cursor,
    store.currentCursor("tenant:a:1"),
  );
});

test("events cross in one wire: any session id, non-ASCII texts, cursors from the core", () => {
  const store = new ReplayStore({ incarnation: "inc" });
  const id = 'a"\\é💥:b';
  const text = '{"kind":"page_out","turn":4,"x":"💥é"}';
  const appended = [store.append(id, text), store.append(id, ev(5))];
  const replayed = store.replayAfter(`arc1:inc:0:0:${id}`).events;
  assert.deepEqual(
    replayed.map((e) => [e.session_id, e.position, e.revision, e.json, e.cursor]),
    appended.map((e) => [id, e.position, e.revision, e.json, e.cursor]),
  );
  assert.equal(replayed[1].cursor, `arc1:inc:5:2:${id}`);
  assert.equal(replayed[0].json, text);
  const session = new ReplaySession(id, { store });
  const [e] = session.append(text);
  assert.deepEqual([e.json, e.cursor], [text, session.observe().cursor]);
});

test("gaps: trimmed by capacity and age, unavailable for foreign cursors", () => {
  const c = clock();
  const store = new ReplayStore({
    maxEventsPerSession: 2,
    maxAgeMs: 1000,
    now: c.now,
    incarnation: "inc",
  });
  for (let t = 1; t <= 3; t++) store.append("s", ev(t));
  assert.deepEqual(store.replayAfter("arc1:inc:0:0:s"), { type: "gap", reason: "trimmed" });
  assert.deepEqual(
    store.replayAfter("arc1:inc:0:1:s").events.map((e) => e.position),
    [2, 3],
  );
  assert.deepEqual(store.replayAfter("arc1:other:0:1:s"), { type: "gap", reason: "unavailable" });
  assert.deepEqual(store.replayAfter("arc1:inc:0:9:s"), { type: "gap", reason: "unavailable" });
  assert.deepEqual(store.replayAfter("arc1:inc:0:0:never"), { type: "replayed", events: [] });
  c.t = 1000;
  assert.equal(
    store.replayAfter("arc1:inc:0:1:s").type,
    "replayed",
    "exactly maxAgeMs old is kept",
  );
  c.t = 1001;
  assert.deepEqual(store.replayAfter("arc1:inc:0:1:s"), { type: "gap", reason: "trimmed" });
  assert.deepEqual(store.replayAfter("arc1:inc:3:3:s"), { type: "replayed", events: [] });
});

test("bad cursors, session ids, events and options throw coded errors", () => {
  const store = new ReplayStore();
  for (const bad of [
    "",
    "arc1:x:007:0:s",
    "arc1:x:+5:0:s",
    "arc1:x:0:0:",
    "nope",
    "arc1:x:9007199254740992:0:s",
    "arc1:x:0:0:s\n",
  ]) {
    assert.throws(() => store.replayAfter(bad), { code: "malformed_cursor" }, bad);
  }
  assert.throws(() => store.append("", ev(1)), { code: "invalid_session_id" });
  assert.throws(() => store.append("a\rb", ev(1)), { code: "invalid_session_id" });
  assert.throws(() => store.append("s", { kind: "page_in" }), { code: "invalid_event" });
  assert.throws(() => new ReplayStore({ incarnation: "has:colon" }), { code: "invalid_input" });
  assert.throws(() => new ReplayStore({ maxEventsPerSession: 0 }), { code: "invalid_input" });
  assert.equal(store.append("s", ev(1)).position, 1, "still usable");
});

test("the default incarnation is random and URL-safe", () => {
  const a = new ReplayStore().incarnation;
  const b = new ReplayStore().incarnation;
  assert.notEqual(a, b);
  assert.match(a, /^[A-Za-z0-9_-]{22}$/);
});

test("appendLog appends every valid event and lists the errors", () => {
  const store = new ReplayStore({ incarnation: "i" });
  const r = store.appendLog(
    "s",
    `${JSON.stringify(ev(1))}\n{"kind":"page_in"}\n${JSON.stringify(ev(2))}\n`,
  );
  assert.equal(r.appended, 2);
  assert.equal(r.errors[0].line, 2);
  assert.equal(r.cursor, "arc1:i:2:2:s");
});

test("subscription: buffered then live, sync next and for await", async () => {
  const store = new ReplayStore({ incarnation: "i" });
  store.append("s", ev(1));
  store.append("s", ev(2));
  const { type, subscription } = store.subscribe("arc1:i:0:1:s");
  assert.equal(type, "subscribed");
  store.append("s", ev(3)); // between subscribe and the first read
  assert.equal(subscription.next().position, 2);
  const seen = [];
  const reader = (async () => {
    for await (const item of subscription) {
      seen.push(item.position);
      if (item.position === 6) break;
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  store.append("other", ev(1));
  for (let t = 4; t <= 6; t++) {
    store.append("s", ev(t));
    await new Promise((r) => setTimeout(r, 1));
  }
  await reader;
  assert.deepEqual(seen, [3, 4, 5, 6]);
  assert.equal(subscription.closed, true, "breaking out of for-await closes it");
});

test("subscription lag: the exact dropped count and a resume cursor", () => {
  const store = new ReplayStore({ maxEventsPerSession: 3, incarnation: "i" });
  const { subscription } = store.subscribe("arc1:i:0:0:s");
  store.append("s", ev(1));
  assert.equal(subscription.next().position, 1);
  for (let t = 2; t <= 6; t++) store.append("s", ev(t));
  assert.deepEqual(subscription.next(), {
    type: "lagged",
    dropped: 2,
    resume_cursor: "arc1:i:1:1:s",
  });
  assert.deepEqual(
    [subscription.next(), subscription.next(), subscription.next()].map((e) => e.position),
    [4, 5, 6],
  );
  assert.equal(subscription.next(), undefined);
});

test("close and freeing the store end subscriptions, also a waiting for-await", async () => {
  const store = new ReplayStore({ incarnation: "i" });
  const a = store.subscribe("arc1:i:0:0:s").subscription;
  const b = store.subscribe("arc1:i:0:0:s").subscription;
  a.close();
  store.append("s", ev(1));
  assert.equal(a.next(), undefined);
  assert.equal(a.closed, true);
  const waiting = (async () => {
    const got = [];
    for await (const item of b) got.push(item.position);
    return got;
  })();
  await new Promise((r) => setTimeout(r, 5));
  store.free();
  assert.deepEqual(await waiting, [1]);
  assert.throws(() => store.append("s", ev(2)), { code: "closed" });
});

test("ReplaySession: append, observe, resume replayed and resume gap", () => {
  const lines = sampleLog().trim().split("\n");
  const session = new ReplaySession("run:7f3a", { maxEventsPerSession: 4096, incarnation: "i" });
  const client = new SessionState("run:7f3a");
  for (const e of session.append(lines.slice(0, 20).join("\n"))) client.apply(e.json);
  const cursor = session.observe().cursor;
  session.append(parseLog(lines.slice(20).join("\n")).events);
  const resumed = session.resume(cursor);
  assert.equal(resumed.type, "replayed");
  for (const e of resumed.events) client.apply(e.json);
  const observation = session.observe();
  assert.equal(resumed.cursor, observation.cursor);
  assert.deepEqual(client.view(), observation.state);
  assert.equal(observation.revision, 7);
  assert.deepEqual(session.summary(), client.summary(), "summary() is the state's summary");
  assert.equal(session.summary().event_count, lines.length);

  const small = new ReplaySession("s", { maxEventsPerSession: 2, incarnation: "i" });
  const start = small.observe().cursor;
  small.append(lines.slice(0, 10));
  const gap = small.resume(start);
  assert.equal(gap.type, "gap");
  assert.equal(gap.gap.reason, "trimmed");
  assert.equal(gap.gap.latest_cursor, gap.observation.cursor);
  assert.equal(gap.observation.state.event_count, 10);
});

test("ReplaySession rejects malformed and foreign cursors, and bad appends append nothing", () => {
  const session = new ReplaySession("s", { incarnation: "i" });
  assert.throws(
    () => session.resume("arc1:i:0:0:t"),
    (e) => e instanceof AgentReplayError && e.code === "wrong_session",
  );
  assert.throws(() => session.resume("bad"), { code: "malformed_cursor" });
  assert.throws(() => session.subscribe("arc1:i:0:0:t"), { code: "wrong_session" });
  assert.throws(() => session.append([ev(1), { kind: "page_in" }]), { code: "invalid_log" });
  assert.equal(session.observe().state.event_count, 0);
  assert.equal(session.observe().cursor, "arc1:i:0:0:s");
});

test("ReplaySession.subscribe: gap with observation, then live, with for await", async () => {
  const session = new ReplaySession("s", { maxEventsPerSession: 2, incarnation: "i" });
  const start = session.observe().cursor;
  session.append([ev(1), ev(2), ev(3)]);
  const sub = session.subscribe(start);
  const items = [];
  const reader = (async () => {
    for await (const item of sub) {
      items.push(item);
      if (items.length === 3) break;
    }
  })();
  await new Promise((r) => setTimeout(r, 5));
  session.append(ev(4));
  await new Promise((r) => setTimeout(r, 1));
  session.append(ev(5));
  await reader;
  assert.equal(items[0].type, "gap");
  assert.equal(items[0].observation.state.event_count, 3);
  assert.equal(items[0].gap.latest_cursor, "arc1:i:3:3:s");
  assert.deepEqual(
    items.slice(1).map((e) => e.position),
    [4, 5],
  );
});

test("parseCursor reads the cursors the store makes, and refuses others", async () => {
  const { parseCursor } = await import("agent-replay");
  const store = new ReplayStore({ incarnation: "inc-1" });
  const e = store.append("a:b", '{"kind":"page_in","turn":4,"entry_count":1}');
  assert.deepEqual(parseCursor(e.cursor), {
    incarnation: "inc-1",
    revision: 4,
    position: 1,
    session_id: "a:b",
  });
  for (const bad of ["", "arc1:x", "arc1:inc:01:1:s", "arc1:inc:1:1:", 5]) {
    assert.throws(
      () => parseCursor(bad),
      (err) => err instanceof AgentReplayError && err.code === "malformed_cursor",
      String(bad),
    );
  }
});

test("every object used after free() throws closed, as documented", () => {
  const closed = (fn, what) =>
    assert.throws(fn, (e) => e instanceof AgentReplayError && e.code === "closed", what);
  const store = new ReplayStore({ incarnation: "i" });
  const session = new ReplaySession("s", { store });
  session.append(ev(1));
  const sessionSub = session.subscribe("arc1:i:0:0:s");
  const { subscription } = store.subscribe("arc1:i:0:0:s");
  session.free();
  session.free();
  for (const [what, fn] of Object.entries({
    append: () => session.append(ev(2)),
    observe: () => session.observe(),
    summary: () => session.summary(),
    resume: () => session.resume("arc1:i:0:0:s"),
    subscribe: () => session.subscribe("arc1:i:0:0:s"),
  }))
    closed(fn, `ReplaySession.${what}`);
  assert.equal(session.sessionId, "s");

  const other = new ReplaySession("t", { store });
  store.free();
  store.free();
  for (const [what, fn] of Object.entries({
    append: () => store.append("s", ev(2)),
    appendLog: () => store.appendLog("s", JSON.stringify(ev(2))),
    currentCursor: () => store.currentCursor("s"),
    replayAfter: () => store.replayAfter("arc1:i:0:0:s"),
    subscribe: () => store.subscribe("arc1:i:0:0:s"),
    trimSession: () => store.trimSession("s"),
    incarnation: () => store.incarnation,
    "ReplaySession of a freed store: append": () => other.append(ev(1)),
    "ReplaySession of a freed store: observe": () => other.observe(),
  }))
    closed(fn, `ReplayStore.${what}`);
  // Subscriptions end (they are not freed): every item is read, then nothing.
  assert.equal(subscription.next().position, 1);
  assert.equal(subscription.next(), undefined);
  assert.equal(subscription.closed, true);
  sessionSub.close();
  assert.equal(sessionSub.next(), undefined);
  assert.equal(sessionSub.closed, true);

  const state = new SessionState("s");
  state.free();
  state.free();
  for (const [what, fn] of Object.entries({
    apply: () => state.apply(ev(1)),
    write: () => state.write("x"),
    end: () => state.end(),
    checkpoint: () => state.checkpoint(),
    summary: () => state.summary(),
    osSnapshot: () => state.osSnapshot(),
    view: () => state.view(),
    eventCount: () => state.eventCount,
    revision: () => state.revision,
  }))
    closed(fn, `SessionState.${what}`);
});

test("appendLog reports each event the store refuses, with its position and code", () => {
  const small = JSON.stringify(ev(1));
  const store = new ReplayStore({ incarnation: "i", maxEventBytes: small.length });
  const big = JSON.stringify({ ...ev(2), entry_count: 12345 });
  const result = store.appendLog("s", `${small}\n  ${big}\n${small}\n${big}`);
  assert.equal(result.appended, 2, "nothing valid lost");
  assert.deepEqual(
    result.errors.map(({ line, column, code }) => ({ line, column, code })),
    [
      { line: 2, column: 3, code: "limit_exceeded" },
      { line: 4, column: 1, code: "limit_exceeded" },
    ],
  );
  assert.match(result.errors[0].message, /maxEventBytes/);
  assert.equal(result.errors[0].kind, "page_in");
  assert.equal(result.cursor, "arc1:i:1:2:s");
  const array = store.appendLog("a", `[${small},\n${big}]`);
  assert.deepEqual(
    array.errors.map(({ line, column, code }) => [line, column, code]),
    [[2, 1, "limit_exceeded"]],
  );
});

test("a new session when every session held has a subscriber: store_full", () => {
  const store = new ReplayStore({ incarnation: "i", maxSessions: 1 });
  const { subscription } = store.subscribe("arc1:i:0:0:held");
  store.append("held", ev(1));
  assert.throws(() => store.append("new", ev(1)), { code: "store_full" });
  assert.throws(() => store.appendLog("new", JSON.stringify(ev(1))), { code: "store_full" });
  assert.throws(() => new ReplaySession("new", { store }).append(ev(1)), { code: "store_full" });
  subscription.close();
  assert.equal(store.append("new", ev(1)).position, 1, "room again once idle");
});

test("holds: a session the store has, not one it never saw or evicted", () => {
  const store = new ReplayStore({ incarnation: "i", maxSessions: 1 });
  store.append("a", ev(1));
  assert.equal(store.holds("a"), true);
  assert.equal(store.holds("b"), false, "never seen");
  store.append("b", ev(1));
  assert.deepEqual([store.holds("a"), store.holds("b")], [false, true], "a evicted for b");
  assert.throws(() => store.holds(42), { code: "invalid_session_id" });
  store.free();
  assert.throws(() => store.holds("b"), { code: "closed" });
});
