// Durable sessions: ReplaySessions whose accepted events a storage backend
// keeps (js/file-store.js on Node and Deno, Durable Object SQLite storage in
// examples/edge/worker.mjs), so that a restart goes on where it stopped: the
// same incarnation, the same positions, the state from a checkpoint. An
// append is answered only once its events are stored, and they are appended
// to the live session (and so seen by any client) only then, so no client
// ever sees an event a crash can lose. Memory holds only what the store's
// bounds allow: a session the store evicts is reloaded from storage when
// next asked for. The storage interface is in docs/edge.md.
//
// An append is answered as what it did: stored and applied, or neither.
// Every check runs before the storage is written; a step after it that
// still fails (no room in the store) takes the batch back out of storage.
// A checkpoint that fails after a stored append does not turn it into an
// error: the next append tries again. A batch may carry a key (a client's
// Idempotency-Key): the storage keeps it with the batch, in the same write,
// so that a retry after a lost answer stores nothing and gets the first
// answer.
//
// A storage shared by replicas (js/postgres.js: it has `tail`) is the truth
// and this process one of its readers: the storage assigns positions, and
// each live session catches up from its table before it is read or
// appended to, and when the storage's doorbell rings (`subscribe`). Such a
// storage never takes a batch back: once committed, other replicas may
// already serve it, so an append it stored is answered as stored.
import { AgentReplayError } from "./common.js";
import { ObservedEvent, ReplaySession, ReplayStore, parseCursor } from "./live.js";
import { storeCore, storeNow } from "./store-access.js";

/** The longest batch key taken: it is stored with every keyed batch. */
const MAX_KEY_LENGTH = 256;

/** Throws unless `key` is a batch key: 1 to 256 printable characters. */
function checkKey(key) {
  if (
    typeof key !== "string" ||
    key.length === 0 ||
    key.length > MAX_KEY_LENGTH ||
    Array.from(key).some((c) => c < " " || c === "\u007f")
  )
    throw new AgentReplayError(
      "invalid_input",
      `a batch key is 1 to ${MAX_KEY_LENGTH} characters, none of them a control character`,
    );
}

/** The newest events the retention keeps, of `texts` stored at `times`. */
function retained(texts, times, { events, bytes, ageMs }, now) {
  let count = 0;
  let size = 0;
  for (let i = texts.length - 1; i >= 0 && count < events; i--) {
    size += texts[i].length;
    if (size > bytes || now - (times[i] ?? now) > ageMs) break;
    count += 1;
  }
  return count;
}

/** The checkpoint of a session whose positions start after 0 and that has
 * none yet (a shared storage makes new sessions start above those its
 * cleanup forgot): the empty state at its start. */
function emptyAt(id, store, position) {
  const empty = new ReplaySession(id, { store });
  try {
    return { position, state: JSON.stringify(empty.observe().state) };
  } finally {
    empty.free();
  }
}

/** A session kept by a storage: appends stored first, one at a time. */
export class DurableSession {
  #owner;
  #session;
  #queue = Promise.resolve();
  #busy = 0;
  #checkpointed;
  /** The keyed batches remembered, oldest first: key → {position, count}
   * (the first position of the batch and how many events it held). */
  #keys = new Map();
  /** The subscriptions opened on the live session, so that a reload that
   * must let it go first can end them. */
  #subscriptions = new Set();
  /** When it was last opened, read or appended to (the store's clock). */
  usedAt;

  constructor(owner, session, checkpointed, keys = []) {
    this.#owner = owner;
    this.#session = session;
    this.#checkpointed = checkpointed;
    for (const { key, position, count } of keys) this.#remember(key, position, count);
    this.usedAt = storeNow(session.store);
  }

  get sessionId() {
    return this.#session.sessionId;
  }

  /** The live ReplaySession (replaced when the store evicted it mid-append). */
  get session() {
    return this.#session;
  }

  /** True while an append is stored or applied: it must not be freed. */
  get busy() {
    return this.#busy > 0;
  }

