// The real-runtime corpus (tests/corpus/deepstrike-0.2.77/) through the package: every log
// parses with no load error, its OS snapshot equals the SDK's own fold stored beside it, and
// each dump (`<name>.events.json`, a JSON array of stored entries) reads as its `.jsonl` twin.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { parseLog, rebuildOsSnapshot, SessionState } from "agent-replay";

const dir = new URL("../corpus/deepstrike-0.2.77/", import.meta.url);
const read = (name) => readFileSync(new URL(name, dir), "utf8");
const manifest = JSON.parse(read("MANIFEST.json"));

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
