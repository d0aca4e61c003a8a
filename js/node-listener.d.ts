// Types of agent-replay/node: a fetch handler served by node:http.

/** Adapts a fetch handler (such as agent-replay/edge's) to node:http's request listener. */
export function toNodeListener(
  handler: (request: Request) => Promise<Response>,
): (
  req: import("node:http").IncomingMessage,
  res: import("node:http").ServerResponse,
) => Promise<void>;