  observe() {
    return this.#session.observe();
  }

  resume(cursor) {
    return this.#session.resume(cursor);
  }

  subscribe(cursor) {
    const subscription = this.#session.subscribe(cursor);
    for (const s of this.#subscriptions) if (s.closed) this.#subscriptions.delete(s);
    this.#subscriptions.add(subscription);
    return subscription;
  }

  /** Appends as ReplaySession.append does, all or nothing, resolving once
   * the events are stored; appends of one session run one after another.
   * With `key`, a batch whose key is remembered is not stored again: it
   * resolves to the first attempt's events (see #answered). */
  append(input, options = {}) {
    return this.#inTurn(() => this.#append(input, options));
  }

  /** Brings the live session up to a shared storage's table (#catchUp). */
  refresh() {
    return this.#inTurn(() => this.#catchUp());
  }

  /** Runs `work` after the session's earlier appends and refreshes. */
  #inTurn(work) {
    this.#busy += 1;
    const run = this.#queue.then(work);
    this.#queue = run.catch(() => {});
    return run.finally(() => {
      this.#busy -= 1;
    });
  }

  async #append(input, { maxEvents, key }) {
    if (key !== undefined) checkKey(key);
    const lines = this.#session.check(input, { maxEvents });
    // Evicted since (while an earlier append kept it busy): its positions
    // and keys are the storage's, so it is reloaded before they are counted on.
    if (!this.#session.store.holds(this.sessionId)) await this.#reload();
    const known = key === undefined ? undefined : this.#keys.get(key);
    if (known) return this.#answered(known);
    if (lines === "") return [];
    const texts = lines.split("\n");
    const store = this.#session.store;
    const from = store.currentCursor(this.sessionId);
    const batch = {
      position: parseCursor(from).position + 1,
      events: texts,
      at: storeNow(store),
      ...(key === undefined ? {} : { key }),
    };
    // Throws when nothing is stored: the batch is refused whole.
    const stored = await this.#owner.storage.append(this.sessionId, batch);
    if (this.#owner.shared) return this.#sharedAnswer(stored, key);
    const appended = await this.#apply(lines, from, batch);
    if (key !== undefined) this.#remember(key, batch.position, texts.length);
    await this.#checkpointIfDue();
    return appended;
  }

  /**
   * The answer of a batch a shared storage stored at `position` (or had
   * stored before under its key: `replayed`), once the live session has
   * caught up with the table. A live session that cannot take it now (no
   * room in the store) still answers it: it is committed, and the next
   * refresh applies it.
   */
  async #sharedAnswer({ position, count, replayed }, key) {
    await this.#catchUp().catch(() => {});
    if (key !== undefined) this.#remember(key, position, count);
    const events = this.#eventsAt(position, count);
    if (replayed) events.replayed = true;
    await this.#checkpointIfDue();
    return events;
  }

