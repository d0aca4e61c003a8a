// Playback: the clock that moves the viewer's position forward at 1–8×
// the log's own pace, with idle stretches shortened. Pure: no DOM and no
// timers; every call is given the time (`now`, in ms), so tests drive it
// with a clock of their own and playback-controls.js with performance.now().

export const SPEEDS = [1, 2, 4, 8];
/** The pace at 1× where the log has no times: events per second. */
export const UNTIMED_EVENTS_PER_SECOND = 2;
/** Log time a step may last when idle stretches are skipped: a longer
 * stretch without events plays as this long. */
export const IDLE_MS = 2000;

const UNTIMED_STEP_MS = 1000 / UNTIMED_EVENTS_PER_SECOND;

const msOf = (v) => {
  const n = Number(v);
  return Number.isFinite(n) && n >= 0 ? n : null;
};

/**
 * The times an event tells about the log, as `[position, ms]` marks. Event
 * kinds carry no time of their own; deepstrike's `provider_attempt` carries
 * `started_at_ms` and `finished_at_ms` (the event before it, which prepared
 * the call, is taken as written when the call started; the attempt itself
 * when it finished), and a `round_paced` sleep its `wake_at_ms` (the next
 * event comes no earlier) and `delay_ms` (the sleep began that long before).
 */
export function clockMarks(position, event) {
  const marks = [];
  if (event?.kind === "provider_attempt") {
    const started = msOf(event.started_at_ms);
    const finished = msOf(event.finished_at_ms);
    if (started !== null) marks.push([position - 1, started]);
    if (finished !== null) marks.push([position, finished]);
  } else if (event?.kind === "round_paced" && event.action === "sleep") {
    const wake = msOf(event.wake_at_ms);
    const delay = msOf(event.delay_ms);
    if (wake !== null && delay !== null && delay <= wake) marks.push([position, wake - delay]);
    if (wake !== null) marks.push([position + 1, wake]);
  }
  return marks;
}

/** The event kinds `clockMarks` reads. */
export const TIMED_KINDS = ["provider_attempt", "round_paced"];

/**
 * How long each step between two events lasts in log time. Between the
 * first and the last mark a position's time is interpolated between the
 * marks around it (of two marks on one position the earlier: an attempt's
 * own finish beats the start of a retry after it; times made
 * non-decreasing: a clock that went back is held); outside them, and in a
 * log with fewer than two marked positions, every step lasts
 * 1000 / UNTIMED_EVENTS_PER_SECOND ms.
 */
export class Pace {
  constructor(marks = []) {
    const byPosition = new Map();
    for (const [p, ms] of marks)
      if (p >= 0) byPosition.set(p, Math.min(ms, byPosition.get(p) ?? ms));
    const sorted = [...byPosition].sort((a, b) => a[0] - b[0]);
    let held = 0;
    /** Positions and their non-decreasing times. */
    this.positions = sorted.map(([p]) => p);
    this.times = sorted.map(([, ms]) => (held = Math.max(held, ms)));
  }

  /** Whether any step is timed by the log. */
  get timed() {
    return this.positions.length > 1;
  }

  /** The log time at `position` (inside the marked range). */
  timeAt(position) {
    const { positions, times } = this;
    let lo = 0;
    let hi = positions.length - 1;
    while (hi - lo > 1) {
      const mid = (lo + hi) >> 1;
      if (positions[mid] <= position) lo = mid;
      else hi = mid;
    }
    const span = positions[hi] - positions[lo];
    const f = span ? (position - positions[lo]) / span : 0;
    return times[lo] + f * (times[hi] - times[lo]);
  }

  /** Log ms from position `to - 1` to `to`; with `skipIdle`, at most IDLE_MS. */
  stepMs(to, skipIdle) {
    const { positions } = this;
    const inside = this.timed && to - 1 >= positions[0] && to <= positions[positions.length - 1];
    const ms = inside ? this.timeAt(to) - this.timeAt(to - 1) : UNTIMED_STEP_MS;
    return skipIdle ? Math.min(ms, IDLE_MS) : ms;
  }
}

/**
 * The playback clock: where playing has got to. `end` is the last
 * position there is (it grows while a live session streams); playing stops
 * there (`ended`).
 */
export class PlaybackClock {
  constructor(pace = new Pace()) {
    this.pace = pace;
    this.playing = false;
    this.speed = 1;
    this.skipIdle = true;
    this.position = 0;
    this.end = 0;
    /** Log ms played into the step after `position`. */
    this.into = 0;
    this.last = 0;
  }

  /** Plays from `position` (from the start when it is the end). */
  play(position, now) {
    this.seek(position >= this.end ? 0 : position, now);
    this.playing = true;
  }

  pause(now) {
    this.advance(now);
    this.playing = false;
  }

  /** Moves to `position` (the user travelled): the step starts afresh. */
  seek(position, now) {
    this.position = Math.max(0, Math.min(this.end, position));
    this.into = 0;
    this.last = now;
  }

  /** Changes the speed from now on (what was played so far, at the old one). */
  setSpeed(speed, now) {
    this.advance(now);
    this.speed = speed;
  }

  setSkipIdle(skip, now) {
    this.advance(now);
    this.skipIdle = skip;
  }

  get ended() {
    return this.position >= this.end;
  }

  /** The position as of `now`: each step taken once its log time has played. */
  advance(now) {
    if (!this.playing) return this.position;
    this.into += Math.max(0, now - this.last) * this.speed;
    this.last = now;
    while (this.position < this.end) {
      const step = this.pace.stepMs(this.position + 1, this.skipIdle);
      if (this.into < step) break;
      this.into -= step;
      this.position += 1;
    }
    if (this.ended) {
      this.into = 0;
      this.playing = false;
    }
    return this.position;
  }

  /** Wall ms until the next step is due (Infinity when not playing). */
  untilNext() {
    if (!this.playing || this.ended) return Number.POSITIVE_INFINITY;
    const step = this.pace.stepMs(this.position + 1, this.skipIdle);
    return Math.max(0, (step - this.into) / this.speed);
  }
}
