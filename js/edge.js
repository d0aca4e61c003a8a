// The edge replay handler: a standard `fetch(request) → Response` over
// ReplaySessions, for Workers, Deno.serve, Node (via toNodeListener) or any
// host with the Fetch API. Routes, under `basePath`:
//   POST /sessions/{id}/events          append a JSON or JSON Lines body (all or nothing)
//   GET  /sessions/{id}                 the observation (state + cursor)
//   GET  /sessions/{id}/events?cursor=  the resume result
//   GET  /sessions/{id}/stream          Server-Sent Events: replay then live
// Nothing is served unless `authorize` allows it; a cursor never reaches
// another session than the one in the path.
import { AgentReplayError, httpStatusOf, ReplaySession, ReplayStore } from "agent-replay";

/** Events sent per pull at most: what is pending, in one chunk. */
const PULL_BATCH = 64;

/** An item of a session subscription as SSE text. */
function render(item) {
  if (item.type === "gap") {
    return (
      sse({ event: "gap", data: JSON.stringify(item.gap) }) +
      sse({
        event: "observation",
        id: item.observation.cursor,
        data: JSON.stringify(item.observation),
      })
    );
  }
  return sse({ id: item.cursor, data: item.json });
}

const encoder = new TextEncoder();

const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};

/** A JSON error response. Input never reaches it unescaped. `store_full`
 * is transient: the client is told when to retry. */
function errorResponse(status, code, message, errors) {
  return new Response(JSON.stringify({ error: { code, message, ...(errors ? { errors } : {}) } }), {
    status,
    headers: code === "store_full" ? { ...JSON_HEADERS, "retry-after": "1" } : JSON_HEADERS,
  });
}

/** An ObservedEvent as JSON, its original text spliced in, not re-serialised. */
function observedJson(e) {
  return `{"session_id":${JSON.stringify(e.session_id)},"revision":${e.revision},"position":${e.position},"cursor":${JSON.stringify(e.cursor)},"event":${e.json}}`;
}

/** One SSE message; `data` may hold newlines (each line gets its own `data:`). */
function sse({ event, id, data }) {
  let out = "";
  if (event) out += `event: ${event}\n`;
  if (id) out += `id: ${id}\n`;
  for (const line of data.split(/\r\n|\r|\n/)) out += `data: ${line}\n`;
  return `${out}\n`;
}

/** Reads a request body up to `max` bytes; undefined when it is larger. */
async function readBody(request, max) {
  const declared = Number(request.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > max) return undefined;
  if (!request.body) return new Uint8Array(0);
  const reader = request.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > max) {
      await reader.cancel();
      return undefined;
    }
    chunks.push(value);
  }
  const body = new Uint8Array(size);
  let at = 0;
  for (const c of chunks) {
    body.set(c, at);
    at += c.byteLength;
  }
  return body;
}

/**
 * An `authorize` hook from bearer tokens: `{token: ["session-a", ...] | "*"}`.
 * A request without a known token, or for another session, is refused.
 */
export function bearerTokens(tokens) {
  const table = new Map(Object.entries(tokens));
  return (request, sessionId) => {
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const allowed = match && table.get(match[1]);
    return allowed === "*" || (Array.isArray(allowed) && allowed.includes(sessionId));
  };
}

/**
 * Makes the handler.
 * - `authorize(request, sessionId, action)` → boolean (or a promise of one);
 *   `action` is "read" or "append". Without it every request is refused.
 * - `session(sessionId)` → the ReplaySession to serve (default: one per id,
 *   over one shared `store`, made from `storeOptions`).
 * - `maxBodyBytes` (1 MiB), `maxEventsPerRequest` (1000): past them, 413.
 * - `heartbeatMs` (15000): SSE comment lines that keep idle streams open.
 * - `retryMs` (1000): the reconnection delay sent to EventSource clients.
 * - `maxStreamsPerSession` (1000), `maxStreamsPerClient` (20): past them a
 *   new stream gets 429; `clientId(request)` names the client (default: its
 *   Authorization header).
 * - `streamIdleMs` (300000): a stream with no event for this long ends (the
 *   client reconnects with Last-Event-ID and misses nothing).
 * Streams are pulled: an event is taken only when the client has read the
 * last, so a slow reader lags in its bounded subscription (and then gets a
 * gap) instead of growing the server's memory.
 */
