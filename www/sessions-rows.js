// The runs dashboard's rows: what each column shows and sorts by, the
// filters, sub-agent sessions nested under the run that started them, and
// a parent's figures rolled up over its sub-agents. Pure functions over the
// rows of GET /api/sessions (no DOM), so the page and its tests share them.
// The viewer's modules are imported by their path in the repository: the
// page's import map (sessions.html) maps it to where `serve` serves them.
import { outcomeOf as statusOutcome, statusWords } from "../js/viewer/status.js";

/** Groups digits by three: the same in every locale (no Intl). */
export function fmt(n) {
  if (n === null || n === undefined) return "";
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ",");
}

/** A byte count in B, KB, MB or GB. */
export function fmtBytes(n) {
  const units = ["B", "KB", "MB", "GB"];
  let value = n;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return `${unit ? value.toFixed(1) : value} ${units[unit]}`;
}

/** A duration in ms, as `850 ms`, `12.3 s`, `4 min 05 s` or `2 h 03 min`. */
export function fmtDuration(ms) {
  if (ms === null || ms === undefined) return "";
  if (ms < 1000) return `${ms} ms`;
  const s = ms / 1000;
  if (s < 60) return `${s.toFixed(1)} s`;
  const pad = (n) => String(Math.floor(n)).padStart(2, "0");
  if (s < 3600) return `${Math.floor(s / 60)} min ${pad(s % 60)} s`;
  return `${Math.floor(s / 3600)} h ${pad((s % 3600) / 60)} min`;
}

