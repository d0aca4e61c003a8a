// The edge replay handler as a server on Node (node:http), Deno (Deno.serve) or Bun (Bun.serve):
//   node examples/edge/server.mjs
//   deno run --allow-net --allow-env --allow-read examples/edge/server.mjs
//   bun examples/edge/server.mjs
// Configuration from the environment:
//   TOKENS  JSON {"<bearer token>": GRANT}, a GRANT ["session-id", ...] | "*" (read and append)
//           or {"sessions": [...] | "*", "access": "read"} (observe, resume, stream; no append)
//           (required: nothing is served without it)
//   PORT (8787), HOST (127.0.0.1), MAX_EVENTS_PER_SESSION (2048), MAX_BODY_BYTES (1048576),
//   MAX_EVENTS_PER_REQUEST (1000), MAX_STREAMS_PER_CLIENT (20),
//   DATA_DIR (unset: sessions live in memory; set: kept there by the file store, so they
//   survive restarts; Deno then needs --allow-write too),
//   DATABASE_URL (set: sessions kept in that PostgreSQL database and shared by every
//   replica started with it, docs/postgres.md; needs the pg package)
import { createReplayHandler, bearerTokens } from "agent-replay/edge";
import { fileStore } from "agent-replay/file-store";
import { postgresStore } from "agent-replay/postgres";

const env = (name, fallback) =>
  (globalThis.Deno ? Deno.env.get(name) : process.env[name]) ?? fallback;
const listening = (hostname, port) => console.log(`listening on http://${hostname}:${port}`);

const handler = createReplayHandler({
  authorize: bearerTokens(JSON.parse(env("TOKENS", "{}"))),
  storeOptions: { maxEventsPerSession: Number(env("MAX_EVENTS_PER_SESSION", 2048)) },
  maxBodyBytes: Number(env("MAX_BODY_BYTES", 1 << 20)),
  maxEventsPerRequest: Number(env("MAX_EVENTS_PER_REQUEST", 1000)),
  maxStreamsPerClient: Number(env("MAX_STREAMS_PER_CLIENT", 20)),
  retryMs: Number(env("RETRY_MS", 1000)),
  storage: env("DATABASE_URL")
    ? postgresStore({ connectionString: env("DATABASE_URL") })
    : env("DATA_DIR")
      ? fileStore(env("DATA_DIR"))
      : undefined,
});
const port = Number(env("PORT", 8787));
const hostname = env("HOST", "127.0.0.1");

if (globalThis.Deno) {
  Deno.serve({ hostname, port, onListen: () => listening(hostname, port) }, handler);
} else if (globalThis.Bun) {
  Bun.serve({ hostname, port, fetch: handler });
  listening(hostname, port);
} else {
  const http = await import("node:http");
  const { toNodeListener } = await import("agent-replay/node");
  http
    .createServer(toNodeListener(handler))
    .listen(port, hostname, () => listening(hostname, port));
}
