// `agent-replay report`: one HTML file holding the viewer, its .wasm and a
// log, that opens from file:// with no server and no network. The template
// (pkg/report-template.html) is built with the package by
// scripts/report-template.mjs, since esbuild is a devDependency; here only
// the log goes in, gzipped and written as base64 (report.js runs the command).
import { gzipSync } from "node:zlib";

/** Where the template holds the log, its base64 text inside; `name`, the
 * log's file name, is what the page calls it. An inert script element: the
 * page reads its text. */
export function logSlot(name = "", base64 = "") {
  return `<script id="agent-replay-log" type="application/gzip" data-name="${escapeAttribute(name)}">${base64}</script>`;
}

function escapeAttribute(text) {
  return text.replace(
    /[&"<>]/g,
    (c) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c],
  );
}

/** The report's HTML: `template` with the `log` bytes named `name` in its
 * log slot. */
export function reportHtml(template, log, name) {
  const empty = logSlot();
  const at = template.lastIndexOf(empty);
  if (at < 0) throw new Error("the report template has no log slot: rebuild it");
  const filled = logSlot(name, gzipSync(log, { level: 9 }).toString("base64"));
  return template.slice(0, at) + filled + template.slice(at + empty.length);
}
