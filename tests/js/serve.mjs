// `agent-replay serve` for the tests and benchmarks that drive it: started
// as the CLI runs, on a free port of 127.0.0.1, and resolved once it serves.
import { spawn } from "node:child_process";

const cli = new URL("../../bin/agent-replay.js", import.meta.url).pathname;

/**
 * Runs `agent-replay serve --port 0 ARGS`; resolves to `{url, child, out,
 * stop}` once it prints the viewer's URL and its output matches `ready`
 * (when given), or rejects with its stderr if it exits or has not started
 * within 20 s. `stop()` resolves once it has exited.
 */
export function startServe(args, { ready } = {}) {
  const child = spawn(process.execPath, [cli, "serve", "--port", "0", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (d) => {
    err += d;
  });
  const stop = () =>
    new Promise((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once("exit", done);
      child.kill("SIGTERM");
    });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill();
      reject(new Error(`serve did not start: ${err}`));
    }, 20_000);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`serve exited ${code}: ${err}`));
    });
    child.stdout.on("data", (d) => {
      out += d;
      const m = /viewer: (http:\/\/127\.0\.0\.1:\d+)\//.exec(out);
      if (!m || (ready && !ready.test(out))) return;
      clearTimeout(timer);
      resolve({ url: m[1], child, out: () => out, stop });
    });
  });
}
