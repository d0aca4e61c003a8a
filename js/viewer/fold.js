// The fold of a whole log that <agent-session-viewer> does itself (its
// `setLog`, `log` and `src`): the one part of the element that needs the
// package's API and WebAssembly, in a module of its own that the element
// imports only when given a log. Imported statically from here, the API
// keeps only what the fold uses when bundled.
import { init, SessionState } from "../web.js";

/** The element's `data` for a log (string or bytes): its view and OS snapshot. */
export async function foldLog(input) {
  await init();
  const state = new SessionState();
  try {
    state.apply(input);
    return { view: state.view(), snapshot: state.osSnapshot() };
  } finally {
    state.free();
  }
}
