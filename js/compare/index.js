// Comparing two runs (compareRuns): an analysis layered on the two
// sessions' views, like the viewer, so it is JavaScript reading the view
// the core exposes, not code in the .wasm. The views are aligned turn by
// turn (by `(life, turn)`, the runtime's own count, so a run that took a
// detour still lines up where it came back), then tool call by tool call
// within a turn (by order and name: call ids are minted per run, so they
// never match across runs). Each aligned turn lists what differs: calls,
// messages, arguments, results, errors, tokens and status; the earliest
// difference of the first turn that has one is the first divergence. It
// reads what the view folded (`turns`, `transcript`, `status`), not the
// events again. The result's shape is the `RunComparison` type of the
// package's TypeScript declarations.

import {
  alignCalls,
  callError,
  entriesByTurn,
  keyOf,
  label,
  output,
  resultPosition,
} from "./calls.js";
import { readView } from "./view-text.js";

/** Two runs compared by their views' JSON texts (folded with every list: a
 * time-travel checkpoint's view has no turns or transcript to compare). */
export function compareViews(textA, textB) {
  const a = run(readView(textA));
  // A run against itself (one state on both sides, or a log twice) is read once.
  const b = textB === textA ? a : run(readView(textB));
  const turns = alignTurns(a, b).map((pair) => compareTurn(a, b, pair));
  const status = statusDifference(a, b);
  if (status)
    turns.find((t) => t.life === status.life && t.turn === status.turn)?.differences.push(status);
  let first = null;
  for (const t of turns) {
    first = earliest(t.differences);
    if (first) break;
  }
  return {
    matches: first === null,
    first_divergence: first,
    difference_count: turns.reduce((sum, t) => sum + t.differences.length, 0),
    turns,
    a: runSide(a.view),
    b: runSide(b.view),
  };
}

/** The difference earliest in run `a`, then in `b` (the first of equals). */
function earliest(differences) {
  let min = null;
  for (const d of differences) {
    const before =
      min === null ||
      d.a.position < min.a.position ||
      (d.a.position === min.a.position && d.b.position < min.b.position);
    if (before) min = d;
  }
  return min;
}

/** One run's view, indexed for the comparison: `(life, turn)` → its index
 * in `view.turns`, and each turn's transcript entries by that index. */
function run(view) {
  const keys = view.turns.map((t) => keyOf(t.life, t.turn));
  const index = new Map(keys.map((key, i) => [key, i]));
  return { view, keys, index, entries: entriesByTurn(view.transcript, index, keys.length) };
}

/** Where a run stands at a turn it lacks: the first event of the turn it
 * has next, else its last event. */
const anchor = (run, next) => next?.first_position ?? run.view.event_count;

/** The index in `run` of the other run's turn `i` (its key), or undefined. */
const has = (run, other, i) => run.index.get(other.keys[i]);

/**
 * Pairs the turns of both runs by `(life, turn)` in log order: run `a`'s
 * order, a turn only run `b` has coming where `b` has it. Merging the two
 * orders keeps it linear, with no sort. Each pair: the turns' indexes `a`
 * and `b` (undefined: that run lacks it) and `anchors`, the position a
 * missing turn is set against on each side.
 */
function alignTurns(a, b) {
  const [ta, tb] = [a.view.turns, b.view.turns];
  const pairedB = new Array(tb.length).fill(false);
  const pairs = [];
  let [i, j] = [0, 0];
  for (;;) {
    while (pairedB[j]) j++;
    const [x, y] = [ta[i], tb[j]];
    if (x === undefined && y === undefined) return pairs;
    const anchors = [anchor(a, x), anchor(b, y)];
    const [inB, inA] = [x && has(b, a, i), y && has(a, b, j)];
    if (y !== undefined && inB !== undefined && inA !== undefined) {
      pairedB[inB] = true;
      pairs.push({ a: i++, b: inB, anchors });
    } else if (onlyA(x, y, inB, inA)) pairs.push({ a: i++, b: undefined, anchors });
    else pairs.push({ a: undefined, b: j++, anchors });
  }
}

/** Whether run `a`'s next turn `x` comes before run `b`'s next turn `y`
 * (neither paired with the other run). */
function onlyA(x, y, inB, inA) {
  if (y === undefined) return true;
  if (x === undefined) return false;
  if (inB === undefined && inA === undefined)
    return x.life < y.life || (x.life === y.life && x.turn <= y.turn);
  return inB === undefined;
}

/** How a run stands: its own copies, as both sides may be one run read once. */
function runSide(v) {
  return {
    event_count: v.event_count,
    status: structuredClone(v.status),
    total_tokens: v.total_tokens,
    load_errors: structuredClone(v.load_errors),
  };
}

function turnSide(t, calls) {
  return {
    first_position: t.first_position,
    last_position: t.last_position,
    event_count: t.event_count,
    tool_calls: calls,
    tokens: t.tokens,
  };
}

const side = (position, value) => ({ position, value });

/** A difference in the turn (and call) `at`. */
const differ = (at, aspect, a, b) => ({
  aspect,
  life: at.life,
  turn: at.turn,
  call: at.call,
  a,
  b,
});

/** What differs in one pair of turns: its calls (in order), messages,
 * status marks and tokens; a turn on one side only. */
