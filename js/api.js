// Log loading, the OS snapshot and SessionState over the raw wasm-bindgen
// exports: inputs normalised, results parsed once from JSON.
import * as raw from "../pkg/agent_replay.js";
import sample from "../pkg/sample.js";
import { AgentReplayError, call, invalidInput, isBytes, toBytes } from "./common.js";

export { AgentReplayError } from "./common.js";

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

/** The embedded sample session (uses all 32 kinds), as JSON Lines text. */
export function sampleLog() {
  return sample;
}

/** Decodes `header\n[kind, turn, length, …]\ntexts` into folded events. */
function foldedEvents(wire, firstPosition, onEvent) {
  const a = wire.indexOf("\n");
  const b = wire.indexOf("\n", a + 1);
  const meta = JSON.parse(wire.slice(a + 1, b));
  let offset = b + 1;
  let position = firstPosition;
  for (let i = 0; i < meta.length; i += 3) {
    const end = offset + meta[i + 2];
    onEvent({
      position: ++position,
      kind: meta[i],
      turn: meta[i + 1],
      json: wire.slice(offset, end),
    });
    offset = end;
  }
  return wire.slice(0, a);
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
   * log as a string or bytes. Load errors of a log (tolerant mode) are kept
   * in `view().load_errors`; `{strict: true}` throws on the first instead.
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
      return JSON.parse(
        foldedEvents(
          call(() => core.endEvents()),
          first,
          onEvent,
        ),
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
