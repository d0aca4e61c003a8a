// The command line, run as a user runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { rebuildOsSnapshot, sampleLog } from "agent-replay";
import { rawRequest } from "./edge-scenario.mjs";
import { startServe } from "./serve.mjs";

const cli = new URL("../../bin/agent-replay.js", import.meta.url).pathname;
const run = (args, input) =>
  spawnSync(process.execPath, [cli, ...args], { input, encoding: "utf8" });

test("summary of the embedded sample", () => {
  const r = run(["summary", "--sample"]);
  assert.equal(r.status, 0, r.stderr);
  assert.match(r.stdout, /^Run run-7f3a · agent triage-agent$/m);
  assert.match(r.stdout, /^Status: finished: completed · 7 turns · 44,810 tokens$/m);
  assert.match(r.stdout, /bisect-1 \(bisector\): spawned → running → joined \[completed\]/);
  assert.match(r.stdout, /turn 5 git\.push \(fatal\): denied: force-push/);
});

test("snapshot of a file equals rebuildOsSnapshot; stdin with -", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-"));
  const file = join(dir, "log.jsonl");
  writeFileSync(file, sampleLog());
  const r = run(["snapshot", file]);
  assert.equal(r.status, 0, r.stderr);
  assert.deepEqual(JSON.parse(r.stdout), rebuildOsSnapshot(sampleLog()));
  const piped = run(["snapshot", "-"], sampleLog());
  assert.equal(piped.stdout, r.stdout);
});

test("errors print with positions and exit non-zero", () => {
  const r = run(
    ["snapshot", "-"],
    '{"kind":"page_in","turn":1,"entry_count":1}\n{"kind":"page_in","turn":"x"}\n{"kind":"pa',
  );
  assert.equal(r.status, 1);
  assert.match(r.stderr, /^stdin:2:28: invalid_event: field `turn`: invalid type/m);
  assert.match(r.stderr, /^stdin:3:\d+: truncated:/m);
  assert.equal(JSON.parse(r.stdout).page_in_count, 1, "the valid events are still folded");
  const strict = run(["summary", "-", "--strict"], '{"kind":"warp"}\n');
  assert.equal(strict.status, 1);
  assert.match(strict.stderr, /stdin:1:\d+: unknown_kind/);
  assert.equal(run(["snapshot", "/no/such/file"]).status, 2);
  assert.equal(run(["frobnicate"]).status, 2);
});

/** Runs `agent-replay serve` on a free port until `use(url)` is done. */
async function withServer(args, use) {
  const server = await startServe(args);
  try {
    await use(server.url);
  } finally {
    await server.stop();
  }
}

test("serve: a malformed path or request target is a coded 400, and it keeps serving", async () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-"));
  const file = join(dir, "log.jsonl");
  writeFileSync(file, sampleLog());
  await withServer(["--no-demo", file], async (url) => {
    for (const path of ["/www/%E0%A4%A", "/files/%E0%A4%A", "/agent-replay/js/%ZZ"]) {
      const r = await fetch(url + path);
      assert.equal(r.status, 400, path);
      assert.equal((await r.json()).error.code, "invalid_request", path);
    }
    for (const target of ["http://[", "//x:99999/"]) {
      const r = await rawRequest(url, `GET ${target} HTTP/1.0\r\nHost: ${new URL(url).host}`);
      assert.equal(r.status, 400, target);
      assert.equal(JSON.parse(r.body).error.code, "invalid_request", target);
    }
    assert.equal((await fetch(`${url}/files/log.jsonl`)).status, 200, "still serving");
    const r = await fetch(`${url}/api/sessions/%E0%A4%A`);
    assert.equal((await r.json()).error.code, "invalid_session_id");
  });
});
