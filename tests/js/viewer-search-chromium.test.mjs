// End to end: the viewer in Chromium searches one log both ways it can, held
// whole in its worker and as a paged index (`?paged=1`, what it does above
// 64 MB), and finds the same events for queries beyond ASCII
// (docs/viewer.md#search).
import { after, before, test } from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { launchChromium } from "./browsers.mjs";
import { startServe } from "./serve.mjs";

const root = new URL("../..", import.meta.url).pathname;
const dir = join(root, "target/viewer-search");
mkdirSync(dir, { recursive: true });
const LOG = join(dir, "unicode.jsonl");
const messages = ["kein ärger", "KEIN ÄRGER", "die straße", "DIE STRASSE", "ΟΔΥΣΣΕΎΣ", "plain"];
writeFileSync(
  LOG,
  `${messages
    .map((content, i) =>
      JSON.stringify({
        kind: "llm_completed",
        turn: i + 1,
        message: { role: "assistant", content },
      }),
    )
    .join("\n")}\n`,
);
const N = messages.length;
/** Each query and the events it must find, either way. */
const QUERIES = { Ärger: 2, STRASSE: 1, straße: 1, οδυσσεύς: 1, ÄRGERN: 0 };

let browser;
let server;
before(async () => {
  browser = await launchChromium();
  server = await startServe(["--no-demo", LOG]);
});
after(async () => {
  await browser?.close();
  await server?.stop();
});

/** Opens the log `how` and waits, query by query, for the page to show
 * the match count `QUERIES` expects (a wrong count times out). */
async function expectCounts(how) {
  const page = await browser.newPage();
  const problems = [];
  page.on("pageerror", (e) => problems.push(e.message));
  await page.goto(`${server.url}/?log=/files/unicode.jsonl${how}`);
  await page.waitForFunction(
    (n) => document.querySelector("[data-testid=position]")?.textContent.includes(`of ${n}`),
    N,
    { timeout: 20_000 },
  );
  for (const [query, expected] of Object.entries(QUERIES)) {
    await page.fill("[data-testid=search]", query);
    await page.waitForFunction(
      (t) => document.querySelector("[data-testid=match-count]")?.textContent.startsWith(t),
      `${expected} of ${N}`,
      { timeout: 10_000 },
    );
  }
  assert.deepEqual(problems, []);
  await page.close();
}

test("a log held whole and the same log paged find the same events for a search beyond ASCII", async () => {
  await expectCounts("");
  await expectCounts("&paged=1");
});
