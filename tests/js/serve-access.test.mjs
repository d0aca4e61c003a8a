// Who `agent-replay serve` answers (bin/serve-access.js): only requests
// whose Host is one of its own names (a DNS-rebinding page's carry another:
// 421), on every route and in every mode; no CORS grant to another origin,
// and no state-changing request from one (403); with a read token, nothing
// without it (401), the page's own requests carried by the cookie its URL
// sets.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sampleLog } from "agent-replay";
import { serve } from "../../bin/serve.js";
import { launchChromium } from "./browsers.mjs";
import { rawRequest } from "./edge-scenario.mjs";
import { startServe } from "./serve.mjs";

const WRITE = "write-token";
const EVENT = '{"kind":"page_in","turn":1,"entry_count":1}';
const N = sampleLog().trimEnd().split("\n").length;

let dir;
let log;
let servers = [];
before(() => {
  dir = mkdtempSync(join(tmpdir(), "serve-access-"));
  log = join(dir, "log.jsonl");
  writeFileSync(log, sampleLog());
});
after(async () => {
  await Promise.all(servers.map((s) => s.close()));
  servers = [];
  rmSync(dir, { recursive: true, force: true });
});

/** `serve(options)` on a free port, closed after the tests. */
async function started(options) {
  const server = await serve({ port: 0, ...options });
  servers.push(server);
  return server;
}

/**
 * One request with exactly these headers (`host` undefined: the URL's);
 * resolves to `{status, headers, body}`. An event stream is cut after its
 * head: its status and headers are the answer.
 */
function ask(base, path, { host, method = "GET", headers = {}, body } = {}) {
  const { hostname, port } = new URL(base);
  const sent = { ...(host === undefined ? {} : { host }), ...headers };
  return new Promise((resolve, reject) => {
    const req = request({ hostname, port, path, method, headers: sent, agent: false }, (res) => {
      const answer = { status: res.statusCode, headers: res.headers, body: "" };
      if (res.headers["content-type"]?.startsWith("text/event-stream")) {
        res.destroy();
        return resolve(answer);
      }
      res.setEncoding("utf8");
      res.on("data", (d) => (answer.body += d));
      res.on("end", () => resolve(answer));
    });
    req.on("error", reject);
    req.end(body);
  });
}

const codeOf = (answer) => JSON.parse(answer.body).error.code;
const portOf = (server) => Number(new URL(server.url).port);

/** Every kind of route of a server with files, the demo and a write
 * token: [method, path, status for its own Host, extra request options]. */
const ROUTES = [
  ["GET", "/", 200],
  ["GET", "/index.html", 200],
  ["GET", "/sessions", 200],
  ["GET", "/www/app.js", 200],
  ["HEAD", "/www/app.css", 200],
  ["GET", "/agent-replay/js/node.js", 200],
  ["GET", "/agent-replay/pkg/agent_replay_bg.wasm", 200],
  ["GET", "/files/log.jsonl", 200],
  ["GET", "/files/log.jsonl", 206, { headers: { range: "bytes=0-9" } }],
  ["GET", "/sample.jsonl", 200],
  ["GET", "/demo", 200],
  ["GET", "/api/sessions", 404],
  ["GET", "/api/search?q=x", 404],
  ["GET", "/api/sessions/sample-1", 200],
  ["GET", "/api/sessions/sample-1/stream", 200],
  ["GET", "/api/sessions/sample-1/events?cursor=bad", 400],
  [
    "POST",
    "/api/sessions/mine/events",
    200,
    { headers: { authorization: `Bearer ${WRITE}` }, body: EVENT },
  ],
  ["GET", "/nope", 404],
  ["GET", "/www/%ZZ", 400],
];

/** Host headers a page of another site (or another server) sends. */
const foreignHosts = (port) => [
  `evil.example:${port}`,
  "evil.example",
  `127.0.0.1.evil.example:${port}`,
  `127.0.0.1:${port + 1}`,
  "localhost",
  `[::1]:${port + 1}`,
  `127.0.0.1:${port}@evil.example`,
];

