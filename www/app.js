// The viewer page: sources (file, drop, ?log=, live stream), the timeline,
// the time-travel scrubber and the live panel around <agent-session-viewer>.
// All loading and folding happens in worker.js; this file only renders.
import { chartSeries, chartTables, num, renderHeader } from "agent-replay/viewer";
import { decodeLink, encodeLink } from "./links.js";
import { Pace, PlaybackClock, UNTIMED_EVENTS_PER_SECOND } from "./playback.js";

const $ = (id) => document.getElementById(id);
// A one-file report (`agent-replay report`) brings its own worker and log (www/report.js).
const embedded = globalThis.agentReplayEmbedded;
// The page's worker was started by index.html, before this module loaded.
const started = embedded ? null : globalThis.agentReplayWorker;
const worker =
  embedded?.startWorker() ??
  started?.worker ??
  new Worker("/www/worker-start.js", { type: "module" });
const viewer = $("viewer");
const ROW = 26;
/** How long the page waits for its worker's first word (worker-start.js
 * says "started" on its first line) before it says the viewer did not
 * start: a worker that never runs leaves no error of its own, only a page
 * that shows nothing but its top bar. */
const WORKER_START_MS = 15_000;
const NOT_STARTED = "The viewer's worker did not start: reload the page.";
/** Whether the worker has said anything yet. */
let workerHeard = false;
setTimeout(() => workerHeard || showError(NOT_STARTED, { keep: true }), WORKER_START_MS);

let end = 0; // the last position loaded
let shown = 0; // the position the panels show
let wanted = null; // a position asked for while another request runs
let inFlight = false;
let followLatest = true;
let seq = 0;
let filtered = new Int32Array(0);
let rows = new Map(); // filtered index → row
let requested = new Set(); // row blocks asked for
let selected = null; // selected position
let liveUrl = null;
const exportWaiters = [];
const NO_CHARTS = chartTables(
  chartSeries({ entropy: { samples: [], alerts: [] }, budgets: { usage: [] } }),
);
let charts = NO_CHARTS; // the charts' tables of the whole log (the viewer cuts them at the position)
let digest = null; // the runtime panels' rows of the whole log (viewDigest), cut likewise;
// its model calls come with each state (those its transcript entries show)

// ---- Worker messages -------------------------------------------------------

worker.onmessage = ({ data: msg }) => {
  if (!workerHeard) {
    workerHeard = true;
    // Late rather than never: what the page said is no longer so.
    if ($("error").textContent === NOT_STARTED) $("error").hidden = true;
  }
  switch (msg.op) {
    case "categories":
      addCategoryChips(msg.categories);
      return addKernelChips(msg.kernel);
    case "progress":
      return showProgress(msg);
    case "charts":
      charts = msg.charts;
      return;
    case "digest":
      digest = msg.digest;
      return;
    case "loaded":
      return loaded(msg);
    case "kinds":
      return fillKinds(msg.kinds, msg.observations);
    case "partial":
      return showPartial(msg);
    case "state":
      return showState(msg);
    case "filtered":
      if (msg.seq !== seq) return;
      showFiltered(msg.positions, msg.events);
      return filterAnswered();
    case "rows":
      return msg.seq === seq ? addRows(msg.start, msg.rows) : undefined;
    case "detail":
      return showDetail(msg);
    case "marks":
      return pacedNow(msg.marks);
    case "live":
      return showLive(msg);
    case "grew":
      return grew(msg);
    case "export":
    case "memory":
      for (const w of exportWaiters.splice(0)) w(msg);
      return;
    case "error":
      // A filter that failed is answered too, so the search box never waits.
      filterAnswered();
      return showError(msg.message);
  }
};
worker.onerror = (e) => showError(`worker: ${e.message}`);
// Once this module has run (the handlers need its state).
queueMicrotask(() => {
  for (const event of started?.early.splice(0) ?? []) worker.onmessage(event);
});

function ask(msg) {
  worker.postMessage(msg);
}

// ---- Sources ---------------------------------------------------------------

function startSource() {
  charts = NO_CHARTS;
  digest = null;
  $("partial").replaceChildren();
  $("welcome").hidden = true;
  $("error").hidden = true;
  $("detail").hidden = true;
  selected = null;
  end = 0;
  shown = 0;
  followLatest = true;
  complete = false;
  demoFollowed = false;
  pause();
  setMarks([]);
  writeHash();
}

