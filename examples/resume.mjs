// Resuming after a disconnect, as in docs/live-replay.md (run by npm test).
import { ReplaySession, SessionState } from "agent-replay";

// Server: one handle per session, fed by the agent runtime. A tiny buffer
// (3 events) so that the second disconnect below outlasts it.
const session = new ReplaySession("run-42", { maxEventsPerSession: 3 });

// Client: connects before the run starts, keeps its folded state and cursor.
const client = new SessionState("run-42");
let { cursor } = session.observe();

function catchUp() {
  const r = session.resume(cursor);
  if (r.type === "replayed") {
    for (const e of r.events) client.apply(e.json); // exactly the missed events, in order
    cursor = r.cursor;
    return `replayed ${r.events.length}`;
  }
  // A gap is never a silent hole: the client gets the full observation.
  cursor = r.observation.cursor;
  return `gap (${r.gap.reason}): observation with ${r.observation.state.event_count} events`;
}

session.append({ kind: "run_started", run_id: "run-42", goal: "triage a flaky test" });
session.append([
  { kind: "page_out", turn: 1 },
  { kind: "page_in", turn: 1, entry_count: 2 },
]);
console.log(catchUp()); // replayed 3
console.log(client.eventCount === session.observe().state.event_count); // true

for (let turn = 2; turn <= 6; turn++) session.append({ kind: "page_out", turn });
console.log(catchUp()); // gap (trimmed): observation with 8 events
console.log(cursor === session.observe().cursor); // true
