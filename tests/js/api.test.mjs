// The package API through its public entry, on Node's test runner.
import { test } from "node:test";
import assert from "node:assert/strict";
import {
  parseLog,
  rebuildOsSnapshot,
  SessionState,
  AgentReplayError,
  sampleLog,
} from "agent-replay";

const enc = new TextEncoder();
const sample = sampleLog();
const A = '{"kind":"page_in","turn":1,"entry_count":1}';
const B = '{"kind":"page_out","turn":2}';

test("parseLog loads every framing from strings and bytes alike", () => {
  const lines = parseLog(sample);
  assert.equal(lines.framing, "json_lines");
  assert.equal(lines.events.length, 78);
  assert.deepEqual(lines.errors, []);
  assert.deepEqual(parseLog(enc.encode(sample)), lines);
  const array = parseLog(`[${A},\n${B}]`);
  assert.equal(array.framing, "json_array");
  assert.deepEqual(array.events, [JSON.parse(A), JSON.parse(B)]);
  const stored = parseLog(`{"seq":0,"event":${A}}\n{"seq":1,"event":${B}}\n`);
  assert.equal(stored.framing, "stored_entries");
  assert.deepEqual(stored.events, array.events);
});

test("parseLog reports errors with positions and keeps every valid event", () => {
  const log = `${A}\n{"kind":"page_in","turn":"x","entry_count":1}\n${B}\n{"kind":"chec`;
  const { events, errors } = parseLog(log);
  assert.deepEqual(events, [JSON.parse(A), JSON.parse(B)]);
  assert.equal(errors.length, 2);
  assert.deepEqual(
    {
      line: errors[0].line,
      column: errors[0].column,
      code: errors[0].code,
      field: errors[0].field,
      kind: errors[0].kind,
    },
    { line: 2, column: 28, code: "invalid_event", field: "turn", kind: "page_in" },
  );
  assert.equal(errors[1].code, "truncated");
  assert.equal(errors[1].line, 4);
  const arr = parseLog(`[${A}, {"kind":"page_out","turn":null}]`);
  assert.equal(arr.errors[0].index, 1);
});

test("strict loading throws AgentReplayError invalid_log at the first error", () => {
  assert.throws(
    () => parseLog(`${A}\n{"kind":"warp"}\n`, { strict: true }),
    (e) => {
      assert.ok(e instanceof AgentReplayError && e instanceof Error);
      assert.equal(e.code, "invalid_log");
      assert.equal(e.errors[0].code, "unknown_kind");
      assert.equal(e.errors[0].line, 2);
      return true;
    },
  );
  assert.equal(
    parseLog(`${A}\n{"kind":"warp"}\n`).events.length,
    2,
    "tolerant keeps unknown kinds",
  );
});

test("rebuildOsSnapshot: the same snapshot from a string, bytes, events and SessionState", () => {
  const fromText = rebuildOsSnapshot(sample);
  assert.deepEqual(Object.keys(fromText), [
    "last_suspend",
    "last_resumed_turn",
    "process_by_agent",
    "budget_exceeded",
    "budget_usage_reported",
    "cancellations",
    "signals",
    "page_out_count",
    "page_in_count",
    "tool_gated_count",
    "memory_written_count",
    "memory_queried_count",
    "memory_validation_failed_count",
    "memory_retrieval_result_count",
  ]);
  assert.deepEqual(fromText.last_suspend, {
    turn: 6,
    reason: "ask_user",
    pending_calls: ["call-5"],
  });
  assert.deepEqual(
    fromText.process_by_agent.map((p) => [p.agent_id, p.state]),
    [
      ["bisect-1", "joined"],
      ["log-miner-1", "cancelled"],
    ],
  );
  assert.equal(fromText.tool_gated_count, 1);
  assert.deepEqual(rebuildOsSnapshot(enc.encode(sample)), fromText);
  assert.deepEqual(rebuildOsSnapshot(parseLog(sample).events), fromText);
  assert.deepEqual(new SessionState().apply(sample).osSnapshot(), fromText);
});

test("rebuildOsSnapshot refuses a log with errors, listing them", () => {
  assert.throws(
    () => rebuildOsSnapshot(`${A}\n{"kind":"page_in","turn":2}\n${B}\n`),
    (e) => {
      assert.equal(e.code, "invalid_log");
      assert.equal(e.errors.length, 1);
      assert.equal(e.errors[0].field, "entry_count");
      assert.match(e.message, /line 2/);
      return true;
    },
  );
});

test("rebuildOsSnapshot checks what it folds field by field, everything with validate: all", () => {
  const log = `${A}\n{"kind":"llm_completed","turn":"x"}\n`;
  assert.equal(rebuildOsSnapshot(log).page_in_count, 1);
  assert.throws(
    () => rebuildOsSnapshot(log, { validate: "all" }),
    (e) => e.code === "invalid_log" && e.errors[0].field === "turn",
  );
  assert.throws(() => rebuildOsSnapshot(`${A}\n{"kind":"llm_completed",\n`), {
    code: "invalid_log",
  });
});

test("SessionState folds events one by one exactly as the whole log", () => {
  const whole = new SessionState("s").apply(sample);
  const stepwise = new SessionState("s");
  for (const event of parseLog(sample).events) stepwise.apply(event);
  assert.deepEqual(stepwise.view(), whole.view());
  assert.deepEqual(stepwise.osSnapshot(), whole.osSnapshot());
  assert.equal(whole.eventCount, 78);
  assert.equal(whole.revision, 7);
  const view = whole.view();
  assert.equal(view.session_id, "s");
  assert.equal(view.run.run_id, "run-7f3a");
  assert.equal(view.status.state, "terminal");
  assert.equal(
    new SessionState().apply(parseLog(sample).events).eventCount,
    78,
    "an array of events",
  );
});

