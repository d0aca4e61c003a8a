// The viewer's search finds the same events at every size: the worker's
// search of a log it holds whole (js/viewer/text-search.js) and of a paged
// index (SessionIndex.filter, in WebAssembly) on the same log, query by query.
import { test } from "node:test";
import assert from "node:assert/strict";
import { SessionIndex, SessionState } from "agent-replay";
import { textMatcher } from "../../js/viewer/text-search.js";

/** A log with one assistant message per text. */
const logOf = (texts) =>
  texts
    .map((text, i) =>
      JSON.stringify({
        kind: "llm_completed",
        turn: i + 1,
        message: { role: "assistant", content: ` ${text} ` },
      }),
    )
    .join("\n");

/** Searches `log` both ways the viewer does: `{whole, paged}` positions per query. */
function bothWays(log, queries) {
  const texts = [];
  new SessionState().write(log, { onEvent: (e) => texts.push(e.json) }).end();
  const index = new SessionIndex();
  index.apply(log);
  const whole = (q) => {
    const matches = textMatcher(q);
    return texts.flatMap((t, i) => (matches(t) ? [i + 1] : []));
  };
  return queries.map((q) => ({ q, whole: whole(q), paged: [...index.filter({ query: q })] }));
}

test("letters beyond ASCII match in either case, the same whether the log is paged or not", () => {
  const log = logOf(["kein ärger", "KEIN ÄRGER", "die straße", "DIE STRASSE", "ΟΔΥΣΣΕΎΣ", "x"]);
  const expected = {
    Ärger: [1, 2],
    ärger: [1, 2],
    Straße: [3],
    STRASSE: [4],
    οδυσσεύς: [5],
    "ärger\\": [],
  };
  for (const { q, whole, paged } of bothWays(log, Object.keys(expected))) {
    assert.deepEqual(whole, expected[q], `${q}: a log held whole`);
    assert.deepEqual(paged, expected[q], `${q}: a paged log`);
  }
});

test("every letter of the BMP with a case matches the same letters both ways", () => {
  const letters = [];
  for (let c = 0x80; c <= 0xffff; c++) {
    if (c >= 0xd800 && c <= 0xdfff) continue;
    const ch = String.fromCharCode(c);
    if (ch.toUpperCase() !== ch || ch.toLowerCase() !== ch) letters.push(ch);
  }
  assert.ok(letters.length > 1000);
  // The first Deseret pair (beyond the BMP), and ASCII letters that `ſ`
  // and `ı` must not find.
  const texts = [...letters, "𐐀", "𐐨", "s", "i", "S", "I"];
  const queries = [...letters, "𐐀", "𐐨"];
  let folded = 0;
  for (const { q, whole, paged } of bothWays(logOf(texts), queries)) {
    assert.deepEqual(paged, whole, `U+${q.codePointAt(0).toString(16)} ${q}`);
    if (whole.length > 1) folded++;
  }
  assert.ok(folded > 1000, `most letters find their other case (${folded})`);
});
