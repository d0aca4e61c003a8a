// OTLP export: `toOtlp` and `agent-replay export --otlp`, decoded with the
// official OpenTelemetry protobuf definitions (tests/otlp-proto/, loaded by
// protobufjs). The JSON round-trips through the protobuf binary encoding
// and back unchanged, so every field has the name and type the protocol
// gives it; the export's own protobuf decodes to that same trace; ids are
// checked as hex here, because protobuf's generic JSON mapping reads
// `bytes` as base64 where OTLP/JSON writes ids as hex. Exact traces, as the
// Rust core wrote them before the export moved to JS (js/otlp/), are in
// otlp-expected.jsonl.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawn, spawnSync } from "node:child_process";
import { once } from "node:events";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, utimesSync } from "node:fs";
import { createServer } from "node:http";
import { tmpdir } from "node:os";
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

/** Protobuf bytes decoded with the official definitions, as OTLP/JSON. */
function decode(wire) {
  const object = Request.toObject(Request.decode(wire), {
    longs: String,
    enums: Number,
    bytes: Buffer,
  });
  return mapIds(object, (bytes) => Buffer.from(bytes).toString("hex"));
}

/** OTLP/JSON → protobuf binary (official definitions) → back to OTLP/JSON. */
function roundTrip(trace) {
  const message = Request.fromObject(mapIds(trace, (hex) => Buffer.from(hex, "hex")));
  assert.equal(Request.verify(message), null);
  const wire = Request.encode(message).finish();
  return { wire, object: decode(wire) };
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
  assert.equal(byName["invoke_agent wf-node2"].parentSpanId, run.spanId, "spawned by the run");
  assert.deepEqual(
    byName["invoke_agent wf-node2"].links.map((l) => l.spanId),
    [byName["invoke_agent wf-node1"].spanId],
    "its workflow dependency, linked",
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
  assert.deepEqual(trace, toOtlp(corpus("permissions.jsonl")), "its times are the log's");
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

const ALL_LOGS = () => [
  ...JSON.parse(corpus("MANIFEST.json")).logs.map((l) => [l.log, corpus(l.log)]),
  ["sample", sampleLog()],
];

test("the protobuf encoding decodes, with the official definitions, to the JSON one", () => {
  for (const [name, text] of ALL_LOGS()) {
    for (const content of [false, true]) {
      const options = { content, sessionId: name, startTime: 1_780_000_000_000 };
      const wire = toOtlp(text, { ...options, format: "protobuf" });
      assert.ok(wire instanceof Uint8Array);
      assert.deepEqual(decode(wire), withoutDefaults(toOtlp(text, options)), name);
    }
  }
  const state = new SessionState("s").apply(sampleLog());
  assert.deepEqual(
    state.toOtlp({ format: "protobuf" }),
    toOtlp(sampleLog(), { sessionId: "s", format: "protobuf" }),
  );
  state.free();
  assert.throws(
    () => toOtlp(sampleLog(), { format: "xml" }),
    (e) => e instanceof AgentReplayError && e.code === "invalid_input",
  );
});

test("the protobuf encoding: doubles and negative integers, which no corpus log has", () => {
  const text = corpus("budgets.jsonl").replace(
    '"budget":"token_budget"}',
    '"budget":"token_budget","ratio":0.1,"used":1.5e3,"delta":-12,"floor":-9007199254740991}',
  );
  const exceeded = (trace) => spansOf(trace)[0].events.find((e) => e.name === "budget_exceeded");
  const values = Object.fromEntries(
    exceeded(decode(toOtlp(text, { format: "protobuf" }))).attributes.map((a) => [a.key, a.value]),
  );
  assert.deepEqual(values["agent_replay.ratio"], { doubleValue: 0.1 });
  assert.deepEqual(values["agent_replay.used"], { doubleValue: 1500 });
  assert.deepEqual(values["agent_replay.delta"], { intValue: "-12" });
  assert.deepEqual(values["agent_replay.floor"], { intValue: "-9007199254740991" });
  assert.deepEqual(
    exceeded(decode(toOtlp(text, { format: "protobuf" }))),
    exceeded(withoutDefaults(toOtlp(text))),
  );
});

/** Each message of a `gen_ai.*.messages` attribute, parsed. */
const messagesOf = (span, key) => {
  const value = attr(span, key);
  return value ? JSON.parse(value.stringValue) : [];
};

test("decoded: messages have the GenAI schemas' required fields; the run has input and output", () => {
  let outputs = 0;
  let inputs = 0;
  for (const [name, text] of ALL_LOGS()) {
    const spans = spansOf(decode(toOtlp(text, { content: true, format: "protobuf" })));
    for (const span of spans) {
      for (const m of messagesOf(span, "gen_ai.input.messages")) {
        inputs++;
        assert.ok(["system", "user", "assistant", "tool"].includes(m.role), name);
        assert.ok(Array.isArray(m.parts) && m.parts.length > 0, name);
        for (const part of m.parts) {
          assert.equal(typeof part.type, "string");
          if (part.type === "text") assert.equal(typeof part.content, "string");
          if (part.type === "tool_call_response") assert.ok("response" in part, name);
        }
      }
      for (const m of messagesOf(span, "gen_ai.output.messages")) {
        outputs++;
        assert.equal(typeof m.role, "string", name);
        assert.ok(Array.isArray(m.parts), name);
        assert.ok(
          ["stop", "length", "content_filter", "tool_call", "error"].includes(m.finish_reason),
          `${name}: finish_reason ${m.finish_reason}`,
        );
        for (const part of m.parts.filter((p) => p.type === "tool_call"))
          for (const key of ["id", "name", "arguments"]) assert.ok(key in part, `${name}: ${key}`);
      }
    }
    const chats = spans.filter((s) => s.name.startsWith("chat"));
    if (chats.length)
      assert.ok(
        messagesOf(chats[0], "gen_ai.input.messages").length,
        `${name}: the first call's input`,
      );
  }
  assert.ok(inputs > 20 && outputs > 20, `${inputs} input and ${outputs} output messages checked`);
  const root = spansOf(toOtlp(sampleLog(), { content: true }))[0];
  assert.match(attr(root, "input.value").stringValue, /^Find why/);
  assert.equal(typeof attr(root, "output.value").stringValue, "string");
});

/** Every span starts no later than it ends and lies within its parent. */
function assertNested(spans, name) {
  const byId = new Map(spans.map((s) => [s.spanId, s]));
  for (const s of spans) {
    const [start, end] = [BigInt(s.startTimeUnixNano), BigInt(s.endTimeUnixNano)];
    assert.ok(start <= end, `${name}: ${s.name} ends before it starts`);
    if (s.parentSpanId === undefined) continue;
    const p = byId.get(s.parentSpanId);
    assert.ok(p, `${name}: ${s.name}'s parent is in the trace`);
    assert.ok(
      BigInt(p.startTimeUnixNano) <= start && end <= BigInt(p.endTimeUnixNano),
      `${name}: ${s.name} within ${p.name}`,
    );
    for (const e of s.events ?? []) {
      const t = BigInt(e.timeUnixNano);
      assert.ok(start <= t && t <= end, `${name}: event ${e.name} within ${s.name}`);
    }
  }
}

test("decoded: times never run backwards, children lie within parents, sub-agents link their dependency", () => {
  for (const [name, text] of ALL_LOGS())
    assertNested(spansOf(decode(toOtlp(text, { format: "protobuf" }))), name);
  const spans = spansOf(decode(toOtlp(corpus("workflow.jsonl"), { format: "protobuf" })));
  const [run] = spans;
  const agents = spans.filter((s) => s.name.startsWith("invoke_agent wf-"));
  assert.equal(agents.length, 3);
  for (const a of agents) assert.equal(a.parentSpanId, run.spanId, `${a.name}: spawned by the run`);
  const node1 = agents.find((a) => a.name.endsWith("wf-node1"));
  const node2 = agents.find((a) => a.name.endsWith("wf-node2"));
  assert.deepEqual(
    node2.links.map((l) => [l.traceId, l.spanId, attr(l, "agent_replay.link.type").stringValue]),
    [[run.traceId, node1.spanId, "workflow_dependency"]],
  );
});

test("startTime places a log without recorded times; without it, the Unix epoch", () => {
  const text = corpus("workflow.jsonl");
  const startOf = (options) => BigInt(spansOf(toOtlp(text, options))[0].startTimeUnixNano);
  assert.ok(startOf() < 10n ** 12n, "no startTime: at the epoch");
  const ms = Date.parse("2026-12-01T10:00:00Z");
  const at = BigInt(ms) * 1_000_000n;
  for (const startTime of [ms, new Date(ms), "2026-12-01T10:00:00Z"]) {
    const start = startOf({ startTime });
    assert.ok(start >= at && start < at + 10n ** 9n, `${startTime}: ${start}`);
  }
  assert.deepEqual(
    toOtlp(corpus("tools.jsonl"), { startTime: ms }),
    toOtlp(corpus("tools.jsonl")),
    "recorded times win",
  );
  for (const startTime of [-1, 1.5, "yesterday", Number.NaN])
    assert.throws(
      () => toOtlp(text, { startTime }),
      (e) => e instanceof AgentReplayError && e.code === "invalid_input",
      String(startTime),
    );
});

test("export: --format protobuf, --session-id, and the file's time for a log without times", () => {
  const dir = mkdtempSync(join(tmpdir(), "otlp-"));
  try {
    const file = join(dir, "workflow.jsonl");
    copyFileSync(join(here, "../corpus/deepstrike-0.2.77/workflow.jsonl"), file);
    const mtime = new Date("2026-11-30T08:00:00Z");
    utimesSync(file, mtime, mtime);
    const text = corpus("workflow.jsonl");
    const expected = toOtlp(text, { sessionId: "run-9", startTime: mtime });
    const json = run(["export", "--otlp", file, "--session-id", "run-9"]);
    assert.equal(json.status, 0, json.stderr);
    assert.deepEqual(JSON.parse(json.stdout), expected, "placed at the file's modification time");
    const r = spawnSync(process.execPath, [
      cli,
      "export",
      "--otlp",
      "--format",
      "protobuf",
      file,
      "--session-id",
      "run-9",
    ]);
    assert.equal(r.status, 0, String(r.stderr));
    assert.deepEqual(decode(r.stdout), withoutDefaults(expected));
    const started = run(["export", "--otlp", file, "--start", "1780000000000"]);
    assert.deepEqual(JSON.parse(started.stdout), toOtlp(text, { startTime: 1_780_000_000_000 }));
    const iso = run(["export", "--otlp", file, "--start", "2026-12-01T10:00:00Z"]);
    assert.deepEqual(JSON.parse(iso.stdout), toOtlp(text, { startTime: "2026-12-01T10:00:00Z" }));
    for (const bad of [
      ["--start", "soon"],
      ["--format", "xml"],
      ["--header", "K=V"],
      ["--endpoint", "not a url"],
      ["--session-id"],
    ])
      assert.equal(run(["export", "--otlp", file, ...bad]).status, 2, bad.join(" "));
  } finally {
    rmSync(dir, { recursive: true });
  }
});

/** Runs the CLI without blocking this process (whose server it talks to). */
async function runAsync(args) {
  const child = spawn(process.execPath, [cli, ...args]);
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (d) => (stdout += d));
  child.stderr.on("data", (d) => (stderr += d));
  const [status] = await once(child, "close");
  return { status, stdout, stderr };
}

test("export --endpoint posts the trace (protobuf, or JSON on request) with headers and reports the answer", async () => {
  const received = [];
  let answer = { status: 200, type: "application/json", body: "{}" };
  const server = createServer((req, res) => {
    const chunks = [];
    req.on("data", (c) => chunks.push(c));
    req.on("end", () => {
      received.push({
        method: req.method,
        url: req.url,
        headers: req.headers,
        body: Buffer.concat(chunks),
      });
      res.writeHead(answer.status, { "content-type": answer.type });
      res.end(answer.body);
    });
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const endpoint = `http://127.0.0.1:${server.address().port}/v1/traces`;
  const file = join(here, "../corpus/deepstrike-0.2.77/tools.jsonl");
  try {
    const sent = await runAsync([
      "export",
      "--otlp",
      file,
      "--endpoint",
      endpoint,
      "--header",
      "authorization=Bearer t=1",
      "--content",
    ]);
    assert.equal(sent.status, 0, sent.stderr);
    assert.equal(sent.stdout, "200 OK\n{}\n");
    const [first] = received;
    assert.equal(first.method, "POST");
    assert.equal(first.url, "/v1/traces");
    assert.equal(first.headers["content-type"], "application/x-protobuf");
    assert.equal(first.headers.authorization, "Bearer t=1");
    assert.deepEqual(
      decode(first.body),
      withoutDefaults(toOtlp(corpus("tools.jsonl"), { content: true })),
    );

    answer = {
      status: 415,
      type: "text/plain",
      body: "Unsupported content type: application/json",
    };
    const refused = await runAsync([
      "export",
      "--otlp",
      file,
      "--endpoint",
      endpoint,
      "--format",
      "json",
    ]);
    assert.equal(refused.status, 1, "a non-2xx answer exits 1");
    assert.equal(
      refused.stdout,
      "415 Unsupported Media Type\nUnsupported content type: application/json\n",
    );
    assert.equal(received[1].headers["content-type"], "application/json");
    assert.deepEqual(JSON.parse(received[1].body), toOtlp(corpus("tools.jsonl")));
  } finally {
    server.close();
  }
  const closed = await runAsync(["export", "--otlp", file, "--endpoint", endpoint]);
  assert.equal(closed.status, 1, "no backend: exit 1");
  assert.match(closed.stderr, /cannot send to http:\/\/127\.0\.0\.1:\d+\/v1\/traces: ECONNREFUSED/);
});

const AWKWARD = `${Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join("")}"\\/\u007f é ☃ 𝄞 \u2028`;
const PLAIN = ["deploy", "deploy the build", "Deploying to staging.", "deployed to staging"];
PLAIN.push("ask_user", "host", "not today", "p2", "replay");

/** `value` with each string that is one of PLAIN suffixed with AWKWARD. */
function withAwkward(value) {
  if (Array.isArray(value)) return value.map(withAwkward);
  if (value && typeof value === "object")
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, withAwkward(v)]));
  return PLAIN.includes(value) ? value + AWKWARD : value;
}

