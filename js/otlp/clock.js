// Span times, in Unix nanoseconds (BigInt: they pass 2^53). The log's
// only clock readings are the provider attempts' start and finish: those
// are used as written. Every other moment is synthetic: derived from the
// event's position, one microsecond per event after the last real time
// before it (or before the first real time after it), never past the next
// real time, so synthetic times are monotone by position and sit between
// the real ones around them. Attempts may overlap: the clock takes each
// attempt's times no earlier than the latest finish before it, so that
// order holds anyway. A log with no real time at all is placed at one
// microsecond per position after the origin the caller gives (the CLI:
// the file's modification time), else after the Unix epoch.
import { U64_MAX } from "./raw.js";

const STEP_NS = 1000n;

// (Math.max and Math.min take no BigInt.)
// biome-ignore lint/complexity/useMathMinMax: BigInts
export const max = (a, b) => (a > b ? a : b);
// biome-ignore lint/complexity/useMathMinMax: BigInts
export const min = (a, b) => (a < b ? a : b);
/** u64 arithmetic as the times need it: saturating at 0 and at 2^64-1. */
export const subSat = (a, b) => (a > b ? a - b : 0n);
export const addSat = (a, b) => min(a + b, U64_MAX);
export const mulSat = (a, b) => min(a * b, U64_MAX);

/** A moment of a span, and whether the log gave it (real) or the position did. */
export const real = (nanos) => ({ nanos, real: true });
export const synthetic = (nanos) => ({ nanos, real: false });

/** Moments in order: by time, a synthetic one before a real one at the same time. */
export const compareMoments = (a, b) =>
  a.nanos === b.nanos ? Number(a.real) - Number(b.real) : a.nanos < b.nanos ? -1 : 1;

export class Clock {
  /** Anchored on the attempts' times (`attempts` in log order); `origin`
   * (nanoseconds) places a log without any. */
  constructor(attempts, origin) {
    let latest = 0n;
    this.anchors = [];
    for (const a of attempts) {
      if (!a.times) continue;
      const anchor = { position: a.position, start: max(a.times[0], latest) };
      anchor.end = max(a.times[1], latest);
      latest = anchor.end;
      this.anchors.push(anchor);
    }
    this.origin = origin;
  }

  /** The index of the first anchor past `position`. */
  #after(position) {
    let [lo, hi] = [0, this.anchors.length];
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (this.anchors[mid].position <= position) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  }

  /** The synthetic time of the event at `position` (a BigInt). */
  at(position) {
    const after = this.#after(position);
    const [before, next] = [this.anchors[after - 1], this.anchors[after]];
    if (before) {
      const stepped = addSat(before.end, mulSat(subSat(position, before.position), STEP_NS));
      // Just before the next real time at the latest, one nanosecond per
      // position, so the order still holds.
      const bound = next ? subSat(next.start, subSat(next.position, position)) : U64_MAX;
      return synthetic(max(min(stepped, bound), before.end));
    }
    if (next)
      return synthetic(subSat(next.start, mulSat(subSat(next.position, position), STEP_NS)));
    return synthetic(addSat(this.origin, mulSat(position, STEP_NS)));
  }
}
