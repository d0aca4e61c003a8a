// What durable sessions answer is what they stored: a refused batch leaves
// storage and memory as they were, a failed checkpoint does not refuse a
// stored batch, a full disk is `storage_full` and loses nothing
// acknowledged, a batch key makes a retry store nothing twice. And the file
// store destroys nothing it did not write: foreign lines and directories are
// refused and kept, one process writes a directory, ids that differ only in
// case are two files.
import { test } from "node:test";
import { execFileSync, spawnSync } from "node:child_process";
import assert from "node:assert/strict";
import {
  appendFileSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DurableSessions, parseCursor, parseLog } from "agent-replay";
import { createReplayHandler } from "agent-replay/edge";
import { fileStore } from "../../js/file-store.js";
import { server, tempDir } from "./durable-local.mjs";
import { ev } from "./durable-scenario.mjs";

const root = new URL("../..", import.meta.url).pathname;

const post = (request, id, body, headers = {}) =>
  request(`${id}/events`, { method: "POST", body, headers });
const turns = (path) =>
  parseLog(readFileSync(path, "utf8"), { strict: true }).events.map((e) => e.turn);
const positionOf = (cursor) => parseCursor(cursor).position;

test("a batch the live session refuses after it was stored is taken back out", async (t) => {
  const dir = tempDir(t);
  const files = fileStore(dir);
  let hold;
  const storage = {
    ...files,
    async append(id, batch) {
      await files.append(id, batch);
      if (id === "a" && batch.position === 2 && !hold) await new Promise((r) => (hold = r));
    },
  };
  const sessions = new DurableSessions({ storage, storeOptions: { maxSessions: 1 } });
  const a = await sessions.open("a");
  await a.append(ev(1));
  const refused = a.append(ev(2));
  await new Promise((r) => setTimeout(r, 20));
  // A followed session takes the store's only place: "a" can come back to
  // memory neither by its append nor by a reload (store_full).
  const b = await sessions.open("b");
  await b.append(ev(1));
  const follower = b.subscribe(b.observe().cursor);
  hold();
  await assert.rejects(refused, { code: "store_full" });
  assert.deepEqual(turns(join(dir, "a.jsonl")), [1], "storage holds no refused event");
  follower.close();
  const next = await (await sessions.open("a")).append(ev(3));
  assert.deepEqual(
    next.map((e) => [e.position, e.event.turn]),
    [[2, 3]],
    "the next batch takes the next position",
  );
  assert.deepEqual(turns(join(dir, "a.jsonl")), [1, 3]);
  const restarted = new DurableSessions({ storage: fileStore(dir) });
  const observed = await restarted.read("a", (s) => s.observe());
  assert.equal(positionOf(observed.cursor), 2);
  assert.equal(observed.state.event_count, 2);
});

test("a checkpoint that fails after a stored append leaves it acknowledged; the next checkpoints", async (t) => {
  const dir = tempDir(t);
  const files = fileStore(dir);
  const checkpoints = [];
  let failing = true;
  const storage = {
    ...files,
    async checkpoint(id, checkpoint) {
      checkpoints.push(checkpoint.position);
      if (failing) throw Object.assign(new Error("disk full"), { code: "ENOSPC" });
      await files.checkpoint(id, checkpoint);
    },
  };
  const request = server(dir, { storage, checkpointEvery: 2 });
  const first = await post(request, "s", [ev(1), ev(2)].join("\n"));
  assert.equal(first.status, 200, "stored, so acknowledged");
  assert.equal(positionOf((await first.json()).cursor), 2);
  failing = false;
  assert.equal((await post(request, "s", ev(3))).status, 200);
  assert.deepEqual(checkpoints, [2, 3], "tried again at the next append");
  assert.deepEqual(turns(join(dir, "s.jsonl")), [1, 2, 3]);
  const saved = JSON.parse(readFileSync(join(dir, "s.checkpoint.json"), "utf8"));
  assert.equal(saved.marks.at(-1).position, 3);
});

/** A tmpfs of `size` at a new directory, unmounted after the test. */
function smallDisk(t, size) {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-disk-"));
  execFileSync("mount", ["-t", "tmpfs", "-o", `size=${size}`, "tmpfs", dir]);
  t.after(() => {
    execFileSync("umount", [dir]);
    rmSync(dir, { recursive: true, force: true });
  });
  return dir;
}

