// Types of agent-replay/edge: the edge replay handler (see README).
import type {
  ReplaySession,
  ReplayStore,
  ReplayStoreOptions,
  Retention,
  SessionStorage,
  SharedSessionStorage,
} from "./index.js";

/** The code of an error response `{"error": {code, message, errors?}}`. */
export type { ErrorCode } from "./index.js";

export type Authorize = (
  request: Request,
  sessionId: string,
  action: "read" | "append",
) => boolean | Promise<boolean>;

export interface ReplayHandlerOptions {
  /** Required: nothing is served unless it allows the request. */
  authorize: Authorize;
  /** The session to serve (default: one per id over one shared store, kept
   * while the store holds the session; reading a session it does not hold
   * keeps nothing). */
  session?: (sessionId: string) => ReplaySession | Promise<ReplaySession>;
  /** The shared store (default: made from storeOptions on the first request). */
  store?: ReplayStore;
  storeOptions?: ReplayStoreOptions;
  /** Past this, a POST gets 413 (default 1 MiB). */
  maxBodyBytes?: number;
  /** Past this, a POST gets 413 (default 1000). */
  maxEventsPerRequest?: number;
  /** SSE heartbeat comments (default 15000 ms). */
  heartbeatMs?: number;
  /** The reconnect delay sent to EventSource clients (default 1000 ms). */
  retryMs?: number;
  /** Past this, a new stream of the session gets 429 (default 1000). */
  maxStreamsPerSession?: number;
  /** Past this, a new stream of the client gets 429 (default 20). */
  maxStreamsPerClient?: number;
  /** Names the client for maxStreamsPerClient (default: its Authorization header). */
  clientId?: (request: Request) => string;
  /** A stream with no event for this long ends; the client resumes (default 300000 ms). */
  streamIdleMs?: number;
  /** A path prefix before /sessions (default ""). */
  basePath?: string;
  /** Keeps every accepted event before the POST is answered, and checkpoints:
   * sessions survive restarts and leave memory when idle (not with `session`). */
  storage?: SessionStorage | SharedSessionStorage;
  /** What a restart restores into the live window (with `storage`). */
  retention?: Retention;
  /** Events between stored checkpoints (with `storage`; default 1000). */
  checkpointEvery?: number;
  /** A session nobody follows, unused this long, leaves memory (with `storage`; default 300000 ms). */
  sessionIdleMs?: number;
}

/** A standard fetch handler serving sessions (routes in the README). */
export function createReplayHandler(
  options: ReplayHandlerOptions,
): (request: Request) => Promise<Response>;

/** What a bearer token may use: session ids or "*"; `access: "read"` allows
 * observe, resume and stream but no append (default "all": both). */
export type TokenGrant = string[] | "*" | { sessions: string[] | "*"; access?: "read" | "all" };

/** An authorize hook from bearer tokens: token → its grant (throws
 * `invalid_input` for a grant that is none of these). */
export function bearerTokens(tokens: Record<string, TokenGrant>): Authorize;
