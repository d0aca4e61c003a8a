// Takes docs/dashboard.png: the runs dashboard of `serve DIR` on 80 runs
// copied from the real corpus, newest first, a workflow's sub-agent
// sessions opened under it. Run: `node scripts/dashboard-screenshot.mjs`.
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { writeRuns } from "../benches/dashboard-data.mjs";
import { serve } from "../bin/serve.js";
import { launchChromium } from "../tests/js/browsers.mjs";

const root = new URL("..", import.meta.url).pathname;
const dir = mkdtempSync(join(tmpdir(), "dashboard-shot-"));
const ids = writeRuns(dir, 80);
const server = await serve({ port: 0, dir });
const browser = await launchChromium();
try {
  const page = await browser.newPage({ viewport: { width: 1280, height: 640 } });
  await page.goto(`${server.url}/sessions`);
  await page.waitForSelector("tr[data-session]");
  await page.click("[data-testid=sort-started]");
  const workflow = ids.filter((id) => /^workflow-\d+$/.test(id)).at(-1);
  await page.click(`tr[data-session="${workflow}"] [data-testid=toggle]`);
  await page.$eval(`tr[data-session="${workflow}"]`, (tr) => {
    document.getElementById("scroller").scrollTop = tr.offsetTop - 4 * tr.offsetHeight;
  });
  await page.waitForTimeout(200);
  await page.screenshot({ path: join(root, "docs/dashboard.png") });
} finally {
  await browser.close();
  await server.close();
  rmSync(dir, { recursive: true, force: true });
}
