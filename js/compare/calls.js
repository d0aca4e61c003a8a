// A turn's transcript entries as run comparison reads them (its calls, its
// goal and messages, its suspensions, resumptions and rollbacks), and the
// alignment of two turns' calls.

/** A tool call's name; a result whose call was never seen goes by its id. */
export const label = (call) => call.name ?? call.call_id;

export const output = (call) => call.result?.output ?? null;

/** The result's event, else the call's. */
export const resultPosition = (call) => call.result?.position ?? call.position;

/** How the call went wrong, if it did: denied, gated, failed (fatal, of
 * which kind); `null` if it did not. */
export function callError(call) {
  const parts = [];
  if (call.denied !== null) parts.push(`denied: ${call.denied}`);
  if (call.gated !== null) parts.push(`gated: ${call.gated}`);
  const r = call.result;
  if (r?.is_error) {
    const fatal = r.is_fatal ? "fatal error" : "error";
    parts.push(r.error_kind === null ? fatal : `${fatal}: ${r.error_kind}`);
  }
  return parts.length ? parts.join("; ") : null;
}

/** The `(life, turn)` key of a turn or entry, for maps. */
export const keyOf = (life, turn) => `${life}:${turn}`;

/**
 * The transcript's entries grouped by turn, in log order: by each turn's
 * index in the view's `turns` (`index`: key → that index; there are `count`
 * turns). Each turn: `calls`; `marks` (suspensions, resumptions and
 * rollbacks as `{position, text}`, described without call ids, which differ
 * between runs); `messages` (the goal and the assistant messages' texts);
 * `assistant` (the first assistant message's position, or `null`).
 */
export function entriesByTurn(transcript, index, count) {
  const turns = Array.from({ length: count }, () => ({
    calls: [],
    marks: [],
    messages: [],
    assistant: null,
  }));
  // Entries come turn by turn: the turn is looked up when it changes. A
  // goal's turn is turn 0 of its life, where a run starts.
  let [life, turn, at] = [null, null, undefined];
  for (const entry of transcript) {
    const entryTurn = entry.type === "goal" ? 0 : entry.turn;
    if (entry.life !== life || entryTurn !== turn) {
      [life, turn] = [entry.life, entryTurn];
      at = turns[index.get(keyOf(life, turn))];
    }
    if (at !== undefined) place(at, entry);
  }
  return turns;
}

/** Puts a transcript entry in its turn `at`. */
function place(at, entry) {
  const placed = (text) => ({ position: entry.position, text });
  switch (entry.type) {
    case "tool_call":
      at.calls.push(entry);
      break;
    case "assistant":
      at.assistant ??= entry.position;
      at.messages.push(placed(entry.text));
      break;
    case "goal":
      at.messages.push(placed(`goal: ${entry.text}`));
      break;
    case "suspended":
      at.marks.push(placed(`suspended: ${entry.reason}`));
      break;
    case "resumed":
      at.marks.push(
        placed(`resumed: ${entry.approved.length} approved, ${entry.denied.length} denied`),
      );
      break;
    case "rollback": {
      const why = entry.rawReason === undefined ? "" : ` (${entry.rawReason})`;
      at.marks.push(placed(`rolled back to history ${entry.checkpoint_history_len}${why}`));
      break;
    }
  }
}

/** How far ahead a call's tool is looked for on the other side: an extra
 * call is recognised when the other side's call comes again within this
 * many, and the alignment stays linear in a turn of many calls. */
const LOOKAHEAD = 32;

/**
 * Aligns two turns' calls in order: calls of the same tool pair up; where
 * the tools differ, a call whose tool the other side has a little later is
 * extra on that side (the nearer such match wins), else the two pair up as
 * different calls. Each step: `pairing` ("both", "a" or "b": the sides with
 * a call) and the calls' indexes `a` and `b` (on the side without a call,
 * the index of its next call, which may be past the end).
 */
export function alignCalls(a, b) {
  const steps = [];
  let [i, j] = [0, 0];
  while (i < a.length || j < b.length) {
    const pairing = pairingAt(a, i, b, j);
    steps.push({ pairing, a: i, b: j });
    if (pairing !== "b") i++;
    if (pairing !== "a") j++;
  }
  return steps;
}

/** Which sides of the step at `a[i]`, `b[j]` have a call. */
function pairingAt(a, i, b, j) {
  const [x, y] = [a[i], b[j]];
  if (y === undefined) return "a";
  if (x === undefined) return "b";
  if (label(x) === label(y)) return "both";
  const [toX, toY] = [distance(x, b, j), distance(y, a, i)];
  if (toX === null) return toY === null ? "both" : "a";
  return toY === null || toX <= toY ? "b" : "a";
}

/** How many calls after `from` the list next calls the tool of `call`
 * (within `LOOKAHEAD`), or `null`. */
function distance(call, list, from) {
  const ahead = list.slice(from + 1, from + 1 + LOOKAHEAD);
  const found = ahead.findIndex((c) => label(c) === label(call));
  return found === -1 ? null : found;
}
