// ReplayStore, Subscription and ReplaySession over the raw bindings
// (live-replay.md). The clock is read here and passed in; async iteration
// waits on appends made through this module, which wake the waiters of the
// session they touched.
import * as raw from "../pkg/agent_replay.js";
import { AgentReplayError, call, decodeEvents, eventText, toBytes } from "./common.js";
import { grantStoreAccess, storeCore, storeNow } from "./store-access.js";

/** store → sessionId → Set of wake-up callbacks of waiting iterators. */
const waiters = new WeakMap();

function wake(store, sessionId) {
  const set = waiters.get(store)?.get(sessionId);
  if (!set) return;
  waiters.get(store).delete(sessionId);
  for (const resolve of set) resolve();
}

function waitFor(store, sessionId) {
  let bySession = waiters.get(store);
  if (!bySession) {
    bySession = new Map();
    waiters.set(store, bySession);
  }
  let set = bySession.get(sessionId);
  if (!set) {
    set = new Set();
    bySession.set(sessionId, set);
  }
  return new Promise((resolve) => set.add(resolve));
}

/** A random incarnation: 128 bits from the host's CSPRNG, base64url. */
function randomIncarnation() {
  const bytes = globalThis.crypto.getRandomValues(new Uint8Array(16));
  let s = "";
  for (const b of bytes) s += String.fromCharCode(b);
  return btoa(s).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** An event as replayed or delivered. `json` is its original text, to
 * forward byte for byte; `event` is parsed from it on first use. Its cursor
 * comes from the core: with it, or (from `append`) formatted on first use. */
export class ObservedEvent {
  #event;
  #cursor;
  #incarnation;
  constructor(session_id, revision, position, json, cursor, incarnation) {
    this.session_id = session_id;
    this.revision = revision;
    this.position = position;
    this.json = json;
    this.#cursor = cursor;
    this.#incarnation = incarnation;
  }

  get cursor() {
    this.#cursor ??= raw.formatCursor(
      this.#incarnation,
      this.revision,
      this.position,
      this.session_id,
    );
    return this.#cursor;
  }

  get event() {
    // JSON.parse would round integers beyond 2^53-1: those events go through the core.
    this.#event ??= JSON.parse(
      /\d{16}/.test(this.json) ? raw.jsSafeEventJson(this.json) : this.json,
    );
    return this.#event;
  }

  toJSON() {
    const { session_id, revision, position, cursor, json } = this;
    return { session_id, revision, position, cursor, event: this.event, json };
  }
}

/** The observed events of a wire and its header: `revision, position,
 * cursor length, length` each, its text its cursor then its JSON. */
function observed(wire) {
  return decodeEvents(wire, 4, (values, i, text, header) => {
    const split = values[i + 2];
    const [revision, position] = [values[i], values[i + 1]];
    const cursor = text.slice(0, split);
    return new ObservedEvent(header.session_id, revision, position, text.slice(split), cursor);
  });
}

/**
 * A cursor's parts `{incarnation, revision, position, session_id}`, for a
 * client that must place what it receives (an SSE message's id is a
 * cursor). Throws `malformed_cursor`.
 */
export function parseCursor(cursor) {
  if (typeof cursor !== "string")
    throw new AgentReplayError("malformed_cursor", "a cursor is a string");
  const [incarnation, revision, position, session_id] = JSON.parse(
    call(() => raw.parseCursor(cursor)),
  );
  return { incarnation, revision, position, session_id };
}

/** The option key a restored core reaches the constructor by (`restore`):
 * module-private, so no caller's options can hold it. */
const RESTORED = Symbol("restored core");

/** What `append` takes (an event, events, or a log) as bytes. */
function appendBytes(input, what) {
  if (typeof input === "string" || input instanceof Uint8Array) return toBytes(input, what);
  if (Array.isArray(input)) return toBytes(input.map((e) => eventText(e, what)).join("\n"));
  return toBytes(eventText(input, what));
}

