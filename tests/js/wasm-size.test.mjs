// The .wasm's size budget (issue 28): every page and edge worker that
// loads the package downloads it, so growth past the budget fails here
// rather than going unnoticed until a benchmark. Measured as
// benches/RESULTS.md does: `gzip -9 < pkg/agent_replay_bg.wasm | wc -c`
// (gzip's own deflate, which node:zlib's differs from by some hundred bytes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";

const BUDGET = 150 * 1024;

test("the .wasm is at most 150 KiB gzipped (gzip -9)", () => {
  const wasm = readFileSync(new URL("../../pkg/agent_replay_bg.wasm", import.meta.url));
  const gzipped = execFileSync("gzip", ["-9", "-c"], { input: wasm, maxBuffer: 2 * wasm.length });
  assert.ok(
    gzipped.length <= BUDGET,
    `pkg/agent_replay_bg.wasm is ${gzipped.length} bytes gzipped, over the budget of ${BUDGET}`,
  );
});
