// The test Worker: examples/edge/worker.mjs as shipped under /do, plus
//   /work                 real work through the package (JSON)
//   /direct/sessions/...  the edge handler in this isolate
//   /hostile/sessions/... the handler with tight limits for hostile clients
import { createReplayHandler, bearerTokens } from "agent-replay/edge";
import example, { SessionObject } from "./edge/worker.mjs";
import { work } from "./work.mjs";

export { SessionObject };

const direct = createReplayHandler({
  authorize: bearerTokens({ "test-token": ["run:1"] }),
  basePath: "/direct",
  storeOptions: { maxEventsPerSession: 4 },
  maxBodyBytes: 64 * 1024,
  maxEventsPerRequest: 3,
  retryMs: 50,
});

const hostile = createReplayHandler({
  authorize: bearerTokens({ "test-token": ["run:1"], "other-token": ["run:1"] }),
  basePath: "/hostile",
  storeOptions: { maxEventsPerSession: 4 },
  maxStreamsPerClient: 2,
  maxStreamsPerSession: 3,
  streamIdleMs: 400,
  heartbeatMs: 100,
});

export default {
  fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/work") return Response.json(work());
    if (url.pathname.startsWith("/direct/")) return direct(request);
    if (url.pathname.startsWith("/hostile/")) return hostile(request);
    if (url.pathname.startsWith("/do/")) {
      url.pathname = url.pathname.slice("/do".length);
      return example.fetch(new Request(url, request), env);
    }
    return new Response("not found", { status: 404 });
  },
};
