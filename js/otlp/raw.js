// A walker over JSON text that keeps each value's text as written (the
// view keeps an event's JSON as the log wrote it: spacing, number
// spelling, key order), which JSON.parse would lose: the export copies
// that text into attributes. The same reads as the core's `view::raw`, so
// a field the core would not have found is not found here either.

import { isSpace, stringEnd, valueEnd } from "../json-text.js";

/** The largest u64, where the export's sums and times saturate. */
export const U64_MAX = 2n ** 64n - 1n;

function skipSpace(text, i) {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The members of the object or array `text` (`open`: "{" or "["), each
 * `{key, value}` as text (`key` with its quotes; `""` in an array), or
 * undefined when `text` is not one. */
export function items(text, open) {
  let i = skipSpace(text, 0);
  if (text[i] !== open) return undefined;
  const out = [];
  for (;;) {
    i = skipSpace(text, i + 1);
    if (i >= text.length || text[i] === "}" || text[i] === "]") return out;
    let key = "";
    if (open === "{") {
      const end = stringEnd(text, i);
      key = text.slice(i, end);
      i = skipSpace(text, skipSpace(text, end) + 1);
    }
    const end = valueEnd(text, i);
    out.push({ key, value: text.slice(i, end) });
    i = skipSpace(text, end);
  }
}

/** A JSON string's value, or undefined when `raw` is not a string. */
export function string(raw) {
  if (raw.length < 2 || raw[0] !== '"' || raw[raw.length - 1] !== '"') return undefined;
  const inner = raw.slice(1, -1);
  if (!inner.includes("\\")) return inner;
  try {
    return JSON.parse(raw);
  } catch {
    return undefined;
  }
}

const DIGITS = /^\+?[0-9]+$/;

/** A u64 (a BigInt) as the view writes it: a number, or a decimal string
 * beyond 2^53; undefined for anything else. */
export function unsigned(raw) {
  const text = DIGITS.test(raw) ? raw : string(raw);
  if (text === undefined || !DIGITS.test(text)) return undefined;
  const n = BigInt(text);
  return n <= U64_MAX ? n : undefined;
}

/** One object's members by key, as text: the last of a repeated key; a
 * missing one (or any, when `text` is no object) reads as `null`.
 * `isObject` tells whether it was one. */
export class Obj {
  constructor(text) {
    const fields = items(text, "{");
    this.isObject = fields !== undefined;
    this.fields = fields ?? [];
  }

  raw(key) {
    const quoted = `"${key}"`;
    for (let i = this.fields.length - 1; i >= 0; i--)
      if (this.fields[i].key === quoted) return this.fields[i].value;
    return "null";
  }
}