/** Opens a log, and with `source.live` follows that stream on from the
 * log's end (from `source.cursor`, its last event's): a followed session's
 * whole history, then what comes. `asked`: its open was posted already
 * (index.html posts the page's `?log=`). */
function openLog(source, { asked = false } = {}) {
  startSource();
  liveUrl = source.live ?? null;
  $("live").hidden = !liveUrl;
  $("gaps").replaceChildren();
  delete $("gaps").dataset.key;
  if (asked) return;
  // The page's `?paged=` as it stands: the worker says what it means.
  ask({ op: "open", paged: new URLSearchParams(location.search).get("paged"), ...source });
}

function followLive(url, cursor) {
  startSource();
  liveUrl = url;
  $("live").hidden = false;
  $("main").hidden = false;
  $("scrub").hidden = false;
  $("gaps").replaceChildren();
  delete $("gaps").dataset.key;
  ask({ op: "live", url, cursor, fresh: true });
}

/** Opens a file chosen or dropped: the worker reads it, but on a report's
 * page the page does (`fileSource`, www/report.js). */
function openFile(file) {
  if (!embedded) return openLog({ file });
  embedded.fileSource(file).then(openLog, (error) => showError(`${file.name}: ${error.message}`));
}

$("file").addEventListener("change", (e) => {
  const file = e.target.files[0];
  if (file) openFile(file);
  e.target.value = "";
});

$("url-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const url = $("url").value.trim();
  if (!url) return;
  const live = e.submitter?.value === "live" || /\/stream(\?|$)/.test(url);
  const params = new URLSearchParams(live ? { live: url } : { log: url });
  history.replaceState(null, "", `?${params}`);
  live ? followLive(url) : openLog({ url });
});

let dragDepth = 0;
addEventListener("dragenter", (e) => {
  if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
  dragDepth += 1;
  $("drop").hidden = false;
});
addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $("drop").hidden = true;
});
addEventListener("dragover", (e) => e.preventDefault());
addEventListener("drop", (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("drop").hidden = true;
  const file = e.dataTransfer?.files?.[0];
  if (file) openFile(file);
});

// ---- Loading progress ------------------------------------------------------

let progressShown = null; // the progress message drawn at the next frame

/** Shows the latest progress at the next frame (at most one redraw a
 * frame, however often the worker reports). */
function showProgress(msg) {
  if (!progressShown) requestAnimationFrame(drawProgress);
  progressShown = msg;
}

function drawProgress() {
  if (!progressShown) return; // loaded, or failed, meanwhile
  const { bytes, total, events, name } = progressShown;
  progressShown = null;
  $("progress").hidden = false;
  const fraction = total ? Math.min(1, bytes / total) : 1;
  $("progress-fill").style.transform = `scaleX(${fraction.toFixed(3)})`;
  $("progress-fill").classList.toggle("indeterminate", !total);
  const file = document.createElement("code");
  file.textContent = name;
  $("progress-text").replaceChildren(
    "Loading ",
    file,
    `: ${(bytes / 1e6).toFixed(1)} MB${total ? ` of ${(total / 1e6).toFixed(1)} MB` : ""} · ${num(events)} events`,
  );
}

/** Lays out a header, hidden, at start-up: its layout finds the fonts a
 * header uses, each by a synchronous call to the browser process, which
 * answers late once the log streams in; the first header's layout then
 * finds them in the renderer's cache. Removed once laid out. */
function warmHeaderFonts() {
  const sample = {
    run: { run_id: "run", agent_id: "agent", goal: "goal" },
    status: { state: "running" },
    errors: {
      tool_errors: 1,
      fatal_tool_errors: 0,
      denied_tools: 0,
      unknown_events: 0,
      load_errors: 0,
    },
    event_count: 1234,
    revision: 1,
    total_tokens: 1,
  };
  const box = document.createElement("div");
  box.className = "asv-root";
  box.setAttribute("aria-hidden", "true");
  // Laid out, its text shaped, but never seen.
  box.style.cssText =
    "position: absolute; visibility: hidden; width: 0; height: 0; overflow: hidden";
  box.append(renderHeader(sample));
  document.body.append(box);
  requestAnimationFrame(() => setTimeout(() => box.remove()));
}

/** The header of what is folded so far, shown while a large log loads (only
 * the header: the worker is busy folding, so the page does little). */
