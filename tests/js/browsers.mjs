// The browsers the viewer's tests run in, launched one way everywhere, and
// one small interface over all three (`launchBrowser`), so that a scenario
// is written once: Debian's Chromium over the DevTools protocol
// (playwright-core), Firefox ESR over WebDriver BiDi (puppeteer-core) and
// WebKitGTK's MiniBrowser (Safari's engine) over classic WebDriver, its
// WebKitWebDriver on an Xvfb display of its own. scripts/setup.sh installs
// them; CHROMIUM_PATH, FIREFOX_PATH and MINIBROWSER_PATH say where else
// they are.
import { spawn } from "node:child_process";
import { once } from "node:events";
import { createServer } from "node:net";
import { chromium } from "playwright-core";
import puppeteer from "puppeteer-core";

const CHROMIUM_ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** A Chromium (playwright-core's Browser); `extraArgs` add to the flags every run uses. */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...CHROMIUM_ARGS, ...extraArgs],
  });
}

/** The engines `launchBrowser` knows, by the names the tests print. */
export const ENGINES = ["chromium", "firefox", "webkit"];

const VIEWPORT = { width: 1400, height: 1000 };
/** How often `waitFor` asks again, and how long it asks by default. */
const POLL_MS = 100;
const WAIT_MS = 30_000;

/**
 * A browser of `engine` ("chromium", "firefox" or "webkit") behind one
 * interface: `newPage()` resolves to a page with `goto(url)`,
 * `evaluate(fn, arg)` (fn runs in the page; arg and the result are JSON:
 * not a DOM node), `waitFor(fn, arg, {timeout})` (until fn(arg) is
 * truthy; resolves to it), `setInputFile(selector, path)` (a file
 * chosen in a file input), `addInitScript(fn, arg)` (fn(arg) runs in
 * each document the page opens next, before the document's own scripts;
 * resolves to false where the engine cannot: WebKit's classic WebDriver
 * has no such command), `screenshot()` (resolves to the viewport as PNG
 * bytes) and `close()`; `close()` ends the browser.
 * `locale` is the language it runs in (its LANG, for WebKit: what
 * navigator.language says; "C.UTF-8" makes it "C").
 */
export async function launchBrowser(engine, { locale = "en_US.UTF-8" } = {}) {
  if (engine === "chromium")
    return wrapped(engine, await launchChromium([`--lang=${lang(locale)}`]));
  if (engine === "firefox") {
    const browser = await puppeteer.launch({
      browser: "firefox",
      executablePath: process.env.FIREFOX_PATH ?? "/usr/bin/firefox-esr",
      headless: true,
      env: { ...process.env, LANG: locale },
      extraPrefsFirefox: { "intl.locale.requested": lang(locale) },
    });
    return wrapped(engine, browser);
  }
  if (engine === "webkit") return launchWebKit(locale);
  throw new Error(`no such engine: ${engine}`);
}

/** "en_US.UTF-8" → "en-US". */
const lang = (locale) => locale.split(".")[0].replace("_", "-");

/** Chromium's (playwright) or Firefox's (puppeteer) Browser, wrapped. */
function wrapped(engine, browser) {
  return {
    engine,
    async newPage() {
      const page = await browser.newPage();
      await (page.setViewportSize?.(VIEWPORT) ?? page.setViewport(VIEWPORT));
      return pageOf({
        goto: (url) => page.goto(url),
        evaluate: (fn, arg) => page.evaluate(fn, arg),
        setInputFile: async (selector, path) =>
          page.setInputFiles
            ? page.setInputFiles(selector, path)
            : (await page.$(selector)).uploadFile(path),
        addInitScript: async (fn, arg) => {
          await (page.addInitScript?.(fn, arg) ?? page.evaluateOnNewDocument(fn, arg));
          return true;
        },
        screenshot: async () => Buffer.from(await page.screenshot()),
        close: () => page.close(),
      });
    },
    close: () => browser.close(),
  };
}

/** A page from its engine's own operations (`goto`, `evaluate`, ...):
 * `waitFor` asks `evaluate` again until it holds, the same in every engine. */
