// Packaging: the package as users get it (npm pack, installed into a
// throwaway project), doing real work on each runtime.
import { test, before, after } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import {
  cpSync,
  existsSync,
  mkdtempSync,
  readFileSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { tmpdir } from "node:os";
import { gunzipSync } from "node:zlib";
import { join } from "node:path";
import * as esm from "agent-replay";
import { SessionState, parseLog, rebuildOsSnapshot, sampleLog } from "agent-replay";
import { EXPECTED } from "../package/work.mjs";
import {
  bin,
  bundleWorker,
  installProject,
  port,
  root,
  serve as start,
  startWorkerd,
} from "../package/harness.mjs";
import { edgeScenario, hostileScenario, twoClients } from "./edge-scenario.mjs";
import { killScenario } from "./durable-scenario.mjs";
import { startPostgres } from "./postgres.mjs";
import { launchChromium } from "./browsers.mjs";

let project;
before(() => (project = installProject()));
after(() => rmSync(project, { recursive: true, force: true }));

const serve = (cmd, args, env) => start(cmd, args, { cwd: project, env });
/** examples/edge/server.mjs configured for the scenario. */
const EDGE_ENV = {
  TOKENS: JSON.stringify({ "test-token": ["run:1"] }),
  MAX_EVENTS_PER_SESSION: "4",
  MAX_BODY_BYTES: "65536",
  MAX_EVENTS_PER_REQUEST: "3",
  RETRY_MS: "50",
};

test("Node (node:http): examples/edge/server.mjs with a real SSE client", async () => {
  const p = port();
  const server = await serve(process.execPath, ["checks/edge/server.mjs"], {
    PORT: String(p),
    ...EDGE_ENV,
  });
  try {
    await edgeScenario(`http://127.0.0.1:${p}`, { capacity: 4 });
  } finally {
    server.kill();
  }
});

test("Node: the installed package works with no init", () => {
  const out = execFileSync(process.execPath, ["checks/run-work.mjs"], {
    cwd: project,
    encoding: "utf8",
  });
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test("Node CommonJS: require() of the package, its edge handler and its Node adapter, no init", () => {
  const out = execFileSync(process.execPath, ["checks/require.cjs"], {
    cwd: project,
    encoding: "utf8",
  });
  const got = JSON.parse(out);
  assert.deepEqual(got.snapshot, rebuildOsSnapshot(sampleLog()), "the ESM entry's snapshot");
  const view = new SessionState("s").apply(sampleLog()).view();
  assert.deepEqual(got.view, view);
  assert.equal(got.appended, parseLog(sampleLog()).events.length);
  assert.deepEqual(got.observed, view, "the edge handler folded what it was sent");
  assert.deepEqual(got.names, Object.keys(esm).sort(), "require() gives what import gives");
  assert.equal(got.listener, "function", "agent-replay/node's toNodeListener");
});

test("Node: the installed CLI writes a one-file report (its template ships built)", () => {
  const cli = join(project, "node_modules/agent-replay/bin/agent-replay.js");
  execFileSync(process.execPath, [cli, "report", "--sample", "-o", "report.html"], {
    cwd: project,
  });
  const html = readFileSync(join(project, "report.html"), "utf8");
  const slot =
    /<script id="agent-replay-log" type="application\/gzip" data-name="sample.jsonl">([^<]+)<\/script>/.exec(
      html,
    );
  assert.ok(slot, "the log slot, filled");
  assert.equal(gunzipSync(Buffer.from(slot[1], "base64")).toString(), sampleLog());
});

test("Node: the installed CLI's serve sends the viewer page and every file it starts (its bundles ship built)", async () => {
  const served = join(project, "node_modules/agent-replay/bin/serve.js");
  const { serve: serveViewer } = await import(served);
  const server = await serveViewer({ port: 0, demo: false });
  try {
    const text = async (path) => {
      const response = await fetch(`${server.url}${path}`);
      assert.equal(response.status, 200, path);
      return response.text();
    };
    // What index.html and the worker's entry name: its styles, scripts and .wasm.
    const named = `${await text("/")}${await text("/www/worker-start.js")}`;
    const paths = [...named.matchAll(/"(\/(?:www|agent-replay)\/[^"]+\.(?:js|css|wasm))"/g)].map(
      (m) => m[1],
    );
    for (const bundle of ["viewer-page.js", "viewer-worker.js", "viewer-reader.js"])
      assert.ok(paths.includes(`/agent-replay/pkg/${bundle}`), `${bundle} in ${paths}`);
    for (const path of paths) await text(path);
    // The chunks the page's bundle imports later (uPlot's, with the first chart).
    const page = await text("/agent-replay/pkg/viewer-page.js");
    const chunks = [...page.matchAll(/import\("\.\/(viewer-[^"]+\.js)"\)/g)].map((m) => m[1]);
    assert.ok(chunks.includes("viewer-uPlot.esm.js"), `uPlot's chunk in ${chunks}`);
    for (const chunk of chunks) await text(`/agent-replay/pkg/${chunk}`);
  } finally {
    await server.close();
  }
});

test("TypeScript (module node16): the declarations resolve from CommonJS and ESM", () => {
  execFileSync(
    bin("tsc"),
    [
      ...["--noEmit", "--strict", "--module", "node16", "--moduleResolution", "node16"],
      ...["--target", "es2022", "--lib", "es2022,esnext.disposable,dom"],
      ...["--types", "node", "--typeRoots", join(root, "node_modules/@types")],
      "checks/types.cts",
      "checks/types.mts",
    ],
    { cwd: project, encoding: "utf8" },
  );
});

test("Deno: the installed package works", () => {
  const out = execFileSync(
    bin("deno"),
    ["run", "--allow-read", "--allow-env", "checks/run-work.mjs"],
    { cwd: project, encoding: "utf8", env: { ...process.env, DENO_NO_UPDATE_CHECK: "1" } },
  );
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test("Deno.serve: examples/edge/server.mjs with a real SSE client", async () => {
  const p = port();
  const server = await serve(
    bin("deno"),
    ["run", "--allow-net=127.0.0.1", "--allow-read", "--allow-env", "checks/edge/server.mjs"],
    { PORT: String(p), DENO_NO_UPDATE_CHECK: "1", ...EDGE_ENV },
  );
  try {
    await edgeScenario(`http://127.0.0.1:${p}`, { capacity: 4 });
  } finally {
    server.kill();
  }
});

test("Bun: the installed package works", () => {
  const out = execFileSync(bin("bun"), ["checks/run-work.mjs"], { cwd: project, encoding: "utf8" });
  assert.deepEqual(JSON.parse(out), EXPECTED);
});

test("Bun.serve: examples/edge/server.mjs with a real SSE client", async () => {
  const p = port();
  const server = await serve(bin("bun"), ["checks/edge/server.mjs"], {
    PORT: String(p),
    ...EDGE_ENV,
  });
  try {
    await edgeScenario(`http://127.0.0.1:${p}`, { capacity: 4 });
  } finally {
    server.kill();
  }
});

/** How each runtime runs examples/edge/server.mjs in the project. */
const RUNTIMES = {
  Bun: [bin("bun"), ["checks/edge/server.mjs"]],
  Deno: [
    bin("deno"),
    ["run", "--allow-net=127.0.0.1", "--allow-read", "--allow-env", "checks/edge/server.mjs"],
  ],
};

/** examples/edge/server.mjs on `runtime` with `env` and `port`. */
const edgeServer = (runtime, port, env) =>
  serve(RUNTIMES[runtime][0], RUNTIMES[runtime][1], {
    PORT: String(port),
    RETRY_MS: "50",
    TOKENS: JSON.stringify({ secret: "*" }),
    DENO_NO_UPDATE_CHECK: "1",
    ...env,
  });

/** examples/edge/server.mjs on `runtime` with `env`, SIGKILLed and started
 * again on the same port by the kill-and-restart scenario: its clients. */
async function killAndRestart(runtime, env) {
  const p = port();
  let child = await edgeServer(runtime, p, env);
  try {
    return await killScenario(`http://127.0.0.1:${p}`, {
      headers: { authorization: "Bearer secret" },
      kill: async () => {
        child.kill("SIGKILL");
        await new Promise((r) => child.once("exit", r));
      },
      restart: async () => {
        child = await edgeServer(runtime, p, env);
      },
    });
  } finally {
    child.kill("SIGKILL");
  }
}

test("Bun: the file store keeps every acknowledged event across a SIGKILL", async (t) => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-bun-"));
  t.after(() => rmSync(dir, { recursive: true, force: true }));
  const { clients } = await killAndRestart("Bun", { DATA_DIR: dir });
  const stored = readFileSync(join(dir, "run-1.jsonl"), "utf8").trim().split("\n");
  assert.equal(stored.length, clients[0].length, "the clients got what is stored");
});

for (const runtime of Object.keys(RUNTIMES))
  test(`${runtime}: the PostgreSQL store keeps every acknowledged event across a SIGKILL, shared with another replica`, async (t) => {
    // pg is an optional peer dependency: the project installs it beside the package.
    const pg = join(project, "node_modules/pg");
    if (!existsSync(pg)) symlinkSync(join(root, "node_modules/pg"), pg);
    const db = await startPostgres();
    t.after(() => db.close());
    const env = { DATABASE_URL: db.connectionString };
    const { clients } = await killAndRestart(runtime, env);
    const p = port();
    const other = await edgeServer(runtime, p, env);
    try {
      const seen = await fetch(`http://127.0.0.1:${p}/sessions/run-1`, {
        headers: { authorization: "Bearer secret" },
      });
      assert.equal((await seen.json()).state.event_count, clients[0].length);
    } finally {
      other.kill("SIGKILL");
    }
  });

test("workerd: the .wasm imported as a module, the edge handler, Durable Objects", async (t) => {
  const { child, url } = await startWorkerd(await bundleWorker(project));
  try {
    await t.test("real work", async () =>
      assert.deepEqual(await (await fetch(`${url}/work`)).json(), EXPECTED),
    );
    await t.test("the edge handler with a real SSE client", () =>
      edgeScenario(`${url}/direct`, { capacity: 4 }),
    );
    await t.test("examples/edge/worker.mjs, a Durable Object per session: the scenario", () =>
      edgeScenario(`${url}/do`, { capacity: 4 }),
    );
    await t.test("two clients through different requests see the same events and cursors", () =>
      twoClients(`${url}/do`),
    );
    await t.test("hostile clients: stream limits, idle streams, slow readers", () =>
      hostileScenario(`${url}/hostile`),
    );
  } finally {
    child.kill();
  }
});

/** Serves a directory on 127.0.0.1 (the .wasm with its MIME type). */
async function staticServer(dir) {
  const http = await import("node:http");
  const { readFile } = await import("node:fs/promises");
  const types = {
    ".html": "text/html",
    ".js": "text/javascript",
    ".mjs": "text/javascript",
    ".wasm": "application/wasm",
    ".json": "application/json",
  };
  const server = http.createServer(async (req, res) => {
    const requested = decodeURIComponent(new URL(req.url, "http://x").pathname);
    const path = requested.endsWith("/") ? `${requested}index.html` : requested;
    try {
      const body = await readFile(join(dir, path));
      res.writeHead(200, {
        "content-type": types[path.slice(path.lastIndexOf("."))] ?? "application/octet-stream",
      });
      res.end(body);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return { url: `http://127.0.0.1:${server.address().port}`, close: () => server.close() };
}

/** Opens `url` and checks the `globalThis.result` the page publishes. */
async function inChromium(url, expected = EXPECTED) {
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on("pageerror", (e) => errors.push(e.message));
    await page.goto(url);
    await page
      .waitForFunction(() => globalThis.result !== undefined, null, { timeout: 20_000 })
      .catch(() => {});
    const result = await page.evaluate(() => globalThis.result);
    assert.deepEqual(result, expected, `page errors: ${errors.join("; ")}`);
  } finally {
    await browser.close();
  }
}

test("Chromium: a plain ESM page with an import map and init()", async () => {
  writeFileSync(
    join(project, "plain.html"),
    `<!doctype html><script type="importmap">{"imports":{"agent-replay":"/node_modules/agent-replay/js/web.js"}}</script><script type="module" src="/checks/page.mjs"></script>`,
  );
  const server = await staticServer(project);
  try {
    await inChromium(`${server.url}/plain.html`);
  } finally {
    server.close();
  }
});

test("Chromium: an esbuild bundle", async () => {
  const esbuild = await import("esbuild");
  const out = join(project, "esbuild-out");
  await esbuild.build({
    entryPoints: [join(project, "checks/page.mjs")],
    absWorkingDir: project,
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(out, "bundle.js"),
    logLevel: "silent",
  });
  // esbuild leaves new URL(…, import.meta.url) alone: the .wasm is copied beside the bundle.
  cpSync(
    join(project, "node_modules/agent-replay/pkg/agent_replay_bg.wasm"),
    join(out, "agent_replay_bg.wasm"),
  );
  writeFileSync(
    join(out, "index.html"),
    `<!doctype html><script type="module" src="./bundle.js"></script>`,
  );
  const server = await staticServer(out);
  try {
    await inChromium(`${server.url}/`);
  } finally {
    server.close();
  }
});

test("Chromium: <agent-session-viewer> from agent-replay/viewer in an esbuild bundle", async () => {
  const esbuild = await import("esbuild");
  const out = join(project, "viewer-out");
  await esbuild.build({
    entryPoints: [join(project, "checks/viewer-page.mjs")],
    absWorkingDir: project,
    bundle: true,
    format: "esm",
    platform: "browser",
    outfile: join(out, "bundle.js"),
    logLevel: "silent",
  });
  cpSync(
    join(project, "node_modules/agent-replay/pkg/agent_replay_bg.wasm"),
    join(out, "agent_replay_bg.wasm"),
  );
  writeFileSync(
    join(out, "index.html"),
    `<!doctype html><body><script type="module" src="./bundle.js"></script></body>`,
  );
  const server = await staticServer(out);
  const view = new SessionState().apply(sampleLog()).view();
  try {
    await inChromium(`${server.url}/`, {
      status: "finished: completed",
      runId: view.run.run_id,
      transcript: view.transcript.length,
      charts: 4,
      pagesOut: String(rebuildOsSnapshot(sampleLog()).page_out_count),
      processes: view.processes.length,
    });
  } finally {
    server.close();
  }
});

test("Chromium: a Vite build", async () => {
  const app = join(project, "vite-app");
  cpSync(join(project, "checks"), join(app, "checks"), { recursive: true });
  writeFileSync(
    join(app, "index.html"),
    `<!doctype html><script type="module" src="./checks/page.mjs"></script>`,
  );
  execFileSync(bin("vite"), ["build", "--logLevel", "error"], {
    cwd: app,
    env: { ...process.env, NODE_PATH: join(project, "node_modules") },
  });
  const server = await staticServer(join(app, "dist"));
  try {
    await inChromium(`${server.url}/`);
  } finally {
    server.close();
  }
});