function showPartial(msg) {
  $("partial").replaceChildren(renderHeader(msg.summary));
  requestAnimationFrame(() =>
    document.dispatchEvent(new CustomEvent("viewer-partial", { detail: { events: msg.end } })),
  );
}

function loaded(msg) {
  progressShown = null;
  $("progress").hidden = true;
  $("partial").replaceChildren();
  $("main").hidden = false;
  $("scrub").hidden = false;
  end = msg.events;
  document.title = `${msg.name.split("/").pop()} · agent-replay viewer`;
  fillKinds(msg.kinds, msg.observations);
  // A loaded log's marks came before it (a paged log's are read on demand).
  if (msg.paged) setMarks(null);
  setScrubber(end);
  refilter();
  // Asked after the first filter, so the timeline does not wait for them.
  if (msg.paged && msg.kinds.kernel_observation) ask({ op: "observations" });
  complete = true;
  applyPendingLink();
  document.dispatchEvent(new CustomEvent("viewer-loaded", { detail: msg }));
}

// ---- State and time travel ---------------------------------------------------

function requestAt(position) {
  if (inFlight) {
    wanted = position;
    return;
  }
  inFlight = true;
  ask({ op: "at", position });
}

function showState(msg) {
  inFlight = false;
  end = msg.end;
  shown = msg.position;
  viewer.data = {
    view: msg.view,
    snapshot: msg.snapshot,
    summary: msg.summary,
    totals: msg.totals,
    at: msg.position,
    charts,
    digest: digest && { ...digest, calls: msg.calls },
    earlier: msg.earlier,
  };
  setScrubber(msg.position);
  // The label changes once the panels show this state.
  viewer.addEventListener(
    "rendered",
    () => {
      if (shown !== msg.position) return;
      const turn = msg.summary.revision;
      $("position").textContent = msg.inGap
        ? `event ${num(msg.position)} of ${num(end)} is in a gap: state as of ${num(msg.shownAt)}`
        : `event ${num(msg.position)} of ${num(end)} · turn ${turn}${msg.position === end ? " · latest" : ""}`;
      document.dispatchEvent(new CustomEvent("viewer-state", { detail: { position: shown, end } }));
    },
    { once: true },
  );
  writeHash();
  if (msg.live) showLive({ live: msg.live, gaps: msg.gaps });
  paintTimeline();
  if (wanted !== null && wanted !== shown) {
    const next = wanted;
    wanted = null;
    requestAt(next);
  } else wanted = null;
}

/** Puts the scrubber at `position` of `end`, writing only what differs: a
 * jump's input has already moved it, and writing a range input's `max` and
 * `value` again costs the same as a change. */
function setScrubber(position) {
  const s = $("scrubber");
  const max = String(end);
  const value = String(position);
  if (s.max !== max) s.max = max;
  if (s.value !== value) s.value = value;
}

/** Shows the state as of `position`; a move of the user's own (not the
 * playback clock's) moves the clock too. */
function travel(position, byClock = false) {
  const p = Math.max(0, Math.min(end, position));
  if (!byClock) {
    clock.end = end;
    clock.seek(p, performance.now());
  }
  followLatest = p >= end;
  setScrubber(p);
  requestAt(p);
}

$("scrubber").addEventListener("input", (e) => travel(Number(e.target.value)));
for (const b of document.querySelectorAll("[data-step]")) {
  b.addEventListener("click", () => {
    const step = Number(b.dataset.step);
    travel(Number.isFinite(step) ? shown + step : step > 0 ? end : 0);
  });
}

function grew(msg) {
  end = msg.end;
  charts = msg.charts;
  digest = msg.digest;
  fillKinds(msg.kinds, msg.observations);
  if (msg.marks) setMarks(msg.marks);
  applyPendingLink();
  if (followLatest) requestAt(end);
  else setScrubber(shown);
  refilter(true);
}

// ---- Timeline ------------------------------------------------------------------

const timeline = $("timeline");
const space = $("timeline-space");
const filters = { kinds: [], categories: [], kernel_categories: [], primitives: [], query: "" };

/** One filter chip per category of the kind table, and "unknown". */
function addCategoryChips(categories) {
  for (const category of [...categories, "unknown"])
    $("categories").append(chip("categories", category, `cat-${category}`));
}

/** deepstrike's kernel categories and primitives, when the kind table has
 * them: a row of chips each (events pass when they match one chip of each
 * row that has one pressed). */
