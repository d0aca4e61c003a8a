// Folding on from an observation (after a live gap), time-travel
// checkpoints, and the events a streamed log folds, through the package.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionState, ReplaySession, AgentReplayError, parseLog, sampleLog } from "agent-replay";

const sample = sampleLog();
const lines = sample.trimEnd().split("\n");

test("a state restored from an observation folds on to the server's state", () => {
  const server = new ReplaySession("s", { maxEventsPerSession: 4 });
  const client = new SessionState("s");
  const start = server.observe().cursor;
  const head = lines.slice(0, 10);
  server.append(head.join("\n"));
  client.apply(head.join("\n"));
  const cursor = server.observe().cursor;
  server.append(lines.slice(10, 30).join("\n")); // the client misses these; the buffer keeps 4
  const resumed = server.resume(cursor);
  assert.equal(resumed.type, "gap");
  const restored = SessionState.fromObservation(resumed.observation);
  assert.deepEqual(restored.view(), resumed.observation.state);
  const tail = server.append(lines.slice(30).join("\n"));
  for (const e of tail) restored.apply(e.event);
  assert.deepEqual(restored.view(), server.observe().state);
  const whole = new SessionState("s").apply(sample);
  assert.deepEqual(restored.osSnapshot(), whole.osSnapshot());
  // JSON text of an observation or of a view works too.
  assert.deepEqual(
    SessionState.fromObservation(JSON.stringify(resumed.observation)).view(),
    resumed.observation.state,
  );
  assert.deepEqual(SessionState.fromObservation(resumed.observation.state).eventCount, 30);
  void start;
});

test("what is not a view gives invalid_observation, and the instance lives on", () => {
  for (const bad of [
    "{",
    "{}",
    { cursor: "x", state: { event_count: -1 } },
    '{"status":{"state":"x"}}',
  ]) {
    assert.throws(
      () => SessionState.fromObservation(bad),
      (e) => e instanceof AgentReplayError && e.code === "invalid_observation",
      String(bad),
    );
  }
  assert.throws(
    () => SessionState.fromObservation(7),
    (e) => e.code === "invalid_input",
  );
  assert.equal(new SessionState().apply(sample).eventCount, 78);
});

test("a checkpoint folds on to the same summary and OS snapshot, without lists", () => {
  const whole = new SessionState().apply(sample);
  for (const k of [0, 1, 17, 40, 78]) {
    const head = new SessionState().apply(lines.slice(0, k).join("\n"));
    const cp = head.checkpoint();
    head.free();
    if (k < lines.length) cp.apply(lines.slice(k).join("\n"));
    assert.deepEqual(cp.summary(), whole.summary(), `split at ${k}`);
    assert.deepEqual(cp.osSnapshot(), whole.osSnapshot(), `split at ${k}`);
    assert.deepEqual(cp.view().transcript, []);
  }
  const s = whole.summary();
  assert.equal(s.event_count, 78);
  assert.equal(s.status.state, "terminal");
  assert.deepEqual(s.processes, whole.view().processes);
});

test("write and end with onEvent hand over each folded event with its position and text", () => {
  const bytes = new TextEncoder().encode(`${sample}{"kind":"page_in","turn":8,"entry_count":1}`);
  const state = new SessionState();
  const seen = [];
  for (let i = 0; i < bytes.length; i += 97)
    state.write(bytes.subarray(i, i + 97), { onEvent: (e) => seen.push(e) });
  const report = state.end({ onEvent: (e) => seen.push(e) });
  assert.equal(report.events, 79);
  assert.equal(seen.length, 79);
  const parsed = parseLog(sample).events;
  seen.slice(0, 78).forEach((e, i) => {
    assert.equal(e.position, i + 1);
    assert.equal(e.kind, parsed[i].kind);
    assert.equal(e.turn, parsed[i].turn ?? null);
    assert.deepEqual(JSON.parse(e.json), parsed[i]);
  });
  assert.deepEqual(seen[78], {
    position: 79,
    kind: "page_in",
    turn: 8,
    json: '{"kind":"page_in","turn":8,"entry_count":1}',
  });
  // Non-ASCII texts are cut at the right places.
  const s2 = new SessionState();
  const got = [];
  s2.write(
    '{"kind":"run_started","run_id":"é😀","goal":"ü"}\n{"kind":"page_in","turn":1,"entry_count":1}\n',
    { onEvent: (e) => got.push(e.json) },
  );
  assert.deepEqual(
    got.map((j) => JSON.parse(j).kind),
    ["run_started", "page_in"],
  );
  assert.equal(JSON.parse(got[0]).run_id, "é😀");
});

/** Just enough of a DOM for the viewer's renderers: elements with their
 * attributes and children. */
function fakeDocument() {
  class Node {}
  class Element extends Node {
    constructor(tag) {
      super();
      this.tag = tag;
      this.attributes = {};
      this.children = [];
      this.dataset = {};
    }
    setAttribute(k, v) {
      this.attributes[k] = v;
    }
    addEventListener() {}
    append(...c) {
      this.children.push(...c);
    }
    *walk() {
      yield this;
      for (const c of this.children) if (c instanceof Element) yield* c.walk();
    }
  }
  globalThis.Node = Node;
  globalThis.document = { createElement: (tag) => new Element(tag) };
}

test("time travel marks an entry undone only once the rollback that undid it is reached", async () => {
  fakeDocument();
  const { renderTranscript } = await import("../../js/viewer/render-transcript.js");
  const said = (turn) =>
    JSON.stringify({
      kind: "llm_completed",
      turn,
      message: { role: "assistant", content: `turn ${turn}` },
    });
  const log = [
    '{"kind":"checkpoint_taken","turn":1,"history_len":1}',
    said(1), // 2: undone by the rollback at 7 only
    '{"kind":"checkpoint_taken","turn":1,"history_len":2}',
    said(2), // 4: undone by the rollback at 5
    '{"kind":"rollbacked","turn":2,"checkpoint_history_len":2}',
    said(3), // 6: undone by the rollback at 7
    '{"kind":"rollbacked","turn":3,"checkpoint_history_len":1}',
  ].join("\n");
  const view = new SessionState().apply(log).view();
  const undoneAt = (at) =>
    [...renderTranscript(view, { at }).walk()]
      .filter((e) => e.tag === "li" && e.attributes.class.includes("asv-undone"))
      .map((e) => Number(e.attributes["data-position"]));
  assert.deepEqual(undoneAt(4), []);
  assert.deepEqual(undoneAt(5), [4]);
  assert.deepEqual(undoneAt(6), [4]);
  assert.deepEqual(undoneAt(7), [2, 4, 6]);
});