export function createReplayHandler({
  authorize,
  session,
  store,
  storeOptions,
  maxBodyBytes = 1 << 20,
  maxEventsPerRequest = 1000,
  heartbeatMs = 15_000,
  retryMs = 1000,
  maxStreamsPerSession = 1000,
  maxStreamsPerClient = 20,
  streamIdleMs = 300_000,
  clientId = (request) => request.headers.get("authorization") ?? "",
  basePath = "",
} = {}) {
  /** Open streams, per session and per client. */
  const open = { session: new Map(), client: new Map() };
  const count = (map, key, delta) => {
    const n = (map.get(key) ?? 0) + delta;
    n > 0 ? map.set(key, n) : map.delete(key);
  };
  const sessions = new Map();
  // Made on the first request: workerd allows no random values (the
  // store's incarnation) at a Worker's global scope.
  let sharedStore = store;
  const sessionFor =
    session ??
    ((id) => {
      let s = sessions.get(id);
      if (!s) {
        sharedStore ??= new ReplayStore(storeOptions);
        s = new ReplaySession(id, { store: sharedStore });
        sessions.set(id, s);
      }
      return s;
    });

  return async function handle(request) {
    const url = new URL(request.url);
    if (!url.pathname.startsWith(`${basePath}/sessions/`))
      return errorResponse(404, "not_found", "no such route");
    const [rawId, rest, ...extra] = url.pathname
      .slice(basePath.length + "/sessions/".length)
      .split("/");
    let sessionId;
    try {
      sessionId = decodeURIComponent(rawId ?? "");
    } catch {
      return errorResponse(
        400,
        "invalid_session_id",
        "the session id is not valid percent-encoding",
      );
    }
    if (!sessionId || /[\r\n\0]/.test(sessionId))
      return errorResponse(
        400,
        "invalid_session_id",
        "session ids are non-empty, without CR, LF or NUL",
      );
    if (extra.length) return errorResponse(404, "not_found", "no such route");
    const route = rest ?? "";
    const method = request.method;
    const action = method === "POST" ? "append" : "read";
    const allowedRoute =
      (route === "events" && (method === "POST" || method === "GET")) ||
      ((route === "" || route === "stream") && method === "GET");
    if (!allowedRoute) {
      return ["", "events", "stream"].includes(route)
        ? errorResponse(405, "method_not_allowed", `${method} is not allowed here`)
        : errorResponse(404, "not_found", "no such route");
    }
    if (typeof authorize !== "function" || !(await authorize(request, sessionId, action))) {
      return errorResponse(403, "forbidden", "not allowed for this session");
    }
    try {
      const s = sessionFor(sessionId);
      if (method === "POST") return await append(s, request);
      if (route === "") return new Response(JSON.stringify(s.observe()), { headers: JSON_HEADERS });
      if (route === "events") return resume(s, url.searchParams.get("cursor"));
      const client = clientId(request);
      if ((open.session.get(sessionId) ?? 0) >= maxStreamsPerSession)
        return errorResponse(429, "too_many_streams", "too many open streams for this session");
      if ((open.client.get(client) ?? 0) >= maxStreamsPerClient)
        return errorResponse(429, "too_many_streams", "too many open streams for this client");
      return stream(
        s,
        request.headers.get("last-event-id") ?? url.searchParams.get("cursor"),
        sessionId,
        client,
      );
    } catch (e) {
      if (e instanceof AgentReplayError)
        return errorResponse(httpStatusOf(e.code), e.code, e.message, e.errors);
      throw e;
    }
  };

  async function append(s, request) {
    const body = await readBody(request, maxBodyBytes);
    if (body === undefined)
      return errorResponse(413, "limit_exceeded", `the body is larger than ${maxBodyBytes} bytes`);
    // One pass checks every event and counts them, one appends: all or nothing.
    const appended = s.append(body, { maxEvents: maxEventsPerRequest });
    const cursor = appended.length ? appended.at(-1).cursor : s.observe().cursor;
    return new Response(JSON.stringify({ appended: appended.length, cursor }), {
      headers: JSON_HEADERS,
    });
  }

  function resume(s, cursor) {
    if (cursor === null)
      return errorResponse(400, "malformed_cursor", "the cursor query parameter is required");
    const r = s.resume(cursor);
    const body =
      r.type === "replayed"
        ? `{"type":"replayed","events":[${r.events.map(observedJson).join(",")}],"cursor":${JSON.stringify(r.cursor)}}`
        : JSON.stringify(r);
    return new Response(body, { headers: JSON_HEADERS });
  }

  function stream(s, cursor, sessionId, client) {
    // Checked now, so a bad cursor is a 400, not a stream that ends.
    let subscription;
    const head = [`: agent-replay stream\nretry: ${retryMs}\n\n`];
    if (cursor === null) {
      // No cursor: the full observation first, then live from it.
      const observation = s.observe();
      head.push(
        sse({ event: "observation", id: observation.cursor, data: JSON.stringify(observation) }),
      );
      subscription = s.subscribe(observation.cursor);
    } else {
      subscription = s.subscribe(cursor);
    }
    count(open.session, sessionId, 1);
    count(open.client, client, 1);
    const items = subscription[Symbol.asyncIterator]();
    let heartbeat;
    let idle;
    let ended = false;
    const end = () => {
      if (ended) return;
      ended = true;
      clearInterval(heartbeat);
      clearTimeout(idle);
      subscription.close();
      count(open.session, sessionId, -1);
      count(open.client, client, -1);
    };
    const body = new ReadableStream(
      {
        start(controller) {
          for (const text of head) controller.enqueue(encoder.encode(text));
          // A heartbeat only when the client has read what it was sent.
          heartbeat = setInterval(
            () =>
              controller.desiredSize > 0 && controller.enqueue(encoder.encode(": heartbeat\n\n")),
            heartbeatMs,
          );
        },
        // One item when the client wants more: a slow reader lags in its
        // bounded subscription instead of growing this stream's queue.
        async pull(controller) {
          clearTimeout(idle);
          const timedOut = new Promise(
            (resolve) =>
              (idle = setTimeout(() => resolve({ done: true, idle: true }), streamIdleMs)),
          );
          const { done, value: item } = await Promise.race([items.next(), timedOut]);
          if (done || ended) {
            end();
            controller.close();
            return;
          }
          // With what is already pending (at most a batch), in one chunk.
          let text = render(item);
          for (let i = 1; i < PULL_BATCH; i++) {
            const more = subscription.next();
            if (more === undefined) break;
            text += render(more);
          }
          controller.enqueue(encoder.encode(text));
        },
        cancel() {
          end();
        },
      },
      { highWaterMark: 1 },
    );
    return new Response(body, {
      headers: {
        "content-type": "text/event-stream; charset=utf-8",
        "cache-control": "no-store",
        "x-accel-buffering": "no",
      },
    });
  }
}

