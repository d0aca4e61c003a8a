// What every part of the JS API shares: the error class, the call into
// WebAssembly that turns its raw errors into it, and input normalisation.

/** Every error this package throws: an Error with a stable string `code`. */
export class AgentReplayError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = "AgentReplayError";
    this.code = code;
    if (details.errors?.length) this.errors = details.errors;
  }
}

/** Calls into WebAssembly, turning its `{code, message}` errors into ours. */
export function call(fn) {
  try {
    return fn();
  } catch (e) {
    if (typeof e === "string" && e.startsWith("{")) {
      const wire = JSON.parse(e);
      throw new AgentReplayError(wire.code, wire.message, wire);
    }
    throw e;
  }
}

export function isBytes(input) {
  return input instanceof Uint8Array;
}

export function invalidInput(what, input) {
  const got = input === null ? "null" : Array.isArray(input) ? "array" : typeof input;
  return new AgentReplayError(
    "invalid_input",
    `${what}: expected a string or a Uint8Array, got ${got}`,
  );
}

const encoder = new TextEncoder();

/** A log input as bytes (strings are encoded once). */
export function toBytes(input, what) {
  if (typeof input === "string") return encoder.encode(input);
  if (isBytes(input)) return input;
  throw invalidInput(what, input);
}

/** One event as JSON text: an object is stringified, a string taken as is. */
export function eventText(event, what) {
  if (typeof event === "string") return event;
  if (event !== null && typeof event === "object" && !Array.isArray(event))
    return JSON.stringify(event);
  throw new AgentReplayError("invalid_input", `${what}: expected an event object or its JSON text`);
}
