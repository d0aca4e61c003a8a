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
// parsed, each once, and the members after the transcript are never
// scanned. The turns hold only the view's own structure, whose strings
// escape their quotes, so the member after them is found by its key with
// `indexOf`; the transcript is walked once, by bracket matching, to find its
// end and its raw values (tool calls' arguments, rollbacks' reasons).

import { AgentReplayError } from "../common.js";
import { stringEnd, valueEnd } from "../json-text.js";

/** What the comparison reads of a view, its transcript entries parsed,
 * each tool call with `rawArguments` and each rollback with `rawReason`
 * (`null`: none). */
export function readView(text) {
  const { spans, turns } = head(text);
  const parse = ([from, to]) => JSON.parse(text.slice(from, to));
  const turnsEnd = text.indexOf(',"transcript":', turns);
  const transcriptFrom = turnsEnd + ',"transcript":'.length;
  const { to, raws } = transcriptSpans(text, transcriptFrom);
  const transcript = parse([transcriptFrom, to]);
  addRawTexts(text, transcript, raws);
  return {
    event_count: parse(spans.get("event_count")),
    status: parse(spans.get("status")),
    total_tokens: parse(spans.get("total_tokens")),
    load_errors: JSON.parse(lastValue(text, "load_errors")),
    turns: parse([turns, turnsEnd]),
    transcript,
  };
}

/** The value of the view's last member, `key` (the core writes
 * `load_errors` last), found from the text's end: its value holds only the
 * view's own escaped strings, so the key's last occurrence is the member. */
function lastValue(text, key) {
  return text.slice(text.lastIndexOf(`"${key}":`) + key.length + 3, text.length - 1);
}

/** The view's members before `turns`, as `[from, to]` spans of their values
 * by key, and where the value of `turns` starts (not scanned: the member
 * after it is found by its key). */
function head(text) {
  const spans = new Map();
  let i = 1;
  while (text.charCodeAt(i) === QUOTE) {
    const keyEnd = stringEnd(text, i);
    const key = text.slice(i + 1, keyEnd - 1);
    if (key === "turns") return { spans, turns: keyEnd + 1 };
    const to = valueEnd(text, keyEnd + 1);
    spans.set(key, [keyEnd + 1, to]);
    i = to + 1;
  }
  throw new AgentReplayError("internal", "compareRuns: a view without turns");
}

/**
 * The transcript that starts at `from`: where it ends (`to`), and its raw
 * values (each tool call's `arguments`, each rollback's `reason`), as
 * `[entry, key, from, to]`: the entry's index, the member's key and the
 * span of its value. One pass of bracket matching, strings skipped by
 * `indexOf`; the raw values, which may hold whitespace, are skipped whole.
 */
function transcriptSpans(text, from) {
  const raws = [];
  let [depth, entry, i] = [0, -1, from];
  while (i < text.length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      const key = depth === 2 ? rawKey(text, i, end) : null;
      if (key === null) i = end;
      else {
        i = valueEnd(text, end + 1);
        raws.push([entry, key, end + 1, i]);
      }
      continue;
    }
    if (c === OPEN_OBJECT || c === OPEN_ARRAY) {
      if (++depth === 2) entry++;
    } else if ((c === CLOSE_OBJECT || c === CLOSE_ARRAY) && --depth === 0) break;
    i++;
  }
  return { to: i + 1, raws };
}

/** The key of an entry's member that may hold a raw value, if the string
 * from `start` to `end` is one. */
function rawKey(text, start, end) {
  const key = end - start === 11 ? "arguments" : end - start === 8 ? "reason" : null;
  if (key === null || text.charCodeAt(end) !== COLON) return null;
  return text.startsWith(key, start + 1) ? key : null;
}

/** Gives the parsed transcript `entries` their raw texts (`raws`, as
 * `transcriptSpans` finds them). */
function addRawTexts(text, entries, raws) {
  for (const [index, key, from, to] of raws) {
    const entry = entries[index];
    if (entry.type === "tool_call" && key === "arguments")
      entry.rawArguments = text.slice(from, to);
    else if (entry.type === "rollback" && key === "reason" && entry.reason !== null)
      entry.rawReason = text.slice(from, to);
  }
}

const [QUOTE, COLON] = [34, 58];
const [OPEN_OBJECT, CLOSE_OBJECT, OPEN_ARRAY, CLOSE_ARRAY] = [123, 125, 91, 93];
