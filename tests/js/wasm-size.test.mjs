// The .wasm's size budget (issue 28): every page and edge worker that
// loads the package downloads it, so growth past the budget fails here
// rather than going unnoticed until a benchmark. Measured as
// benches/RESULTS.md does: `gzip -9 < pkg/agent_replay_bg.wasm | wc -c`
// (gzip's own deflate, which node:zlib's differs from by some hundred bytes).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { readFileSync, readdirSync } from "node:fs";

const BUDGET = 150 * 1024;

test("the .wasm is at most 150 KiB gzipped (gzip -9)", () => {
  const wasm = readFileSync(new URL("../../pkg/agent_replay_bg.wasm", import.meta.url));
  const gzipped = execFileSync("gzip", ["-9", "-c"], { input: wasm, maxBuffer: 2 * wasm.length });
  assert.ok(
    gzipped.length <= BUDGET,
    `pkg/agent_replay_bg.wasm is ${gzipped.length} bytes gzipped, over the budget of ${BUDGET}`,
  );
});

/** The modules the binding crate compiles for size (see src/otlp/mod.rs). */
const BUILT_FOR_SIZE = ["src/otlp"];

test("the cold modules' functions are all #[inline]: the binding compiles them for size", () => {
  const root = new URL("../../", import.meta.url);
  const missing = [];
  for (const dir of BUILT_FOR_SIZE) {
    for (const name of readdirSync(new URL(dir, root)).filter((n) => n.endsWith(".rs"))) {
      const path = `${dir}/${name}`;
      const lines = readFileSync(new URL(path, root), "utf8").split("\n");
      const end = lines.findIndex((l) => l.startsWith("#[cfg(test)]"));
      lines.slice(0, end < 0 ? lines.length : end).forEach((line, i) => {
        if (!/^\s*(pub(\([a-z]+\))? )?fn \w+/.test(line)) return;
        let at = i - 1;
        let inline = false;
        while (at >= 0 && /^\s*(#\[|\/\/)/.test(lines[at])) {
          inline ||= lines[at].includes("#[inline");
          at--;
        }
        if (!inline) missing.push(`${path}:${i + 1}`);
      });
    }
  }
  assert.deepEqual(missing, [], "functions without #[inline]");
});
