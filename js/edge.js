// The edge replay handler: a standard `fetch(request) → Response` over
// ReplaySessions, for Workers, Vercel's Edge runtime, Deno.serve, Node (via
// toNodeListener, agent-replay/node) or any host with the Fetch API. It
// imports nothing Node-only, so it bundles for browsers and edge runtimes.
// Routes, under `basePath`:
//   POST /sessions/{id}/events          append a JSON or JSON Lines body (all or nothing)
//   GET  /sessions/{id}                 the observation (state + cursor)
//   GET  /sessions/{id}/events?cursor=  the resume result
//   GET  /sessions/{id}/stream          Server-Sent Events: replay then live
// Nothing is served unless `authorize` allows it; a cursor never reaches
// another session than the one in the path.
import {
  AgentReplayError,
  DurableSessions,
  httpStatusOf,
  ReplaySession,
  ReplayStore,
} from "agent-replay";
import { errorResponse, JSON_HEADERS } from "./error-response.js";

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
 * An `authorize` hook from bearer tokens: token → its sessions, `["session-a",
 * ...]` or `"*"`, to read and append, or `{sessions, access: "read"}` to read
 * only (observe, resume, stream: a dashboard's token need not be able to
 * write). A request without a known token, for another session, or to
 * append with a read-only token, is refused.
 */
export function bearerTokens(tokens) {
  const table = new Map(Object.entries(tokens).map(([token, grant]) => [token, grantOf(grant)]));
  return (request, sessionId, action) => {
    const header = request.headers.get("authorization") ?? "";
    const match = /^Bearer\s+(\S+)$/i.exec(header);
    const grant = match && table.get(match[1]);
    if (!grant || (grant.access === "read" && action !== "read")) return false;
    return grant.sessions === "*" || grant.sessions.includes(sessionId);
  };
}

/** A token's `{sessions, access}` from what bearerTokens was given for it. */
function grantOf(grant) {
  const { sessions, access = "all" } =
    grant === "*" || Array.isArray(grant) ? { sessions: grant } : (grant ?? {});
  const named = Array.isArray(sessions) && sessions.every((id) => typeof id === "string");
  if ((sessions !== "*" && !named) || (access !== "read" && access !== "all"))
    throw new AgentReplayError(
      "invalid_input",
      'bearerTokens: each token maps to session ids, "*" or {sessions, access: "read" | "all"}',
    );
  return { sessions, access };
}

/** The routes under `/sessions/{id}`, by method and last segment. */
const ROUTES = {
  "POST events": appendEvents,
  "GET ": observe,
  "GET events": resume,
  "GET stream": stream,
};

/**
 * `{sessionId, route}` of a request path under `basePath`, or the error
 * response for a path that names no session route.
 */
function parsePath(pathname, basePath) {
  const prefix = `${basePath}/sessions/`;
  if (!pathname.startsWith(prefix))
    return { refused: errorResponse(404, "not_found", "no such route") };
  const [rawId, route = "", ...extra] = pathname.slice(prefix.length).split("/");
  let sessionId;
  try {
    sessionId = decodeURIComponent(rawId);
  } catch {
    const message = "the session id is not valid percent-encoding";
    return { refused: errorResponse(400, "invalid_session_id", message) };
  }
  if (!sessionId || /[\r\n\0]/.test(sessionId)) {
    const message = "session ids are non-empty, without CR, LF or NUL";
    return { refused: errorResponse(400, "invalid_session_id", message) };
  }
  if (extra.length) return { refused: errorResponse(404, "not_found", "no such route") };
  return { sessionId, route };
}

/** The handler of a route and method, or the error response (404, 405). */
function routeOf(method, route) {
  const handler = ROUTES[`${method} ${route}`];
  if (handler) return { handler };
  const known = ["", "events", "stream"].includes(route);
  return {
    refused: known
      ? errorResponse(405, "method_not_allowed", `${method} is not allowed here`)
      : errorResponse(404, "not_found", "no such route"),
  };
}

/** Whether `authorize` allows the request; without a hook, nothing is allowed. */
async function authorized(authorize, request, sessionId, method) {
  const action = method === "POST" ? "append" : "read";
  return typeof authorize === "function" && Boolean(await authorize(request, sessionId, action));
}

