// What the charts draw, as uPlot's aligned columns, at any position. The
// points of a session's series are bucketed once (each chart's x range is
// the whole session's, so the axes hold still while the position moves),
// and each bucket keeps its points in position order with their running
// maximum: the columns as of a position are one binary search per bucket,
// not a pass over every point. The buckets are typed arrays in plain
// objects (`chartTables`), so a Worker can make them and transfer them to
// the page. No DOM and no uPlot: a test can run it.

const MAX_POINTS = 1200;

/** The charts' series colors; budget operations past its length are not charted. */
export const PALETTE = [
  "#4e79a7",
  "#f28e2b",
  "#59a14f",
  "#e15759",
  "#b07aa1",
  "#76b7b2",
  "#edc948",
];

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

/** The turns of a `chartSeries` as columns, a Float64Array each: `x`,
 * `position`, `input` (prompt tokens; NaN where the view has none),
 * `output`, `events`, `errors` (series.js's `indexedSeries` makes them
 * from an index without a point per turn). */
function turnColumns(turns) {
  const n = turns.length;
  const columns = {
    x: new Float64Array(n),
    position: new Float64Array(n),
    input: new Float64Array(n),
    output: new Float64Array(n),
    events: new Float64Array(n),
    errors: new Float64Array(n),
  };
  for (let k = 0; k < n; k++) {
    const t = turns[k];
    columns.x[k] = t.x;
    columns.position[k] = t.position;
    columns.input[k] = t.input_tokens ?? Number.NaN;
    columns.output[k] = t.output_tokens;
    columns.events[k] = t.event_count;
    columns.errors[k] = t.errors;
  }
  return columns;
}

/** The turns' points of one column: `{x, position, y}` (the columns
 * themselves), without the turns where it is NaN. */
function turnPoints({ x, position }, y) {
  if (!y.some(Number.isNaN)) return { x, position, y };
  const kept = [];
  for (let k = 0; k < y.length; k++) if (!Number.isNaN(y[k])) kept.push(k);
  const pick = (column) => Float64Array.from(kept, (k) => column[k]);
  return { x: pick(x), position: pick(position), y: pick(y) };
}

/** A series' points as columns: `{x, position, y}`, a Float64Array each. */
function points(list, y) {
  const out = {
    x: new Float64Array(list.length),
    position: new Float64Array(list.length),
    y: new Float64Array(list.length),
  };
  for (let k = 0; k < list.length; k++) {
    const p = list[k];
    out.x[k] = p.x;
    out.position[k] = p.position;
    out.y[k] = y(p);
  }
  return out;
}

/** Whether `order` lists indices of `position` in ascending order. */
function ascending(order, position) {
  for (let j = 1; j < order.length; j++)
    if (position[order[j - 1]] > position[order[j]]) return false;
  return true;
}

/**
 * One series' points by bucket: `ends[i]` is where bucket i's points end
 * in `positions` and `maxima` (they start where bucket i - 1's end), each
 * bucket's positions ascending and `maxima` the maximum value up to each.
 */
function bucketPoints({ x, position, y }, lo, width, n) {
  const bucketOf = new Int32Array(x.length);
  const ends = new Uint32Array(n);
  for (let k = 0; k < x.length; k++) {
    const i = Math.floor((x[k] - lo) / width);
    bucketOf[k] = i >= 0 && i < n ? i : -1;
    if (bucketOf[k] >= 0) ends[i] += 1;
  }
  for (let i = 1; i < n; i++) ends[i] += ends[i - 1];
  const next = new Uint32Array(n);
  for (let i = 1; i < n; i++) next[i] = ends[i - 1];
  const order = new Uint32Array(n ? ends[n - 1] : 0);
  for (let k = 0; k < x.length; k++) if (bucketOf[k] >= 0) order[next[bucketOf[k]]++] = k;
  const positions = new Float64Array(order.length);
  const maxima = new Float64Array(order.length);
  for (let i = 0, start = 0; i < n; start = ends[i], i++) {
    const bucket = order.subarray(start, ends[i]);
    // Points come by x, mostly in position order too: sort only when not.
    if (!ascending(bucket, position)) bucket.sort((a, b) => position[a] - position[b]);
    let max = -Infinity;
    for (let j = 0; j < bucket.length; j++) {
      max = Math.max(max, y[bucket[j]]);
      positions[start + j] = position[bucket[j]];
      maxima[start + j] = max;
    }
  }
  return { ends, positions, maxima };
}

/** Bucket `i`'s maximum over its points at or before `at`, else null. A
 * step reads every bucket: those wholly before or after `at`, all but one,
 * are answered without a search. */
