// Search across the runs of a followed directory (`GET /api/search?q=`):
// every session's file is read as a stream of lines and each event whose
// text holds the query is answered with its session, its position (what the
// viewer's deep link `#at=` takes) and the line. Bounded: at most `limit`
// matches and `maxMs` of scanning; an answer cut short says so.
//
// The case rule is `toLowerCase` on both sides, one code unit for one: the
// viewer's own search is being moved to Unicode case-insensitive matching,
// and this follows it once that lands.
import { createReadStream } from "node:fs";

/** Matches answered by default, and at most. */
export const SEARCH_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Scanning stops after this long; the answer says it was cut short. */
const SEARCH_MS = 5000;
/** Characters of a matching line answered on each side of the match. */
const CONTEXT_CHARS = 80;
/** The longest query taken. */
const MAX_QUERY = 1000;

/** The event's own text in a stored entry `{"seq":N,"event":{…}}`, else the line. */
function eventText(line) {
  const at = line.indexOf('"event":');
  return line.startsWith('{"seq":') && at > 0 ? line.slice(at + 8, -1) : line;
}

/** The part of `text` around `index`, with `…` where it was cut. */
function excerpt(text, index, length) {
  const start = Math.max(0, index - CONTEXT_CHARS);
  const end = Math.min(text.length, index + length + CONTEXT_CHARS);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/**
 * The lines of the first `bytes` of `path`, each with its event position:
 * blank lines are not events. A file whose reader rejected lines (its row's
 * `load_errors`) counts only lines that parse as JSON, as the reader skips
 * the rest; a line that parses and is still refused may shift later positions.
 */
async function* eventLines(path, bytes, strict) {
  if (bytes <= 0) return;
  const stream = createReadStream(path, { start: 0, end: bytes - 1, encoding: "utf8" });
  let rest = "";
  let position = 0;
  const take = function* (line) {
    const text = line.endsWith("\r") ? line.slice(0, -1) : line;
    if (!text.trim()) return;
    if (strict) {
      try {
        JSON.parse(text);
      } catch {
        return;
      }
    }
    position += 1;
    yield { position, text };
  };
  for await (const chunk of stream) {
    const lines = (rest + chunk).split("\n");
    rest = lines.pop();
    for (const line of lines) yield* take(line);
  }
  yield* take(rest);
}

/** The query and limit a request asks, or an error message. */
export function searchRequest(params) {
  const query = params.get("q") ?? "";
  const limit = params.has("limit") ? Number(params.get("limit")) : SEARCH_LIMIT;
  if (!query.trim()) return { error: "q: a text to search for is required" };
  if (query.length > MAX_QUERY) return { error: `q: at most ${MAX_QUERY} characters` };
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    return { error: `limit: a whole number from 1 to ${MAX_LIMIT}` };
  return { query, limit };
}

/**
 * Searches the followed files (`follower.files()`), most recently written
 * first, for `query`. Resolves to `{query, matches: [{session_id,
 * position, text}], sessions_searched, truncated, timed_out}`.
 */
export async function searchFiles(files, query, { limit = SEARCH_LIMIT, maxMs = SEARCH_MS } = {}) {
  const needle = query.toLowerCase();
  const deadline = Date.now() + maxMs;
  const matches = [];
  let searched = 0;
  let timedOut = false;
  const ordered = [...files].sort((a, b) => b.mtimeMs - a.mtimeMs);
  scan: for (const file of ordered) {
    if (Date.now() > deadline) {
      timedOut = true;
      break;
    }
    searched += 1;
    const strict = (file.summary?.errors.load_errors ?? 0) > 0;
    try {
      for await (const { position, text } of eventLines(file.path, file.complete, strict)) {
        if (position % 1024 === 0 && Date.now() > deadline) {
          timedOut = true;
          break scan;
        }
        const event = eventText(text);
        const index = event.toLowerCase().indexOf(needle);
        if (index < 0) continue;
        matches.push({
          session_id: file.id,
          position,
          text: excerpt(event, index, needle.length),
        });
        if (matches.length >= limit) break scan;
      }
    } catch {
      // A file gone or unreadable since it was listed: its row says why.
    }
  }
  const truncated = matches.length >= limit;
  return { query, matches, sessions_searched: searched, truncated, timed_out: timedOut };
}
