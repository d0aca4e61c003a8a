// The viewer worker's entry. It imports nothing, so its first lines run as
// soon as it arrives: it tells the page it runs (the page says so when it
// hears nothing: app.js), and starts what worker.js would otherwise hold
// back until it had loaded, the .wasm's fetch and compile. Then it imports
// worker.js, bundled with everything it imports (pkg/viewer-worker.js,
// built by scripts/viewer-bundles.mjs), which takes the compile, the
// reader worker's port and the messages that arrived meanwhile from
// `agentReplayStart`. The port comes from the page (index.html starts the
// reader worker) in its first message, which may arrive before or after
// worker.js has loaded: a listener of its own takes it either way.
let readerPort;
const reader = new Promise((resolve) => {
  readerPort = resolve;
});
self.addEventListener("message", ({ data }) => data?.op === "reader" && readerPort(data.port));
const held = [];
self.onmessage = (event) => event.data?.op !== "reader" && held.push(event);
self.postMessage({ op: "started" });

const wasm = WebAssembly.compileStreaming(fetch("/agent-replay/pkg/agent_replay_bg.wasm"));
// A failed compile is init()'s to report (worker.js then calls it without
// the module): not an unhandled rejection here.
wasm.catch(() => {});

self.agentReplayStart = { wasm, reader, held };
import("/agent-replay/pkg/viewer-worker.js");
