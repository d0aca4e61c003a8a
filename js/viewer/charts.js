// Charts of a session with uPlot (a small, fast, well-kept canvas chart
// library: ~20 KB gzipped minified), from the series of series.js or the
// tables chart-data.js buckets them into. The plots draw the whole run and
// mark the position (time travel) as trace viewers do: a playhead, and the
// part after it dimmed, an element over each plot moved by a transform, so
// a step redraws no canvas. They get new data only when the run grows
// (`update` with new series). uPlot is imported with the first chart, not
// with this module: a page that imports the viewer shows its first state
// without loading, parsing and running uPlot first.
import { h, tickLabels } from "./dom.js";
import { chartColumns, chartTables, xAt } from "./chart-data.js";
import { SERIES_COLORS, THEMES } from "./palette.js";
import { xLabel } from "./series.js";

/** How far past the viewport's edges charts are kept drawn as the run
 * grows, as a share of its height. */
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
    text: css.getPropertyValue("--asv-fg").trim() || THEMES.light.fg,
    grid: css.getPropertyValue("--asv-grid").trim() || THEMES.light.grid,
  };
}

/** Each plot's playhead: the part of the plot after the position, its
 * left border the position. */
const playheads = new WeakMap();

/** A plot of `spec` in `box`, made but not drawn: `{plot, draw}`, where
 * `draw()` gives it its data and size (the first draw of a plot is about
 * as costly as making it: the two can go in tasks of their own);
 * `drawn(u)` is called after each of its draws. */
function plot(box, spec, width, lives, drawn) {
  const t = theme(box);
  const axis = { stroke: t.text, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid } };
  let first;
  const made = new uPlot(
    {
      width,
      height: 170,
      hooks: { draw: [drawn] },
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
        { ...axis, size: 56, values: (_, splits, _i, _space, incr) => tickLabels(splits, incr) },
        // A series on a scale of its own (a running total) reads on the right.
        ...(spec.series.some((s) => s.scale === "total")
          ? [
              {
                ...axis,
                scale: "total",
                side: 1,
                size: 56,
                grid: { show: false },
                values: (_, splits, _i, _space, incr) => tickLabels(splits, incr),
              },
            ]
          : []),
      ],
      series: [
        { label: "turn" },
        ...spec.series.map((s, i) => {
          const color = s.color ?? SERIES_COLORS[i % SERIES_COLORS.length];
          return {
            scale: s.scale ?? "y",
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
      const after = h("div", { class: "asv-after", hidden: true });
      playheads.set(u, after);
      u.over.append(after);
      box.append(u.root);
      first = draw;
    },
  );
  return { plot: made, draw: () => first() };
}

/** Moves plot `u`'s playhead to x (null: before the first turn, the
 * left edge; undefined: hidden, the whole run shown as it is). Only a
 * transform changes: no layout, no canvas drawn. */
function placePlayhead(u, x) {
  const after = playheads.get(u);
  const px = x === null ? 0 : x === undefined ? Number.NaN : u.valToPos(x, "x");
  after.hidden = !Number.isFinite(px);
  if (!after.hidden) after.style.transform = `translateX(${px}px)`;
}

/** The chart tables of a session's series (`chartTables`), or the tables
 * given; bucketed once per series object, so a step that gives the same
 * series again neither buckets nor draws. */
const tablesOf = new WeakMap();
function tablesFor(input) {
  if (input.charts) return input;
  let tables = tablesOf.get(input);
  if (!tables) {
    tables = chartTables(input, SERIES_COLORS.length);
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
 * `chartTables`, e.g. made in a Worker) into `host`, the whole run with
 * position `at` marked (`Infinity`: none), and returns a handle:
 * `update(series, at)` moves the mark, and gives the plots new data when
 * `series` is a new object (remaking only a chart whose series changed;
 * charts far from the viewport get it when they come near, or at
 * `flush()`), `whenDrawn(f)` calls `f` once every chart is made,
 * `destroy()` removes them. The charts are made one per task (making a
 * plot is the costly part), so none of those tasks runs long; the first
 * waits for uPlot's import.
 */
export function renderCharts(host, series, at = Infinity) {
  const boxes = [];
  const plots = [];
  const shapes = [];
  const width = () => Math.max(240, Math.floor(host.getBoundingClientRect().width || 480) - 32);
  /** Puts plot `u`'s playhead at the position shown. */
  const place = (u) =>
    placePlayhead(
      u,
      shown.position === Infinity ? undefined : xAt(tablesFor(shown.full), shown.position),
    );
  const drawChart = (chart, i, full) => {
    const spec = { ...chart, data: chartColumns(chart) };
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
      // The run grew without a new turn or point: nothing to redraw.
      if (!sameColumns(plots[i].data, spec.data)) plots[i].setData(spec.data);
    } else {
      plots[i]?.destroy();
      area.replaceChildren();
      const made = plot(area, spec, width(), full.lives ?? [], place);
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
   * the run grew meanwhile). */
  const makeNext = () => {
    const asked = shown;
    const tables = tablesFor(asked.full);
    const draw = drawChart(tables.charts[made], made, tables);
    if (!draw) return madeOne();
    timer = setTimeout(() => {
      draw();
      if (shown.full !== asked.full) redraw(made);
      madeOne();
    });
  };
  /** Gives chart `i` the data shown. */
  const redraw = (i) => {
    const tables = tablesFor(shown.full);
    drawChart(tables.charts[i], i, tables)?.();
  };
  // Charts far from the viewport are not drawn again as the run grows
  // (each draw is a canvas's axes and every series): once they come near.
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
      const grew = full !== shown.full;
      shown = { full, position };
      if (grew) {
        stale = true;
        if (near) redrawStale();
      }
      for (const u of plots) if (u) place(u);
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
