// Ends of JSON values in a text, for the readers that keep a value's text
// as written rather than parse it (JSON.parse loses spacing, number
// spelling and key order): the OTLP export's walker (otlp/raw.js) and run
// comparison's view reader (compare/view-text.js).

const [QUOTE, BACKSLASH] = [34, 92];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY, COMMA] = [123, 125, 91, 93, 44];

/** Whether the character code `c` is JSON whitespace. */
export const isSpace = (c) => c === 32 || c === 9 || c === 10 || c === 13 || c === 12;

/** The index just past the string whose opening quote is at `start`. (From
 * quote to quote with indexOf, the engine's fast scan: a quote is the
 * string's end unless an odd number of backslashes precede it.) */
export function stringEnd(text, start) {
  let quote = text.indexOf('"', start + 1);
  while (quote >= 0) {
    let k = quote - 1;
    while (k > start && text.charCodeAt(k) === BACKSLASH) k--;
    if ((quote - 1 - k) % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}

/** The index just past the value starting at `start`: a string, a bracketed
 * value, or a scalar up to the comma, whitespace or bracket after it. */
export function valueEnd(text, start) {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      i = stringEnd(text, i);
      if (depth === 0) return i;
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) depth++;
    else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      if (depth === 0) return i;
      if (--depth === 0) return i + 1;
    } else if (depth === 0 && (c === COMMA || isSpace(c))) return i;
    i++;
  }
  return i;
}
