// The dashboard's charts over the runs shown (after filters): runs over
// time by outcome, tokens per run, and the tools that fail most. Plain
// SVG: three small charts redrawn with the list need no chart library.
import { toneColors } from "../js/viewer/palette.js";
import { OUTCOMES, outcomeTone } from "../js/viewer/status.js";
import { fmt } from "./sessions-rows.js";

const SVG = "http://www.w3.org/2000/svg";
const W = 320;
const H = 120;
/** Time buckets of the runs-over-time chart, and bins of the tokens chart. */
const BUCKETS = 24;
/** Tools listed in the failing-tools chart. */
const TOP_TOOLS = 6;

function svg(tag, attrs = {}, text) {
  const el = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
  if (text !== undefined) el.textContent = text;
  return el;
}

function frame(title) {
  const box = document.createElement("figure");
  box.className = "chart";
  const caption = document.createElement("figcaption");
  caption.textContent = title;
  const plot = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": title });
  box.append(caption, plot);
  return { box, plot };
}

/** The chart's box, saying there is nothing to draw. */
function empty({ box, plot }, text) {
  plot.append(svg("text", { x: W / 2, y: H / 2, "text-anchor": "middle", class: "axis" }, text));
  return box;
}

/** Counts by bucket of time and outcome: the runs' start (else their last write). */
export function runsOverTime(entries) {
  const times = entries.map((e) => e.figures.started ?? e.figures.written);
  if (!times.length) return null;
  const from = Math.min(...times);
  const span = Math.max(1, Math.max(...times) - from);
  const buckets = Array.from({ length: BUCKETS }, () =>
    Object.fromEntries(OUTCOMES.map((o) => [o, 0])),
  );
  entries.forEach((e, i) => {
    const b = Math.min(BUCKETS - 1, Math.floor(((times[i] - from) / span) * BUCKETS));
    buckets[b][e.figures.outcome] = (buckets[b][e.figures.outcome] ?? 0) + 1;
  });
  return { from, to: from + span, buckets };
}

function drawRunsOverTime(entries) {
  const { box, plot } = frame("Runs over time, by outcome");
  const data = runsOverTime(entries);
  if (!data) return empty({ box, plot }, "no runs");
  const most = Math.max(1, ...data.buckets.map((b) => OUTCOMES.reduce((s, o) => s + b[o], 0)));
  const bw = W / BUCKETS;
  data.buckets.forEach((b, i) => {
    let y = H - 14;
    for (const o of OUTCOMES) {
      const h = (b[o] / most) * (H - 24);
      if (!h) continue;
      y -= h;
      const bar = svg("rect", {
        x: i * bw + 1,
        y,
        width: bw - 2,
        height: h,
        class: `bar ${o}`,
        style: `fill: ${toneColors(outcomeTone(o)).color}`,
      });
      bar.append(svg("title", {}, `${o}: ${b[o]}`));
      plot.append(bar);
    }
  });
  const day = (ms) => new Date(ms).toISOString().slice(5, 16).replace("T", " ");
  plot.append(svg("text", { x: 0, y: H - 2, class: "axis" }, day(data.from)));
  plot.append(svg("text", { x: W, y: H - 2, class: "axis", "text-anchor": "end" }, day(data.to)));
  return box;
}

/** Runs by their tokens (input + output), in BUCKETS bins from 0 to the most on a log
 * scale: a few long runs would otherwise leave every other run in the first bin. */
function drawTokens(entries) {
  const { box, plot } = frame("Tokens per run (input + output, log scale)");
  const tokens = entries.map((e) => e.figures.input_tokens + e.figures.output_tokens);
  const most = Math.max(0, ...tokens);
  if (!tokens.length || most === 0) return empty({ box, plot }, "no tokens");
  const scale = Math.log1p(most);
  const bins = new Array(BUCKETS).fill(0);
  for (const t of tokens)
    bins[Math.min(BUCKETS - 1, Math.floor((Math.log1p(t) / scale) * BUCKETS))] += 1;
  const top = Math.max(...bins);
  const bw = W / BUCKETS;
  bins.forEach((n, i) => {
    const h = (n / top) * (H - 24);
    const bar = svg("rect", {
      x: i * bw + 1,
      y: H - 14 - h,
      width: bw - 2,
      height: h,
      class: "bar tokens",
    });
    const lo = Math.round(Math.expm1((i / BUCKETS) * scale));
    bar.append(svg("title", {}, `${n} runs from ${fmt(lo)} tokens`));
    plot.append(bar);
  });
  plot.append(svg("text", { x: 0, y: H - 2, class: "axis" }, "0"));
  plot.append(svg("text", { x: W, y: H - 2, class: "axis", "text-anchor": "end" }, fmt(most)));
  return box;
}

/** The tools with the most failed results over the runs (and their sub-agents). */
export function failingTools(entries) {
  const failed = new Map();
  for (const { row, children } of entries)
    for (const r of [row, ...children])
      for (const t of r.tools)
        if (t.errors) failed.set(t.name, (failed.get(t.name) ?? 0) + t.errors);
  return [...failed].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0])).slice(0, TOP_TOOLS);
}

function drawFailingTools(entries) {
  const { box, plot } = frame("Tools that fail most (failed results)");
  const tools = failingTools(entries);
  if (!tools.length) return empty({ box, plot }, "no tool failed");
  const most = tools[0][1];
  const rowH = (H - 4) / TOP_TOOLS;
  tools.forEach(([name, n], i) => {
    const y = i * rowH + 2;
    plot.append(svg("text", { x: 0, y: y + rowH * 0.7, class: "axis tool" }, name.slice(0, 18)));
    const w = (n / most) * (W - 150);
    plot.append(
      svg("rect", {
        x: 110,
        y: y + 2,
        width: Math.max(1, w),
        height: rowH - 5,
        class: "bar failed",
        style: `fill: ${toneColors("failed").color}`,
      }),
    );
    plot.append(svg("text", { x: 114 + w, y: y + rowH * 0.7, class: "axis" }, fmt(n)));
  });
  return box;
}

/** Draws the three charts into `box` over the top-level entries shown. */
export function renderCharts(box, entries) {
  const top = entries.filter((e) => e.depth === 0);
  box.replaceChildren(drawRunsOverTime(top), drawTokens(top), drawFailingTools(top));
}
