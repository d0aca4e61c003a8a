// The viewer's scenarios in every engine the viewer supports (docs/platforms.md):
// Chromium, Firefox and WebKit (MiniBrowser, Safari's engine), WebKit in an
// en-US and in a C locale (where navigator.language is "C", which no Intl
// call accepts). Each scenario is written once over browsers.mjs's common
// page; one browser per engine serves all of its scenarios (the viewer,
// playback, the live sample, files opened and dropped, `serve DIR`, a paged
// log, a deep link, Compare, the one-file report; an init script, which the
// viewer's benchmark installs its probe by). The other viewer tests go deeper
// in Chromium alone. Screenshots go to target/screenshots/viewer-ENGINE.png.
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { SessionState, compareRuns, sampleLog } from "agent-replay";
import { launchBrowser } from "./browsers.mjs";
import { startServe } from "./serve.mjs";

const root = new URL("../..", import.meta.url).pathname;
const shots = join(root, "target/screenshots");
const corpus = join(root, "tests/corpus/deepstrike-0.2.77");
const LONG = readFileSync(join(corpus, "long_run.jsonl"), "utf8").trimEnd().split("\n");
const N = LONG.length;
const fmt = (n) => n.toLocaleString("en-US");
const [A, B] = ["crash_wake.jsonl", "signals.jsonl"];
const A_EVENTS = readFileSync(join(corpus, A), "utf8").trimEnd().split("\n").length;
const B_TEXT = readFileSync(join(corpus, B), "utf8");
const B_EVENTS = B_TEXT.trimEnd().split("\n").length;
const divergence = compareRuns(
  readFileSync(join(corpus, A)),
  readFileSync(join(corpus, B)),
).first_divergence;

const SAMPLE_EVENTS = new SessionState().apply(sampleLog()).eventCount;
/** A search, what it matches (case aside, as the viewer searches), and a
 * deep link to a position with a matching event before it selected. */
const QUERY = "l1";
const MATCHES = LONG.filter((t) => t.toLowerCase().includes(QUERY)).length;
const FIRST_MATCH = LONG.findIndex((t) => t.toLowerCase().includes(QUERY)) + 1;
const AT = 120;
const SEL = LONG.findLastIndex((t, i) => i < AT - 1 && t.toLowerCase().includes(QUERY)) + 1;

/** The one-file report of long_run.jsonl, written once for every engine. */
const dir = mkdtempSync(join(tmpdir(), "agent-replay-browsers-"));
const REPORT = join(dir, "long_run.html");

let server;
let demo; // the sample played live, as `npm start` does, fast
let followed; // `serve DIR` on a directory of session logs
const TOOLS = readFileSync(join(corpus, "tools.jsonl"), "utf8");
const TOOLS_EVENTS = TOOLS.trimEnd().split("\n").length;
before(async () => {
  const made = spawnSync(process.execPath, [
    join(root, "bin/agent-replay.js"),
    "report",
    join(corpus, "long_run.jsonl"),
    "-o",
    REPORT,
  ]);
  assert.equal(made.status, 0, String(made.stderr));
  server = await startServe(["--no-demo", ...["long_run.jsonl", A, B].map((f) => join(corpus, f))]);
  demo = await startServe(["--interval-ms", "20", "--pause-ms", "300", "--max-events", "256"]);
  const logs = join(dir, "logs");
  mkdirSync(logs);
  writeFileSync(join(logs, "tools.jsonl"), TOOLS);
  followed = await startServe([logs], { ready: /following / });
});
after(async () => {
  await server?.stop();
  await demo?.stop();
  await followed?.stop();
});

// ---- What the scenarios read of the page (run in the page) ------------------------

const positionText = () => document.querySelector("[data-testid=position]")?.textContent ?? "";
/** The position label once it starts with `want`, or the page's error
 * shown instead (so a failed start fails at once, saying why). */
const shows = (want) => {
  const error = document.querySelector("[data-testid=error]");
  if (error && !error.hidden) return `error: ${error.textContent}`;
  const text = document.querySelector("[data-testid=position]")?.textContent ?? "";
  return text.startsWith(want) && text;
};

async function waitPosition(page, want) {
  const text = await page.waitFor(shows, want);
  assert.ok(text.startsWith(want), text);
}

function setInput([id, value]) {
  const input = document.getElementById(id);
  input.value = value;
  input.dispatchEvent(new Event("input"));
}

/** Where the timeline's scrollbar is: `{x, top, bottom, width}` in CSS
 * pixels (x its middle column, inside the viewport); width 0 when the
 * engine's scrollbars take no room (overlays). */
