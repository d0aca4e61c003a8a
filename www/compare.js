// The compare page: two runs side by side, aligned by turn (compareRuns),
// opened at their first divergence. Runs come from `?a=URL&b=URL` or from
// two files chosen; built on the package's public API only. Each turn's
// events are laid out when the turn is opened, so a long run costs one row
// per turn until then.
import { compareRuns, init, parseLog } from "/agent-replay/js/web.js";
import { describeEvent } from "/agent-replay/js/viewer/describe.js";
import { statusWords } from "/agent-replay/js/viewer/status.js";

const $ = (id) => document.getElementById(id);
const fmt = (n) => Number(n).toLocaleString("en-US");
/** Characters of a value shown in a difference's line. */
const VALUE_CHARS = 300;

/** Both runs as chosen so far: `{name, bytes}` each. */
const chosen = { a: null, b: null };
let shown = null; // {comparison, sides: [{name, events, turnOf}]}

function element(tag, text, className) {
  const e = document.createElement(tag);
  if (text !== undefined) e.textContent = text;
  if (className) e.className = className;
  return e;
}

function fail(message) {
  $("error").textContent = message;
  $("error").hidden = false;
}

/** A run's status in the viewer's words, and the turns a finished run used. */
function status(s) {
  return `${statusWords(s)}${s.state === "terminal" ? ` after ${s.turns_used} turns` : ""}`;
}

/**
 * For each position of a run, the index of its turn in `turns` (each side's
 * turn spans, in the comparison's order): of the turns whose span holds it,
 * the one that starts last, as the core folds it.
 */
function turnsByPosition(turns, side, count) {
  const of = new Int32Array(count + 1).fill(-1);
  const spans = turns
    .map((t, i) => [t[side], i])
    .filter(([s]) => s)
    .sort(([x], [y]) => x.first_position - y.first_position);
  for (const [s, i] of spans) of.fill(i, s.first_position, s.last_position + 1);
  return of;
}

function runHeader(id, label, name, run) {
  const box = $(id);
  box.replaceChildren(
    element("strong", `${label}: ${name}`),
    element("div", `${fmt(run.event_count)} events · ${status(run.status)}`, "dim"),
  );
  if (run.load_errors.length) {
    const lines = run.load_errors.map(
      (e) => `${name}:${e.line}:${e.column}: ${e.code} ${e.message}`,
    );
    box.append(element("div", lines.join("\n"), "errors"));
  }
}

/** A difference as one line: what, where, and each side's value. */
function differenceLine(d) {
  const value = (v) =>
    v === null ? "(none)" : v.length > VALUE_CHARS ? `${v.slice(0, VALUE_CHARS)}…` : v;
  const call = d.call === null ? "" : ` call ${d.call + 1}`;
  return `${d.aspect}${call}: A #${d.a.position} ${value(d.a.value)}  |  B #${d.b.position} ${value(d.b.value)}`;
}

/** One side's events in a turn, those a difference points at marked. */
function sideList(side, t, index, marked) {
  const list = element("ol");
  list.dataset.side = side;
  const span = t[side];
  if (!span) {
    list.append(element("li", "(no such turn)", "dim"));
    return list;
  }
  const run = shown.sides[side === "a" ? 0 : 1];
  for (let p = span.first_position; p <= span.last_position; p++) {
    if (run.turnOf[p] !== index) continue;
    const event = run.events[p - 1];
    const row = element("li", `#${p} ${event ? describeEvent(event) : "?"}`);
    row.dataset.position = String(p);
    if (marked.has(p)) row.classList.add("differs");
    list.append(row);
  }
  return list;
}

