// The viewer's deep links (www/links.js): the hash a view is written as,
// and the view read back from it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { decodeLink, emptyLink, encodeLink } from "../../www/links.js";

const link = (fields) => ({ ...emptyLink(), ...fields });

test("a link holds the position, selection, filters and search", () => {
  const full = link({
    at: 120,
    sel: 118,
    kinds: ["tool_completed", "kernel_observation/round_paced"],
    categories: ["tool", "model"],
    kernel_categories: ["syscall"],
    primitives: ["mm"],
    query: "timeout",
  });
  const hash = encodeLink(full);
  assert.equal(
    hash,
    "at=120&sel=118&kind=tool_completed,kernel_observation/round_paced&category=tool,model&kernel=syscall&primitive=mm&q=timeout",
  );
  assert.deepEqual(decodeLink(`#${hash}`), full);
  assert.deepEqual(decodeLink(hash), full);
});

test("the brief's example reads as written", () => {
  assert.deepEqual(
    decodeLink("#at=120&sel=118&kind=tool_completed&q=timeout"),
    link({ at: 120, sel: 118, kinds: ["tool_completed"], query: "timeout" }),
  );
});

test("nothing to hold is an empty hash, and an empty hash is the latest, unfiltered", () => {
  assert.equal(encodeLink(emptyLink()), "");
  assert.deepEqual(decodeLink(""), emptyLink());
  assert.deepEqual(decodeLink("#"), emptyLink());
  assert.equal(encodeLink(link({ at: 0 })), "at=0");
});

test("a list key may repeat or hold commas; repeats are read once", () => {
  assert.deepEqual(
    decodeLink("kind=a,b&kind=c&kind=a&category=tool&category=&kernel=proc,ipc").kinds,
    ["a", "b", "c"],
  );
  assert.deepEqual(decodeLink("kernel=proc,ipc&kernel=sched").kernel_categories, [
    "proc",
    "ipc",
    "sched",
  ]);
});

test("any search text survives the round trip", () => {
  for (const query of [
    "a b",
    "x&y=z",
    "50%, not 100%",
    "#hash?",
    "déjà vu → ✓",
    "a+b",
    "path/to,file",
  ]) {
    const hash = encodeLink(link({ query }));
    assert.deepEqual(decodeLink(hash), link({ query }), hash);
  }
  assert.equal(encodeLink(link({ query: "a b, c/d" })), "q=a%20b,%20c/d");
  assert.equal(decodeLink("q=a+b").query, "a b");
});

test("an item with a comma stays one item", () => {
  const l = link({ kinds: ["odd,kind", "plain"] });
  assert.deepEqual(decodeLink(encodeLink(l)), l);
});

test("bad positions, bad escapes and unknown keys are ignored, not thrown", () => {
  assert.deepEqual(
    decodeLink("at=-1&sel=1.5&kind=%E0%A4%A&q=%&bogus=1&=x&novalue"),
    link({ kinds: ["%E0%A4%A"], query: "%" }),
  );
  assert.equal(decodeLink("at=abc").at, null);
  assert.equal(decodeLink("at=1e3").at, null);
  assert.equal(decodeLink("at=1&at=7").at, 7);
});
