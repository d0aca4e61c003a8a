// Type-checked against the installed package (tsc, module node16): the
// ESM declarations resolve, as types.cts checks the CommonJS ones.
import { init, rebuildOsSnapshot, sampleLog } from "agent-replay";
import { createReplayHandler } from "agent-replay/edge";
import { toNodeListener } from "agent-replay/node";

await init();
const pagesOut: number = rebuildOsSnapshot(sampleLog()).page_out_count;
export const handler = createReplayHandler({ authorize: () => pagesOut > 0 });
export const listener: (
  req: import("node:http").IncomingMessage,
  res: import("node:http").ServerResponse,
) => Promise<void> = toNodeListener(handler);
