// Charts of a session with uPlot (a small, fast, well-kept canvas chart
// library: ~20 KB gzipped minified, draws 100k points without trouble),
// from the series of series.js.
import uPlot from "uplot";
import { h } from "./dom.js";

const PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#b07aa1", "#76b7b2", "#edc948"];

/** Merges (x, y) lists into uPlot's aligned columns (x sorted, gaps null). */
function aligned(lists) {
  const xs = [...new Set(lists.flatMap((l) => l.map(([x]) => x)))].sort((a, b) => a - b);
  const index = new Map(xs.map((x, i) => [x, i]));
  const ys = lists.map((l) => {
    const y = new Array(xs.length).fill(null);
    for (const [x, v] of l) y[index.get(x)] = v;
    return y;
  });
  return [xs, ...ys];
}

function theme(el) {
  const css = getComputedStyle(el);
  return { text: css.getPropertyValue("--asv-fg").trim() || "#222", grid: css.getPropertyValue("--asv-grid").trim() || "#ddd" };
}

function chart(host, title, series, data, { bars = false } = {}) {
  const box = h("figure", { class: "asv-chart" }, h("figcaption", {}, title));
  host.append(box);
  if (!data[0].length) {
    box.append(h("p", { class: "asv-dim" }, "No data yet."));
    return null;
  }
  const t = theme(host);
  const axis = { stroke: t.text, grid: { stroke: t.grid, width: 1 }, ticks: { stroke: t.grid } };
  const width = Math.max(240, Math.floor(box.getBoundingClientRect().width || host.clientWidth || 480) - 8);
  return new uPlot({
    width,
    height: 170,
    scales: { x: { time: false } },
    legend: { show: true },
    cursor: { drag: { x: false, y: false } },
    axes: [{ ...axis, label: "turn" }, { ...axis, size: 56 }],
    series: [{ label: "turn" }, ...series.map((s, i) => ({
      stroke: s.color ?? PALETTE[i % PALETTE.length],
      width: s.points ? 0 : 2,
      dash: s.dash,
      label: s.label,
      spanGaps: !s.points,
      fill: bars ? `${s.color ?? PALETTE[i % PALETTE.length]}55` : undefined,
      paths: bars ? uPlot.paths.bars({ size: [0.7, 40] }) : undefined,
      points: s.points ? { show: true, size: 9, fill: s.color, stroke: s.color } : { show: false },
    }))],
  }, data, box);
}

/** Draws the entropy, token and events-per-turn charts; returns them so a
 * caller can `destroy()` them before drawing again. */
export function renderCharts(host, { samples, alerts, turns, usage }) {
  const plots = [];
  const add = (p) => p && plots.push(p);
  add(chart(host, "Entropy score over turns (alerts marked)", [
    { label: "score" },
    { label: "alert", color: "#e15759", points: true },
    { label: "threshold", color: "#999", dash: [4, 4] },
  ], aligned([samples.map((e) => [e.turn, e.score]), alerts.map((e) => [e.turn, e.score]), alerts.map((e) => [e.turn, e.threshold])])));
  let cumulative = 0;
  add(chart(host, "Tokens per turn and in total", [{ label: "tokens" }, { label: "cumulative", color: "#59a14f" }],
    aligned([turns.map((t) => [t.turn, Number(t.tokens)]), turns.map((t) => [t.turn, (cumulative += Number(t.tokens))])])));
  add(chart(host, "Events per turn", [{ label: "events" }, { label: "errors", color: "#e15759" }],
    aligned([turns.map((t) => [t.turn, t.event_count]), turns.map((t) => [t.turn, t.errors])]), { bars: true }));
  const ops = [...new Set(usage.map((u) => u.operation_id))].slice(0, PALETTE.length);
  add(chart(host, "Budget usage by operation (tokens)", ops.map((op) => ({ label: op })),
    aligned(ops.map((op) => usage.filter((u) => u.operation_id === op).map((u) => [u.turn, Number(u.tokens)])))));
  return plots;
}
