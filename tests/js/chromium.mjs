// Headless Debian Chromium for the browser tests and benchmarks, launched
// one way everywhere (CHROMIUM_PATH overrides where it is).
import { chromium } from "playwright-core";

const ARGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
  "--no-first-run",
];

/** A browser; `extraArgs` add to the flags every run uses. */
export function launchChromium(extraArgs = []) {
  return chromium.launch({
    executablePath: process.env.CHROMIUM_PATH ?? "/usr/bin/chromium",
    args: [...ARGS, ...extraArgs],
  });
}
