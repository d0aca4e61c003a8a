// The runs table: sortable headings and only the rows in view (plus a
// margin) in the DOM, between two spacers that keep the scroll height, so
// ten thousand runs cost the page a few dozen rows. Rows have one height.
import { toneColors } from "../js/viewer/palette.js";
import { outcomeTone } from "../js/viewer/status.js";
import { COLUMNS, fmt, fmtBytes, fmtDuration, fmtTime } from "./sessions-rows.js";

/** Each row's height in pixels (sessions.html's CSS sets the same). */
export const ROW_PX = 30;
/** Rows drawn above and below those in view. */
const MARGIN_ROWS = 10;

function cell(content, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  td.append(content);
  return td;
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return fmtTime(ms);
}

/** What each column shows of an entry's figures. */
const SHOW = {
  started: (f) => fmtTime(f.started),
  duration: (f) => fmtDuration(f.duration),
  size: (f) => fmtBytes(f.size),
  written: (f) => ago(f.written),
  models: (f) => f.models,
};

/** The first cell: the pick box for Compare, the nesting toggle, the viewer link, notes. */
function sessionCell(entry, view) {
  const { row, children, depth } = entry;
  const td = cell("", "name");
  td.style.paddingLeft = `${8 + depth * 22}px`;
  const pick = document.createElement("input");
  pick.type = "checkbox";
  pick.title = "Pick two runs to compare";
  pick.dataset.testid = "pick";
  pick.checked = view.picked.includes(row.session_id);
  pick.addEventListener("change", () => view.onPick(row.session_id, pick.checked));
  td.append(pick);
  if (children.length) {
    const open = view.expanded.has(row.session_id);
    const toggle = document.createElement("button");
    toggle.className = "toggle";
    toggle.dataset.testid = "toggle";
    toggle.textContent = `${open ? "▾" : "▸"} ${children.length}`;
    toggle.title = `${children.length} sub-agent sessions`;
    toggle.addEventListener("click", () => view.onToggle(row.session_id));
    td.append(toggle);
  }
  const link = document.createElement("a");
  link.href = `/sessions/${encodeURIComponent(row.session_id)}`;
  link.textContent = row.session_id;
  link.title = row.goal ?? "";
  td.append(link);
  const notes = [];
  if (row.generation > 1) notes.push(`${row.reset}: generation ${row.generation}`);
  if (row.errors.load_errors) notes.push(`${fmt(row.errors.load_errors)} lines not read`);
  if (row.read_error) notes.push(`cannot read: ${row.read_error}`);
  if (notes.length) {
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = notes.join(" · ");
    note.title = "the viewer's load errors list each";
    td.append(note);
  }
  return td;
}

function rowOf(entry, view) {
  const { row, figures } = entry;
  const tr = document.createElement("tr");
  tr.dataset.session = row.session_id;
  if (entry.depth) tr.dataset.parent = row.parent_session_id;
  if (view.fresh.has(row.session_id)) tr.classList.add("fresh");
  for (const [key, , numeric] of COLUMNS) {
    let td;
    if (key === "session") td = sessionCell(entry, view);
    else if (key === "status") {
      const pill = document.createElement("span");
      const tone = outcomeTone(figures.outcome);
      pill.className = `pill ${tone}`;
      Object.assign(pill.style, toneColors(tone));
      pill.textContent = figures.status;
      td = cell(pill);
    } else {
      const text = SHOW[key] ? SHOW[key](figures) : fmt(figures[key]);
      const bad = (key === "tool_errors" || key === "denials") && figures[key] > 0;
      td = cell(text, `${numeric ? "num" : ""}${bad ? " bad" : ""}`);
    }
    td.dataset.col = key;
    tr.append(td);
  }
  return tr;
}

/** The headings: a click sorts by the column, again reverses it. */
export function renderHead(thead, sort, onSort) {
  const tr = document.createElement("tr");
  for (const [key, label, numeric] of COLUMNS) {
    const th = document.createElement("th");
    th.className = numeric ? "num" : "";
    th.dataset.col = key;
    th.dataset.testid = `sort-${key}`;
    const arrow = sort.key === key ? (sort.dir > 0 ? " ▲" : " ▼") : "";
    th.textContent = `${label}${arrow}`;
    th.setAttribute("aria-sort", arrow ? (sort.dir > 0 ? "ascending" : "descending") : "none");
    th.addEventListener("click", () => onSort(key));
    tr.append(th);
  }
  thead.replaceChildren(tr);
}

/** A spacer row as tall as `rows` rows. */
function spacer(rows, columns) {
  const tr = document.createElement("tr");
  tr.className = "spacer";
  const td = document.createElement("td");
  td.colSpan = columns;
  td.style.height = `${rows * ROW_PX}px`;
  tr.append(td);
  return tr;
}

/**
 * Draws the entries in view of `scroller` into `tbody`. `view`: `{picked,
 * expanded, fresh, onPick, onToggle}`.
 */
export function renderBody(tbody, scroller, entries, view) {
  const header = ROW_PX;
  const first = Math.max(0, Math.floor((scroller.scrollTop - header) / ROW_PX) - MARGIN_ROWS);
  const count = Math.ceil(scroller.clientHeight / ROW_PX) + 2 * MARGIN_ROWS;
  const last = Math.min(entries.length, first + count);
  const rows = entries.slice(first, last).map((entry) => rowOf(entry, view));
  tbody.replaceChildren(
    spacer(first, COLUMNS.length),
    ...rows,
    spacer(entries.length - last, COLUMNS.length),
  );
}
