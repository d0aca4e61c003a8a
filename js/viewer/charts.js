// Charts of a session with uPlot (a small, fast, well-kept canvas chart
// library: ~20 KB gzipped minified), from the series of series.js. The
// plots are made once and given new data as the position moves (`update`),
// and long runs are bucketed to at most MAX_POINTS x values (each bucket
// keeps its series' maxima, so alerts and peaks stay visible).
import uPlot from "uplot";
import { h } from "./dom.js";
import { cutSeries, xLabel } from "./series.js";

const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948"];
const MAX_POINTS = 1200;
const TURN_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
];

/**
 * uPlot's aligned columns for (x, y) lists over the x range [lo, hi] (the
 * whole session's, so the axes hold still while the position moves): one
 * column per turn, or per bucket of turns past MAX_POINTS; a bucket keeps
 * each series' maximum. Linear in the points: no sorting.
 */
function aligned(lists, [lo, hi]) {
  const width = Math.max(1, Math.ceil((hi - lo + 1) / MAX_POINTS));
  const n = Math.max(0, Math.floor((hi - lo) / width) + 1);
  const xs = Array.from({ length: n }, (_, i) => lo + i * width);
  const ys = lists.map((list) => {
    const y = new Array(n).fill(null);
    for (const [x, v] of list) {
      const i = Math.floor((x - lo) / width);
      if (i >= 0 && i < n && (y[i] === null || v > y[i])) y[i] = v;
    }
    return y;
  });
  return [xs, ...ys];
}

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

function theme(el) {
  const css = getComputedStyle(el);
  return {
    text: css.getPropertyValue("--asv-fg").trim() || "#222",
    grid: css.getPropertyValue("--asv-grid").trim() || "#ddd",
  };
}

/** The charts: title, series and their data from the session's series. */
function specs({ samples, alerts, turns, usage }, range, allOps) {
  let cumulative = 0;
  const ops = allOps.slice(0, PALETTE.length);
  return [
    {
      title: "Entropy score over turns (alerts marked)",
      series: [
        { label: "score" },
        { label: "alert", color: "#e15759", points: true },
        { label: "threshold", color: "#999", dash: [4, 4] },
      ],
      data: aligned(
        [
          samples.map((e) => [e.x, e.score]),
          alerts.map((e) => [e.x, e.score]),
          alerts.map((e) => [e.x, e.threshold]),
        ],
        range,
      ),
    },
    {
      title: "Tokens per turn: prompt (measured) and output, and in total",
      series: [
        { label: "prompt" },
        { label: "output", color: "#f28e2b" },
        { label: "cumulative", color: "#59a14f" },
      ],
      data: aligned(
        [
          turns.filter((t) => t.input_tokens !== null).map((t) => [t.x, t.input_tokens]),
          turns.map((t) => [t.x, t.output_tokens]),
          turns.map((t) => {
            cumulative += (t.input_tokens ?? 0) + t.output_tokens;
            return [t.x, cumulative];
          }),
        ],
        range,
      ),
    },
    {
      title: "Events per turn",
      series: [{ label: "events" }, { label: "errors", color: "#e15759" }],
      data: aligned(
        [turns.map((t) => [t.x, t.event_count]), turns.map((t) => [t.x, t.errors])],
        range,
      ),
      bars: true,
    },
    {
      title: "Budget usage by operation (tokens)",
      series: ops.map((op) => ({ label: op })),
      data: aligned(
        ops.map((op) => usage.filter((u) => u.operation_id === op).map((u) => [u.x, u.tokens])),
        range,
      ),
    },
  ];
}

function plot(box, spec, width, lives) {
  const t = theme(box);
  const axis = { stroke: t.text, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid } };
  return new uPlot(
    {
      width,
      height: 170,
      scales: { x: { time: false } },
      legend: { show: true, live: false },
      cursor: { drag: { x: false, y: false } },
      // Turns are whole numbers: no ticks between them.
      axes: [
        {
          ...axis,
          label: lives.length > 1 ? "life·turn" : "turn",
          incrs: TURN_STEPS,
          values: (_, splits) => splits.map((x) => xLabel(lives, x)),
        },
        { ...axis, size: 56 },
      ],
      series: [
        { label: "turn" },
        ...spec.series.map((s, i) => {
          const color = s.color ?? PALETTE[i % PALETTE.length];
          return {
            stroke: color,
            width: s.points ? 0 : spec.bars ? 1 : 2,
            dash: s.dash,
            label: s.label,
            spanGaps: !s.points,
            fill: spec.bars ? `${color}55` : undefined,
            paths: spec.bars ? uPlot.paths.bars({ size: [0.8, 40] }) : undefined,
            // Lines leave showing points to uPlot (it shows them while they fit,
            // so a single sample is visible); bars need none.
            points: s.points
              ? { show: true, size: 9, fill: color, stroke: color }
              : spec.bars
                ? { show: false }
                : {},
          };
        }),
      ],
    },
    spec.data,
    box,
  );
}

/** What a session's series give at every position: the operations and the
 * x range. Kept per series object: a long session scans its points once,
 * not at every step of time travel. */
const wholeOf = new WeakMap();
function whole(full) {
  let w = wholeOf.get(full);
  if (!w) {
    w = { ops: [...new Set(full.usage.map((u) => u.operation_id))], range: turnRange(full) };
    wholeOf.set(full, w);
  }
  return w;
}

/**
 * Draws the charts of a session's series as of position `at` into `host`
 * and returns a handle: `update(series, at)` gives the plots new data
 * (remaking only a chart whose series changed), `destroy()` removes them.
 */
export function renderCharts(host, series, at = Infinity) {
  const boxes = [];
  const plots = [];
  const shapes = [];
  const width = () => Math.max(240, Math.floor(host.getBoundingClientRect().width || 480) - 32);
  const draw = (full, position = Infinity) => {
    const { ops, range } = whole(full);
    specs(cutSeries(full, position), range, ops).forEach((spec, i) => {
      if (!boxes[i]) {
        boxes[i] = h(
          "figure",
          { class: "asv-chart" },
          h("figcaption", {}, spec.title),
          h("div", {}),
        );
        host.append(boxes[i]);
      }
      const area = boxes[i].lastChild;
      // A new life relabels the x axis: the plot is made again.
      const shape = `${spec.series.map((s) => s.label).join("\n")}\n${JSON.stringify(full.lives)}`;
      if (!spec.data.slice(1).some((ys) => ys.some((y) => y !== null))) {
        plots[i]?.destroy();
        plots[i] = null;
        area.replaceChildren(h("p", { class: "asv-dim" }, "No data yet."));
      } else if (plots[i] && shapes[i] === shape) {
        plots[i].setData(spec.data);
      } else {
        plots[i]?.destroy();
        area.replaceChildren();
        plots[i] = plot(area, spec, width(), full.lives ?? []);
      }
      shapes[i] = shape;
    });
  };
  draw(series, at);
  return {
    update: draw,
    destroy() {
      for (const p of plots) p?.destroy();
      for (const b of boxes) b.remove();
    },
  };
}
