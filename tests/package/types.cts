// Type-checked against the installed package (tsc, module node16): the
// CommonJS declarations resolve, as types.mts checks the ESM ones.
import { rebuildOsSnapshot, sampleLog } from "agent-replay";
import { createReplayHandler } from "agent-replay/edge";
import { toNodeListener } from "agent-replay/node";

const pagesOut: number = rebuildOsSnapshot(sampleLog()).page_out_count;
export const handler = createReplayHandler({ authorize: () => pagesOut > 0 });
export const listener: (
  req: import("node:http").IncomingMessage,
  res: import("node:http").ServerResponse,
) => Promise<void> = toNodeListener(handler);
