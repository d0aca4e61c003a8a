// The page's worker, which loads and folds every log (worker.js): the page
// only asks it and renders what it answers (app.js takes the answers).
// A one-file report (`agent-replay report`) brings its own worker and log (www/report.js).
export const embedded = globalThis.agentReplayEmbedded;
// The page's worker was started by index.html, before this module loaded.
export const started = embedded ? null : globalThis.agentReplayWorker;
export const worker =
  embedded?.startWorker() ??
  started?.worker ??
  new Worker("/www/worker-start.js", { type: "module" });

/** Posts `msg` to the worker, which answers in a message of its own. */
export function ask(msg) {
  worker.postMessage(msg);
}