  /**
   * Applies the events a shared storage's table holds after the live
   * session's last position, in its order: positions are the table's.
   * A session the store evicted, a table that no longer holds the next
   * position, or events the live session refuses: reloaded whole.
   */
  async #catchUp() {
    for (;;) {
      const store = this.#session.store;
      if (!store.holds(this.sessionId)) return this.#reload();
      const after = parseCursor(store.currentCursor(this.sessionId)).position;
      const { position, events } = await this.#owner.storage.tail(this.sessionId, after);
      if (events.length === 0) return;
      if (position !== after + 1) return this.#reload();
      try {
        this.#session.append(events.join("\n"));
      } catch {
        return this.#reload();
      }
    }
  }

  /** The stored batch applied to the live session; when that fails, the
   * batch taken back out of storage, so that nothing answered as refused
   * stays stored and the next batch takes its positions. */
  async #apply(lines, from, batch) {
    try {
      if (this.#session.store.holds(this.sessionId)) return this.#session.append(lines);
      // Evicted while its events were stored: reloaded with them.
      await this.#reload();
      return this.#session.resume(from).events ?? [];
    } catch (e) {
      await this.#owner.storage.undo(this.sessionId, batch);
      // A reload read the batch's key with it.
      this.#keys.delete(batch.key);
      throw e;
    }
  }

  /** Remembers a keyed batch; the oldest key goes past `maxKeys`. */
  #remember(key, position, count) {
    this.#keys.delete(key);
    this.#keys.set(key, { position, count });
    if (this.#keys.size > this.#owner.maxKeys) this.#keys.delete(this.#keys.keys().next().value);
  }

  /**
   * The answer of a batch already stored under a key (`replayed` set on
   * it): its events as the live window still holds them; once it has
   * trimmed them, events at the same positions with no text (`json`
   * undefined) and the session's current revision.
   */
  #answered({ position, count }) {
    return Object.assign(this.#eventsAt(position, count), { replayed: true });
  }

  /** The `count` events from `position` on as the live window holds them,
   * or with no text (see #answered). */
  #eventsAt(position, count) {
    const standing = parseCursor(this.#session.store.currentCursor(this.sessionId));
    const at = (p) =>
      new ObservedEvent(
        this.sessionId,
        standing.revision,
        p,
        undefined,
        undefined,
        standing.incarnation,
      );
    const resumed = this.#session.resume(at(position - 1).cursor);
    return resumed.type === "replayed" && resumed.events.length >= count
      ? resumed.events.slice(0, count)
      : Array.from({ length: count }, (_, i) => at(position + i));
  }

  /**
   * Replaces the live session (and its keys) by the one its storage holds.
   * One the store still holds (a shared table cut past what it has) is let
   * go first: its subscriptions end, and their clients resume from the
   * reloaded one, with the gap the cut made. A load that fails leaves the
   * live session as it was.
   */
  async #reload() {
    const core = storeCore(this.#session.store);
    if (core.holds(this.sessionId)) {
      for (const s of this.#subscriptions) s.close();
      this.#subscriptions.clear();
      core.evictIdle(this.sessionId);
    }
    const loaded = await this.#owner.load(this.sessionId);
    this.#session.free();
    this.#session = loaded.session;
    this.#keys = loaded.#keys;
  }

  /** Checkpoints once `checkpointEvery` events came since the last one. A
   * checkpoint that fails does not fail the append: its events are stored
   * and answered for; the next append checkpoints. */
  async #checkpointIfDue() {
    const { position } = parseCursor(this.#session.store.currentCursor(this.sessionId));
    if (position - this.#checkpointed >= this.#owner.checkpointEvery)
      await this.#checkpoint().catch(() => {});
  }

  /** Stores the state now, at the live session's last position (with a
   * shared storage, maybe past this replica's own batch), so a restart
   * folds from here. */
  async #checkpoint() {
    const { revision, state, cursor } = this.#session.observe();
    const { position } = parseCursor(cursor);
    await this.#owner.storage.checkpoint(this.sessionId, {
      position,
      revision,
      state: JSON.stringify(state),
      at: storeNow(this.#session.store),
      keepFrom: Math.max(0, position - this.#owner.retention.events),
    });
    this.#checkpointed = position;
  }

  free() {
    this.#session.free();
  }
}

/**
 * The sessions of a storage over one ReplayStore: `open(id)` (kept, loaded
 * or made), `read(id, answer)` (creates nothing for a session storage does
 * not hold), `release(id)` (frees a session the store no longer holds).
 * Options: `storage` (required), `store` or `storeOptions` (its incarnation
 * is the storage's), `retention: {events, bytes, ageMs}` (what a restart
 * restores into the live window: by default the store's maxEventsPerSession
 * and maxAgeMs, no byte bound), `checkpointEvery` (1000 events), `idleMs`
 * (300000: a session nobody follows, unused this long, leaves memory before
 * the store's bounds press; it is reloaded when next asked for). A shared
 * storage (one with `tail`: see the module comment) needs no `undo`.
 */