/** Lays out a turn's events side by side and its differences, once. */
function fill(details, index) {
  if (details.dataset.filled) return;
  details.dataset.filled = "1";
  const t = shown.comparison.turns[index];
  const marks = (side) => new Set(t.differences.map((d) => d[side].position));
  const sides = element("div", undefined, "sides");
  sides.append(sideList("a", t, index, marks("a")), sideList("b", t, index, marks("b")));
  details.append(sides);
  if (t.differences.length) {
    const list = element("ul", undefined, "differences");
    for (const d of t.differences) list.append(element("li", differenceLine(d)));
    details.append(list);
  }
}

function turnRow(t, index) {
  const details = element(
    "details",
    undefined,
    `turn ${t.differences.length ? "differs" : "same"}`,
  );
  details.id = `turn-${index}`;
  const span = (s) => (s ? `#${s.first_position}–${s.last_position}, ${s.tool_calls} calls` : "—");
  const summary = element(
    "summary",
    `life ${t.life} · turn ${t.turn}   A ${span(t.a)}   B ${span(t.b)}`,
  );
  if (t.differences.length) {
    const aspects = [...new Set(t.differences.map((d) => d.aspect))].join(", ");
    summary.append(element("span", aspects, "aspects"));
  }
  details.append(summary);
  details.addEventListener("toggle", () => details.open && fill(details, index));
  return details;
}

/** Opens the turn of the first divergence and scrolls its event into view. */
function jump() {
  const d = shown?.comparison.first_divergence;
  if (!d) return;
  // Each (life, turn) is one row of the comparison.
  const index = shown.comparison.turns.findIndex((t) => t.life === d.life && t.turn === d.turn);
  const details = $(`turn-${index}`);
  fill(details, index);
  details.open = true;
  for (const e of document.querySelectorAll(".divergence")) e.classList.remove("divergence");
  const at = (side) =>
    details.querySelector(`ol[data-side=${side}] li[data-position="${d[side].position}"]`);
  const rows = [at("a"), at("b")].filter(Boolean);
  for (const row of rows) row.classList.add("divergence");
  (rows[0] ?? details).scrollIntoView({ block: "center" });
}

function show([a, b]) {
  const comparison = compareRuns(a.bytes, b.bytes);
  const sides = [a, b].map((run, i) => {
    const events = parseLog(run.bytes).events;
    const side = i === 0 ? "a" : "b";
    return {
      name: run.name,
      events,
      turnOf: turnsByPosition(comparison.turns, side, events.length),
    };
  });
  shown = { comparison, sides };
  runHeader("run-a", "A", a.name, comparison.a);
  runHeader("run-b", "B", b.name, comparison.b);
  const first = comparison.first_divergence;
  $("verdict").textContent = first
    ? `First divergence: life ${first.life} turn ${first.turn} · ${first.aspect} (A #${first.a.position}, B #${first.b.position}) · ${fmt(comparison.difference_count)} differences`
    : `The runs match (${fmt(comparison.turns.length)} turns).`;
  $("turns").replaceChildren(...comparison.turns.map(turnRow));
  $("jump").disabled = !first;
  jump();
}

async function fetched(url) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return { name: url, bytes: new Uint8Array(await response.arrayBuffer()) };
}

async function chooseFile(side, input) {
  const file = input.files?.[0];
  if (!file) return;
  chosen[side] = { name: file.name, bytes: new Uint8Array(await file.arrayBuffer()) };
  if (chosen.a && chosen.b) show([chosen.a, chosen.b]);
  else $(`run-${side}`).textContent = `${side.toUpperCase()}: ${file.name} (choose the other run)`;
}

async function main() {
  await init();
  $("jump").addEventListener("click", jump);
  for (const side of ["a", "b"])
    $(`file-${side}`).addEventListener("change", (e) =>
      chooseFile(side, e.target).catch((x) => fail(x.message)),
    );
  document.body.dataset.ready = "true";
  const params = new URLSearchParams(location.search);
  if (params.get("a") && params.get("b"))
    show(await Promise.all([fetched(params.get("a")), fetched(params.get("b"))]));
}

main().catch((e) => fail(`${e.code ? `${e.code}: ` : ""}${e.message}`));
