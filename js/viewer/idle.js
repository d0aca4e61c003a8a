// Idle scheduling, one behaviour for the viewer and its page. No DOM: a
// Worker or Node can import it (where it falls back to a timer).

/** How long a task waits for an idle period at most, in ms, by default:
 * a busy page still gets it done soon after a frame or two. */
const IDLE_TIMEOUT = 200;

/** The wait where there is no `requestIdleCallback` (Safari), in ms: a
 * frame's time, so that one scheduled from another runs after a frame
 * rather than in the same one. */
const FRAME_MS = 16;

/**
 * Runs `f` in the page's next idle period, or after `timeout` ms if none
 * comes by then (a task that must not wait long on a busy page gives a
 * shorter one; one that can wait, a longer one). Without
 * `requestIdleCallback`, after a frame's time.
 */
export function whenIdle(f, { timeout = IDLE_TIMEOUT } = {}) {
  return globalThis.requestIdleCallback
    ? requestIdleCallback(f, { timeout })
    : setTimeout(f, FRAME_MS);
}
