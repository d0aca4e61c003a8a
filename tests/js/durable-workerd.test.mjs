// examples/edge/worker.mjs on workerd with on-disk Durable Object SQLite
// storage: killed with SIGKILL mid-stream and restarted, no acknowledged
// event is lost; an object restarted reloads its session from SQLite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { parseCursor } from "agent-replay";
import { ev, killScenario } from "./durable-scenario.mjs";
import { TOKEN, startWorkerd, workerDir } from "./durable-servers.mjs";

const headers = { authorization: `Bearer ${TOKEN}` };

async function killed(child) {
  if (child.exitCode !== null) return;
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
}

test("workerd, Durable Object SQLite on disk: SIGKILL mid-stream, restart, nothing acknowledged lost", {
  timeout: 60_000,
}, async (t) => {
  const dir = await workerDir({ CHECKPOINT_EVERY: "50" });
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = 20000 + Math.floor(Math.random() * 20000);
  let child = await startWorkerd(dir, port);
  t.after(() => killed(child));
  const base = `http://127.0.0.1:${port}`;
  const { tail } = await killScenario(base, {
    headers,
    kill: () => killed(child),
    restart: async () => {
      child = await startWorkerd(dir, port);
    },
  });
  // Another restart: the object reloads the whole session from SQLite.
  const before = await (await fetch(`${base}/sessions/run-1`, { headers })).json();
  await killed(child);
  child = await startWorkerd(dir, port);
  const after = await (await fetch(`${base}/sessions/run-1`, { headers })).json();
  assert.deepEqual(after, before);
  assert.equal(parseCursor(after.cursor).position, tail);
  const r = await fetch(`${base}/sessions/run-1/events`, { method: "POST", headers, body: ev(1) });
  assert.equal(parseCursor((await r.json()).cursor).position, tail + 1);
  const files = readdirSync(join(dir, "do"), { recursive: true });
  assert.ok(
    files.some((f) => f.endsWith(".sqlite")),
    `the object's SQLite database on disk: ${files}`,
  );
});

test("workerd, Durable Object SQLite: a batch key stores a retry once, across a restart", {
  timeout: 60_000,
}, async (t) => {
  const dir = await workerDir();
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const port = 20000 + Math.floor(Math.random() * 20000);
  let child = await startWorkerd(dir, port);
  t.after(() => killed(child));
  const url = `http://127.0.0.1:${port}/sessions/keyed`;
  const post = (body, key) =>
    fetch(`${url}/events`, {
      method: "POST",
      headers: { ...headers, "idempotency-key": key },
      body,
    });
  const body = [ev(1), ev(2)].join("\n");
  const first = await (await post(body, "batch-1")).json();
  const retry = await post(body, "batch-1");
  assert.equal(retry.headers.get("idempotent-replayed"), "true");
  assert.deepEqual(await retry.json(), first);
  // The object restarts: the key is read back from SQLite with the batch.
  await killed(child);
  child = await startWorkerd(dir, port);
  assert.deepEqual(await (await post(body, "batch-1")).json(), first);
  const next = await (await post(ev(3), "batch-2")).json();
  assert.equal(parseCursor(next.cursor).position, 3);
  const observed = await (await fetch(url, { headers })).json();
  assert.equal(observed.state.event_count, 3, "every event once");
});
