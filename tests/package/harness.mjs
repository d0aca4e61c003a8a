// Shared by the packaging tests and benches/edge.mjs: the package as users
// get it (npm pack into a throwaway project), the test Worker bundled as
// wrangler would, and servers started on 127.0.0.1.
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export const root = new URL("../..", import.meta.url).pathname;
export const bin = (name) => join(root, "node_modules/.bin", name);
export const port = () => 20000 + Math.floor(Math.random() * 20000);

/** A throwaway project with the packed tarball installed and the checks copied. */
export function installProject() {
  const project = mkdtempSync(join(tmpdir(), "agent-replay-pkg-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", project], {
    cwd: root,
    encoding: "utf8",
  })
    .trim()
    .split("\n")
    .at(-1);
  writeFileSync(
    join(project, "package.json"),
    JSON.stringify({ name: "throwaway", private: true, type: "module" }),
  );
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(project, tarball)], {
    cwd: project,
  });
  cpSync(join(root, "tests/package"), join(project, "checks"), { recursive: true });
  cpSync(join(root, "examples/edge"), join(project, "checks/edge"), { recursive: true });
  return project;
}

/** Starts a server process; resolves when it prints "listening". */
export function serve(cmd, args, { cwd, env }) {
  const child = spawn(cmd, args, {
    cwd,
    env: { ...process.env, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`${cmd} did not start: ${err}`)), 30_000);
    child.stdout.on("data", (d) => {
      if (String(d).includes("listening")) {
        clearTimeout(timer);
        resolve(child);
      }
    });
    child.on("exit", (code) => reject(new Error(`${cmd} exited ${code}: ${err}`)));
  });
}

/** Bundles tests/package/worker.mjs as wrangler would: the package's workerd
 * entry, its .wasm kept as a module of its own. */
export async function bundleWorker(project) {
  const esbuild = await import("esbuild");
  const dir = join(project, "worker");
  mkdirSync(dir, { recursive: true });
  await esbuild.build({
    entryPoints: [join(project, "checks/worker.mjs")],
    absWorkingDir: project,
    bundle: true,
    format: "esm",
    platform: "neutral",
    conditions: ["workerd", "worker"],
    mainFields: ["module", "main"],
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
  cpSync(
    join(project, "node_modules/agent-replay/pkg/agent_replay_bg.wasm"),
    join(dir, "agent_replay_bg.wasm"),
  );
  cpSync(join(project, "checks/workerd.capnp"), join(dir, "workerd.capnp"));
  // The Durable Objects' SQLite storage (workerd.capnp's disk service).
  mkdirSync(join(dir, "do"), { recursive: true });
  return dir;
}

/** Starts workerd on the bundled Worker; resolves once /work answers. */
export async function startWorkerd(dir) {
  const p = port();
  const child = spawn(
    bin("workerd"),
    ["serve", "--experimental", join(dir, "workerd.capnp"), `--socket-addr=http=127.0.0.1:${p}`],
    { cwd: dir, stdio: ["ignore", "pipe", "pipe"] },
  );
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  const url = `http://127.0.0.1:${p}`;
  for (let i = 0; i < 3000; i++) {
    try {
      if ((await fetch(`${url}/work`)).ok) return { child, url };
    } catch {}
    if (child.exitCode !== null) break;
    await new Promise((r) => setTimeout(r, 5));
  }
  child.kill();
  throw new Error(`workerd did not start: ${err}`);
}
