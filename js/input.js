// Input buffers: the bytes of an input written by the caller straight into
// WebAssembly memory, where the call that takes them reads or keeps them,
// so they cross once (wasm/src/input.rs). A view of that memory is valid
// until the next call into the package: any call may grow the memory,
// which detaches every view of it. So views are made fresh (`bytes`), and
// a view of the package's memory is taken only as a live buffer's own
// bytes; a stale or stray one is `invalid_input`, never read as an empty
// or a wrong input (common.js's `call` refuses it where bytes are copied).
import * as raw from "../pkg/agent_replay.js";
import { AgentReplayError, call, packageBuffer, viewsPackageMemory } from "./common.js";

/** Live buffers by address, weakly: one collected was freed with its core,
 * and its address may be reused. */
const live = new Map();

function misused(what, why) {
  return new AgentReplayError("invalid_input", `${what}: ${why}`);
}

/** The live buffer a view starts, used up now (undefined when the view is
 * stale or stray: `inputCall` says which); set by InputBuffer, which alone
 * reads its core. */
let takeBuffer;

/** Largest capacity: lengths cross as u32. */
const MAX_CAPACITY = 2 ** 32 - 1;

/**
 * Bytes allocated in WebAssembly memory for one input, which the caller
 * fills through `bytes` and hands to a function that takes bytes
 * (`rebuildOsSnapshot`, `SessionState.apply`, `SessionIndex.apply` or
 * `write`) as `bytes` or `bytes.subarray(0, n)`: the function takes them
 * where they lie, with no copy, and the buffer is used up.
 */
export class InputBuffer {
  #core;
  /** Where its bytes lie in the memory (fixed: the core never moves them). */
  #ptr;

  constructor(capacity) {
    if (!Number.isInteger(capacity) || capacity < 1 || capacity > MAX_CAPACITY) {
      throw misused(
        "allocInput",
        `capacity must be a whole number of bytes from 1 to ${MAX_CAPACITY}`,
      );
    }
    this.#core = call(() => new raw.InputBufferCore(capacity));
    this.capacity = capacity;
    this.#ptr = this.#core.ptr;
    live.set(this.#ptr, new WeakRef(this));
  }

  /** A view of the buffer's bytes, valid until the next call into the
   * package (take it again after any). */
  get bytes() {
    if (!this.#core) throw misused("InputBuffer", "used after it was taken or freed");
    return new Uint8Array(packageBuffer(), this.#ptr, this.capacity);
  }

  static {
    takeBuffer = (view) => {
      const owner =
        view.buffer === packageBuffer() ? live.get(view.byteOffset)?.deref() : undefined;
      const core = owner?.#core;
      owner?.#forget();
      return core;
    };
  }

  #forget() {
    if (live.get(this.#ptr)?.deref() === this) live.delete(this.#ptr);
    this.#core = undefined;
  }

  /** Frees a buffer not handed to a call. */
  free() {
    this.#core?.free();
    this.#forget();
  }
}

/** Allocates an input buffer of `capacity` bytes (within the memory limit). */
export function allocInput(capacity) {
  return new InputBuffer(capacity);
}

/**
 * Calls `fn(core, len)` with the input buffer `view` starts and the length
 * it views, when `view` is a view of the package's memory (returns
 * `{value}`); returns undefined for bytes of their own. The buffer is used
 * up, even when the call fails.
 */
export function inputCall(view, what, fn) {
  if (!(view instanceof Uint8Array) || !viewsPackageMemory(view)) return undefined;
  const core = takeBuffer(view);
  if (!core) {
    throw misused(
      what,
      view.buffer.byteLength === 0
        ? "a view of WebAssembly memory made before the memory grew: take input.bytes again after each call into the package"
        : "a view of WebAssembly memory that does not start a live InputBuffer (allocInput)",
    );
  }
  try {
    return { value: call(() => fn(core, view.byteLength)) };
  } finally {
    core.free();
  }
}
