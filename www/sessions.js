// The session list of a followed directory (`agent-replay serve DIR`): polls
// GET /api/sessions and links each session to the viewer (`/sessions/ID`),
// which reads its whole file, then follows its stream live. Polling, not a
// stream: the list is small, a missed poll is repaired by the next, and each
// session's own events already come by SSE.
const POLL_MS = 1000;
const $ = (id) => document.getElementById(id);
const fmt = (n) => n.toLocaleString("en-US");
/** Rows shown, by session id: what they showed, to mark (until the next poll) what changed. */
let shown = new Map();

try {
  const theme = localStorage.getItem("agent-replay-theme");
  document.documentElement.dataset.theme =
    theme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light");
} catch {
  // storage may be off
}

/** A status as the viewer's header words it, and its pill's tone. */
function statusOf(status) {
  switch (status.state) {
    case "running":
      return ["running", "running"];
    case "suspended":
      return [`suspended: ${status.reason}`, "suspended"];
    case "terminal":
      return [`finished: ${status.reason}`, status.reason === "completed" ? "open" : "failed"];
    default:
      return [status.state.replace(/_/g, " "), ""];
  }
}

function ago(ms) {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  if (s < 60) return `${s} s ago`;
  if (s < 3600) return `${Math.floor(s / 60)} min ago`;
  return new Date(ms).toLocaleString();
}

function cell(text, className) {
  const td = document.createElement("td");
  if (className) td.className = className;
  td.append(text);
  return td;
}

function rowOf(s) {
  const tr = document.createElement("tr");
  tr.dataset.session = s.session_id;
  const link = document.createElement("a");
  link.href = `/sessions/${encodeURIComponent(s.session_id)}`;
  link.textContent = s.session_id;
  const name = cell(link);
  const notes = [];
  if (s.generation > 1) notes.push(`${s.reset}: generation ${s.generation}`);
  if (s.errors.load_errors) notes.push(`${fmt(s.errors.load_errors)} lines not read`);
  if (s.read_error) notes.push(`cannot read: ${s.read_error}`);
  if (notes.length) {
    const note = document.createElement("span");
    note.className = "note";
    note.textContent = notes.join(" · ");
    note.title = "the viewer's load errors list each";
    name.append(note);
  }
  const [label, tone] = statusOf(s.status);
  const pill = document.createElement("span");
  pill.className = `pill ${tone}`;
  pill.textContent = label;
  const e = s.errors;
  const errors = e.tool_errors + e.denied_tools;
  const errorCell = cell(fmt(errors), `num${errors ? " bad" : ""}`);
  errorCell.title = `tool errors ${e.tool_errors} (fatal ${e.fatal_tool_errors}), denied ${e.denied_tools}, unknown events ${e.unknown_events}`;
  tr.append(
    name,
    cell(pill),
    cell(fmt(s.turns), "num"),
    cell(fmt(s.tokens), "num"),
    errorCell,
    cell(fmt(s.events), "num"),
    cell(ago(s.modified_ms), "written"),
  );
  return tr;
}

function render(sessions) {
  const next = new Map();
  const rows = sessions.map((s) => {
    const key = `${s.events}:${s.generation}:${s.modified_ms}`;
    const tr = rowOf(s);
    const before = shown.get(s.session_id);
    if (before !== undefined && before !== key) tr.classList.add("fresh");
    next.set(s.session_id, key);
    return tr;
  });
  shown = next;
  $("rows").replaceChildren(...rows);
  $("empty").hidden = sessions.length > 0;
}

async function poll() {
  try {
    const response = await fetch("/api/sessions", { cache: "no-store" });
    const body = await response.json();
    if (!response.ok) throw new Error(body.error?.message ?? `HTTP ${response.status}`);
    render(body.sessions);
    $("error").hidden = true;
    $("list-status").textContent =
      `${fmt(body.sessions.length)} sessions · updated ${new Date().toLocaleTimeString()}`;
    document.dispatchEvent(new CustomEvent("sessions-updated", { detail: body.sessions }));
  } catch (error) {
    $("error").textContent = `session list: ${error.message}`;
    $("error").hidden = false;
    $("list-status").textContent = "not updating";
  }
  setTimeout(poll, POLL_MS);
}

poll();
