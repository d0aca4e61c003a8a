// For automation and debugging (tests, benches): `agentReplayViewer` on
// the page, the worker's full state and memory on request, where the viewer
// is and whether it plays.
import { page } from "./page-state.js";
import { ask } from "./page-worker.js";
import { clock } from "./playback-controls.js";

const exportWaiters = [];

/** The worker's answer to `exportState` or `memory`. */
export function answerExport(msg) {
  for (const w of exportWaiters.splice(0)) w(msg);
}

/** For automation and debugging: the full state the viewer holds. */
window.agentReplayViewer = {
  exportState: () =>
    new Promise((resolve) => {
      exportWaiters.push(resolve);
      ask({ op: "export" });
    }),
  /** The worker's WebAssembly memory (`memoryUsage()`), events and checkpoints held. */
  memory: () =>
    new Promise((resolve) => {
      exportWaiters.push(resolve);
      ask({ op: "memory" });
    }),
  get position() {
    return page.shown;
  },
  get end() {
    return page.end;
  },
  get playing() {
    return clock.playing;
  },
};
