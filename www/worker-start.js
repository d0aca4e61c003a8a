// The viewer worker's entry. It imports nothing, so its first lines run as
// soon as it arrives: they start what worker.js would otherwise hold back
// until it had loaded, the .wasm's fetch and compile and the reader worker
// (its bundle, pkg/viewer-reader.js). Then it imports worker.js, bundled
// with everything it imports (pkg/viewer-worker.js, built by
// scripts/viewer-bundles.mjs), which takes both from `agentReplayStart`;
// the messages that arrive before worker.js listens wait in `held`.
const held = [];
self.onmessage = (event) => held.push(event);

const reader = new Worker("/agent-replay/pkg/viewer-reader.js", { type: "module" });

const wasm = WebAssembly.compileStreaming(fetch("/agent-replay/pkg/agent_replay_bg.wasm"));
// A failed compile is init()'s to report (worker.js then calls it without
// the module): not an unhandled rejection here.
wasm.catch(() => {});

self.agentReplayStart = { wasm, reader, held };
import("/agent-replay/pkg/viewer-worker.js");
