// What the charts draw, as uPlot's aligned columns: the whole session's
// series, bucketed once (each bucket keeps its series' maximum, so alerts
// and peaks stay visible), and where each turn starts, so time travel
// marks the position on charts that stay as they are. The tables are
// typed arrays in plain objects (`chartTables`), so a Worker can make them
// and transfer them to the page. No DOM and no uPlot: a test can run it.

import { HUES, REFERENCE, SERIES_COLORS } from "./palette.js";

const MAX_POINTS = 1200;

/** The x range of a session's series (turns, shifted per life): its
 * points' and its turns' (`turns`, their columns). */
function turnRange({ samples, alerts, usage }, turns) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const list of [samples, alerts, usage]) {
    for (const { x } of list) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  for (const x of turns.x) {
    if (x < lo) lo = x;
    if (x > hi) hi = x;
  }
  return lo <= hi ? [lo, hi] : [0, -1];
}

/** The turns' points of one column: `{x, y}` (the columns themselves),
 * without the turns where it is NaN. */
function turnPoints({ x }, y) {
  if (!y.some(Number.isNaN)) return { x, y };
  const kept = [];
  for (let k = 0; k < y.length; k++) if (!Number.isNaN(y[k])) kept.push(k);
  const pick = (column) => Float64Array.from(kept, (k) => column[k]);
  return { x: pick(x), y: pick(y) };
}

/** A series' points as columns: `{x, y}`, a Float64Array each. */
function points(list, y) {
  const out = { x: new Float64Array(list.length), y: new Float64Array(list.length) };
  for (let k = 0; k < list.length; k++) {
    out.x[k] = list[k].x;
    out.y[k] = y(list[k]);
  }
  return out;
}

/** The indices of `position` in ascending order of its values. */
function byPosition(position) {
  const order = new Uint32Array(position.length);
  for (let k = 0; k < order.length; k++) order[k] = k;
  for (let j = 1; j < order.length; j++)
    if (position[j - 1] > position[j]) return order.sort((a, b) => position[a] - position[b]);
  return order;
}

/** Each bucket's maximum of a series' points (NaN where it has none):
 * buckets keep alerts and peaks visible however long the run. */
function bucketMaxima({ x, y }, lo, width, n) {
  const maxima = new Float64Array(n).fill(Number.NaN);
  for (let k = 0; k < x.length; k++) {
    const i = Math.floor((x[k] - lo) / width);
    if (i >= 0 && i < n && !(y[k] <= maxima[i])) maxima[i] = y[k];
  }
  return maxima;
}

/** Tokens spent by the start of each turn and in it, summed in the order
 * the turns happened, so a turn's total is the same at every position. */
function cumulativeTokens(turns) {
  const { x, position, input, output } = turns;
  const y = new Float64Array(x.length);
  let total = 0;
  for (const k of byPosition(position)) {
    total += (Number.isNaN(input[k]) ? 0 : input[k]) + output[k];
    y[k] = total;
  }
  return { x, y };
}

/** The charts' titles and series, and each series' points (`turns`: the
 * turns' columns). */
function chartSpecs({ samples, alerts, usage }, turns, ops) {
  return [
    {
      title: "Entropy score over turns (alerts marked)",
      series: [
        { label: "score" },
        { label: "alert", color: HUES.red, points: true },
        { label: "threshold", color: REFERENCE, dash: [4, 4] },
      ],
      points: () => [
        points(samples, (e) => e.score),
        points(alerts, (e) => e.score),
        points(alerts, (e) => e.threshold),
      ],
    },
    {
      title: "Tokens per turn: prompt (measured) and output; in total on the right",
      series: [
        { label: "prompt" },
        { label: "output", color: HUES.orange },
        // A run's total dwarfs any one turn's: it gets an axis of its own.
        { label: "cumulative", color: HUES.green, scale: "total" },
      ],
      points: () => [
        turnPoints(turns, turns.input),
        turnPoints(turns, turns.output),
        cumulativeTokens(turns),
      ],
    },
    {
      title: "Events per turn",
      series: [{ label: "events" }, { label: "errors", color: HUES.red }],
      points: () => [turnPoints(turns, turns.events), turnPoints(turns, turns.errors)],
      bars: true,
    },
    {
      title: "Budget usage by operation (tokens)",
      series: ops.map((op) => ({ label: op })),
      points: () =>
        ops.map((op) =>
          points(
            usage.filter((u) => u.operation_id === op),
            (u) => u.tokens,
          ),
        ),
    },
  ];
}

/** Where each turn starts and its x, by position: `{position, x}`, a
 * Float64Array each. */
function turnStarts({ position, x }) {
  const order = byPosition(position);
  return {
    position: Float64Array.from(order, (k) => position[k]),
    x: Float64Array.from(order, (k) => x[k]),
  };
}

/**
 * The charts of a session's series (series.js's `chartSeries`, whose
 * turns come as columns), bucketed: `{lives,
 * turns, charts}`: `turns` where each turn starts (`xAt` reads it), each
 * chart with its `title`, `series`, `bars`, its x column `xs` (one per
 * turn, or per bucket of turns past MAX_POINTS) and per series its
 * `maxima` (one per x; NaN where none). At most `colors` budget
 * operations are charted. Plain data and typed arrays: a Worker makes it
 * and transfers `chartBuffers(tables)`; `chartColumns` reads it.
 */
export function chartTables(series, colors = SERIES_COLORS.length) {
  const { turns } = series;
  const [lo, hi] = turnRange(series, turns);
  const width = Math.max(1, Math.ceil((hi - lo + 1) / MAX_POINTS));
  const n = Math.max(0, Math.floor((hi - lo) / width) + 1);
  const xs = Float64Array.from({ length: n }, (_, i) => lo + i * width);
  const ops = [...new Set(series.usage.map((u) => u.operation_id))].slice(0, colors);
  const charts = chartSpecs(series, turns, ops).map(({ points: of, ...spec }) => ({
    ...spec,
    xs,
    maxima: of().map((p) => bucketMaxima(p, lo, width, n)),
  }));
  return { lives: series.lives, turns: turnStarts(turns), charts };
}

/** The buffers of `chartTables`' typed arrays, to transfer them. */
export function chartBuffers({ turns, charts }) {
  const buffers = new Set([turns.position.buffer, turns.x.buffer]);
  for (const chart of charts) {
    buffers.add(chart.xs.buffer);
    for (const m of chart.maxima) buffers.add(m.buffer);
  }
  return [...buffers];
}

/** The x of position `at` on the charts (`chartTables`): its turn's, or
 * null before the first turn. */
export function xAt({ turns }, at) {
  let lo = 0;
  let hi = turns.position.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (turns.position[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : turns.x[lo - 1];
}

/** A chart's uPlot columns, made once per chart: the x column, then per
 * series each bucket's maximum (null where none). */
const columnsOf = new WeakMap();
export function chartColumns(chart) {
  let columns = columnsOf.get(chart);
  if (!columns) {
    const column = (ys) => Array.from(ys, (y) => (Number.isNaN(y) ? null : y));
    columns = [Array.from(chart.xs), ...chart.maxima.map(column)];
    columnsOf.set(chart, columns);
  }
  return columns;
}
