// The viewer page around <agent-session-viewer>: this module puts its parts
// together, takes the worker's answers to them, and opens the first source.
// All loading and folding happens in worker.js; the page only renders. Each
// part is a module of its own: sources.js (file, drop, ?log=, live stream,
// the demo), progress.js, scrubber.js (state and time travel), filters.js
// and timeline.js, detail.js, live-panel.js, deep-link.js (the URL hash),
// playback-controls.js, keyboard.js, theme.js, errors.js and exports.js
// (automation); page-state.js holds what they share, page-worker.js the
// worker they ask.
import { decodeLink } from "./links.js";
import { openLink } from "./deep-link.js";
import { showDetail } from "./detail.js";
import { showError } from "./errors.js";
import { answerExport } from "./exports.js";
import { addCategoryChips, addKernelChips, fillKinds } from "./filters.js";
import "./keyboard.js";
import { showLive } from "./live-panel.js";
import { $, page } from "./page-state.js";
import { started, worker } from "./page-worker.js";
import { pacedNow } from "./playback-controls.js";
import { showPartial, showProgress, warmHeaderFonts } from "./progress.js";
import { showState } from "./scrubber.js";
import { grew, loaded, openFirstSource } from "./sources.js";
import "./theme.js";
import { addRows, answersCurrentFilter, filterAnswered, showFiltered } from "./timeline.js";

/** How long the page waits for its worker's first word (worker-start.js
 * says "started" on its first line) before it says the viewer did not
 * start: a worker that never runs leaves no error of its own, only a page
 * that shows nothing but its top bar. */
const WORKER_START_MS = 15_000;
const NOT_STARTED = "The viewer's worker did not start: reload the page.";
/** Whether the worker has said anything yet. */
let workerHeard = false;
setTimeout(() => workerHeard || showError(NOT_STARTED, { keep: true }), WORKER_START_MS);

// ---- Worker messages -------------------------------------------------------

worker.onmessage = ({ data: msg }) => {
  if (!workerHeard) {
    workerHeard = true;
    // Late rather than never: what the page said is no longer so.
    if ($("error").textContent === NOT_STARTED) $("error").hidden = true;
  }
  switch (msg.op) {
    case "categories":
      addCategoryChips(msg.categories);
      return addKernelChips(msg.kernel);
    case "progress":
      return showProgress(msg);
    case "charts":
      page.charts = msg.charts;
      return;
    case "digest":
      page.digest = msg.digest;
      return;
    case "loaded":
      return loaded(msg);
    case "kinds":
      return fillKinds(msg.kinds, msg.observations);
    case "partial":
      return showPartial(msg);
    case "state":
      return showState(msg);
    case "filtered":
      if (!answersCurrentFilter(msg)) return;
      showFiltered(msg.positions, msg.events);
      return filterAnswered();
    case "rows":
      return answersCurrentFilter(msg) ? addRows(msg.start, msg.rows) : undefined;
    case "detail":
      return showDetail(msg);
    case "marks":
      return pacedNow(msg.marks);
    case "live":
      return showLive(msg);
    case "grew":
      return grew(msg);
    case "export":
    case "memory":
      return answerExport(msg);
    case "error":
      // A filter that failed is answered too, so the search box never waits.
      filterAnswered();
      return showError(msg.message);
  }
};
worker.onerror = (e) => showError(`worker: ${e.message}`);
// Once the page's modules have run (the handlers need their state).
queueMicrotask(() => {
  for (const event of started?.early.splice(0) ?? []) worker.onmessage(event);
});

// ---- Start ----------------------------------------------------------------------

if (location.hash) openLink(decodeLink(location.hash));
openFirstSource();
// In a task of its own: its layout is then not part of this module's.
setTimeout(warmHeaderFonts);
