// The playback controls: the clock (playback.js) moves the position
// forward at the log's pace; the page travels where it says. A move of the
// user's own seeks it.
import { $, page } from "./page-state.js";
import { ask } from "./page-worker.js";
import { Pace, PlaybackClock, UNTIMED_EVENTS_PER_SECOND } from "./playback.js";
import { travel } from "./scrubber.js";

export const clock = new PlaybackClock();
let playTimer = 0;

let paceUnread = false; // a paged log's marks are read on the first play
let playWhenPaced = false;

/** The playback pace from the worker's clock marks (sent when they change;
 * null: not read yet). */
export function setMarks(marks) {
  paceUnread = marks === null;
  playWhenPaced = false;
  clock.pace = new Pace(marks ?? []);
  $("pace").textContent = paceUnread
    ? ""
    : clock.pace.timed
      ? "log times"
      : `${UNTIMED_EVENTS_PER_SECOND} events/s (no times in the log)`;
}

/** The marks read on demand arrived: play if asked to meanwhile. */
export function pacedNow(marks) {
  const waiting = playWhenPaced;
  setMarks(marks);
  if (waiting) play();
}

function play() {
  if (paceUnread) {
    playWhenPaced = true;
    $("pace").textContent = "reading the log's times…";
    return ask({ op: "marks" });
  }
  clock.end = page.end;
  clock.play(page.shown, performance.now());
  if (clock.position !== page.shown) travel(clock.position, true);
  page.followLatest = false;
  showPlaying();
  schedule();
}

export function pause() {
  clock.pause(performance.now());
  showPlaying();
}

export function togglePlay() {
  if (clock.playing || playWhenPaced) {
    playWhenPaced = false;
    pause();
  } else if (page.end > 0) play();
}

/** The next tick when the next step is due (at most 60 a second). */
function schedule() {
  clearTimeout(playTimer);
  playTimer = clock.playing ? setTimeout(tick, Math.max(16, clock.untilNext())) : 0;
}

function tick() {
  clock.end = page.end;
  const p = clock.advance(performance.now());
  if (p !== page.shown) travel(p, true);
  if (!clock.playing) showPlaying();
  schedule();
}

function showPlaying() {
  const b = $("play");
  b.textContent = clock.playing ? "⏸" : "▶";
  b.setAttribute("aria-pressed", String(clock.playing));
  b.setAttribute("aria-label", clock.playing ? "Pause" : "Play");
}

$("play").addEventListener("click", togglePlay);
$("speed").addEventListener("change", (e) => {
  clock.setSpeed(Number(e.target.value), performance.now());
  schedule();
});
$("skip-idle").addEventListener("change", (e) => {
  clock.setSkipIdle(e.target.checked, performance.now());
  schedule();
});
