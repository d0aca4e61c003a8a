// The edge handler on Node (node:http on 127.0.0.1), with a real EventSource client.
import { test } from "node:test";
import http from "node:http";
import { createReplayHandler, bearerTokens, toNodeListener } from "agent-replay/edge";
import { edgeScenario, hostileScenario } from "./edge-scenario.mjs";

test("edge handler on Node: resume, gap, status codes", async () => {
  const handler = createReplayHandler({
    authorize: bearerTokens({ "test-token": ["run:1"] }),
    storeOptions: { maxEventsPerSession: 4 },
    maxBodyBytes: 64 * 1024,
    maxEventsPerRequest: 3,
    retryMs: 50,
  });
  const server = http.createServer(toNodeListener(handler)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await edgeScenario(`http://127.0.0.1:${server.address().port}`, { capacity: 4 });
  } finally {
    server.closeAllConnections();
    server.close();
  }
});

test("edge handler on Node: hostile clients (stream limits, idle streams, slow readers)", async () => {
  const handler = createReplayHandler({
    authorize: bearerTokens({ "test-token": ["run:1"], "other-token": ["run:1"] }),
    storeOptions: { maxEventsPerSession: 4 },
    maxStreamsPerClient: 2,
    maxStreamsPerSession: 3,
    streamIdleMs: 400,
    heartbeatMs: 100,
  });
  const server = http.createServer(toNodeListener(handler)).listen(0, "127.0.0.1");
  await new Promise((r) => server.once("listening", r));
  try {
    await hostileScenario(`http://127.0.0.1:${server.address().port}`);
  } finally {
    server.closeAllConnections();
    server.close();
  }
});