/** Asks every route with every Host; each answer must be 421 `misdirected_request`. */
async function assertMisdirected(server, routes) {
  for (const host of foreignHosts(portOf(server)))
    for (const [method, path, , init] of routes) {
      const answer = await ask(server.url, path, { ...init, method, host });
      assert.equal(answer.status, 421, `${method} ${path} Host: ${host}`);
      if (method !== "HEAD") assert.equal(codeOf(answer), "misdirected_request", path);
    }
}

test("a foreign Host gets 421 misdirected_request on every route; its own names are answered", async () => {
  const server = await started({ files: [log], writeToken: WRITE });
  const port = portOf(server);
  await assertMisdirected(server, ROUTES);
  for (const host of [
    `127.0.0.1:${port}`,
    `localhost:${port}`,
    `[::1]:${port}`,
    `LOCALHOST:${port}`,
  ])
    for (const [method, path, status, init] of ROUTES) {
      const answer = await ask(server.url, path, { ...init, method, host });
      assert.equal(answer.status, status, `${method} ${path} Host: ${host}`);
    }
  const noHost = await rawRequest(server.url, "GET /files/log.jsonl HTTP/1.0");
  assert.equal(noHost.status, 421, "a request without Host");
  assert.equal(JSON.parse(noHost.body).error.code, "misdirected_request");
});

test("--data and DIR servers check the Host on every route too", async () => {
  const data = await started({ data: join(dir, "kept"), writeToken: WRITE });
  const sessions = join(dir, "sessions");
  rmSync(sessions, { recursive: true, force: true });
  mkdirSync(sessions);
  writeFileSync(join(sessions, "run.jsonl"), `{"seq":1,"event":${EVENT}}\n`);
  const followed = await started({ dir: sessions, pollMs: 100 });
  const api = [
    ["GET", "/api/sessions/run", 200],
    ["GET", "/api/sessions/run/stream", 200],
    ["GET", "/api/sessions/run/events?cursor=bad", 400],
  ];
  const post = [
    "POST",
    "/api/sessions/run/events",
    200,
    { headers: { authorization: `Bearer ${WRITE}` }, body: EVENT },
  ];
  const listed = [
    ["GET", "/", 302],
    ["GET", "/sessions", 200],
    ["GET", "/api/sessions", 200],
    ["GET", "/api/sessions?since=0", 200],
    ["GET", "/api/search?q=run", 200],
    ["GET", "/api/search?q=", 400],
    ["GET", "/www/sessions-rows.js", 200],
  ];
  for (const [server, routes] of [
    [data, [...api, post]],
    [followed, [...api, ...listed]],
  ]) {
    await assertMisdirected(server, routes);
    for (const [method, path, status, init] of routes) {
      const answer = await ask(server.url, path, { ...init, method });
      assert.equal(answer.status, status, `${method} ${path}`);
    }
  }
});

test("--allow-host names are answered at any port; the CLI takes it repeated", async () => {
  const server = await started({ allowHosts: ["viewer.example", "Other.Example"] });
  for (const host of ["viewer.example", "viewer.example:443", "other.example:8080"])
    assert.equal((await ask(server.url, "/demo", { host })).status, 200, host);
  for (const host of ["evil.example", "sub.viewer.example", "viewer.example.evil"])
    assert.equal((await ask(server.url, "/demo", { host })).status, 421, host);
  const cli = await startServe(["--allow-host", "a.example", "--allow-host", "b.example", log]);
  try {
    for (const host of ["a.example", "b.example:8443"])
      assert.equal((await ask(cli.url, "/files/log.jsonl", { host })).status, 200, host);
    const refused = await ask(cli.url, "/files/log.jsonl", { host: "c.example" });
    assert.equal(refused.status, 421);
    assert.equal(codeOf(refused), "misdirected_request");
  } finally {
    await cli.stop();
  }
});

