// Log loading, the OS snapshot and SessionState over the raw wasm-bindgen
// exports: inputs normalised, results parsed once from JSON.
import * as raw from "../pkg/agent_replay.js";
import sample from "../pkg/sample.js";
import { AgentReplayError, call, decodeEvents, invalidInput, isBytes, toBytes } from "./common.js";
import { inputCall } from "./input.js";
import { otlpTrace } from "./otlp/index.js";
import { compareViews } from "./compare/index.js";
import { otlpProtobuf } from "./otlp-protobuf.js";

export { AgentReplayError, errorCodes, httpStatusOf } from "./common.js";
export { allocInput, InputBuffer } from "./input.js";

function strictOf(options) {
  return Boolean(options?.strict);
}

/** Loads a log (JSON array, JSON Lines or stored entries) from a string or bytes. */
export function parseLog(input, options) {
  const strict = strictOf(options);
  let json;
  if (typeof input === "string") json = call(() => raw.parseLogStr(input, strict), input);
  else if (isBytes(input)) json = call(() => raw.parseLogBytes(input, strict), input);
  else throw invalidInput("parseLog", input);
  return JSON.parse(json);
}

/**
 * The kernel's exact OS snapshot of a log or of an array of events. Throws
 * `invalid_log` if the log has any error. The events the fold reads are
 * checked field by field; the others as JSON objects with a kind, unless
 * `{validate: "all"}` asks for every event to be checked field by field.
 */
export function rebuildOsSnapshot(input, options) {
  const strict = strictOf(options);
  const all = options?.validate === "all";
  if (options?.validate !== undefined && !["all", "folded"].includes(options.validate)) {
    throw new AgentReplayError(
      "invalid_input",
      'rebuildOsSnapshot: validate must be "all" or "folded"',
    );
  }
  let text = input;
  if (Array.isArray(input)) text = JSON.stringify(input);
  const own = inputCall(text, "rebuildOsSnapshot", (core, len) =>
    raw.rebuildOsSnapshotInput(core, len, strict, all),
  );
  let json;
  if (own) json = own.value;
  else if (typeof text === "string")
    json = call(() => raw.rebuildOsSnapshotStr(text, strict, all), text);
  else if (isBytes(text)) json = call(() => raw.rebuildOsSnapshotBytes(text, strict, all), text);
  else throw invalidInput("rebuildOsSnapshot", input);
  return JSON.parse(json);
}

/** The WebAssembly memory the host holds, the bytes allocated in it now,
 * the most allocated during the last call the limit watched, and the memory
 * limit (`setMemoryLimit`). */
export function memoryUsage() {
  return JSON.parse(raw.memoryUsage());
}

/** The largest memory limit, just under wasm32's 4 GiB (a call that grows
 * the memory past 3.75 GiB fails whatever the limit: wasm/src/alloc.rs). */
const MAX_MEMORY_LIMIT = 2 ** 32 - 2 ** 26;

/**
 * Sets the memory budget of this WebAssembly instance, in bytes allocated
 * (default 3 GiB), held while each call runs (wasm/src/alloc.rs). A call
 * that takes memory past it throws `limit_exceeded` instead of trapping; a
 * SessionState that it was folding is dropped (it throws `limit_exceeded`
 * until freed).
 */
export function setMemoryLimit(bytes) {
  if (!Number.isInteger(bytes) || bytes <= 0 || bytes > MAX_MEMORY_LIMIT) {
    throw new AgentReplayError(
      "invalid_input",
      `setMemoryLimit: expected a whole number of bytes from 1 to ${MAX_MEMORY_LIMIT}`,
    );
  }
  raw.setMemoryLimit(bytes);
}

let kindTable;

/**
 * The event kinds this version knows, from the Rust kind table:
 * `{categories, kinds}`, each kind with its category, whether it bears a
 * turn, is a kernel OS event, is read by the OS snapshot fold, and when it
 * is alarming. Read once; frozen.
 */
export function eventKinds() {
  if (!kindTable) {
    const table = JSON.parse(raw.kindTable());
    for (const k of table.kinds) Object.freeze(k);
    Object.freeze(table.kinds);
    Object.freeze(table.categories);
    kindTable = Object.freeze(table);
  }
  return kindTable;
}

/** The embedded sample session (uses all 50 kinds), as JSON Lines text. */
export function sampleLog() {
  return sample;
}

/** Hands each folded event of a wire to `onEvent` as `{position, kind,
 * turn, json}`, counting positions after `before`; returns the header. */
