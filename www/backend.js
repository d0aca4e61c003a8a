// The viewer worker's backends behind one interface, and the one place that
// picks which answers for a log. The full view (backend-view.js) folds a
// log held whole and follows live streams; the paged index
// (backend-index.js) keeps a large log's texts in WebAssembly once and
// reads them a page at a time. The rest of the worker (worker.js and the
// worker-*.js modules) asks the backend of the open log, never which one
// it is.
import { ViewBackend } from "./backend-view.js";
import { IndexBackend } from "./backend-index.js";

/**
 * What the worker asks of the open log, whichever backend holds it.
 * Positions are 1-based; a filter's gap is -(its index + 1).
 *
 * @typedef {object} Backend
 * @property {number} eventCount The last position folded.
 * @property {object[]} gaps What a followed stream missed, by position
 *   (`{from, to, reason, …}`; always empty when it follows none).
 * @property {(slice: Uint8Array) => void} write Folds the next slice of the log.
 * @property {() => object} partial The summary so far: the header while it loads.
 * @property {() => object} end Ends the load: the fields of the `loaded`
 *   message it gives (framing, errors, kinds, observations, …).
 * @property {() => object} series The chart series (series.js's `chartSeries`).
 * @property {() => object} digest The runtime panels' rows (digest.js's `viewDigest`).
 * @property {() => Array | null} knownMarks The clock marks known without
 *   reading the log (null: read when playback first asks, `marks`).
 * @property {() => Array} marks The clock marks `[position, ms]` of the timed events.
 * @property {(at: number) => object} stateAt The state at a position within the
 *   log: `{shownAt, inGap, summary, snapshot, totals, view, calls, earlier}`.
 * @property {(filter: object) => Int32Array} filter The positions passing a
 *   filter (`{kinds, categories, kernel_categories, primitives, query}`).
 * @property {(position: number) => ({kind: string, turn?: number, json: string} | null)}
 *   event The event at a position.
 * @property {() => ({kinds: object, observations: object} | null)} observations
 *   The kernel observations by kind, when the page has still to get them.
 * @property {() => {events: number, checkpoints: number}} memory What it holds.
 * @property {() => {view: object | null, snapshot: object, events: number}} exported
 *   What the page's export saves.
 * @property {() => string | null} liveRefusal Why it cannot follow a stream
 *   (null: it can, with the three methods below).
 * @property {(text: string) => void} [writeLive] Folds a streamed event.
 * @property {(observation: object, gap: object | null) => boolean} [adopt]
 *   Starts over from a stream's observation; true when the source rewrote
 *   its history.
 * @property {() => {kinds: object, observations: object}} [grown] The counts
 *   after streamed events.
 * @property {() => void} free Lets its WebAssembly memory go.
 */

/** Logs larger than this open as a paged index (SessionIndex): no view,
 * no copy of the events in JS; the page asks for what it shows. */
const PAGED_ABOVE = 64 << 20;

/** The backend for a log of `total` bytes opened by the page's `open`
 * message: a paged index by the `?paged=` of the page's address (`query`;
 * "1" every log, any other value none), else when the log is large; else
 * the full view. The page passes its address on and never asks back. */
export function backendFor({ query }, total) {
  const paged = new URLSearchParams(query ?? "").get("paged");
  const indexed = paged == null ? total > PAGED_ABOVE : paged === "1";
  return indexed ? new IndexBackend(total) : new ViewBackend();
}

/** The backend of a followed stream: the full view, the one that folds
 * live events. */
export function streamBackend() {
  return new ViewBackend();
}