test("a full disk is storage_full (507); nothing acknowledged is lost, space freed goes on", async (t) => {
  const disk = smallDisk(t, "64k");
  const filler = join(disk, "filler");
  writeFileSync(filler, Buffer.alloc(16 * 1024));
  const dir = join(disk, "data");
  const request = server(dir, { checkpointEvery: 5 });
  const padding = "x".repeat(900);
  const event = (turn) => JSON.stringify({ kind: "page_out", turn, message_count: turn, padding });
  const acknowledged = [];
  let full;
  for (let turn = 1; turn <= 200 && !full; turn += 2) {
    const response = await post(request, "s", [event(turn), event(turn + 1)].join("\n"));
    if (response.status === 200) acknowledged.push(turn, turn + 1);
    else full = response;
  }
  assert.ok(full, "the disk filled up");
  assert.equal(full.status, 507);
  assert.equal((await full.json()).error.code, "storage_full");
  assert.ok(acknowledged.length > 10);
  assert.deepEqual(turns(join(dir, "s.jsonl")), acknowledged, "every acknowledged event, once");
  const restarted = server(dir);
  const observed = await (await restarted("s")).json();
  assert.equal(positionOf(observed.cursor), acknowledged.length);
  rmSync(filler);
  const next = await post(restarted, "s", event(1000));
  assert.equal(next.status, 200);
  assert.equal(positionOf((await next.json()).cursor), acknowledged.length + 1);
  assert.deepEqual(turns(join(dir, "s.jsonl")), [...acknowledged, 1000]);
});

test("a batch key: a retry stores nothing twice and gets the first answer, across a restart", async (t) => {
  const dir = tempDir(t);
  const request = server(dir);
  const body = [ev(1), ev(2)].join("\n");
  const first = await post(request, "s", body, { "idempotency-key": "batch-1" });
  const answer = await first.json();
  assert.equal(first.headers.has("idempotent-replayed"), false);
  const retry = await post(request, "s", body, { "idempotency-key": "batch-1" });
  assert.deepEqual(await retry.json(), answer);
  assert.equal(retry.headers.get("idempotent-replayed"), "true");
  await post(request, "s", ev(3), { "idempotency-key": "batch-2" });
  // The answer was lost and the server restarted: the key is in the file.
  const restarted = server(dir);
  const late = await post(restarted, "s", body, { "idempotency-key": "batch-1" });
  assert.deepEqual(await late.json(), answer);
  assert.deepEqual(turns(join(dir, "s.jsonl")), [1, 2, 3], "every event once");
  const fresh = await (await post(restarted, "s", ev(4), { "idempotency-key": "batch-3" })).json();
  assert.equal(positionOf(fresh.cursor), 4);
  // Without storage a key could not be kept: refused rather than ignored.
  const memory = createReplayHandler({ authorize: () => true });
  const refused = await memory(
    new Request("http://edge.test/sessions/s/events", {
      method: "POST",
      body: ev(1),
      headers: { "idempotency-key": "k" },
    }),
  );
  assert.equal(refused.status, 400);
});

test("DurableSession.append's key: answered from the live window, then by position once trimmed", async (t) => {
  const dir = tempDir(t);
  let now = 0;
  const options = { storage: fileStore(dir), storeOptions: { now: () => now, maxAgeMs: 1000 } };
  const sessions = new DurableSessions(options);
  const s = await sessions.open("s");
  const first = await s.append([ev(1), ev(2)], { key: "k" });
  const again = await s.append([ev(1), ev(2)], { key: "k" });
  assert.equal(again.replayed, true);
  assert.deepEqual(
    again.map((e) => [e.position, e.cursor, e.json]),
    first.map((e) => [e.position, e.cursor, e.json]),
  );
  now = 5000;
  const trimmed = await s.append([ev(1), ev(2)], { key: "k" });
  assert.deepEqual(
    trimmed.map((e) => e.position),
    [1, 2],
  );
  assert.equal(positionOf(trimmed.at(-1).cursor), 2);
  await assert.rejects(s.append(ev(3), { key: "" }), { code: "invalid_input" });
  await assert.rejects(s.append(ev(3), { key: "a\nb" }), { code: "invalid_input" });
  assert.deepEqual(turns(join(dir, "s.jsonl")), [1, 2]);
  // The bound: past maxKeys the oldest key is forgotten.
  const bounded = new DurableSessions({ storage: fileStore(dir), maxKeys: 1 });
  const b = await bounded.open("b");
  await b.append(ev(1), { key: "one" });
  await b.append(ev(2), { key: "two" });
  assert.equal((await b.append(ev(2), { key: "two" })).replayed, true);
  assert.equal((await b.append(ev(1), { key: "one" })).replayed, undefined, "stored again");
});

