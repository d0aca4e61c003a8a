// What <agent-session-viewer> leaves unbuilt for later, and builds when
// it is wanted: transcript entries and panels far from the viewport (built
// as scrolling brings them near) and, at the first render, the panels below
// the charts (built one per idle period). Where the list and panels are is
// read here too, before a render writes. One per element (`host`).
import { morphNode } from "./dom.js";
import { whenIdle } from "./idle.js";

/** How far past the viewport's edges transcript entries are laid out, as
 * a share of its height: scrolling then finds them drawn. */
const NEAR = 0.5;

/** How far past the viewport's edges the panels below the charts are
 * built. Less than for entries: a panel's place is read, not estimated, and
 * one far below the fold (the OS snapshot's tables) would otherwise be
 * built and laid out at every step. */
const PANEL_NEAR = 0.25;

/** The panels left unbuilt while far from the viewport (the right
 * column's, below the charts), and at the first render built in tasks of
 * their own. */
export const LAZY_PANELS = ["workflow", "activity", "snapshot", "processes"];

/** The style that has a panel laid out although far from the viewport. */
const LAID_OUT = "content-visibility: visible";

/** An element's builds left for later, and the places read to decide them. */
export class LaterBuilds {
  #host;
  #observers = new Map(); // margin → the observer building what comes within it
  #builds = new Map(); // skipped transcript entry or panel → builds it
  #fills = []; // stand-ins of panels not shown before, built one per idle period
  #filled = []; // called once `#fills` is empty
  #filling = false; // `#fillNext` is due
  #sizing = null; // the panel last built by `#fillNext`, laid out in the frame after
  #entryHeight = 200; // the mean height of the entries laid out last, in px

  constructor(host) {
    this.#host = host;
  }

  /** Where the transcript's list (`top`) and the panels far from the
   * viewport (`far`) are now: read when a render is asked for, before it
   * writes (see `#listTop`). */
  place() {
    return { top: this.#listTop(), far: this.#farPanels() };
  }

  /** Whether `node` is left for later (a stand-in, not the panel itself). */
  has(node) {
    return this.#builds.has(node);
  }

  /** Builds everything left for later (a printed page shows it all). */
  buildAll() {
    this.disconnect();
    for (const node of [...this.#builds.keys()]) this.#buildNode(node);
  }

  /** Stops building what comes near (the element left the page). */
  disconnect() {
    for (const observer of this.#observers.values()) observer.disconnect();
  }

  /** The panels of the right column shown wholly past the viewport's
   * margin (read, as `#listTop`, before a render writes). */
  #farPanels() {
    const far = new Set();
    for (const id of LAZY_PANELS) {
      const panel = this.#host.querySelector(`[data-testid="${id}"]`);
      if (!panel) continue;
      const { top, bottom } = panel.getBoundingClientRect();
      const margin = innerHeight * PANEL_NEAR;
      if (top > innerHeight + margin || bottom < -margin) far.add(panel);
    }
    return far;
  }

  /**
   * Where the transcript's list is in the viewport (its top, or null when
   * none is shown), and the mean height of its laid-out entries (kept in
   * `#entryHeight`). Read before a render changes the tree (the
   * element's `#schedule`).
   */
  #listTop() {
    const list = this.#host.querySelector('[data-testid="transcript"]');
    if (!list) return null;
    let height = 0;
    let n = 0;
    for (const entry of list.querySelectorAll(":scope > .asv-t:not(.asv-later)")) {
      height += entry.getBoundingClientRect().height;
      n += 1;
    }
    if (height > 0) this.#entryHeight = height / n;
    return list.getBoundingClientRect().top;
  }

  /**
   * Which transcript entries to build now: those in or near the viewport,
   * where the list's last top and mean entry height place them (`near(i)`
   * for the list's `i`th entry). The others are left as their boxes
   * (`asv-later`: `content-visibility: hidden`, at their last or an
   * estimated height) and built when scrolling brings them near: a random
   * jump then builds, lays out and paints a few entries, not all it shows.
   * (`content-visibility: auto` lays out every entry within its much wider
   * margin, at each step.) The margin past the viewport's edges covers a
   * misplaced estimate; an entry that still turns out near is built a frame
   * later.
   */
  nearViewport(top) {
    const margin = innerHeight * NEAR;
    const y = top ?? 0;
    return (i) => {
      const at = y + i * this.#entryHeight;
      return at <= innerHeight + margin && at + this.#entryHeight >= -margin;
    };
  }

  /** Builds what was left for later as it comes near the viewport: the
   * list's entries (`entries[i]` builds its `i`th) and panels (`panels`:
   * `[id, build]`; a build may give null, no panel); and the panels not
   * shown before (`fills`, likewise), one per idle period, top first. */
  buildWhenNear(entries, panels, fills) {
    this.disconnect();
    this.#builds = new Map();
    const shown = this.#host.querySelectorAll('[data-testid="transcript"] > .asv-t');
    for (const [i, build] of entries.entries()) if (build) this.#buildWithin(shown[i], build, NEAR);
    for (const [id, build] of panels)
      this.#buildWithin(this.#host.querySelector(`[data-testid="${id}"]`), build, PANEL_NEAR);
    this.#fills = fills.map(([id, build]) => {
      const node = this.#host.querySelector(`[data-testid="${id}"]`);
      this.#builds.set(node, build);
      return node;
    });
    if (this.#fills.length && !this.#filling) {
      this.#filling = true;
      whenIdle(this.#fillNext);
    }
  }

  /** Builds the next panel of `#fills` (one a task, so that each one's
   * build and layout is a short task of its own), then the rest later.
   * Each is laid out in the frame after its build even if far from the
   * viewport (its style, dropped at the next call): its box then keeps its
   * size once skipped again (`contain-intrinsic-size: auto`), and the page
   * is as tall as if it had been built with the render. The next call is
   * asked for from that frame's `requestAnimationFrame`, so it runs after
   * the frame: an idle callback alone can time out before a busy page's
   * next frame, and the style would go before the box was ever sized. */
  #fillNext = () => {
    if (this.#sizing?.getAttribute("style") === LAID_OUT) this.#sizing.removeAttribute("style");
    this.#sizing = null;
    const node = this.#fills.shift();
    if (node) {
      this.#buildNode(node);
      if (node.isConnected) {
        node.setAttribute("style", LAID_OUT);
        this.#sizing = node;
      }
      return requestAnimationFrame(() => whenIdle(this.#fillNext));
    }
    this.#filling = false;
    for (const f of this.#filled.splice(0)) f();
  };

  /** Builds `node`, left for later, if it still is (its build gives the
   * node to put in its place, or null: none). */
  #buildNode(node) {
    const build = this.#builds.get(node);
    if (!build) return;
    this.#builds.delete(node);
    const fresh = build();
    if (fresh) morphNode(node, fresh);
    else node.remove();
  }

  /** Calls `f` once the panels not shown before are built and laid out. */
  whenFilled(f) {
    if (this.#filling) this.#filled.push(f);
    else f();
  }

  /** Builds `node` by `build` once it comes within `margin` (a share of
   * the viewport's height) of the viewport. */
  #buildWithin(node, build, margin) {
    this.#builds.set(node, build);
    let observer = this.#observers.get(margin);
    if (!observer) {
      observer = new IntersectionObserver(
        (seen) => {
          for (const { isIntersecting, target } of seen) {
            if (!isIntersecting) continue;
            this.#buildNode(target);
            observer.unobserve(target);
          }
        },
        { rootMargin: `${margin * 100}% 0px` },
      );
      this.#observers.set(margin, observer);
    }
    observer.observe(node);
  }
}
