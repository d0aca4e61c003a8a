// The viewer benchmark's own instruments (benches/viewer.mjs): the probe
// that marks first render, navigable and checked as the page shows them
// (benches/viewer-page.mjs), on the real viewer in Chromium, and the
// memory of a process tree read from /proc (benches/process-rss.mjs).
import { after, before, describe, test } from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { once } from "node:events";
import { join } from "node:path";
import { childrenOf, treeMemoryMb } from "../../benches/process-rss.mjs";
import { CHECKING, milestones, probe, readMarks } from "../../benches/viewer-page.mjs";
import { launchBrowser } from "./browsers.mjs";
import { startServe } from "./serve.mjs";

const root = new URL("../..", import.meta.url).pathname;
const LOG = join(root, "tests/corpus/deepstrike-0.2.77/long_run.jsonl");

/** Run as an init script: a "checking…" indicator from the start, hidden
 * a while after the log is first shown (as the viewer's deferred check). */
function fakeChecking() {
  document.addEventListener("DOMContentLoaded", () => {
    const box = document.createElement("div");
    box.dataset.testid = "checking";
    box.textContent = "checking…";
    document.body.append(box);
    const done = () => setTimeout(() => (box.hidden = true), 200);
    document.addEventListener("viewer-state", done, { once: true });
  });
}

describe("the probe, on the viewer in Chromium", () => {
  let server;
  let browser;
  let page;
  before(async () => {
    server = await startServe(["--no-demo", LOG]);
    browser = await launchBrowser("chromium");
  });
  after(async () => {
    await browser?.close();
    await server?.stop();
  });
  const fresh = async () => {
    await page?.close();
    page = await browser.newPage();
    return page;
  };
  const checked = () => page.waitFor(() => window.__bench?.checked !== undefined);

  test("with no checking indicator, checked is navigable", async () => {
    await (await fresh()).addInitScript(probe, CHECKING);
    await page.goto(`${server.url}/?log=/files/long_run.jsonl`);
    await checked();
    const marks = await page.evaluate(readMarks);
    assert.equal(marks.t0, 0);
    assert.ok(marks.navigable > 0, JSON.stringify(marks));
    assert.equal(marks.checked, marks.navigable);
    assert.equal(marks.checkingSeen, false);
    assert.deepEqual(marks.late, []);
    assert.equal(marks.error, undefined);
  });

  test("checked waits until the checking indicator is hidden", async () => {
    await (await fresh()).addInitScript(fakeChecking);
    await page.addInitScript(probe, CHECKING);
    await page.goto(`${server.url}/?log=/files/long_run.jsonl`);
    await checked();
    const marks = await page.evaluate(readMarks);
    assert.equal(marks.checkingSeen, true);
    assert.ok(marks.checked > marks.navigable, JSON.stringify(marks));
  });

  test("installed once the log is navigable, it marks navigable as late", async () => {
    await (await fresh()).goto(`${server.url}/?log=/files/long_run.jsonl`);
    await page.waitFor(() => document.querySelector("[data-testid=position]").textContent);
    await page.evaluate(probe, CHECKING);
    const marks = await page.evaluate(readMarks);
    assert.deepEqual(marks.late, ["navigable"]);
    assert.equal(marks.navigable, marks.installedAt);
    assert.equal(marks.checked, marks.navigable);
    // The figures that took navigable's time are upper bounds too.
    const figures = milestones(marks);
    assert.deepEqual(figures.late.sort(), ["checked", "first", "navigable"]);
    assert.equal(figures.first, figures.navigable);
  });

  test("a file picked: the marks count from the pick", async () => {
    await (await fresh()).goto(`${server.url}/`);
    await page.evaluate(probe, CHECKING);
    await page.setInputFile("#file", LOG);
    await checked();
    const marks = await page.evaluate(readMarks);
    assert.ok(marks.t0 > marks.installedAt, JSON.stringify(marks));
    assert.ok(marks.navigable > marks.t0, JSON.stringify(marks));
    assert.deepEqual(marks.late, []);
  });
});

test("a process tree's memory sums its descendants", async () => {
  // A child holding 64 MB, which starts a grandchild holding 32 MB that prints its pid.
  const grandchild = `globalThis.held = Buffer.alloc(32e6, 1);
console.log(process.pid);
setTimeout(() => {}, 60_000);`;
  const child = spawn(
    process.execPath,
    [
      "-e",
      `globalThis.held = Buffer.alloc(64e6, 1);
require("node:child_process").spawn(process.execPath, ["-e", ${JSON.stringify(grandchild)}], { stdio: "inherit" });
setTimeout(() => {}, 60_000);`,
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let grandPid;
  try {
    const [line] = await once(child.stdout, "data");
    grandPid = Number(String(line).trim());
    assert.ok(childrenOf().some((p) => p.pid === child.pid && p.name === "node"));
    const tree = treeMemoryMb([child.pid]);
    const leaf = treeMemoryMb([grandPid]);
    assert.ok(leaf.rss >= 32, `the grandchild's RSS: ${leaf.rss} MB`);
    assert.ok(
      tree.rss >= leaf.rss + 64,
      `the tree's RSS: ${tree.rss} MB, the grandchild's ${leaf.rss}`,
    );
    assert.ok(tree.pss > 0 && tree.pss <= tree.rss, JSON.stringify(tree));
  } finally {
    if (grandPid) process.kill(grandPid);
    child.kill();
  }
});
