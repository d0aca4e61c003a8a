// The worker of a one-file report (`agent-replay report`): worker.js as it
// is, but its .wasm comes inlined (gzipped, base64) rather than fetched: a
// worker a file:// page starts from a blob: URL can fetch nothing. The
// report's worker bundle imports this before worker.js, whose own init()
// (worker-session.js's) then finds the module already loading (init is
// idempotent).
import wasmGzipBase64 from "agent-replay:wasm.gz.base64";
import { init } from "../js/web.js";
import { inflate } from "./report-inline.js";

// As the viewer's worker entry does: the page waits to hear it runs.
self.postMessage({ op: "started" });
init(inflate(wasmGzipBase64, "application/wasm"));
