// Loading a log into a new backend (backend.js): its bytes read (in the
// reader worker, or here), written to the backend in slices between turns
// of the event loop, with progress and the header so far posted on the
// way; then the charts, the panels' rows and the state at its end.
import { readAhead, streamOf } from "/agent-replay/js/viewer/read-ahead.js";
import { readThrough } from "/agent-replay/js/viewer/reader.js";
import { browserLocale } from "/agent-replay/js/viewer/locale.js";
import { backendFor } from "./backend.js";
import { sendState } from "./worker-queries.js";
import { currentGeneration, post, postLists, ready, replace, started } from "./worker-session.js";

/** Bytes written to the backend per call while loading (a progress step). */
const CHUNK = 256 * 1024;

/** Bytes read ahead of the fold at most (read-ahead.js says why). */
const READ_AHEAD = 32 << 20;
/** How long reads wait for the reader worker to start before they go on
 * in this worker instead: it starts with this one, so far sooner than
 * this unless it never does. */
const READER_START_MS = 5000;
/** Folding time between turns of the event loop while loading (when the
 * read-ahead takes what arrived, and a newer source can take over). */
const FOLD_TURN_MS = 4;
/** Progress posts at most this often. */
const PROGRESS_MS = 50;
/** The header so far is posted at least this far apart, and further when
 * reading it costs more: its share of the load stays small. */
const PARTIAL_MS = 500;
const PARTIAL_SHARE = 0.02;

/** A turn of the event loop (a message task: timers are clamped when chained). */
const nextTask = (() => {
  const channel = new MessageChannel();
  const waiting = [];
  channel.port1.onmessage = () => waiting.shift()?.();
  return () =>
    new Promise((resolve) => {
      waiting.push(resolve);
      channel.port2.postMessage(null);
    });
})();

/** What the page's header shows of a summary (a long run's summary holds
 * every process's history: too much to send while loading). */
function headerOf(summary) {
  const { session_id, event_count, revision, run, status, turns_used, total_tokens, errors } =
    summary;
  return { session_id, event_count, revision, run, status, turns_used, total_tokens, errors };
}

/** Whether `loadIntl()` has run. */
let intlLoaded = false;

/** Intl's first number and date formats load its locale data for the whole
 * renderer process, a long task on whichever thread comes first: uPlot's
 * module makes both when the page's charts import it. Made here, off the
 * page's thread, once its first header is shown (beside the page's start
 * it would slow it on two cores), the page's own formats find the data
 * loaded. */
function loadIntl() {
  if (intlLoaded) return;
  intlLoaded = true;
  new Intl.NumberFormat(browserLocale());
  new Intl.DateTimeFormat().resolvedOptions();
}

/**
 * Reads a source (`readAhead`'s or `readThrough`'s) to its end, writing it
 * to `backend` in slices: progress every PROGRESS_MS and the header so far
 * (`backend.partial()`, a summary) every PARTIAL_MS or more. Resolves to the
 * bytes read, or null when a newer source took over.
 */
async function pump(source, total, name, backend) {
  const mine = currentGeneration();
  let bytes = 0;
  let lastPost = 0;
  let nextPartial = 0;
  let turnStart = performance.now();
  const postPartial = () => {
    const now = performance.now();
    // At the second header: the page has shown the first.
    if (nextPartial !== 0) loadIntl();
    post({ op: "partial", summary: headerOf(backend.partial()), end: backend.eventCount });
    nextPartial = now + Math.max(PARTIAL_MS, (performance.now() - now) / PARTIAL_SHARE);
  };
  post({ op: "progress", bytes: 0, total, events: 0, name });
  for (;;) {
    const value = await source.next();
    if (mine !== currentGeneration()) {
      source.cancel();
      return null;
    }
    if (!value) {
      loadIntl();
      return bytes;
    }
    for (let i = 0; i < value.length; i += CHUNK) {
      backend.write(value.subarray(i, i + CHUNK));
      // The first header goes after the first slice, not the first piece.
      if (nextPartial === 0) postPartial();
      if (performance.now() - turnStart < FOLD_TURN_MS) continue;
      await nextTask();
      if (mine !== currentGeneration()) {
        source.cancel();
        return null;
      }
      turnStart = performance.now();
    }
    bytes += value.length;
    const now = performance.now();
    if (now - lastPost > PROGRESS_MS) {
      lastPost = now;
      post({ op: "progress", bytes, total, events: backend.eventCount, name });
    }
    if (now >= nextPartial) postPartial();
  }
}

/** The reader worker (reader.js): files and URLs are read there, beside
 * the fold, on the machine's other core, once it has said it runs
 * (`readerReady`). The page starts it and hands this worker a port to it
 * (worker-start.js); a report's worker (a blob: URL on a file:// page) has
 * none, and reads them itself. Resolves to `readThrough`'s read, or null. */
const readerRead = started
  ? readerReady(started.reader).then((port) => port && readThrough(port, { limit: READ_AHEAD }))
  : Promise.resolve(null);

/** `port` (a promise of the reader's port) once the reader has said
 * "ready" on it, or null when it has not within READER_START_MS: reads
 * then go on here, so a reader that never started never stalls a load. */
function readerReady(port) {
  const ready = port.then(
    (reader) =>
      new Promise((resolve) => {
        reader.onmessage = ({ data }) => data?.op === "ready" && resolve(reader);
      }),
  );
  const late = new Promise((resolve) => setTimeout(resolve, READER_START_MS, null));
  return Promise.race([ready, late]);
}

/** Loads a file, a text or a URL (`msg`) into the backend `backendFor`
 * picks for it, read in slices; true once it is loaded (not when a newer
 * source took over). */
export async function load(msg) {
  const start = (source, total, name) =>
    loadInto(() => backendFor(msg, total), source, total, name);
  const here = (stream) => readAhead(stream, { limit: READ_AHEAD });
  const readElsewhere = msg.text === undefined ? await readerRead : null;
  if (readElsewhere) {
    const url = msg.file ? undefined : new URL(msg.url, self.location.href).href;
    // The read starts before the .wasm is ready: its first bytes come meanwhile.
    const source = readElsewhere(msg.file ? { file: msg.file } : { url });
    await ready.catch((error) => {
      source.cancel();
      throw error;
    });
    const { total } = await source.head;
    return start(source, total, msg.file?.name ?? msg.url);
  }
  await ready;
  if (msg.text !== undefined) {
    const bytes = typeof msg.text === "string" ? new TextEncoder().encode(msg.text) : msg.text;
    return start(here(streamOf(bytes)), bytes.length, msg.name ?? "log");
  }
  if (msg.file) return start(here(msg.file.stream()), msg.file.size, msg.file.name);
  const response = await fetch(msg.url);
  if (!response.ok) throw new Error(`${msg.url}: HTTP ${response.status}`);
  const total = Number(response.headers.get("content-length")) || 0;
  return start(here(response.body), total, msg.url);
}

/** Reads `source` to its end into the backend `make()` makes, which
 * replaces the open one; then posts what the page shows of it. True once
 * loaded, false when a newer source took over. */
async function loadInto(make, source, total, name) {
  const backend = replace(make);
  const startedAt = performance.now();
  const bytes = await pump(source, total, name, backend);
  if (bytes === null) return false;
  const loaded = backend.end();
  postLists();
  // A loaded log's marks come before it, unless they are read on demand.
  const marks = backend.knownMarks();
  if (marks) post({ op: "marks", marks });
  post({
    op: "loaded",
    name,
    bytes,
    events: backend.eventCount,
    ms: performance.now() - startedAt,
    ...loaded,
  });
  sendState(backend.eventCount);
  return true;
}
