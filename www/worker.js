// The viewer's Web Worker: it loads and folds logs in chunks, follows live
// streams, keeps light checkpoints for time travel, and answers the page's
// questions (state at a position, filtered timeline rows, one event) so
// the page never does heavy work. Built on the package's public API only.
// It imports by served URLs, which its bundle's build resolves to the
// package's files (scripts/viewer-bundles.mjs).
import {
  init,
  SessionIndex,
  SessionState,
  parseCursor,
  memoryUsage,
  eventKinds,
  AgentReplayError,
} from "/agent-replay/js/web.js";
import {
  categoryOf,
  describeEvent,
  eventFacts,
  isAlarming,
  kernelFacets,
  kernelFacetsOf,
} from "/agent-replay/js/viewer/describe.js";
import { upperBound, viewDigest } from "/agent-replay/js/viewer/digest.js";
import { chartSeries, indexedSeries } from "/agent-replay/js/viewer/series.js";
import { chartBuffers, chartTables } from "/agent-replay/js/viewer/chart-data.js";
import { readAhead, streamOf } from "/agent-replay/js/viewer/read-ahead.js";
import { readThrough } from "/agent-replay/js/viewer/reader.js";
import { textMatcher } from "/agent-replay/js/viewer/text-search.js";
import {
  eachEntryAt,
  headlineSummary,
  panelView,
  transcriptAround,
} from "/agent-replay/js/viewer/paged.js";
import { browserLocale } from "/agent-replay/js/viewer/locale.js";
import { TIMED_KINDS, clockMarks } from "./playback.js";

/** Events between time-travel checkpoints, at least: they are taken at
 * chunk boundaries, so on a generated log one comes every two 256 KB
 * chunks (~870 events), and a time-travel step folds fewer than that. */
const CHECKPOINT_EVERY = 500;
/** Transcript entries sent with a state. */
const TRANSCRIPT_WINDOW = 30;
/** Rows of each OS-snapshot list and states of each process's history
 * sent for display (the panels show the latest; totals go beside them). */
const SHOWN_ROWS = 15;
const SHOWN_HISTORY = 12;
/** Bytes folded per call while loading (a progress step). */
const CHUNK = 256 * 1024;
/** Logs larger than this open as a paged index (SessionIndex): no view,
 * no copy of the events in JS; the page asks for what it shows. */
const PAGED_ABOVE = 64 << 20;

/** What worker-start.js (this worker's entry on the viewer page) started
 * before this module loaded: the .wasm's compile, the reader worker, and
 * the messages that came meanwhile. A one-file report's worker has none. */
const started = self.agentReplayStart;
// A compile that failed (a host without SIMD) is init()'s to report, as
// when it fetches the .wasm itself.
const ready = started ? started.wasm.then(init, () => init()) : init();
// The page lays out its category filters from the kind table: the
// viewer's categories, and deepstrike's kernel categories and primitives
// when the table has them.
ready.then(() =>
  post({ op: "categories", categories: eventKinds().categories, kernel: kernelFacets() }),
);

let state = null; // the full SessionState (null while a paged index is open)
let index = null; // the SessionIndex of a large log, instead of state, events and checkpoints
let events = []; // {position, kind, turn, json, sub?}, by position (holes after gaps)
let observationCounts = new Map(); // observation_kind → kernel_observation events of it
let marks = []; // [position, ms]: the times the log tells (playback's pace)
let marksSent = -1; // marks.length when last sent live (-1: send them)
let checkpoints = []; // {position, state}: light states, by position
let gaps = []; // {from, to, reason, requested_cursor, latest_cursor, recovered_at, revision}
let view = null; // what the page needs of the view as of the last event (refreshed lazily)
let series = null;
let digest = null;
let generation = 0; // bumps on every new source: stale work stops

const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

/** Starts over, for a view (the default) or for a paged index. */
function reset({ paged = false } = {}) {
  generation += 1;
  stopLive();
  index?.free();
  state?.free();
  for (const c of checkpoints) c.state.free();
  index = paged ? new SessionIndex() : null;
  state = paged ? null : new SessionState();
  events = [];
  observationCounts = new Map();
  marks = [];
  marksSent = -1;
  checkpoints = paged ? [] : [{ position: 0, state: state.checkpoint() }];
  gaps = [];
  view = null;
  series = null;
  digest = null;
}

function lastPosition() {
  return (index ?? state)?.eventCount ?? 0;
}

