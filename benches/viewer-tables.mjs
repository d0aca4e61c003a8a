// The tables benches/viewer.mjs prints, in markdown for benches/RESULTS.md:
// every load, then the medians of each (log, engine, source), with a base
// build beside the current one and their ratio.
import { CHECKING } from "./viewer-page.mjs";

/** The middle of `xs` (of an even count, the mean of the two middles); NaN of none. */
export function median(xs) {
  const sorted = [...xs].sort((a, b) => a - b);
  const half = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[half] : (sorted[half - 1] + sorted[half]) / 2;
}

/** "20,000 events (9 MB)". */
export function label(log) {
  return `${log.events.toLocaleString("en-US")} events (${log.mb.toFixed(0)} MB)`;
}

const f = (x, d = 0) => (Number.isFinite(x) ? x.toFixed(d) : "–");
/** "≤" when a milestone of `row` is an upper bound (the probe came after it). */
const late = (row, name) => (row.late?.includes(name) ? "≤" : "");
/** "*" when a load was checked with no checking indicator ever shown. */
const unseen = (row) => (Number.isFinite(row.checked) && !row.checkingSeen ? "*" : "");
const line = (cells) => console.log(`| ${cells.join(" | ")} |`);

/** Prints a markdown table of `columns` (each `[title, cell(item), text]`) over `items`. */
function table(columns, items) {
  line(columns.map(([title]) => title));
  line(columns.map(([, , text]) => (text ? "---" : "---:")));
  for (const item of items) line(columns.map(([, cell]) => cell(item)));
}

/** What the tables' marks mean. */
function legend(builds) {
  const from = builds.map((b) => `${b.name}: ${b.revision} (${b.checkout})`).join("; ");
  console.log(`${new Date().toISOString()}, ${from}\n`);
  console.log('"≤": reached before the probe was installed (WebKit has no init script): at most.');
  console.log(`"*": no ${CHECKING} was ever shown: checked is navigable.`);
  console.log("Memory: the browser's processes summed, PSS (each page once) and RSS (shared");
  console.log("pages in every process that maps them), once checked, and their peaks.\n");
}

/** One row a load. */
function printLoads(rows) {
  table(
    [
      ["round", (r) => r.round],
      ["log", (r) => label(r.log), true],
      ["engine", (r) => r.engine, true],
      ["source", (r) => r.source, true],
      ["build", (r) => r.build, true],
      ["load avg", (r) => f(r.load, 2)],
      ["first render ms", (r) => `${late(r, "first")}${f(r.first)}`],
      ["navigable ms", (r) => `${late(r, "navigable")}${f(r.navigable)}`],
      ["checked ms", (r) => `${late(r, "checked")}${f(r.checked)}${unseen(r)}`],
      ["search ms", (r) => f(r.searchMs)],
      ["scrub median / worst ms", (r) => `${f(r.scrubMedian, 1)} / ${f(r.scrubWorst, 1)}`],
      ["longest task load / scrub ms", (r) => `${f(r.longestLoadTask)} / ${f(r.longestScrubTask)}`],
      ["PSS MB (peak)", (r) => `${f(r.pss)} (${f(r.pssPeak)})`],
      ["RSS MB (peak)", (r) => `${f(r.rss)} (${f(r.rssPeak)})`],
      ["worker wasm MB", (r) => f(r.wasmMemory)],
      ["outcome", (r) => r.outcome, true],
    ],
    rows,
  );
}

/** A column of medians over a group's loaded rows: current's, with a base
 * "current / base (current ÷ base)"; "≤" if one of them is an upper bound. */
const medianOf =
  (key) =>
  ({ byBuild }) => {
    const of = (rows) => median(rows.map((r) => r[key]).filter(Number.isFinite));
    const bound = byBuild.some((rows) => rows.some((r) => late(r, key))) ? "≤" : "";
    const [c, b] = byBuild.map(of);
    return bound + (byBuild.length === 1 ? f(c) : `${f(c)} / ${f(b)} (${f(c / b, 2)})`);
  };

/** One row a (log, engine, source): the medians of its loaded rows. */
function printMedians({ rows, logs, engines, sources, builds, rounds }) {
  const groups = logs.flatMap((log) =>
    engines.flatMap((engine) =>
      sources.map((source) => {
        const same = (r) => r.log === log && r.engine === engine && r.source === source;
        const byBuild = builds.map((b) => rows.filter((r) => same(r) && r.build === b.name));
        return { log, engine, source, byBuild: byBuild.map((rs) => rs.filter((r) => r.loaded)) };
      }),
    ),
  );
  const versus = builds.length > 1 ? ", current / base (current ÷ base)" : "";
  console.log(`\nMedians of ${rounds} round${rounds > 1 ? "s" : ""}${versus}:\n`);
  table(
    [
      ["log", (g) => label(g.log), true],
      ["engine", (g) => g.engine, true],
      ["source", (g) => g.source, true],
      ["loaded", (g) => `${g.byBuild.map((rs) => rs.length).join(" / ")} of ${rounds}`],
      ["first render ms", medianOf("first")],
      ["navigable ms", medianOf("navigable")],
      ["checked ms", medianOf("checked")],
      ["search ms", medianOf("searchMs")],
      ["scrub median ms", medianOf("scrubMedian")],
      ["scrub worst ms", medianOf("scrubWorst")],
      ["PSS MB", medianOf("pss")],
      ["PSS peak MB", medianOf("pssPeak")],
      ["RSS MB", medianOf("rss")],
    ],
    groups,
  );
}

/** Prints the run's tables: `rows` (one a load, as benches/viewer.mjs
 * measures them) of `logs` × `engines` × `sources` × `builds`, `rounds` times. */
export function printTables(run) {
  legend(run.builds);
  printLoads(run.rows);
  printMedians(run);
}
