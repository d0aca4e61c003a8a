// Entry for browsers and bundlers: `await init()` once before anything
// else. It fetches the .wasm next to this package's JS (or pass a URL, a
// Response, or a compiled WebAssembly.Module for hosts that load it).
import initWasm from "../pkg/agent_replay.js";
import { assertSimd } from "./common.js";

let ready;

/** Loads the WebAssembly; idempotent. */
export function init(wasm) {
  assertSimd();
  ready ??= initWasm(wasm === undefined ? undefined : { module_or_path: wasm });
  return ready.then(() => undefined);
}

export * from "./api.js";
export * from "./live.js";
export * from "./durable.js";
