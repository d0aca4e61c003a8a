#!/usr/bin/env node
// agent-replay CLI: `snapshot FILE` prints the OS snapshot JSON, `summary
// FILE` a readable summary, `export --otlp FILE` an OTLP trace, printed or
// posted (bin/export.js, docs/otlp.md), `diff A B` compares two runs (bin/diff.js), `report FILE`
// writes the viewer and the log into one HTML file (bin/report.js), and
// `serve` runs the viewer. FILE may be `-` (stdin); `--sample` uses the
// embedded sample session. Load errors go to stderr with their positions
// and make the exit code 1; usage errors and inputs that cannot be read
// exit 2. A command that prints sets the exit code and returns, never
// process.exit, so what it wrote to a pipe is drained before the process ends.
import { createReadStream, statSync } from "node:fs";
import { SessionState, sampleLog, AgentReplayError } from "../js/node.js";
import { runReport } from "./report.js";
import { summarize } from "./summary.js";
import { DIFF_USAGE, runDiff } from "./diff.js";
import { EXPORT_USAGE, runExport } from "./export.js";

const USAGE = `usage: agent-replay <snapshot|summary> <FILE|-|--sample> [--strict]
       ${EXPORT_USAGE.slice(7)}
       ${DIFF_USAGE.slice(7)}
       agent-replay serve [FILE...|DIR] [--port N] [--no-demo] [--interval-ms N] [--pause-ms N]
                          [--max-events N] [--max-age-ms N] [--write-token T] [--poll-ms N]
                          [--max-open N] [--data DIR|URL] [--host ADDR] [--read-token T]
                          [--allow-host NAME]...
       agent-replay report <FILE|-|--sample> -o OUT.html

  snapshot   print the kernel OS snapshot of the log as JSON
  summary    print a readable summary: status, turns, tools, processes, budgets, errors
  export     --otlp: print the run as an OTLP trace (GenAI conventions; docs/otlp.md):
             OTLP/JSON, or OTLP/protobuf with --format protobuf; --content adds
             message content; --endpoint URL posts it (protobuf unless --format json,
             each --header K=V sent with it) and prints the backend's answer, exit 1
             if it is not 2xx; --session-id names the session; a log with no
             recorded time starts at --start TIME (ISO 8601 or Unix ms), else at
             the file's modification time
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
             --poll-ms (1000) besides watching it, and holds at most
             --max-open (16) sessions in memory at once; --data DIR keeps the
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
  --strict   stop at the first error (unknown kinds included)

exit codes: 0 done; 1 the log had load errors (on stderr; the output still holds every
valid event), diff's runs diverge, or export's --endpoint answered no 2xx; 2 nothing printed: a usage error, an input that
cannot be read (missing, a directory, not permitted) or, for diff and report, that holds
no event, or report's output cannot be written`;

/** What stops a command: its message for stderr and its exit code. */
class CliError extends Error {
  constructor(message, exitCode) {
    super(message);
    this.exitCode = exitCode;
  }
}

/** Stops the command; `run` prints the message and sets the exit code. */
function fail(message, code = 2) {
  throw new CliError(message, code);
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
  try {
    for await (const chunk of stream) {
      state.write(chunk, { strict, onEvent });
      done += chunk.length;
      if (showProgress && Date.now() - lastDraw > 100) {
        lastDraw = Date.now();
        drawProgress(done, total);
      }
    }
  } catch (e) {
    // A directory, or a file the stream cannot open or read, is an input
    // that cannot be read (exit 2); a strict load's error goes on up.
    if (e instanceof AgentReplayError) throw e;
    fail(`cannot read ${source}: ${e.code ?? e.message}`);
  }
  if (showProgress) process.stderr.write("\r\x1b[K");
  const report = state.end({ onEvent });
  return { name: displayName(source), errors: report.errors };
}

function drawProgress(done, total) {
  const width = 30;
  const filled = Math.round((done / total) * width);
  process.stderr.write(
    `\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${Math.floor((done / total) * 100)}% ${(done / 1e6).toFixed(0)} MB`,
  );
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
    "--max-open": "maxOpen",
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
  if (argv[0] === "export") return runExport(argv.slice(1), { load, printError, fail });
  const args = argv.filter((a) => a !== "--strict");
  const strict = args.length !== argv.length;
  const [command, ...rest] = args;
  if (command === "--help" || command === "-h") {
    process.stdout.write(`${USAGE}\n`);
    return;
  }
  const [source] = rest;
  if (!["snapshot", "summary"].includes(command) || !source || rest.length > 1) fail(USAGE);
  const state = new SessionState();
  let loaded;
  try {
    loaded = await load(state, source, strict);
  } catch (e) {
    if (!(e instanceof AgentReplayError)) throw e;
    for (const err of e.errors ?? []) printError(displayName(source), err);
    if (!e.errors?.length) fail(`${e.code}: ${e.message}`, 1);
    process.exitCode = 1;
    return;
  }
  if (command === "snapshot")
    process.stdout.write(`${JSON.stringify(state.osSnapshot(), null, 2)}\n`);
  else process.stdout.write(`${summarize(state.view())}\n`);
  for (const err of loaded.errors) printError(loaded.name, err);
  if (loaded.errors.length) process.exitCode = 1;
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

/** Runs a command to its end: a CliError becomes its message on stderr and
 * its exit code. */
async function run(argv) {
  try {
    await main(argv);
  } catch (e) {
    if (!(e instanceof CliError)) throw e;
    process.stderr.write(`agent-replay: ${e.message}\n`);
    process.exitCode = e.exitCode;
  }
}

// A reader that stops early (`| head`) closes the pipe: what is left of the
// output has nowhere to go, which is the reader's choice, not an error, so
// the command ends there as a program killed by SIGPIPE would, quietly.
process.stdout.on("error", (e) => {
  if (e.code !== "EPIPE") throw e;
  process.exit(process.exitCode ?? 0);
});

await run(process.argv.slice(2));