function compareTurn(a, b, pair) {
  const [ta, ea] = [a.view.turns[pair.a], a.entries[pair.a]];
  const [tb, eb] = [b.view.turns[pair.b], b.entries[pair.b]];
  const t = ta ?? tb;
  const out = {
    life: t.life,
    turn: t.turn,
    a: ta ? turnSide(ta, ea.calls.length) : null,
    b: tb ? turnSide(tb, eb.calls.length) : null,
    differences: [],
  };
  const at = { life: t.life, turn: t.turn, call: null };
  const [anchorA, anchorB] = pair.anchors;
  const d = out.differences;
  if (ta && tb) {
    const ends = [ta.last_position, tb.last_position];
    compareCalls(d, at, [ea.calls, eb.calls], ends);
    compareTexts(d, at, "message", [ea.messages, eb.messages], ends);
    compareTexts(d, at, "status", [ea.marks, eb.marks], ends);
    const tokens = compareTokens(at, [ta, ea], [tb, eb]);
    if (tokens) d.push(tokens);
  } else if (ta)
    d.push(differ(at, "turn", side(ta.first_position, turnValue(ta)), side(anchorB, null)));
  else d.push(differ(at, "turn", side(anchorA, null), side(tb.first_position, turnValue(tb))));
  return out;
}

const turnValue = (t) => `${t.event_count} events`;

/** The calls aligned (`alignCalls`), and what differs in each pair. A call
 * on one side only is set against the call the other side has next in the
 * turn (else the turn's end). */
function compareCalls(out, turn, [a, b], [endA, endB]) {
  const next = (list, i, end) => list[i]?.position ?? end;
  alignCalls(a, b).forEach((step, call) => {
    const at = { ...turn, call };
    const [x, y] = [a[step.a], b[step.b]];
    if (step.pairing === "both") compareCall(out, at, x, y);
    else if (step.pairing === "a")
      out.push(differ(at, "call", side(x.position, label(x)), side(next(b, step.b, endB), null)));
    else
      out.push(differ(at, "call", side(next(a, step.a, endA), null), side(y.position, label(y))));
  });
}

/** What differs between two aligned calls: the tool, else its arguments
 * (as the log wrote them), result and error. */
function compareCall(out, at, x, y) {
  if (x.name !== y.name) {
    out.push(differ(at, "call", side(x.position, label(x)), side(y.position, label(y))));
    return;
  }
  if (x.rawArguments !== y.rawArguments)
    out.push(
      differ(at, "arguments", side(x.position, x.rawArguments), side(y.position, y.rawArguments)),
    );
  const [ox, oy] = [output(x), output(y)];
  if (ox !== oy)
    out.push(differ(at, "result", side(resultPosition(x), ox), side(resultPosition(y), oy)));
  const [ex, ey] = [callError(x), callError(y)];
  if (ex !== ey)
    out.push(differ(at, "error", side(resultPosition(x), ex), side(resultPosition(y), ey)));
}

/** Texts of a turn (its messages, or its suspensions, resumptions and
 * rollbacks), pair by pair in order. */
function compareTexts(out, at, aspect, [a, b], [endA, endB]) {
  const of = (m, end) => (m ? side(m.position, m.text) : side(end, null));
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i]?.text === b[i]?.text) continue;
    out.push(differ(at, aspect, of(a[i], endA), of(b[i], endB)));
  }
}

/** The turn's token counts, at its first assistant message (else its first
 * event), if they differ. */
function compareTokens(at, [ta, ea], [tb, eb]) {
  const same = ["tokens", "input_tokens", "output_tokens"].every((k) => ta[k] === tb[k]);
  if (same) return null;
  const value = (t) => `${t.tokens} tokens (${t.input_tokens} in, ${t.output_tokens} out)`;
  const position = (t, e) => e.assistant ?? t.first_position;
  return differ(at, "tokens", side(position(ta, ea), value(ta)), side(position(tb, eb), value(tb)));
}

/** How each run ended (or stands), if that differs: in the turn that holds
 * run `a`'s status event (else `b`'s). */
function statusDifference(a, b) {
  const [sa, sb] = [statusOf(a.view), statusOf(b.view)];
  if (sa.text === sb.text) return null;
  const t = turnAt(a, sa.position) ?? turnAt(b, sb.position);
  if (!t) return null;
  const at = { life: t.life, turn: t.turn, call: null };
  return differ(at, "status", side(sa.position, sa.text), side(sb.position, sb.text));
}

/** A run's status as text, and the event that set it (its last event while
 * it runs). */
function statusOf(v) {
  const s = v.status;
  if (s.state === "suspended") return { position: s.position, text: `suspended: ${s.reason}` };
  if (s.state === "terminal")
    return { position: s.position, text: `terminal: ${s.reason} after ${s.turns_used} turns` };
  return { position: v.event_count, text: s.state === "running" ? "running" : "not started" };
}

/** The turn an event at `position` was folded into: of the turns whose span
 * holds it, the one that started last (the last of equals). */
function turnAt(run, position) {
  let found = null;
  for (const t of run.view.turns) {
    const holds = t.first_position <= position && position <= t.last_position;
    if (holds && (found === null || t.first_position >= found.first_position)) found = t;
  }
  return found;
}
