// What benches/viewer.mjs runs in the viewer's page, the same in every
// engine (each function is sent to the page as its source: it uses nothing
// from this module; `milestones` alone runs in node, on what the probe
// marked): the probe that marks the page's milestones as the
// page itself shows them, a scrubber jump and a search, each timed until
// the frame showing its result is painted.

/**
 * The one definition of "still checking": an element the viewer shows
 * while its deferred typed check of the log runs (issue 28). A load is
 * "checked" once none is present; one that was never seen makes "checked"
 * the moment the log is navigable. The viewer must put it in the page no
 * later than the frame that first shows the loaded log's position.
 */
export const CHECKING = "[data-testid=checking]:not([hidden])";

/**
 * Installed in the page (as an init script where the engine has one, else
 * right after the navigation returns), records in `window.__bench`, in
 * ms of `performance.now()`: `t0` (0, or when a file was picked in #file:
 * every mark then starts again from there), `first` (the `viewer-partial`
 * event: the header of what is loaded so far is drawn), `navigable` (the
 * first `viewer-state`: the loaded log's position is shown, the timeline
 * and scrubber usable), `checked` (see CHECKING), the first error shown,
 * the last progress line, and long tasks where the engine reports them
 * (Chromium). A milestone already reached when the probe is installed is
 * marked then, and named in `late`: its figure is an upper bound.
 */
export function probe(checking) {
  if (window.__bench) return;
  const now = () => performance.now();
  const fresh = (t0) => ({ t0, late: [], long: [], checkingSeen: false });
  const marks = { ...fresh(0), installedAt: now(), longtasks: false };
  window.__bench = marks;
  const watch = () => {
    const box = document.getElementById("error");
    if (box && !box.hidden && box.textContent && !marks.error)
      marks.error = { message: box.textContent, at: now() };
    const text = document.getElementById("progress-text")?.textContent;
    if (text) marks.progress = text;
    if (document.querySelector(checking)) {
      marks.checkingSeen = true;
      marks.checked = undefined;
    } else if (marks.navigable !== undefined && marks.checked === undefined)
      marks.checked = marks.checkingSeen ? now() : marks.navigable;
  };
  document.addEventListener("viewer-partial", () => {
    marks.first ??= now();
  });
  document.addEventListener("viewer-state", () => {
    marks.navigable ??= now();
    watch();
  });
  document.addEventListener(
    "change",
    (e) => {
      if (e.target.id !== "file") return;
      for (const key of ["first", "navigable", "checked", "error", "progress"]) delete marks[key];
      Object.assign(marks, fresh(now()));
    },
    true,
  );
  new MutationObserver(watch).observe(document, {
    subtree: true,
    childList: true,
    attributes: true,
    characterData: true,
  });
  if (PerformanceObserver.supportedEntryTypes?.includes("longtask")) {
    marks.longtasks = true;
    new PerformanceObserver((list) => {
      for (const e of list.getEntries()) marks.long.push(e.duration);
    }).observe({ type: "longtask", buffered: true });
  }
  // Installed late: what the page already shows.
  if (document.querySelector("#partial > *")) {
    marks.first = marks.installedAt;
    marks.late.push("first");
  }
  if (document.querySelector("[data-testid=position]")?.textContent) {
    marks.navigable = marks.installedAt;
    marks.late.push("navigable");
  }
  if (document.readyState !== "loading") watch();
}

/** The probe's marks (its long tasks counted, not listed). */
export function readMarks() {
  const { long, ...marks } = window.__bench;
  return { ...marks, longest: Math.max(0, ...long), longCount: long.length };
}

/** (In node, of `readMarks()`.) The milestones of `marks`, in ms from its start; a milestone the probe
 * found already reached is an upper bound, named in `late`, and so are
 * those that took its time (first render and checked, when they are
 * navigable's). */
export function milestones(marks) {
  const since = (t) => (t === undefined ? undefined : t - marks.t0);
  const late = new Set(marks.late);
  if (late.has("navigable") && marks.first === undefined) late.add("first");
  if (late.has("navigable") && marks.checked === marks.navigable) late.add("checked");
  return {
    first: since(Math.min(marks.first ?? Infinity, marks.navigable ?? Infinity)),
    navigable: since(marks.navigable),
    checked: since(marks.checked),
    late: [...late],
    checkingSeen: marks.checkingSeen,
    longestLoadTask: marks.longtasks ? marks.longest : undefined,
  };
}

/** The worker's memory report, or null if it does not answer in 5 s (a trapped worker). */
export function workerMemory() {
  return Promise.race([
    window.agentReplayViewer.memory(),
    new Promise((resolve) => setTimeout(() => resolve(null), 5000)),
  ]);
}

/** How long `jump` and `search` wait for what they time before they give
 * up (a state or a match count that never comes): a failed measure, not a
 * benchmark that hangs. */
export const GIVE_UP_MS = 60_000;

/** Forgets the long tasks seen so far (the load's), before the jumps. */
export function forgetLongTasks() {
  window.__bench.long = [];
}

/** One scrubber jump to `position`, timed until the frame showing it is
 * painted; resolves to its ms, or null if it is not shown in `giveUpMs`.
 * One call a jump: each is short, whatever an engine's script timeout. */
export async function jump([position, giveUpMs]) {
  const drawn = new Promise((resolve) => {
    const on = (e) => {
      if (e.detail.position !== position) return;
      document.removeEventListener("viewer-state", on);
      resolve(true);
    };
    document.addEventListener("viewer-state", on);
    setTimeout(() => resolve(false), giveUpMs);
  });
  const t0 = performance.now();
  const scrubber = document.getElementById("scrubber");
  scrubber.value = String(position);
  scrubber.dispatchEvent(new Event("input"));
  if (!(await drawn)) return null;
  // Until the frame with the new state is painted.
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  return performance.now() - t0;
}

/** A full-text search typed into the search box, timed until the match
 * count for it is painted (the filter runs over every event); null if the
 * count does not change in `giveUpMs`. */
export async function search([query, giveUpMs]) {
  const count = document.querySelector("[data-testid=match-count]");
  const before = count.textContent;
  const t0 = performance.now();
  const box = document.querySelector("[data-testid=search]");
  box.value = query;
  box.dispatchEvent(new Event("input", { bubbles: true }));
  while (count.textContent === before) {
    if (performance.now() - t0 > giveUpMs) return null;
    await new Promise((r) => setTimeout(r, 1));
  }
  await new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve)));
  return performance.now() - t0;
}
