#!/usr/bin/env node
// Builds the WebAssembly package into pkg/: cargo (wasm32, the size-tuned
// `wasm` profile) → wasm-bindgen (--target web, one build for every host)
// → wasm-opt; and pkg/sample.js, the embedded sample session as a module.
// `--if-needed` skips the build when pkg/ is newer than every source.
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync, readdirSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "pkg");
const wasm = join(out, "agent_replay_bg.wasm");

function newest(dir) {
  let t = 0;
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    const s = statSync(p);
    t = Math.max(t, s.isDirectory() ? newest(p) : s.mtimeMs);
  }
  return t;
}

if (process.argv.includes("--if-needed") && existsSync(wasm)) {
  const sources = Math.max(
    newest(join(root, "src")),
    newest(join(root, "wasm/src")),
    newest(join(root, "data")),
  );
  if (statSync(wasm).mtimeMs > sources) process.exit(0);
}

const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: "inherit" });
run("cargo", [
  "build",
  "-p",
  "agent-replay-wasm",
  "--target",
  "wasm32-unknown-unknown",
  "--profile",
  "wasm",
]);
run("wasm-bindgen", [
  "--target",
  "web",
  "--out-dir",
  out,
  "--out-name",
  "agent_replay",
  join(root, "target/wasm32-unknown-unknown/wasm/agent_replay_wasm.wasm"),
]);
const sample = readFileSync(join(root, "data/sample-session.jsonl"), "utf8");
writeFileSync(
  join(out, "sample.js"),
  `// Generated from data/sample-session.jsonl by scripts/build.mjs.\nexport default ${JSON.stringify(sample)};\n`,
);
const wasmOpt = join(root, "node_modules/.bin/wasm-opt");
if (existsSync(wasmOpt)) {
  run(wasmOpt, [
    "-O3",
    "--enable-bulk-memory",
    "--enable-nontrapping-float-to-int",
    "--enable-sign-ext",
    "--enable-mutable-globals",
    wasm,
    "-o",
    wasm,
  ]);
}
console.error(`built ${wasm} (${statSync(wasm).size} bytes)`);
