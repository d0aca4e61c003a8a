// The viewer worker's backend of a log held whole (backend.js's `Backend`):
// a SessionState folded as the log loads or streams in, the events kept
// in JS for the timeline, and light checkpoints for time travel.
import { SessionState } from "/agent-replay/js/web.js";
import { categoryOf, kernelFacetsOf } from "/agent-replay/js/viewer/describe.js";
import { upperBound, viewDigest } from "/agent-replay/js/viewer/digest.js";
import { chartSeries } from "/agent-replay/js/viewer/series.js";
import { textMatcher } from "/agent-replay/js/viewer/text-search.js";
import { TIMED_KINDS, clockMarks } from "./playback.js";
import { SHOWN_HISTORY, SHOWN_ROWS, TRANSCRIPT_WINDOW, callsAround } from "./backend-shared.js";

/** Events between time-travel checkpoints, at least: they are taken at
 * chunk boundaries, so on a generated log one comes every two 256 KB
 * chunks (~870 events), and a time-travel step folds fewer than that. */
const CHECKPOINT_EVERY = 500;

/** The clock marks of a kept event ({position, json}). */
function timesOf(e) {
  try {
    return clockMarks(e.position, JSON.parse(e.json));
  } catch {
    return [];
  }
}

const setOf = (list) => (list?.length ? new Set(list) : null);

/** Keeps what the panels show of long lists (a long run has thousands of
 * signals and process states: copying them to the page would cost more than
 * the rest of a time-travel step). */
function shorten(summary, snapshot) {
  const totals = { lists: {}, history: {} };
  for (const key of ["budget_exceeded", "budget_usage_reported", "cancellations", "signals"]) {
    totals.lists[key] = snapshot[key].length;
    snapshot[key] = snapshot[key].slice(-SHOWN_ROWS);
  }
  for (const p of summary.processes) {
    totals.history[p.agent_id] = p.history.length;
    p.history = p.history.slice(-SHOWN_HISTORY);
  }
  return totals;
}

/** @implements {import("./backend.js").Backend} */
export class ViewBackend {
  state = new SessionState();
  events = []; // {position, kind, turn, json, sub?}, by position (holes after gaps)
  observationCounts = new Map(); // observation_kind → kernel_observation events of it
  marksKept = []; // [position, ms]: the times the log tells (playback's pace)
  checkpoints = [{ position: 0, state: this.state.checkpoint() }]; // light states, by position
  gaps = []; // {from, to, reason, requested_cursor, latest_cursor, recovered_at, revision}
  #view = null; // what the page needs of the view as of the last event (refreshed lazily)
  #series = null;
  #digest = null;

  get eventCount() {
    return this.state.eventCount;
  }