function maximumAt({ ends, positions, maxima }, i, at) {
  const start = i === 0 ? 0 : ends[i - 1];
  const last = ends[i] - 1;
  if (last < start || positions[start] > at) return null;
  if (positions[last] <= at) return maxima[last];
  let lo = start;
  let hi = ends[i];
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo === start ? null : maxima[lo - 1];
}

/** Tokens spent by the start of each turn and in it, summed in the order
 * the turns happened, so a turn's total is the same at every position. */
function cumulativeTokens(turns) {
  const { x, position, input, output } = turns;
  const y = new Float64Array(x.length);
  const order = new Uint32Array(x.length);
  for (let k = 0; k < order.length; k++) order[k] = k;
  if (!ascending(order, position)) order.sort((a, b) => position[a] - position[b]);
  let total = 0;
  for (const k of order) {
    total += (Number.isNaN(input[k]) ? 0 : input[k]) + output[k];
    y[k] = total;
  }
  return { x, position, y };
}

/** The charts' titles and series, and each series' points (`turns`: the
 * turns' columns). */
function chartSpecs({ samples, alerts, usage }, turns, ops) {
  return [
    {
      title: "Entropy score over turns (alerts marked)",
      series: [
        { label: "score" },
        { label: "alert", color: "#e15759", points: true },
        { label: "threshold", color: "#999", dash: [4, 4] },
      ],
      points: () => [
        points(samples, (e) => e.score),
        points(alerts, (e) => e.score),
        points(alerts, (e) => e.threshold),
      ],
    },
    {
      title: "Tokens per turn: prompt (measured) and output, and in total",
      series: [
        { label: "prompt" },
        { label: "output", color: "#f28e2b" },
        { label: "cumulative", color: "#59a14f" },
      ],
      points: () => [
        turnPoints(turns, turns.input),
        turnPoints(turns, turns.output),
        cumulativeTokens(turns),
      ],
    },
    {
      title: "Events per turn",
      series: [{ label: "events" }, { label: "errors", color: "#e15759" }],
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

/**
 * The charts of a session's series (from series.js's `chartSeries`, or
 * its `indexedSeries`, whose turns come as columns), bucketed: `{lives, charts}`, each chart with its `title`, `series`,
 * `bars`, its x column `xs` (one per turn, or per bucket of turns past
 * MAX_POINTS) and per series its `buckets`. At most `colors` budget
 * operations are charted. Plain data and typed arrays: a Worker makes it
 * and transfers `chartBuffers(tables)`; `columnsAt` reads it.
 */
export function chartTables(series, colors = PALETTE.length) {
  const turns = series.turnColumns ?? turnColumns(series.turns);
  const [lo, hi] = turnRange(series, turns);
  const width = Math.max(1, Math.ceil((hi - lo + 1) / MAX_POINTS));
  const n = Math.max(0, Math.floor((hi - lo) / width) + 1);
  const xs = Float64Array.from({ length: n }, (_, i) => lo + i * width);
  const ops = [...new Set(series.usage.map((u) => u.operation_id))].slice(0, colors);
  const charts = chartSpecs(series, turns, ops).map(({ points: of, ...spec }) => ({
    ...spec,
    xs,
    buckets: of().map((p) => bucketPoints(p, lo, width, n)),
  }));
  return { lives: series.lives, charts };
}

/** The buffers of `chartTables`' typed arrays, to transfer them. */
export function chartBuffers({ charts }) {
  const buffers = new Set();
  for (const chart of charts) {
    buffers.add(chart.xs.buffer);
    for (const b of chart.buckets) for (const a of Object.values(b)) buffers.add(a.buffer);
  }
  return [...buffers];
}

/** A chart's uPlot columns as of position `at` (`Infinity`: the whole
 * session): the x column, then per series each bucket's maximum over the
 * points known by then (null when none). */
export function columnsAt(chart, at) {
  const n = chart.xs.length;
  const columns = [xColumn(chart)];
  // Plain loops: Array.from with a map function is several times slower,
  // and a step reads every bucket of every series.
  for (const b of chart.buckets) {
    const ys = new Array(n);
    for (let i = 0; i < n; i++) ys[i] = maximumAt(b, i, at);
    columns.push(ys);
  }
  return columns;
}

/** A chart's x column as an array, made once: it is the same at every
 * position (and one array lets a redraw see it unchanged). */
const xColumns = new WeakMap();
function xColumn(chart) {
  let xs = xColumns.get(chart);
  if (!xs) {
    xs = Array.from(chart.xs);
    xColumns.set(chart, xs);
  }
  return xs;
}
