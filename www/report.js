// The page of a one-file report (`agent-replay report`): app.js as it is,
// given two things a file:// page cannot fetch. Its worker comes from the
// report's own bundle (report-worker.js and worker.js, inlined as text) via
// a blob: URL, as a classic worker (Chromium refuses a module worker from a
// blob: URL on a file:// page); its log comes from the page's log slot,
// gunzipped here into bytes that app.js opens as a text, and so does a
// file chosen or dropped. Bytes, not a File: WebKit fails to read a Blob
// or File of a file:// page in its worker (NotReadableError). The report
// bundle imports this before app.js, which reads `agentReplayEmbedded`.
import workerSource from "agent-replay:report-worker.js";
import { inflate } from "./report-inline.js";

/** The log the report holds: `{text, name}`, its bytes and the name the
 * log had (what the page calls it). */
async function embeddedLog() {
  const slot = document.getElementById("agent-replay-log");
  const inflated = inflate(slot.textContent, "application/octet-stream");
  const text = new Uint8Array(await inflated.arrayBuffer());
  // The base64 text is no longer needed: the page keeps the bytes only.
  slot.remove();
  return { text, name: slot.dataset.name };
}

/** What the page opens for a file chosen or dropped: its bytes, read
 * here, as `embeddedLog` gives the report's own (WebKit fails to read the
 * File in the report's worker, as it does a Blob). */
async function fileSource(file) {
  return { text: new Uint8Array(await file.arrayBuffer()), name: file.name };
}

function startWorker() {
  const script = new Blob([workerSource], { type: "text/javascript" });
  return new Worker(URL.createObjectURL(script));
}

globalThis.agentReplayEmbedded = { startWorker, log: embeddedLog, fileSource };
