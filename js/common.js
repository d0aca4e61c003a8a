// What every part of the JS API shares: the error class and the error
// table (from the core), the call into WebAssembly that turns its raw
// errors into it, the decoder of what WebAssembly sends back, and input
// normalisation.
import { fitsInput, errorCodes as rawErrorCodes, wasmMemory } from "../pkg/agent_replay.js";

/** The smallest module that uses a SIMD instruction (a function returning
 * `v128.const 0`): a host that validates it runs the package's .wasm. */
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 22, 1, 20, 0, 253, 12, 0, 0,
  0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 11,
]);

/** Throws `unsupported_host` unless the host's WebAssembly has SIMD
 * (simd128), before the .wasm is compiled and fails less clearly. */
export function assertSimd(validate = (bytes) => WebAssembly.validate(bytes)) {
  if (!validate(SIMD_PROBE))
    throw new AgentReplayError(
      "unsupported_host",
      "this host's WebAssembly lacks SIMD (simd128), which agent-replay needs: " +
        "Chrome 91+, Firefox 89+, Safari 16.4+, Node 16.4+, Deno 1.9+ and workerd have it",
    );
}

/** `init()` on a host whose entry loads the .wasm on import (Node, Deno,
 * workerd, `require`): nothing is left to load. Exported there too so that
 * code shared with browsers, where `init()` fetches the .wasm, runs as it is. */
export async function init() {}

/** Every error this package throws: an Error with a stable string `code`. */
export class AgentReplayError extends Error {
  constructor(code, message, details = {}) {
    super(message);
    this.name = "AgentReplayError";
    this.code = code;
    if (details.errors?.length) this.errors = details.errors;
  }
}

let table;

/** Every error code `{code, status, description}`: the core's table
 * (src/error.rs), read once from WebAssembly. */
export function errorCodes() {
  table ??= JSON.parse(rawErrorCodes());
  return table.map((row) => ({ ...row }));
}

let statusOf;

/** The HTTP status the edge handler answers an error code with (500 for a
 * code not in the table). */
export function httpStatusOf(code) {
  statusOf ??= new Map(errorCodes().map(({ code, status }) => [code, status]));
  return statusOf.get(code) ?? 500;
}

/** The bytes copying `input` into WebAssembly takes at least. */
function inputBytes(input) {
  return typeof input === "string" ? input.length : (input?.byteLength ?? 0);
}

/** The WebAssembly memory (one per instance, asked once). */
let memory;

/** Every memory buffer a view was made over (js/input.js): the memory
 * replaces its buffer as it grows, and a view of a former one is stale. */
const viewed = new WeakSet();

/** The WebAssembly memory's buffer now, for views of input buffers. */
export function packageBuffer() {
  memory ??= wasmMemory();
  viewed.add(memory.buffer);
  return memory.buffer;
}

/** Whether `bytes` views the package's memory, now or before it grew. */
export function viewsPackageMemory(bytes) {
  return viewed.has(bytes.buffer);
}

/** Whether the host refused to make a result into a string that long (Node:
 * ERR_STRING_TOO_LONG; browsers: a RangeError). */
function tooLongForString(e) {
  return (
    e?.code === "ERR_STRING_TOO_LONG" ||
    (e instanceof RangeError && /string length/i.test(e.message))
  );
}

/**
 * Calls into WebAssembly, turning its `{code, message}` errors into ours.
 * An `input` (a string or bytes the call copies in) that alone would pass
 * the memory budget is refused first (`limit_exceeded`): running out of
 * memory during the copy would trap the module. A result too long for a
 * JS string (a whole view of a log of several hundred MB) is
 * `limit_exceeded` too.
 */
export function call(fn, input) {
  try {
    if (isBytes(input) && viewsPackageMemory(input)) {
      throw new AgentReplayError(
        "invalid_input",
        "a view of WebAssembly memory (an InputBuffer's bytes) is taken only by rebuildOsSnapshot, SessionState.apply and SessionIndex.apply or write",
      );
    }
    if (input !== undefined) {
      const bytes = inputBytes(input);
      fitsInput(`an input of ${bytes} bytes`, bytes);
    }
    return fn();
  } catch (e) {
    if (typeof e === "string" && e.startsWith("{")) {
      const wire = JSON.parse(e);
      throw new AgentReplayError(wire.code, wire.message, wire);
    }
    if (tooLongForString(e))
      throw new AgentReplayError(
        "limit_exceeded",
        `the result is too long for a string: ${e.message}`,
      );
    throw e;
  }
}

/**
 * Reads the one wire format of events from WebAssembly (wasm/src/wire.rs):
 * `{header}\n[value, ..., length, ...]\ntexts`, `width` values per event,
 * the last the length of its text (in UTF-16 units; the texts concatenated).
 * `make(values, i, json, header)` builds each event from `values[i..]`;
 * returns `{header, events}`.
 */
export function decodeEvents(wire, width, make) {
  const a = wire.indexOf("\n");
  const b = wire.indexOf("\n", a + 1);
  const header = JSON.parse(wire.slice(0, a));
  const values = JSON.parse(wire.slice(a + 1, b));
  const events = new Array(values.length / width);
  for (let i = 0, at = b + 1; i < values.length; i += width) {
    const end = at + values[i + width - 1];
    events[i / width] = make(values, i, wire.slice(at, end), header);
    at = end;
  }
  return { header, events };
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
