// The viewer's playback clock (www/playback.js), driven by a clock of the
// test's own: the log's times from real deepstrike logs and the sample,
// the fixed pace where a log has none, speeds and skipped idle stretches.
import { test } from "node:test";
import assert from "node:assert/strict";
import { parseLog, sampleLog } from "agent-replay";
import {
  IDLE_MS,
  Pace,
  PlaybackClock,
  SPEEDS,
  TIMED_KINDS,
  UNTIMED_EVENTS_PER_SECOND,
  clockMarks,
} from "../../www/playback.js";
import { corpus } from "./viewer-fixtures.mjs";

/** The pace of a log, from its events as the worker reads them. */
function paceOf(text) {
  const events = parseLog(text).events;
  const marks = events.flatMap((e, i) => clockMarks(i + 1, e));
  return { pace: new Pace(marks), events };
}

/** Plays from `from` for `wallMs` (in ticks of `tick` ms) at `speed`. */
function playFor(pace, end, { from = 0, wallMs, speed = 1, skipIdle = true, tick = 16 }) {
  const clock = new PlaybackClock(pace);
  clock.end = end;
  clock.skipIdle = skipIdle;
  clock.speed = speed;
  clock.play(from, 0);
  for (let t = tick; t < wallMs; t += tick) clock.advance(t);
  clock.advance(wallMs);
  return clock;
}

const UNTIMED_STEP = 1000 / UNTIMED_EVENTS_PER_SECOND;

test("the marks are the attempts' and sleeps' own times", () => {
  const { events } = paceOf(corpus("loop.jsonl"));
  const i = events.findIndex((e) => e.kind === "provider_attempt");
  const a = events[i];
  assert.deepEqual(clockMarks(i + 1, a), [
    [i, Number(a.started_at_ms)],
    [i + 1, Number(a.finished_at_ms)],
  ]);
  const j = events.findIndex((e) => e.kind === "round_paced" && e.action === "sleep");
  const sleep = events[j];
  assert.deepEqual(clockMarks(j + 1, sleep), [
    [j + 1, Number(sleep.wake_at_ms) - Number(sleep.delay_ms)],
    [j + 2, Number(sleep.wake_at_ms)],
  ]);
  const untimed = events.filter((e) => !TIMED_KINDS.includes(e.kind));
  assert.ok(untimed.length > 10);
  for (const e of untimed) assert.deepEqual(clockMarks(1, e), []);
  assert.deepEqual(clockMarks(1, { kind: "provider_attempt", started_at_ms: "x" }), []);
  assert.deepEqual(clockMarks(1, { kind: "round_paced", action: "continue" }), []);
});

test("a log without times plays at the fixed pace", () => {
  const { pace, events } = paceOf(corpus("workflow.jsonl"));
  assert.equal(pace.timed, false);
  for (let p = 1; p <= events.length; p++) assert.equal(pace.stepMs(p, false), UNTIMED_STEP);
  // 3 s at 1×, then at 8×.
  assert.equal(
    playFor(pace, events.length, { wallMs: 3000 }).position,
    3 * UNTIMED_EVENTS_PER_SECOND,
  );
  const fast = playFor(pace, events.length, { from: 1, wallMs: 1000, speed: 8 });
  assert.equal(fast.position, 1 + 8 * UNTIMED_EVENTS_PER_SECOND);
});

test("a timed log's steps add up to its own span between the first and last marks", () => {
  const { pace, events } = paceOf(corpus("long_run.jsonl"));
  assert.ok(pace.timed);
  const first = pace.positions[0];
  const last = pace.positions.at(-1);
  let sum = 0;
  for (let p = first + 1; p <= last; p++) {
    const ms = pace.stepMs(p, false);
    assert.ok(ms >= 0, `step ${p}`);
    sum += ms;
  }
  const times = events.flatMap((e) =>
    e.kind === "provider_attempt" ? [Number(e.started_at_ms), Number(e.finished_at_ms)] : [],
  );
  assert.ok(Math.abs(sum - (Math.max(...times) - Math.min(...times))) < 1e-6);
  // Before the first mark and after the last, the fixed pace.
  assert.equal(pace.stepMs(first, false), UNTIMED_STEP);
  assert.equal(pace.stepMs(last + 1, false), UNTIMED_STEP);
});

test("a model call's wait is the step into its attempt; a retry's, from the attempt before", () => {
  const { pace, events } = paceOf(sampleLog());
  const i = events.findIndex((e) => e.kind === "provider_attempt");
  const [first, retry] = [events[i], events[i + 1]];
  assert.equal(retry.kind, "provider_attempt");
  assert.equal(pace.stepMs(i + 1, false), first.finished_at_ms - first.started_at_ms);
  assert.equal(pace.stepMs(i + 2, false), retry.finished_at_ms - first.finished_at_ms);
});

