// The documentation's examples run as written, and its links lead somewhere.
//
// Convention (docs/ARCHITECTURE.md, "Documentation"): in README.md and
// docs/**/*.md every ```js block is run with node, unless its info string
// says `no-run` (```js no-run: browser, deploy or fragment code). Blocks of
// other languages (sh, html, ts, text) are never run, nor any block of the
// specifications in docs/spec/ (copies of the contract, not examples). A line that starts with
// `console.log(` and ends with `// TEXT` promises that the run prints the
// line TEXT: the promised lines must appear in the output, in that order.
// A block that names a "NAME.jsonl" string gets the sample session written
// as NAME.jsonl beside it (its working directory).
import { test } from "node:test";
import assert from "node:assert/strict";
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

const root = fileURLToPath(new URL("../../", import.meta.url));
/** Inside the package, so that `import "agent-replay"` resolves by self-reference. */
const scratch = join(root, "target", "doc-examples");
const sample = readFileSync(join(root, "data", "sample-session.jsonl"));
const run = promisify(execFile);
/** Where `<agent-session-viewer>`'s `data` is documented. */
const DATA_FIELDS_DOC = "docs/viewer.md";

/** README.md and every Markdown file under docs/, as paths relative to the root. */
function documents() {
  const underDocs = readdirSync(join(root, "docs"), { recursive: true })
    .filter((name) => name.endsWith(".md"))
    .map((name) => join("docs", name));
  return ["README.md", ...underDocs.sort()];
}

/** Fenced code blocks: `{lang, flags, code, line}` (line: the opening fence's, 1-based). */
function codeBlocks(text) {
  const blocks = [];
  const lines = text.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const open = /^([ \t]*)(`{3,})\s*(\S*)\s*(.*)$/.exec(lines[i]);
    if (!open) continue;
    const [, indent, fence, lang, flags] = open;
    const start = i;
    const body = [];
    for (i++; i < lines.length && !lines[i].startsWith(`${indent}${fence}`); i++) {
      body.push(lines[i].slice(indent.length));
    }
    blocks.push({ lang, flags: flags.split(/\s+/), code: body.join("\n"), line: start + 1 });
  }
  return blocks;
}

/** A fenced code block, from its opening fence to its closing one. */
const FENCED = /^([ \t]*)(`{3,})[^\n]*\n[\s\S]*?\n\1\2[ \t]*$/gm;

const isJs = (block) => ["js", "javascript", "mjs"].includes(block.lang);
const runnable = (block) =>
  isJs(block) && !block.flags.includes("no-run") && !block.doc.startsWith("docs/spec/");

/** The lines a block promises to print: `console.log(...); // TEXT`. */
function promisedOutput(code) {
  return code
    .split("\n")
    .map((line) => /^console\.log\(.*\);?\s*\/\/ (.+)$/.exec(line)?.[1].trim())
    .filter((text) => text !== undefined);
}

const examples = documents().flatMap((doc) =>
  codeBlocks(readFileSync(join(root, doc), "utf8")).map((block) => ({ doc, ...block })),
);

rmSync(scratch, { recursive: true, force: true });

for (const example of examples.filter(runnable)) {
  test(`${example.doc}:${example.line} runs`, async () => {
    const dir = join(scratch, `${example.doc.replaceAll("/", "_")}-${example.line}`);
    mkdirSync(dir, { recursive: true });
    for (const [, name] of example.code.matchAll(/"([\w.-]+\.jsonl)"/g)) {
      writeFileSync(join(dir, name), sample);
    }
    writeFileSync(join(dir, "example.mjs"), example.code);
    const { stdout } = await run(process.execPath, ["example.mjs"], { cwd: dir, timeout: 30_000 });
    const printed = stdout.split("\n").map((line) => line.trim());
    let from = 0;
    for (const line of promisedOutput(example.code)) {
      const at = printed.indexOf(line, from);
      assert.ok(at >= 0, `${example.doc}:${example.line} does not print ${JSON.stringify(line)}`);
      from = at + 1;
    }
  });
}

test("the documentation has runnable examples, and says how many ran", (t) => {
  const ran = examples.filter(runnable);
  const skipped = examples.filter((b) => isJs(b) && !runnable(b));
  t.diagnostic(`${ran.length} examples run; ${skipped.length} js blocks marked no-run`);
  assert.ok(
    ran.some((b) => b.doc === "README.md"),
    "README.md has no runnable example",
  );
  assert.ok(ran.length >= 5, `only ${ran.length} runnable examples found`);
  assert.ok(
    ran.some((b) => promisedOutput(b.code).length),
    "no example promises its output",
  );
});

test("docs/live-replay.md shows examples/resume.mjs verbatim (its first line aside)", () => {
  const file = readFileSync(join(root, "examples", "resume.mjs"), "utf8");
  const code = file.split("\n").slice(1).join("\n").trim();
  const shown = examples.filter((b) => b.doc === "docs/live-replay.md" && runnable(b));
  assert.ok(
    shown.some((b) => b.code.trim() === code),
    "docs/live-replay.md has no block equal to examples/resume.mjs",
  );
});

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading) {
  return heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .replace(/\s/g, "-");
}

/** The anchors a Markdown file defines (repeated headings get -1, -2, ...). */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  const prose = text.replace(FENCED, "");
  for (const [, heading] of prose.matchAll(/^#{1,6}\s+(.+?)\s*#*$/gm)) {
    const base = slug(heading);
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n ? `${base}-${n}` : base);
  }
  return out;
}

/** Relative link targets outside code: `[text](target)` and `![alt](target)`. */
function relativeLinks(text) {
  const prose = text.replace(FENCED, "").replace(/`[^`\n]*`/g, "");
  return [...prose.matchAll(/\]\(([^)\s]+)(?:\s+"[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target));
}

test("every relative link in README.md and docs/ points at a file (and heading) that exists", () => {
  const broken = [];
  let checked = 0;
  for (const doc of documents()) {
    const text = readFileSync(join(root, doc), "utf8");
    for (const target of relativeLinks(text)) {
      checked++;
      const [path, anchor] = target.split("#");
      const file = path ? join(root, dirname(doc), decodeURIComponent(path)) : join(root, doc);
      if (!file.startsWith(root) || !existsSync(file)) {
        broken.push(`${doc}: ${target} (no such file)`);
      } else if (
        anchor &&
        file.endsWith(".md") &&
        !anchors(readFileSync(file, "utf8")).has(anchor)
      ) {
        broken.push(`${doc}: ${target} (no heading #${anchor} in ${relative(root, file)})`);
      }
    }
  }
  assert.ok(checked > 20, `only ${checked} links found: the link reader is broken`);
  assert.deepEqual(broken, []);
});

test("docs/viewer.md documents every field of the viewer's `data` (SessionViewerData)", () => {
  const types = readFileSync(join(root, "js", "viewer", "index.d.ts"), "utf8");
  const body = /export interface SessionViewerData \{([\s\S]*?)\n\}/.exec(types)?.[1] ?? "";
  const fields = [...body.matchAll(/^ {2}(\w+)\??:/gm)].map((m) => m[1]);
  assert.ok(fields.includes("view") && fields.includes("totals"), "SessionViewerData not found");
  const doc = readFileSync(join(root, DATA_FIELDS_DOC), "utf8");
  const inCode = new Set([...doc.matchAll(/`([^`\n]+)`/g)].flatMap((m) => m[1].match(/\w+/g)));
  const missing = fields.filter((field) => !inCode.has(field));
  assert.deepEqual(
    missing,
    [],
    `${DATA_FIELDS_DOC} does not document data.${missing.join(", data.")}`,
  );
});
