// The viewer's local server (`agent-replay serve`, what `npm start` runs):
// the viewer page, the package files it imports, the edge replay handler
// under /api, and a demo that plays the sample session live on a loop.
// Listens on 127.0.0.1 unless told otherwise, and answers only requests
// that pass its gate (bin/serve-access.js).
import { createServer } from "node:http";
import { createReadStream, readFileSync, statSync } from "node:fs";
import { pipeline } from "node:stream/promises";
import { basename, extname, join, normalize, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { AgentReplayError, ReplaySession, ReplayStore, sampleLog } from "../js/node.js";
import { createReplayHandler } from "../js/edge.js";
import { toNodeListener } from "../js/node-listener.js";
import { fileStore } from "../js/file-store.js";
import { followDirectory } from "./follow-dir.js";
import { searchFiles, searchRequest } from "./search-dir.js";
import { accessGate, hostName, newReadToken, sendError } from "./serve-access.js";

const root = fileURLToPath(new URL("..", import.meta.url));

const TYPES = {
  ".html": "text/html; charset=utf-8",
  ".js": "text/javascript; charset=utf-8",
  ".mjs": "text/javascript; charset=utf-8",
  ".css": "text/css; charset=utf-8",
  ".wasm": "application/wasm",
  ".json": "application/json",
  ".png": "image/png",
  ".svg": "image/svg+xml",
};

/** URL prefix → directory served under it (nothing outside these). */
const STATIC = [
  ["/www/", join(root, "www")],
  ["/agent-replay/js/", join(root, "js")],
  ["/agent-replay/pkg/", join(root, "pkg")],
];

/** Bytes read from a file per chunk sent. Node's default (64 KiB) makes a
 * large log tens of thousands of reads, writes and stream callbacks, whose
 * CPU the viewer's fold, on the same machine, goes without while it loads. */
const FILE_CHUNK = 4 << 20;

function sendNotFound(res) {
  res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
}

/**
 * The inclusive byte range `{start, end}` a `Range` header asks of a file
 * of `size` bytes; null to send the whole file (no header, a header that
 * does not parse, several ranges or another unit: RFC 9110 lets a server
 * ignore those), or "unsatisfiable" for a range that starts past the end.
 */
function rangeOf(header, size) {
  const match = /^bytes=(\d*)-(\d*)$/.exec(header?.trim() ?? "");
  if (!match || (match[1] === "" && match[2] === "")) return null;
  if (match[1] === "") {
    const suffix = Number(match[2]);
    if (suffix === 0 || size === 0) return "unsatisfiable";
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(match[1]);
  const end = match[2] === "" ? Number.POSITIVE_INFINITY : Number(match[2]);
  if (end < start) return null;
  if (start >= size) return "unsatisfiable";
  return { start, end: Math.min(end, size - 1) };
}

/** A whole file at most this large is read in one synchronous call and
 * sent at once: the viewer's page, its bundles and its .wasm, which a page
 * load asks for at once. Each is then answered in one turn of
 * the event loop, not after a stat, an open, reads and a close on the
 * thread pool, each of which waits for this process to run again (long on
 * a busy machine). Reading a small local file blocks the loop for less
 * than those waits. */
const READ_WHOLE = 1 << 20;

/**
 * How the viewer's own files are cached: the page's two documents are
 * asked again at every load (`no-cache`); its scripts, styles and .wasm
 * are fresh for a few seconds, so that a page load fetches each once, with
 * no request to revalidate it on the browser's six connections to the
 * host (one of which the log's read holds), and an edited file (a bundle
 * built again) shows at a load a few seconds later. Both carry an ETag
 * (size and modification time), answered with 304 when it still matches.
 * Served logs (`/files/`) have neither: a log may grow while served.
 */
const PAGE = { cache: "no-cache", tagged: true };
const VIEWER_FILE = { cache: "max-age=5", tagged: true };

/** A file's validator: its size and modification time. */
const etagOf = (info) => `"${info.size.toString(36)}-${Math.floor(info.mtimeMs).toString(36)}"`;

/** Whether an `If-None-Match` header names `etag` (or is `*`); a weak
 * match counts, as RFC 9110 asks of If-None-Match. */
function matches(header, etag) {
  if (!header) return false;
  return header
    .split(",")
    .map((tag) => tag.trim().replace(/^W\//, ""))
    .some((tag) => tag === "*" || tag === etag);
}

/**
 * Sends a file: a small one whole (READ_WHOLE), a larger one or a range
 * by streaming it, with backpressure: the first bytes leave at once,
 * memory stays bounded, and files past Node's 2 GiB whole-file read work.
 * Content-Length comes from a stat (from the bytes read, for a file read
 * whole); a `Range` gets a 206 with that slice (the viewer may read a log
 * in slices); HEAD sends the headers only. A file that shrinks while it
 * is streamed ends the connection rather than answering fewer bytes than
 * announced. `cache` is its Cache-Control; a `tagged` file has an ETag
 * and gets 304 for a request that names it. `length` sends only the
 * file's first bytes (as if it ended there).
 */
async function sendFile(
  req,
  res,
  path,
  { type, cache = "no-cache", tagged = false, length = Number.POSITIVE_INFINITY } = {},
) {
  let info;
  try {
    info = statSync(path);
  } catch {
    return sendNotFound(res);
  }
  if (!info.isFile()) return sendNotFound(res);
  const size = Math.min(info.size, length);
  const headers = {
    "content-type": type ?? TYPES[extname(path)] ?? "application/octet-stream",
    "cache-control": cache,
    "accept-ranges": "bytes",
  };
  if (tagged) {
    headers.etag = etagOf(info);
    if (matches(req.headers["if-none-match"], headers.etag))
      return res.writeHead(304, headers).end();
  }
  const range = rangeOf(req.headers.range, size);
  if (range === "unsatisfiable") {
    return res.writeHead(416, { ...headers, "content-range": `bytes */${size}` }).end();
  }
  if (!range && size === info.size && size <= READ_WHOLE && req.method !== "HEAD")
    return sendWhole(res, path, headers);
  const { start, end } = range ?? { start: 0, end: size - 1 };
  if (range) headers["content-range"] = `bytes ${start}-${end}/${size}`;
  headers["content-length"] = end - start + 1;
  res.writeHead(range ? 206 : 200, headers);
  if (req.method === "HEAD" || end < start) return res.end();
  res.strictContentLength = true;
  try {
    await pipeline(createReadStream(path, { start, end, highWaterMark: FILE_CHUNK }), res);
  } catch {
    res.destroy();
  }
}

/** Sends a small file's bytes, read at once (a file gone since its stat: 404). */
function sendWhole(res, path, headers) {
  let body;
  try {
    body = readFileSync(path);
  } catch {
    return sendNotFound(res);
  }
  res.writeHead(200, { ...headers, "content-length": body.length }).end(body);
}

/** What a read token may hold: it travels in a header, a URL and a cookie as is. */
const TOKEN = /^[\w.~+/=-]+$/;

/** Thrown for a request whose target is no URL path or not valid percent-encoding. */
class InvalidRequest extends Error {}

function decodePath(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    throw new InvalidRequest("the path is not valid percent-encoding");
  }
}

function urlOf(target) {
  try {
    return new URL(target, "http://localhost");
  } catch {
    throw new InvalidRequest("the request target is not a URL path");
  }
}

function staticPath(pathname) {
  for (const [prefix, dir] of STATIC) {
    if (!pathname.startsWith(prefix)) continue;
    const path = normalize(join(dir, decodePath(pathname.slice(prefix.length))));
    return path.startsWith(dir + sep) ? path : null;
  }
  return null;
}

const JSON_HEADERS = {
  "content-type": "application/json; charset=utf-8",
  "cache-control": "no-store",
};

/** Answers 404 for a directory's route on a server that follows none; true if it did. */
function noDirectory(res, follower) {
  if (follower) return false;
  const error = { code: "not_found", message: "this server follows no session directory" };
  res.writeHead(404, JSON_HEADERS).end(JSON.stringify({ error }));
  return true;
}

/**
 * `GET /api/sessions`: the followed directory's session list, with the
 * list's version; `?since=V` answers only what changed since version V
 * (docs/viewer.md, "The runs dashboard").
 */
function sendSessionList(res, follower, params) {
  if (noDirectory(res, follower)) return;
  const body = params.has("since")
    ? follower.changes(Number(params.get("since")))
    : { version: follower.version, sessions: follower.list() };
  res.writeHead(200, JSON_HEADERS).end(JSON.stringify(body));
}

/** `GET /api/search?q=TEXT&limit=N`: events of every session holding TEXT (bin/search-dir.js). */
async function sendSearch(res, follower, params) {
  if (noDirectory(res, follower)) return;
  const asked = searchRequest(params);
  if (asked.error) return sendError(res, "invalid_request", asked.error);
  const found = await searchFiles(follower.files(), asked.query, { limit: asked.limit });
  res.writeHead(200, JSON_HEADERS).end(JSON.stringify(found));
}

/**
 * `GET /sessions/ID`: opens a followed session in the viewer with all of
 * its history: the viewer reads the file's lines the session has folded
 * (`/sessions/ID/log`, as it reads any `?log=`), then follows the session's
 * stream from the cursor at their end. The session is folded now if it
 * was not held (bin/follow-dir.js).
 */
async function sendViewerOf(res, follower, id) {
  const file = follower.file(id);
  if (!file) return sendNotFound(res);
  let session;
  // Opened again if it left memory (or a new generation began) before this ran on.
  for (let tries = 0; !session || session !== file.held?.session; tries += 1) {
    if (tries === 3) return sendError(res, "internal", "the session keeps leaving memory");
    try {
      session = await follower.session(id);
    } catch (e) {
      if (!(e instanceof AgentReplayError)) throw e;
      return sendError(res, e.code, e.message);
    }
  }
  // Read together, with no await between: the cursor is that of the lines' last event.
  const { cursor } = session.observe();
  const lines = new URLSearchParams({ generation: file.generation, bytes: file.complete });
  const log = `/sessions/${encodeURIComponent(id)}/log?${lines}`;
  const live = `/api/sessions/${encodeURIComponent(id)}/stream`;
  const query = new URLSearchParams({ log, live, cursor });
  res.writeHead(302, { location: `/?${query}`, "cache-control": "no-store" }).end();
}

/**
 * `GET /sessions/ID/log?generation=G&bytes=N`: the first N bytes of the
 * session's file (whole lines its session folded), while the file is in
 * generation G; 404 once it is not (its history is another now).
 */
function sendLogOf(req, res, follower, id, search) {
  const file = follower.file(id);
  const params = new URLSearchParams(search);
  const bytes = Number(params.get("bytes"));
  if (!file || String(file.generation) !== params.get("generation") || !(bytes >= 0))
    return sendNotFound(res);
  return sendFile(req, res, file.path, { type: "application/octet-stream", length: bytes });
}

/** The session id and what is asked of it for `/sessions/ID[/log]`, or null. */
function sessionRoute(pathname) {
  const match = /^\/sessions\/([^/]+)(\/log)?$/.exec(pathname);
  return match && { id: decodePath(match[1]), log: Boolean(match[2]) };
}

/**
 * Plays the sample session live: one event every `intervalMs`, in a new
 * session (`sample-1`, `sample-2`, …) each loop, `pauseMs` apart.
 */
function startDemo(sessions, store, { intervalMs, pauseMs, keep = 3 }) {
  const events = sampleLog().trimEnd().split("\n");
  let loop = 0;
  let current = null;
  let timer;
  const next = () => {
    loop += 1;
    const id = `sample-${loop}`;
    const session = new ReplaySession(id, { store });
    sessions.set(id, session);
    const old = `sample-${loop - keep}`;
    sessions.get(old)?.free();
    sessions.delete(old);
    current = {
      session_id: id,
      start_cursor: session.observe().cursor,
      stream: `/api/sessions/${id}/stream`,
      interval_ms: intervalMs,
      events: events.length,
    };
    let i = 0;
    const tick = () => {
      session.append(events[i++]);
      timer = i < events.length ? setTimeout(tick, intervalMs) : setTimeout(next, pauseMs);
    };
    timer = setTimeout(tick, intervalMs);
  };
  next();
  return { current: () => current, stop: () => clearTimeout(timer) };
}

/** A PostgreSQL URL given as `--data`. */
const DATABASE_URL = /^postgres(ql)?:\/\//;

/**
 * The storage `data` names, ready before the server listens: a PostgreSQL
 * URL (js/postgres.js: a database shared with other servers; one that
 * cannot be reached stops the server from starting), else a directory.
 */
async function dataStorage(data) {
  if (DATABASE_URL.test(data)) {
    const { postgresStore } = await import("../js/postgres.js");
    const storage = postgresStore({ connectionString: data });
    await storage.incarnation().catch(async (e) => {
      await storage.close();
      throw e;
    });
    return storage;
  }
  const storage = fileStore(resolve(data));
  // Taken before listening: a directory another process writes, or that
  // holds files the store did not write, stops the server from starting.
  await storage.open();
  return storage;
}

/** The API over sessions kept in `storage`: anyone on 127.0.0.1 reads (an
 * unknown session reads as empty and keeps nothing); appends need the token. */
function durableHandler(storage, storeOptions, writeToken) {
  return createReplayHandler({
    basePath: "/api",
    retryMs: 500,
    heartbeatMs: 5000,
    storage,
    storeOptions,
    authorize: (request, _id, action) =>
      action === "read" ||
      (Boolean(writeToken) && request.headers.get("authorization") === `Bearer ${writeToken}`),
  });
}

/**
 * Starts the server. Options: `port` (0 picks one), `files` (logs served
 * at /files/NAME), `dir` (a FileSessionLog directory followed live: its
 * sessions listed at /sessions and /api/sessions, served under
 * /api/sessions/ID, opened in the viewer at /sessions/ID; bin/follow-dir.js),
 * `pollMs` (1000, its fallback poll), `maxOpen` (16, its sessions held in memory),
 * `demo` (default true without `dir`), `intervalMs` (1100: the sample
 * takes about a minute), `pauseMs` (5000), `maxEventsPerSession`,
 * `maxAgeMs` (the live buffer), `writeToken` (enables POST with
 * `Authorization: Bearer TOKEN`), `data` (a directory where sessions
 * appended over HTTP are kept, js/file-store.js: they survive restarts;
 * or a postgres:// URL, js/postgres.js: kept there, shared by every server
 * given it; not with `dir`), `host` (the address listened on, default 127.0.0.1),
 * `allowHosts` (more names its Host check accepts, at any port),
 * `readToken` (every request must carry it; made up when `host` is another
 * address and none is given). Resolves to `{ url, viewer, readToken,
 * files, close() }`: `viewer` and `files` are the URLs to open, with the
 * token.
 */
export async function serve({
  port = 8080,
  files = [],
  dir,
  pollMs,
  maxOpen,
  data,
  demo = !dir && !data,
  intervalMs = 1100,
  pauseMs = 5000,
  maxEventsPerSession,
  maxAgeMs,
  writeToken,
  host = "127.0.0.1",
  allowHosts = [],
  readToken = host === "127.0.0.1" ? undefined : newReadToken(),
} = {}) {
  if (dir && data) throw new Error("serve keeps --data or follows a directory, not both");
  if (readToken !== undefined && !TOKEN.test(readToken))
    throw new Error("a read token is letters, digits and -._~+/= only");
  const store = new ReplayStore({ maxEventsPerSession, maxAgeMs });
  const sessions = new Map();
  const follower = dir
    ? await followDirectory(resolve(dir), {
        pollMs,
        maxOpen,
        storeOptions: { maxEventsPerSession, maxAgeMs },
      })
    : null;
  // A followed file's session is read from the file only: never appended to over HTTP.
  const followed = (id) => follower?.has(id) ?? false;
  const MAX_SESSIONS = 1000;
  const handler = createReplayHandler({
    basePath: "/api",
    retryMs: 500,
    heartbeatMs: 5000,
    authorize: (request, id, action) =>
      action === "read"
        ? sessions.has(id) || followed(id)
        : !followed(id) &&
          Boolean(writeToken) &&
          request.headers.get("authorization") === `Bearer ${writeToken}` &&
          (sessions.has(id) || sessions.size < MAX_SESSIONS),
    session: (id) => {
      if (followed(id)) return follower.session(id);
      let s = sessions.get(id);
      if (!s) {
        s = new ReplaySession(id, { store });
        sessions.set(id, s);
      }
      return s;
    },
  });
  const storage = data ? await dataStorage(data) : undefined;
  const api = toNodeListener(
    storage ? durableHandler(storage, { maxEventsPerSession, maxAgeMs }, writeToken) : handler,
  );
  const player = demo ? startDemo(sessions, store, { intervalMs, pauseMs }) : null;
  const served = new Map();
  for (const f of files) {
    const path = resolve(f);
    statSync(path);
    served.set(basename(path), path);
  }

  const respond = (req, res) => {
    const { pathname, search, searchParams } = urlOf(req.url ?? "/");
    const directoryApi = pathname === "/api/sessions" || pathname === "/api/search";
    if (pathname.startsWith("/api/") && !directoryApi) return api(req, res);
    if (req.method !== "GET" && req.method !== "HEAD") return res.writeHead(405).end();
    if (pathname === "/api/sessions") return sendSessionList(res, follower, searchParams);
    if (pathname === "/api/search")
      return sendSearch(res, follower, searchParams).catch((e) => {
        console.error(e);
        if (!res.headersSent) sendError(res, "internal", "internal error");
      });
    if (pathname === "/" && follower && [...searchParams.keys()].every((k) => k === "token"))
      return res.writeHead(302, { location: "/sessions" }).end();
    if (pathname === "/sessions") return sendFile(req, res, join(root, "www/sessions.html"), PAGE);
    const route = follower && sessionRoute(pathname);
    if (route?.log) return sendLogOf(req, res, follower, route.id, search);
    if (route)
      return sendViewerOf(res, follower, route.id).catch((e) => {
        console.error(e);
        if (!res.headersSent) sendError(res, "internal", "internal error");
      });
    if (pathname === "/" || pathname === "/index.html")
      return sendFile(req, res, join(root, "www/index.html"), PAGE);
    if (pathname === "/demo") {
      // The demo session now, or null when it is off.
      res.writeHead(200, { "content-type": "application/json", "cache-control": "no-store" });
      return res.end(JSON.stringify(player ? player.current() : null));
    }
    if (pathname === "/sample.jsonl") {
      res.writeHead(200, { "content-type": "application/x-ndjson" });
      return res.end(sampleLog());
    }
    if (pathname.startsWith("/files/")) {
      const path = served.get(decodePath(pathname.slice("/files/".length)));
      return path
        ? sendFile(req, res, path, { type: "application/octet-stream" })
        : res.writeHead(404).end();
    }
    const path = staticPath(pathname);
    if (path) return sendFile(req, res, path, VIEWER_FILE);
    res.writeHead(404, { "content-type": "text/plain" }).end("not found\n");
  };
  const admit = accessGate({
    port: () => server.address().port,
    host,
    allowHosts,
    readToken,
    writeToken,
  });
  // Nothing is thrown from here: a throw would end the process.
  const server = createServer((req, res) => {
    try {
      if (admit(req, res)) respond(req, res);
    } catch (e) {
      if (e instanceof InvalidRequest) return sendError(res, "invalid_request", e.message);
      console.error(e);
      if (!res.headersSent) sendError(res, "internal", "internal error");
      else res.destroy();
    }
  });
  await new Promise((ok, fail) => {
    server.once("error", fail);
    server.listen(port, host, ok);
  });
  const url = `http://${hostName(host)}:${server.address().port}`;
  const token = readToken ? `token=${encodeURIComponent(readToken)}` : "";
  return {
    url,
    viewer: `${url}/${token && `?${token}`}`,
    readToken,
    files: [...served.keys()].map(
      (name) => `${url}/?log=${encodeURIComponent(`/files/${name}`)}${token && `&${token}`}`,
    ),
    close: () => {
      player?.stop();
      follower?.close();
      server.closeAllConnections();
      return new Promise((ok) => server.close(ok)).then(() => storage?.close());
    },
  };
}
