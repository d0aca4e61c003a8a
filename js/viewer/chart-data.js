// What the charts draw, as uPlot's aligned columns, at any position. The
// points of a session's series are bucketed once (each chart's x range is
// the whole session's, so the axes hold still while the position moves),
// and each bucket keeps its points in position order with their running
// maximum: the columns as of a position are one binary search per bucket,
// not a pass over every point. No DOM and no uPlot: a test can run it.

const MAX_POINTS = 1200;

/** The x range of a session's series (turns, shifted per life). */
function turnRange({ samples, alerts, turns, usage }) {
  let lo = Infinity;
  let hi = -Infinity;
  for (const list of [samples, alerts, turns, usage]) {
    for (const { x } of list) {
      if (x < lo) lo = x;
      if (x > hi) hi = x;
    }
  }
  return lo <= hi ? [lo, hi] : [0, -1];
}

/** One series' points by bucket: per bucket, positions ascending and the
 * maximum value up to each. */
function bucketPoints(points, lo, width, n) {
  const byBucket = Array.from({ length: n }, () => []);
  for (const p of points) {
    const i = Math.floor((p.x - lo) / width);
    if (i >= 0 && i < n) byBucket[i].push(p);
  }
  return byBucket.map((list) => {
    list.sort((a, b) => a.position - b.position);
    const positions = new Float64Array(list.length);
    const maxima = new Float64Array(list.length);
    let max = -Infinity;
    list.forEach((p, k) => {
      positions[k] = p.position;
      max = Math.max(max, p.y);
      maxima[k] = max;
    });
    return { positions, maxima };
  });
}

/** The bucket's maximum over its points at or before `at`, else null. A
 * step reads every bucket: those wholly before or after `at`, all but one,
 * are answered without a search. */
function maximumAt({ positions, maxima }, at) {
  const last = positions.length - 1;
  if (last < 0 || positions[0] > at) return null;
  if (positions[last] <= at) return maxima[last];
  let lo = 0;
  let hi = positions.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (positions[mid] <= at) lo = mid + 1;
    else hi = mid;
  }
  return lo === 0 ? null : maxima[lo - 1];
}

/**
 * A chart's columns as a function of the position: one x column per turn,
 * or per bucket of turns past MAX_POINTS, and per series each bucket's
 * maximum over the points known by then.
 */
function alignedAt(seriesPoints, [lo, hi]) {
  const width = Math.max(1, Math.ceil((hi - lo + 1) / MAX_POINTS));
  const n = Math.max(0, Math.floor((hi - lo) / width) + 1);
  const xs = Array.from({ length: n }, (_, i) => lo + i * width);
  const buckets = seriesPoints.map((points) => bucketPoints(points, lo, width, n));
  return (at) => [xs, ...buckets.map((perBucket) => perBucket.map((b) => maximumAt(b, at)))];
}

const point = (from, y) => ({ position: from.position, x: from.x, y });

/** Tokens spent by the start of each turn and in it, summed in the order
 * the turns happened, so a turn's total is the same at every position. */
function cumulativeTokens(turns) {
  let total = 0;
  return [...turns]
    .sort((a, b) => a.position - b.position)
    .map((t) => {
      total += (t.input_tokens ?? 0) + t.output_tokens;
      return point(t, total);
    });
}

/** The charts' titles, series and point lists of a session's series (the
 * lists made when a chart is first drawn). */
function chartSpecs({ samples, alerts, turns, usage }, ops) {
  return [
    {
      title: "Entropy score over turns (alerts marked)",
      series: [
        { label: "score" },
        { label: "alert", color: "#e15759", points: true },
        { label: "threshold", color: "#999", dash: [4, 4] },
      ],
      points: () => [
        samples.map((e) => point(e, e.score)),
        alerts.map((e) => point(e, e.score)),
        alerts.map((e) => point(e, e.threshold)),
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
        turns.filter((t) => t.input_tokens !== null).map((t) => point(t, t.input_tokens)),
        turns.map((t) => point(t, t.output_tokens)),
        cumulativeTokens(turns),
      ],
    },
    {
      title: "Events per turn",
      series: [{ label: "events" }, { label: "errors", color: "#e15759" }],
      points: () => [
        turns.map((t) => point(t, t.event_count)),
        turns.map((t) => point(t, t.errors)),
      ],
      bars: true,
    },
    {
      title: "Budget usage by operation (tokens)",
      series: ops.map((op) => ({ label: op })),
      points: () =>
        ops.map((op) => usage.filter((u) => u.operation_id === op).map((u) => point(u, u.tokens))),
    },
  ];
}

/**
 * The charts of a session's series (from series.js's `chartSeries`): each
 * with its title, series and `dataAt(position)`, uPlot's aligned columns
 * as of that position (`Infinity`: the whole session). At most `colors`
 * budget operations are charted.
 */
export function chartData(series, colors) {
  const range = turnRange(series);
  const ops = [...new Set(series.usage.map((u) => u.operation_id))].slice(0, colors);
  return chartSpecs(series, ops).map(({ points, ...spec }) => {
    // Points listed and bucketed on first use, so charts made in separate
    // tasks split the work.
    let columnsAt = null;
    return {
      ...spec,
      dataAt(at) {
        columnsAt = columnsAt ?? alignedAt(points(), range);
        return columnsAt(at);
      },
    };
  });
}
