#!/usr/bin/env node
// Checks js/index.d.ts against the Rust types: JSON produced by the Rust
// code (examples/type_fixtures.rs), and by the JS layered on it (the OTLP
// export, js/otlp/; run comparison, js/compare/), is written into a
// TypeScript file as typed literals and compiled with tsc. Excess-property checks catch a Rust
// field the declarations lack; required properties catch a declared field
// Rust does not write; literal unions catch enum drift.
import { execFileSync, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { compareRuns, sampleLog, toOtlp } from "../js/node.js";

const root = new URL("..", import.meta.url).pathname;
const fixtures = JSON.parse(
  execFileSync("cargo", ["run", "-q", "--example", "type_fixtures"], {
    cwd: root,
    encoding: "utf8",
  }),
);
// The OTLP export is built in JS (js/otlp/), from the sample and from a
// workflow (its sub-agents' links), with and without content.
const workflow = readFileSync(join(root, "tests/corpus/deepstrike-0.2.77/workflow.jsonl"), "utf8");
fixtures.otlp = [
  toOtlp(sampleLog(), { sessionId: "fixture" }),
  toOtlp(sampleLog(), { sessionId: "fixture", content: true }),
  toOtlp(workflow, { sessionId: "fixture", content: true }),
];
// Under target/: generated, and outside what Biome checks.
const dir = join(root, "target/types");
mkdirSync(dir, { recursive: true });
const lit = (v) => JSON.stringify(v, null, 1);
// One check per fixture, each a typed constant; the API usage is one more.
const checks = [
  ...named("event", "SessionEvent", fixtures.events),
  ...named("view", "SessionView", fixtures.views),
  ...named("snapshot", "OsSnapshot", fixtures.snapshots),
  ...named("gap", "GapItem", fixtures.gaps),
  ...named("observation", "Observation", fixtures.observations),
  ...named("summary", "SessionSummary", fixtures.summaries),
  ...named("otlp", "OtlpTrace", fixtures.otlp),
  ...named("comparison", "RunComparison", comparisons()),
];
// The kind union of the .d.ts against the Rust kind table, both ways.
checks.push(
  { name: "kindTable", type: "readonly KindInfo[]", value: fixtures.kinds, asConst: true },
  {
    name: "kindUnionIsTheTable",
    type: 'SameKinds<(typeof kindTable)[number]["kind"], EventKind>',
    value: true,
  },
);
const header = [
  `import type { SessionEvent, SessionView, SessionSummary, OsSnapshot, GapItem, Observation, EventKind, KindInfo, OtlpTrace, RunComparison } from "../../js/index.js";`,
  "type SameKinds<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;",
].join("\n");
// The lines each check spans in generated.ts, to charge each error to one.
let line = 3;
const lines = [header];
for (const c of checks) {
  c.first = line;
  const text = c.asConst
    ? `export const ${c.name} = ${lit(c.value)} as const satisfies ${c.type};`
    : `export const ${c.name}: ${c.type} = ${lit(c.value)};`;
  lines.push(text);
  line += text.split("\n").length;
  c.last = line - 1;
}
const generated = join(dir, "generated.ts");
const usage = join(dir, "api-usage.ts");
writeFileSync(generated, `${lines.join("\n")}\n`);
writeFileSync(usage, API_USAGE());
checks.push({ name: "api usage", file: usage });
const tsc = spawnSync(
  join(root, "node_modules/.bin/tsc"),
  [
    "--noEmit",
    "--pretty",
    "false",
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
    generated,
    usage,
  ],
  { cwd: root, encoding: "utf8" },
);
const diagnostics = `${tsc.stdout}${tsc.stderr}`;
const failed = new Set();
let unplaced = 0;
for (const m of diagnostics.matchAll(/^(.*?)\((\d+),\d+\): error/gm)) {
  const at = Number(m[2]);
  const hit = m[1].endsWith("api-usage.ts")
    ? checks.find((c) => c.file === usage)
    : checks.find((c) => c.first <= at && at <= c.last);
  if (hit) failed.add(hit);
  else unplaced += 1;
}
if (tsc.status !== 0 && failed.size === 0) unplaced += 1;
process.stdout.write(diagnostics);
for (const c of failed) console.log(`FAILED: ${c.name}`);
console.log(
  `types: ${fixtures.events.length} events, ${fixtures.views.length} views, ${fixtures.snapshots.length} snapshots, ${fixtures.gaps.length} gaps, ${fixtures.observations.length} observations, ${fixtures.summaries.length} summaries, ${fixtures.otlp.length} OTLP traces, 2 comparisons, the kind table against the kind union, and the API usage checked against js/index.d.ts`,
);
console.log(`${checks.length - failed.size} passed, ${failed.size + unplaced} failed`);
if (failed.size + unplaced > 0) process.exit(1);

function named(prefix, type, values) {
  return values.map((value, i) => ({ name: `${prefix}${i}`, type, value }));
}

function API_USAGE() {
  return `import { init, parseLog, rebuildOsSnapshot, compareRuns, SessionState, AgentReplayError, sampleLog, ReplayStore, ReplaySession, DurableSessions, memoryUsage, eventKinds, toOtlp, type EventKind, type ObservedEvent, type OsSnapshot, type SessionView, type OtlpTrace } from "../../js/index.js";
import { createReplayHandler, bearerTokens } from "../../js/edge.js";
import { postgresStore } from "../../js/postgres.js";
import { categories, categoryOf, chartSeries, chartTables, describeEvent, type SessionViewer } from "../../js/viewer/index.js";
const ready: Promise<void> = init(new URL("http://localhost/agent_replay_bg.wasm"));
void ready;
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
const handler = createReplayHandler({ authorize: bearerTokens({ t: ["s"], ops: "*", view: { sessions: "*", access: "read" } }), storeOptions: { maxEventsPerSession: 4 }, maxBodyBytes: 1024 });
const response: Promise<Response> = handler(new Request("http://localhost/sessions/s"));
void response;
const shared = postgresStore({ connectionString: "postgres://localhost/db", pollMs: 1000, retention: { events: 100, ageMs: 60_000 } });
const cut: Promise<number> = shared.cleanup();
void cut;
const stopDoorbell: () => void = shared.subscribe((id: string | undefined) => void id);
stopDoorbell();
const sharedHandler = createReplayHandler({ authorize: () => true, storage: shared });
const sharedSessions = new DurableSessions({ storage: shared });
const isShared: boolean = sharedSessions.shared;
sharedSessions.close();
void sharedHandler;
void isShared;
void shared.close();
const view: SessionView = state.view();
const restored = SessionState.fromObservation(session.observe()).checkpoint();
state.write("{}", { onEvent: (e) => { const p: number = e.position; const t: number | null = e.turn; void p; void t; } });
const ended: number = state.end({ onEvent: (e) => void e.json }).events + restored.summary().event_count;
void ended;
const viewer = document.createElement("agent-session-viewer") as SessionViewer;
viewer.data = { view, snapshot: snap, summary: state.summary(), at: 3, series: chartSeries(view), earlier: 0 };
const tables = chartTables(chartSeries(view));
const buckets: Float64Array = tables.charts[0]!.maxima[0]!;
const turnStarts: Float64Array = tables.turns.position;
viewer.data = { view, snapshot: snap, charts: chartTables(chartSeries(view), 3) };
void buckets;
void turnStarts;
const label: string = describeEvent(parsed.events[0]!);
void label;
const firstKind: EventKind = eventKinds().kinds[0]!.kind;
const toolKinds: EventKind[] = categories().tools;
const category: "unknown" | (typeof eventKinds extends () => { categories: readonly (infer C)[] } ? C : never) = categoryOf(firstKind);
void toolKinds;
void category;
const n: number = state.eventCount + state.revision + snap.page_in_count + view.event_count;
try { state.apply("x", { strict: true }); } catch (e) { if (e instanceof AgentReplayError) { const c: string = e.code; void c; } }
void n;
const trace: OtlpTrace = toOtlp(sampleLog(), { content: true, sessionId: "s", strict: false });
const spanId: string = trace.resourceSpans[0]!.scopeSpans[0]!.spans[0]!.spanId + state.toOtlp().resourceSpans.length;
const wire: Uint8Array = toOtlp(sampleLog(), { format: "protobuf", startTime: new Date(), sessionId: "s" });
const stateWire: Uint8Array = state.toOtlp({ format: "protobuf", startTime: 0 });
void spanId;
void wire;
void stateWire;
const compared = compareRuns(sampleLog(), state, { strict: false });
const firstAt: number | undefined = compared.first_divergence?.a.position;
void firstAt;
`;
}

/** Run comparisons (made in JS, js/compare/): a match, and a divergence with
 * every aspect, a turn on one side only and load errors. */
function comparisons() {
  const edits = [
    ['"goal":"Find', '"goal":"Seek'],
    ['{"path":"payments/refund.py"}', '{"path":"x"}'],
    ["ttl=1)\\n    return result", "ttl=2)\\n    return result"],
    ['"is_error":false,"token_count":96', '"is_error":true,"token_count":97'],
    ['{"id":"call-2"', '{"id":"call-9","name":"grep","arguments":{}},{"id":"call-2"'],
    ['"reason":"ask_user"', '"reason":"budget"'],
    ['"reason":"completed","turns_used"', '"reason":"failed","turns_used"'],
  ];
  const sample = sampleLog();
  const edited = edits.reduce((log, [from, to]) => log.replaceAll(from, to), sample);
  const withoutTurn2 = edited.split("\n").filter((l) => !l.includes('"turn":2,'));
  const other = `${withoutTurn2.join("\n")}\n{"kind":"x"\n`;
  return [compareRuns(sample, sample), compareRuns(sample, other)];
}
