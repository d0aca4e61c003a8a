// The viewer worker's entry. It imports nothing, so its first lines run as
// soon as it arrives: they start what worker.js would otherwise hold back
// until it had loaded, the .wasm's fetch and compile and the reader worker
// (its bundle, pkg/viewer-reader.js). Then it imports worker.js, bundled
// with everything it imports (pkg/viewer-worker.js, built by
// scripts/viewer-bundles.mjs), which takes both from `agentReplayStart`;
// the messages that arrive before worker.js listens wait in `held`. It also
// loads Intl's locale data, off the page's thread.
const held = [];
self.onmessage = (event) => held.push(event);

const reader = new Worker("/agent-replay/pkg/viewer-reader.js", { type: "module" });

const wasm = WebAssembly.compileStreaming(fetch("/agent-replay/pkg/agent_replay_bg.wasm"));
// A failed compile is init()'s to report (worker.js then calls it without
// the module): not an unhandled rejection here.
wasm.catch(() => {});

self.agentReplayStart = { wasm, reader, held };
import("/agent-replay/pkg/viewer-worker.js");

// Intl's first number and date formats load its locale data for the whole
// renderer process, a long task on whichever thread comes first: uPlot's
// module makes both when the charts import it. Made here, on this thread,
// while worker.js's bundle loads, the page's own formats find the data
// loaded.
new Intl.NumberFormat(navigator.language);
new Intl.DateTimeFormat().resolvedOptions();