function maybeCheckpoint() {
  const last = checkpoints[checkpoints.length - 1];
  if (state.eventCount - last.position >= CHECKPOINT_EVERY)
    checkpoints.push({ position: state.eventCount, state: state.checkpoint() });
}

/** Keeps an event for the timeline; a kernel observation with its
 * `observation_kind` (`sub`), which the timeline filters by. */
function keep(e) {
  if (e.kind === "kernel_observation") {
    try {
      e.sub = String(JSON.parse(e.json).observation_kind);
      observationCounts.set(e.sub, (observationCounts.get(e.sub) ?? 0) + 1);
    } catch {
      // not an object: no observation kind to filter by
    }
  }
  if (TIMED_KINDS.includes(e.kind)) marks.push(...timesOf(e));
  events.push(e);
}

/** The clock marks of a kept or indexed event ({position, json}). */
function timesOf(e) {
  try {
    return clockMarks(e.position, JSON.parse(e.json));
  } catch {
    return [];
  }
}

/** The view's transcript, load errors and counts, and the chart series;
 * the rest of the view is let go (on a long log it is most of the memory). */
function shownView() {
  if (!view) {
    const whole = state.view();
    series = chartSeries(whole);
    digest = viewDigest(whole);
    view = { transcript: whole.transcript, load_errors: whole.load_errors, counts: whole.counts };
  }
  return view;
}

// ---- Loading --------------------------------------------------------------

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
 * Reads a source (`readAhead`'s or `readThrough`'s) to its end, passing it
 * to `fold(slice)` in slices: progress every PROGRESS_MS and the header so
 * far (`partial()`, a summary) every PARTIAL_MS or more. Resolves to the
 * bytes read, or null when a newer source took over.
 */
async function pump(source, total, name, { fold, count, partial }) {
  const mine = generation;
  let bytes = 0;
  let lastPost = 0;
  let nextPartial = 0;
  let turnStart = performance.now();
  const postPartial = () => {
    const now = performance.now();
    // At the second header: the page has shown the first.
    if (nextPartial !== 0) loadIntl();
    post({ op: "partial", summary: headerOf(partial()), end: count() });
    nextPartial = now + Math.max(PARTIAL_MS, (performance.now() - now) / PARTIAL_SHARE);
  };
  post({ op: "progress", bytes: 0, total, events: 0, name });
  for (;;) {
    const value = await source.next();
    if (mine !== generation) {
      source.cancel();
      return null;
    }
    if (!value) {
      loadIntl();
      return bytes;
    }
    for (let i = 0; i < value.length; i += CHUNK) {
      fold(value.subarray(i, i + CHUNK));
      // The first header goes after the first slice, not the first piece.
      if (nextPartial === 0) postPartial();
      if (performance.now() - turnStart < FOLD_TURN_MS) continue;
      await nextTask();
      if (mine !== generation) {
        source.cancel();
        return null;
      }
      turnStart = performance.now();
    }
    bytes += value.length;
    const now = performance.now();
    if (now - lastPost > PROGRESS_MS) {
      lastPost = now;
      post({ op: "progress", bytes, total, events: count(), name });
    }
    if (now >= nextPartial) postPartial();
  }
}

async function load(source, total, name) {
  reset();
  const started = performance.now();
  const bytes = await pump(source, total, name, {
    fold: (slice) => {
      state.write(slice, { onEvent: keep });
      maybeCheckpoint();
    },
    count: () => state.eventCount,
    // The header so far, while the rest loads.
    partial: () => state.summary(),
  });
  if (bytes === null) return false;
  const report = state.end({ onEvent: keep });
  shownView();
  postLists();
  post({ op: "marks", marks });
  post({
    op: "loaded",
    name,
    bytes,
    events: state.eventCount,
    framing: report.framing,
    errors: report.errors.length,
    ms: performance.now() - started,
    kinds: shownView().counts,
    observations: Object.fromEntries(observationCounts),
  });
  sendState(state.eventCount);
  return true;
}

/** The charts' tables and the runtime panels' rows of a loaded log, each
 * in a message of its own: apart (from each other and from the rest of
 * what the page does at load) no task of it runs long. */
function postLists() {
  postCharts({ op: "charts" });
  post({ op: "digest", digest: withoutCalls(digest) });
}

