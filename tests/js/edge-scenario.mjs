// The edge handler scenario, run against a server on any runtime (Node,
// Deno, workerd): a real EventSource client connects, is cut off,
// reconnects with Last-Event-ID and gets exactly the missed events; a trim
// past its cursor gives it the gap and the observation; bad requests get
// their status codes and append nothing.
import assert from "node:assert/strict";
import net from "node:net";
import { EventSource } from "eventsource";

const TOKEN = "Bearer test-token";
const ev = (turn) => JSON.stringify({ kind: "page_out", turn });

/** A TCP proxy on 127.0.0.1 in front of `target`: `cut()` drops every
 * connection through it, as a network failure would. */
async function proxy(target) {
  const { hostname, port, pathname } = new URL(target);
  const sockets = new Set();
  const server = net.createServer((client) => {
    const upstream = net.connect(Number(port), hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.on("close", () => sockets.delete(s));
      s.on("error", () => {});
    }
    client.pipe(upstream).pipe(client);
  });
  await new Promise((r) => server.listen(0, "127.0.0.1", r));
  return {
    url: `http://127.0.0.1:${server.address().port}${pathname.replace(/\/$/, "")}`,
    cut: () => {
      for (const s of sockets) s.destroy();
    },
    close: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
}

/** An EventSource that sends the bearer token. */
function connect(url, seen) {
  const es = new EventSource(url, {
    fetch: (input, init) =>
      fetch(input, { ...init, headers: { ...init.headers, authorization: TOKEN } }),
  });
  es.onmessage = (m) => seen.push({ type: "event", id: m.lastEventId, data: m.data });
  es.addEventListener("gap", (m) => seen.push({ type: "gap", data: JSON.parse(m.data) }));
  es.addEventListener("observation", (m) =>
    seen.push({ type: "observation", id: m.lastEventId, data: JSON.parse(m.data) }),
  );
  return { es };
}

async function until(check, what, ms = 8000) {
  const t0 = Date.now();
  while (!check()) {
    if (Date.now() - t0 > ms) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** Expects the handler made with maxEventsPerRequest 3 and maxBodyBytes 65536. */
export async function edgeScenario(base, { session = "run:1", capacity }) {
  const headers = { authorization: TOKEN };
  const post = (body, id = session) =>
    fetch(`${base}/sessions/${encodeURIComponent(id)}/events`, { method: "POST", headers, body });
  const observe = async () =>
    (await fetch(`${base}/sessions/${encodeURIComponent(session)}`, { headers })).json();

  // Connect from the current cursor, through a proxy that can cut the line.
  const seen = [];
  const start = await observe();
  const line = await proxy(base);
  const client = connect(
    `${line.url}/sessions/${encodeURIComponent(session)}/stream?cursor=${encodeURIComponent(start.cursor)}`,
    seen,
  );
  await until(() => client.es.readyState === 1, "the stream to open");
  for (let t = 1; t <= 3; t++) assert.equal((await post(ev(t))).status, 200);
  await until(() => seen.length === 3, "3 live events");
  assert.deepEqual(
    seen.map((s) => JSON.parse(s.data).turn),
    [1, 2, 3],
  );

  // Cut off; two events happen; the client reconnects with Last-Event-ID by itself.
  line.cut();
  await new Promise((r) => setTimeout(r, 50));
  assert.equal((await post(`${ev(4)}\n${ev(5)}`)).status, 200);
  await until(() => seen.length === 5, "the 2 missed events after the reconnect");
  await new Promise((r) => setTimeout(r, 300));
  assert.deepEqual(
    seen.map((s) => JSON.parse(s.data).turn),
    [1, 2, 3, 4, 5],
    "exactly the missed events, once, in order",
  );
  assert.equal(seen.at(-1).id, (await observe()).cursor);
  client.es.close();
  line.close();

  // The client is away while the server trims past its cursor.
  const away = seen.at(-1).id;
  for (let t = 6; t < 6 + capacity + 2; t++) assert.equal((await post(ev(t))).status, 200);
  const after = [];
  const back = connect(
    `${base}/sessions/${encodeURIComponent(session)}/stream?cursor=${encodeURIComponent(away)}`,
    after,
  );
  await until(() => after.length >= 2, "the gap and the observation");
  back.es.close();
  assert.equal(after[0].type, "gap");
  assert.equal(after[0].data.reason, "trimmed");
  assert.equal(after[1].type, "observation");
  const server = await observe();
  assert.equal(after[1].id, server.cursor);
  assert.deepEqual(after[1].data.state, server.state, "the client's state is the server's");

  // Bad requests: documented status codes, nothing appended.
  const before = (await observe()).cursor;
  const stream = (q, extra = {}) =>
    fetch(`${base}/sessions/${encodeURIComponent(session)}/stream?${q}`, {
      headers: { ...headers, ...extra },
    });
  let r = await stream("cursor=arc1:x:007:0:s");
  assert.equal(r.status, 400);
  assert.equal((await r.json()).error.code, "malformed_cursor");
  r = await stream(`cursor=${encodeURIComponent("arc1:x:0:0:someone-else")}`);
  assert.equal((await r.json()).error.code, "wrong_session");
  r = await stream("", { "last-event-id": "arc1:x:0:0:someone-else" });
  assert.equal(r.status, 400);
  r = await fetch(`${base}/sessions/${encodeURIComponent(session)}`, {
    headers: { authorization: "Bearer wrong" },
  });
  assert.equal(r.status, 403);
  r = await fetch(`${base}/sessions/not-mine`, { headers });
  assert.equal(r.status, 403, "a token for one session does not open another");
  r = await post("x".repeat(70_000));
  assert.equal(r.status, 413);
  r = await post([ev(1), ev(2), ev(3), ev(4)].join("\n"));
  assert.equal(r.status, 413, "more events than maxEventsPerRequest (3)");
  assert.equal((await r.json()).error.code, "limit_exceeded");
  r = await post(`${ev(1)}\n{"kind":"page_in","turn":1}\n`);
  assert.equal(r.status, 400);
  const body = await r.json();
  assert.equal(body.error.code, "invalid_log");
  assert.equal(body.error.errors[0].line, 2);
  assert.equal((await observe()).cursor, before, "nothing appended");
}

/** Two EventSource clients of one session, connected by separate requests,
 * receive the same events with the same cursors. */
export async function twoClients(base, session = "run:1") {
  const headers = { authorization: TOKEN };
  const path = `${base}/sessions/${encodeURIComponent(session)}`;
  const { cursor } = await (await fetch(path, { headers })).json();
  const a = [];
  const b = [];
  const ca = connect(`${path}/stream?cursor=${encodeURIComponent(cursor)}`, a);
  const cb = connect(`${path}/stream?cursor=${encodeURIComponent(cursor)}`, b);
  await until(() => ca.es.readyState === 1 && cb.es.readyState === 1, "both streams to open");
  for (let t = 100; t < 103; t++) {
    assert.equal(
      (await fetch(`${path}/events`, { method: "POST", headers, body: ev(t) })).status,
      200,
    );
  }
  await until(() => a.length === 3 && b.length === 3, "3 events on both clients");
  ca.es.close();
  cb.es.close();
  assert.deepEqual(a, b);
  assert.deepEqual(
    a.map((m) => JSON.parse(m.data).turn),
    [100, 101, 102],
  );
}

/** Hostile clients: stream limits per client and per session (429), idle
 * streams ended, and a reader that stops reading lags into a gap instead
 * of having the server buffer everything for it. Expects the handler made
 * with maxStreamsPerClient 2, maxStreamsPerSession 3, streamIdleMs 400,
 * heartbeatMs 100 (a host notices a gone client when it next writes), and
 * maxEventsPerSession 4, and tokens "test-token" and "other-token" for run:1. */
export async function hostileScenario(base, session = "run:1") {
  const path = `${base}/sessions/${encodeURIComponent(session)}`;
  const as = (token) => ({ authorization: `Bearer ${token}` });
  const open = async (token) => {
    const ac = new AbortController();
    const r = await fetch(`${path}/stream`, { headers: as(token), signal: ac.signal });
    return { status: r.status, r, close: () => ac.abort() };
  };
  // Ids and cursors that would break SSE framing (an `id:` line) or URLs.
  for (const bad of ["a%0Ab", "a%0Db", "a%00b", "%E0%A4%A"]) {
    const r = await fetch(`${base}/sessions/${bad}/stream`, { headers: as("test-token") });
    assert.equal(r.status, 400, bad);
    assert.equal((await r.json()).error.code, "invalid_session_id");
  }
  for (const bad of [
    "arc1:x:0:0:run:1%0A",
    "arc1:x:0:0:run:1%0D%0Aevent: gap",
    "arc1:x:0:0:run%001",
  ]) {
    const r = await fetch(`${path}/stream?cursor=${bad}`, { headers: as("test-token") });
    assert.equal(r.status, 400, bad);
    const text = await r.text();
    assert.equal(JSON.parse(text).error.code, "malformed_cursor");
    assert.ok(!/[\r\n]/.test(text), "no raw line break echoed");
  }

  // Limits: 2 streams per client, 3 per session.
  const a1 = await open("test-token");
  const a2 = await open("test-token");
  const a3 = await open("test-token");
  assert.deepEqual([a1.status, a2.status, a3.status], [200, 200, 429]);
  assert.equal((await a3.r.json()).error.code, "too_many_streams");
  const b1 = await open("other-token");
  const b2 = await open("other-token");
  assert.deepEqual([b1.status, b2.status], [200, 429], "the session's limit");
  for (const s of [a1, a2, b1]) s.close();
  await new Promise((r) => setTimeout(r, 500));
  const again = await open("test-token");
  assert.equal(again.status, 200, "closed streams free their places");
  again.close();

  // An idle stream ends by itself.
  const idle = await open("test-token");
  const reader = idle.r.body.getReader();
  const t0 = Date.now();
  for (;;) {
    const { done } = await reader.read();
    if (done) break;
    if (Date.now() - t0 > 5000) throw new Error("the idle stream did not end");
  }
  assert.ok(Date.now() - t0 >= 300, "not before streamIdleMs");

  // A reader that stops reading: 2,000 events of 4 KB (8 MB) go by; when it
  // reads again it gets a gap, not everything buffered for it.
  const slow = await open("test-token");
  const slowReader = slow.r.body.getReader();
  await slowReader.read(); // the stream's first line
  const big = (t) =>
    JSON.stringify({ kind: "milestone_blocked", turn: t, phase_id: "p", reason: "x".repeat(4000) });
  for (let n = 0; n < 2000; n += 15) {
    const body = Array.from({ length: 15 }, (_, k) => big(n + k)).join("\n");
    const r = await fetch(`${path}/events`, { method: "POST", headers: as("test-token"), body });
    assert.equal(r.status, 200);
  }
  let text = "";
  const decoder = new TextDecoder();
  const deadline = Date.now() + 10_000;
  while (!text.includes("event: observation") && Date.now() < deadline) {
    const { done, value } = await slowReader.read();
    if (done) break;
    text += decoder.decode(value, { stream: true });
  }
  slow.close();
  assert.ok(text.includes("event: gap"), "the slow reader is told it missed events");
  const delivered = text.split('\ndata: {"kind"').length - 1;
  assert.ok(delivered < 1000, `only what the socket held was sent, not everything (${delivered})`);
}

/** Sends `head` (an HTTP/1.0 request line and headers, CRLF-separated, no
 * blank line) as is, for what fetch refuses to send; resolves to
 * `{status, body}` (HTTP/1.0: the body is not chunked). */
export async function rawRequest(base, head) {
  const { hostname, port } = new URL(base);
  const text = await new Promise((resolve, reject) => {
    const socket = net.connect(Number(port), hostname, () =>
      socket.write(`${head}\r\nConnection: close\r\n\r\n`),
    );
    let received = "";
    socket.on("data", (d) => (received += d));
    socket.on("end", () => resolve(received));
    socket.on("error", reject);
  });
  const [status] = /^HTTP\/1\.[01] (\d+)/.exec(text)?.slice(1) ?? [];
  return { status: Number(status), body: text.slice(text.indexOf("\r\n\r\n") + 4) };
}
