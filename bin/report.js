// `agent-replay report SOURCE -o OUT`: the log read, checked as the viewer
// will load it, and written with the viewer into one HTML file (see
// report-html.js). Exit codes: 0 written; 1 written, with the log's load
// errors on stderr; 2 nothing written.
import { createReadStream, readFileSync, writeFileSync } from "node:fs";
import { basename } from "node:path";
import { AgentReplayError, SessionIndex, sampleLog } from "../js/node.js";
import { reportHtml } from "./report-html.js";

/** Bytes of a log checked per call by `report`. */
const REPORT_CHUNK = 1 << 20;

/** `report`'s arguments: one source (a file, - or --sample) and `-o OUT`. */
function reportArgs(argv, fail, usage) {
  let out;
  const sources = [];
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === "-o") out = argv[++i];
    else if (a.startsWith("-") && a !== "-" && a !== "--sample") fail(usage);
    else sources.push(a);
  }
  if (!out || sources.length !== 1) fail(usage);
  return { source: sources[0], out };
}

/** The bytes of a file, of stdin (`-`) or of the sample (`--sample`). */
async function readSource(source, fail) {
  if (source === "--sample") return Buffer.from(sampleLog());
  const chunks = [];
  try {
    for await (const chunk of source === "-" ? process.stdin : createReadStream(source))
      chunks.push(chunk);
  } catch (e) {
    fail(`cannot read ${source}: ${e.code ?? e.message}`);
  }
  return Buffer.concat(chunks);
}

/** `report SOURCE -o OUT`: the log read and checked as the viewer will
 * load it (its errors shown as `summary` shows them; a SessionIndex, which
 * keeps no view), then written into the report template. */
export async function runReport(argv, { fail, usage, printError }) {
  const { source, out } = reportArgs(argv, fail, usage);
  let template;
  try {
    template = readFileSync(new URL("../pkg/report-template.html", import.meta.url), "utf8");
  } catch {
    fail("the report template is not built: run `node scripts/build.mjs`");
  }
  const log = await readSource(source, fail);
  const name = source === "-" ? "stdin" : source === "--sample" ? "sample" : source;
  let loaded;
  try {
    const index = new SessionIndex();
    for (let at = 0; at < log.length; at += REPORT_CHUNK)
      index.write(log.subarray(at, at + REPORT_CHUNK));
    loaded = index.end();
    index.free();
  } catch (e) {
    if (!(e instanceof AgentReplayError)) throw e;
    fail(`${name}: ${e.code}: ${e.message}; no report written`);
  }
  for (const err of loaded.errors) printError(name, err);
  if (loaded.errors.length && loaded.events === 0)
    fail(`${name} is not a log: no event could be read; no report written`);
  const title = source === "-" || source === "--sample" ? `${name}.jsonl` : basename(source);
  const html = reportHtml(template, log, title);
  if (out === "-") process.stdout.write(html);
  else {
    try {
      writeFileSync(out, html);
    } catch (e) {
      fail(`cannot write ${out}: ${e.code ?? e.message}`);
    }
  }
  if (loaded.errors.length) process.exitCode = 1;
}
