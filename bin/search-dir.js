// Search across the runs of a followed directory (`GET /api/search?q=`):
// every session's file is read as a stream and each event whose text holds
// the query is answered with its session, its position (what the
// viewer's deep link `#at=` takes) and the line. Bounded: at most `limit`
// matches and `maxMs` of scanning; an answer cut short says so.
//
// The case rule is the viewer's (js/viewer/text-search.js), and the events
// and their positions are the core's reader's, as the viewer reads the file:
// a match's deep link lands on the event that holds it.
import { createReadStream } from "node:fs";
import { queryPattern } from "../js/viewer/text-search.js";
import { StoredEntryReader } from "../js/node.js";
import { lightReader } from "./follow-dir.js";

/** Matches answered by default, and at most. */
export const SEARCH_LIMIT = 100;
const MAX_LIMIT = 1000;
/** Scanning stops after this long; the answer says it was cut short. */
const SEARCH_MS = 5000;
/** Characters of a matching line answered on each side of the match. */
const CONTEXT_CHARS = 80;
/** The longest query taken. */
const MAX_QUERY = 1000;

/** The part of `text` around `index`, with `…` where it was cut. */
function excerpt(text, index, length) {
  const start = Math.max(0, index - CONTEXT_CHARS);
  const end = Math.min(text.length, index + length + CONTEXT_CHARS);
  return `${start > 0 ? "…" : ""}${text.slice(start, end)}${end < text.length ? "…" : ""}`;
}

/**
 * The events of the first `bytes` of `path`, `{position, json}` each, as
 * the viewer reads the file, so positions are the viewer's. A file of
 * stored entries none of whose lines the reader rejected (`clean`: its
 * row has no load error) is read by the core's entry reader, which takes
 * each event's text without parsing the event; any other by the core's
 * reader and a fold that keeps the summary only, which skips what the
 * viewer skips.
 */
async function* eventsOf(path, bytes, clean) {
  if (bytes <= 0) return;
  let read;
  let position = 0;
  const found = [];
  for await (const chunk of createReadStream(path, { start: 0, end: bytes - 1 })) {
    read ??= clean && startsEntries(chunk) ? entryRead() : foldRead();
    read.write(chunk, (json) => found.push({ position: ++position, json }));
    yield* found.splice(0);
  }
  read?.end((json) => found.push({ position: ++position, json }));
  yield* found.splice(0);
}

const startsEntries = (chunk) => chunk.subarray(0, 7).toString() === '{"seq":';

/** Reads stored entries: `write(chunk, take)` and `end(take)` hand each event's text to `take`. */
function entryRead() {
  const reader = new StoredEntryReader();
  const each = (take) => (entry) => take(entry.text);
  return {
    write: (chunk, take) => reader.write(chunk).entries.forEach(each(take)),
    end: (take) => {
      reader.end().entries.forEach(each(take));
      reader.free();
    },
  };
}

/** Reads any log as the viewer does, folding the summary only. */
function foldRead() {
  const state = lightReader();
  return {
    write: (chunk, take) => state.write(chunk, { onEvent: (e) => take(e.json) }),
    end: (take) => {
      state.end({ onEvent: (e) => take(e.json) });
      state.free();
    },
  };
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
  const pattern = queryPattern(query);
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
    const clean = (file.summary?.errors.load_errors ?? 1) === 0;
    try {
      for await (const { position, json } of eventsOf(file.path, file.complete, clean)) {
        if (position % 1024 === 0 && Date.now() > deadline) {
          timedOut = true;
          break scan;
        }
        const found = pattern.exec(json);
        if (!found) continue;
        matches.push({
          session_id: file.id,
          position,
          text: excerpt(json, found.index, found[0].length),
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
