// The parts of a session view's JSON text that run comparison reads, cut
// out of the text rather than parsed as a whole: a tool call's arguments
// (and a rollback's reason) are compared as the exact JSON text the log
// wrote (`{"a": 1}` and `{"a":1}` differ, as `1.0` and `1` do), which a
// parsed object no longer holds. The view's own structure is the compact
// JSON the core writes (no whitespace between its tokens); only the raw
// values it carries may hold whitespace, and only inside themselves.

/** What the comparison reads of a view, its transcript entries parsed,
 * each tool call with `rawArguments` and each rollback with `rawReason`
 * (`null`: none). */
export function readView(text) {
  const at = members(text, 0);
  const parse = (name) => JSON.parse(slice(text, at.get(name)));
  return {
    event_count: parse("event_count"),
    status: parse("status"),
    total_tokens: parse("total_tokens"),
    load_errors: parse("load_errors"),
    turns: parse("turns"),
    transcript: elements(text, at.get("transcript")).map((span) => entry(text, span)),
  };
}

/** One transcript entry, with its raw texts where the comparison reads them. */
function entry(text, span) {
  const value = JSON.parse(slice(text, span));
  if (value.type === "tool_call")
    value.rawArguments = slice(text, members(text, span[0]).get("arguments"));
  if (value.type === "rollback" && value.reason !== null)
    value.rawReason = slice(text, members(text, span[0]).get("reason"));
  return value;
}

const slice = (text, [from, to]) => text.slice(from, to);

/** An object's members by key, as `[from, to]` spans of their values (the
 * object opening at `start`). */
function members(text, start) {
  const spans = new Map();
  let i = start + 1;
  while (text[i] === '"') {
    const keyEnd = stringEnd(text, i);
    const from = keyEnd + 1;
    const to = valueEnd(text, from);
    spans.set(text.slice(i + 1, keyEnd - 1), [from, to]);
    i = to + 1;
  }
  return spans;
}

/** An array's elements as `[from, to]` spans (the array at `span`). */
function elements(text, [from, to]) {
  const spans = [];
  let i = from + 1;
  while (i < to - 1) {
    const end = valueEnd(text, i);
    spans.push([i, end]);
    i = end + 1;
  }
  return spans;
}

/** The index just past the JSON value that starts at `start`. */
function valueEnd(text, start) {
  let depth = 0;
  let i = start;
  while (i < text.length) {
    const c = text[i];
    if (c === '"') i = stringEnd(text, i);
    else if (c === "{" || c === "[") {
      depth++;
      i++;
      continue;
    } else if (c === "}" || c === "]") {
      if (depth === 0) return i;
      depth--;
      i++;
    } else if (c === "," && depth === 0) return i;
    else {
      i++;
      continue;
    }
    if (depth === 0) return i;
  }
  return i;
}

/** The index just past the JSON string whose opening quote is at `start`
 * (its end: the next quote not escaped by an odd run of backslashes). */
function stringEnd(text, start) {
  let quote = text.indexOf('"', start + 1);
  while (quote > 0) {
    let slashes = 0;
    while (text[quote - 1 - slashes] === "\\") slashes++;
    if (slashes % 2 === 0) return quote + 1;
    quote = text.indexOf('"', quote + 1);
  }
  return text.length;
}
