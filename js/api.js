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
  let json;
  if (typeof text === "string")
    json = call(() => raw.rebuildOsSnapshotStr(text, strict, all), text);
  else if (isBytes(text)) json = call(() => raw.rebuildOsSnapshotBytes(text, strict, all), text);
  else throw invalidInput("rebuildOsSnapshot", input);
  return JSON.parse(json);
}

/** The WebAssembly memory the host holds, the bytes allocated in it now,
 * and the memory limit (`setMemoryLimit`). */
export function memoryUsage() {
  return JSON.parse(raw.memoryUsage());
}

/** The largest memory limit, just under wasm32's 4 GiB (a call that grows
 * the memory past 3.75 GiB fails whatever the limit: wasm/src/alloc.rs). */
const MAX_MEMORY_LIMIT = 2 ** 32 - 2 ** 26;

/**
 * Sets the memory budget of this WebAssembly instance, in bytes allocated
 * (default 3 GiB). A call that takes memory past it throws
 * `limit_exceeded` instead of trapping; a SessionState that it was folding
 * is dropped (it throws `limit_exceeded` until freed).
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
