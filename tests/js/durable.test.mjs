// Durable sessions over the file store (js/durable.js, js/file-store.js):
// restarts go on at the same positions, old cursors replay exactly what they
// missed, torn lines are dropped, retention gives the gap, memory stays
// bounded; and `agent-replay serve --data` killed with SIGKILL mid-stream
// loses no acknowledged event for its EventSource clients.
import { test } from "node:test";
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import assert from "node:assert/strict";
import { appendFileSync, readFileSync, readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import {
  DurableSessions,
  memoryUsage,
  parseCursor,
  parseLog,
  ReplaySession,
  ReplayStore,
} from "agent-replay";
import { fileStore } from "../../js/file-store.js";
import { server, tempDir } from "./durable-local.mjs";
import { ev, killScenario } from "./durable-scenario.mjs";
import { startServe } from "./durable-servers.mjs";

const run = promisify(execFile);

const post = (request, id, body) => request(`${id}/events`, { method: "POST", body });
const json = async (response) => (await response).json();
const cursorAt = (cursor, position) => {
  const { incarnation, session_id } = parseCursor(cursor);
  return `arc1:${incarnation}:${position}:${position}:${session_id}`;
};
const resume = (request, id, cursor) =>
  json(request(`${id}/events?cursor=${encodeURIComponent(cursor)}`));

test("a restart goes on at the same positions and replays what a cursor missed", async (t) => {
  const dir = tempDir(t);
  const before = server(dir, { checkpointEvery: 3 });
  for (let turn = 1; turn <= 7; turn++)
    assert.equal((await post(before, "s", ev(turn))).status, 200);
  const observed = await json(before("s"));
  const old = cursorAt(observed.cursor, 2);

  const after = server(dir, { checkpointEvery: 3 });
  assert.deepEqual(await json(after("s")), observed, "the same state, revision and cursor");
  const replayed = await resume(after, "s", old);
  assert.equal(replayed.type, "replayed");
  assert.deepEqual(
    replayed.events.map((e) => [e.position, e.event.turn]),
    [3, 4, 5, 6, 7].map((p) => [p, p]),
  );
  const next = await json(post(after, "s", ev(8)));
  assert.equal(parseCursor(next.cursor).position, 8);
  // A cursor of another session never reads this one's storage.
  const foreign = await after(`other/events?cursor=${encodeURIComponent(old)}`);
  assert.equal(foreign.status, 400);
  assert.equal((await foreign.json()).error.code, "wrong_session");
  // The file is a FileSessionLog: seq from 0, every event once.
  const log = readFileSync(join(dir, "s.jsonl"), "utf8");
  assert.match(log, /^\{"seq":0,"event":\{"kind":"page_out","turn":1,"message_count":1\}\}\n/);
  const parsed = parseLog(log, { strict: true });
  assert.deepEqual(
    parsed.events.map((e) => e.turn),
    [1, 2, 3, 4, 5, 6, 7, 8],
  );
});

test("a session holding an event of a kind this version does not know restarts", async (t) => {
  const dir = tempDir(t);
  const before = server(dir, { checkpointEvery: 2 });
  const body = [ev(1), '{"kind":"a_future_kind","turn":2,"detail":{"x":1}}', ev(3)].join("\n");
  assert.equal((await post(before, "s", body)).status, 200);
  const observed = await json(before("s"));
  assert.deepEqual(await json(server(dir)("s")), observed);
});

test("a restart reads the checkpoint and the retained window, not the whole log", async (t) => {
  const dir = tempDir(t);
  const options = { checkpointEvery: 3, retention: { events: 2 } };
  const before = server(dir, options);
  for (let turn = 1; turn <= 10; turn++) await post(before, "s", ev(turn));
  const observed = await json(before("s"));
  // Lines 1 to 5 made unreadable: a restart that read them would fail.
  const path = join(dir, "s.jsonl");
  const lines = readFileSync(path, "utf8").split("\n");
  const spoiled = lines.map((line, i) => (i < 5 ? "x".repeat(line.length) : line));
  writeFileSync(path, spoiled.join("\n"));
  const after = server(dir, options);
  assert.deepEqual(await json(after("s")), observed);
  const replayed = await resume(after, "s", cursorAt(observed.cursor, 8));
  assert.deepEqual(
    replayed.events.map((e) => e.position),
    [9, 10],
  );
});

test("a torn last line is dropped, never read as half an event", async (t) => {
  const dir = tempDir(t);
  const before = server(dir);
  for (let turn = 1; turn <= 3; turn++) await post(before, "s", ev(turn));
  const observed = await json(before("s"));
  const path = join(dir, "s.jsonl");
  const whole = readFileSync(path, "utf8");
  appendFileSync(path, '{"seq":3,"event":{"kind":"page_out","tu');
  const after = server(dir);
  assert.deepEqual(await json(after("s")), observed, "the torn line is not an event");
  assert.equal(readFileSync(path, "utf8"), whole, "and it is cut off");
  await post(after, "s", ev(4));
  assert.deepEqual(
    parseLog(readFileSync(path, "utf8"), { strict: true }).events.map((e) => e.turn),
    [1, 2, 3, 4],
  );
  // An append with an invalid event writes nothing.
  const refused = await post(after, "s", `${ev(5)}\n{"kind":"page_out","turn":`);
  assert.equal(refused.status, 400);
  assert.equal(parseLog(readFileSync(path, "utf8")).events.length, 4);
});

test("retention: a cursor past the retained events, by count, bytes or age, gets the gap", async (t) => {
  const cases = [
    { retention: { events: 3 } },
    { retention: { bytes: 3 * ev(10).length } },
    { retention: { ageMs: 1000 }, checkpointEvery: 1, clock: true },
  ];
  for (const { retention, checkpointEvery, clock } of cases) {
    const dir = tempDir(t);
    let now = 0;
    const storeOptions = clock ? { now: () => now } : {};
    const before = server(dir, { retention, checkpointEvery, storeOptions });
    for (let turn = 1; turn <= 10; turn++) {
      now = turn <= 7 ? 0 : 5000;
      await post(before, "s", ev(turn));
    }
    now = 5500;
    const { cursor } = await json(before("s"));
    const after = server(dir, { retention, checkpointEvery, storeOptions });
    const kept = await resume(after, "s", cursorAt(cursor, 7));
    assert.deepEqual(
      kept.events.map((e) => e.position),
      [8, 9, 10],
      JSON.stringify(retention),
    );
    const past = await resume(after, "s", cursorAt(cursor, 6));
    assert.equal(past.type, "gap", JSON.stringify(retention));
    assert.equal(past.gap.reason, "trimmed");
    assert.equal(past.observation.cursor, cursor, "with the observation to go on from");
  }
});

test("memory: stored sessions leave memory and reload; unknown ones create nothing", async (t) => {
  const dir = tempDir(t);
  const writer = server(dir, { storeOptions: { maxSessions: 4 } });
  for (let i = 0; i < 300; i++) assert.equal((await post(writer, `s-${i}`, ev(1))).status, 200);
  const files = readdirSync(dir).length;
  const reader = server(dir, { storeOptions: { maxSessions: 4 } });
  await json(reader("s-0"));
  const before = memoryUsage().allocated_bytes;
  for (let i = 0; i < 300; i++) {
    const observation = await json(reader(`s-${i}`));
    assert.equal(observation.state.event_count, 1, "each reloaded from storage");
  }
  for (let i = 0; i < 300; i++) {
    const observation = await json(reader(`unknown-${i}`));
    assert.equal(observation.state.event_count, 0);
    const resumed = await resume(reader, `unknown-${i}`, observation.cursor);
    assert.deepEqual(resumed.events, [], "nothing to replay");
    const stream = await reader(`unknown-${i}/stream`);
    assert.equal(stream.status, 200);
    await stream.body.cancel();
  }
  const grown = memoryUsage().allocated_bytes - before;
  assert.ok(grown < 256 * 1024, `600 sessions read through a store of 4: ${grown} bytes`);
  // The same through DurableSessions: what it keeps stays within the store's bound.
  const sessions = new DurableSessions({
    storage: fileStore(dir),
    storeOptions: { maxSessions: 4 },
  });
  for (let i = 0; i < 300; i++) await sessions.read(`s-${i}`, (s) => s.observe());
  assert.ok(sessions.size <= 16, `${sessions.size} sessions kept`);
  assert.equal(readdirSync(dir).length, files, "reads created no file");
});

test("file names: no session id names a path outside the directory", async (t) => {
  const dir = tempDir(t);
  // In-process: an HTTP path cannot even name "." or "..".
  const sessions = new DurableSessions({ storage: fileStore(dir) });
  for (const id of ["../escape", "..", ".", "a\\b", "100%"]) {
    await (await sessions.open(id)).append(ev(1));
    const reloaded = new DurableSessions({ storage: fileStore(dir) });
    const observed = await reloaded.read(id, (s) => s.observe());
    assert.equal(observed.state.event_count, 1, id);
  }
  const request = server(dir);
  assert.deepEqual(readdirSync(dir).sort(), [
    "%2E%2E.jsonl",
    "%2E.%2Fescape.jsonl",
    "%2E.jsonl",
    ".agent-replay-store",
    ".agent-replay.lock",
    "100%25.jsonl",
    "a%5Cb.jsonl",
    "incarnation",
  ]);
  const long = await post(request, "x".repeat(300), ev(1));
  assert.equal(long.status, 400);
  assert.equal((await long.json()).error.code, "invalid_session_id");
});

test("idle sessions leave memory and reload; a followed one stays", async (t) => {
  const dir = tempDir(t);
  let now = 0;
  const sessions = new DurableSessions({
    storage: fileStore(dir),
    storeOptions: { now: () => now },
    idleMs: 1000,
  });
  for (let i = 0; i < 20; i++) await (await sessions.open(`s-${i}`)).append(ev(i + 1));
  const followed = await sessions.open("s-0");
  const stream = followed.subscribe(followed.observe().cursor);
  const before = memoryUsage().allocated_bytes;
  now = 5000;
  await sessions.read("s-19", (s) => s.observe());
  assert.equal(sessions.size, 2, "the followed session and the one just read");
  assert.ok(memoryUsage().allocated_bytes < before, "their memory went");
  const reloaded = await sessions.read("s-7", (s) => s.observe());
  assert.equal(reloaded.state.event_count, 1);
  assert.equal(parseCursor(reloaded.cursor).position, 1, "at its stored position");
  await (await sessions.open("s-0")).append(ev(99));
  assert.equal(stream.next()?.position, 2, "the follower still gets what is appended");
  stream.close();
});

test("concurrent appends are stored one after another, at their positions", async (t) => {
  const dir = tempDir(t);
  const request = server(dir, { checkpointEvery: 7 });
  const answers = await Promise.all(
    Array.from({ length: 30 }, (_, i) =>
      json(post(request, "s", `${ev(2 * i)}\n${ev(2 * i + 1)}`)),
    ),
  );
  const ends = answers.map((a) => parseCursor(a.cursor).position).sort((a, b) => a - b);
  assert.deepEqual(
    ends,
    Array.from({ length: 30 }, (_, i) => 2 * i + 2),
  );
  const stored = parseLog(readFileSync(join(dir, "s.jsonl"), "utf8"), { strict: true });
  assert.equal(stored.events.length, 60);
  const restarted = await json(server(dir)("s"));
  assert.deepEqual(restarted, await json(request("s")));
});

test("a session evicted while its append is stored is reloaded with it", async (t) => {
  const dir = tempDir(t);
  const files = fileStore(dir);
  let hold;
  const storage = {
    ...files,
    async append(id, batch) {
      await files.append(id, batch);
      if (id === "a" && batch.position === 2) await new Promise((r) => (hold = r));
    },
  };
  const sessions = new DurableSessions({ storage, storeOptions: { maxSessions: 1 } });
  const a = await sessions.open("a");
  await a.append(ev(1));
  const pending = a.append(`${ev(2)}\n${ev(3)}`);
  await new Promise((r) => setTimeout(r, 20));
  // Another session takes the store's only place: "a" is evicted mid-append.
  await (await sessions.open("b")).append(ev(1));
  hold();
  const appended = await pending;
  assert.deepEqual(
    appended.map((e) => [e.position, e.event.turn]),
    [
      [2, 2],
      [3, 3],
    ],
  );
  const observed = await sessions.read("a", (s) => s.observe());
  assert.equal(observed.state.event_count, 3);
  assert.equal(parseCursor(observed.cursor).position, 3);
});

test("an append queued behind one during which the session was evicted reloads it first", async (t) => {
  const dir = tempDir(t);
  const files = fileStore(dir);
  let hold;
  const storage = {
    ...files,
    async checkpoint(id, checkpoint) {
      await files.checkpoint(id, checkpoint);
      if (id === "a" && checkpoint.position === 1) await new Promise((r) => (hold = r));
    },
  };
  const sessions = new DurableSessions({
    storage,
    storeOptions: { maxSessions: 1 },
    checkpointEvery: 1,
  });
  const a = await sessions.open("a");
  const first = a.append(ev(1));
  const second = a.append(ev(2));
  await new Promise((r) => setTimeout(r, 20));
  // Sessions of 3 events each take the store's only place, until the
  // store forgets "a"'s tombstone: an unknown session then stands at 3.
  for (let i = 0; i < 12; i++)
    await (await sessions.open(`b-${i}`)).append([ev(1), ev(2), ev(3)].join("\n"));
  hold();
  assert.equal((await first)[0].position, 1);
  assert.equal((await second)[0].position, 2, "counted from the storage, not a tombstone");
  const stored = parseLog(readFileSync(join(dir, "a.jsonl"), "utf8"), { strict: true });
  assert.deepEqual(
    stored.events.map((e) => e.turn),
    [1, 2],
  );
});

test("a store given to DurableSessions must have the storage's incarnation", async (t) => {
  const dir = tempDir(t);
  const storage = fileStore(dir);
  const wrong = new DurableSessions({ storage, store: new ReplayStore({ incarnation: "other" }) });
  await assert.rejects(wrong.open("s"), { code: "invalid_input" });
  const store = new ReplayStore({ incarnation: await storage.incarnation() });
  const right = new DurableSessions({ storage, store });
  await (await right.open("s")).append(ev(1));
  assert.equal(parseCursor(store.currentCursor("s")).position, 1, "appended through that store");
});

test("ReplaySession.restore: hostile input is a coded error, never a trap", () => {
  const store = new ReplayStore({ incarnation: "hostile" });
  const cases = [
    [{ base: { position: 5, revision: 0 }, events: ev(1) }, "invalid_input"],
    [
      { base: { position: 2 ** 60, revision: 0 }, checkpoint: { position: 2 ** 60, state: "{}" } },
      "invalid_input",
    ],
    [{ events: `${ev(1)}\n{"kind":"page_out","turn":"one"}` }, "invalid_log"],
    [{ events: "{not json" }, "invalid_log"],
    [{ events: `${ev(1)}\n{"kind":"page_out","tu` }, "invalid_log"],
    [{ events: ev(1), checkpoint: { position: 1, state: "{not json" } }, "invalid_input"],
    [{ events: ev(1), checkpoint: { position: 7, state: {} } }, "invalid_input"],
    [{ base: { position: Number.NaN, revision: -1 }, events: ev(1) }, "invalid_input"],
  ];
  for (const [options, code] of cases) {
    assert.throws(
      () => ReplaySession.restore("s", { store, ...options }),
      { code },
      JSON.stringify(options),
    );
  }
  const times = [Number.NaN, -5, Number.POSITIVE_INFINITY];
  const s = ReplaySession.restore("s", { store, events: [ev(1), ev(2), ev(3)].join("\n"), times });
  assert.equal(s.observe().state.event_count, 3, "the instance still works");
});

test("the file store on Deno: a restart restores the session at the same cursor", async (t) => {
  const dir = tempDir(t);
  const deno = join(new URL("../..", import.meta.url).pathname, "node_modules/.bin/deno");
  const script = new URL("./durable-deno.mjs", import.meta.url).pathname;
  const { stdout } = await run(deno, ["run", "--allow-read", "--allow-write", script, dir], {
    env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" },
    timeout: 30_000,
  });
  const found = JSON.parse(stdout);
  assert.equal(found.same, true);
  assert.equal(found.events, 3);
  assert.deepEqual(
    parseLog(found.log, { strict: true }).events.map((e) => e.turn),
    [1, 2, 3],
  );
});

test("serve --data: killed with SIGKILL mid-stream and restarted, no acknowledged event lost", {
  timeout: 60_000,
}, async (t) => {
  const dir = tempDir(t);
  const port = 20000 + Math.floor(Math.random() * 20000);
  let child = await startServe(dir, port);
  t.after(() => child.kill("SIGKILL"));
  const base = `http://127.0.0.1:${port}/api`;
  const { clients } = await killScenario(base, {
    headers: { authorization: "Bearer w" },
    kill: async () => {
      child.kill("SIGKILL");
      await new Promise((r) => child.once("exit", r));
    },
    restart: async () => {
      child = await startServe(dir, port);
    },
  });
  const stored = parseLog(readFileSync(join(dir, "run-1.jsonl"), "utf8"), { strict: true });
  assert.deepEqual(
    stored.events.map((e) => JSON.stringify(e)),
    clients[0].map((m) => JSON.stringify(JSON.parse(m.data))),
    "the clients got exactly what is stored",
  );
});
