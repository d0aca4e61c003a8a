// The viewer worker's backend of a large log (backend.js's `Backend`): a
// SessionIndex, the package's paged index. The log's bytes go to
// WebAssembly slice by slice and are kept there once; JS holds no event,
// and the page's questions are answered a page of the index at a time.
import { SessionIndex } from "/agent-replay/js/web.js";
import { viewDigest } from "/agent-replay/js/viewer/digest.js";
import { chartSeries } from "/agent-replay/js/viewer/series.js";
import {
  eachEntryAt,
  headlineSummary,
  panelView,
  transcriptAround,
} from "/agent-replay/js/viewer/paged.js";
import { TIMED_KINDS, clockMarks } from "./playback.js";
import { SHOWN_HISTORY, SHOWN_ROWS, TRANSCRIPT_WINDOW, callsAround } from "./backend-shared.js";

const some = (list) => (list?.length ? list : undefined);

/** @implements {import("./backend.js").Backend} */
export class IndexBackend {
  index = new SessionIndex();
  /** A paged index folds no live event: it has no gaps. */
  gaps = [];
  #loadErrors = [];
  #counts = {};
  #series = null;
  #digest = null;

  /** `total`: the log's size in bytes (0 when unknown). */
  constructor(total) {
    // The texts are kept: room for them made at once.
    this.index.reserve(total);
  }

  get eventCount() {
    return this.index.eventCount;
  }

  write(slice) {
    this.index.write(slice);
  }

  partial() {
    return headlineSummary(this.index);
  }

  end() {
    const report = this.index.end();
    const lists = panelView(this.index);
    this.#series = chartSeries(lists, this.index.turnSeries());
    this.#digest = viewDigest(lists);
    this.#loadErrors = lists.load_errors;
    this.#counts = lists.counts;
    return {
      framing: report.framing,
      errors: report.errors.length,
      kinds: lists.counts,
      // Counted when the page asks, after its first filter (every kernel
      // observation is read): the state and the timeline do not wait for them.
      observations: null,
      // Read when playback first needs them: on a log of millions of events
      // reading every attempt would delay the first view.
      marks: null,
    };
  }

  series() {
    return this.#series;
  }

  digest() {
    return this.#digest;
  }

  /** None until the page asks (`marks`): reading them reads every timed event. */
  knownMarks() {
    return null;
  }

  /** The clock marks of the timed events, read a page at a time. */
  marks() {
    const out = [];
    eachEntryAt(this.index, this.index.filter({ kinds: TIMED_KINDS }), ({ position, event }) =>
      out.push(...clockMarks(position, event)),
    );
    return out;
  }

  /** The state from the index's checkpoints, the transcript folded around
   * the position. */
  stateAt(at) {
    const { index } = this;
    const { summary, osSnapshot: snapshot, totals } = index.stateAt(at, { tail: SHOWN_ROWS });
    for (const p of summary.processes) p.history = p.history.slice(-SHOWN_HISTORY);
    const transcript = transcriptAround(index, at, summary.lives, { last: TRANSCRIPT_WINDOW });
    return {
      shownAt: at,
      inGap: null,
      summary,
      snapshot,
      totals,
      view: { transcript, load_errors: this.#loadErrors },
      calls: callsAround(this.#digest, transcript, at),
      earlier: 0,
    };
  }

  filter({ kinds, categories, kernel_categories, primitives, query }) {
    return Int32Array.from(
      this.index.filter({
        kinds: some(kinds),
        categories: some(categories),
        kernelCategories: some(kernel_categories),
        primitives: some(primitives),
        query: query || undefined,
      }),
    );
  }

  event(position) {
    return this.index.event(position);
  }

  /** The kernel observations by kind, once loaded (the page asks after its
   * first filter). */
  observations() {
    if (!this.#series) return null;
    return { kinds: this.#counts, observations: this.index.observationKinds() };
  }

  memory() {
    return { events: this.index.eventCount, checkpoints: this.index.memory().checkpoints };
  }

  exported() {
    return { view: null, snapshot: this.index.osSnapshot(), events: this.index.eventCount };
  }

  /** Why it does not follow a stream (it has none of a live backend's
   * `writeLive`, `adopt` and `grown`). */
  liveRefusal() {
    return "live: a log this large opens paged, which does not follow live: reload for more";
  }

  free() {
    this.index.free();
  }
}
