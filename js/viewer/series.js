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

/** Compact chart series of a view: entropy samples and alerts, per-turn
 * totals (output and prompt tokens), budget usage; each with the position
 * it is known from and its x (see above). */
export function chartSeries(view) {
  const axis = lifeAxis(view);
  const xOf = xOfPoints(axis, view.lives);
  const { samples, alerts, usage } = eventSeries(view, xOf);
  return {
    lives: axis,
    samples,
    alerts,
    turns: view.turns
      .map((t) => ({
        position: t.first_position,
        turn: t.turn,
        x: xOf(t.first_position, t.turn, t.life),
        tokens: Number(t.tokens),
        input_tokens: t.input_tokens ?? null,
        output_tokens: t.output_tokens ?? Number(t.tokens),
        event_count: t.event_count,
        errors: t.errors,
      }))
      .sort((a, b) => a.x - b.x),
    usage,
  };
}

/**
 * `chartSeries` of a paged index's panel lists (paged.js's `panelView`)
 * and its per-turn columns (`SessionIndex.turnSeries()`), for
 * chart-data.js's `chartTables`: the turns as columns (`turnColumns`, a
 * Float64Array each, in the index's order) instead of a point each, which
 * on a long run is most of the series' cost.
 */
export function indexedSeries(lists, columns) {
  const axis = lifeAxis(lists);
  const shiftOf = new Map(axis.map((a) => [a.life, a.shift]));
  const n = columns.turn.length;
  const x = new Float64Array(n);
  for (let k = 0; k < n; k++) x[k] = (shiftOf.get(columns.life[k]) ?? 0) + columns.turn[k];
  return {
    lives: axis,
    ...eventSeries(lists, xOfPoints(axis, lists.lives)),
    turnColumns: {
      x,
      position: columns.first_position,
      input: columns.input_tokens,
      output: columns.output_tokens,
      events: columns.event_count,
      errors: columns.errors,
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

/** The series as of position `at`. (A turn still going on at `at` counts
 * its events and tokens up to its end: the view keeps per-turn totals.) */
export function cutSeries(series, at = Infinity) {
  if (at === Infinity) return series;
  const cut = (list) => list.filter((x) => x.position <= at);
  return {
    lives: series.lives,
    samples: cut(series.samples),
    alerts: cut(series.alerts),
    turns: cut(series.turns),
    usage: cut(series.usage),
  };
}
