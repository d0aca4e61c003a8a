// The edge handler as a Deno or Node server on 127.0.0.1 (PORT), for the tests.
import { createReplayHandler, bearerTokens, toNodeListener } from "agent-replay/edge";

const handler = createReplayHandler({
  authorize: bearerTokens({ "test-token": ["run:1"] }),
  storeOptions: { maxEventsPerSession: 4 },
  maxBodyBytes: 64 * 1024,
  retryMs: 50,
});
const port = Number(globalThis.Deno ? Deno.env.get("PORT") : process.env.PORT);
if (globalThis.Deno) {
  Deno.serve({ hostname: "127.0.0.1", port, onListen: () => console.log("listening") }, handler);
} else {
  const http = await import("node:http");
  http.createServer(toNodeListener(handler)).listen(port, "127.0.0.1", () => console.log("listening"));
}
