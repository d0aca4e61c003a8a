// The command line, run as a user runs it.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import {
  chmodSync,
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  statSync,
  writeFileSync,
} from "node:fs";
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

/** A log larger than a pipe buffer (the sample's events again and again)
 * whose last line is torn, as a live log's can be: each command prints its
 * output, then the load error, and exits 1. */
function bigTornLog(dir, name, copies) {
  const file = join(dir, name);
  writeFileSync(file, `${sampleLog().repeat(copies)}{"kind":"pa`);
  return file;
}

/** The CLI with its stdout redirected to a file: the bytes it wrote. */
function redirected(args) {
  const out = join(mkdtempSync(join(tmpdir(), "agent-replay-")), "out");
  const fd = openSync(out, "w");
  const r = spawnSync(process.execPath, [cli, ...args], { stdio: ["ignore", fd, "pipe"] });
  closeSync(fd);
  return { status: r.status, bytes: statSync(out).size };
}

/** The CLI with its stdout piped through sh into a consumer that starts
 * reading late (`sleep; wc -c`): the bytes that came through the pipe. */
function piped(args) {
  const script = '{ "$0" "$@"; echo "exit $?" >&2; } | { sleep 0.3; wc -c; }';
  const r = spawnSync("sh", ["-c", script, process.execPath, cli, ...args], { encoding: "utf8" });
  return { status: Number(r.stderr.match(/^exit (\d+)$/m)?.[1]), bytes: Number(r.stdout) };
}

test("every command's output is whole through a pipe, before its exit code 1", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-"));
  const log = bigTornLog(dir, "big.jsonl", 200);
  const other = bigTornLog(dir, "other.jsonl", 199);
  const PIPE_BUFFER = 1 << 16;
  const commands = [
    ["snapshot", log],
    ["summary", log],
    ["export", "--otlp", log],
    ["report", log, "-o", "-"],
    ["diff", log, other],
  ];
  for (const args of commands) {
    const toFile = redirected(args);
    assert.equal(toFile.status, 1, args.join(" "));
    if (args[0] !== "diff") assert.ok(toFile.bytes > PIPE_BUFFER, `${args[0]} fills a pipe`);
    assert.deepEqual(piped(args), toFile, args.join(" "));
  }
});

test("a reader that stops early (| head) ends the output quietly, with no stack trace", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-"));
  const log = bigTornLog(dir, "big.jsonl", 200);
  for (const args of [
    ["snapshot", log],
    ["export", "--otlp", log],
    ["report", log, "-o", "-"],
  ]) {
    const script = '{ "$0" "$@"; echo "exit $?" >&2; } | head -c 10 >/dev/null';
    const r = spawnSync("sh", ["-c", script, process.execPath, cli, ...args], { encoding: "utf8" });
    const stderr = r.stderr.replace(/^big\.jsonl.*\n|^.*big\.jsonl:\d+:\d+.*\n/gm, "");
    assert.doesNotMatch(stderr, /EPIPE|Error|at /, args.join(" "));
    assert.match(stderr, /^exit [01]$/m, args.join(" "));
  }
});

/** Runs the CLI as a user who cannot read what root can: as root, with the
 * uid and gid of `nobody`, so a file's mode 000 denies it. */
const asUser = process.getuid?.() === 0 ? { uid: 65534, gid: 65534 } : {};

/** Whether that user can run the CLI at all: not when the checkout is
 * under a directory only root may enter; then mode 000 cannot be tried. */
const userRunsCli = () => spawnSync(process.execPath, [cli, "--help"], asUser).status === 0;

test("an input that cannot be read exits 2 with why on stderr, for every command", () => {
  const dir = mkdtempSync(join(tmpdir(), "agent-replay-"));
  chmodSync(dir, 0o755);
  const locked = join(dir, "locked.jsonl");
  writeFileSync(locked, sampleLog());
  chmodSync(locked, 0o000);
  mkdirSync(join(dir, "a-directory"));
  const inputs = [
    [join(dir, "missing.jsonl"), "ENOENT"],
    [join(dir, "a-directory"), "EISDIR"],
    [join(locked, "under-a-file"), "ENOTDIR"],
    ...(userRunsCli() ? [[locked, "EACCES"]] : []),
  ];
  const out = join(dir, "out.html");
  const commands = [
    (input) => ["snapshot", input],
    (input) => ["summary", input],
    (input) => ["export", "--otlp", input],
    (input) => ["diff", "--sample", input],
    (input) => ["diff", input, "--sample"],
    (input) => ["report", input, "-o", out],
  ];
  for (const [input, code] of inputs) {
    for (const command of commands) {
      const args = command(input);
      const r = spawnSync(process.execPath, [cli, ...args], { encoding: "utf8", ...asUser });
      assert.equal(r.status, 2, `${args.join(" ")}: ${r.stderr}`);
      assert.equal(r.stderr, `agent-replay: cannot read ${input}: ${code}\n`, args.join(" "));
      assert.equal(r.stdout, "", args.join(" "));
    }
  }
  assert.ok(!existsSync(out), "report writes nothing");
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
