// The browser check: init the package, do the real work, publish the result.
import { init } from "agent-replay";
import { work } from "./work.mjs";

await init();
globalThis.result = work();
