// OTLP export: `toOtlp` and `agent-replay export --otlp`, decoded with the
// official OpenTelemetry protobuf definitions (tests/otlp-proto/, loaded by
// protobufjs). The JSON round-trips through the protobuf binary encoding
// and back unchanged, so every field has the name and type the protocol
// gives it; ids are checked as hex here, because protobuf's generic JSON
// mapping reads `bytes` as base64 where OTLP/JSON writes ids as hex.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import protobuf from "protobufjs";
import { AgentReplayError, sampleLog, SessionState, toOtlp } from "agent-replay";

const here = new URL(".", import.meta.url).pathname;
const protoDir = join(here, "../otlp-proto");
const corpus = (name) => readFileSync(join(here, "../corpus/deepstrike-0.2.77", name), "utf8");
const cli = join(here, "../../bin/agent-replay.js");
const run = (args, input) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: "utf8" });

const root = new protobuf.Root();
root.resolvePath = (_origin, target) => join(protoDir, target);
root.loadSync("opentelemetry/proto/collector/trace/v1/trace_service.proto");
const Request = root.lookupType("opentelemetry.proto.collector.trace.v1.ExportTraceServiceRequest");

const ID_FIELDS = new Set(["traceId", "spanId", "parentSpanId"]);

/** A copy with each id field mapped by `f` (hex to bytes, or back). */
function mapIds(value, f) {
  if (Array.isArray(value)) return value.map((v) => mapIds(v, f));
  if (value === null || typeof value !== "object" || ArrayBuffer.isView(value)) return value;
  return Object.fromEntries(
    Object.entries(value).map(([k, v]) => [k, ID_FIELDS.has(k) ? f(v) : mapIds(v, f)]),
  );
}

/** OTLP/JSON → protobuf binary (official definitions) → back to OTLP/JSON. */
function roundTrip(trace) {
  const message = Request.fromObject(mapIds(trace, (hex) => Buffer.from(hex, "hex")));
  assert.equal(Request.verify(message), null);
  const wire = Request.encode(message).finish();
  const decoded = Request.decode(wire);
  const object = Request.toObject(decoded, { longs: String, enums: Number, bytes: Buffer });
  return { wire, object: mapIds(object, (bytes) => Buffer.from(bytes).toString("hex")) };
}

const spansOf = (trace) => trace.resourceSpans[0].scopeSpans[0].spans;
const attr = (span, key) => span.attributes.find((a) => a.key === key)?.value;

/** Proto3 JSON leaves defaults out: a status code of 0 decodes as absent. */
function withoutDefaults(trace) {
  return JSON.parse(
    JSON.stringify(trace, (k, v) => (k === "status" && v.code === 0 && !v.message ? {} : v)),
  );
}

test("every corpus log and the sample decode with the official OTLP definitions, unchanged", () => {
  const names = JSON.parse(corpus("MANIFEST.json")).logs.map((l) => l.log);
  assert.equal(names.length, 21);
  for (const [name, text] of [...names.map((n) => [n, corpus(n)]), ["sample", sampleLog()]]) {
    for (const content of [false, true]) {
      const trace = toOtlp(text, { content, sessionId: name });
      const { wire, object } = roundTrip(trace);
      assert.ok(wire.length > 0);
      assert.deepEqual(object, withoutDefaults(trace), `${name} round-trips`);
    }
  }
});

test("decoded: span names, parent links, attributes and times", () => {
  const { object } = roundTrip(toOtlp(corpus("workflow.jsonl"), { sessionId: "w" }));
  const spans = spansOf(object);
  const byName = Object.fromEntries(spans.map((s) => [s.name, s]));
  const run = byName["invoke_agent coordinator"];
  assert.equal(run.parentSpanId, undefined, "the run is the root");
  assert.equal(byName["invoke_agent wf-node0"].parentSpanId, run.spanId);
  assert.equal(
    byName["invoke_agent wf-node2"].parentSpanId,
    byName["invoke_agent wf-node1"].spanId,
  );
  assert.deepEqual(attr(run, "gen_ai.operation.name"), { stringValue: "invoke_agent" });
  assert.deepEqual(attr(run, "gen_ai.conversation.id"), { stringValue: "w" });
  assert.ok(run.events.some((e) => e.name === "suspended"));

  const tools = spansOf(roundTrip(toOtlp(corpus("tools.jsonl"))).object);
  const chat = tools.find((s) => s.name === "chat replay");
  assert.equal(chat.kind, 3);
  // The provider_attempt's started_at_ms and finished_at_ms, in nanoseconds.
  assert.equal(chat.startTimeUnixNano, "1767225600004000000");
  assert.equal(chat.endTimeUnixNano, "1767225600005000000");
  assert.deepEqual(attr(chat, "gen_ai.usage.input_tokens"), { intValue: "117" });
  assert.deepEqual(attr(chat, "agent_replay.time.synthetic"), { boolValue: false });
  const wipe = tools.find((s) => s.name === "execute_tool wipe_disk");
  assert.equal(wipe.status.code, 2);
  assert.deepEqual(attr(wipe, "gen_ai.tool.call.id"), { stringValue: "c6" });
  assert.deepEqual(attr(wipe, "gen_ai.tool.call.arguments"), {
    stringValue: '{"device": "/dev/sda"}',
  });
  assert.deepEqual(attr(wipe, "agent_replay.time.synthetic"), { boolValue: true });
  for (const s of tools) assert.ok(BigInt(s.startTimeUnixNano) <= BigInt(s.endTimeUnixNano));
});

