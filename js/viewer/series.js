// The numbers the charts draw, taken from a view once and cut at any
// position (time travel) without the view. No DOM: a Worker can use it.
//
// Turn numbers restart after a wake (a new life), so the charts' x axis is
// not the turn but `x`: the turn, shifted per life so that the lives follow
// each other with one empty column between them (`xLabel` turns it back
// into "turn" or "life·turn").
import { lifeAt } from "./digest.js";

/** Where each life starts on the x axis: `{life, shift, start}` (x = shift
 * + turn; `start` is its first x). One life: no shift. */
function lifeAxis(view) {
  const lives = view.lives ?? [];
  const axis = [];
  let next = null;
  for (const l of lives) {
    const shift = next === null ? 0 : next - l.first_turn;
    axis.push({ life: l.life, shift, start: shift + l.first_turn });
    next = shift + Math.max(l.first_turn, l.last_turn) + 2;
  }
  return axis.length ? axis : [{ life: 1, shift: 0, start: -Infinity }];
}

/** The x of a position's point: its turn shifted by its life's shift. */
function xOfPoints(axis, lives) {
  const shiftOf = new Map(axis.map((a) => [a.life, a.shift]));
  return (position, turn, life = lifeAt(lives, position)) => (shiftOf.get(life) ?? 0) + turn;
}

/** A view's entropy samples and alerts and budget usage as chart points. */
function eventSeries(view, xOf) {
  return {
    samples: view.entropy.samples.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      x: xOf(position, e.turn),
      score: e.score,
    })),
    alerts: view.entropy.alerts.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      x: xOf(position, e.turn),
      score: e.score,
      threshold: e.threshold,
    })),
    usage: view.budgets.usage.map(({ position, event: e }) => ({
      position,
      turn: e.turn,
      x: xOf(position, e.turn),
      operation_id: e.operation_id,
      tokens: Number(e.tokens),
    })),
  };
}

/** The per-turn numbers of a view's turns as columns, a Float64Array
 * each, in the view's order: what a paged index's `turnSeries()` gives
 * (`life`, `turn`, `first_position`, `input_tokens` (NaN where the view
 * has none), `output_tokens`, `event_count`, `errors`). */
function turnSeriesOf({ turns = [], lives }) {
  const column = (of) => Float64Array.from(turns, of);
  return {
    life: column((t) => t.life ?? lifeAt(lives, t.first_position)),
    turn: column((t) => t.turn),
    first_position: column((t) => t.first_position),
    input_tokens: column((t) => t.input_tokens ?? Number.NaN),
    output_tokens: column((t) => t.output_tokens ?? Number(t.tokens)),
    event_count: column((t) => t.event_count),
    errors: column((t) => t.errors),
  };
}

/**
 * The chart series of a view, or of a paged index's panel lists (paged.js's
 * `panelView`) with its `turnSeries()`: entropy samples and alerts and
 * budget usage as points, each with the position it is known from and its
 * x (see above); the turns as columns (`turns`: `x`, `position`, `input`,
 * `output`, `events`, `errors`, a Float64Array each, in the view's order),
 * which on a long run is most of the series and which chart-data.js's
 * `chartTables` reads as they are. `turnSeries`: the turns' columns as a
 * paged index gives them (default: the view's turns').
 */
export function chartSeries(view, turnSeries = turnSeriesOf(view)) {
  const axis = lifeAxis(view);
  const shiftOf = new Map(axis.map((a) => [a.life, a.shift]));
  const n = turnSeries.turn.length;
  const x = new Float64Array(n);
  for (let k = 0; k < n; k++) x[k] = (shiftOf.get(turnSeries.life[k]) ?? 0) + turnSeries.turn[k];
  return {
    lives: axis,
    ...eventSeries(view, xOfPoints(axis, view.lives)),
    turns: {
      x,
      position: turnSeries.first_position,
      input: turnSeries.input_tokens,
      output: turnSeries.output_tokens,
      events: turnSeries.event_count,
      errors: turnSeries.errors,
    },
  };
}

/** The label of an x value: the turn, or "L2·t3" when there are lives. */
export function xLabel(lives, x) {
  if (lives.length < 2) return String(x);
  let at = lives[0];
  for (const l of lives) if (l.start <= x) at = l;
  return `L${at.life}·t${x - at.shift}`;
}

/** The turns' columns (`chartSeries`' `turns`) of the turns started by `at`. */
function cutTurns(turns, at) {
  const kept = [];
  for (let k = 0; k < turns.position.length; k++) if (turns.position[k] <= at) kept.push(k);
  const cut = {};
  for (const [name, column] of Object.entries(turns))
    cut[name] = Float64Array.from(kept, (k) => column[k]);
  return cut;
}

/** The series as of position `at`. (A turn still going on at `at` counts
 * its events and tokens up to its end: the view keeps per-turn totals.) */
export function cutSeries(series, at = Infinity) {
  if (at === Infinity) return series;
  const cut = (list) => list.filter((x) => x.position <= at);
  return {
    lives: series.lives,
    samples: cut(series.samples),
    alerts: cut(series.alerts),
    turns: cutTurns(series.turns, at),
    usage: cut(series.usage),
  };
}
