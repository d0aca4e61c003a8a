// The page's questions about the open log, answered from its backend
// (backend.js): the state at a position, the timeline's filter and rows,
// one event's details.
import {
  categoryOf,
  describeEvent,
  eventFacts,
  isAlarming,
  kernelFacetsOf,
} from "/agent-replay/js/viewer/describe.js";
import { backend, onReplace, post } from "./worker-session.js";
import { liveStatus } from "./worker-live.js";

/** The state as of position `p` (clamped to the log). */
function stateAt(p) {
  const end = backend().eventCount;
  const at = Math.max(0, Math.min(end, Math.round(p)));
  return { position: at, end, ...backend().stateAt(at) };
}

/** Posts the state at `p`, in answer to the page's request `seq`. */
export function sendState(p, seq) {
  post({ op: "state", seq, ...stateAt(p), gaps: backend().gaps, live: liveStatus() });
}

/** The positions the last filter passed (the rows the page asks for), of
 * the open log's backend: forgotten when a new source replaces it, so that
 * rows the page still asks of the last log's filter are none, not
 * positions the new log may not have. */
let filtered = new Int32Array(0);
onReplace(() => {
  filtered = new Int32Array(0);
});

/** Posts the positions passing the page's filter `msg`. */
export function postFiltered(msg) {
  filtered = backend()?.filter(msg) ?? new Int32Array(0);
  // A copy of its own, moved to the page rather than cloned again; the
  // events among them counted here (every gap is among them), not by
  // the page in a pass over millions of positions.
  const copy = filtered.slice();
  const events = filtered.length - (backend()?.gaps.length ?? 0);
  post({ op: "filtered", seq: msg.seq, positions: copy, events }, [copy.buffer]);
}

/** Posts the timeline rows `msg.start` to `msg.start + msg.count` of the last filter. */
export function postRows(msg) {
  post({
    op: "rows",
    seq: msg.seq,
    start: msg.start,
    rows: Array.from(filtered.subarray(msg.start, msg.start + msg.count), row),
  });
}

function row(position) {
  if (position < 0) {
    const gap = backend().gaps[-position - 1];
    return { gap: true, ...gap };
  }
  const e = backend().event(position);
  let parsed = null;
  try {
    parsed = JSON.parse(e.json);
  } catch {
    parsed = { kind: e.kind };
  }
  return {
    position,
    kind: e.kind,
    turn: e.turn,
    category: categoryOf(e.kind),
    label: describeEvent(parsed),
    alarming: isAlarming(parsed),
  };
}

/** The details pane of the event at `position`. */
export function detail(position) {
  const e = backend()?.event(position);
  if (!e) return { op: "detail", position, missing: true };
  let pretty = e.json;
  let facts = [];
  try {
    const parsed = JSON.parse(e.json);
    pretty = JSON.stringify(parsed, null, 2);
    facts = eventFacts(parsed);
  } catch {
    // keep the text as it is
  }
  return {
    op: "detail",
    position,
    kind: e.kind,
    turn: e.turn,
    category: categoryOf(e.kind),
    ...kernelFacetsOf(e.kind),
    facts,
    json: pretty,
  };
}
