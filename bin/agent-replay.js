#!/usr/bin/env node
// agent-replay CLI: `snapshot FILE` prints the OS snapshot JSON, `summary
// FILE` a readable summary, `export --otlp FILE` OTLP/JSON traces
// (docs/otlp.md), `diff A B` compares two runs (bin/diff.js), `report FILE`
// writes the viewer and the log into one HTML file (bin/report.js), and
// `serve` runs the viewer. FILE may be `-` (stdin); `--sample` uses the
// embedded sample session. Load errors go to stderr with their positions
// and make the exit code 1; usage errors exit 2.
import { createReadStream, statSync } from "node:fs";
import { SessionState, sampleLog, AgentReplayError } from "../js/node.js";
import { runReport } from "./report.js";
import { summarize } from "./summary.js";
import { DIFF_USAGE, runDiff } from "./diff.js";

const USAGE = `usage: agent-replay <snapshot|summary> <FILE|-|--sample> [--strict]
       agent-replay export --otlp <FILE|-|--sample> [--content] [--strict]
       ${DIFF_USAGE.slice(7)}
       agent-replay serve [FILE...|DIR] [--port N] [--no-demo] [--interval-ms N] [--pause-ms N]
                          [--max-events N] [--max-age-ms N] [--write-token T] [--poll-ms N]
                          [--data DIR|URL] [--host ADDR] [--read-token T] [--allow-host NAME]...
       agent-replay report <FILE|-|--sample> -o OUT.html

  snapshot   print the kernel OS snapshot of the log as JSON
  summary    print a readable summary: status, turns, tools, processes, budgets, errors
  export     --otlp: print the run as OTLP/JSON traces (GenAI conventions; docs/otlp.md),
             --content adds message content
  diff       compare two runs (A and B: FILE, - or --sample): the first divergence with
             the event from each side, then each turn; exit 0 when they match,
             1 when they diverge, 2 when one is not a log
  serve      serve the session viewer on 127.0.0.1 (port 8080 or $PORT; 0 picks one),
             with the sample session played live on a loop (--no-demo: off) and
             each FILE ready to open; --interval-ms paces the demo (1100) and
             --pause-ms separates its runs (5000),
             --max-events/--max-age-ms bound the live buffer, --write-token
             allows POST /api/sessions/ID/events with that bearer token;
             given a DIR (the agent runtime's FileSessionLog directory, one
             SESSION.jsonl per session), it lists its sessions at /sessions and
             follows each live as it grows (no demo), polling every
             --poll-ms (1000) besides watching it; --data DIR keeps the
             sessions appended over HTTP in DIR (SESSION.jsonl, fsynced per
             append), so they survive a restart (no demo), or --data
             postgres://... in that database, shared by every serve given
             it (docs/postgres.md); it answers only
             requests whose Host is its own (127.0.0.1, localhost, [::1] at
             its port, each --allow-host NAME at any port); --host ADDR listens
             on ADDR instead (and answers it), which needs a read token:
             --read-token T, or one made up and printed; with a read token
             every request carries it (Authorization: Bearer T, or the
             printed URL's ?token=T, which sets a cookie)
  report     write OUT.html, one file holding the viewer and the log (gzipped) that
             opens from file:// with no server or network (OUT.html - : stdout);
             load errors are shown and make the exit code 1, the report is still
             written; an unreadable input, or one with errors and no event, writes
             nothing and exits 2
  FILE       a JSON, JSON Lines or stored-entry log; - reads stdin
  --sample   use the embedded sample session
  --strict   stop at the first error (unknown kinds included)`;

function fail(message, code = 2) {
  process.stderr.write(`agent-replay: ${message}\n`);
  process.exit(code);
}

/** Streams a file into the state, drawing a progress bar on a terminal;
 * `onEvent` receives each event folded. */
async function load(state, source, strict, onEvent) {
  if (source === "--sample") {
    state.write(sampleLog(), { strict, onEvent });
    return { name: displayName(source), errors: state.end({ onEvent }).errors };
  }
  const fromStdin = source === "-";
  let total = 0;
  if (!fromStdin) {
    try {
      total = statSync(source).size;
    } catch (e) {
      fail(`cannot read ${source}: ${e.code ?? e.message}`);
    }
  }
  const stream = fromStdin ? process.stdin : createReadStream(source, { highWaterMark: 1 << 20 });
  const showProgress = process.stderr.isTTY && total > 8 << 20;
  let done = 0;
  let lastDraw = 0;
  for await (const chunk of stream) {
    state.write(chunk, { strict, onEvent });
    done += chunk.length;
    if (showProgress && Date.now() - lastDraw > 100) {
      lastDraw = Date.now();
      const width = 30;
      const filled = Math.round((done / total) * width);
      process.stderr.write(
        `\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${(done / 1e6).toFixed(0)} MB`,
      );
    }
  }
  if (showProgress) process.stderr.write("\r\x1b[K");
  const report = state.end({ onEvent });
  return { name: displayName(source), errors: report.errors };
}

