// Packaging: the package as users get it (npm pack, installed into a
// throwaway project), doing real work on each runtime.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawn } from "node:child_process";
import { cpSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { EXPECTED } from "../package/work.mjs";
import { edgeScenario } from "./edge-scenario.mjs";

const root = new URL("../..", import.meta.url).pathname;
const bin = (name) => join(root, "node_modules/.bin", name);
let project;

before(() => {
  project = mkdtempSync(join(tmpdir(), "agent-replay-pkg-"));
  const tarball = execFileSync("npm", ["pack", "--silent", "--pack-destination", project], { cwd: root, encoding: "utf8" }).trim().split("\n").at(-1);
  writeFileSync(join(project, "package.json"), JSON.stringify({ name: "throwaway", private: true, type: "module" }));
  execFileSync("npm", ["install", "--no-audit", "--no-fund", "--silent", join(project, tarball)], { cwd: project });
  cpSync(join(root, "tests/package"), join(project, "checks"), { recursive: true });
});

after(() => rmSync(project, { recursive: true, force: true }));

/** Starts a server process; resolves when it prints "listening". */
function serve(cmd, args, env) {
  const child = spawn(cmd, args, { cwd: project, env: { ...process.env, ...env }, stdio: ["ignore", "pipe", "pipe"] });
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

const port = () => 20000 + Math.floor(Math.random() * 20000);

test("Node: the installed package works with no init", () => {
  const out = execFileSync(process.execPath, ["checks/run-work.mjs"], { cwd: project, encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test("Deno: the installed package works", () => {
  const out = execFileSync(bin("deno"), ["run", "--allow-read", "--allow-env", "checks/run-work.mjs"], { cwd: project, encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } });
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test("Deno.serve: the edge handler with a real SSE client", async () => {
  const p = port();
  const server = await serve(bin("deno"), ["run", "--allow-net=127.0.0.1", "--allow-read", "--allow-env", "checks/edge-server.mjs"], { PORT: String(p), DENO_NO_UPDATE_CHECK: "1" });
  try {
    await edgeScenario(`http://127.0.0.1:${p}`, { capacity: 4 });
  } finally {
    server.kill();
  }
});
