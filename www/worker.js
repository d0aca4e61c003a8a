// The viewer's Web Worker: it loads and folds logs in chunks, follows live
// streams, keeps light checkpoints for time travel, and answers the page's
// questions (state at a position, filtered timeline rows, one event) so
// the page never does heavy work. Built on the package's public API only.
// It imports by served URLs, which its bundle's build resolves to the
// package's files (scripts/viewer-bundles.mjs).
//
// This module is the page's messages dispatched; the open log is held by a
// backend (backend.js: the full view or the paged index, one interface),
// picked when a log loads (worker-load.js); the questions are answered in
// worker-queries.js and live streams followed in worker-live.js.
import { AgentReplayError, memoryUsage, eventKinds } from "/agent-replay/js/web.js";
import { kernelFacets } from "/agent-replay/js/viewer/describe.js";
import { load } from "./worker-load.js";
import { follow, followOn, postLive, stopLive } from "./worker-live.js";
import { detail, postFiltered, postRows, sendState } from "./worker-queries.js";
import { backend, post, ready, started } from "./worker-session.js";

// The page lays out its category filters from the kind table: the
// viewer's categories, and deepstrike's kernel categories and primitives
// when the table has them.
ready.then(() =>
  post({ op: "categories", categories: eventKinds().categories, kernel: kernelFacets() }),
);

/** Opens a file, a text or a URL (`load`); with `msg.live`, then follows
 * that stream on from the log's end. */
async function open(msg) {
  const loaded = await load(msg);
  if (loaded && msg.live) followOn(msg.live, msg.cursor);
}

/** What the page's memory panel shows. */
function memory() {
  return {
    op: "memory",
    ...memoryUsage(),
    ...(backend()?.memory() ?? { events: 0, checkpoints: 0 }),
  };
}

/** What the page's export saves: the view, the snapshot and the gaps. */
function exported() {
  return {
    op: "export",
    ...(backend()?.exported() ?? { view: null, snapshot: null, events: 0 }),
    gaps: backend()?.gaps ?? [],
  };
}

self.onmessage = async ({ data: msg }) => {
  try {
    switch (msg.op) {
      case "open":
        await open(msg);
        break;
      case "live":
        await follow(msg);
        break;
      case "disconnect":
        stopLive();
        postLive();
        break;
      case "at":
        if (backend()) sendState(msg.position, msg.seq);
        break;
      case "filter":
        postFiltered(msg);
        break;
      case "rows":
        postRows(msg);
        break;
      case "detail":
        post(detail(msg.position));
        break;
      case "marks":
        post({ op: "marks", marks: backend()?.marks() ?? [] });
        break;
      case "observations": {
        // The kernel observations by kind, when the page has still to get them.
        const observations = backend()?.observations();
        if (observations) post({ op: "kinds", ...observations });
        break;
      }
      case "memory":
        post(memory());
        break;
      case "export":
        post(exported());
        break;
      case "reader":
        break; // the reader's port: worker-start.js takes it
      default:
        throw new Error(`unknown request ${msg.op}`);
    }
  } catch (error) {
    post({
      op: "error",
      message: error.message,
      code: error instanceof AgentReplayError ? error.code : "viewer",
    });
  }
};
// What the page sent while this module loaded, in order.
for (const event of started?.held.splice(0) ?? []) self.onmessage(event);
