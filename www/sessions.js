// The runs dashboard of a followed directory (`agent-replay serve DIR`):
// one row per session, sortable and filtered, sub-agent sessions nested
// under the run that started them, charts over the runs shown, search
// across runs, and two runs picked to compare. Each session links to the
// viewer (`/sessions/ID`), which reads its file and follows it live.
//
// Live: GET /api/sessions once, then `?since=VERSION` every second, which
// answers only the rows changed and the ids removed since: a directory of
// ten thousand runs is not sent again at each poll.
import { OUTCOMES, outcomeWords } from "../js/viewer/status.js";
import { renderCharts } from "./sessions-charts.js";
import { choicesOf, fmt, nest, noFilter, visibleRows } from "./sessions-rows.js";
import { startSearch } from "./sessions-search.js";
import { ROW_PX, renderBody, renderHead } from "./sessions-table.js";

const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);

/** Everything the page shows from. */
const state = {
  rows: new Map(), // session id → row
  version: null,
  sort: { key: "written", dir: -1 },
  filter: noFilter(),
  expanded: new Set(),
  picked: [], // session ids, two at most, the older first
  fresh: new Set(), // ids changed by the last poll
  entries: [],
};

try {
  const theme = localStorage.getItem("agent-replay-theme");
  document.documentElement.dataset.theme =
    theme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
} catch {
  // storage may be off
}

const view = {
  get picked() {
    return state.picked;
  },
  get expanded() {
    return state.expanded;
  },
  get fresh() {
    return state.fresh;
  },
  onPick(id, on) {
    state.picked = state.picked.filter((p) => p !== id);
    if (on) state.picked = [...state.picked, id].slice(-2);
    showCompare();
    drawBody();
  },
  onToggle(id) {
    if (!state.expanded.delete(id)) state.expanded.add(id);
    draw();
  },
};

/** The Compare link: both picked runs' logs as their file holds them now. */
function showCompare() {
  const link = $("compare");
  const rows = state.picked.map((id) => state.rows.get(id)).filter(Boolean);
  link.hidden = rows.length !== 2;
  if (rows.length !== 2) return;
  const log = (r) =>
    `/sessions/${encodeURIComponent(r.session_id)}/log?generation=${r.generation}&bytes=${r.bytes}`;
  link.href = `/www/compare.html?${new URLSearchParams({ a: log(rows[0]), b: log(rows[1]) })}`;
  link.textContent = `Compare ${rows[0].session_id} with ${rows[1].session_id}`;
}

function drawBody() {
  renderBody($("rows"), $("scroller"), state.entries, view);
}

/** Recomputes what is shown from the rows, then draws the table, the counts and the charts. */
function draw() {
  const rows = [...state.rows.values()];
  state.entries = visibleRows(rows, state);
  renderHead($("head"), state.sort, (key) => {
    const same = state.sort.key === key;
    state.sort = { key, dir: same ? -state.sort.dir : key === "session" ? 1 : -1 };
    draw();
  });
  drawBody();
  renderCharts($("charts"), state.entries);
  const top = state.entries.filter((e) => e.depth === 0).length;
  const runs = nest(rows).top.length;
  $("shown").textContent = top === runs ? `${fmt(top)} runs` : `${fmt(top)} of ${fmt(runs)} runs`;
  $("empty").hidden = state.rows.size > 0;
  fillChoices(rows);
}

/** Keeps each filter's choices to what the rows hold (a chosen one stays). */
function fillChoices(rows) {
  const { models, tools } = choicesOf(rows);
  for (const [id, values] of [
    ["filter-model", models],
    ["filter-tool", tools],
  ]) {
    const select = $(id);
    const chosen = select.value;
    const have = [...select.options].slice(1).map((o) => o.value);
    const want = chosen && !values.includes(chosen) ? [...values, chosen] : values;
    if (have.join("\n") === want.join("\n")) continue;
    select.replaceChildren(select.options[0], ...want.map((v) => new Option(v, v)));
    select.value = chosen;
  }
}

/** Takes a list answer: the whole list, or the rows changed and removed since our version. */
function take(body) {
  state.fresh = new Set();
  if (body.full !== false) {
    const before = state.rows;
    state.rows = new Map(body.sessions.map((s) => [s.session_id, s]));
    if (state.version !== null)
      for (const s of body.sessions)
        if (JSON.stringify(before.get(s.session_id)) !== JSON.stringify(s))
          state.fresh.add(s.session_id);
  } else {
    for (const s of body.sessions) {
      state.rows.set(s.session_id, s);
      state.fresh.add(s.session_id);
    }
    for (const id of body.removed) state.rows.delete(id);
  }
  state.picked = state.picked.filter((id) => state.rows.has(id));
  const changed = state.version === null || body.version !== state.version;
  state.version = body.version;
  return changed;
}

async function poll() {
  try {
    const since = state.version === null ? "" : `?since=${state.version}`;
    const response = await fetch(`/api/sessions${since}`, { cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
    const marked = state.fresh.size > 0;
    if (take(body)) {
      draw();
      showCompare();
    } else if (marked) drawBody(); // what the last poll changed is marked until this one
    $("error").hidden = true;
    $("list-status").textContent = `updated ${new Date().toISOString().slice(11, 19)} UTC`;
    document.dispatchEvent(new CustomEvent("sessions-updated", { detail: state.version }));
  } catch (error) {
    $("error").textContent = `session list: ${error.message}`;
    $("error").hidden = false;
    $("list-status").textContent = "not updating";
  }
  setTimeout(poll, POLL_MS);
}

function startFilters() {
  $("filter-status").append(...OUTCOMES.map((o) => new Option(outcomeWords(o), o)));
  const bind = (id, key, event = "change") =>
    $(id).addEventListener(event, () => {
      state.filter = { ...state.filter, [key]: $(id).value };
      draw();
    });
  bind("filter-status", "status");
  bind("filter-error", "error");
  bind("filter-model", "model");
  bind("filter-tool", "tool");
  bind("filter-text", "text", "input");
}

$("scroller").style.setProperty("--row", `${ROW_PX}px`);
/** Draws the rows in view at the next frame, once however many scroll events come before it. */
let frame = 0;
const drawSoon = () => {
  if (!frame)
    frame = requestAnimationFrame(() => {
      frame = 0;
      drawBody();
    });
};
$("scroller").addEventListener("scroll", drawSoon, { passive: true });
addEventListener("resize", drawSoon);
startFilters();
startSearch($("search-form"), $("search"), $("search-results"), $("search-status"));
poll();
