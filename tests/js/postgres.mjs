// A throwaway PostgreSQL cluster for one test file: `initdb` in a temporary
// directory, the server on 127.0.0.1 at a free port with its unix socket in
// that directory, fsync off (nothing here must survive a power loss). The
// server refuses to run as root, so as root every command runs as the
// `postgres` user, who owns the directory. scripts/setup.sh installs the
// binaries (Debian's postgresql).
import { execFile, spawn } from "node:child_process";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { promisify } from "node:util";

const run = promisify(execFile);

/** The newest installed server's bin directory (/usr/lib/postgresql/N/bin). */
function binDir() {
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root) : [];
  const found = versions
    .filter((v) => existsSync(join(root, v, "bin", "pg_ctl")))
    .sort((a, b) => Number(a) - Number(b));
  if (!found.length) throw new Error(`no PostgreSQL server in ${root}/*/bin: run scripts/setup.sh`);
  return join(root, found.at(-1), "bin");
}

/** A port nothing listens on now, on 127.0.0.1. */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Runs a server binary, as `postgres` when we are root. */
function pgCommand(bin, name, args) {
  const path = join(bin, name);
  return process.getuid?.() === 0
    ? run("runuser", ["-u", "postgres", "--", path, ...args])
    : run(path, args);
}

/**
 * examples/edge/server.mjs on `port` with DATABASE_URL, as a replica is
 * deployed (`env` adds to its environment): the child process, once it
 * listens.
 */
export async function spawnReplica(connectionString, port, env = {}) {
  const child = spawn(process.execPath, ["examples/edge/server.mjs"], {
    cwd: new URL("../../", import.meta.url).pathname,
    env: { ...process.env, PORT: String(port), DATABASE_URL: connectionString, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  let err = "";
  child.stderr.on("data", (d) => (err += d));
  await new Promise((resolve, reject) => {
    child.stdout.on("data", (d) => String(d).includes("listening on") && resolve());
    child.on("exit", (code) => reject(new Error(`replica exited ${code}: ${err}`)));
  });
  return child;
}

/**
 * Starts a fresh cluster: `{connectionString, stop(), start(), close()}`.
 * `stop()` is `pg_ctl stop -m immediate` (a crash: no shutdown checkpoint),
 * `start()` starts it again on the same port, `close()` stops it and
 * removes its directory.
 */
export async function startPostgres() {
  const bin = binDir();
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-pg-"));
  if (process.getuid?.() === 0) {
    const { stdout } = await run("id", ["-u", "postgres"]);
    const { stdout: gid } = await run("id", ["-g", "postgres"]);
    chownSync(dir, Number(stdout), Number(gid));
  }
  const data = join(dir, "data");
  const port = await freePort();
  await pgCommand(bin, "initdb", [
    "-D",
    data,
    "-U",
    "postgres",
    "--auth=trust",
    "--encoding=UTF8",
    "--no-sync",
  ]);
  const options = `-F -p ${port} -k ${dir} -c listen_addresses=127.0.0.1`;
  const start = () =>
    pgCommand(bin, "pg_ctl", ["start", "-D", data, "-w", "-l", join(dir, "log"), "-o", options]);
  const stop = () => pgCommand(bin, "pg_ctl", ["stop", "-D", data, "-w", "-m", "immediate"]);
  await start();
  return {
    connectionString: `postgres://postgres@127.0.0.1:${port}/postgres`,
    start,
    stop,
    async close() {
      await stop().catch(() => {});
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
