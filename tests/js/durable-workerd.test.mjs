// examples/edge/worker.mjs on workerd with on-disk Durable Object SQLite
// storage: killed with SIGKILL mid-stream and restarted, no acknowledged
// event is lost; an object restarted reloads its session from SQLite.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseCursor } from "agent-replay";
import { ev, killScenario } from "./durable-scenario.mjs";

const root = new URL("../..", import.meta.url).pathname;
const TOKEN = "durable-token";
const headers = { authorization: `Bearer ${TOKEN}` };

/** The workerd config: the Worker, its SQLite-backed class, storage on disk. */
const capnp = (vars) => `using Workerd = import "/workerd/workerd.capnp";
const config :Workerd.Config = (
  services = [ (name = "main", worker = .worker), (name = "disk", disk = (path = "do", writable = true)) ],
  sockets = [ (name = "http", http = (), service = "main") ],
);
const worker :Workerd.Worker = (
  modules = [
    (name = "worker.js", esModule = embed "worker.js"),
    (name = "agent_replay_bg.wasm", wasm = embed "agent_replay_bg.wasm"),
  ],
  compatibilityDate = "2025-01-01",
  durableObjectNamespaces = [
    (className = "SessionObject", uniqueKey = "agent-replay-durable-test", enableSql = true),
  ],
  durableObjectStorage = (localDisk = "disk"),
  bindings = [
    (name = "SESSIONS", durableObjectNamespace = "SessionObject"),
    (name = "TOKENS", text = ${JSON.stringify(JSON.stringify({ [TOKEN]: "*" }))}),
${Object.entries(vars)
  .map(([k, v]) => `    (name = "${k}", text = "${v}"),`)
  .join("\n")}
  ],
);
`;

/** examples/edge/worker.mjs bundled as wrangler would, in a temporary directory. */
export async function workerDir(vars = {}) {
  const esbuild = await import("esbuild");
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-do-"));
  await esbuild.build({
    entryPoints: [join(root, "examples/edge/worker.mjs")],
    bundle: true,
    format: "esm",
    platform: "neutral",
    alias: {
      "agent-replay/edge": join(root, "js/edge.js"),
      "agent-replay": join(root, "js/workerd.js"),
    },
    external: ["node:*"],
    outfile: join(dir, "worker.js"),
    logLevel: "silent",
    plugins: [
      {
        name: "wasm-module",
        setup: (b) =>
          b.onResolve({ filter: /\.wasm$/ }, () => ({
            path: "agent_replay_bg.wasm",
            external: true,
          })),
      },
    ],
  });
  cpSync(join(root, "pkg/agent_replay_bg.wasm"), join(dir, "agent_replay_bg.wasm"));
  writeFileSync(join(dir, "workerd.capnp"), capnp(vars));
  mkdirSync(join(dir, "do"));
  return dir;
}

/** Starts workerd on `dir` at `port`; resolves once it answers. */
export async function startWorkerd(dir, port) {
  const child = spawn(
    join(root, "node_modules/.bin/workerd"),
    ["serve", "--experimental", "workerd.capnp", `--socket-addr=http=127.0.0.1:${port}`],
    { cwd: dir, stdio: ["ignore", "ignore", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  for (let i = 0; i < 1000; i++) {
    try {
      await fetch(`http://127.0.0.1:${port}/`);
      return child;
    } catch {}
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 20));
  }
  child.kill("SIGKILL");
  throw new Error(`workerd did not start: ${err}`);
}

async function killed(child) {
  if (child.exitCode !== null) return;
  child.kill("SIGKILL");
  await new Promise((r) => child.once("exit", r));
}

test("workerd, Durable Object SQLite on disk: SIGKILL mid-stream, restart, nothing acknowledged lost", async (t) => {
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