function pageOf(ops) {
  return {
    ...ops,
    async waitFor(fn, arg, { timeout = WAIT_MS } = {}) {
      const until = Date.now() + timeout;
      for (;;) {
        const value = await ops.evaluate(fn, arg);
        if (value) return value;
        if (Date.now() > until)
          throw new Error(`waitFor timed out after ${timeout} ms: ${String(fn).slice(0, 200)}`);
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    },
  };
}

// ---- WebKit: MiniBrowser over classic WebDriver -----------------------------------

const MINIBROWSER =
  process.env.MINIBROWSER_PATH ?? "/usr/lib/x86_64-linux-gnu/webkit2gtk-4.1/MiniBrowser";

/** A child process, ended (and awaited) by `stop()`, or when this process
 * exits (a test that failed before its `after` leaves no Xvfb behind). */
function child(command, args, env) {
  const proc = spawn(command, args, { env, stdio: ["ignore", "pipe", "pipe"] });
  const orphaned = () => proc.kill();
  process.once("exit", orphaned);
  proc.once("exit", () => process.off("exit", orphaned));
  let err = "";
  proc.stderr.on("data", (d) => {
    err += d;
  });
  const stop = async () => {
    if (proc.exitCode !== null || proc.signalCode !== null) return;
    proc.kill("SIGTERM");
    await once(proc, "exit");
  };
  return { proc, stop, err: () => err };
}

/** An Xvfb server on a display it picks itself; resolves to `{display, stop}`. */
async function startXvfb() {
  const xvfb = child("Xvfb", [
    "-displayfd",
    "1",
    "-screen",
    "0",
    "1600x1200x24",
    "-nolisten",
    "tcp",
  ]);
  const display = await new Promise((resolve, reject) => {
    let out = "";
    xvfb.proc.stdout.on("data", (d) => {
      out += d;
      if (out.includes("\n")) resolve(`:${out.trim()}`);
    });
    xvfb.proc.on("exit", (code) => reject(new Error(`Xvfb exited ${code}: ${xvfb.err()}`)));
  });
  return { display, stop: xvfb.stop };
}

/** A free TCP port of 127.0.0.1. */
async function freePort() {
  const server = createServer().listen(0, "127.0.0.1");
  await once(server, "listening");
  const { port } = server.address();
  server.close();
  await once(server, "close");
  return port;
}

/** Calls WebDriver's `method path` with `body`; resolves to its `value`. */
async function webdriver(base, method, path, body) {
  const response = await fetch(base + path, {
    method,
    headers: { "content-type": "application/json" },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const { value } = await response.json();
  if (!response.ok)
    throw new Error(`WebDriver ${method} ${path}: ${value?.error}: ${value?.message}`);
  return value;
}

async function launchWebKit(locale) {
  const xvfb = await startXvfb();
  const port = await freePort();
  const env = { ...process.env, DISPLAY: xvfb.display, LANG: locale, LC_ALL: locale };
  const driver = child("WebKitWebDriver", [`--port=${port}`, "--host=127.0.0.1"], env);
  const base = `http://127.0.0.1:${port}`;
  const stopAll = async () => {
    await driver.stop();
    await xvfb.stop();
  };
  try {
    // The driver answers once it listens: bounded, a few seconds at most.
    for (let i = 0; ; i++) {
      const ready = await webdriver(base, "GET", "/status").then(
        (s) => s.ready,
        () => false,
      );
      if (ready) break;
      if (i >= 100 || driver.proc.exitCode !== null)
        throw new Error(`WebKitWebDriver did not start: ${driver.err()}`);
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const session = await webdriver(base, "POST", "/session", {
      capabilities: {
        alwaysMatch: {
          browserName: "MiniBrowser",
          "webkitgtk:browserOptions": { binary: MINIBROWSER, args: ["--automation"] },
        },
      },
    });
    const url = `${base}/session/${session.sessionId}`;
    return webKitBrowser(url, await webdriver(url, "GET", "/window"), stopAll);
  } catch (error) {
    await stopAll();
    throw error;
  }
}

/** The script WebDriver runs for `evaluate(fn, arg)`: fn's result or its
 * error, once its promise settles. */
const EVALUATE = `const [source, arg, done] = arguments;
Promise.resolve()
  .then(() => (0, eval)("(" + source + ")")(arg))
  .then((value) => done({ value }), (error) => done({ error: String(error?.stack ?? error) }));`;

/** One MiniBrowser session: each page is a window of its own, beside the
 * session's first (`home`), which WebDriver falls back to when one closes. */
function webKitBrowser(session, home, stopAll) {
  const call = (method, path, body) => webdriver(session, method, path, body);
  return {
    engine: "webkit",
    async newPage() {
      const { handle } = await call("POST", "/window/new", { type: "window" });
      await call("POST", "/window", { handle });
      await call("POST", "/window/rect", VIEWPORT);
      const evaluate = async (fn, arg) => {
        await call("POST", "/window", { handle });
        const result = await call("POST", "/execute/async", {
          script: EVALUATE,
          args: [String(fn), arg ?? null],
        });
        if (result.error) throw new Error(`in WebKit: ${result.error}`);
        return result.value;
      };
      return pageOf({
        goto: async (url) => {
          await call("POST", "/window", { handle });
          await call("POST", "/url", { url });
        },
        evaluate,
        setInputFile: async (selector, path) => {
          await call("POST", "/window", { handle });
          const found = await call("POST", "/element", { using: "css selector", value: selector });
          await call("POST", `/element/${Object.values(found)[0]}/value`, { text: path });
        },
        addInitScript: async () => false,
        screenshot: async () => {
          await call("POST", "/window", { handle });
          return Buffer.from(await call("GET", "/screenshot"), "base64");
        },
        close: async () => {
          await call("POST", "/window", { handle });
          await call("DELETE", "/window");
          await call("POST", "/window", { handle: home });
        },
      });
    },
    async close() {
      await call("DELETE", "").catch(() => {});
      await stopAll();
    },
  };
}
