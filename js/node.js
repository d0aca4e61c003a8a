// Entry for Node and Deno: compiles the .wasm next to this package at
// import time (top-level await), so no manual init is needed.
import { readFile } from "node:fs/promises";
import { initSync } from "../pkg/agent_replay.js";
import { assertSimd } from "./common.js";

assertSimd();
const bytes = await readFile(new URL("../pkg/agent_replay_bg.wasm", import.meta.url));
initSync({ module: bytes });

export { init } from "./common.js";
export * from "./api.js";
export * from "./live.js";
export * from "./durable.js";