function addKernelChips({ kernel_categories, primitives }) {
  $("kernel-filters").hidden = !kernel_categories.length && !primitives.length;
  for (const c of kernel_categories) $("kernel-categories").append(chip("kernel_categories", c));
  for (const p of primitives) $("primitives").append(chip("primitives", p));
}

/** A toggle chip for the filter list `key` (`categories`, ...). */
function chip(key, value, cls = "") {
  const el = document.createElement("button");
  el.type = "button";
  el.className = `chip ${cls}`;
  el.textContent = value;
  el.setAttribute("aria-pressed", String(filters[key].includes(value)));
  el.dataset.filter = key;
  el.dataset[key === "categories" ? "category" : "value"] = value;
  el.addEventListener("click", () => {
    const on = el.getAttribute("aria-pressed") !== "true";
    el.setAttribute("aria-pressed", String(on));
    filters[key] = [
      ...document.querySelectorAll(`.chip[data-filter=${key}][aria-pressed=true]`),
    ].map((c) => c.textContent);
    refilter();
  });
  return el;
}

/** The kind filter: every kind seen, kernel observations also by kind. */
function fillKinds(counts, observations = {}) {
  const select = $("kind");
  const options = [new Option("all kinds", "")];
  for (const [kind, n] of Object.entries(counts ?? {}).sort()) {
    options.push(new Option(`${kind} (${num(n)})`, kind));
    if (kind !== "kernel_observation") continue;
    for (const [sub, m] of Object.entries(observations).sort())
      options.push(new Option(`  ${kind} › ${sub} (${num(m)})`, `${kind}/${sub}`));
  }
  select.replaceChildren(...options);
  showKinds();
}

/** The kind filter as `filters.kinds` holds it: a link may name kinds the
 * log lacks, or several, which get an option of their own. */
function showKinds() {
  const select = $("kind");
  const value = filters.kinds.join(",");
  if (![...select.options].some((o) => o.value === value))
    select.append(new Option(filters.kinds.join(" + "), value));
  select.value = value;
}

$("kind").addEventListener("change", (e) => {
  filters.kinds = e.target.value ? e.target.value.split(",") : [];
  refilter();
});

// Search as you type: a query goes to the worker at once, unless a filter is
// still being answered; then only the latest query follows that answer, so
// typing over a large log never queues scans for queries already replaced.
let filterInFlight = false;
let nextQuery = null;
$("search").addEventListener("input", (e) => {
  if (filterInFlight) nextQuery = e.target.value;
  else search(e.target.value);
});

function search(query) {
  filters.query = query;
  refilter();
}

/** A filter's answer arrived: the query typed meanwhile, if any, goes next. */
function filterAnswered() {
  filterInFlight = false;
  if (nextQuery === null) return;
  const query = nextQuery;
  nextQuery = null;
  search(query);
}

function refilter(keepScroll = false) {
  seq += 1;
  filterInFlight = true;
  if (!keepScroll) timeline.scrollTop = scrollTop = 0;
  ask({ op: "filter", seq, ...filters });
  writeHash();
}

/** Shows the filter's `positions` (gaps negative), `events` of them events. */
function showFiltered(positions, events) {
  const atBottom = timeline.scrollTop + timeline.clientHeight >= space.offsetHeight - ROW;
  filtered = positions;
  rows = new Map();
  requested = new Set();
  for (const el of drawn.values()) el.remove();
  drawn = new Map();
  space.style.height = `${filtered.length * ROW}px`;
  const filtering =
    filters.kinds.length ||
    filters.categories.length ||
    filters.kernel_categories.length ||
    filters.primitives.length ||
    filters.query;
  $("match-count").textContent = filtering
    ? `${num(events)} of ${num(end)} events match`
    : `${num(events)} events`;
  if (followLatest && atBottom && liveUrl) timeline.scrollTop = space.offsetHeight;
  if (revealSelected && selected !== null) reveal(selected);
  revealSelected = false;
  paintTimeline();
}

const BLOCK = 100;
function addRows(start, list) {
  for (const [i, r] of list.entries()) rows.set(start + i, r);
  paintTimeline();
}

// The timeline's scroll offset and height, kept from events: reading them
// while painting would force a layout of the whole page.
let scrollTop = 0;
let viewHeight = 600;
new ResizeObserver(([e]) => {
  viewHeight = e.contentRect.height;
  paintTimeline();
}).observe(timeline);

