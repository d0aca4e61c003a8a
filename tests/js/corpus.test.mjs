// The real-runtime corpus (tests/corpus/deepstrike-0.2.77/) through the package: every log
// parses with no load error and no unknown kind, its OS snapshot equals the SDK's own fold
// stored beside it, each dump (`<name>.events.json`, a JSON array of stored entries) reads as
// its `.jsonl` twin, and a crash and wake gives the view two lives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { eventKinds, parseLog, rebuildOsSnapshot, SessionState } from "agent-replay";

const dir = new URL("../corpus/deepstrike-0.2.77/", import.meta.url);
const read = (name) => readFileSync(new URL(name, dir), "utf8");
const manifest = JSON.parse(read("MANIFEST.json"));
const known = new Set(eventKinds().kinds.map((k) => k.kind));

// The SDK writes its snapshot with sorted keys, agent-replay in the kernel's order, with the
// same key names and nesting (tests/corpus.rs maps each key): compare values, not key order.
function sorted(value) {
  if (Array.isArray(value)) return value.map(sorted);
  if (value && typeof value === "object") {
    return Object.fromEntries(
      Object.keys(value)
        .sort()
        .map((key) => [key, sorted(value[key])]),
    );
  }
  return value;
}

for (const { log, events } of manifest.logs) {
  test(`${log} parses without errors and folds the SDK's snapshot`, () => {
    const text = read(log);
    const parsed = parseLog(text);
    assert.deepEqual(parsed.errors, []);
    assert.equal(parsed.framing, "stored_entries");
    assert.equal(parsed.events.length, events);
    assert.deepEqual(
      parsed.events.filter((e) => !known.has(e.kind)).map((e) => e.kind),
      [],
      "every kind is known",
    );
    const expected = JSON.parse(read(log.replace(/\.jsonl$/, ".snapshot.json")));
    assert.deepEqual(sorted(rebuildOsSnapshot(text)), sorted(expected));
  });
}

for (const dump of ["tools.events.json", "workflow.events.json"]) {
  test(`${dump} reads as its .jsonl twin, whole and in chunks`, () => {
    const text = read(dump);
    const twin = read(dump.replace(/\.events\.json$/, ".jsonl"));
    const parsed = parseLog(text);
    assert.equal(parsed.framing, "stored_entries_array");
    assert.deepEqual(parsed.errors, []);
    assert.deepEqual(parsed.events, parseLog(twin).events);
    const snapshot = rebuildOsSnapshot(twin);
    assert.deepEqual(rebuildOsSnapshot(new TextEncoder().encode(text)), snapshot);
    const state = new SessionState();
    for (let i = 0; i < text.length; i += 97) state.write(text.slice(i, i + 97));
    assert.deepEqual(state.end(), {
      framing: "stored_entries_array",
      events: parsed.events.length,
      errors: [],
    });
    assert.deepEqual(state.osSnapshot(), snapshot);
    state.free();
  });
}

test("crash_wake.jsonl: the wake starts a second life, whose turns are not merged", () => {
  const state = new SessionState().apply(read("crash_wake.jsonl"));
  const view = state.view();
  assert.equal(view.errors.unknown_events, 0);
  assert.deepEqual(view.lives, [
    { life: 1, first_position: 1, last_position: 10, first_turn: 0, last_turn: 1 },
    { life: 2, first_position: 11, last_position: 32, first_turn: 0, last_turn: 2 },
  ]);
  assert.deepEqual(
    view.turns.map((t) => [t.life, t.turn]),
    [
      [1, 0],
      [1, 1],
      [2, 0],
      [2, 1],
      [2, 2],
    ],
  );
  assert.deepEqual(state.summary().lives, view.lives);
  state.free();
});
