// The one-file report's template, pkg/report-template.html, built with the
// package because `agent-replay report` runs where esbuild (a
// devDependency) is absent. It is www/index.html with the pages' stylesheet
// (www/app.css and its parts, bundled as for pkg/viewer.css) and
// www/report.css inlined and minified, and one minified module: the page
// (www/report.js, then www/app.js) holding its worker's bundle as text
// (www/report-worker.js, then www/worker.js), which holds the .wasm
// gzipped as base64. The same viewer code as `npm start`, bundled.
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import * as esbuild from "esbuild";
import { logSlot } from "../bin/report-html.js";
import { VIEWER_CSS, viewerBuildOptions, viewerCssOptions } from "./viewer-bundles.mjs";

/** Resolves the report's virtual modules (`agent-replay:NAME`) to
 * `modules[NAME]`, `{contents, loader}`. */
function reportModules(modules) {
  return {
    name: "report-modules",
    setup(build) {
      build.onResolve({ filter: /^agent-replay:/ }, ({ path }) => ({
        path: path.slice("agent-replay:".length),
        namespace: "agent-replay-report",
      }));
      build.onLoad({ filter: /.*/, namespace: "agent-replay-report" }, ({ path }) => modules[path]);
    },
  };
}

/** One minified bundle of `entries` (imported in that order), as text: the
 * viewer's sources bundled as `serve`'s bundles are (viewer-bundles.mjs). */
async function bundle(root, entries, format, modules) {
  const result = await esbuild.build({
    ...viewerBuildOptions(root, [reportModules(modules)]),
    stdin: {
      contents: entries.map((e) => `import "./${e}";`).join("\n"),
      resolveDir: root,
      sourcefile: "report-entry.js",
    },
    format,
    minify: true,
    write: false,
  });
  return result.outputFiles[0].text;
}

/** `text` inlined in an HTML element whose content ends at `</tag`. */
function inlined(text, tag) {
  if (new RegExp(`</${tag}|<!--`, "i").test(text))
    throw new Error(`report template: the inlined ${tag} holds </${tag} or <!--`);
  return text;
}

/** Replaces the one `pattern` in `html` (a string or a RegExp) with `text`. */
function replaceOnce(html, pattern, text) {
  const matches = typeof pattern === "string" ? html.split(pattern).length - 1 : 0;
  const found = typeof pattern === "string" ? matches === 1 : pattern.test(html);
  if (!found) throw new Error(`report template: www/index.html has no single ${pattern}`);
  return html.replace(pattern, () => text);
}

/** Builds pkg/report-template.html from www/ and js/, and the .wasm in `out`. */
export async function buildReportTemplate(root, out) {
  const wasm = readFileSync(join(out, "agent_replay_bg.wasm"));
  const worker = await bundle(root, ["www/report-worker.js", "www/worker.js"], "iife", {
    "wasm.gz.base64": { contents: gzipSync(wasm, { level: 9 }), loader: "base64" },
  });
  const page = await bundle(root, ["www/report.js", "www/app.js"], "esm", {
    "report-worker.js": { contents: worker, loader: "text" },
  });
  const css = await esbuild.build({
    ...viewerCssOptions(root),
    stdin: {
      contents: [VIEWER_CSS.entry, "www/report.css"].map((e) => `@import "./${e}";`).join("\n"),
      loader: "css",
      resolveDir: root,
      sourcefile: "report-entry.css",
    },
    minify: true,
    write: false,
  });
  let html = readFileSync(join(root, "www/index.html"), "utf8");
  html = replaceOnce(
    html,
    `<link rel="stylesheet" href="/agent-replay/pkg/${VIEWER_CSS.out}">`,
    `<style>${inlined(css.outputFiles[0].text.trim(), "style")}</style>`,
  );
  // The report's page starts its own worker (www/report.js), with nothing to fetch.
  html = replaceOnce(html, /<script id="start-worker">[\s\S]*?<\/script>\n/, "");
  html = replaceOnce(
    html,
    '<script type="module" src="/agent-replay/pkg/viewer-page.js"></script>',
    `<script type="module">${inlined(page.trim(), "script")}</script>`,
  );
  html = replaceOnce(html, "</body>", `${logSlot()}\n</body>`);
  const path = join(out, "report-template.html");
  writeFileSync(path, html);
  return path;
}