function scrollbarStrip() {
  const timeline = document.getElementById("timeline");
  const box = timeline.getBoundingClientRect();
  const border = parseFloat(getComputedStyle(timeline).borderRightWidth);
  const width = timeline.offsetWidth - timeline.clientWidth - 2 * border;
  const x = Math.floor(box.right - border - width / 2);
  return { x, top: Math.ceil(box.top) + 8, bottom: Math.min(box.bottom, innerHeight) - 8, width };
}

/** The mean shade (0 black to 255 white) of column `x` from `top` to
 * `bottom` in `png` (a screenshot, base64): decoded by the page itself. */
async function meanShade({ png, x, top, bottom }) {
  const image = new Image();
  image.src = `data:image/png;base64,${png}`;
  await image.decode();
  const canvas = document.createElement("canvas");
  canvas.width = image.width;
  canvas.height = image.height;
  const context = canvas.getContext("2d");
  context.drawImage(image, 0, 0);
  const pixels = context.getImageData(x, top, 1, bottom - top).data;
  let sum = 0;
  for (let i = 0; i < pixels.length; i += 4) sum += (pixels[i] + pixels[i + 1] + pixels[i + 2]) / 3;
  return Math.round(sum / (pixels.length / 4));
}

/** Drops a file named `name` holding `text` on the page, as a person
 * dragging it there would. */
function dropFile({ name, text }) {
  const data = new DataTransfer();
  data.items.add(new File([text], name));
  for (const type of ["dragenter", "dragover", "drop"])
    document.body.dispatchEvent(new DragEvent(type, { dataTransfer: data, bubbles: true }));
}

const TARGETS = [
  ["chromium", "en_US.UTF-8"],
  ["firefox", "en_US.UTF-8"],
  ["webkit", "en_US.UTF-8"],
  ["webkit", "C.UTF-8"],
];