function foldedEvents(wire, before, onEvent) {
  let position = before;
  const { header, events } = decodeEvents(wire, 3, (values, i, json) => ({
    position: ++position,
    kind: values[i],
    turn: values[i + 1],
    json,
  }));
  for (const event of events) onEvent(event);
  return header;
}

const wrap = Symbol("wrap");

/** A SessionState's live core, for functions that take states (compareRuns). */
let coreOf;

/** Incremental session state: the OS snapshot and the session view. */
export class SessionState {
  #core;
  #options;

  static {
    coreOf = (state) => state.#live();
  }

  constructor(sessionId, options) {
    if (sessionId === wrap) {
      this.#core = options;
      return;
    }
    if (sessionId !== undefined && sessionId !== null && typeof sessionId !== "string") {
      throw new AgentReplayError("invalid_input", "SessionState: sessionId must be a string");
    }
    this.#core = new raw.SessionStateCore(sessionId ?? undefined);
    this.#options = options;
  }

  /**
   * The state a live-replay observation describes (or a view, or either as
   * JSON text), ready to fold the events after it: what a client does after
   * a gap. Throws `invalid_observation` if it is not a session view.
   */
  static fromObservation(observation) {
    let value = observation;
    if (typeof value === "string") {
      try {
        value = JSON.parse(value);
      } catch {
        throw new AgentReplayError("invalid_observation", "SessionState.fromObservation: not JSON");
      }
    }
    if (value === null || typeof value !== "object")
      throw invalidInput("SessionState.fromObservation", observation);
    const view = "cursor" in value && "state" in value ? value.state : value;
    const json = JSON.stringify(view);
    return new SessionState(
      wrap,
      call(() => raw.SessionStateCore.fromView(json)),
    );
  }

  #live() {
    if (!this.#core) throw new AgentReplayError("closed", "SessionState: used after free()");
    return this.#core;
  }

  /**
   * Folds, in log order: one event object, an array of events, or a whole
   * log as a string or bytes. Load errors of a log or an array (tolerant
   * mode) are kept in `view().load_errors`; `{strict: true}` throws on the
   * first instead.
   */
  apply(input, options = this.#options) {
    const core = this.#live();
    const strict = strictOf(options);
    if (inputCall(input, "SessionState.apply", (own, len) => core.applyInput(own, len, strict)))
      return this;
    if (typeof input === "string") call(() => core.applyStr(input, strict), input);
    else if (isBytes(input)) call(() => core.applyBytes(input, strict), input);
    else if (Array.isArray(input)) {
      const text = JSON.stringify(input);
      call(() => core.applyStr(text, strict), text);
    } else if (input !== null && typeof input === "object") {
      const text = JSON.stringify(input);
      call(() => core.applyEvent(text), text);
    } else throw invalidInput("SessionState.apply", input);
    return this;
  }

  /**
   * Folds the next chunk of a log arriving in pieces (lines may straddle
   * chunks). `{onEvent}` receives each event folded, as
   * `{position, kind, turn, json}` (its original JSON text).
   */
  write(chunk, options = this.#options) {
    const core = this.#live();
    const bytes = toBytes(chunk, "SessionState.write");
    const strict = strictOf(options);
    const onEvent = options?.onEvent;
    if (typeof onEvent === "function") {
      const first = call(() => core.eventCount);
      foldedEvents(
        call(() => core.writeEvents(bytes, strict), bytes),
        first,
        onEvent,
      );
    } else call(() => core.write(bytes, strict), bytes);
    return this;
  }

  /** Ends a log written in chunks; returns `{framing, events, errors}` for it.
   * `{onEvent}` receives the events the end folds (an unterminated last line). */
  end(options) {
    const core = this.#live();
    const onEvent = options?.onEvent;
    if (typeof onEvent === "function") {
      const first = call(() => core.eventCount);
      return foldedEvents(
        call(() => core.endEvents()),
        first,
        onEvent,
      );
    }
    return JSON.parse(call(() => core.end()));
  }

  /**
   * A light copy for time travel: it keeps folding the OS snapshot and the
   * summary but no per-event lists, so holding one every few thousand
   * events is cheap. Its `view()` lists are empty; use `summary()`.
   */
  checkpoint() {
    const core = this.#live();
    return new SessionState(
      wrap,
      call(() => core.checkpoint()),
    );
  }

