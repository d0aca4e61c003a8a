// Real work through the installed package, on whichever runtime imports it:
// rebuild the sample's snapshot, append and replay after a cursor.
import { rebuildOsSnapshot, sampleLog, ReplayStore, SessionState } from "agent-replay";

export function work() {
  const snapshot = rebuildOsSnapshot(sampleLog());
  const store = new ReplayStore({ incarnation: "pkg" });
  const first = store.append("s", { kind: "page_in", turn: 1, entry_count: 1 });
  store.append("s", '{"kind":"page_out","turn":2}');
  const replay = store.replayAfter(first.cursor);
  const view = new SessionState("s").apply(sampleLog()).view();
  return {
    processes: snapshot.process_by_agent.map((p) => `${p.agent_id}:${p.state}`).join(","),
    replayed: replay.events.map((e) => `${e.position}:${e.event.kind}`).join(","),
    status: view.status.state,
  };
}

export const EXPECTED = {
  processes: "bisect-1:joined,log-miner-1:cancelled",
  replayed: "2:page_out",
  status: "terminal",
};
