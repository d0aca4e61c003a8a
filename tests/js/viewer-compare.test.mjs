// The compare page in real Chromium, served by `agent-replay serve`: two
// real runs that share a goal (corpus crash_wake and signals) side by side,
// opened at their first divergence, which the page scrolls to; the same
// from two files chosen.
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { compareRuns } from "agent-replay";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";

const root = new URL("../..", import.meta.url).pathname;
const corpus = join(root, "tests/corpus/deepstrike-0.2.77");
const [A, B] = ["crash_wake.jsonl", "signals.jsonl"];
const expected = compareRuns(readFileSync(join(corpus, A)), readFileSync(join(corpus, B)));

let browser;
let server;
before(async () => {
  browser = await launchChromium();
  server = await startServe(["--no-demo", join(corpus, A), join(corpus, B)]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

async function openPage(path) {
  const page = await browser.newPage({ viewport: { width: 1200, height: 420 } });
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  page.on("console", (m) => m.type() === "error" && problems.push(m.text()));
  await page.goto(`${server.url}${path}`);
  await page.waitForSelector("body[data-ready]", { timeout: 20_000 });
  return { page, problems };
}

/** The rows marked as the first divergence: [side, position, in the viewport]. */
function divergenceRows(page) {
  return page.$$eval("li.divergence", (rows) =>
    rows.map((row) => {
      const box = row.getBoundingClientRect();
      return [
        row.closest("ol").dataset.side,
        Number(row.dataset.position),
        box.top >= 0 && box.bottom <= innerHeight,
      ];
    }),
  );
}

test("compare page: ?a=&b= shows both runs by turn and jumps to the first divergence", async () => {
  const d = expected.first_divergence;
  assert.deepEqual(
    [d.aspect, d.life, d.turn, d.a.position, d.b.position],
    ["arguments", 1, 1, 8, 8],
  );
  const { page, problems } = await openPage(`/www/compare.html?a=/files/${A}&b=/files/${B}`);
  await page.waitForFunction(() => document.querySelector("[data-testid=verdict]")?.textContent);
  assert.equal(
    await page.textContent("[data-testid=verdict]"),
    `First divergence: life 1 turn 1 · arguments (A #8, B #8) · ${expected.difference_count} differences`,
  );
  assert.match(
    await page.textContent("[data-testid=run-b]"),
    /signals\.jsonl42 events · finished: completed/,
  );
  assert.equal(await page.locator("details.turn").count(), expected.turns.length);
  const index = expected.turns.findIndex((t) => t.life === 1 && t.turn === 1);
  assert.equal(await page.getAttribute(`#turn-${index}`, "open"), "");
  assert.deepEqual(await divergenceRows(page), [
    ["a", 8, true],
    ["b", 8, true],
  ]);
  // Each side lists its own events of the turn, the divergent call's among them.
  const rowA = await page.textContent(`#turn-${index} ol[data-side=a] li[data-position="8"]`);
  assert.match(rowA, /^#8 /);
  assert.match(
    await page.textContent(`#turn-${index} .differences`),
    /arguments call 1: A #8 .*one\.txt.* \| {2}B #8 .*a\.txt/,
  );
  // Every turn open makes the page long; scrolled to its end, the button jumps back.
  await page.$$eval("details.turn", (all) => {
    for (const d of all) d.open = true;
  });
  await page.evaluate(() => scrollTo(0, document.body.scrollHeight));
  assert.deepEqual(
    (await divergenceRows(page)).map((r) => r[2]),
    [false, false],
    "out of view at the end",
  );
  await page.click("[data-testid=jump]");
  assert.deepEqual(
    (await divergenceRows(page)).map((r) => r[2]),
    [true, true],
  );
  assert.deepEqual(problems, []);
  await page.close();
});

test("compare page: two files chosen", async () => {
  const { page, problems } = await openPage("/www/compare.html");
  assert.equal(await page.textContent("[data-testid=verdict]"), "");
  await page.setInputFiles("#file-a", join(corpus, A));
  await page.setInputFiles("#file-b", join(corpus, A));
  await page.waitForFunction(() =>
    document.querySelector("[data-testid=verdict]")?.textContent.startsWith("The runs match"),
  );
  assert.equal(
    await page.textContent("[data-testid=verdict]"),
    `The runs match (${expected.turns.filter((t) => t.a).length} turns).`,
  );
  assert.equal(await page.isDisabled("[data-testid=jump]"), true);
  await page.setInputFiles("#file-b", join(corpus, B));
  await page.waitForFunction(() =>
    document.querySelector("[data-testid=verdict]")?.textContent.startsWith("First divergence"),
  );
  assert.deepEqual(await divergenceRows(page), [
    ["a", 8, true],
    ["b", 8, true],
  ]);
  assert.deepEqual(problems, []);
  await page.close();
});
