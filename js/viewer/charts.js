// Charts of a session with uPlot (a small, fast, well-kept canvas chart
// library: ~20 KB gzipped minified), from the series of series.js or the
// tables chart-data.js buckets them into. The plots are made once and given
// new data as the position moves (`update`); chart-data.js buckets long
// runs (each bucket keeps its series' maxima, so alerts and peaks stay
// visible). uPlot is imported with the first chart, not with this module:
// a page that imports the viewer shows its first state without loading,
// parsing and running uPlot first.
import { h } from "./dom.js";
import { PALETTE, chartTables, columnsAt } from "./chart-data.js";
import { xLabel } from "./series.js";

/** How far past the viewport's edges charts are kept drawn at each step,
 * as a share of its height. */
const NEAR = 0.25;

const TURN_STEPS = [
  1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000, 20000, 50000, 100000,
];

/** uPlot's constructor, once `loadUPlot()` has resolved. */
let uPlot = null;
let loading = null;

/** Imports uPlot (once); resolves when `uPlot` is set. */
function loadUPlot() {
  loading ??= import("uplot").then((module) => {
    uPlot = module.default;
  });
  return loading;
}

function theme(el) {
  const css = getComputedStyle(el);
  return {
    text: css.getPropertyValue("--asv-fg").trim() || "#222",
    grid: css.getPropertyValue("--asv-grid").trim() || "#ddd",
  };
}

/** A plot of `spec` in `box`, made but not drawn: `{plot, draw}`, where
 * `draw()` gives it its data and size (the first draw of a plot is about
 * as costly as making it: the two can go in tasks of their own). */
function plot(box, spec, width, lives) {
  const t = theme(box);
  const axis = { stroke: t.text, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid } };
  let drawn;
  const made = new uPlot(
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
    (u, draw) => {
      box.append(u.root);
      drawn = draw;
    },
  );
  return { plot: made, draw: () => drawn() };
}

/** The chart tables of a session's series (`chartTables`), or the tables
 * given; bucketed once per series object: time travel then reads columns
 * by position instead of re-bucketing. */
const tablesOf = new WeakMap();
function tablesFor(input) {
  if (input.charts) return input;
  let tables = tablesOf.get(input);
  if (!tables) {
    tables = chartTables(input, PALETTE.length);
    tablesOf.set(input, tables);
  }
  return tables;
}

/** Whether two charts' aligned columns hold the same values. */
function sameColumns(a, b) {
  if (a.length !== b.length) return false;
  return a.every((column, i) => {
    const other = b[i];
    return (
      column === other || (column.length === other.length && column.every((y, k) => y === other[k]))
    );
  });
}

/**
 * Draws the charts of a session's series (`chartSeries`, or its
 * `chartTables`, e.g. made in a Worker) as of position `at` into `host`
 * and returns a handle: `update(series, at)` gives the plots new data
 * (remaking only a chart whose series changed; charts far from the
 * viewport get it when they come near, or at `flush()`), `whenDrawn(f)`
 * calls `f` once every chart is made, `destroy()` removes them. The charts are made
 * one per task (making a plot is the costly part), so none of those tasks
 * runs long; the first waits for uPlot's import.
 */
export function renderCharts(host, series, at = Infinity) {
  const boxes = [];
  const plots = [];
  const shapes = [];
  const width = () => Math.max(240, Math.floor(host.getBoundingClientRect().width || 480) - 32);
  const drawChart = (chart, i, full, position) => {
    const spec = { ...chart, data: columnsAt(chart, position) };
    if (!boxes[i]) {
      boxes[i] = h("figure", { class: "asv-chart" }, h("figcaption", {}, spec.title), h("div", {}));
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
      // A step within a turn changes no column: nothing to redraw.
      if (!sameColumns(plots[i].data, spec.data)) plots[i].setData(spec.data);
    } else {
      plots[i]?.destroy();
      area.replaceChildren();
      const made = plot(area, spec, width(), full.lives ?? []);
      plots[i] = made.plot;
      shapes[i] = shape;
      return made.draw;
    }
    shapes[i] = shape;
    return null;
  };
  let shown = { full: series, position: at };
  let made = 0;
  let timer = 0;
  let waiting = [];
  const madeOne = () => {
    made += 1;
    if (made < tablesFor(shown.full).charts.length) timer = setTimeout(makeNext);
    else for (const f of waiting.splice(0)) f();
  };
  /** Makes the next chart, and draws it in the task after (then again if
   * the position moved meanwhile). */
  const makeNext = () => {
    const asked = shown;
    const tables = tablesFor(asked.full);
    const draw = drawChart(tables.charts[made], made, tables, asked.position);
    if (!draw) return madeOne();
    timer = setTimeout(() => {
      draw();
      if (shown !== asked) redraw(made);
      madeOne();
    });
  };
  /** Gives chart `i` the data as of the position shown. */
  const redraw = (i) => {
    const tables = tablesFor(shown.full);
    drawChart(tables.charts[i], i, tables, shown.position)?.();
  };
  // Charts far from the viewport are not drawn again at a step (each draw
  // is a canvas's axes and every series): once they come near.
  let near = true;
  let stale = false;
  const redrawStale = () => {
    if (!stale) return;
    stale = false;
    for (let i = 0; i < made; i++) redraw(i);
  };
  const observer = new IntersectionObserver(
    ([seen]) => {
      near = seen.isIntersecting;
      if (near) redrawStale();
    },
    { rootMargin: `${NEAR * 100}% 0px` },
  );
  observer.observe(host);
  let stopped = false;
  if (uPlot) makeNext();
  else
    loadUPlot().then(
      () => {
        if (!stopped) makeNext();
      },
      (error) => {
        if (!stopped) host.append(h("p", { class: "asv-errors" }, `No charts: ${error.message}`));
      },
    );
  return {
    update(full, position = Infinity) {
      shown = { full, position };
      stale = true;
      if (near) redrawStale();
    },
    /** Draws now what was left for when the charts come near (printing). */
    flush: redrawStale,
    whenDrawn(f) {
      if (made < tablesFor(shown.full).charts.length) waiting.push(f);
      else f();
    },
    destroy() {
      stopped = true;
      observer.disconnect();
      clearTimeout(timer);
      waiting = [];
      for (const p of plots) p?.destroy();
      for (const b of boxes) b.remove();
    },
  };
}
