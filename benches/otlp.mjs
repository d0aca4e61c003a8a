// OTLP export (issue 14): for each LOG, the fold (SessionState.apply), then
// toOtlp(), then view() for comparison: both build and serialise a JSON
// document of the session's size. Three runs each; the last is the warm one.
//   node scripts/build.mjs && node benches/otlp.mjs LOG...
import { readFileSync } from "node:fs";
import { SessionState } from "../js/node.js";

for (const file of process.argv.slice(2)) {
  const text = readFileSync(file, "utf8");
  for (let run = 1; run <= 3; run++) {
    const t0 = performance.now();
    const state = new SessionState().apply(text);
    const t1 = performance.now();
    const trace = state.toOtlp();
    const t2 = performance.now();
    state.view();
    const t3 = performance.now();
    const spans = trace.resourceSpans[0].scopeSpans[0].spans.length;
    const ms = (a, b) => `${(b - a).toFixed(0)} ms`;
    console.log(
      `${file} run ${run}: ${state.eventCount} events, ${spans} spans; fold ${ms(t0, t1)}, toOtlp ${ms(t1, t2)}, view ${ms(t2, t3)}`,
    );
    state.free();
  }
}
