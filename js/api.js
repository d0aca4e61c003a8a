// Log loading, the OS snapshot and SessionState over the raw wasm-bindgen
// exports: inputs normalised, results parsed once from JSON.
import * as raw from "../pkg/agent_replay.js";
import sample from "../pkg/sample.js";
import { AgentReplayError, call, decodeEvents, invalidInput, isBytes, toBytes } from "./common.js";

export { AgentReplayError, errorCodes, httpStatusOf } from "./common.js";

function strictOf(options) {
  return Boolean(options?.strict);
}

/** Loads a log (JSON array, JSON Lines or stored entries) from a string or bytes. */
export function parseLog(input, options) {
  const strict = strictOf(options);
  let json;
  if (typeof input === "string") json = call(() => raw.parseLogStr(input, strict));
  else if (isBytes(input)) json = call(() => raw.parseLogBytes(input, strict));
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
  let json;
  if (typeof input === "string") json = call(() => raw.rebuildOsSnapshotStr(input, strict, all));
  else if (isBytes(input)) json = call(() => raw.rebuildOsSnapshotBytes(input, strict, all));
  else if (Array.isArray(input))
    json = call(() => raw.rebuildOsSnapshotStr(JSON.stringify(input), strict, all));
  else throw invalidInput("rebuildOsSnapshot", input);
  return JSON.parse(json);
}

/** The WebAssembly memory the host holds and the bytes allocated in it now. */
export function memoryUsage() {
  return JSON.parse(raw.memoryUsage());
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

/** Incremental session state: the OS snapshot and the session view. */
export class SessionState {
  #core;
  #options;

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
    if (typeof input === "string") call(() => core.applyStr(input, strict));
    else if (isBytes(input)) call(() => core.applyBytes(input, strict));
    else if (Array.isArray(input)) call(() => core.applyStr(JSON.stringify(input), strict));
    else if (input !== null && typeof input === "object")
      call(() => core.applyEvent(JSON.stringify(input)));
    else throw invalidInput("SessionState.apply", input);
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
      const first = core.eventCount;
      foldedEvents(
        call(() => core.writeEvents(bytes, strict)),
        first,
        onEvent,
      );
    } else call(() => core.write(bytes, strict));
    return this;
  }

  /** Ends a log written in chunks; returns `{framing, events, errors}` for it.
   * `{onEvent}` receives the events the end folds (an unterminated last line). */
  end(options) {
    const core = this.#live();
    const onEvent = options?.onEvent;
    if (typeof onEvent === "function") {
      const first = core.eventCount;
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
    return new SessionState(wrap, this.#live().checkpoint());
  }

  /** The state at this point without the per-event lists: status, run,
   * totals, processes, current capabilities, counts, errors. */
  summary() {
    return JSON.parse(this.#live().summary());
  }

  osSnapshot() {
    return JSON.parse(this.#live().osSnapshot());
  }

  view() {
    return JSON.parse(this.#live().view());
  }

  get eventCount() {
    return this.#live().eventCount;
  }

  get revision() {
    return this.#live().revision;
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
