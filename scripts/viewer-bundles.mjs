// The viewer page's code as three bundles in pkg/, built with the package
// (scripts/build.mjs) because `agent-replay serve` runs where esbuild (a
// devDependency) is absent. Each of the page's graphs is then one request
// instead of one a module, a level at a time, on the browser's six
// connections to the host: the page's (www/app.js), its fold worker's
// (www/worker.js, which www/worker-start.js, the worker's entry, imports
// once it has started the .wasm and the reader) and the reader worker's
// (js/viewer/reader-worker.js); uPlot, which the page imports with its
// first chart, is a chunk of its own. www/index.html and worker-start.js name
// them by their served URLs (`/agent-replay/pkg/…`). The pages' stylesheet
// is one file too, pkg/viewer.css: www/app.css and the parts it imports
// (www/css/). The one-file report (scripts/report-template.mjs) bundles the
// same sources with the same options.
import { existsSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import * as esbuild from "esbuild";
import { newest } from "./fs-times.mjs";

/** Each bundle: the source it starts from, and its file in pkg/. In
 * pkg/ itself, so that the bindings' default .wasm URL (beside their
 * module, `import.meta.url`) is still the package's .wasm. */
export const VIEWER_BUNDLES = [
  { entry: "www/app.js", out: "viewer-page.js" },
  { entry: "www/worker.js", out: "viewer-worker.js" },
  { entry: "js/viewer/reader-worker.js", out: "viewer-reader.js" },
];

/** The pages' stylesheet: the entry that imports its parts, and its
 * bundle in pkg/, which every page links (`/agent-replay/pkg/viewer.css`). */
export const VIEWER_CSS = { entry: "www/app.css", out: "viewer.css" };

/** What the stylesheet's bundle is built with: its parts inlined in the
 * order the entry imports them, which is the cascade's. */
export function viewerCssOptions(root) {
  return { bundle: true, absWorkingDir: root, logLevel: "warning" };
}

/**
 * What every bundle of the viewer shares: the package's names as the
 * browser entries resolve them (`agent-replay` by the package's own
 * exports, `agent-replay/viewer` to its source; `uplot` from node_modules),
 * the served URLs the workers import by (`/agent-replay/js/…`) resolved to
 * the package's files (`plugins` adds to that), and paths from the root.
 */
export function viewerBuildOptions(root, plugins = []) {
  return {
    bundle: true,
    absWorkingDir: root,
    alias: { "agent-replay/viewer": join(root, "js/viewer/index.js") },
    plugins: [servedPaths(root), uPlotLocale(root), ...plugins],
    logLevel: "warning",
    // The bindings read import.meta.url only when init() is given no .wasm.
    logOverride: { "empty-import-meta": "silent" },
  };
}

/** Resolves a served URL of the package's JS (`/agent-replay/js/…`) to its file. */
function servedPaths(root) {
  return {
    name: "served-paths",
    setup(build) {
      build.onResolve({ filter: /^\/agent-replay\/js\// }, ({ path }) => ({
        path: join(root, "js", path.slice("/agent-replay/js/".length)),
      }));
    },
  };
}

/** uPlot's module makes its number format in `navigator.language` when it
 * loads: in WebKit under a C locale that is "C", which Intl refuses, and
 * the import would throw. Bundled, it reads the language through
 * js/viewer/locale.js's `browserLocale`, as the viewer's own formats do. */
function uPlotLocale(root) {
  const helper = JSON.stringify(join(root, "js/viewer/locale.js"));
  return {
    name: "uplot-locale",
    setup(build) {
      build.onLoad({ filter: /[\\/]uplot[\\/]dist[\\/]uPlot\.esm\.js$/ }, ({ path }) => {
        const source = readFileSync(path, "utf8");
        const patched = source.replace("nav.language", "browserLocale()");
        if (patched === source || patched.includes("nav.language"))
          throw new Error("uPlot no longer reads nav.language once: see uPlotLocale");
        return { contents: `import { browserLocale } from ${helper};\n${patched}`, loader: "js" };
      });
    },
  };
}

/** Whether a bundle in `out` is missing or older than a file of www/ (its
 * folders too: the stylesheet's parts in www/css/), js/ or this script:
 * `build.mjs --if-needed` then builds them again, and the
 * tests that serve the viewer refuse to run on them. */
export function viewerBundlesStale(root, out) {
  const sources = Math.max(
    newest(join(root, "www")),
    newest(join(root, "js")),
    statSync(new URL(import.meta.url)).mtimeMs,
  );
  const files = [...VIEWER_BUNDLES.map(({ out: file }) => file), ...VIEWER_CHUNKS, VIEWER_CSS.out];
  return files.some((file) => {
    const path = join(out, file);
    return !existsSync(path) || statSync(path).mtimeMs < sources;
  });
}

/** What a bundle imports dynamically is a chunk of its own in `out`,
 * `viewer-NAME.js` after the module's file: uPlot's, imported with the
 * first chart, so that the page does not fetch and parse its code at
 * start-up; and the element's own fold (js/viewer/fold.js, with the
 * package's API), imported only by its `setLog`, which the page, whose
 * worker folds, never calls. */
export const VIEWER_CHUNKS = ["viewer-uPlot.esm.js", "viewer-fold.js"];

/** Writes the viewer's bundles into `out` (ES modules, not minified: they
 * are what a developer's tools show of the served viewer), their chunks,
 * and the stylesheet's (not minified either). */
export async function buildViewerBundles(root, out) {
  for (const { entry, out: file } of VIEWER_BUNDLES) {
    await esbuild.build({
      ...viewerBuildOptions(root),
      entryPoints: { [file.replace(/\.js$/, "")]: join(root, entry) },
      format: "esm",
      splitting: true,
      outdir: out,
      entryNames: "[name]",
      chunkNames: "viewer-[name]",
    });
  }
  await esbuild.build({
    ...viewerCssOptions(root),
    entryPoints: [join(root, VIEWER_CSS.entry)],
    outfile: join(out, VIEWER_CSS.out),
  });
}