  /** The state at this point without the per-event lists: status, run,
   * totals, processes, current capabilities, counts, errors. */
  summary() {
    const core = this.#live();
    return JSON.parse(call(() => core.summary()));
  }

  osSnapshot() {
    const core = this.#live();
    return JSON.parse(call(() => core.osSnapshot()));
  }

  view() {
    const core = this.#live();
    return JSON.parse(call(() => core.view()));
  }

  /** The session so far as an OTLP trace (docs/otlp.md): OTLP/JSON as an
   * object, or with `{format: "protobuf"}` OTLP/protobuf as bytes;
   * `{content: true}` adds message content, `startTime` places a log with
   * no recorded time. Built here from the view (js/otlp/), not in the core. */
  toOtlp(options) {
    const core = this.#live();
    const { protobuf, content, startTime } = otlpOptionsOf(options);
    const trace = otlpTrace(
      call(() => core.view()),
      { content, startTime },
    );
    return protobuf ? otlpProtobuf(trace) : trace;
  }

  get eventCount() {
    const core = this.#live();
    return call(() => core.eventCount);
  }

  get revision() {
    const core = this.#live();
    return call(() => core.revision);
  }

  free() {
    if (this.#core) {
      this.#core.free();
      this.#core = undefined;
    }
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** `toOtlp`'s options checked: the encoding, content, and the start time
 * in Unix milliseconds (a number, a Date or an ISO 8601 string). */
function otlpOptionsOf(options) {
  const format = options?.format ?? "json";
  if (format !== "json" && format !== "protobuf")
    throw new AgentReplayError("invalid_input", 'toOtlp: format must be "json" or "protobuf"');
  let startTime = options?.startTime;
  if (startTime instanceof Date) startTime = startTime.getTime();
  else if (typeof startTime === "string") startTime = Date.parse(startTime);
  if (startTime !== undefined && !(Number.isSafeInteger(startTime) && startTime >= 0))
    throw new AgentReplayError(
      "invalid_input",
      "toOtlp: startTime must be a time ≥ 1970 (Unix milliseconds, a Date or an ISO 8601 string)",
    );
  return { protobuf: format === "protobuf", content: Boolean(options?.content), startTime };
}

/**
 * The session of a log (a string, bytes or an array of events) as an OTLP
 * trace under the OpenTelemetry GenAI conventions (docs/otlp.md): OTLP/JSON
 * as an object, or OTLP/protobuf bytes with `format: "protobuf"`. Options:
 * `content` (message content, off by default), `sessionId` (names the
 * session; the ids derive from it and the run id), `startTime` (where a
 * log with no recorded time starts; without it, at the Unix epoch),
 * `strict` (throw on the first load error; otherwise load errors are
 * counted on the root span).
 */
export function toOtlp(log, options) {
  const state = new SessionState(options?.sessionId);
  try {
    state.apply(log, { strict: strictOf(options) });
    return state.toOtlp(options);
  } finally {
    state.free();
  }
}

/**
 * Two runs compared turn by turn, then tool call by tool call, with the
 * first divergence (docs/api.md, "Comparing runs"). Each run is a log (a
 * string or bytes, any framing), an array of events, or a SessionState;
 * load errors of a log are kept in the result (`a.load_errors`), its good
 * events compared, unless `{strict: true}`.
 */
export function compareRuns(a, b, options) {
  const owned = [];
  const load = (run) => {
    if (run instanceof SessionState) return coreOf(run);
    if (typeof run !== "string" && !isBytes(run) && !Array.isArray(run))
      throw invalidInput("compareRuns", run);
    const state = new SessionState();
    owned.push(state);
    return coreOf(state.apply(run, options));
  };
  try {
    const x = load(a);
    // One run on both sides (a state, or a log) is folded and viewed once.
    const y = b === a ? x : load(b);
    const textA = call(() => x.view());
    return compareViews(textA, y === x ? textA : call(() => y.view()));
  } finally {
    for (const state of owned) state.free();
  }
}

/** The names of `SessionIndex.turnSeries`'s columns, from the core. */
let turnColumns;

/** The events of a paged index's wire: `{position, kind, turn, json}`. */
function indexedEvents(wire) {
  return decodeEvents(wire, 4, (values, i, json) => ({
    position: values[i],
    kind: values[i + 1],
    turn: values[i + 2],
    json,
  })).events;
}

/** Turns a filter list option into what the core takes: an array of
 * strings, or undefined for "any". */
function listOption(value, name) {
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value) || value.some((v) => typeof v !== "string"))
    throw new AgentReplayError("invalid_input", `SessionIndex.filter: ${name} must be strings`);
  return value;
}

