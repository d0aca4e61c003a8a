// `agent-replay export --otlp LOG`: the run as an OTLP trace (docs/otlp.md),
// printed as OTLP/JSON or OTLP/protobuf, or posted to an OTLP/HTTP endpoint
// (`--endpoint URL/v1/traces`), which many backends take only as protobuf.
// A log with no recorded time is placed at its file's modification time
// (stdin and --sample: now) unless `--start` says when it began.
import { statSync } from "node:fs";
import { AgentReplayError, SessionState } from "../js/node.js";

export const EXPORT_USAGE = `usage: agent-replay export --otlp <FILE|-|--sample> [--content] [--strict]
                          [--format json|protobuf] [--session-id ID] [--start TIME]
                          [--endpoint URL [--header K=V]...]`;

const CONTENT_TYPES = { json: "application/json", protobuf: "application/x-protobuf" };

/** The options and the one log source; usage errors exit 2. */
function parse(argv, fail) {
  const o = { otlp: false, content: false, strict: false, headers: {}, sources: [] };
  const value = (i) => argv[i] ?? fail(EXPORT_USAGE);
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "--otlp") o.otlp = true;
    else if (a === "--content") o.content = true;
    else if (a === "--strict") o.strict = true;
    else if (a === "--format") o.format = value(++i);
    else if (a === "--session-id") o.sessionId = value(++i);
    else if (a === "--start") o.start = startOf(value(++i), fail);
    else if (a === "--endpoint") o.endpoint = value(++i);
    else if (a === "--header") {
      const [key, ...rest] = value(++i).split("=");
      if (!key || !rest.length) fail("--header needs K=V");
      o.headers[key] = rest.join("=");
    } else if (a === "-" || a === "--sample" || !a.startsWith("-")) o.sources.push(a);
    else fail(EXPORT_USAGE);
  }
  if (!o.otlp || o.sources.length !== 1) fail(EXPORT_USAGE);
  if (o.format !== undefined && !(o.format in CONTENT_TYPES)) fail("--format is json or protobuf");
  if (Object.keys(o.headers).length && !o.endpoint) fail("--header goes with --endpoint");
  if (o.endpoint && !URL.canParse(o.endpoint)) fail(`--endpoint: not a URL: ${o.endpoint}`);
  return o;
}

/** `--start`: Unix milliseconds, or an ISO 8601 time. */
function startOf(text, fail) {
  const ms = /^\d+$/.test(text) ? Number(text) : Date.parse(text);
  if (!Number.isSafeInteger(ms) || ms < 0)
    fail(`--start: not a time: ${text} (ISO 8601, or Unix milliseconds)`);
  return ms;
}

/** Where a log with no recorded time starts: `--start`, else the file's
 * modification time, else now. */
function startTimeOf(o) {
  if (o.start !== undefined) return o.start;
  const [source] = o.sources;
  if (source === "-" || source === "--sample") return Date.now();
  return Math.floor(statSync(source).mtimeMs);
}

/** Posts the trace and prints the backend's answer; a non-2xx answer or
 * no answer exits 1. */
async function post(o, format, body, fail) {
  let response;
  try {
    response = await fetch(o.endpoint, {
      method: "POST",
      headers: { ...o.headers, "content-type": CONTENT_TYPES[format] },
      body,
    });
  } catch (e) {
    fail(`cannot send to ${o.endpoint}: ${e.cause?.code ?? e.cause?.message ?? e.message}`, 1);
  }
  const type = response.headers.get("content-type") ?? "";
  const bytes = new Uint8Array(await response.arrayBuffer());
  const text = /json|text/.test(type)
    ? new TextDecoder().decode(bytes)
    : bytes.length
      ? `(${bytes.length} bytes of ${type || "data"})`
      : "";
  process.stdout.write(`${response.status} ${response.statusText}${text ? `\n${text}` : ""}\n`);
  if (!response.ok) process.exitCode = 1;
}

/**
 * Runs `export` with the CLI's own helpers: `load(state, source, strict)`
 * streams a file into a state, `printError(name, err)` prints a positioned
 * load error, `fail(message, code)` stops the command with that exit code.
 */
export async function runExport(argv, { load, printError, fail }) {
  const o = parse(argv, fail);
  const [source] = o.sources;
  const state = new SessionState(o.sessionId);
  let loaded;
  try {
    loaded = await load(state, source, o.strict);
  } catch (e) {
    if (!(e instanceof AgentReplayError)) throw e;
    for (const err of e.errors ?? []) printError(source === "-" ? "stdin" : source, err);
    if (!e.errors?.length) fail(`${e.code}: ${e.message}`, 1);
    process.exitCode = 1;
    return;
  }
  const format = o.format ?? (o.endpoint ? "protobuf" : "json");
  const options = { content: o.content, startTime: startTimeOf(o), format };
  const trace = state.toOtlp(options);
  const body = format === "json" ? JSON.stringify(trace) : trace;
  if (o.endpoint) await post(o, format, body, fail);
  else process.stdout.write(format === "json" ? `${body}\n` : body);
  for (const err of loaded.errors) printError(loaded.name, err);
  if (loaded.errors.length) process.exitCode = 1;
}
