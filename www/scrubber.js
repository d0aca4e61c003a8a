// State and time travel: the position the panels show, asked of the
// worker and shown in <agent-session-viewer>; the scrubber and its step
// buttons that move it.
import { num } from "/agent-replay/js/viewer/dom.js";
import { writeHash } from "./deep-link.js";
import { showLive } from "./live-panel.js";
import { $, page, viewer } from "./page-state.js";
import { ask } from "./page-worker.js";
import { clock } from "./playback-controls.js";
import { paintTimeline } from "./timeline.js";

let wanted = null; // a position asked for while another request runs
let inFlight = false;

/** Asks the worker for the state at `position`: one request at a time, and
 * of the positions asked for meanwhile only the latest follows it. */
export function requestAt(position) {
  if (inFlight) {
    wanted = position;
    return;
  }
  inFlight = true;
  ask({ op: "at", position });
}

/** Shows the worker's state at a position in the panels, the scrubber,
 * the position's label and the hash. */
export function showState(msg) {
  inFlight = false;
  page.end = msg.end;
  page.shown = msg.position;
  viewer.data = {
    view: msg.view,
    snapshot: msg.snapshot,
    summary: msg.summary,
    totals: msg.totals,
    at: msg.position,
    charts: page.charts,
    digest: page.digest && { ...page.digest, calls: msg.calls },
    earlier: msg.earlier,
  };
  setScrubber(msg.position);
  // The label changes once the panels show this state.
  viewer.addEventListener(
    "rendered",
    () => {
      if (page.shown !== msg.position) return;
      const turn = msg.summary.revision;
      $("position").textContent = msg.inGap
        ? `event ${num(msg.position)} of ${num(page.end)} is in a gap: state as of ${num(msg.shownAt)}`
        : `event ${num(msg.position)} of ${num(page.end)} · turn ${turn}${msg.position === page.end ? " · latest" : ""}`;
      document.dispatchEvent(
        new CustomEvent("viewer-state", { detail: { position: page.shown, end: page.end } }),
      );
    },
    { once: true },
  );
  writeHash();
  if (msg.live) showLive({ live: msg.live, gaps: msg.gaps });
  paintTimeline();
  if (wanted !== null && wanted !== page.shown) {
    const next = wanted;
    wanted = null;
    requestAt(next);
  } else wanted = null;
}

/** Puts the scrubber at `position` of `end`, writing only what differs: a
 * jump's input has already moved it, and writing a range input's `max` and
 * `value` again costs the same as a change. */
export function setScrubber(position) {
  const s = $("scrubber");
  const max = String(page.end);
  const value = String(position);
  if (s.max !== max) s.max = max;
  if (s.value !== value) s.value = value;
}

/** Shows the state as of `position`; a move of the user's own (not the
 * playback clock's) moves the clock too. */
export function travel(position, byClock = false) {
  const p = Math.max(0, Math.min(page.end, position));
  if (!byClock) {
    clock.end = page.end;
    clock.seek(p, performance.now());
  }
  page.followLatest = p >= page.end;
  setScrubber(p);
  requestAt(p);
}

$("scrubber").addEventListener("input", (e) => travel(Number(e.target.value)));
for (const b of document.querySelectorAll("[data-step]")) {
  b.addEventListener("click", () => {
    const step = Number(b.dataset.step);
    travel(Number.isFinite(step) ? page.shown + step : step > 0 ? page.end : 0);
  });
}
