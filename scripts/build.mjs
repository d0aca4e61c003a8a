#!/usr/bin/env node
// Builds the WebAssembly package into pkg/: cargo (wasm32, the size-tuned
// `wasm` profile) → wasm-bindgen (--target web, one build for every host)
// → wasm-opt; pkg/sample.js, the embedded sample session as a module; and
// the CommonJS entries (see bundleCommonJs); the viewer page's bundles
// (scripts/viewer-bundles.mjs); and the one-file report's template
// (scripts/report-template.mjs).
// `--if-needed` skips the .wasm's build when it is newer than every Rust
// source, and the viewer's bundles when they are newer than www/ and js/.
import { execFileSync } from "node:child_process";
import { copyFileSync, existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { newest } from "./fs-times.mjs";
import { buildReportTemplate } from "./report-template.mjs";
import { buildViewerBundles, viewerBundlesStale } from "./viewer-bundles.mjs";

const root = new URL("..", import.meta.url).pathname;
const out = join(root, "pkg");
const wasm = join(out, "agent_replay_bg.wasm");

/**
 * `require("agent-replay")`, `require("agent-replay/edge")` and
 * `require("agent-replay/node")` on Node:
 * the ESM API bundled as CommonJS, which `require` can load (js/node.js
 * awaits at top level, which it cannot). The bundle compiles the .wasm
 * beside it synchronously. Its types are js/*.d.ts copied as .d.cts, so
 * TypeScript reads them as CommonJS declarations.
 */
async function bundleCommonJs() {
  const common = {
    bundle: true,
    format: "cjs",
    platform: "node",
    logLevel: "warning",
    // Only the async init of the bindings reads import.meta.url; initSync does not.
    logOverride: { "empty-import-meta": "silent" },
  };
  await esbuild.build({
    ...common,
    stdin: {
      contents: [
        'import { readFileSync } from "node:fs";',
        'import { join } from "node:path";',
        'import { initSync } from "./pkg/agent_replay.js";',
        'import { assertSimd } from "./js/common.js";',
        'export { init } from "./js/common.js";',
        "assertSimd();",
        "// __dirname: pkg/, where this bundle and the .wasm are.",
        'initSync({ module: new WebAssembly.Module(readFileSync(join(__dirname, "agent_replay_bg.wasm"))) });',
        'export * from "./js/api.js";',
        'export * from "./js/live.js";',
        'export * from "./js/durable.js";',
      ].join("\n"),
      resolveDir: root,
      sourcefile: "agent_replay.cjs",
    },
    outfile: join(out, "agent_replay.cjs"),
  });
  // The edge handler requires the CommonJS entry, so both share one instance.
  await esbuild.build({
    ...common,
    entryPoints: [join(root, "js/edge.js")],
    external: ["agent-replay"],
    outfile: join(out, "edge.cjs"),
  });
  // toNodeListener needs nothing of the .wasm: the bundle holds all it uses.
  await esbuild.build({
    ...common,
    entryPoints: [join(root, "js/node-listener.js")],
    outfile: join(out, "node-listener.cjs"),
  });
  copyFileSync(join(root, "js/index.d.ts"), join(out, "agent_replay.d.cts"));
  copyFileSync(join(root, "js/node-listener.d.ts"), join(out, "node-listener.d.cts"));
  const edgeTypes = readFileSync(join(root, "js/edge.d.ts"), "utf8");
  writeFileSync(
    join(out, "edge.d.cts"),
    edgeTypes.replaceAll('from "./index.js"', 'from "agent-replay"'),
  );
}

if (process.argv.includes("--if-needed") && existsSync(wasm)) {
  const sources = Math.max(
    newest(join(root, "src")),
    newest(join(root, "wasm/src")),
    newest(join(root, "data")),
  );
  if (statSync(wasm).mtimeMs > sources) {
    if (viewerBundlesStale(root, out)) await buildViewerBundles(root, out);
    await bundleCommonJs();
    await buildReportTemplate(root, out);
    process.exit(0);
  }
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
const wasmOpt = join(root, "node_modules/.bin/wasm-opt");
const features = [
  "--enable-bulk-memory",
  "--enable-nontrapping-float-to-int",
  "--enable-sign-ext",
  "--enable-mutable-globals",
  "--enable-simd",
];
let linked = join(root, "target/wasm32-unknown-unknown/wasm/agent_replay_wasm.wasm");
if (existsSync(wasmOpt)) {
  // wasm/src/mem.rs's `memcmp` replaces compiler-builtins' inside the
  // module; rustc exports every `#[no_mangle]` function, so its export is
  // removed before wasm-bindgen lists the exports in the JS types.
  const unexported = join(root, "target/wasm32-unknown-unknown/wasm/agent_replay_unexported.wasm");
  run(wasmOpt, [...features, "--remove-exports=memcmp", linked, "-o", unexported]);
  linked = unexported;
}
run("wasm-bindgen", ["--target", "web", "--out-dir", out, "--out-name", "agent_replay", linked]);
const sample = readFileSync(join(root, "data/sample-session.jsonl"), "utf8");
writeFileSync(
  join(out, "sample.js"),
  `// Generated from data/sample-session.jsonl by scripts/build.mjs.\nexport default ${JSON.stringify(sample)};\n`,
);
if (existsSync(wasmOpt)) {
  run(wasmOpt, [
    "-O3",
    // Repeats the passes while they still shrink the module.
    "--converge",
    // Lets constant offsets fold into loads and stores: the module never
    // reads its lowest 1 KiB (rustc puts the stack first, growing down from
    // 1 MiB to 0, so only a stack about to overflow would reach it).
    "--low-memory-unused",
    // The toolchain's metadata sections: nothing reads them at run time.
    "--strip-producers",
    "--strip-target-features",
    ...features,
    wasm,
    "-o",
    wasm,
  ]);
}
await buildViewerBundles(root, out);
await bundleCommonJs();
await buildReportTemplate(root, out);
console.error(`built ${wasm} (${statSync(wasm).size} bytes)`);
