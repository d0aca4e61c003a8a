// `agent-replay serve` for the tests and benchmarks that drive it: started
// as the CLI runs, on a free port (of 127.0.0.1 unless ARGS say --host),
// and resolved once it serves.
import { spawn } from "node:child_process";
import { join } from "node:path";
import { viewerBundlesStale } from "../../scripts/viewer-bundles.mjs";

const here = new URL("../..", import.meta.url).pathname;

/**
 * Runs `agent-replay serve --port 0 ARGS`; resolves to `{url, viewer,
 * child, out, stop}` (`url` the origin, `viewer` the printed URL, with its
 * token) once it prints the viewer's URL and its output matches `ready`
 * (when given), or rejects with its stderr if it exits or has not started
 * within 20 s. `stop()` resolves once it has exited. `root`: the checkout
 * whose CLI serves (its own pkg/ and www/), this one unless a benchmark
 * compares another build with it.
 */
export function startServe(args, { ready, root = here } = {}) {
  // The page runs pkg/'s bundles of www/ and js/: older ones would test old
  // code. Checked here for this checkout: another one (a benchmark's base
  // build) has its own bundles and rules, and is built there.
  if (root === here && viewerBundlesStale(root, join(root, "pkg")))
    throw new Error(
      `${join(root, "pkg")}'s viewer bundles are older than www/ or js/: node scripts/build.mjs there`,
    );
  const cli = join(root, "bin/agent-replay.js");
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
      const m = /viewer: ((http:\/\/[^/\s]+:\d+)\/\S*)\n/.exec(out);
      if (!m || (ready && !ready.test(out))) return;
      clearTimeout(timer);
      resolve({ url: m[2], viewer: m[1], child, out: () => out, stop });
    });
  });
}