/**
 * Adapts a fetch handler to Node's `http.createServer` listener.
 * `new http.Server(toNodeListener(handler)).listen(8787, "127.0.0.1")`
 */
export function toNodeListener(handler) {
  return async (req, res) => {
    const controller = new AbortController();
    res.on("close", () => controller.abort());
    try {
      const url = `http://${req.headers.host ?? "localhost"}${req.url}`;
      const hasBody = req.method !== "GET" && req.method !== "HEAD";
      const request = new Request(url, {
        method: req.method,
        headers: Object.entries(req.headers).flatMap(([k, v]) =>
          Array.isArray(v) ? v.map((x) => [k, x]) : v === undefined ? [] : [[k, v]],
        ),
        body: hasBody ? (await import("node:stream")).Readable.toWeb(req) : undefined,
        duplex: hasBody ? "half" : undefined,
        signal: controller.signal,
      });
      const response = await handler(request);
      res.writeHead(response.status, Object.fromEntries(response.headers));
      if (!response.body) return res.end();
      const reader = response.body.getReader();
      controller.signal.addEventListener("abort", () => reader.cancel().catch(() => {}));
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        // Backpressure: a slow client is waited for, not buffered for.
        if (!res.write(value))
          await new Promise((resolve) => {
            res.once("drain", resolve);
            res.once("close", resolve);
          });
      }
      res.end();
    } catch (e) {
      if (!res.headersSent) {
        res.writeHead(500, JSON_HEADERS);
        res.end(JSON.stringify({ error: { code: "internal", message: "internal error" } }));
      } else {
        res.destroy(e);
      }
    }
  };
}