test("ids are lowercase hex of 32 and 16 digits, repeatable, and times decimal strings", () => {
  const trace = toOtlp(sampleLog(), { sessionId: "s" });
  const spans = spansOf(trace);
  const traceId = spans[0].traceId;
  assert.match(traceId, /^[0-9a-f]{32}$/);
  assert.notEqual(traceId, "0".repeat(32));
  const ids = new Set();
  for (const s of spans) {
    assert.equal(s.traceId, traceId);
    assert.match(s.spanId, /^[0-9a-f]{16}$/);
    assert.notEqual(s.spanId, "0".repeat(16));
    if (s.parentSpanId !== undefined) assert.match(s.parentSpanId, /^[0-9a-f]{16}$/);
    ids.add(s.spanId);
    assert.match(s.startTimeUnixNano, /^\d+$/);
    assert.match(s.endTimeUnixNano, /^\d+$/);
    for (const a of s.attributes)
      if ("intValue" in a.value) assert.equal(typeof a.value.intValue, "string");
  }
  assert.equal(ids.size, spans.length, "span ids are unique");
  assert.deepEqual(toOtlp(sampleLog(), { sessionId: "s" }), trace, "the same log, the same trace");
  assert.notEqual(spansOf(toOtlp(sampleLog(), { sessionId: "t" }))[0].traceId, traceId);
});

test("content is opt-in; SessionState.toOtlp matches toOtlp; bad input is a coded error", () => {
  const bare = JSON.stringify(toOtlp(sampleLog()));
  assert.doesNotMatch(bare, /gen_ai\.(input|output)\.messages/);
  const full = toOtlp(sampleLog(), { content: true });
  assert.match(JSON.stringify(full), /gen_ai\.output\.messages/);
  const state = new SessionState().apply(sampleLog());
  assert.deepEqual(state.toOtlp({ content: true }), full);
  state.free();
  assert.throws(
    () => toOtlp(42),
    (e) => e instanceof AgentReplayError && e.code === "invalid_input",
  );
  assert.throws(
    () => toOtlp('{"kind":"nope"}', { strict: true }),
    (e) => e instanceof AgentReplayError && e.code === "invalid_log",
  );
  const tolerant = spansOf(toOtlp('{"kind":"run_started","run_id":"r","goal":"g"}\nnot json'));
  assert.deepEqual(attr(tolerant[0], "agent_replay.load_errors"), { intValue: "1" });
});

test("agent-replay export --otlp prints the trace; exit codes as the other commands", () => {
  const file = join(here, "../corpus/deepstrike-0.2.77/permissions.jsonl");
  const r = run(["export", "--otlp", file]);
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stderr, "");
  const trace = JSON.parse(r.stdout);
  assert.deepEqual(trace, toOtlp(corpus("permissions.jsonl")));
  assert.deepEqual(roundTrip(trace).object, withoutDefaults(trace));
  assert.doesNotMatch(r.stdout, /gen_ai\.output\.messages/);

  const content = run(["export", "--sample", "--otlp", "--content"]);
  assert.equal(content.status, 0, content.stderr);
  assert.deepEqual(JSON.parse(content.stdout), toOtlp(sampleLog(), { content: true }));
  const piped = run(["export", "--otlp", "-"], sampleLog());
  assert.deepEqual(JSON.parse(piped.stdout), toOtlp(sampleLog()));

  const bad = run(
    ["export", "--otlp", "-"],
    '{"kind":"run_started","run_id":"r","goal":"g"}\nnot json\n',
  );
  assert.equal(bad.status, 1, "load errors: the trace of the rest, the errors on stderr");
  assert.match(bad.stderr, /^stdin:2:\d+: invalid_json/m);
  assert.ok(JSON.parse(bad.stdout).resourceSpans);
  const strict = run(["export", "--otlp", "--strict", "-"], '{"kind":"nope"}');
  assert.equal(strict.status, 1);
  assert.equal(strict.stdout, "");

  assert.equal(run(["export", file]).status, 2, "the format is required");
  assert.equal(run(["export", "--otlp"]).status, 2, "a log is required");
  assert.equal(run(["export", "--otlp", file, file]).status, 2, "one log");
  const missing = run(["export", "--otlp", join(here, "no-such.jsonl")]);
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /cannot read .*no-such\.jsonl: ENOENT/);
});
