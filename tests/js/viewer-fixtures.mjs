// Test fixtures for the viewer: the real-runtime corpus, the view of a log
// as the package folds it, and the parts of the pages' stylesheet.
import { readFileSync } from "node:fs";
import { SessionState } from "agent-replay";

const root = new URL("../..", import.meta.url).pathname;
export const corpus = (name) =>
  readFileSync(`${root}tests/corpus/deepstrike-0.2.77/${name}`, "utf8");

/** The view of `text` (a log), as `SessionState` folds it. */
export function contractView(text) {
  return new SessionState().apply(text).view();
}

/** The pages' stylesheet's parts (`www/css/NAME.css`), in the order
 * www/app.css imports them: the cascade's. */
export function stylesheetParts() {
  const entry = readFileSync(`${root}www/app.css`, "utf8");
  return [...entry.matchAll(/@import "\.\/(css\/[\w-]+\.css)";/g)].map((m) => `www/${m[1]}`);
}
