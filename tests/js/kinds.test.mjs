// The kind table through the package (eventKinds) and what the viewer's
// describe.js takes from it: categories, alarming events.
import { test } from "node:test";
import assert from "node:assert/strict";
import { eventKinds, parseLog, sampleLog } from "agent-replay";
import { categories, categoryOf, isAlarming } from "../../js/viewer/describe.js";

test("eventKinds lists every kind of the sample once, with its category and flags", () => {
  const { categories: order, kinds } = eventKinds();
  assert.equal(order.length, 14);
  assert.equal(order[0], "run");
  assert.equal(kinds.length, 50);
  assert.equal(kinds.filter((k) => k.core).length, 32);
  const sampleKinds = new Set(parseLog(sampleLog()).events.map((e) => e.kind));
  assert.deepEqual(new Set(kinds.map((k) => k.kind)), sampleKinds);
  assert.equal(kinds.length, sampleKinds.size);
  for (const k of kinds) assert.ok(order.includes(k.category), k.kind);
  const pageOut = kinds.find((k) => k.kind === "page_out");
  assert.deepEqual(
    { ...pageOut },
    {
      kind: "page_out",
      category: "context",
      kernel_category: "mm",
      primitive: "mm",
      core: true,
      bears_turn: true,
      kernel_os: true,
      snapshot_fold: true,
      alarming: "never",
    },
  );
  const attempt = kinds.find((k) => k.kind === "provider_attempt");
  assert.deepEqual(
    [
      attempt.category,
      attempt.kernel_category,
      attempt.primitive,
      attempt.core,
      attempt.bears_turn,
    ],
    ["model", "sched", "sched", false, false],
  );
  const signal = kinds.find((k) => k.kind === "signal_delivery_disposed");
  assert.deepEqual([signal.kernel_category, signal.primitive], ["ipc", "sched"]);
  assert.ok(Object.isFrozen(eventKinds().kinds[0]));
});

test("strict reading is deepstrike-core 0.2.60's: the runtime's other kinds are unknown there", () => {
  const round = '{"kind":"round_started","round":1,"goal":"g"}';
  assert.deepEqual(parseLog(round).errors, []);
  assert.throws(
    () => parseLog(round, { strict: true }),
    (e) => e.code === "invalid_log" && e.errors[0].code === "unknown_kind",
  );
});

test("describe.js takes categories and alarms from the table", () => {
  const grouped = categories();
  assert.deepEqual(Object.keys(grouped), eventKinds().categories);
  assert.deepEqual(grouped.permissions, [
    "permission_requested",
    "permission_resolved",
    "suspended",
    "resumed",
  ]);
  assert.equal(categoryOf("tool_gated"), "tools");
  assert.equal(categoryOf("warp"), "unknown");
  const result = (is_error) => ({ kind: "tool_completed", results: [{ is_error }] });
  assert.equal(isAlarming(result(true)), true);
  assert.equal(isAlarming(result(false)), false);
  assert.equal(isAlarming({ kind: "entropy_alert" }), true);
  assert.equal(isAlarming({ kind: "entropy_sample" }), false);
  assert.equal(isAlarming({ kind: "warp" }), false);
});
