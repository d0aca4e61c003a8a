// The timeline: the log's events under the filters (filters.js), as rows
// the worker sends in blocks, drawn only where the list is scrolled to; the
// selection, and its event's detail asked of the worker (detail.js).
import { num } from "/agent-replay/js/viewer/dom.js";
import { writeHash } from "./deep-link.js";
import { filters } from "./filters.js";
import { $, page, viewer } from "./page-state.js";
import { ask } from "./page-worker.js";
import { travel } from "./scrubber.js";

const timeline = $("timeline");
const space = $("timeline-space");
const ROW = 26;
let seq = 0; // the current filter's, in its answers
let filtered = new Int32Array(0);
let rows = new Map(); // filtered index → row
let requested = new Set(); // row blocks asked for

/** Asks the worker for the timeline under the current filters (a new
 * `seq`: answers to earlier filters are dropped); `keepScroll` as a log
 * grows. */
export function refilter(keepScroll = false) {
  seq += 1;
  filterInFlight = true;
  if (!keepScroll) timeline.scrollTop = scrollTop = 0;
  ask({ op: "filter", seq, ...filters });
  writeHash();
}

/** Whether the worker's answer (`filtered`, `rows`) is to the current filter. */
export function answersCurrentFilter(msg) {
  return msg.seq === seq;
}

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
export function filterAnswered() {
  filterInFlight = false;
  if (nextQuery === null) return;
  const query = nextQuery;
  nextQuery = null;
  search(query);
}

/** Shows the filter's `positions` (gaps negative), `events` of them events. */
export function showFiltered(positions, events) {
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
    ? `${num(events)} of ${num(page.end)} events match`
    : `${num(events)} events`;
  if (page.followLatest && atBottom && page.liveUrl) timeline.scrollTop = space.offsetHeight;
  if (page.revealSelected && page.selected !== null) reveal(page.selected);
  page.revealSelected = false;
  paintTimeline();
}

const BLOCK = 100;
export function addRows(start, list) {
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
export function paintTimeline() {
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
  el.classList.toggle("selected", r.position === page.selected);
  el.classList.toggle("after", r.position > page.shown);
  el.setAttribute("aria-selected", String(r.position === page.selected));
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
viewer.addEventListener("select-position", (e) => select(e.detail.position));

export function select(position) {
  page.selected = position;
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

export function moveSelection(delta) {
  const events = filtered.filter((p) => p > 0);
  if (!events.length) return;
  let i = page.selected === null ? (delta > 0 ? -1 : events.length) : events.indexOf(page.selected);
  if (i < 0 && page.selected !== null) i = 0;
  select(events[Math.max(0, Math.min(events.length - 1, i + delta))]);
}