/** The logs of tests/js/otlp-expected.jsonl: a corpus log or the sample,
 * maybe changed (`transform`), or a log of its own (`text`). */
const EXPECTED_TRANSFORMS = {
  // The events alone (no stored-entry seq), less the attempts: the run's route names the model.
  withoutAttempts: (text) =>
    text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => JSON.stringify(JSON.parse(l).event))
      .filter((e) => !e.includes('"kind":"provider_attempt"'))
      .join("\n"),
  // Numbers as the log wrote them: doubles, exponents, past 2^53 and i64, spaced JSON, escapes.
  numbers: (text) =>
    text.replace(
      '"budget":"token_budget"}',
      '"budget":"token_budget","ratio":0.1,"used":1.5e3,"one":1.0,"neg0":-0,"exp":1E2,"big":12345678901234567890,"i64max":9223372036854775807,"over":9223372036854775808,"delta":-12,"floor":-9007199254740991,"obj":{ "a" : [1, 2.50, "x\\u00e9"], "1":true },"esc":"a\\u00e9\\/b\\n","nul":null,"f":false}',
    ),
  // Every control character, a quote, a backslash, a slash, DEL and non-ASCII
  // text (U+2028 too) in the names, texts, reasons and ids the export writes
  // (consistently, so calls still match), and in a field name on a root event.
  awkward: (text) =>
    text
      .split("\n")
      .filter((l) => l.trim())
      .map((l) => {
        const event = withAwkward(JSON.parse(l).event);
        if (event.kind === "run_started") event.agent_id = event.system_prompt = AWKWARD;
        if (event.kind === "suspended") event[AWKWARD] = AWKWARD;
        if (event.kind === "run_terminal") event.reason = AWKWARD;
        return JSON.stringify(event);
      })
      .join("\n"),
  // The sample up to its suspension.
  "firstLines:58": (text) => text.split("\n").slice(0, 58).join("\n"),
};

