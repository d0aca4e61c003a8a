// The parts of a session view's JSON text that run comparison reads, cut
// out of the text rather than parsed as a whole: a tool call's arguments
// (and a rollback's reason) are compared as the exact JSON text the log
// wrote (`{"a": 1}` and `{"a":1}` differ, as `1.0` and `1` do), which a
// parsed object no longer holds. The view's own structure is the compact
// JSON the core writes (no whitespace between its tokens); only the raw
// values it carries may hold whitespace, and only inside themselves.
//
// A view holds far more than the comparison reads (the model's calls, the
// kernel's observations...), so only the members it reads are found and
// parsed, each once: the leading ones by skipping the values before them
// (strings by `indexOf`, not character by character), the last one from the
// text's end; the members between are never scanned.

/** What the comparison reads of a view, its transcript entries parsed,
 * each tool call with `rawArguments` and each rollback with `rawReason`
 * (`null`: none). */
export function readView(text) {
  const at = leadingMembers(text, ["event_count", "status", "total_tokens", "turns", "transcript"]);
  const parse = (name) => JSON.parse(slice(text, at.get(name)));
  const transcript = parse("transcript");
  addRawTexts(text, at.get("transcript")[0], transcript);
  return {
    event_count: parse("event_count"),
    status: parse("status"),
    total_tokens: parse("total_tokens"),
    load_errors: JSON.parse(lastValue(text, "load_errors")),
    turns: parse("turns"),
    transcript,
  };
}

/** The value of the view's last member, `key` (the core writes
 * `load_errors` last), found from the text's end: its value holds only the
 * view's own escaped strings, so the key's last occurrence is the member. */
function lastValue(text, key) {
  return text.slice(text.lastIndexOf(`"${key}":`) + key.length + 3, text.length - 1);
}

/**
 * Gives the parsed transcript `entries` their raw texts, cut from the
 * transcript's text that starts at `from`. Only tool calls and rollbacks
 * carry raw values, so each is found from the end of the last raw value
 * cut by its opening (`{"type":"tool_call",`), which no other text between
 * can hold (a quote inside the view's own strings is escaped); the value's
 * key then comes at a fixed place among its entry's structured members.
 */
function addRawTexts(text, from, entries) {
  let cursor = from;
  const cut = (type, key) => {
    const entry = text.indexOf(`{"type":"${type}",`, cursor);
    const start = text.indexOf(`"${key}":`, entry) + key.length + 3;
    cursor = valueEnd(text, start);
    return text.slice(start, cursor);
  };
  for (const entry of entries) {
    if (entry.type === "tool_call") entry.rawArguments = cut("tool_call", "arguments");
    else if (entry.type === "rollback" && entry.reason !== null)
      entry.rawReason = cut("rollback", "reason");
  }
}

const slice = (text, [from, to]) => text.slice(from, to);

const [QUOTE, COMMA, BACKSLASH] = [34, 44, 92];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [123, 125, 91, 93];

/** The top-level members of the view by key, as `[from, to]` spans of their
 * values, up to the last of the `wanted` keys (the rest is not scanned). */
function leadingMembers(text, wanted) {
  const spans = new Map();
  let i = 1;
  while (text.charCodeAt(i) === QUOTE && !wanted.every((key) => spans.has(key))) {
    const keyEnd = stringEnd(text, i);
    const from = keyEnd + 1;
    const to = valueEnd(text, from);
    spans.set(text.slice(i + 1, keyEnd - 1), [from, to]);
    i = to + 1;
  }
  return spans;
}

/** The index just past the JSON value that starts at `start`. */
function valueEnd(text, start) {
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
    } else if (c === COMMA && depth === 0) return i;
    i++;
  }
  return i;
}

/** The index just past the JSON string whose opening quote is at `start`
 * (its end: the next quote not escaped by an odd run of backslashes). */
function stringEnd(text, start) {
  let quote = text.indexOf('"', start + 1);
  while (quote > 0) {
    let slashes = 0;
    while (text.charCodeAt(quote - 1 - slashes) === BACKSLASH) slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
