// Deterministic trace and span ids: the same log gives the same trace, so
// an export can be repeated, diffed and re-sent without duplicating
// spans. The trace id is a hash of the session id and the run id; a span
// id a hash of the trace's key, the span's role and the position of the
// event it starts from (and, for a tool call, the call id). The hash is
// fixed: ids are the same as every earlier version's.

const MASK = 2n ** 64n - 1n;
const FNV_PRIME = 0x100000001b3n;
const utf8 = new TextEncoder();

/** FNV-1a over `parts` (byte arrays, each followed by a 0xff byte), then
 * the SplitMix64 finalizer so that nearby inputs spread over all 64 bits. */
function hash64(seed, parts) {
  let h = 0xcbf29ce484222325n ^ seed;
  for (const part of parts) {
    for (const b of part) h = ((h ^ BigInt(b)) * FNV_PRIME) & MASK;
    h = ((h ^ 0xffn) * FNV_PRIME) & MASK;
  }
  h ^= h >> 30n;
  h = (h * 0xbf58476d1ce4e5b9n) & MASK;
  h ^= h >> 27n;
  h = (h * 0x94d049bb133111ebn) & MASK;
  return h ^ (h >> 31n);
}

/** 16 lowercase hex digits; an all-zero id is invalid in OTLP, so never 0. */
const hex = (h) => (h === 0n ? 1n : h).toString(16).padStart(16, "0");

/** A u64 as its 8 little-endian bytes. */
function littleEndian(value) {
  const bytes = new Uint8Array(8);
  new DataView(bytes.buffer).setBigUint64(0, value, true);
  return bytes;
}

export class Ids {
  #key;

  /** Ids keyed by the session id and the run id (either may be empty). */
  constructor(sessionId, runId) {
    this.#key = utf8.encode(`${sessionId}\u0000${runId}`);
    // (The first half may be zero: the whole id is not.)
    const high = hash64(1n, [this.#key]).toString(16).padStart(16, "0");
    this.traceId = high + hex(hash64(2n, [this.#key]));
  }

  /** The span of `role` starting at `position` (a BigInt), told apart by
   * `extra` where one position starts several. */
  spanId(role, position, extra) {
    const parts = [this.#key, utf8.encode(role), littleEndian(position), utf8.encode(extra)];
    return hex(hash64(3n, parts));
  }
}