  /** Keeps an event for the timeline; a kernel observation with its
   * `observation_kind` (`sub`), which the timeline filters by. */
  #keep = (e) => {
    if (e.kind === "kernel_observation") {
      try {
        e.sub = String(JSON.parse(e.json).observation_kind);
        this.observationCounts.set(e.sub, (this.observationCounts.get(e.sub) ?? 0) + 1);
      } catch {
        // not an object: no observation kind to filter by
      }
    }
    if (TIMED_KINDS.includes(e.kind)) this.marksKept.push(...timesOf(e));
    this.events.push(e);
  };

  #maybeCheckpoint() {
    const last = this.checkpoints[this.checkpoints.length - 1];
    if (this.state.eventCount - last.position >= CHECKPOINT_EVERY)
      this.checkpoints.push({ position: this.state.eventCount, state: this.state.checkpoint() });
  }

  /** The view's transcript, load errors and counts, and the chart series;
   * the rest of the view is let go (on a long log it is most of the memory). */
  #shownView() {
    if (!this.#view) {
      const whole = this.state.view();
      this.#series = chartSeries(whole);
      this.#digest = viewDigest(whole);
      this.#view = {
        transcript: whole.transcript,
        load_errors: whole.load_errors,
        counts: whole.counts,
      };
    }
    return this.#view;
  }

  write(slice) {
    this.state.write(slice, { onEvent: this.#keep });
    this.#maybeCheckpoint();
  }

  partial() {
    return this.state.summary();
  }

  end() {
    const report = this.state.end({ onEvent: this.#keep });
    return {
      framing: report.framing,
      errors: report.errors.length,
      kinds: this.#shownView().counts,
      observations: Object.fromEntries(this.observationCounts),
    };
  }

  series() {
    this.#shownView();
    return this.#series;
  }

  digest() {
    this.#shownView();
    return this.#digest;
  }

  knownMarks() {
    return this.marksKept;
  }

  marks() {
    return this.marksKept;
  }

  /** The state as of position `at`: from the nearest checkpoint at or
   * before it, folding the (at most a few thousand) events after it. */
  stateAt(at) {
    let summary;
    let snapshot;
    let shownAt = at;
    if (at === this.eventCount) {
      summary = this.state.summary();
      snapshot = this.state.osSnapshot();
    } else {
      ({ summary, snapshot, shownAt } = this.#foldTo(at));
    }
    const totals = shorten(summary, snapshot);
    const v = this.#shownView();
    const cut = upperBound(v.transcript, at);
    const first = Math.max(0, cut - TRANSCRIPT_WINDOW);
    const transcript = v.transcript.slice(first, cut);
    return {
      shownAt,
      inGap: this.gaps.find((g) => at >= g.from && at <= g.to) ?? null,
      summary,
      snapshot,
      totals,
      view: { transcript, load_errors: v.load_errors.slice(0, 200) },
      calls: callsAround(this.#digest, transcript, at),
      earlier: first,
    };
  }

  /** The summary and snapshot at `at`, folded from the checkpoint before it. */
  #foldTo(at) {
    const { checkpoints, events } = this;
    const cp = checkpoints[upperBound(checkpoints, at) - 1];
    const from = upperBound(events, cp.position);
    const to = upperBound(events, at);
    const tmp = cp.state.checkpoint();
    try {
      if (to > from)
        tmp.apply(
          `[${events
            .slice(from, to)
            .map((e) => e.json)
            .join(",")}]`,
        );
      return { summary: tmp.summary(), snapshot: tmp.osSnapshot(), shownAt: tmp.eventCount };
    } finally {
      tmp.free();
    }
  }

  /** Positions of the events passing the filter; a gap is -(index + 1).
   * `kinds` holds kinds and "kernel_observation/<observation_kind>";
   * `kernel_categories` and `primitives` are deepstrike's, from the table. */
  filter({ kinds, categories, kernel_categories, primitives, query }) {
    const { events, gaps } = this;
    const kindSet = setOf(kinds);
    const catSet = setOf(categories);
    const kernelSet = setOf(kernel_categories);
    const primitiveSet = setOf(primitives);
    const matches = textMatcher(query);
    const out = [];
    let g = 0;
    for (const e of events) {
      while (g < gaps.length && gaps[g].from <= e.position) out.push(-++g);
      if (kindSet && !kindSet.has(e.kind) && !kindSet.has(`${e.kind}/${e.sub}`)) continue;
      if (catSet && !catSet.has(categoryOf(e.kind))) continue;
      if (kernelSet || primitiveSet) {
        const facets = kernelFacetsOf(e.kind);
        if (kernelSet && !kernelSet.has(facets.kernel_category)) continue;
        if (primitiveSet && !primitiveSet.has(facets.primitive)) continue;
      }
      if (matches && !matches(e.json)) continue;
      out.push(e.position);
    }
    while (g < gaps.length) out.push(-++g);
    return Int32Array.from(out);
  }

  event(position) {
    const { events } = this;
    const i = upperBound(events, position) - 1;
    return i >= 0 && events[i].position === position ? events[i] : null;
  }

  /** A view's kernel observations by kind came with it when it loaded. */
  observations() {
    return null;
  }

  memory() {
    return { events: this.events.length, checkpoints: this.checkpoints.length };
  }

  exported() {
    return {
      view: this.state.view(),
      snapshot: this.state.osSnapshot(),
      events: this.events.length,
    };
  }

  grown() {
    return {
      kinds: this.#shownView().counts,
      observations: Object.fromEntries(this.observationCounts),
    };
  }

  liveRefusal() {
    return null;
  }

  writeLive(text) {
    this.write(text);
    this.#view = null;
  }

  /** Starts over from an observation: exact state at its position, history
   * before it kept, what was missed recorded as a gap. True when the
   * source rewrote its history (what was held of it is gone). */
  adopt(observation, gap) {
    const to = observation.state.event_count;
    // Fewer events than we folded: the source's history was truncated or
    // replaced (a new generation of a followed file). What we hold belongs to
    // the old history, so it goes, and the whole new history is the gap.
    const rewritten = to < this.eventCount;
    if (rewritten) this.#forgetHistory();
    const from = rewritten ? 1 : this.eventCount + 1;
    const next = SessionState.fromObservation(observation);
    this.state.free();
    this.state = next;
    if (rewritten || (to >= from && (gap || to > 0))) {
      this.gaps.push({
        from,
        to,
        rewritten,
        reason: gap?.reason ?? "not_replayed",
        requested_cursor: gap?.requested_cursor ?? null,
        latest_cursor: observation.cursor,
        revision: observation.revision,
        recovered_at: to,
      });
    }
    const { checkpoints } = this;
    while (checkpoints.length > 1 && checkpoints[checkpoints.length - 1].position >= from)
      checkpoints.pop().state.free();
    checkpoints.push({ position: to, state: this.state.checkpoint() });
    this.#view = null;
    return rewritten;
  }

  /** Drops the events, counts, gaps and checkpoints of a history the source rewrote. */
  #forgetHistory() {
    for (const c of this.checkpoints.splice(1)) c.state.free();
    this.events = [];
    this.observationCounts = new Map();
    this.marksKept = [];
    this.gaps = [];
    this.#series = null;
    this.#digest = null;
  }

  free() {
    this.state.free();
    for (const c of this.checkpoints) c.state.free();
  }
}
