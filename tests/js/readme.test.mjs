// The README's resume example runs as written and prints what it says.
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const example = new URL("../../examples/resume.mjs", import.meta.url).pathname;
const readme = readFileSync(new URL("../../README.md", import.meta.url), "utf8");

test("the README shows examples/resume.mjs verbatim", () => {
  const code = readFileSync(example, "utf8").split("\n").slice(2).join("\n").trim();
  assert.ok(readme.includes(code), "README's resume example differs from examples/resume.mjs");
});

test("the resume example runs and prints the documented lines", () => {
  const out = execFileSync(process.execPath, [example], { encoding: "utf8" }).trim().split("\n");
  assert.deepEqual(out, ["replayed 3", "true", "gap (trimmed): observation with 8 events", "true"]);
});