/**
 * A filter's kinds for the core: the kinds the table's categories, kernel
 * categories and primitives select, within `kinds` if given (an entry
 * `kernel_observation/<observation_kind>` kept as is), and whether kinds
 * the table does not know pass (category "unknown", no kernel facet).
 */
function kindsOf({ kinds, categories, kernelCategories, primitives }) {
  if (!categories && !kernelCategories && !primitives) return { names: kinds, unknown: !kinds };
  const keeps = (list, value) => !list || list.includes(value);
  const selected = eventKinds().kinds.filter(
    (k) =>
      keeps(categories, k.category) &&
      keeps(kernelCategories, k.kernel_category) &&
      keeps(primitives, k.primitive),
  );
  const named = (kind) => !kinds || kinds.includes(kind);
  const names = selected.map((k) => k.kind).filter(named);
  if (kinds && selected.some((k) => k.kind === "kernel_observation"))
    names.push(...kinds.filter((k) => k.startsWith("kernel_observation/")));
  // Kinds the table does not know are of the category "unknown", with no
  // kernel category or primitive: by name if `kinds` lists them, else all.
  const unknownPass = keeps(categories, "unknown") && !kernelCategories && !primitives;
  if (unknownPass && kinds) {
    const known = new Set(eventKinds().kinds.map((k) => k.kind));
    names.push(...kinds.filter((k) => !known.has(k) && !k.startsWith("kernel_observation/")));
  }
  return { names, unknown: unknownPass && !kinds };
}

/** A position argument: a non-negative integer. */
function positionOf(value, name) {
  if (!Number.isSafeInteger(value) || value < 0)
    throw new AgentReplayError("invalid_input", `SessionIndex: ${name} must be an integer ≥ 0`);
  return value;
}

/**
 * A paged index of a session log, for logs too large to read out as a view
 * (docs/api.md, "Large logs"): it folds the OS snapshot, the summary and the
 * per-turn figures, keeps each event's text once in WebAssembly memory, and
 * answers by position: pages of events, filters, full-text search, and the
 * state at any position.
 */
export class SessionIndex {
  #core;
  #options;

  constructor(sessionId, options) {
    if (sessionId !== undefined && sessionId !== null && typeof sessionId !== "string") {
      throw new AgentReplayError("invalid_input", "SessionIndex: sessionId must be a string");
    }
    const deferCheck = options?.deferCheck === true && !strictOf(options);
    this.#core = new raw.SessionIndexCore(sessionId ?? undefined, deferCheck);
    this.#options = options;
  }

  #live() {
    if (!this.#core) throw new AgentReplayError("closed", "SessionIndex: used after free()");
    return this.#core;
  }