/**
 * Makes the handler.
 * - `authorize(request, sessionId, action)` → boolean (or a promise of one);
 *   `action` is "read" or "append". Without it every request is refused.
 * - `session(sessionId)` → the ReplaySession to serve, or a promise of one
 *   (default: one per id, over one shared `store`, made from `storeOptions`,
 *   kept while the store holds the session: see `sessionTable`).
 * - `maxBodyBytes` (1 MiB), `maxEventsPerRequest` (1000): past them, 413.
 * - `heartbeatMs` (15000): SSE comment lines that keep idle streams open.
 * - `retryMs` (1000): the reconnection delay sent to EventSource clients.
 * - `maxStreamsPerSession` (1000), `maxStreamsPerClient` (20): past them a
 *   new stream gets 429; `clientId(request)` names the client (default: its
 *   Authorization header).
 * - `streamIdleMs` (300000): a stream with no event for this long ends (the
 *   client reconnects with Last-Event-ID and misses nothing).
 * - `storage`: keeps every accepted event (an append is answered once they
 *   are stored) and checkpoints, so sessions survive restarts and leave
 *   memory when idle (js/durable.js); with `retention`, `checkpointEvery`
 *   and `sessionIdleMs` (DurableSessions' `idleMs`).
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
  storage,
  retention,
  checkpointEvery,
  sessionIdleMs,
} = {}) {
  const durable = () =>
    new DurableSessions({
      storage,
      store,
      storeOptions,
      retention,
      checkpointEvery,
      idleMs: sessionIdleMs,
    });
  const context = {
    sessions: session
      ? hookSessions(session)
      : storage
        ? durable()
        : sessionTable(store, storeOptions),
    streams: streamLimits(maxStreamsPerSession, maxStreamsPerClient),
    limits: { maxBodyBytes, maxEventsPerRequest, heartbeatMs, retryMs, streamIdleMs },
    clientId,
  };
  return async function handle(request) {
    const url = new URL(request.url);
    const { sessionId, route, refused } = parsePath(url.pathname, basePath);
    if (refused) return refused;
    const { handler, refused: wrongRoute } = routeOf(request.method, route);
    if (wrongRoute) return wrongRoute;
    if (!(await authorized(authorize, request, sessionId, request.method)))
      return errorResponse(403, "forbidden", "not allowed for this session");
    try {
      return await handler(context, { request, url, sessionId });
    } catch (e) {
      if (e instanceof AgentReplayError)
        return errorResponse(httpStatusOf(e.code), e.code, e.message, e.errors);
      throw e;
    }
  };
}

/**
 * The handler's own sessions: one ReplaySession per id over one shared
 * store, kept only while the store holds the session, so that memory stays
 * within the store's bounds. A read of a session it does not hold (unknown
 * or evicted) is answered from a transient session, as empty as the store
 * knows it, and keeps nothing; a session the store evicted is dropped and
 * freed when next asked for, or by a sweep when the table has doubled.
 */
function sessionTable(store, storeOptions) {
  const kept = new Map();
  let sweepAt = 16;
  // Made on the first request: workerd allows no random values (the
  // store's incarnation) at a Worker's global scope.
  const shared = () => {
    store ??= new ReplayStore(storeOptions);
    return store;
  };
  const release = (id) => {
    const s = kept.get(id);
    if (s && !shared().holds(id)) {
      kept.delete(id);
      s.free();
    }
  };
  const sweep = () => {
    for (const id of [...kept.keys()]) release(id);
    sweepAt = Math.max(16, 2 * kept.size);
  };
  return {
    /** The session to append to or stream: kept (made if need be). */
    open(id) {
      release(id);
      let s = kept.get(id);
      if (!s) {
        // Swept first: the new session is not held until its append or subscribe.
        if (kept.size >= sweepAt) sweep();
        s = new ReplaySession(id, { store: shared() });
        kept.set(id, s);
      }
      return s;
    },
    /** `answer(session)` from the kept session, else from a transient one. */
    read(id, answer) {
      release(id);
      const s = kept.get(id);
      if (s) return answer(s);
      const transient = new ReplaySession(id, { store: shared() });
      try {
        return answer(transient);
      } finally {
        transient.free();
      }
    },
    /** Drops the session if the store no longer holds it (after an append
     * that failed, or a stream that could not subscribe). */
    release,
  };
}

/** Sessions from the `session(id)` hook: the host owns them. */
function hookSessions(session) {
  return {
    open: session,
    read: async (id, answer) => answer(await session(id)),
    release: () => {},
  };
}

/** Open streams, counted per session and per client against their limits. */
function streamLimits(maxPerSession, maxPerClient) {
  const bySession = new Map();
  const byClient = new Map();
  const count = (map, key, delta) => {
    const n = (map.get(key) ?? 0) + delta;
    n > 0 ? map.set(key, n) : map.delete(key);
  };
  return {
    /** The 429 response when one more stream would pass a limit. */
    refusal(sessionId, client) {
      if ((bySession.get(sessionId) ?? 0) >= maxPerSession)
        return errorResponse(429, "too_many_streams", "too many open streams for this session");
      if ((byClient.get(client) ?? 0) >= maxPerClient)
        return errorResponse(429, "too_many_streams", "too many open streams for this client");
      return undefined;
    },
    /** Counts a stream in; returns what counts it out. */
    enter(sessionId, client) {
      count(bySession, sessionId, 1);
      count(byClient, client, 1);
      return () => {
        count(bySession, sessionId, -1);
        count(byClient, client, -1);
      };
    },
  };
}