export class DurableSessions {
  /** The store given, if any; the store once made or checked. */
  #given;
  #store;
  #storeOptions;
  /** The promise of the store with the storage's incarnation, once asked. */
  #made;
  #kept = new Map();
  #loading = new Map();
  #sweepAt = 16;
  #idleMs;
  #idleSweptAt = 0;
  /** Stops a shared storage's doorbell, once it rings for these sessions. */
  #unsubscribe;

  constructor({
    storage,
    store,
    storeOptions = {},
    retention = {},
    checkpointEvery = 1000,
    idleMs = 300_000,
    maxKeys = 1000,
  } = {}) {
    /** A storage other replicas write to: positions are its table's. */
    this.shared = typeof storage?.tail === "function";
    const methods = ["incarnation", "load", "append", this.shared ? "tail" : "undo", "checkpoint"];
    if (!storage || methods.some((m) => typeof storage[m] !== "function"))
      throw new AgentReplayError("invalid_input", `storage must have ${methods.join(", ")}`);
    if (!Number.isSafeInteger(checkpointEvery) || checkpointEvery < 1)
      throw new AgentReplayError("invalid_input", "checkpointEvery must be a positive integer");
    if (typeof idleMs !== "number" || !(idleMs >= 0))
      throw new AgentReplayError("invalid_input", "idleMs must be a non-negative number");
    if (!Number.isSafeInteger(maxKeys) || maxKeys < 1)
      throw new AgentReplayError("invalid_input", "maxKeys must be a positive integer");
    this.#idleMs = idleMs;
    this.maxKeys = maxKeys;
    this.storage = storage;
    this.checkpointEvery = checkpointEvery;
    this.retention = {
      events: retention.events ?? storeOptions.maxEventsPerSession ?? 2048,
      bytes: retention.bytes ?? Number.POSITIVE_INFINITY,
      ageMs: retention.ageMs ?? storeOptions.maxAgeMs ?? 120_000,
    };
    this.#given = store;
    this.#storeOptions = storeOptions;
  }

  /** The store, made on first use with the storage's incarnation (a store
   * given must have it: the cursors it writes must outlive it). A storage
   * that could not say it (a database down) is asked again next time. */
  async store() {
    if (!this.#made) {
      const made = this.#make();
      this.#made = made;
      made.catch(() => {
        if (this.#made === made) this.#made = undefined;
      });
    }
    this.#store = await this.#made;
    return this.#store;
  }

  /** The store with the storage's incarnation; listening to its doorbell. */
  #make() {
    return this.storage.incarnation().then((incarnation) => {
      const given = this.#given;
      if (given && given.incarnation !== incarnation)
        throw new AgentReplayError(
          "invalid_input",
          "the store's incarnation is not the storage's: a restart would break every cursor",
        );
      if (typeof this.storage.subscribe === "function")
        this.#unsubscribe = this.storage.subscribe((id) => this.#doorbell(id));
      return given ?? new ReplayStore({ ...this.#storeOptions, incarnation });
    });
  }

  /** A session restored from storage (an empty one at position 0 when it
   * holds none), or undefined when `create` is false and it holds none. */
  async load(id, create = true) {
    const store = await this.store();
    const stored = await this.storage.load(id, { retainEvents: this.retention.events });
    if (!stored && !create) return undefined;
    const { base, events = [], times = [], keys } = stored ?? {};
    const checkpoint =
      stored?.checkpoint ?? (base?.position > 0 ? emptyAt(id, store, base.position) : undefined);
    const now = storeNow(store);
    const session = ReplaySession.restore(id, {
      store,
      base,
      events: events.join("\n"),
      times,
      checkpoint,
      retain: retained(events, times, this.retention, now),
    });
    return new DurableSession(this, session, checkpoint?.position ?? 0, keys);
  }

  /** The kept sessions a shared storage's doorbell names (for `undefined`,
   * all those behind its table) read on from it; one that fails is read on
   * at the next doorbell or poll. */
  async #doorbell(id) {
    const ids = id === undefined ? await this.#behind([...this.#kept.keys()]) : [id];
    for (const kept of ids)
      this.#kept
        .get(kept)
        ?.refresh()
        .catch(() => {});
  }

  /** Of `ids`, those whose stored last position is past their live
   * session's, asked in one call when the storage has `heads` (all of
   * them when it has not, or cannot answer now). */
  async #behind(ids) {
    if (typeof this.storage.heads !== "function" || ids.length === 0) return ids;
    const heads = await this.storage.heads(ids).catch(() => undefined);
    if (!heads) return ids;
    const live = (id) => parseCursor(this.#store.currentCursor(id)).position;
    return ids.filter((id) => (heads.get(id) ?? 0) > live(id));
  }

  /** A kept session, caught up with a shared storage's table. Without the
   * database it answers from what it holds: a prefix of the table. */
  async #fresh(s) {
    if (this.shared)
      await s.refresh().catch((e) => {
        if (e?.code !== "storage_unavailable") throw e;
      });
    return s;
  }

