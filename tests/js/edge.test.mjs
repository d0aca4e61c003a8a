// The edge handler on Node (node:http on 127.0.0.1), with a real EventSource client.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import http from "node:http";
import { join } from "node:path";
import { memoryUsage, parseCursor } from "agent-replay";
import { createReplayHandler, bearerTokens } from "agent-replay/edge";
import { toNodeListener } from "agent-replay/node";
import { edgeScenario, hostileScenario, rawRequest } from "./edge-scenario.mjs";

test("edge handler on Node: resume, gap, status codes", async () => {
  const handler = createReplayHandler({
    authorize: bearerTokens({ "test-token": ["run:1"] }),
    storeOptions: { maxEventsPerSession: 4 },
    maxBodyBytes: 64 * 1024,
    maxEventsPerRequest: 3,
    retryMs: 50,
  });
  const server = http.createServer(toNodeListener(handler)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await edgeScenario(`http://127.0.0.1:${server.address().port}`, { capacity: 4 });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("edge handler on Node: hostile clients (stream limits, idle streams, slow readers)", async () => {
  const handler = createReplayHandler({
    authorize: bearerTokens({ "test-token": ["run:1"], "other-token": ["run:1"] }),
    storeOptions: { maxEventsPerSession: 4 },
    maxStreamsPerClient: 2,
    maxStreamsPerSession: 3,
    streamIdleMs: 400,
    heartbeatMs: 100,
  });
  const server = http.createServer(toNodeListener(handler)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await hostileScenario(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

/** The handler called in-process, every request allowed. */
function inProcess(options) {
  const handler = createReplayHandler({ authorize: () => true, ...options });
  return (path, init) => handler(new Request(`http://edge.test/sessions/${path}`, init));
}

/** Bytes allocated in WebAssembly memory after `work`, less those before it. */
async function allocatedBy(work) {
  const before = memoryUsage().allocated_bytes;
  await work();
  return memoryUsage().allocated_bytes - before;
}

test("edge memory: reads of unknown sessions create nothing", async () => {
  const request = inProcess({ storeOptions: { maxSessions: 2 } });
  const read = async (id) => {
    const observation = await (await request(id)).json();
    assert.equal(observation.revision, 0);
    assert.equal(observation.state.event_count, 0, "an empty observation");
    const resumed = await request(`${id}/events?cursor=${encodeURIComponent(observation.cursor)}`);
    assert.deepEqual((await resumed.json()).events, [], "nothing to replay");
    const stream = await request(`${id}/stream`);
    assert.equal(stream.status, 200);
    await stream.body.cancel();
  };
  await read("warm-up");
  // Each session kept would hold its full state in WebAssembly memory for ever.
  const grown = await allocatedBy(async () => {
    for (let i = 0; i < 2000; i++) await read(`unknown-${i}`);
  });
  assert.ok(grown < 64 * 1024, `2000 unknown sessions read: ${grown} bytes still allocated`);
});

test("edge memory: sessions the store evicted are freed", async () => {
  const request = inProcess({ storeOptions: { maxSessions: 2 } });
  const append = (id) =>
    request(`${id}/events`, { method: "POST", body: '{"kind":"page_out","turn":1}' });
  await append("warm-up");
  const grown = await allocatedBy(async () => {
    for (let i = 0; i < 2000; i++) assert.equal((await append(`s-${i}`)).status, 200);
  });
  assert.ok(grown < 256 * 1024, `2000 sessions through a store of 2: ${grown} bytes allocated`);
  const held = await (await request("s-1999")).json();
  assert.equal(held.state.event_count, 1, "a session the store holds keeps its state");
  // An evicted session's state went with it; its cursor stands where it stopped.
  const evicted = await (await request("s-1990")).json();
  assert.equal(evicted.state.event_count, 0);
  assert.ok(parseCursor(evicted.cursor).position > 0);
  const resumed = await request(`s-1990/events?cursor=${encodeURIComponent(evicted.cursor)}`);
  assert.deepEqual((await resumed.json()).events, []);
});

test("toNodeListener: a request no URL can be made of is a coded 400", async () => {
  const handler = createReplayHandler({ authorize: () => true });
  const server = http.createServer(toNodeListener(handler)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    const base = `http://127.0.0.1:${server.address().port}`;
    const r = await rawRequest(base, "GET /sessions/s HTTP/1.0\r\nHost: a b");
    assert.equal(r.status, 400);
    assert.equal(JSON.parse(r.body).error.code, "invalid_request");
    assert.equal((await fetch(`${base}/sessions/s`)).status, 200);
  } finally {
    server.close();
  }
});

test("bearerTokens: a read-only token observes, resumes and streams; its append is 403", async () => {
  const handler = createReplayHandler({
    authorize: bearerTokens({
      writer: "*",
      listed: ["run-1"],
      viewer: { sessions: "*", access: "read" },
      "one-viewer": { sessions: ["run-1"], access: "read" },
      "full-grant": { sessions: ["run-1"], access: "all" },
    }),
  });
  const as = (token, path, init = {}) =>
    handler(
      new Request(`http://edge.test/sessions/${path}`, {
        ...init,
        headers: { authorization: `Bearer ${token}` },
      }),
    );
  const body = '{"kind":"page_in","turn":1,"entry_count":1}';
  const post = (token, id) => as(token, `${id}/events`, { method: "POST", body });
  assert.equal((await post("writer", "run-1")).status, 200, "a '*' token appends");
  assert.equal((await post("listed", "run-1")).status, 200, "a listed session appends");
  assert.equal((await post("full-grant", "run-1")).status, 200, "access: all appends");
  assert.equal((await post("listed", "run-2")).status, 403, "another session is refused");
  const { cursor } = await (await as("viewer", "run-1")).json();
  for (const token of ["viewer", "one-viewer"]) {
    const refused = await post(token, "run-1");
    assert.equal(refused.status, 403, token);
    assert.equal((await refused.json()).error.code, "forbidden", token);
    const observed = await (await as(token, "run-1")).json();
    assert.equal(observed.state.event_count, 3, `${token} observes; its append added nothing`);
    assert.equal((await as(token, `run-1/events?cursor=${cursor}`)).status, 200, token);
    const stream = await as(token, "run-1/stream");
    assert.equal(stream.status, 200, `${token} streams`);
    await stream.body.cancel();
  }
  assert.equal((await as("one-viewer", "run-2")).status, 403, "its sessions only");
  assert.equal((await as("viewer", "run-2")).status, 200);
  for (const grant of [{ sessions: "*", access: "write" }, "run-1", { access: "read" }, [1]])
    assert.throws(
      () => bearerTokens({ t: grant }),
      { code: "invalid_input" },
      JSON.stringify(grant),
    );
});

test("the edge handler grants no CORS: a cross-origin request gets no Access-Control header", async () => {
  const handler = createReplayHandler({ authorize: () => true });
  const origin = { origin: "http://evil.example" };
  const at = (path, init = {}) =>
    handler(new Request(`http://edge.test/sessions/${path}`, { ...init, headers: origin }));
  const body = '{"kind":"page_in","turn":1,"entry_count":1}';
  const responses = [
    await at("s/events", { method: "POST", body }),
    await at("s"),
    await at("s/events?cursor=bad"),
    await at("s", { method: "OPTIONS" }),
    await at("s/stream"),
  ];
  for (const response of responses) {
    const granted = [...response.headers.keys()].filter((k) => k.startsWith("access-control-"));
    assert.deepEqual(granted, [], `answer ${response.status}`);
    await response.body?.cancel();
  }
});

/** A Vercel Edge Function serving the handler, as the scenario expects it:
 * `agent-replay/edge` bundled for the browser with nothing left external,
 * so any Node-only import fails the build. */
const EDGE_FUNCTION = `
import { init } from "agent-replay";
import { bearerTokens, createReplayHandler } from "agent-replay/edge";

// A WebAssembly.Module, as Vercel's \`import wasm from "…/agent_replay_bg.wasm?module"\` gives.
const ready = init(AGENT_REPLAY_WASM);
const handler = createReplayHandler({
  authorize: bearerTokens({ "test-token": ["run:1"] }),
  storeOptions: { maxEventsPerSession: 4 },
  maxBodyBytes: 64 * 1024,
  maxEventsPerRequest: 3,
  retryMs: 50,
});
addEventListener("fetch", (event) => event.respondWith(ready.then(() => handler(event.request))));
`;

test("agent-replay/edge bundles for the browser and serves in Vercel's Edge runtime", async () => {
  const esbuild = await import("esbuild");
  const root = new URL("../..", import.meta.url).pathname;
  const bundle = await esbuild.build({
    stdin: { contents: EDGE_FUNCTION, resolveDir: root, sourcefile: "edge-function.js" },
    bundle: true,
    format: "iife",
    platform: "browser",
    write: false,
    logLevel: "silent",
    // web.js's fetch of the .wasm beside it, unused here: the module is given.
    logOverride: { "empty-import-meta": "silent" },
  });
  const { EdgeRuntime, runServer } = await import("edge-runtime");
  const wasm = await WebAssembly.compile(readFileSync(join(root, "pkg/agent_replay_bg.wasm")));
  const runtime = new EdgeRuntime({
    initialCode: bundle.outputFiles[0].text,
    extend: (context) => Object.assign(context, { AGENT_REPLAY_WASM: wasm }),
  });
  const server = await runServer({ runtime, host: "127.0.0.1", port: 0 });
  const base = server.url.replace(/\/$/, "");
  try {
    await edgeScenario(base, { capacity: 4 });
    // A resume: what was appended after a cursor, from a plain GET.
    const headers = { authorization: "Bearer test-token" };
    const session = `${base}/sessions/${encodeURIComponent("run:1")}`;
    const { cursor } = await (await fetch(session, { headers })).json();
    const body = '{"kind":"page_out","turn":7}\n{"kind":"page_out","turn":8}';
    assert.equal((await fetch(`${session}/events`, { method: "POST", headers, body })).status, 200);
    const resumed = await fetch(`${session}/events?cursor=${encodeURIComponent(cursor)}`, {
      headers,
    });
    assert.deepEqual(
      (await resumed.json()).events.map((e) => e.event.turn),
      [7, 8],
    );
  } finally {
    await server.close();
  }
});