let painting = 0;
function paintTimeline() {
  if (painting) return;
  painting = requestAnimationFrame(() => {
    painting = 0;
    const first = Math.max(0, Math.floor(scrollTop / ROW) - 5);
    const last = Math.min(filtered.length, Math.ceil((scrollTop + viewHeight) / ROW) + 5);
    for (let b = Math.floor(first / BLOCK); b * BLOCK < last; b++) {
      if (!requested.has(b)) {
        requested.add(b);
        ask({ op: "rows", seq, start: b * BLOCK, count: BLOCK });
      }
    }
    // Rows already drawn are kept (only their state classes change), so a
    // time-travel step does not rebuild the list.
    const next = new Map();
    for (let i = first; i < last; i++) {
      const r = rows.get(i);
      let el = drawn.get(i);
      if (!el || el.row !== r) el = rowElement(i, r);
      else if (r && !r.gap) markRow(el, r);
      next.set(i, el);
    }
    for (const [i, el] of drawn) if (next.get(i) !== el) el.remove();
    for (const el of next.values()) if (!el.isConnected) space.append(el);
    drawn = next;
  });
}

/** Row elements on screen, by filtered index. */
let drawn = new Map();

function markRow(el, r) {
  el.classList.toggle("selected", r.position === selected);
  el.classList.toggle("after", r.position > shown);
  el.setAttribute("aria-selected", String(r.position === selected));
}

function rowElement(i, r) {
  const el = document.createElement("div");
  el.row = r;
  el.className = "row";
  el.style.top = `${i * ROW}px`;
  el.dataset.index = String(i);
  if (!r) {
    el.textContent = "…";
    return el;
  }
  if (r.gap) {
    el.classList.add("gap-row");
    el.textContent = `gap: events ${num(r.from)}–${num(r.to)} ${r.reason === "not_replayed" ? "before this stream (state from its observation)" : `${r.reason}, recovered from the observation at ${r.recovered_at}`}`;
    return el;
  }
  el.dataset.position = String(r.position);
  el.setAttribute("role", "option");
  el.classList.toggle("alarming", r.alarming);
  markRow(el, r);
  const pos = document.createElement("span");
  pos.className = "pos";
  pos.textContent = `#${r.position}`;
  const turn = document.createElement("span");
  turn.className = "turn";
  turn.textContent = r.turn === null ? "" : `t${r.turn}`;
  const kind = document.createElement("span");
  kind.className = `kind cat-${r.category}`;
  kind.textContent = r.kind;
  const label = document.createElement("span");
  label.className = "label";
  label.textContent = r.label;
  el.append(pos, turn, kind, label);
  return el;
}

timeline.addEventListener("scroll", () => {
  scrollTop = timeline.scrollTop;
  paintTimeline();
});
timeline.addEventListener("click", (e) => {
  const row = e.target.closest(".row[data-position]");
  if (row) select(Number(row.dataset.position));
});
timeline.addEventListener("dblclick", (e) => {
  const row = e.target.closest(".row[data-position]");
  if (row) travel(Number(row.dataset.position));
});

function select(position) {
  selected = position;
  ask({ op: "detail", position });
  reveal(position);
  paintTimeline();
  writeHash();
}

/** Scrolls the timeline to the row of `position`, when the filter keeps it. */
function reveal(position) {
  const i = filtered.indexOf(position);
  if (i >= 0) {
    if (i * ROW < timeline.scrollTop) timeline.scrollTop = scrollTop = i * ROW;
    else if ((i + 1) * ROW > timeline.scrollTop + timeline.clientHeight)
      timeline.scrollTop = scrollTop = (i + 1) * ROW - timeline.clientHeight;
  }
}

function moveSelection(delta) {
  const events = filtered.filter((p) => p > 0);
  if (!events.length) return;
  let i = selected === null ? (delta > 0 ? -1 : events.length) : events.indexOf(selected);
  if (i < 0 && selected !== null) i = 0;
  select(events[Math.max(0, Math.min(events.length - 1, i + delta))]);
}

function showDetail(msg) {
  const d = $("detail");
  d.hidden = false;
  $("detail-title").textContent = msg.missing
    ? `#${msg.position}: not loaded`
    : `#${msg.position} · ${msg.kind}${msg.turn === null ? "" : ` · turn ${msg.turn}`} · ${msg.category}${msg.kernel_category ? ` · kernel ${msg.kernel_category}/${msg.primitive}` : ""}`;
  $("detail-facts").replaceChildren(
    ...(msg.facts ?? []).flatMap(([label, value]) => {
      const dt = document.createElement("dt");
      dt.textContent = label;
      const dd = document.createElement("dd");
      dd.textContent = String(value);
      return [dt, dd];
    }),
  );
  $("detail-json").textContent = msg.json ?? "";
}

