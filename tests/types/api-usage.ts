import { parseLog, rebuildOsSnapshot, SessionState, AgentReplayError, sampleLog, type OsSnapshot, type SessionView } from "../../js/index.js";
const parsed = parseLog(sampleLog(), { strict: false });
const snap: OsSnapshot = rebuildOsSnapshot(new Uint8Array(0));
const state = new SessionState("s").apply(parsed.events).apply("{}");
const view: SessionView = state.view();
const n: number = state.eventCount + state.revision + snap.page_in_count + view.event_count;
try { state.apply("x", { strict: true }); } catch (e) { if (e instanceof AgentReplayError) { const c: string = e.code; void c; } }
void n;
