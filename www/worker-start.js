// The viewer worker's entry. It imports nothing, so its first lines run as
// soon as it arrives: they start what worker.js's module graph would
// otherwise hold back until its last module had loaded, the .wasm's fetch
// and compile and the reader worker (with its own two modules). Then it
// imports worker.js, which takes both from `agentReplayStart`; the
// messages that arrive before worker.js listens wait in `held`.
const held = [];
self.onmessage = (event) => held.push(event);

const reader = new Worker("/agent-replay/js/viewer/reader-worker.js", { type: "module" });

const wasm = WebAssembly.compileStreaming(fetch("/agent-replay/pkg/agent_replay_bg.wasm"));
// A failed compile is init()'s to report (worker.js then calls it without
// the module): not an unhandled rejection here.
wasm.catch(() => {});

self.agentReplayStart = { wasm, reader, held };
// The package's entry loads beside worker.js rather than a level below it:
// its own imports (two levels) are on the way while worker.js arrives.
import("/agent-replay/js/web.js");
import("./worker.js");
