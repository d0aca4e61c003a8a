// `agent-replay diff A B`: two runs compared (compareRuns), printed as the
// first divergence, with the event from each side at its position, then a
// summary per turn. Exit 0 when the runs match, 1 when they diverge, 2 when
// an input cannot be read as a log at all.
import { AgentReplayError, SessionState, compareRuns } from "../js/node.js";

export const DIFF_USAGE = "usage: agent-replay diff <A> <B> [--strict]";

const n = (x) => Number(x).toLocaleString("en-US");

/** How much of a value or an event a line shows. */
const VALUE_CHARS = 160;
const EVENT_CHARS = 400;

/**
 * Runs `diff` with the CLI's own helpers: `load(state, source, strict,
 * onEvent)` streams a file into a state, `printError(name, err)` prints a
 * positioned load error, `fail(message, code)` stops the command with that
 * exit code.
 */
export async function runDiff(argv, { load, printError, fail }) {
  const strict = argv.includes("--strict");
  const sources = argv.filter((a) => a !== "--strict");
  if (sources.length !== 2 || sources.every((s) => s === "-")) fail(DIFF_USAGE);
  const runs = [];
  for (const source of sources)
    runs.push(await loadRun(source, strict, { load, printError, fail }));
  const comparison = compareRuns(runs[0].state, runs[1].state);
  process.stdout.write(`${formatComparison(comparison, runs)}\n`);
  process.exitCode = comparison.matches ? 0 : 1;
}

/** One side: its state, its name and its events' texts by position; a side
 * that is no log at all (unreadable, or no event) exits 2. */
async function loadRun(source, strict, { load, printError, fail }) {
  const state = new SessionState();
  const texts = [];
  const keep = (e) => {
    texts[e.position - 1] = e.json;
  };
  let loaded;
  try {
    loaded = await load(state, source, strict, keep);
  } catch (e) {
    if (!(e instanceof AgentReplayError)) throw e;
    for (const err of e.errors ?? []) printError(nameOf(source), err);
    fail(`${nameOf(source)}: not a log: ${e.code}: ${e.message}`);
  }
  for (const err of loaded.errors) printError(loaded.name, err);
  if (state.eventCount === 0) fail(`${loaded.name}: not a log: no events`);
  return { name: loaded.name, state, texts };
}

function nameOf(source) {
  return source === "-" ? "stdin" : source;
}

/** The first line of a text, cut to `max` characters. */
function clip(text, max) {
  const line = text.split("\n")[0];
  const cut = line.length > max ? `${line.slice(0, max)}…` : line;
  return line.length < text.length && cut === line ? `${cut} …` : cut;
}

function status(s) {
  if (s.state === "terminal") return `terminal: ${s.reason} after ${s.turns_used} turns`;
  if (s.state === "suspended") return `suspended: ${s.reason}`;
  return s.state.replace("_", " ");
}

function where(d) {
  const call = d.call === null ? "" : ` · call ${d.call + 1}`;
  return `life ${d.life} turn ${d.turn}${call} · ${d.aspect}`;
}

/** One side of the first divergence: its value, then the event there. */
function sideLines(label, run, side) {
  const value = side.value === null ? "(none)" : clip(side.value, VALUE_CHARS);
  const lines = [`  ${label} ${run.name} #${side.position}: ${value}`];
  const event = run.texts[side.position - 1];
  if (event !== undefined) lines.push(`      ${clip(event, EVENT_CHARS)}`);
  return lines;
}

function turnSpan(t) {
  if (!t) return "—";
  const calls = t.tool_calls === 1 ? "1 call" : `${t.tool_calls} calls`;
  return `#${t.first_position}–${t.last_position} (${n(t.event_count)} events, ${calls})`;
}

/** A turn's line; a stretch of matching turns of one life is one line. */
function turnLines(turns) {
  const lines = [];
  let same = null;
  const flush = () => {
    if (!same) return;
    const turnsOf =
      same.first === same.last ? `turn ${same.first}` : `turns ${same.first}–${same.last}`;
    lines.push(`  life ${same.life} ${turnsOf}: same`);
    same = null;
  };
  for (const t of turns) {
    if (t.differences.length === 0) {
      if (same?.life === t.life) same.last = t.turn;
      else {
        flush();
        same = { life: t.life, first: t.turn, last: t.turn };
      }
      continue;
    }
    flush();
    const aspects = [...new Set(t.differences.map((d) => d.aspect))].join(", ");
    lines.push(
      `  life ${t.life} turn ${t.turn}: ${aspects}  A ${turnSpan(t.a)}  B ${turnSpan(t.b)}`,
    );
  }
  flush();
  return lines;
}

/** The comparison as text: both runs, the first divergence, the turns. */
export function formatComparison(c, [a, b]) {
  const lines = [
    `A: ${a.name} · ${n(c.a.event_count)} events · ${status(c.a.status)}`,
    `B: ${b.name} · ${n(c.b.event_count)} events · ${status(c.b.status)}`,
  ];
  const d = c.first_divergence;
  if (d) {
    lines.push(
      `First divergence: ${where(d)}`,
      ...sideLines("A", a, d.a),
      ...sideLines("B", b, d.b),
    );
  }
  lines.push("Turns:", ...turnLines(c.turns));
  const diverging = c.turns.filter((t) => t.differences.length).length;
  lines.push(
    c.matches
      ? `The runs match (${n(c.turns.length)} turns).`
      : `${n(c.difference_count)} differences in ${n(diverging)} of ${n(c.turns.length)} turns.`,
  );
  return lines.join("\n");
}