  /** Stops listening to a shared storage's doorbell. */
  close() {
    this.#unsubscribe?.();
    this.#unsubscribe = undefined;
  }

  /** The kept session of `id`, if the store still holds it, marked used. */
  #held(id) {
    this.#evictIdle();
    this.release(id);
    const s = this.#kept.get(id);
    if (s) s.usedAt = storeNow(this.#store);
    return s;
  }

  /** Lets the sessions unused for `idleMs` that nobody follows leave
   * memory (at most every quarter of `idleMs`: a pass visits every kept one). */
  #evictIdle() {
    if (!this.#store) return;
    const now = storeNow(this.#store);
    if (now - this.#idleSweptAt < this.#idleMs / 4) return;
    this.#idleSweptAt = now;
    const core = storeCore(this.#store);
    for (const [id, s] of this.#kept) {
      if (s.busy || now - s.usedAt <= this.#idleMs || !core.evictIdle(id)) continue;
      this.#kept.delete(id);
      s.free();
    }
  }

  /** Loads a session once however many requests ask for it meanwhile. */
  #loadOnce(id, create) {
    let loading = this.#loading.get(id);
    if (!loading) {
      loading = this.load(id, create).then((s) => {
        if (s) {
          if (this.#kept.size >= this.#sweepAt) this.#sweep();
          this.#kept.set(id, s);
        }
        return s;
      });
      this.#loading.set(id, loading);
      loading.finally(() => this.#loading.delete(id)).catch(() => {});
    }
    return loading;
  }

  /** The session to append to or stream: kept, loaded, or made. */
  async open(id) {
    const kept = this.#held(id);
    if (kept) return this.#fresh(kept);
    const loaded = await this.#loadOnce(id, false);
    return loaded ?? this.#held(id) ?? (await this.#loadOnce(id, true));
  }

  /** `answer(session)` from the kept or stored session; for a session
   * storage does not hold, from a transient empty one that keeps nothing. */
  async read(id, answer) {
    const held = this.#held(id);
    const s = held ? await this.#fresh(held) : await this.#loadOnce(id, false);
    if (s) return answer(s);
    const transient = new ReplaySession(id, { store: await this.store() });
    try {
      return answer(transient);
    } finally {
      transient.free();
    }
  }

  /** Frees the kept session if the store no longer holds it and no append
   * is on its way (it is reloaded from storage when next asked for). */
  release(id) {
    const s = this.#kept.get(id);
    if (s && !s.busy && !this.#store.holds(id)) {
      this.#kept.delete(id);
      s.free();
    }
  }

  #sweep() {
    for (const id of [...this.#kept.keys()]) this.release(id);
    this.#sweepAt = Math.max(16, 2 * this.#kept.size);
  }

  /** Sessions kept in memory now. */
  get size() {
    return this.#kept.size;
  }
}