/** Posts `msg` with the charts of the series bucketed (`chartTables`):
 * their typed arrays are transferred, so the page reads them at once
 * instead of copying a long run's points and bucketing them itself. */
function postCharts(msg) {
  const charts = chartTables(series);
  post({ ...msg, charts }, chartBuffers(charts));
}

/** The digest the page keeps: its model calls come with each state
 * (`callsAround`), a long run's thousands of them never all at once. */
function withoutCalls(d) {
  return { ...d, calls: [] };
}

/** The model calls the transcript entries of a state show, as
 * render.js's callsShown picks them: from the first entry's position (by
 * the position of the answer they produced) to `at`. */
function callsAround(entries, at) {
  const calls = digest?.calls ?? [];
  const from = entries[0]?.position ?? 0;
  const first = upperBound(calls, from - 1, (c) => c.answer ?? c.position);
  let last = first;
  while (last < calls.length && calls[last].position <= at) last += 1;
  return calls.slice(first, last);
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

/** Whether a log of `total` bytes opens as a paged index: by the page's
 * `?paged=` as it stands in the address (`paged`: "1" every log, any other
 * value none), else when it is large. */
const pagedFor = (paged, total) => (paged == null ? total > PAGED_ABOVE : paged === "1");

/** Opens a file, a text or a URL: as a view, or as a paged index
 * (`pagedFor`), read in slices either way; with `msg.live`, then follows
 * that stream on from the log's end. */
async function open(msg) {
  const loaded = await read(msg);
  if (loaded && msg.live) followOn(msg.live, msg.cursor);
}

/** Reads a source (`open`); true once it is loaded (not when a newer one took over). */
async function read(msg) {
  const start = (source, total, name) =>
    pagedFor(msg.paged, total) ? loadIndexed(source, total, name) : load(source, total, name);
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

/** Loads a large log into a paged index: its bytes go to WebAssembly slice
 * by slice and are kept there once; JS holds no event. */
async function loadIndexed(source, total, name) {
  reset({ paged: true });
  const started = performance.now();
  // The texts are kept: room for them made at once (total is 0 when unknown).
  index.reserve(total);
  const bytes = await pump(source, total, name, {
    fold: (slice) => index.write(slice),
    count: () => index.eventCount,
    partial: () => headlineSummary(index),
  });
  if (bytes === null) return false;
  const report = index.end();
  const lists = panelView(index);
  series = indexedSeries(lists, index.turnSeries());
  digest = viewDigest(lists);
  postLists();
  post({
    op: "loaded",
    name,
    bytes,
    events: index.eventCount,
    framing: report.framing,
    errors: report.errors.length,
    ms: performance.now() - started,
    paged: true,
    kinds: lists.counts,
    // Counted when the page asks, after its first filter (every kernel
    // observation is read): the state and the timeline do not wait for them.
    observations: {},
    // Read when playback first needs them: on a log of millions of events
    // reading every attempt would delay the first view.
    marks: null,
  });
  view = { transcript: [], load_errors: lists.load_errors, counts: lists.counts };
  sendState(index.eventCount);
  return true;
}

/** The clock marks of a paged index's timed events, read a page at a time. */
function indexedMarks() {
  const out = [];
  eachEntryAt(index, index.filter({ kinds: TIMED_KINDS }), ({ position, event }) =>
    out.push(...clockMarks(position, event)),
  );
  return out;
}

// ---- State at a position --------------------------------------------------

/** The state as of position `p`: from the nearest checkpoint at or before
 * it, folding the (at most a few thousand) events after it. */
function stateAt(p) {
  const end = lastPosition();
  const at = Math.max(0, Math.min(end, Math.round(p)));
  if (index) return indexedStateAt(at, end);
  let summary;
  let snapshot;
  let shownAt = at;
  if (at === end) {
    summary = state.summary();
    snapshot = state.osSnapshot();
  } else {
    const cp = checkpoints[upperBound(checkpoints, at) - 1];
    const from = upperBound(events, cp.position);
    const to = upperBound(events, at);
    const tmp = cp.state.checkpoint();
    try {
      if (to > from)
        tmp.apply(
          `[${events
            .slice(from, to)
            .map((e) => e.json)
            .join(",")}]`,
        );
      summary = tmp.summary();
      snapshot = tmp.osSnapshot();
      shownAt = tmp.eventCount;
    } finally {
      tmp.free();
    }
  }
  const totals = shorten(summary, snapshot);
  const v = shownView();
  const cut = upperBound(v.transcript, at);
  const first = Math.max(0, cut - TRANSCRIPT_WINDOW);
  return {
    position: at,
    shownAt,
    end,
    inGap: gaps.find((g) => at >= g.from && at <= g.to) ?? null,
    summary,
    snapshot,
    totals,
    view: { transcript: v.transcript.slice(first, cut), load_errors: v.load_errors.slice(0, 200) },
    calls: callsAround(v.transcript.slice(first, cut), at),
    earlier: first,
  };
}

/** `stateAt` on a paged index: the state from its checkpoints, the
 * transcript folded around the position. */
function indexedStateAt(at, end) {
  const { summary, osSnapshot: snapshot, totals } = index.stateAt(at, { tail: SHOWN_ROWS });
  for (const p of summary.processes) p.history = p.history.slice(-SHOWN_HISTORY);
  const transcript = transcriptAround(index, at, summary.lives, { last: TRANSCRIPT_WINDOW });
  return {
    position: at,
    shownAt: at,
    end,
    inGap: null,
    summary,
    snapshot,
    totals,
    view: { transcript, load_errors: view?.load_errors ?? [] },
    calls: callsAround(transcript, at),
    earlier: 0,
  };
}

/** Keeps what the panels show of long lists (a long run has thousands of
 * signals and process states: copying them to the page would cost more than
 * the rest of a time-travel step). */
function shorten(summary, snapshot) {
  const totals = { lists: {}, history: {} };
  for (const key of ["budget_exceeded", "budget_usage_reported", "cancellations", "signals"]) {
    totals.lists[key] = snapshot[key].length;
    snapshot[key] = snapshot[key].slice(-SHOWN_ROWS);
  }
  for (const p of summary.processes) {
    totals.history[p.agent_id] = p.history.length;
    p.history = p.history.slice(-SHOWN_HISTORY);
  }
  return totals;
}

function sendState(p, seq) {
  post({ op: "state", seq, ...stateAt(p), gaps, live: liveStatus() });
}

// ---- Timeline -------------------------------------------------------------

let filtered = new Int32Array(0);

const setOf = (list) => (list?.length ? new Set(list) : null);

/** Positions of the events passing the filter; a gap is -(index + 1).
 * `kinds` holds kinds and "kernel_observation/<observation_kind>";
 * `kernel_categories` and `primitives` are deepstrike's, from the table. */
function filter({ kinds, categories, kernel_categories, primitives, query }) {
  if (index) {
    const some = (list) => (list?.length ? list : undefined);
    filtered = Int32Array.from(
      index.filter({
        kinds: some(kinds),
        categories: some(categories),
        kernelCategories: some(kernel_categories),
        primitives: some(primitives),
        query: query || undefined,
      }),
    );
    return filtered;
  }
  const kindSet = setOf(kinds);
  const catSet = setOf(categories);
  const kernelSet = setOf(kernel_categories);
  const primitiveSet = setOf(primitives);
  const matches = textMatcher(query);
  const out = [];
  let g = 0;
  for (const e of events) {
    while (g < gaps.length && gaps[g].from <= e.position) out.push(-++g);
    if (kindSet && !kindSet.has(e.kind) && !kindSet.has(`${e.kind}/${e.sub}`)) continue;
    if (catSet && !catSet.has(categoryOf(e.kind))) continue;
    if (kernelSet || primitiveSet) {
      const facets = kernelFacetsOf(e.kind);
      if (kernelSet && !kernelSet.has(facets.kernel_category)) continue;
      if (primitiveSet && !primitiveSet.has(facets.primitive)) continue;
    }
    if (matches && !matches(e.json)) continue;
    out.push(e.position);
  }
  while (g < gaps.length) out.push(-++g);
  filtered = Int32Array.from(out);
  return filtered;
}

function eventAt(position) {
  if (index) return index.event(position);
  const i = upperBound(events, position) - 1;
  return i >= 0 && events[i].position === position ? events[i] : null;
}

function row(position) {
  if (position < 0) {
    const gap = gaps[-position - 1];
    return { gap: true, ...gap };
  }
  const e = eventAt(position);
  let parsed = null;
  try {
    parsed = JSON.parse(e.json);
  } catch {
    parsed = { kind: e.kind };
  }
  return {
    position,
    kind: e.kind,
    turn: e.turn,
    category: categoryOf(e.kind),
    label: describeEvent(parsed),
    alarming: isAlarming(parsed),
  };
}

function detail(position) {
  const e = eventAt(position);
  if (!e) return { op: "detail", position, missing: true };
  let pretty = e.json;
  let facts = [];
  try {
    const parsed = JSON.parse(e.json);
    pretty = JSON.stringify(parsed, null, 2);
    facts = eventFacts(parsed);
  } catch {
    // keep the text as it is
  }
  return {
    op: "detail",
    position,
    kind: e.kind,
    turn: e.turn,
    category: categoryOf(e.kind),
    ...kernelFacetsOf(e.kind),
    facts,
    json: pretty,
  };
}

// ---- Live -----------------------------------------------------------------

let es = null;
let live = null; // {url, status, cursor, connects}
let queue = [];
let draining = false;
let pendingGap = null;
let lastLivePost = 0;
let livePostTimer = 0;

function liveStatus() {
  return (
    live && {
      url: live.url,
      status: live.status,
      cursor: live.cursor,
      connects: live.connects,
      position: lastPosition(),
    }
  );
}

function setStatus(status) {
  if (!live) return;
  live.status = status;
  post({ op: "live", live: liveStatus(), gaps });
}

function stopLive() {
  es?.close();
  es = null;
  if (live) live.status = "disconnected";
  queue = [];
  pendingGap = null;
}

function connect(cursor) {
  es?.close();
  const url = new URL(live.url, self.location.href);
  if (cursor) url.searchParams.set("cursor", cursor);
  live.connects += 1;
  es = new EventSource(url);
  setStatus("connecting");
  es.onopen = () => setStatus("open");
  es.onerror = () => setStatus(es?.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  es.onmessage = (m) => enqueue({ type: "event", id: m.lastEventId, data: m.data });
  es.addEventListener("gap", (m) => enqueue({ type: "gap", data: m.data }));
  es.addEventListener("observation", (m) => enqueue({ type: "observation", data: m.data }));
}

async function follow(msg) {
  await ready;
  const url = msg.url;
  if (!live || live.url !== url || msg.fresh) {
    reset();
    live = { url, status: "connecting", cursor: null, connects: 0 };
  }
  connect(msg.cursor ?? live.cursor);
}

/** Follows a stream on from the log just loaded, whose last event `cursor`
 * names: the events after it are replayed, then live ones come. A paged
 * index folds no live events: it stays as loaded. */
function followOn(url, cursor) {
  if (index) {
    post({
      op: "error",
      message: "live: a log this large opens paged, which does not follow live: reload for more",
      code: "live",
    });
    return;
  }
  live = { url, status: "connecting", cursor: cursor ?? null, connects: 0 };
  connect(live.cursor);
}

function enqueue(item) {
  queue.push(item);
  if (!draining) drain();
}

/** The observation URL of a stream URL (`…/sessions/ID/stream` → `…/sessions/ID`). */
function observationUrl() {
  const u = new URL(live.url, self.location.href);
  u.pathname = u.pathname.replace(/\/stream$/, "");
  u.search = "";
  return u;
}

/** Starts over from an observation: exact state at its position, history
 * before it kept, what was missed recorded as a gap. */
function adopt(observation, gap) {
  const to = observation.state.event_count;
  // Fewer events than we folded: the source's history was truncated or
  // replaced (a new generation of a followed file). What we hold belongs to
  // the old history, so it goes, and the whole new history is the gap.
  const rewritten = to < lastPosition();
  if (rewritten) forgetHistory();
  const from = rewritten ? 1 : lastPosition() + 1;
  const next = SessionState.fromObservation(observation);
  state.free();
  state = next;
  if (rewritten || (to >= from && (gap || to > 0))) {
    gaps.push({
      from,
      to,
      rewritten,
      reason: gap?.reason ?? "not_replayed",
      requested_cursor: gap?.requested_cursor ?? null,
      latest_cursor: observation.cursor,
      revision: observation.revision,
      recovered_at: to,
    });
  }
  while (checkpoints.length > 1 && checkpoints[checkpoints.length - 1].position >= from)
    checkpoints.pop().state.free();
  checkpoints.push({ position: to, state: state.checkpoint() });
  live.cursor = observation.cursor;
  view = null;
}

/** Drops the events, counts, gaps and checkpoints of a history the source rewrote. */
function forgetHistory() {
  for (const c of checkpoints.splice(1)) c.state.free();
  events = [];
  observationCounts = new Map();
  marks = [];
  marksSent = -1;
  gaps = [];
  series = null;
  digest = null;
}

async function drain() {
  draining = true;
  const mine = generation;
  while (queue.length && mine === generation) {
    const item = queue.shift();
    try {
      if (item.type === "gap") pendingGap = JSON.parse(item.data);
      else if (item.type === "observation") {
        adopt(JSON.parse(item.data), pendingGap);
        pendingGap = null;
      } else {
        const { position } = parseCursor(item.id);
        if (position <= lastPosition()) continue; // already folded (a replay overlapping what we have)
        if (position > lastPosition() + 1) {
          // Events missing before this one: recover with a fresh observation.
          const response = await fetch(observationUrl());
          if (mine !== generation) break;
          const observation = await response.json();
          adopt(observation, { reason: "ahead", requested_cursor: live.cursor });
          if (position !== lastPosition() + 1) continue;
        }
        state.write(`${item.data}\n`, { onEvent: keep });
        maybeCheckpoint();
        live.cursor = item.id;
        view = null;
      }
    } catch (error) {
      post({
        op: "error",
        message: `live: ${error.message}`,
        code: error instanceof AgentReplayError ? error.code : "live",
      });
    }
  }
  draining = false;
  scheduleLivePost();
}

/** Sends the new state at most every 200 ms while events stream in. */
function scheduleLivePost() {
  if (livePostTimer) return;
  const wait = Math.max(0, 200 - (performance.now() - lastLivePost));
  livePostTimer = setTimeout(() => {
    livePostTimer = 0;
    lastLivePost = performance.now();
    // The marks only when new ones came: the page rebuilds the pace from them.
    const newMarks = marks.length !== marksSent;
    marksSent = marks.length;
    post({ op: "live", live: liveStatus(), gaps });
    postCharts({
      op: "grew",
      end: lastPosition(),
      kinds: shownView().counts,
      observations: Object.fromEntries(observationCounts),
      digest: withoutCalls(digest),
      marks: newMarks ? marks : undefined,
    });
  }, wait);
}

// ---- Messages -------------------------------------------------------------

self.onmessage = async ({ data: msg }) => {
  try {
    switch (msg.op) {
      case "open":
        await open(msg);
        break;
      case "live":
        await follow(msg);
        break;
      case "disconnect":
        stopLive();
        post({ op: "live", live: liveStatus(), gaps });
        break;
      case "at":
        if (state || index) sendState(msg.position, msg.seq);
        break;
      case "filter": {
        const positions = filter(msg);
        // A copy of its own, moved to the page rather than cloned again; the
        // events among them counted here (every gap is among them), not by
        // the page in a pass over millions of positions.
        const copy = positions.slice();
        const events = positions.length - (index ? 0 : gaps.length);
        post({ op: "filtered", seq: msg.seq, positions: copy, events }, [copy.buffer]);
        break;
      }
      case "rows":
        post({
          op: "rows",
          seq: msg.seq,
          start: msg.start,
          rows: Array.from(filtered.subarray(msg.start, msg.start + msg.count), row),
        });
        break;
      case "detail":
        post(detail(msg.position));
        break;
      case "marks":
        post({ op: "marks", marks: index ? indexedMarks() : marks });
        break;
      case "observations":
        // A paged log's kernel observations by kind (a view's came with it).
        if (index && view)
          post({ op: "kinds", kinds: view.counts, observations: index.observationKinds() });
        break;
      case "memory":
        post({
          op: "memory",
          ...memoryUsage(),
          events: index ? index.eventCount : events.length,
          checkpoints: index ? index.memory().checkpoints : checkpoints.length,
        });
        break;
      case "export":
        post({
          op: "export",
          view: state?.view() ?? null,
          snapshot: (index ?? state)?.osSnapshot() ?? null,
          events: index ? index.eventCount : events.length,
          gaps,
        });
        break;
      case "reader":
        break; // the reader's port: worker-start.js takes it
      default:
        throw new Error(`unknown request ${msg.op}`);
    }
  } catch (error) {
    post({
      op: "error",
      message: error.message,
      code: error instanceof AgentReplayError ? error.code : "viewer",
    });
  }
};
// What the page sent while this module loaded, in order.
for (const event of started?.held.splice(0) ?? []) self.onmessage(event);