function checkSessionId(sessionId) {
  if (typeof sessionId !== "string")
    throw new AgentReplayError("invalid_session_id", "sessionId must be a string");
}

/** The bounded in-memory live replay buffer of many sessions. */
export class ReplayStore {
  #core;
  #now;
  #incarnation;

  constructor({
    maxEventsPerSession = 2048,
    maxAgeMs = 120_000,
    maxEventBytes = 1 << 20,
    maxSessions = 10_000,
    maxTotalBytes = 64 << 20,
    now = Date.now,
    incarnation = randomIncarnation(),
  } = {}) {
    for (const [name, value] of Object.entries({
      maxEventsPerSession,
      maxEventBytes,
      maxSessions,
      maxTotalBytes,
    })) {
      if (!Number.isSafeInteger(value) || value < 1 || value > 0xffffffff) {
        throw new AgentReplayError(
          "invalid_input",
          `${name} must be a positive integer below 2^32`,
        );
      }
    }
    if (typeof maxAgeMs !== "number" || !(maxAgeMs >= 0))
      throw new AgentReplayError("invalid_input", "maxAgeMs must be a non-negative number");
    if (typeof now !== "function")
      throw new AgentReplayError("invalid_input", "now must be a function returning milliseconds");
    if (typeof incarnation !== "string")
      throw new AgentReplayError("invalid_input", "incarnation must be a string");
    this.#core = call(
      () =>
        new raw.ReplayStoreCore(
          maxEventsPerSession,
          maxAgeMs,
          maxEventBytes,
          maxSessions,
          maxTotalBytes,
          incarnation,
        ),
    );
    this.#now = now;
    this.#incarnation = incarnation;
  }

  static {
    grantStoreAccess(
      (store) => store.#live(),
      (store) => store.#now(),
    );
  }

  #live() {
    if (!this.#core) throw new AgentReplayError("closed", "ReplayStore: used after free()");
    return this.#core;
  }

  get incarnation() {
    this.#live();
    return this.#incarnation;
  }

  /** Appends one event (object or JSON text) and returns it as observed. */
  append(sessionId, event, revision) {
    checkSessionId(sessionId);
    const json = eventText(event, "ReplayStore.append");
    const core = this.#live();
    const position = call(() => core.append(sessionId, json, revision, this.#now()));
    const rev = core.lastRevision;
    wake(this, sessionId);
    return new ObservedEvent(sessionId, rev, position, json, undefined, this.#incarnation);
  }

  /** Appends every valid event of a log; `{appended, errors, cursor}`. */
  appendLog(sessionId, input) {
    checkSessionId(sessionId);
    const core = this.#live();
    const bytes = toBytes(input, "ReplayStore.appendLog");
    const result = JSON.parse(call(() => core.appendLog(sessionId, bytes, this.#now()), bytes));
    if (result.appended) wake(this, sessionId);
    return result;
  }

  currentCursor(sessionId, revision) {
    checkSessionId(sessionId);
    const core = this.#live();
    return call(() => core.currentCursor(sessionId, revision));
  }

  /** `{type: "replayed", events}` or `{type: "gap", reason}`. */
  replayAfter(cursor) {
    const core = this.#live();
    const { header, events } = observed(call(() => core.replayAfter(cursor, this.#now())));
    return header.type === "gap" ? header : { type: "replayed", events };
  }

  /** `{type: "subscribed", subscription}` or `{type: "gap", reason}`. */
  subscribe(cursor) {
    const core = this.#live();
    const sub = call(() => core.subscribe(cursor, this.#now()));
    if (sub.gap !== undefined) {
      const reason = JSON.parse(sub.gap);
      sub.free();
      return { type: "gap", reason };
    }
    return { type: "subscribed", subscription: new Subscription(this, sub, sub.sessionId) };
  }

  /** Whether the store holds the session now: false for one it never saw
   * and for one it evicted (`maxSessions`, `maxTotalBytes`), whose handles
   * can be freed. */
  holds(sessionId) {
    checkSessionId(sessionId);
    return this.#live().holds(sessionId);
  }

  trimSession(sessionId) {
    checkSessionId(sessionId);
    this.#live().trimSession(sessionId, this.#now());
  }

  /** Frees the store; every subscription ends. */
  free() {
    if (!this.#core) return;
    this.#core.closeSubscriptions();
    const bySession = waiters.get(this);
    for (const id of bySession?.keys() ?? []) wake(this, id);
    this.#core.free();
    this.#core = undefined;
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** Replay then live events of one session (see ReplayStore.subscribe). */
export class Subscription {
  #store;
  #core;
  #sessionId;

  constructor(store, core, sessionId) {
    this.#store = store;
    this.#core = core;
    this.#sessionId = sessionId;
  }

  /** The next pending item, or undefined when nothing is pending. */
  next() {
    if (!this.#core) return undefined;
    const wire = this.#core.next();
    if (wire === undefined) return undefined;
    const { header, events } = observed(wire);
    return header.type === "event" ? events[0] : header;
  }

  /** True once closed (or its store freed) with nothing left to read. */
  get closed() {
    return !this.#core || this.#core.ended;
  }

  close() {
    if (!this.#core) return;
    this.#core.close();
    this.#core.free();
    this.#core = undefined;
    wake(this.#store, this.#sessionId);
  }

  async *[Symbol.asyncIterator]() {
    try {
      for (;;) {
        const item = this.next();
        if (item !== undefined) {
          yield item;
          continue;
        }
        if (this.closed) return;
        await waitFor(this.#store, this.#sessionId);
      }
    } finally {
      this.close();
    }
  }
}

/** One session: its full state and its live buffer in a (shared) store. */
export class ReplaySession {
  #core;
  #store;
  #id;

  constructor(sessionId, { store, [RESTORED]: core, ...storeOptions } = {}) {
    checkSessionId(sessionId);
    this.#store = store ?? new ReplayStore(storeOptions);
    if (!(this.#store instanceof ReplayStore))
      throw new AgentReplayError("invalid_input", "store must be a ReplayStore");
    this.#core = core ?? call(() => new raw.ReplaySessionCore(sessionId, storeCore(this.#store)));
    this.#id = sessionId;
  }

  /** The core, while this session and its store are not freed. */
  #live() {
    storeCore(this.#store);
    if (!this.#core) throw new AgentReplayError("closed", "ReplaySession: used after free()");
    return this.#core;
  }

  get sessionId() {
    return this.#id;
  }

  get store() {
    return this.#store;
  }

  /**
   * A session restored from its storage, at the positions its events were
   * stored at, in `store` (whose incarnation must be the one they were
   * stored under): `events` (JSON Lines, one event a line) follow
   * `base: {position, revision}`; `times` says when each was stored; the
   * state is `checkpoint.state` (an observation's, or its JSON text) at `checkpoint.position`
   * with the events after it folded on (without a checkpoint, `base` is 0).
   * The newest `retain` events form the live window.
   */
  static restore(sessionId, { store, base, events = "", times = [], checkpoint, retain }) {
    checkSessionId(sessionId);
    if (!(store instanceof ReplayStore))
      throw new AgentReplayError("invalid_input", "store must be a ReplayStore");
    const state =
      checkpoint === undefined || typeof checkpoint.state === "string"
        ? checkpoint?.state
        : JSON.stringify(checkpoint.state);
    const core = call(() =>
      raw.ReplaySessionCore.restore(
        sessionId,
        storeCore(store),
        base?.position ?? 0,
        base?.revision ?? 0,
        toBytes(events, "ReplaySession.restore"),
        Float64Array.from(times),
        state,
        checkpoint?.position ?? 0,
        retain ?? Number.MAX_SAFE_INTEGER,
        storeNow(store),
      ),
    );
    return new ReplaySession(sessionId, { store, [RESTORED]: core });
  }

  /** Checks what `append` would take, appending nothing: its events as
   * JSON Lines, one event a line (what a storage writes, then appends). */
  check(input, { maxEvents } = {}) {
    const bytes = appendBytes(input, "ReplaySession.check");
    const core = this.#live();
    return call(() => core.check(bytes, maxEvents));
  }

  /** Appends an event, events, or a log (string or bytes): all or nothing;
   * `{maxEvents}` refuses (limit_exceeded) more events than that at once. */
  append(input, { maxEvents } = {}) {
    const bytes = appendBytes(input, "ReplaySession.append");
    const core = this.#live();
    let wire;
    try {
      wire = call(() => core.append(bytes, storeNow(this.#store), maxEvents), bytes);
    } catch (e) {
      // Past the memory limit midway, the events before are in the store.
      if (e.code === "limit_exceeded") wake(this.#store, this.#id);
      throw e;
    }
    const { events } = observed(wire);
    if (events.length) wake(this.#store, this.#id);
    return events;
  }

  /**
   * Appends the events of the next chunk of a log arriving in pieces (a
   * file being written: lines may straddle chunks; stored entries' `seq`
   * is checked across them), each read once: appended and folded as it is
   * read, at the positions a `SessionState` written the same chunks gives.
   * Load errors join the state's `load_errors`. Not all or nothing: an
   * event the store refuses stops the log there, and this and every later
   * `write` or `end` throw why.
   */
  write(chunk) {
    const bytes = toBytes(chunk, "ReplaySession.write");
    const core = this.#live();
    const appended = call(() => core.write(bytes, storeNow(this.#store)), bytes);
    if (appended > 0) wake(this.#store, this.#id);
    return this;
  }

  /** Ends a log written in chunks: appends its unterminated last line. */
  end() {
    const core = this.#live();
    const appended = call(() => core.end(storeNow(this.#store)));
    if (appended > 0) wake(this.#store, this.#id);
    return this;
  }

  /** `{session_id, revision, cursor, state}`: the current complete observation. */
  observe() {
    const core = this.#live();
    return JSON.parse(call(() => core.observe()));
  }

  /** The state without its per-event lists, as `SessionState.summary()`:
   * what a list of sessions shows of each. */
  summary() {
    const core = this.#live();
    return JSON.parse(call(() => core.summary()));
  }

  /** `{type: "replayed", events, cursor}` or `{type: "gap", gap, observation}`. */
  resume(cursor) {
    if (typeof cursor !== "string")
      throw new AgentReplayError("malformed_cursor", "a cursor is a string");
    const core = this.#live();
    const { header, events } = observed(call(() => core.resume(cursor, storeNow(this.#store))));
    return header.type === "gap" ? header : { type: "replayed", events, cursor: header.cursor };
  }

  /**
   * Replay then live from `cursor`: observed events, and on a gap first
   * `{type: "gap", gap, observation}` then live from the observation's
   * cursor. Lag is recovered by itself. A bad cursor throws here.
   */
  subscribe(cursor) {
    if (typeof cursor !== "string")
      throw new AgentReplayError("malformed_cursor", "a cursor is a string");
    const core = this.#live();
    const sub = call(() => core.subscribe(cursor, storeNow(this.#store)));
    const store = this.#store;
    const id = this.#id;
    let done = false;
    const next = () => {
      if (done) return undefined;
      const wire = sub.next(storeNow(store));
      if (wire === undefined) return undefined;
      const { header, events } = observed(wire);
      return header.type === "event" ? events[0] : header;
    };
    const close = () => {
      if (done) return;
      done = true;
      sub.close();
      sub.free();
      wake(store, id);
    };
    return {
      next,
      close,
      get closed() {
        return done || sub.ended;
      },
      async *[Symbol.asyncIterator]() {
        try {
          for (;;) {
            if (done) return;
            const item = next();
            if (item !== undefined) {
              yield item;
              continue;
            }
            if (sub.ended) return;
            await waitFor(store, id);
          }
        } finally {
          close();
        }
      },
    };
  }

  free() {
    if (!this.#core) return;
    this.#core.free();
    this.#core = undefined;
  }

  [Symbol.dispose]() {
    this.free();
  }
}
