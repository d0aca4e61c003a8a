// Servers of durable sessions for the tests and benches/durable.mjs, on
// 127.0.0.1: `agent-replay serve --data DIR` on Node, and
// examples/edge/worker.mjs on workerd with on-disk Durable Object SQLite
// storage.
import { spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const root = new URL("../..", import.meta.url).pathname;

/** `agent-replay serve --data DIR` on `port` (with `flags`); resolves once it listens. */
export function startServe(dir, port, flags = []) {
  const child = spawn(
    process.execPath,
    [
      join(root, "bin/agent-replay.js"),
      ...["serve", "--port", String(port), "--data", dir, "--write-token", "w", ...flags],
    ],
    { stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`serve did not start: ${err}`)), 20_000);
    child.stdout.on("data", (d) => {
      if (String(d).includes("agent-replay viewer:")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on("exit", (code) => reject(new Error(`serve exited ${code}: ${err}`)));
  });
}

/** The bearer token of the Worker's TOKENS (every session). */
export const TOKEN = "durable-token";

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