  /** A call of the live core, its result parsed from JSON. */
  #json(read) {
    const core = this.#live();
    return JSON.parse(call(() => read(core)));
  }

  /** Indexes a whole log (string or bytes, any framing); returns the
   * index, as SessionState.apply returns the state (its load errors:
   * `loadErrors()`). */
  apply(input, options = this.#options) {
    const core = this.#live();
    const strict = strictOf(options);
    if (inputCall(input, "SessionIndex.apply", (own, len) => core.applyInput(own, len, strict)))
      return this;
    const bytes = toBytes(input, "SessionIndex.apply");
    call(() => core.applyBytes(bytes, strict), bytes);
    return this;
  }

  /** Makes room at once for the index of a log of about `bytes` bytes
   * about to be written: the WebAssembly memory grows in one step, not an
   * eighth at a time as the texts arrive; within the memory limit. */
  reserve(bytes) {
    const core = this.#live();
    core.reserve(positionOf(bytes, "bytes"));
    return this;
  }

  /** Indexes the next chunk of a log arriving in pieces. */
  write(chunk, options = this.#options) {
    const core = this.#live();
    const strict = strictOf(options);
    if (inputCall(chunk, "SessionIndex.write", (own, len) => core.writeInput(own, len, strict)))
      return this;
    const bytes = toBytes(chunk, "SessionIndex.write");
    call(() => core.write(bytes, strict), bytes);
    return this;
  }

  /** Ends a log written in chunks; returns `{framing, events, errors}`. */
  end() {
    return this.#json((core) => core.end());
  }

  /** With `{deferCheck: true}`: checks up to `budget` (4096) more of the
   * events whose check was deferred, and says how far the check got,
   * `{checkedTo, done}` (docs/api.md, "The deferred check"). */
  checkStep(budget = 4096) {
    if (!Number.isSafeInteger(budget) || budget < 0 || budget > 0xffffffff)
      throw new AgentReplayError(
        "invalid_input",
        "SessionIndex.checkStep: budget must be an integer ≥ 0",
      );
    const core = this.#live();
    const [checkedTo, done] = call(() => core.checkStep(budget));
    return { checkedTo, done: done === 1 };
  }

  /** How far the deferred check got, `{checkedTo, done}`, checking no more. */
  checkProgress() {
    return this.checkStep(0);
  }

  get eventCount() {
    const core = this.#live();
    return call(() => core.eventCount);
  }

  /** The events at positions `from` to `to` (1-based, inclusive, clamped),
   * each `{position, kind, turn, json}`. */
  events(from, to) {
    const core = this.#live();
    const [first, last] = [positionOf(from, "from"), positionOf(to, "to")];
    return indexedEvents(call(() => core.events(first, last)));
  }

  /** The events at the given positions (an array or a `Uint32Array`, such
   * as `filter` returns), in that order; positions outside the log are
   * skipped. */
  eventsAt(positions) {
    const core = this.#live();
    // Past 2^32 there are no events: such a position is skipped, as 0 is.
    const list = Uint32Array.from(positions, (p) => {
      const at = positionOf(p, "positions");
      return at > 0xffffffff ? 0 : at;
    });
    return indexedEvents(call(() => core.eventsAt(list)));
  }

  /** The event at a 1-based position, or null. */
  event(position) {
    return this.events(position, position)[0] ?? null;
  }

  /** The positions of the events a filter keeps, in order: `kinds` (a kind,
   * or `kernel_observation/<observation_kind>`), `categories`,
   * `kernelCategories`, `primitives`, each "any" when absent, and `query`,
   * text the event's JSON must hold (ASCII letters in either case). */
  filter({ kinds, categories, kernelCategories, primitives, query } = {}) {
    if (query !== undefined && query !== null && typeof query !== "string")
      throw new AgentReplayError("invalid_input", "SessionIndex.filter: query must be a string");
    const { names, unknown } = kindsOf({
      kinds: listOption(kinds, "kinds"),
      categories: listOption(categories, "categories"),
      kernelCategories: listOption(kernelCategories, "kernelCategories"),
      primitives: listOption(primitives, "primitives"),
    });
    const core = this.#live();
    // Kinds cross as one string, one a line (a kind holds no newline).
    const lines = names?.filter((k) => !k.includes("\n")).join("\n");
    return call(() => core.filter(lines, unknown, query || undefined));
  }

  /** Up to `limit` (100) positions from `from` (1) of events whose JSON
   * holds `query` (ASCII letters in either case), and `next`, where to
   * continue (null at the end). */
  search(query, { from = 1, limit = 100 } = {}) {
    if (typeof query !== "string")
      throw new AgentReplayError("invalid_input", "SessionIndex.search: query must be a string");
    if (!Number.isSafeInteger(limit) || limit < 1 || limit > 0xffffffff)
      throw new AgentReplayError("invalid_input", "SessionIndex.search: limit must be ≥ 1");
    const start = positionOf(from, "from");
    return this.#json((core) => core.search(query, start, limit));
  }

  /** `{position, summary, osSnapshot}` as of a position (0: before the
   * first event), folded from the nearest checkpoint. With `{tail: n}`, the
   * snapshot's lists, each process's history and the summary's
   * `tokens_by_operation` keep their last `n` items,
   * and `totals` says how many each had (what a page shows of a long log). */
  stateAt(position, { tail } = {}) {
    const at = Math.min(positionOf(position, "position"), this.eventCount);
    if (tail !== undefined && (!Number.isSafeInteger(tail) || tail < 0 || tail > 0xffffffff))
      throw new AgentReplayError(
        "invalid_input",
        "SessionIndex.stateAt: tail must be an integer ≥ 0",
      );
    const core = this.#live();
    const { summary, os_snapshot, totals } = JSON.parse(call(() => core.stateAt(at, tail)));
    const state = { position: at, summary, osSnapshot: os_snapshot };
    if (totals) state.totals = totals;
    return state;
  }

  /** The transcript entries of the events `from` to `to` (1-based,
   * inclusive, clamped) folded on their own, as if the log began at `from`
   * (an entry begun before it is not there; lives count from it): the last
   * `last` of them (all by default), at the log's positions. A page's
   * transcript around a position, in one call. */
  transcript(from, to, { last = 0xffffffff } = {}) {
    const start = Math.max(1, positionOf(from, "from"));
    const end = positionOf(to, "to");
    if (!Number.isSafeInteger(last) || last < 0 || last > 0xffffffff)
      throw new AgentReplayError(
        "invalid_input",
        "SessionIndex.transcript: last must be an integer ≥ 0",
      );
    return this.#json((core) => core.transcript(start, end, last));
  }

  summary() {
    return this.#json((core) => core.summary());
  }

  osSnapshot() {
    return this.#json((core) => core.osSnapshot());
  }

  /** The per-turn figures, without the events. */
  turns() {
    return this.#json((core) => core.turns());
  }

  /** The per-turn numbers as columns, a Float64Array each (what a chart
   * draws, without an object per turn). */
  turnSeries() {
    const core = this.#live();
    const values = call(() => core.turnSeries());
    turnColumns ??= raw.SessionIndexCore.turnSeriesColumns().split("\n");
    const n = values.length / turnColumns.length;
    return Object.fromEntries(
      turnColumns.map((name, i) => [name, values.subarray(i * n, (i + 1) * n)]),
    );
  }

  loadErrors() {
    return this.#json((core) => core.loadErrors());
  }

  /** How many `kernel_observation` events there are of each `observation_kind`. */
  observationKinds() {
    return this.#json((core) => core.observationKinds());
  }

  /** `{retained_bytes, checkpoints, checkpoint_spacing}`. */
  memory() {
    return this.#json((core) => core.memory());
  }

  free() {
    if (this.#core) {
      this.#core.free();
      this.#core = undefined;
    }
  }

  [Symbol.dispose]() {
    this.free();
  }
}