$("detail-close").addEventListener("click", () => ($("detail").hidden = true));
$("travel").addEventListener("click", () => selected !== null && travel(selected));
viewer.addEventListener("select-position", (e) => select(e.detail.position));

// ---- Live ---------------------------------------------------------------------

function showLive({ live, gaps }) {
  if (!live) return;
  const pill = $("live-status");
  pill.textContent = live.status;
  pill.className = `pill ${live.status}`;
  $("cursor").value = live.cursor ?? "";
  $("connect").textContent =
    live.status === "disconnected" || live.status === "closed" ? "Connect" : "Disconnect";
  const list = $("gaps");
  // Gaps are only added, except when the source rewrites its history.
  const key = gaps.map((g) => `${g.from}-${g.to}-${g.rewritten}`).join();
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(
      ...gaps.map((g) => {
        const li = document.createElement("li");
        li.textContent = g.rewritten
          ? `the log was truncated or replaced: its history restarts${g.to ? `; events 1–${g.to} came as an observation` : ""}`
          : g.reason === "not_replayed"
            ? `events 1–${g.to} came as the first observation (not replayed)`
            : `gap (${g.reason}): events ${g.from}–${g.to} missed; recovered from the observation at event ${g.recovered_at}, revision ${g.revision}`;
        return li;
      }),
    );
  }
}

$("copy-cursor").addEventListener("click", async () => {
  const input = $("cursor");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand?.("copy");
  }
  $("copy-cursor").textContent = "Copied";
  setTimeout(() => ($("copy-cursor").textContent = "Copy"), 1200);
});

$("resume-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const cursor = $("resume-cursor").value.trim();
  if (cursor && liveUrl) ask({ op: "live", url: liveUrl, cursor });
});

$("connect").addEventListener("click", () => {
  if (!liveUrl) return;
  if ($("connect").textContent === "Disconnect") ask({ op: "disconnect" });
  else ask({ op: "live", url: liveUrl });
});

// ---- Errors, theme, keyboard ------------------------------------------------------