for (const [engine, locale] of TARGETS) {
  describe(`${engine} (${locale})`, () => {
    let browser;
    let page;
    before(async () => {
      browser = await launchBrowser(engine, { locale });
      page = await browser.newPage();
    });
    after(async () => {
      await page?.close();
      await browser?.close();
    });

    test("the viewer on a real log: its events, time travel and search", async () => {
      await page.goto(`${server.url}/?log=/files/long_run.jsonl`);
      await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
      assert.equal(
        await page.evaluate(() => document.querySelectorAll(".row[data-position]").length > 10),
        true,
        "the timeline shows its rows",
      );
      // uPlot's module formats in the browser's language: it loads in a C locale too.
      assert.ok(
        await page.waitFor(() => Boolean(document.querySelector(".uplot"))),
        "the charts draw",
      );
      mkdirSync(shots, { recursive: true });
      const name = `viewer-${engine}${locale.startsWith("C.") ? "-c-locale" : ""}.png`;
      writeFileSync(join(shots, name), await page.screenshot());
      await page.evaluate(setInput, ["scrubber", "30"]);
      await waitPosition(page, `event 30 of ${fmt(N)}`);
      await page.evaluate(setInput, ["search", QUERY]);
      const count = await page.waitFor(
        (want) => document.getElementById("match-count").textContent === want && want,
        `${fmt(MATCHES)} of ${fmt(N)} events match`,
      );
      assert.ok(count);
      // The timeline's rows are the matches, drawn.
      const first = await page.waitFor(
        () => document.querySelector(".row[data-position]")?.dataset.position,
      );
      assert.equal(Number(first), FIRST_MATCH);
      assert.ok((await page.evaluate(positionText)).startsWith(`event 30 of ${fmt(N)} `));
    });

    test("the dark theme's timeline scrollbar is dark (a classic one: Firefox's)", async () => {
      await page.goto(`${server.url}/?log=/files/long_run.jsonl`);
      await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
      // Not the theme button: that would save the theme for the next tests.
      await page.evaluate(() => {
        document.documentElement.dataset.theme = "dark";
      });
      const strip = await page.evaluate(scrollbarStrip);
      if (engine === "firefox") assert.ok(strip.width > 0, "Firefox draws a classic scrollbar");
      if (strip.width === 0) return; // an overlay scrollbar, drawn only while scrolling
      const png = (await page.screenshot()).toString("base64");
      const shade = await page.evaluate(meanShade, { png, ...strip });
      assert.ok(shade < 96, `the scrollbar's mean shade is ${shade} of 255: a light band`);
    });

    test("a file opened and one dropped, on the served page and in the report from file://", async () => {
      for (const url of [`${server.url}/?log=/files/long_run.jsonl`, `file://${REPORT}`]) {
        await page.goto(url);
        await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
        await page.setInputFile("#file", join(corpus, A));
        const opened = await page.waitFor(shows, `event ${fmt(A_EVENTS)} of ${fmt(A_EVENTS)}`);
        assert.ok(opened.startsWith("event"), `${url}: ${opened}`);
        await page.evaluate(dropFile, { name: B, text: B_TEXT });
        const dropped = await page.waitFor(shows, `event ${fmt(B_EVENTS)} of ${fmt(B_EVENTS)}`);
        assert.ok(dropped.startsWith("event"), `${url}, dropped: ${dropped}`);
      }
    });

    test("playback: the position moves on by itself, and stops", async () => {
      await page.goto(`${server.url}/?log=/files/long_run.jsonl#at=1`);
      await waitPosition(page, `event 1 of ${fmt(N)}`);
      await page.evaluate(() => document.getElementById("play").click());
      const moved = await page.waitFor(() => {
        const at = Number(
          /^event ([\d,]+)/
            .exec(document.querySelector("[data-testid=position]").textContent)?.[1]
            .replaceAll(",", ""),
        );
        return at > 3 && at;
      });
      await page.evaluate(() => document.getElementById("play").click());
      assert.equal(await page.evaluate(() => document.getElementById("play").ariaPressed), "false");
      assert.ok(moved > 3);
    });

    test("the live sample: the demo's stream followed to its end", async () => {
      await page.goto(`${demo.url}/`);
      await waitPosition(page, `event ${SAMPLE_EVENTS} of ${SAMPLE_EVENTS}`);
      const status = await page.waitFor(
        () => document.querySelector("[data-testid=status]")?.textContent,
      );
      assert.equal(status, "finished: completed");
      assert.equal(await page.evaluate(() => document.querySelectorAll("#gaps li").length), 0);
    });

    test("serve DIR: its list of sessions, one opened from it", async () => {
      await page.goto(`${followed.url}/`);
      await page.waitFor(() => Boolean(document.querySelector('tr[data-session="tools"] a')));
      assert.equal(await page.evaluate(() => location.pathname), "/sessions");
      // Where its link leads (a click would navigate under evaluate's feet).
      await page.goto(
        await page.evaluate(() => document.querySelector('tr[data-session="tools"] a').href),
      );
      await waitPosition(page, `event ${TOOLS_EVENTS} of ${TOOLS_EVENTS}`);
    });

    test("a paged log: the index, and time travel in it", async () => {
      await page.goto(`${server.url}/?log=/files/long_run.jsonl&paged=1`);
      await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
      const exported = await page.evaluate(() => window.agentReplayViewer.exportState());
      assert.equal(exported.view, null, "a paged index builds no view");
      assert.equal(exported.events, N);
      await page.evaluate(setInput, ["scrubber", String(AT)]);
      await waitPosition(page, `event ${AT} of ${fmt(N)}`);
    });

    test("a deep link opens at its position, with its search and selection", async () => {
      await page.goto(`${server.url}/?log=/files/long_run.jsonl#at=${AT}&sel=${SEL}&q=${QUERY}`);
      await waitPosition(page, `event ${AT} of ${fmt(N)}`);
      assert.equal(await page.evaluate(() => document.getElementById("search").value), QUERY);
      const title = await page.waitFor(
        () =>
          !document.getElementById("detail").hidden &&
          document.getElementById("detail-title").textContent,
      );
      assert.match(title, new RegExp(`^#${SEL} · `));
    });

    test("Compare: two runs side by side at their first divergence", async () => {
      await page.goto(`${server.url}/www/compare.html?a=/files/${A}&b=/files/${B}`);
      await page.waitFor(() => document.querySelectorAll("li.divergence").length === 2);
      const rows = await page.evaluate(() =>
        [...document.querySelectorAll("li.divergence")].map((row) => [
          row.closest("ol").dataset.side,
          Number(row.dataset.position),
        ]),
      );
      assert.deepEqual(rows, [
        ["a", divergence.a.position],
        ["b", divergence.b.position],
      ]);
    });

    test("the one-file report opens from file://, with no Compare to go to", async () => {
      await page.goto(`file://${REPORT}`);
      await waitPosition(page, `event ${fmt(N)} of ${fmt(N)}`);
      // The report's own bundle of uPlot: it too formats in the browser's language.
      assert.ok(await page.waitFor(() => Boolean(document.querySelector(".uplot"))));
      const compare = await page.evaluate(() => {
        const link = document.querySelector('a[href="/www/compare.html"]');
        return link && getComputedStyle(link).display;
      });
      assert.ok(compare === null || compare === "none", `the Compare link shows: ${compare}`);
    });

    test("an init script runs before the next document's own scripts (WebKit has none)", async () => {
      const runs = await page.addInitScript((name) => {
        window.__initScript = { name, readyState: document.readyState };
      }, "probe");
      assert.equal(runs, engine !== "webkit");
      await page.goto(`${server.url}/`);
      const seen = await page.evaluate(() => window.__initScript ?? null);
      assert.deepEqual(seen, runs ? { name: "probe", readyState: "loading" } : null);
    });
  });
}
