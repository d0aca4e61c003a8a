// Entry for Cloudflare's workerd: the .wasm is imported as a module (workerd
// forbids compiling WebAssembly from bytes at run time), so no init is needed.
import wasm from "../pkg/agent_replay_bg.wasm";
import { initSync } from "../pkg/agent_replay.js";

initSync({ module: wasm });

export { init } from "./common.js";
export * from "./api.js";
export * from "./live.js";
export * from "./durable.js";