/** A time as `YYYY-MM-DD HH:MM:SS` (UTC): one format in every locale. */
export function fmtTime(ms) {
  if (ms === null || ms === undefined) return "";
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

/** A u64 of the API (a number, or a decimal string past 2^53) as a number, for sums and sorts. */
const num = (v) => (v === null || v === undefined ? null : Number(v));

/**
 * A run's outcome, one of status.js's `OUTCOMES` (the status filter's
 * values). A standalone workflow's log never finishes: it is done when its
 * workflow completed, failed if a sub-agent ended otherwise.
 */
export function outcomeOf(row, children = []) {
  if (row.status.state === "running" && row.workflow_done) {
    const ended = row.sub_agents.every(
      (p) => (p.result_termination ?? "completed") === "completed",
    );
    const childFailed = children.some((c) => outcomeOf(c) === "failed");
    return ended && !childFailed ? "completed" : "failed";
  }
  return statusOutcome(row.status);
}

/** The words of a status: the viewer header's, or a finished workflow's. */
export function statusLabel(row, children = []) {
  if (row.status.state === "running" && row.workflow_done)
    return `workflow finished: ${outcomeOf(row, children)}`;
  return statusWords(row.status);
}

/**
 * The figures a row shows: its own, or for a run with sub-agent sessions,
 * summed over it and them (a workflow's own log has no turns or tokens of
 * its own: its sub-agents do the work), its clock spanning them all.
 */
export function figuresOf(row, children = []) {
  const all = [row, ...children];
  const sum = (get) => all.reduce((total, r) => total + (num(get(r)) ?? 0), 0);
  const starts = all.map((r) => num(r.started_ms)).filter((v) => v !== null);
  const ends = all.map((r) => num(r.ended_ms)).filter((v) => v !== null);
  const started = starts.length ? Math.min(...starts) : null;
  const ended = ends.length ? Math.max(...ends) : null;
  return {
    session: row.session_id,
    status: statusLabel(row, children),
    outcome: outcomeOf(row, children),
    started,
    duration: started !== null && ended !== null ? ended - started : null,
    turns: sum((r) => r.turns),
    models: [...new Set(all.flatMap((r) => r.models))].join(", "),
    input_tokens: sum((r) => r.input_tokens),
    output_tokens: sum((r) => r.output_tokens),
    tool_calls: sum((r) => r.tool_calls),
    tool_errors: sum((r) => r.errors.tool_errors),
    denials: sum((r) => r.errors.denied_tools),
    events: sum((r) => r.events),
    size: sum((r) => r.bytes),
    written: Math.max(...all.map((r) => r.modified_ms)),
  };
}

/** The columns, in order: key (of figuresOf), heading, and whether it is a number. */
export const COLUMNS = [
  ["session", "session", false],
  ["status", "status", false],
  ["started", "started (UTC)", true],
  ["duration", "duration", true],
  ["turns", "turns", true],
  ["models", "model", false],
  ["input_tokens", "input tok", true],
  ["output_tokens", "output tok", true],
  ["tool_calls", "tool calls", true],
  ["tool_errors", "tool errors", true],
  ["denials", "denials", true],
  ["events", "events", true],
  ["size", "size", true],
  ["written", "written", true],
];

/** The runs as a tree: the top-level rows, and each parent's sub-agent rows by its id. */
export function nest(rows) {
  const ids = new Set(rows.map((r) => r.session_id));
  const children = new Map();
  const top = [];
  for (const row of rows) {
    const parent = row.parent_session_id;
    if (parent && ids.has(parent)) {
      if (!children.has(parent)) children.set(parent, []);
      children.get(parent).push(row);
    } else top.push(row);
  }
  return { top, children };
}

/** The filters that let everything through. */
export function noFilter() {
  return { status: "", error: "", model: "", tool: "", text: "" };
}

/** Whether one row (its own data) passes `filter`. */
export function passes(row, filter) {
  if (filter.status && outcomeOf(row) !== filter.status) return false;
  const e = row.errors;
  if (filter.error === "tool_errors" && !e.tool_errors) return false;
  if (filter.error === "denials" && !e.denied_tools) return false;
  if (filter.error === "load_errors" && !e.load_errors && !row.read_error) return false;
  if (
    filter.error === "any" &&
    !(e.tool_errors || e.denied_tools || e.load_errors || row.read_error)
  )
    return false;
  if (filter.error === "none" && (e.tool_errors || e.denied_tools || e.load_errors)) return false;
  if (filter.model && !row.models.includes(filter.model)) return false;
  if (filter.tool && !row.tools.some((t) => t.name === filter.tool)) return false;
  const text = filter.text.trim().toLowerCase();
  if (text) {
    const fields = [row.session_id, row.goal ?? "", row.agent_id ?? "", ...row.models];
    if (!fields.some((f) => f.toLowerCase().includes(text))) return false;
  }
  return true;
}

/**
 * The rows to show, in order, each `{row, children, figures, depth}`: the
 * top-level runs that pass the filter (or have a sub-agent that does),
 * sorted by `sort` ({key, dir: 1 or -1}); under each expanded one, its
 * sub-agents that pass (all of them when the parent itself does), sorted alike.
 */
export function visibleRows(rows, { filter, sort, expanded }) {
  const { top, children } = nest(rows);
  const compare = comparer(sort);
  const shown = [];
  for (const row of top) {
    const kids = children.get(row.session_id) ?? [];
    const own = passes(row, filter);
    const kidsShown = own ? kids : kids.filter((k) => passes(k, filter));
    if (!own && !kidsShown.length) continue;
    shown.push({ row, children: kids, kidsShown, figures: figuresOf(row, kids), depth: 0 });
  }
  shown.sort(compare);
  const out = [];
  for (const entry of shown) {
    out.push(entry);
    if (!expanded.has(entry.row.session_id)) continue;
    const kids = entry.kidsShown.map((k) => ({
      row: k,
      children: [],
      figures: figuresOf(k),
      depth: 1,
    }));
    out.push(...kids.sort(compare));
  }
  return out;
}

/** Orders entries by a column; empty values last either way, then by session id. */
function comparer({ key, dir }) {
  return (a, b) => {
    const x = a.figures[key];
    const y = b.figures[key];
    const empty = (v) => v === null || v === undefined || v === "";
    if (empty(x) !== empty(y)) return empty(x) ? 1 : -1;
    const order = typeof x === "number" ? x - y : String(x).localeCompare(String(y));
    return order * dir || a.row.session_id.localeCompare(b.row.session_id);
  };
}

/** The filter's choices: every status, model and tool the rows hold, sorted. */
export function choicesOf(rows) {
  const models = new Set();
  const tools = new Set();
  for (const row of rows) {
    for (const m of row.models) models.add(m);
    for (const t of row.tools) tools.add(t.name);
  }
  return { models: [...models].sort(), tools: [...tools].sort() };
}
