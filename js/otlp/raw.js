// A walker over JSON text that keeps each value's text as written (the
// view keeps an event's JSON as the log wrote it: spacing, number
// spelling, key order), which JSON.parse would lose: the export copies
// that text into attributes. The same reads as the core's `view::raw`, so
// a field the core would not have found is not found here either.

/** The largest u64, where the export's sums and times saturate. */
export const U64_MAX = 2n ** 64n - 1n;

const isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

function skipSpace(text, i) {
  while (i < text.length && isSpace(text.charCodeAt(i))) i++;
  return i;
}

/** The index just past the string whose opening quote is at `i`. (From
 * quote to quote with indexOf, the engine's fast scan: a quote is the
 * string's end unless an odd number of backslashes precede it.) */
function stringEnd(text, i) {
  let quote = text.indexOf('"', i + 1);
  while (quote >= 0) {
    let k = quote - 1;
    while (k > i && text.charCodeAt(k) === 92) k--;
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** The index just past the value starting at `i`. */
function valueEnd(text, start) {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === 34) {
      i = stringEnd(text, i);
      if (depth === 0) return i;
      continue;
    }
    if (c === 123 || c === 91) depth++;
    else if (c === 125 || c === 93) {
      if (depth <= 1) return depth === 0 ? i : i + 1;
      depth--;
    } else if (depth === 0 && (c === 44 || isSpace(c))) return i;
    i++;
  }
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