test("another origin gets no CORS grant, and its state-changing requests get 403 forbidden", async () => {
  const server = await started({ files: [log], writeToken: WRITE });
  const own = `http://127.0.0.1:${portOf(server)}`;
  const foreign = { origin: "http://evil.example" };
  for (const [method, path, status, init] of ROUTES.filter(([m]) => m !== "POST")) {
    const answer = await ask(server.url, path, {
      ...init,
      method,
      headers: { ...init?.headers, ...foreign },
    });
    assert.equal(answer.status, status, path);
    const granted = Object.keys(answer.headers).filter((k) => k.startsWith("access-control-"));
    assert.deepEqual(granted, [], `${method} ${path}`);
  }
  const preflight = await ask(server.url, "/api/sessions/mine/events", {
    method: "OPTIONS",
    headers: { ...foreign, "access-control-request-method": "POST" },
  });
  assert.ok(!("access-control-allow-origin" in preflight.headers), "no preflight grant");
  const post = (origin) =>
    ask(server.url, "/api/sessions/mine/events", {
      method: "POST",
      headers: { authorization: `Bearer ${WRITE}`, ...(origin && { origin }) },
      body: EVENT,
    });
  for (const origin of ["http://evil.example", "null", `http://127.0.0.1:${portOf(server) + 1}`]) {
    const refused = await post(origin);
    assert.equal(refused.status, 403, origin);
    assert.equal(codeOf(refused), "forbidden", origin);
  }
  for (const method of ["PUT", "DELETE", "PATCH"]) {
    const refused = await ask(server.url, "/files/log.jsonl", { method, headers: foreign });
    assert.equal(refused.status, 403, method);
    assert.equal((await ask(server.url, "/files/log.jsonl", { method })).status, 405, method);
  }
  assert.equal((await post(own)).status, 200, "its own page appends");
  assert.equal((await post()).status, 200, "a client that is no page appends");
  const observed = JSON.parse((await ask(server.url, "/api/sessions/mine")).body);
  assert.equal(observed.state.event_count, 2, "the refused appends added nothing");
});

test("with a read token every route needs it: Bearer, or the cookie the page URL's ?token= sets", async () => {
  const token = "read-T0ken";
  const server = await started({ files: [log], writeToken: WRITE, readToken: token });
  const cookie = `agent-replay-token-${portOf(server)}`;
  assert.equal(server.viewer, `${server.url}/?token=${token}`);
  assert.equal(server.files[0], `${server.url}/?log=%2Ffiles%2Flog.jsonl&token=${token}`);
  for (const [method, path, , init] of ROUTES) {
    const refused = await ask(server.url, path, { method, body: init?.body });
    assert.equal(refused.status, 401, `${method} ${path}`);
    assert.equal(refused.headers["www-authenticate"], "Bearer");
    if (method !== "HEAD") assert.equal(codeOf(refused), "unauthorized", path);
  }
  for (const wrong of [
    { authorization: "Bearer nope" },
    { cookie: `${cookie}=nope` },
    { cookie: `agent-replay-token-1=${token}` },
  ])
    assert.equal((await ask(server.url, "/demo", { headers: wrong })).status, 401);
  assert.equal((await ask(server.url, "/demo?token=nope")).status, 401);
  const bearer = { authorization: `Bearer ${token}` };
  for (const [method, path, status, init] of ROUTES.filter(([m]) => m !== "POST")) {
    const answer = await ask(server.url, path, {
      ...init,
      method,
      headers: { ...init?.headers, ...bearer },
    });
    assert.equal(answer.status, status, `${method} ${path}`);
  }
  const page = await ask(server.url, `/?token=${token}`);
  assert.equal(page.status, 200);
  assert.deepEqual(page.headers["set-cookie"], [
    `${cookie}=${token}; HttpOnly; SameSite=Strict; Path=/`,
  ]);
  for (const path of ["/files/log.jsonl", "/api/sessions/sample-1/stream", "/www/app.js"]) {
    const answer = await ask(server.url, path, { headers: { cookie: `a=b; ${cookie}=${token}` } });
    assert.equal(answer.status, 200, path);
  }
  const appended = await ask(server.url, "/api/sessions/mine/events", {
    method: "POST",
    headers: { authorization: `Bearer ${WRITE}` },
    body: EVENT,
  });
  assert.equal(appended.status, 200, "the write token reads and appends");
  const misdirected = await ask(server.url, "/demo", { host: "evil.example", headers: bearer });
  assert.equal(misdirected.status, 421, "the token does not lift the Host check");
  await assert.rejects(started({ readToken: "a b" }), /read token/);
});

