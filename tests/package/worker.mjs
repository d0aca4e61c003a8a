// A Worker for workerd, bundled by the tests like wrangler would:
//   /work                      real work through the package (JSON)
//   /direct/sessions/...       the edge handler in this isolate
//   /do/sessions/{id}/...      routed to one Durable Object per session
import { createReplayHandler, bearerTokens } from "agent-replay/edge";
import { ReplaySession } from "agent-replay";
import { work } from "./work.mjs";

const authorize = bearerTokens({ "test-token": ["run:1"] });
const options = { storeOptions: { maxEventsPerSession: 4 }, maxBodyBytes: 64 * 1024, retryMs: 50 };
const direct = createReplayHandler({ authorize, basePath: "/direct", ...options });

/** One session's ReplaySession, shared by every client whichever isolate serves it. */
export class SessionObject {
  #handler;
  #session;
  constructor() {
    this.#handler = createReplayHandler({
      // The Worker in front has authorized the request already.
      authorize: () => true,
      basePath: "/do",
      session: (id) => (this.#session ??= new ReplaySession(id, options.storeOptions)),
      ...options,
    });
  }
  fetch(request) {
    return this.#handler(request);
  }
}

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    if (url.pathname === "/work") return Response.json(work());
    if (url.pathname.startsWith("/direct/")) return direct(request);
    const match = /^\/do\/sessions\/([^/]+)/.exec(url.pathname);
    if (!match) return new Response("not found", { status: 404 });
    const id = decodeURIComponent(match[1]);
    if (!(await authorize(request, id))) return Response.json({ error: { code: "forbidden", message: "not allowed for this session" } }, { status: 403 });
    return env.SESSIONS.get(env.SESSIONS.idFromName(id)).fetch(request);
  },
};