/** A stored-entry reader option: a whole number ≥ 0. */
function entryStart(value, name) {
  if (value === undefined) return 0;
  if (!Number.isSafeInteger(value) || value < 0)
    throw new AgentReplayError(
      "invalid_input",
      `StoredEntryReader: ${name} must be an integer ≥ 0`,
    );
  return value;
}

/** The entries and errors of a stored-entry wire (wasm/src/entries.rs). */
function storedEntries(wire) {
  const { header, events } = decodeEvents(wire, 6, (values, i, json) => {
    const keyLength = values[i + 4];
    const entry = {
      seq: values[i],
      text: keyLength > 0 ? json.slice(keyLength) : json,
      offset: values[i + 1],
      length: values[i + 2],
    };
    if (keyLength > 0) entry.key = JSON.parse(json.slice(0, keyLength));
    if (values[i + 3] !== null) entry.count = values[i + 3];
    return entry;
  });
  return { entries: events, errors: header.errors };
}

/**
 * Reads stored entries (`{"seq":N,"event":{…}}` lines, a keyed batch's
 * first line also with `key` and `count`) as entries, in chunks, through
 * the core's reader: each whole line's `{seq, text, offset, length, key?,
 * count?}` (`text` the event's JSON as stored, not parsed as an event), and
 * each problem as a load error with its line's `offset`. For those that
 * store or copy entries; to fold them, `SessionState.write` reads the same
 * lines.
 */
export class StoredEntryReader {
  #core;

  /** `seq` and `offset`: the seq expected of the first line and the byte
   * offset it starts at (both 0 for a whole file). */
  constructor({ seq, offset } = {}) {
    this.#core = new raw.StoredEntryReaderCore(
      entryStart(seq, "seq"),
      entryStart(offset, "offset"),
    );
  }

  #live() {
    if (!this.#core) throw new AgentReplayError("closed", "StoredEntryReader: used after free()");
    return this.#core;
  }

  /** The entries of the whole lines `chunk` completes: `{entries, errors}`. */
  write(chunk) {
    const core = this.#live();
    const bytes = toBytes(chunk, "StoredEntryReader.write");
    return storedEntries(call(() => core.write(bytes), bytes));
  }

  /** Ends the stream: `{entries, errors}` of an unterminated last line (an
   * error `truncated` when it is cut short: a torn write). */
  end() {
    const core = this.#live();
    return storedEntries(call(() => core.end()));
  }

  free() {
    if (this.#core) {
      this.#core.free();
      this.#core = undefined;
    }
  }

  [Symbol.dispose]() {
    this.free();
  }
}
