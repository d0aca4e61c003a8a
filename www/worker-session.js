// What the viewer worker's modules share: the .wasm's start, the way to
// the page, and the backend of the log open now (backend.js), which a new
// source replaces. No module here asks which backend it is.
import { init } from "/agent-replay/js/web.js";
import { chartBuffers, chartTables } from "/agent-replay/js/viewer/chart-data.js";

/** What worker-start.js (this worker's entry on the viewer page) started
 * before this module loaded: the .wasm's compile, the reader worker, and
 * the messages that came meanwhile. A one-file report's worker has none. */
export const started = self.agentReplayStart;
// A compile that failed (a host without SIMD) is init()'s to report, as
// when it fetches the .wasm itself.
export const ready = started ? started.wasm.then(init, () => init()) : init();

export const post = (msg, transfer) => self.postMessage(msg, transfer ?? []);

/** The backend of the open log (null before the first). */
let current = null;
/** Bumps on every new source: stale work stops. */
let generation = 0;
/** What stops when a new source comes (worker-live.js's follow). */
const stops = [];

/** The open log's backend (null before the first). */
export const backend = () => current;

/** The source's generation: work that began under an older one stops. */
export const currentGeneration = () => generation;

/** Calls `stop` whenever the backend is replaced. */
export function onReplace(stop) {
  stops.push(stop);
}

/** Starts over with the backend `make()` makes (backend.js): stale work
 * stops, and the old backend's memory is let go before the new one takes
 * its own. */
export function replace(make) {
  generation += 1;
  for (const stop of stops) stop();
  current?.free();
  current = null;
  current = make();
  return current;
}

/** Posts `msg` with the charts of the open log's series bucketed
 * (`chartTables`): their typed arrays are transferred, so the page reads
 * them at once instead of copying a long run's points and bucketing them
 * itself. */
export function postCharts(msg) {
  const charts = chartTables(current.series());
  post({ ...msg, charts }, chartBuffers(charts));
}

/** The digest the page keeps: its model calls come with each state
 * (backend-shared.js's `callsAround`), a long run's thousands of them
 * never all at once. */
export function digestShown() {
  return { ...current.digest(), calls: [] };
}

/** The charts' tables and the runtime panels' rows of a loaded log, each
 * in a message of its own: apart (from each other and from the rest of
 * what the page does at load) no task of it runs long. */
export function postLists() {
  postCharts({ op: "charts" });
  post({ op: "digest", digest: digestShown() });
}
