// Test fixtures for the viewer: the real-runtime corpus, and the view of a
// log as the package folds it.
import { readFileSync } from "node:fs";
import { SessionState } from "agent-replay";

const root = new URL("../..", import.meta.url).pathname;
export const corpus = (name) =>
  readFileSync(`${root}tests/corpus/deepstrike-0.2.77/${name}`, "utf8");

/** The view of `text` (a log), as `SessionState` folds it. */
export function contractView(text) {
  return new SessionState().apply(text).view();
}