test("a line the store did not write is reported and kept, never cut", async (t) => {
  const dir = tempDir(t);
  const before = server(dir);
  await post(before, "s", [ev(1), ev(2)].join("\n"));
  const path = join(dir, "s.jsonl");
  appendFileSync(path, '{"note":"written by another program"}\n');
  appendFileSync(path, "a last line, unterminated");
  const kept = readFileSync(path, "utf8");
  const after = server(dir);
  const read = await after("s");
  assert.equal(read.status, 400);
  const { error } = await read.json();
  assert.equal(error.code, "invalid_log");
  assert.match(error.message, /not one this store wrote/);
  assert.equal((await post(after, "s", ev(3))).status, 400);
  assert.equal(readFileSync(path, "utf8"), kept, "nothing cut, nothing added");
});

test("a directory another program writes is refused whole, its files untouched", async (t) => {
  const dir = tempDir(t);
  const agentLog = `${JSON.stringify({ seq: 0, event: JSON.parse(ev(1)) })}\n{"seq":1,"event":{"kind":"pa`;
  writeFileSync(join(dir, "run-1.jsonl"), agentLog);
  const request = server(dir);
  for (const response of [await request("run-1"), await post(request, "run-1", ev(2))]) {
    assert.equal(response.status, 400);
    assert.match((await response.json()).error.message, /did not write/);
  }
  assert.equal(readFileSync(join(dir, "run-1.jsonl"), "utf8"), agentLog);
  assert.deepEqual(readdirSync(dir), ["run-1.jsonl"], "nothing written into it");
  // serve --data refuses to start on it.
  const serve = spawnSync(
    process.execPath,
    [join(root, "bin/agent-replay.js"), "serve", "--port", "0", "--data", dir],
    { encoding: "utf8", timeout: 20_000 },
  );
  assert.notEqual(serve.status, 0);
  assert.match(serve.stderr, /did not write/);
});

test("one process writes a directory: a second refuses, a dead one's lock is taken over", async (t) => {
  const dir = tempDir(t);
  const store = fileStore(dir);
  await store.open();
  const second = spawnSync(
    process.execPath,
    [join(root, "bin/agent-replay.js"), "serve", "--port", "0", "--data", dir],
    { encoding: "utf8", timeout: 20_000 },
  );
  assert.notEqual(second.status, 0);
  assert.match(second.stderr, new RegExp(`in use by process ${process.pid}`));
  await store.close();
  assert.ok(!readdirSync(dir).includes(".agent-replay.lock"), "closing leaves the lock");
  // A lock left by a process that is gone (SIGKILLed) is taken over.
  const gone = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  writeFileSync(join(dir, ".agent-replay.lock"), `${gone.stdout}\n`);
  const again = fileStore(dir);
  await again.open();
  assert.equal(readFileSync(join(dir, ".agent-replay.lock"), "utf8"), `${process.pid}\n`);
  await again.close();
});

test("file names: ids that differ in case are two files; no name Windows reserves", async (t) => {
  const dir = tempDir(t);
  const sessions = new DurableSessions({ storage: fileStore(dir) });
  const ids = ["Run", "run", "run:1", "con", "a.", 'x<>|?*"y', "É"];
  for (const [i, id] of ids.entries()) await (await sessions.open(id)).append(ev(i + 1));
  const logs = readdirSync(dir).filter((n) => n.endsWith(".jsonl"));
  assert.deepEqual(logs.sort(), [
    "%52un.jsonl",
    "%63on.jsonl",
    "%C3%89.jsonl",
    "a%2E.jsonl",
    "run%3A1.jsonl",
    "run.jsonl",
    "x%3C%3E%7C%3F%2A%22y.jsonl",
  ]);
  const lower = new Set(logs.map((n) => n.toLowerCase()));
  assert.equal(lower.size, logs.length, "distinct with case ignored");
  const restarted = new DurableSessions({ storage: fileStore(dir) });
  for (const id of ids) {
    const observed = await restarted.read(id, (s) => s.observe());
    assert.equal(observed.state.event_count, 1, id);
  }
});

test("a directory of the first naming is renamed to today's names once, then read", async (t) => {
  const dir = tempDir(t);
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, "incarnation"), "first-format\n");
  const line = (seq, turn) => `{"seq":${seq},"event":${ev(turn)}}\n`;
  writeFileSync(join(dir, "Run.jsonl"), line(0, 1) + line(1, 2));
  writeFileSync(join(dir, "a%5Cb.jsonl"), line(0, 7));
  const sessions = new DurableSessions({ storage: fileStore(dir) });
  const observed = await sessions.read("Run", (s) => s.observe());
  assert.equal(observed.state.event_count, 2);
  assert.equal(parseCursor(observed.cursor).incarnation, "first-format");
  assert.equal(await sessions.read("a\\b", (s) => s.observe().state.event_count), 1);
  assert.deepEqual(readdirSync(dir).sort(), [
    "%52un.jsonl",
    ".agent-replay-store",
    ".agent-replay.lock",
    "a%5Cb.jsonl",
    "incarnation",
  ]);
});
