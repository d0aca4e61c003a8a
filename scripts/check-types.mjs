#!/usr/bin/env node
// Checks js/index.d.ts against the Rust types: JSON produced by the Rust
// code (examples/type_fixtures.rs) is written into a TypeScript file as
// typed literals and compiled with tsc. Excess-property checks catch a Rust
// field the declarations lack; required properties catch a declared field
// Rust does not write; literal unions catch enum drift.
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const fixtures = JSON.parse(
  execFileSync("cargo", ["run", "-q", "--example", "type_fixtures"], {
    cwd: root,
    encoding: "utf8",
  }),
);
const dir = join(root, "tests/types");
mkdirSync(dir, { recursive: true });
const lit = (v) => JSON.stringify(v, null, 1);
const body = [
  `import type { SessionEvent, SessionView, SessionSummary, OsSnapshot, GapItem, Observation } from "../../js/index.js";`,
  ...fixtures.events.map((e, i) => `export const event${i}: SessionEvent = ${lit(e)};`),
  ...fixtures.views.map((v, i) => `export const view${i}: SessionView = ${lit(v)};`),
  ...fixtures.snapshots.map((s, i) => `export const snapshot${i}: OsSnapshot = ${lit(s)};`),
  ...fixtures.gaps.map((g, i) => `export const gap${i}: GapItem = ${lit(g)};`),
  ...fixtures.observations.map((o, i) => `export const observation${i}: Observation = ${lit(o)};`),
  ...fixtures.summaries.map((o, i) => `export const summary${i}: SessionSummary = ${lit(o)};`),
].join("\n");
writeFileSync(join(dir, "generated.ts"), `${body}\n`);
writeFileSync(join(dir, "api-usage.ts"), API_USAGE());
execFileSync(
  join(root, "node_modules/.bin/tsc"),
  [
    "--noEmit",
    "--strict",
    "--exactOptionalPropertyTypes",
    "--target",
    "es2022",
    "--module",
    "nodenext",
    "--moduleResolution",
    "nodenext",
    "--lib",
    "es2022,esnext.disposable,dom",
    "--types",
    "node",
    join(dir, "generated.ts"),
    join(dir, "api-usage.ts"),
  ],
  { cwd: root, stdio: "inherit" },
);
console.log(
  `types: ${fixtures.events.length} events, ${fixtures.views.length} views, ${fixtures.snapshots.length} snapshots, ${fixtures.gaps.length} gap, ${fixtures.observations.length} observation check against js/index.d.ts`,
);
console.log(`1 passed, 0 failed`);

function API_USAGE() {
  return `import { parseLog, rebuildOsSnapshot, SessionState, AgentReplayError, sampleLog, ReplayStore, ReplaySession, memoryUsage, type ObservedEvent, type OsSnapshot, type SessionView } from "../../js/index.js";
import { createReplayHandler, bearerTokens } from "../../js/edge.js";
import { chartSeries, describeEvent, type SessionViewer } from "../../js/viewer/index.js";
const parsed = parseLog(sampleLog(), { strict: false });
const snap: OsSnapshot = rebuildOsSnapshot(new Uint8Array(0));
const state = new SessionState("s").apply(parsed.events).apply("{}");
const store = new ReplayStore({ maxEventsPerSession: 8, now: () => 0 });
const observed: ObservedEvent = store.append("s", parsed.events[0]!);
const r = store.replayAfter(observed.cursor);
if (r.type === "replayed") { const k: string = r.events[0]!.event.kind; void k; } else { const g: "trimmed" | "unavailable" = r.reason; void g; }
const session = new ReplaySession("s", { store });
const resumed = session.resume(session.observe().cursor);
if (resumed.type === "gap") { const c: string = resumed.observation.cursor; void c; }
const usage: number = memoryUsage().allocated_bytes;
void usage;
const handler = createReplayHandler({ authorize: bearerTokens({ t: ["s"], ops: "*" }), storeOptions: { maxEventsPerSession: 4 }, maxBodyBytes: 1024 });
const response: Promise<Response> = handler(new Request("http://localhost/sessions/s"));
void response;
const view: SessionView = state.view();
const restored = SessionState.fromObservation(session.observe()).checkpoint();
state.write("{}", { onEvent: (e) => { const p: number = e.position; const t: number | null = e.turn; void p; void t; } });
const ended: number = state.end({ onEvent: (e) => void e.json }).events + restored.summary().event_count;
void ended;
const viewer = document.createElement("agent-session-viewer") as SessionViewer;
viewer.data = { view, snapshot: snap, summary: state.summary(), at: 3, series: chartSeries(view), earlier: 0 };
const label: string = describeEvent(parsed.events[0]!);
void label;
const n: number = state.eventCount + state.revision + snap.page_in_count + view.event_count;
try { state.apply("x", { strict: true }); } catch (e) { if (e instanceof AgentReplayError) { const c: string = e.code; void c; } }
void n;
`;
}