test("chunked writes give the same state as one apply", () => {
  const log = sample.repeat(40);
  const bytes = enc.encode(`${log}\n{"kind":"page_in","tu`);
  const whole = new SessionState().apply(bytes);
  const chunked = new SessionState();
  for (let at = 0, step = 1; at < bytes.length; at += step, step = ((step * 7 + 3) % 9000) + 1) {
    chunked.write(bytes.subarray(at, Math.min(bytes.length, at + step)));
  }
  const report = chunked.end();
  assert.equal(report.errors.length, 1);
  assert.equal(report.errors[0].code, "truncated");
  assert.deepEqual(chunked.view(), whole.view());
});

test("integers beyond 2^53-1 arrive as exact strings, never rounded", () => {
  const big =
    '{"kind":"run_terminal","reason":"done","turns_used":1,"total_tokens":9007199254740993}';
  assert.equal(parseLog(big).events[0].total_tokens, "9007199254740993");
  assert.equal(new SessionState().apply(big).view().total_tokens, "9007199254740993");
  assert.equal(parseLog(A).events[0].turn, 1);
  // Only that integer changes: the event stays as written, unknown fields and key order kept.
  const usage =
    '{"kind":"budget_usage_reported","turn":2,"operation_id":"o","reservation_id":"r","tokens":18446744073709551615,"subagents":0,"rounds":1,"note":{"n":12345678901234567890}}';
  const written = {
    kind: "budget_usage_reported",
    turn: 2,
    operation_id: "o",
    reservation_id: "r",
    tokens: "18446744073709551615",
    subagents: 0,
    rounds: 1,
    note: { n: "12345678901234567890" },
  };
  assert.deepEqual(parseLog(usage).events[0], written);
  assert.deepEqual(Object.keys(parseLog(usage).events[0]), Object.keys(written));
  assert.deepEqual(new SessionState().apply(usage).view().budgets.usage[0].event, written);
  assert.equal(
    new SessionState().apply(usage).osSnapshot().budget_usage_reported[0].tokens,
    "18446744073709551615",
  );
  // What the package hands out folds again as it is (the big integer as a string).
  assert.deepEqual(rebuildOsSnapshot(parseLog(usage).events), rebuildOsSnapshot(usage));
  assert.deepEqual(
    new SessionState().apply(parseLog(big).events).view().total_tokens,
    "9007199254740993",
  );
});

test("an array of events folds as tolerantly as the same log as text", () => {
  const events = [JSON.parse(A), { kind: "warp_drive", turn: 1 }, { kind: "page_in", turn: -1 }];
  const fromArray = new SessionState().apply(events).view();
  assert.deepEqual(fromArray, new SessionState().apply(JSON.stringify(events)).view());
  assert.equal(fromArray.unknown[0].kind, "warp_drive", "an unknown kind folds, as in an object");
  assert.equal(fromArray.load_errors[0].code, "invalid_event");
  assert.equal(fromArray.load_errors[0].index, 2);
  assert.throws(() => new SessionState().apply(events, { strict: true }), {
    code: "invalid_log",
  });
  assert.throws(() => new SessionState(undefined, { strict: true }).apply(events), {
    code: "invalid_log",
  });
});

test("wrong inputs throw AgentReplayError with a code", () => {
  assert.throws(() => parseLog(42), { name: "AgentReplayError", code: "invalid_input" });
  assert.throws(() => rebuildOsSnapshot(null), { code: "invalid_input" });
  assert.throws(() => new SessionState().apply({ kind: "page_in", turn: -1 }), {
    code: "invalid_event",
  });
  assert.throws(() => new SessionState(7), { code: "invalid_input" });
  const s = new SessionState();
  s.free();
  assert.throws(() => s.view(), { code: "closed" });
  assert.throws(() => rebuildOsSnapshot(sample, { validate: "some" }), { code: "invalid_input" });
});

test("the instance stays usable after garbage, errors and hostile input", () => {
  const expected = rebuildOsSnapshot(sample);
  const hostile = [
    new Uint8Array([0xff, 0xfe, 0x00, 0x9f, 0x80, 0x0a, 0xc3]),
    "[".repeat(100_000),
    "{".repeat(50_000),
    `{"kind":"page_in","turn":${"9".repeat(400)},"entry_count":1}`,
    `{"kind":"${"k".repeat(1_000_000)}"}`,
    "\u0000\r\n\r\n\uFEFF",
    '{"seq":0,"event":[]}\n{"seq":-1}',
    '[{"kind":"page_in","turn":1,"entry_count":1},',
    'null\ntrue\n1e999\n"str"\n[]',
  ];
  for (const input of hostile) {
    for (const run of [
      () => parseLog(input),
      () => parseLog(input, { strict: true }),
      () => rebuildOsSnapshot(input),
      () => new SessionState().apply(input),
      () => new SessionState().write(input).end(),
    ]) {
      try {
        run();
      } catch (e) {
        assert.ok(e instanceof AgentReplayError, `a coded error, not ${e}`);
        assert.equal(typeof e.code, "string");
      }
    }
  }
  assert.deepEqual(rebuildOsSnapshot(sample), expected);
  assert.equal(parseLog(sample).events.length, 78);
});