test("with a read token a DIR server's /?token= sets the cookie on its way to /sessions", async () => {
  const sessions = join(dir, "listed");
  mkdirSync(sessions);
  const server = await started({ dir: sessions, readToken: "t" });
  const answer = await ask(server.url, "/?token=t");
  assert.equal(answer.status, 302);
  assert.equal(answer.headers.location, "/sessions");
  assert.match(answer.headers["set-cookie"][0], /^agent-replay-token-\d+=t; HttpOnly/);
});

test("--host listens on another address, answers its name, and needs a read token (made up if none)", async () => {
  const server = await started({ host: "127.0.0.2", files: [log], demo: false });
  const port = portOf(server);
  assert.equal(server.url, `http://127.0.0.2:${port}`);
  assert.match(server.readToken, /^[\w-]{24}$/);
  assert.equal(server.viewer, `${server.url}/?token=${server.readToken}`);
  assert.equal((await ask(server.url, "/files/log.jsonl")).status, 401);
  assert.equal((await ask(server.url, `/files/log.jsonl?token=${server.readToken}`)).status, 200);
  const other = await started({ host: "127.0.0.2", demo: false });
  assert.notEqual(other.readToken, server.readToken, "each server makes its own");

  const cli = await startServe(["--no-demo", "--host", "127.0.0.2", log], { ready: /Ctrl-C/ });
  try {
    const [, token] = /\?token=([\w-]+)/.exec(cli.viewer);
    assert.match(cli.out(), new RegExp(`read token ${token}`));
    assert.equal((await ask(cli.url, "/")).status, 401);
    assert.equal(
      (await ask(cli.url, "/", { headers: { authorization: `Bearer ${token}` } })).status,
      200,
    );
    const file = await ask(cli.url, "/files/log.jsonl", {
      host: `127.0.0.2:${new URL(cli.url).port}`,
    });
    assert.equal(file.status, 401, "its own name, without the token");
  } finally {
    await cli.stop();
  }
  const given = await startServe(["--no-demo", "--host", "127.0.0.2", "--read-token", "mine"]);
  try {
    assert.equal(given.viewer, `${given.url}/?token=mine`);
  } finally {
    await given.stop();
  }
});

test("in Chromium: with a read token the viewer opened at the printed URL loads and follows live", async () => {
  const cli = await startServe(["--read-token", "view-T", "--interval-ms", "20", log]);
  const browser = await launchChromium();
  try {
    const context = await browser.newContext();
    const page = await context.newPage();
    const problems = [];
    page.on("pageerror", (e) => problems.push(e.message));
    page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
    context.on("response", (r) => r.status() >= 400 && problems.push(`${r.status()} ${r.url()}`));
    const shown = (p) =>
      p.waitForFunction(
        (t) => document.querySelector("[data-testid=position]")?.textContent.includes(t),
        `event ${N} of ${N}`,
        { timeout: 20_000 },
      );
    await page.goto(cli.viewer); // the demo, followed live by its worker's EventSource
    await shown(page);
    await page.waitForFunction(
      () => document.querySelector("[data-testid=live-status]")?.textContent === "open",
    );
    // A log read by the worker and the reader, the page opened without the token.
    await page.goto(`${cli.url}/?log=/files/log.jsonl`);
    await shown(page);
    assert.deepEqual(problems, []);
    const stranger = await browser.newPage();
    assert.equal((await stranger.goto(`${cli.url}/?log=/files/log.jsonl`)).status(), 401);
  } finally {
    await browser.close();
    await cli.stop();
  }
});