/** POST events: the body appended, all or nothing. */
async function appendEvents({ sessions, limits }, { request, sessionId }) {
  const { maxBodyBytes, maxEventsPerRequest } = limits;
  const body = await readBody(request, maxBodyBytes);
  if (body === undefined)
    return errorResponse(413, "limit_exceeded", `the body is larger than ${maxBodyBytes} bytes`);
  const key = request.headers.get("idempotency-key") ?? undefined;
  if (key !== undefined && !(sessions instanceof DurableSessions))
    return errorResponse(400, "invalid_input", "Idempotency-Key needs a handler with storage");
  const s = await sessions.open(sessionId);
  try {
    // One pass checks every event and counts them, one appends: all or nothing.
    const appended = await s.append(body, { maxEvents: maxEventsPerRequest, key });
    const cursor = appended.length ? appended.at(-1).cursor : s.observe().cursor;
    const response = jsonResponse(JSON.stringify({ appended: appended.length, cursor }));
    // A retry of a batch stored before: answered as the first attempt was.
    if (appended.replayed) response.headers.set("idempotent-replayed", "true");
    return response;
  } finally {
    sessions.release(sessionId);
  }
}

/** GET the session: its observation. */
async function observe({ sessions }, { sessionId }) {
  return jsonResponse(await sessions.read(sessionId, (s) => JSON.stringify(s.observe())));
}

/** GET events?cursor=: the resume result. */
async function resume({ sessions }, { url, sessionId }) {
  const cursor = url.searchParams.get("cursor");
  if (cursor === null)
    return errorResponse(400, "malformed_cursor", "the cursor query parameter is required");
  return jsonResponse(await sessions.read(sessionId, (s) => resumeJson(s.resume(cursor))));
}

function resumeJson(r) {
  if (r.type !== "replayed") return JSON.stringify(r);
  const events = r.events.map(observedJson).join(",");
  return `{"type":"replayed","events":[${events}],"cursor":${JSON.stringify(r.cursor)}}`;
}

function jsonResponse(body) {
  return new Response(body, { headers: JSON_HEADERS });
}

/** GET stream: Server-Sent Events, replay then live, within the stream limits. */
async function stream({ sessions, streams, limits, clientId }, { request, url, sessionId }) {
  const client = clientId(request);
  const refused = streams.refusal(sessionId, client);
  if (refused) return refused;
  const cursor = request.headers.get("last-event-id") ?? url.searchParams.get("cursor");
  let opened;
  try {
    // Subscribed now, so a bad cursor is a 400, not a stream that ends.
    opened = subscribeFrom(await sessions.open(sessionId), cursor);
  } catch (e) {
    sessions.release(sessionId);
    throw e;
  }
  const leave = streams.enter(sessionId, client);
  const head = [`: agent-replay stream\nretry: ${limits.retryMs}\n\n`, ...opened.head];
  return new Response(eventStream(opened.subscription, head, leave, limits), {
    headers: {
      "content-type": "text/event-stream; charset=utf-8",
      "cache-control": "no-store",
      "x-accel-buffering": "no",
    },
  });
}

/** The subscription from `cursor`, or with none, from the observation sent first. */
function subscribeFrom(s, cursor) {
  if (cursor !== null) return { head: [], subscription: s.subscribe(cursor) };
  const observation = s.observe();
  const data = JSON.stringify(observation);
  return {
    head: [sse({ event: "observation", id: observation.cursor, data })],
    subscription: s.subscribe(observation.cursor),
  };
}

/**
 * The SSE body: `head`, then one pull of pending items at a time when the
 * client wants more (a slow reader lags in its bounded subscription instead
 * of growing this stream's queue); heartbeats only when the client has read
 * what it was sent; ended after `streamIdleMs` without an event.
 */
function eventStream(subscription, head, leave, { heartbeatMs, streamIdleMs }) {
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
    leave();
  };
  const idleTimeout = () =>
    new Promise((resolve) => (idle = setTimeout(() => resolve({ done: true }), streamIdleMs)));
  return new ReadableStream(
    {
      start(controller) {
        for (const text of head) controller.enqueue(encoder.encode(text));
        heartbeat = setInterval(
          () => controller.desiredSize > 0 && controller.enqueue(encoder.encode(": heartbeat\n\n")),
          heartbeatMs,
        );
      },
      async pull(controller) {
        clearTimeout(idle);
        const { done, value } = await Promise.race([items.next(), idleTimeout()]);
        if (done || ended) {
          end();
          controller.close();
          return;
        }
        controller.enqueue(encoder.encode(withPending(value, subscription)));
      },
      cancel: end,
    },
    { highWaterMark: 1 },
  );
}

/** An item as SSE text with what is already pending after it (a batch at most). */
function withPending(item, subscription) {
  let text = render(item);
  for (let i = 1; i < PULL_BATCH; i++) {
    const more = subscription.next();
    if (more === undefined) break;
    text += render(more);
  }
  return text;
}