function expectedLog(c) {
  if (c.text !== undefined) return c.text;
  const text = c.log === "sample" ? sampleLog() : corpus(c.log);
  return c.transform ? EXPECTED_TRANSFORMS[c.transform](text) : text;
}

test("every trace is the one the Rust core wrote before the export moved to JS, exactly", () => {
  // Recorded with the core's own export (src/otlp/, removed since): each
  // value, id, time, key order and the text of each JSON value as the log
  // wrote it. A deliberate change to the export rewrites the file.
  const file = join(here, "otlp-expected.jsonl");
  const cases = readFileSync(file, "utf8").trim().split("\n").map(JSON.parse);
  assert.equal(cases.length, 17);
  const { version } = JSON.parse(readFileSync(join(here, "../../package.json"), "utf8"));
  for (const c of cases) {
    // The scope is the package, in the version it has now.
    assert.equal(c.trace.resourceSpans[0].scopeSpans[0].scope.name, "agent-replay");
    c.trace.resourceSpans[0].scopeSpans[0].scope.version = version;
    const got = JSON.stringify(toOtlp(expectedLog(c), c.options));
    assert.equal(got, JSON.stringify(c.trace), `${c.log ?? c.name} ${c.transform ?? ""}`);
  }
});

test("synthetic times are monotone by position and stay between the real ones", async () => {
  const { Clock } = await import("../../js/otlp/clock.js");
  const timed = (position, start, end) => ({ position, times: [start, end] });
  const times = (clock, from, to) =>
    Array.from({ length: to - from }, (_, i) => clock.at(BigInt(from + i)).nanos);
  const ordered = (list) => list.every((t, i) => i === 0 || list[i - 1] <= t);
  const clock = new Clock(
    [timed(5n, 10_000_000n, 11_000_000n), timed(9n, 11_002_000n, 11_003_000n)],
    0n,
  );
  const t = times(clock, 0, 15);
  assert.ok(ordered(t), String(t));
  assert.equal(t[4], 10_000_000n - 1_000n);
  assert.equal(t[6], 11_001_000n);
  assert.ok(t[8] < 11_002_000n);
  assert.equal(t[10], 11_004_000n);
  assert.equal(clock.at(3n).real, false);
  // Squeezed between close real times, they still keep their order.
  const squeezed = times(
    new Clock([timed(1n, 5_000n, 5_000n), timed(100n, 5_050n, 6_000n)], 0n),
    1,
    101,
  );
  assert.ok(ordered(squeezed) && squeezed[98] < 5_050n, String(squeezed));
  // Overlapping attempts: the second starts and ends before the first finished.
  const overlap = new Clock(
    [timed(2n, 1_000_000n, 9_000_000n), timed(6n, 2_000_000n, 3_000_000n)],
    0n,
  );
  assert.ok(ordered(times(overlap, 0, 12)));
  // Without real times, positions count microseconds from the origin, past 2^53.
  assert.equal(new Clock([], 0n).at(3n).nanos, 3_000n);
  assert.equal(new Clock([], 1_700_000_000_000_000_000n).at(3n).nanos, 1_700_000_000_000_003_000n);
});

test("ids: hex of the right length, repeatable, apart by position and run", async () => {
  const { Ids } = await import("../../js/otlp/ids.js");
  const ids = new Ids("s", "r");
  assert.match(ids.traceId, /^[0-9a-f]{32}$/);
  const span = ids.spanId("chat", 7n, "");
  assert.match(span, /^[0-9a-f]{16}$/);
  assert.equal(span, new Ids("s", "r").spanId("chat", 7n, ""));
  assert.notEqual(span, ids.spanId("chat", 8n, ""));
  assert.notEqual(ids.traceId, new Ids("s", "r2").traceId);
});
