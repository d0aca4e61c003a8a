// What both of the viewer worker's backends (backend-view.js,
// backend-index.js) send alike: how much of a state's lists goes to the
// page, and the model calls beside its transcript.
import { upperBound } from "/agent-replay/js/viewer/digest.js";

/** Transcript entries sent with a state. */
export const TRANSCRIPT_WINDOW = 30;
/** Rows of each OS-snapshot list and states of each process's history
 * sent for display (the panels show the latest; totals go beside them). */
export const SHOWN_ROWS = 15;
export const SHOWN_HISTORY = 12;

/** The model calls of `digest` that the transcript entries of a state
 * show, as render.js's callsShown picks them: from the first entry's
 * position (by the position of the answer they produced) to `at`. */
export function callsAround(digest, entries, at) {
  const calls = digest?.calls ?? [];
  const from = entries[0]?.position ?? 0;
  const first = upperBound(calls, from - 1, (c) => c.answer ?? c.position);
  let last = first;
  while (last < calls.length && calls[last].position <= at) last += 1;
  return calls.slice(first, last);
}