/** `serve`: flags with values, then files. */
async function runServer(argv) {
  const options = { port: Number(process.env.PORT ?? 8080), files: [], allowHosts: [] };
  const numeric = {
    "--port": "port",
    "--interval-ms": "intervalMs",
    "--pause-ms": "pauseMs",
    "--max-events": "maxEventsPerSession",
    "--max-age-ms": "maxAgeMs",
    "--poll-ms": "pollMs",
  };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--no-demo") options.demo = false;
    else if (a === "--write-token") options.writeToken = argv[++i] ?? fail(USAGE);
    else if (a === "--data") options.data = argv[++i] ?? fail(USAGE);
    else if (a === "--host") options.host = argv[++i] ?? fail(USAGE);
    else if (a === "--read-token") options.readToken = argv[++i] ?? fail(USAGE);
    else if (a === "--allow-host") options.allowHosts.push(argv[++i] ?? fail(USAGE));
    else if (a in numeric) {
      const n = Number(argv[++i]);
      if (!Number.isInteger(n) || n < 0) fail(`${a} needs a whole number`);
      options[numeric[a]] = n;
    } else if (a.startsWith("-")) fail(USAGE);
    else if (isDirectory(a)) {
      if (options.dir) fail("serve follows one directory");
      options.dir = a;
    } else options.files.push(a);
  }
  if (options.dir && options.data) fail("serve keeps --data or follows a directory, not both");
  const { serve } = await import("./serve.js");
  let server;
  try {
    server = await serve(options);
  } catch (e) {
    fail(
      e.code === "EADDRINUSE"
        ? `port ${options.port} is taken; pass --port N (0 picks a free one)`
        : `cannot serve: ${e.message}`,
      1,
    );
  }
  process.stdout.write(`agent-replay viewer: ${server.viewer}\n`);
  if (server.readToken)
    process.stdout.write(
      `  every request needs the read token ${server.readToken} (Authorization: Bearer, or ?token=)\n`,
    );
  if (options.demo ?? !(options.dir || options.data))
    process.stdout.write(
      `  the sample session plays live (a new run each loop); open the URL to follow it\n`,
    );
  if (options.data)
    process.stdout.write(`  keeping sessions in ${options.data}: ${server.url}/api/sessions/ID\n`);
  if (options.dir)
    process.stdout.write(`  following ${options.dir}: its sessions at ${server.url}/sessions\n`);
  for (const u of server.files) process.stdout.write(`  ${u}\n`);
  process.stdout.write(`  Ctrl-C stops it\n`);
  const stop = () => server.close().then(() => process.exit(0));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
}

function isDirectory(path) {
  try {
    return statSync(path).isDirectory();
  } catch {
    return false; // serve reports a missing file
  }
}

async function main(argv) {
  if (argv[0] === "serve") return runServer(argv.slice(1));
  if (argv[0] === "report") return runReport(argv.slice(1), { fail, usage: USAGE, printError });
  if (argv[0] === "diff") return runDiff(argv.slice(1), { load, printError, fail });
  const args = argv.filter((a) => a !== "--strict");
  const strict = args.length !== argv.length;
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const operands = command === "export" ? exportOperands(rest) : rest;
  const [source] = operands;
  if (!["snapshot", "summary", "export"].includes(command) || !source || operands.length > 1)
    fail(USAGE);
  const state = new SessionState();
  let loaded;
  try {
    loaded = await load(state, source, strict);
  } catch (e) {
    if (!(e instanceof AgentReplayError)) throw e;
    for (const err of e.errors ?? []) printError(displayName(source), err);
    if (!e.errors?.length) fail(`${e.code}: ${e.message}`, 1);
    process.exit(1);
  }
  if (command === "snapshot")
    process.stdout.write(`${JSON.stringify(state.osSnapshot(), null, 2)}\n`);
  else if (command === "export")
    process.stdout.write(
      `${JSON.stringify(state.toOtlp({ content: rest.includes("--content") }))}\n`,
    );
  else process.stdout.write(`${summarize(state.view())}\n`);
  for (const err of loaded.errors) printError(loaded.name, err);
  if (loaded.errors.length) process.exit(1);
}

/** `export`'s operands: it needs `--otlp` (the one format so far) and may take `--content`. */
function exportOperands(rest) {
  if (!rest.includes("--otlp")) fail(USAGE);
  return rest.filter((a) => a !== "--otlp" && a !== "--content");
}

function displayName(source) {
  return source === "-" ? "stdin" : source === "--sample" ? "sample" : source;
}

function printError(name, err) {
  const where = err.index !== undefined ? ` (element ${err.index})` : "";
  const field = err.field ? ` field \`${err.field}\`:` : "";
  process.stderr.write(
    `${name}:${err.line}:${err.column}${where}: ${err.code}:${field} ${err.message}\n`,
  );
}

await main(process.argv.slice(2));
