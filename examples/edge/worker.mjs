// A Cloudflare Worker that routes each session to its own Durable Object, so
// every client of a session shares one live buffer whichever isolate serves
// it. Deploy with wrangler (examples/edge/wrangler.toml); TOKENS is a secret:
// JSON {"<bearer token>": ["session-id", ...] | "*"}. Optional variables:
// MAX_EVENTS_PER_SESSION (2048), MAX_BODY_BYTES (1048576), MAX_EVENTS_PER_REQUEST (1000),
// MAX_STREAMS_PER_CLIENT (20).
import { createReplayHandler, bearerTokens } from "agent-replay/edge";
import { ReplaySession } from "agent-replay";

/** One session: its ReplaySession lives as long as the object does. */
export class SessionObject {
  #session;
  #handler;

  constructor(_state, env) {
    const maxEventsPerSession = Number(env.MAX_EVENTS_PER_SESSION ?? 2048);
    this.#handler = createReplayHandler({
      // The Worker in front authorized the request.
      authorize: () => true,
      session: (id) => (this.#session ??= new ReplaySession(id, { maxEventsPerSession })),
      maxBodyBytes: Number(env.MAX_BODY_BYTES ?? 1 << 20),
      maxEventsPerRequest: Number(env.MAX_EVENTS_PER_REQUEST ?? 1000),
      maxStreamsPerClient: Number(env.MAX_STREAMS_PER_CLIENT ?? 20),
      retryMs: 1000,
    });
  }

  fetch(request) {
    return this.#handler(request);
  }
}

export default {
  async fetch(request, env) {
    const match = /^\/sessions\/([^/]+)/.exec(new URL(request.url).pathname);
    if (!match)
      return Response.json(
        { error: { code: "not_found", message: "no such route" } },
        { status: 404 },
      );
    let id;
    try {
      id = decodeURIComponent(match[1]);
    } catch {
      return Response.json(
        { error: { code: "invalid_session_id", message: "bad percent-encoding" } },
        { status: 400 },
      );
    }
    const authorize = bearerTokens(JSON.parse(env.TOKENS ?? "{}"));
    if (!(await authorize(request, id))) {
      return Response.json(
        { error: { code: "forbidden", message: "not allowed for this session" } },
        { status: 403 },
      );
    }
    return env.SESSIONS.get(env.SESSIONS.idFromName(id)).fetch(request);
  },
};