test("skip idle shortens a sleep to IDLE_MS, and only steps longer than that", () => {
  const { pace, events } = paceOf(corpus("loop.jsonl"));
  const j = events.findIndex((e) => e.kind === "round_paced" && e.action === "sleep");
  // The event after the sleep comes at wake_at_ms: the step into it is the idle stretch.
  assert.equal(pace.stepMs(j + 2, false), Number(events[j].delay_ms));
  assert.equal(pace.stepMs(j + 2, true), IDLE_MS);
  let short = 0;
  for (let p = 1; p <= events.length; p++) {
    const ms = pace.stepMs(p, false);
    if (ms <= IDLE_MS) {
      short += 1;
      assert.equal(pace.stepMs(p, true), ms);
    }
  }
  assert.equal(short, events.length - 1);
  // Played across: the skipped stretch costs IDLE_MS of log time, not the sleep.
  const from = j + 1;
  const at = (wallMs, skipIdle) =>
    playFor(pace, events.length, { from, wallMs, speed: 8, skipIdle, tick: 1 }).position;
  assert.equal(at((IDLE_MS - 50) / 8, true), from);
  assert.ok(at((IDLE_MS + 50) / 8, true) > from);
  assert.equal(at((IDLE_MS + 50) / 8, false), from);
  assert.ok(at((Number(events[j].delay_ms) + 50) / 8, false) > from);
});

test("a clock that goes back is held, never played backwards", () => {
  const pace = new Pace([
    [2, 1000],
    [4, 500],
    [6, 3000],
  ]);
  assert.equal(pace.stepMs(3, false), 0);
  assert.equal(pace.stepMs(4, false), 0);
  assert.equal(pace.stepMs(5, false), 1000);
  assert.equal(pace.stepMs(6, false), 1000);
});

test("each speed plays that many times the log time", () => {
  const { pace, events } = paceOf(corpus("workflow.jsonl"));
  for (const speed of SPEEDS) {
    const c = playFor(pace, events.length, { wallMs: 1000, speed, tick: 10 });
    assert.equal(
      c.position,
      Math.min(events.length, speed * UNTIMED_EVENTS_PER_SECOND),
      `${speed}×`,
    );
  }
});

test("pause stops the clock, seek restarts the step, speed changes apply from then on", () => {
  const pace = new Pace();
  const clock = new PlaybackClock(pace);
  clock.end = 100;
  clock.play(10, 0);
  assert.equal(clock.advance(UNTIMED_STEP * 2), 12);
  clock.pause(UNTIMED_STEP * 3);
  assert.equal(clock.position, 13);
  assert.equal(clock.advance(UNTIMED_STEP * 50), 13);
  assert.equal(clock.untilNext(), Number.POSITIVE_INFINITY);
  clock.play(40, 10_000);
  assert.equal(clock.untilNext(), UNTIMED_STEP);
  clock.setSpeed(4, 10_000 + UNTIMED_STEP / 2); // half a step at 1×
  assert.equal(clock.untilNext(), UNTIMED_STEP / 8); // the other half at 4×
  assert.equal(clock.advance(10_000 + UNTIMED_STEP / 2 + UNTIMED_STEP / 8), 41);
  clock.seek(70, 20_000);
  assert.equal(clock.advance(20_000 + UNTIMED_STEP / 4 - 1), 70);
  assert.equal(clock.advance(20_000 + UNTIMED_STEP / 4), 71);
});

test("playing stops at the end, and play at the end starts over", () => {
  const clock = new PlaybackClock(new Pace());
  clock.end = 5;
  clock.play(3, 0);
  assert.equal(clock.advance(10 * UNTIMED_STEP), 5);
  assert.equal(clock.playing, false);
  assert.ok(clock.ended);
  clock.play(5, 0);
  assert.equal(clock.position, 0);
  assert.equal(clock.playing, true);
  // A live session grows: the end moves and playing goes on to it.
  clock.end = 8;
  assert.equal(clock.advance(20 * UNTIMED_STEP), 8);
});

test("one advance may take many steps, in order, bounded by the end", () => {
  const { pace, events } = paceOf(corpus("long_run.jsonl"));
  const c = playFor(pace, events.length, { wallMs: 60_000, speed: 8, tick: 1000 });
  assert.equal(c.position, events.length);
  assert.equal(c.playing, false);
});
