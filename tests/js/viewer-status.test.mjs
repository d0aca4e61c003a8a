// The viewer's one home for status words and tones (js/viewer/status.js)
// and for colours (js/viewer/palette.js): every state the core has gives
// words and a tone, a state from a newer runtime a sensible fallback, and
// every place that shows colours (the element's styles, the pages'
// stylesheet, the dashboard's tones) takes them from the palette.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { SessionState, parseLog } from "agent-replay";
import {
  OUTCOMES,
  STATES,
  outcomeOf,
  outcomeTone,
  outcomeWords,
  statusTone,
  statusWords,
  suspensionWords,
} from "../../js/viewer/status.js";
import {
  SERIES_COLORS,
  THEMES,
  TONE_COLORS,
  themeVariables,
  toneColors,
} from "../../js/viewer/palette.js";
import { STYLES } from "../../js/viewer/styles.js";
import { describeEvent } from "../../js/viewer/describe.js";
import { statusLabel } from "../../www/sessions-rows.js";

const root = new URL("../..", import.meta.url);
const read = (path) => readFileSync(new URL(path, root), "utf8");

/** One status of each state the core has, as its views give them. */
const STATUSES = [
  { state: "not_started" },
  { state: "running" },
  { state: "suspended", position: 4, turn: 2, reason: "ask_user", pending_calls: ["call-5"] },
  { state: "terminal", position: 9, reason: "completed", turns_used: 3, total_tokens: 10 },
  { state: "terminal", position: 9, reason: "max_turns", turns_used: 3, total_tokens: 10 },
];

test("status.js's states are the core's SessionStatus states (js/index.d.ts)", () => {
  const union = read("js/index.d.ts").match(/export type SessionStatus =(\n +\|[^\n]*)+/)[0];
  const states = [...union.matchAll(/state: "(\w+)"/g)].map((m) => m[1]);
  assert.deepEqual(states, STATES);
  assert.deepEqual(
    STATUSES.map((s) => s.state),
    [...STATES, "terminal"],
  );
});

test("every status gives words and a tone the palette colours", () => {
  assert.deepEqual(
    STATUSES.map((s) => [statusWords(s), statusTone(s), outcomeOf(s)]),
    [
      ["not started", "idle", "not_started"],
      ["running", "running", "running"],
      ["suspended: ask_user (pending call-5)", "suspended", "suspended"],
      ["finished: completed", "done", "completed"],
      ["finished: max_turns", "failed", "failed"],
    ],
  );
  for (const outcome of OUTCOMES) {
    assert.ok(Object.hasOwn(TONE_COLORS, outcomeTone(outcome)), outcome);
    assert.equal(outcomeWords(outcome), outcome.replace("_", " "));
  }
  assert.deepEqual(
    [...new Set(STATUSES.map(outcomeOf))].sort(),
    [...OUTCOMES].sort(),
    "every outcome is reached from some status",
  );
});

test("a state from a newer runtime is named in words, in a neutral tone", () => {
  const status = { state: "handed_over", to: "agent-2" };
  assert.equal(statusWords(status), "handed over");
  assert.equal(outcomeOf(status), "handed_over");
  assert.equal(statusTone(status), "idle");
  assert.equal(outcomeTone("toString"), "idle", "not a property of every object");
  assert.equal(statusWords({}), "unknown");
  assert.deepEqual(toneColors("no_such_tone"), toneColors("idle"));
});

test("a suspension reads the same in the header, the event list and the dashboard", () => {
  assert.equal(suspensionWords({ reason: "ask_user", pending_calls: [] }), "ask_user");
  assert.equal(suspensionWords({ reason: "ask_user" }), "ask_user", "an event without the list");
  const log = [
    '{"kind":"run_started","run_id":"r","goal":"g"}',
    '{"kind":"suspended","turn":1,"reason":"ask_user","pending_calls":["c1","c2"]}',
  ].join("\n");
  const view = new SessionState().apply(log).view();
  assert.equal(statusWords(view.status), "suspended: ask_user (pending c1, c2)");
  const event = parseLog(log).events[1];
  assert.equal(describeEvent(event), "suspended: ask_user (pending c1, c2)");
  assert.equal(statusLabel({ status: view.status }), statusWords(view.status));
});

test("palette.js: both themes name the same colours, each tone's among them", () => {
  assert.deepEqual(Object.keys(THEMES.dark), Object.keys(THEMES.light));
  for (const theme of Object.values(THEMES))
    for (const [name, value] of Object.entries(theme)) assert.match(value, /^#[0-9a-f]{6}$/, name);
  for (const [tone, names] of Object.entries(TONE_COLORS))
    for (const name of names) assert.ok(Object.hasOwn(THEMES.light, name), `${tone}: ${name}`);
  assert.deepEqual(toneColors("done", "asv-"), {
    color: "var(--asv-good)",
    background: "var(--asv-good-bg)",
  });
  assert.equal(new Set(SERIES_COLORS).size, SERIES_COLORS.length);
});

test("the element's styles declare the palette's themes and tones", () => {
  for (const theme of Object.values(THEMES))
    assert.ok(STYLES.includes(themeVariables(theme, "asv-")));
  for (const tone of Object.keys(TONE_COLORS)) {
    const { color, background } = toneColors(tone, "asv-");
    assert.ok(
      STYLES.includes(`.asv-badge.asv-${tone} { background: ${background}; color: ${color}; }`),
      tone,
    );
  }
});

test("the pages' stylesheet (www/css/base.css) declares the palette's colours, by the same names, and each tone's", () => {
  const css = read("www/css/base.css");
  const block = (selector) => {
    const at = css.indexOf(`${selector} {`);
    assert.ok(at >= 0, selector);
    const body = css.slice(at, css.indexOf("}", at));
    return Object.fromEntries(
      [...body.matchAll(/--([\w-]+):\s*(#[0-9a-f]+);/g)].map((m) => [m[1], m[2]]),
    );
  };
  for (const [selector, theme] of [
    [":root", THEMES.light],
    [':root[data-theme="dark"]', THEMES.dark],
  ]) {
    const declared = block(selector);
    for (const [name, value] of Object.entries(declared))
      assert.equal(value, theme[name], `${selector} --${name}`);
    for (const names of Object.values(TONE_COLORS))
      for (const name of names) assert.ok(declared[name], `${selector} lacks --${name}`);
  }
  const hex = /#[0-9a-fA-F]{3,6}\b/;
  const pages = ["www/sessions.html", "www/index.html", "www/compare.html", "www/report.css"];
  for (const page of pages) assert.doesNotMatch(read(page), hex, page);
});