/** Shows `message` for a while, or until the next one with `keep`. */
function showError(message, { keep = false } = {}) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  progressShown = null;
  $("progress").hidden = true;
  clearTimeout(showError.timer);
  if (!keep) showError.timer = setTimeout(() => (box.hidden = true), 8000);
}

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem("agent-replay-theme", theme);
  } catch {
    // storage may be off
  }
}
const savedTheme = (() => {
  try {
    return localStorage.getItem("agent-replay-theme");
  } catch {
    return null;
  }
})();
setTheme(savedTheme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
$("theme").addEventListener("click", () => {
  setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  viewer.redraw();
});
$("help-button").addEventListener("click", () => $("help").showModal());

addEventListener("keydown", (e) => {
  const typing =
    e.target instanceof HTMLInputElement ||
    e.target instanceof HTMLSelectElement ||
    e.target instanceof HTMLTextAreaElement;
  if (e.key === "Escape") {
    if (e.target === $("search") && $("search").value) {
      $("search").value = "";
      filters.query = "";
      refilter();
    } else $("detail").hidden = true;
    return;
  }
  // Space plays from the scrubber too (a range input types nothing).
  const onScrubber = e.target === $("scrubber") && e.key === " ";
  if ((typing && !onScrubber) || e.metaKey || e.ctrlKey || e.altKey) return;
  const step = e.shiftKey ? 100 : 1;
  switch (e.key) {
    case " ":
      // A focused button takes space as its own click.
      if (e.target instanceof HTMLButtonElement) break;
      e.preventDefault();
      togglePlay();
      break;
    case "/":
      e.preventDefault();
      $("search").focus();
      break;
    case "j":
    case "ArrowDown":
      e.preventDefault();
      moveSelection(1);
      break;
    case "k":
    case "ArrowUp":
      e.preventDefault();
      moveSelection(-1);
      break;
    case "Enter":
      if (selected !== null) travel(selected);
      break;
    case "ArrowLeft":
      e.preventDefault();
      travel(shown - step);
      break;
    case "ArrowRight":
      e.preventDefault();
      travel(shown + step);
      break;
    case "Home":
      e.preventDefault();
      travel(0);
      break;
    case "End":
      e.preventDefault();
      travel(end);
      break;
    case "t":
      $("theme").click();
      break;
    case "?":
      $("help").showModal();
      break;
  }
});

/** For automation and debugging: the full state the viewer holds. */
window.agentReplayViewer = {
  exportState: () =>
    new Promise((resolve) => {
      exportWaiters.push(resolve);
      ask({ op: "export" });
    }),
  /** The worker's WebAssembly memory (`memoryUsage()`), events and checkpoints held. */
  memory: () =>
    new Promise((resolve) => {
      exportWaiters.push(resolve);
      ask({ op: "memory" });
    }),
  get position() {
    return shown;
  },
  get end() {
    return end;
  },
  get playing() {
    return clock.playing;
  },
};

// ---- Deep links ------------------------------------------------------------------
// The hash holds where the viewer is (links.js): written as the user moves
// (replaceState, in idle time once the moves pause, at least every second
// while they go on: no history entry per step), read at start and when the
// user edits it.

/** The page's link not yet applied: its filters are, at once; its position
 * and selection wait until the log holds them (a live session streams them
 * in; a loaded log clamps them to its end). The demo does not take it: a
 * link without ?log= or ?live= waits for the file or URL opened next. */
let pendingLink = null;
let complete = false; // the source is loaded to its end (not live)
let demoFollowed = false; // following the server's demo
let revealSelected = false; // scroll to the selection once the timeline is filtered

function currentLink() {
  return {
    at: pendingLink?.at ?? (followLatest ? null : shown),
    sel: pendingLink?.sel ?? selected,
    kinds: filters.kinds,
    categories: filters.categories,
    kernel_categories: filters.kernel_categories,
    primitives: filters.primitives,
    query: filters.query,
  };
}

/** Runs `f` when the page is idle (Safari lacks requestIdleCallback). */
const whenIdle = globalThis.requestIdleCallback ?? ((f) => setTimeout(f));

/** The hash is written once the moves pause this long (ms)... */
const HASH_QUIET = 250;
/** ...or this long after the first move it lacks, while they go on
 * (playback, a drag). Each replaceState costs the browser process work of
 * its own, which a step on a 2-core machine waits behind. */
const HASH_MAX_WAIT = 1000;

let hashTimer = 0;
let hashDue = 0; // when the oldest move not yet in the hash is to be written
function writeHash() {
  const now = performance.now();
  if (!hashTimer) hashDue = now + HASH_MAX_WAIT;
  clearTimeout(hashTimer);
  hashTimer = setTimeout(
    () => {
      hashTimer = 0;
      whenIdle(replaceHash, { timeout: 1000 });
    },
    Math.min(HASH_QUIET, hashDue - now),
  );
}

/** Writes the hash of where the viewer is now, in idle time: a
 * replaceState can take milliseconds, which a step's frame goes without. */
function replaceHash() {
  const hash = encodeLink(currentLink());
  if (location.hash.replace(/^#/, "") === hash) return;
  history.replaceState(history.state, "", hash ? `#${hash}` : location.pathname + location.search);
}

/** Applies a link's filters and search to the controls, and keeps its
 * position and selection for `applyPendingLink`. */
function openLink(link) {
  filters.kinds = link.kinds;
  filters.categories = link.categories;
  filters.kernel_categories = link.kernel_categories;
  filters.primitives = link.primitives;
  filters.query = link.query;
  $("search").value = link.query;
  for (const c of document.querySelectorAll(".chip[data-filter]"))
    c.setAttribute("aria-pressed", String(filters[c.dataset.filter].includes(c.textContent)));
  showKinds();
  pendingLink = link.at === null && link.sel === null ? null : link;
}

/** Travels to the pending link's position and selects its event once the
 * log holds them, or clamped to the end once the log is loaded. */
function applyPendingLink() {
  const link = pendingLink;
  if (!link || demoFollowed || (!complete && !liveUrl)) return;
  if (!complete && end < Math.max(link.at ?? 0, link.sel ?? 0)) return;
  pendingLink = null;
  if (link.at !== null) {
    travel(link.at);
    // A live session's link is a moment: stay there as events arrive.
    if (liveUrl) followLatest = false;
  }
  if (link.sel !== null && link.sel >= 1 && link.sel <= end) {
    select(link.sel);
    revealSelected = true;
  }
  writeHash();
}

addEventListener("hashchange", () => {
  openLink(decodeLink(location.hash));
  refilter();
  applyPendingLink();
});

if (location.hash) openLink(decodeLink(location.hash));

// ---- Playback --------------------------------------------------------------------
// The clock (playback.js) moves the position forward at the log's pace;
// the page travels where it says. A move of the user's own seeks it.

const clock = new PlaybackClock();
let playTimer = 0;

let paceUnread = false; // a paged log's marks are read on the first play
let playWhenPaced = false;

/** The playback pace from the worker's clock marks (sent when they change;
 * null: not read yet). */
function setMarks(marks) {
  paceUnread = marks === null;
  playWhenPaced = false;
  clock.pace = new Pace(marks ?? []);
  $("pace").textContent = paceUnread
    ? ""
    : clock.pace.timed
      ? "log times"
      : `${UNTIMED_EVENTS_PER_SECOND} events/s (no times in the log)`;
}

/** The marks read on demand arrived: play if asked to meanwhile. */
function pacedNow(marks) {
  const waiting = playWhenPaced;
  setMarks(marks);
  if (waiting) play();
}

function play() {
  if (paceUnread) {
    playWhenPaced = true;
    $("pace").textContent = "reading the log's times…";
    return ask({ op: "marks" });
  }
  clock.end = end;
  clock.play(shown, performance.now());
  if (clock.position !== shown) travel(clock.position, true);
  followLatest = false;
  showPlaying();
  schedule();
}

function pause() {
  clock.pause(performance.now());
  showPlaying();
}

function togglePlay() {
  if (clock.playing || playWhenPaced) {
    playWhenPaced = false;
    pause();
  } else if (end > 0) play();
}

/** The next tick when the next step is due (at most 60 a second). */
function schedule() {
  clearTimeout(playTimer);
  playTimer = clock.playing ? setTimeout(tick, Math.max(16, clock.untilNext())) : 0;
}

function tick() {
  clock.end = end;
  const p = clock.advance(performance.now());
  if (p !== shown) travel(p, true);
  if (!clock.playing) showPlaying();
  schedule();
}

function showPlaying() {
  const b = $("play");
  b.textContent = clock.playing ? "⏸" : "▶";
  b.setAttribute("aria-pressed", String(clock.playing));
  b.setAttribute("aria-label", clock.playing ? "Pause" : "Play");
}

$("play").addEventListener("click", togglePlay);
$("speed").addEventListener("change", (e) => {
  clock.setSpeed(Number(e.target.value), performance.now());
  schedule();
});
$("skip-idle").addEventListener("change", (e) => {
  clock.setSkipIdle(e.target.checked, performance.now());
  schedule();
});

// ---- Start ----------------------------------------------------------------------

const params = new URLSearchParams(location.search);
if (embedded) {
  embedded.log().then(
    (log) => openLog(log),
    (error) => showError(`report: ${error.message}`),
  );
} else if (params.get("log")) {
  $("url").value = params.get("log");
  const live = params.get("live") ?? undefined;
  const cursor = params.get("cursor") ?? undefined;
  openLog({ url: params.get("log"), live, cursor }, { asked: Boolean(started?.opened) });
} else if (params.get("live")) {
  $("url").value = params.get("live");
  followLive(params.get("live"), params.get("cursor") ?? undefined);
} else {
  followDemo();
}
// In a task of its own: its layout is then not part of this module's.
setTimeout(warmHeaderFonts);

/** Follows the server's demo (the sample played live) from its start, and
 * offers the next run when the server begins one. */
async function followDemo() {
  const current = async () => {
    try {
      const r = await fetch("/demo");
      return r.ok ? await r.json() : null;
    } catch {
      return null;
    }
  };
  const demo = await current();
  if (!demo) return;
  const follow = (d) => {
    $("url").value = d.stream;
    $("next-run").hidden = true;
    followLive(d.stream, d.start_cursor);
    demoFollowed = true;
  };
  follow(demo);
  let following = demo.session_id;
  setInterval(async () => {
    const now = liveUrl?.endsWith(`/sessions/${following}/stream`) ? await current() : null;
    if (!now || now.session_id === following) return;
    const link = $("next-run");
    link.hidden = false;
    link.onclick = (e) => {
      e.preventDefault();
      following = now.session_id;
      follow(now);
    };
  }, 5000);
}
