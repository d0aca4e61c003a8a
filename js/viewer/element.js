// <agent-session-viewer>: the session panels (header, transcript, OS
// snapshot, sub-agent tree, charts, load errors) for any app. Give it a log
// (`log` property or `src` attribute) or data you folded yourself (`data`).
import { init, SessionState } from "../web.js";
import { renderCharts } from "./charts.js";
import { viewDigest } from "./digest.js";
import { chartSeries } from "./series.js";
import { h, morphChildren, morphNode, standIn } from "./dom.js";
import { whenIdle } from "./idle.js";
import {
  renderActivity,
  renderHeader,
  renderLoadErrors,
  renderProcesses,
  renderSnapshot,
  renderWorkflow,
  transcriptPanel,
} from "./render.js";
import { adoptStyles } from "./styles.js";

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
const LAZY_PANELS = ["workflow", "activity", "snapshot", "processes"];

/** The style that has a panel laid out although far from the viewport. */
const LAID_OUT = "content-visibility: visible";

/**
 * Whether two panel inputs (JSON-like values) hold the same values: a walk
 * that stops at the first difference, where a time-travel step's inputs
 * differ at once (serializing both to compare costs the whole of each).
 * Objects are compared by their own enumerable keys; an object changed in
 * place equals itself, so `data` is given new objects for what changed.
 */
function sameValue(a, b) {
  if (a === b) return true;
  if (typeof a !== "object" || typeof b !== "object" || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!sameValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!sameValue(a[k], b[k])) return false;
  return true;
}

/** The chart series of each view given without them, taken once: a step
 * that gives the same view again then moves the charts' playhead alone. */
const seriesOfView = new WeakMap();
function seriesOf(view) {
  let series = seriesOfView.get(view);
  if (!series) {
    series = chartSeries(view);
    seriesOfView.set(view, series);
  }
  return series;
}

export class SessionViewer extends HTMLElement {
  static observedAttributes = ["src"];
  #data = null;
  #charts = null; // the charts panel and its plots, kept across renders
  #pending = false;
  #placed = null; // where the list and panels were when the render was asked for
  #drawn = 0; // renders started: a stale chart task gives way
  #inputs = new Map(); // panel id → its input at the last render
  #observers = new Map(); // margin → the observer building what comes within it
  #builds = new Map(); // skipped transcript entry or panel → builds it
  #fills = []; // stand-ins of panels not shown before, built one per idle period
  #filled = []; // called once `#fills` is empty
  #filling = false; // `#fillNext` is due
  #sizing = null; // the panel last built by `#fillNext`, laid out in the frame after
  #entryHeight = 200; // the mean height of the entries laid out last, in px

  connectedCallback() {
    this.classList.add("asv-root");
    adoptStyles(this);
    addEventListener("beforeprint", this.#buildAll);
    this.#schedule();
  }

  disconnectedCallback() {
    this.#dropCharts();
    removeEventListener("beforeprint", this.#buildAll);
    for (const observer of this.#observers.values()) observer.disconnect();
  }

  /** Builds everything left for later (a printed page shows it all). */
  #buildAll = () => {
    this.#charts?.plots.flush();
    for (const observer of this.#observers.values()) observer.disconnect();
    for (const node of [...this.#builds.keys()]) this.#buildNode(node);
  };

  /** Draws everything again (e.g. after a theme change: charts are canvases). */
  redraw() {
    this.#dropCharts();
    this.#schedule();
  }

  attributeChangedCallback(name, _old, value) {
    if (name === "src" && value) {
      fetch(value)
        .then((r) =>
          r.ok ? r.arrayBuffer() : Promise.reject(new Error(`${value}: HTTP ${r.status}`)),
        )
        .then((b) => this.setLog(new Uint8Array(b)))
        .catch((error) => this.#fail(error));
    }
  }

  /**
   * What the panels show: `view` (a SessionView: transcript, charts, load
   * errors), `snapshot` (an OsSnapshot), and optionally `summary` (a
   * SessionSummary for the header and processes, e.g. a time-travel
   * checkpoint's), `at` (a position: lists are cut there), `series`
   * (chartSeries() output, when `view` holds only part of the lists),
   * `charts` (chartTables() of those series, bucketed elsewhere: a Worker),
   * `digest` (viewDigest() output, likewise), `earlier` (transcript entries
   * before those in `view`) and `totals` (the full lengths of snapshot
   * lists and process histories, when only their latest part was given).
   */
  set data(data) {
    this.#data = data;
    this.#schedule();
  }

  get data() {
    return this.#data;
  }

  /** A whole log (string or bytes), folded here; resolves once shown. */
  async setLog(input) {
    await init();
    const state = new SessionState();
    try {
      state.apply(input);
      this.data = { view: state.view(), snapshot: state.osSnapshot() };
    } finally {
      state.free();
    }
  }

  set log(input) {
    this.setLog(input).catch((error) => this.#fail(error));
  }

  #fail(error) {
    this.replaceChildren(
      h("p", { class: "asv-errors" }, `Could not load the session: ${error.message}`),
    );
    this.dispatchEvent(new CustomEvent("error", { detail: error }));
  }

  /** Renders once at the end of the current task, however many times data
   * was set in it (not at the next animation frame: that would add up to a
   * frame to every time-travel step). Where the transcript and the panels
   * are is read here, at the first set: the page has then most likely
   * written nothing since the last frame, so the read lays nothing out
   * (the render's microtask comes after the page's other writes). */
  #schedule() {
    if (this.#pending || !this.isConnected) return;
    this.#pending = true;
    this.#placed = { top: this.#listTop(), far: this.#farPanels() };
    queueMicrotask(() => {
      this.#pending = false;
      this.#render();
    });
  }

  /**
   * The panel `id` built from `input`; or, when the panel is shown and its
   * input is what it was at the last render, a stand-in that leaves it as
   * it is (added to `keep`: building and comparing it would cost more); or,
   * when it is shown far from the viewport (`far`), a stand-in that keeps
   * it, hidden (`asv-later`), until it comes near and is built (`later`);
   * or, at the first render (`fills` given), when it is one of
   * `LAZY_PANELS`, an empty stand-in built in a task of its own after the
   * render (added to `fills`): the first render then lays out no panel
   * below the charts, whose tables are the larger part of a state. (Not
   * at a step: a panel that is not shown, as the workflow of a log
   * without one, would be built, to nothing, after each.) `input`
   * undefined: never the same.
   */
  #panel({ keep, far, later, fills }, id, input, build) {
    const same = input !== undefined && sameValue(this.#inputs.get(id), input);
    this.#inputs.set(id, input);
    const shown = this.querySelector(`[data-testid="${id}"]`);
    if (fills && LAZY_PANELS.includes(id)) {
      fills.push([id, build]);
      return h("section", { class: "asv-panel asv-later", "data-testid": id });
    }
    if (!shown) return build();
    if (same && !this.#builds.has(shown)) {
      keep.add(shown);
      return h(shown.localName, { "data-testid": id });
    }
    if (!far.has(shown)) return build();
    later.push([id, build]);
    const box = shown.cloneNode(false);
    box.classList.add("asv-later");
    return standIn(box);
  }

  /** The panels of the right column shown wholly past the viewport's
   * margin (read, as `#listTop`, before a render writes). */
  #farPanels() {
    const far = new Set();
    for (const id of LAZY_PANELS) {
      const panel = this.querySelector(`[data-testid="${id}"]`);
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
   * `#entryHeight`). Read before a render changes the tree (`#schedule`).
   */
  #listTop() {
    const list = this.querySelector('[data-testid="transcript"]');
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
  #nearViewport(top) {
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
  #buildWhenNear(entries, panels, fills) {
    for (const observer of this.#observers.values()) observer.disconnect();
    this.#builds = new Map();
    const shown = this.querySelectorAll('[data-testid="transcript"] > .asv-t');
    for (const [i, build] of entries.entries()) if (build) this.#buildWithin(shown[i], build, NEAR);
    for (const [id, build] of panels)
      this.#buildWithin(this.querySelector(`[data-testid="${id}"]`), build, PANEL_NEAR);
    this.#fills = fills.map(([id, build]) => {
      const node = this.querySelector(`[data-testid="${id}"]`);
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
  #whenFilled(f) {
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

  #dropCharts() {
    this.#charts?.plots.destroy();
    this.#charts = null;
  }

  #render() {
    const d = this.#data;
    if (!d) return;
    const { top, far } = this.#placed;
    const at = d.at ?? Infinity;
    const state = d.summary ?? d.view;
    const digest = d.digest ?? viewDigest(d.view);
    const select = (position) =>
      this.dispatchEvent(
        new CustomEvent("select-position", { detail: { position }, bubbles: true }),
      );
    const kept = this.#charts?.section.isConnected ? this.#charts.section : null;
    const keep = new Set(kept ? [kept] : []);
    const laterPanels = [];
    // The first render: no panel shown yet (the charts' section is in every render).
    const fills = this.querySelector(".asv-charts") ? null : [];
    const panel = (id, input, build) =>
      this.#panel({ keep, far, later: laterPanels, fills }, id, input, build);
    const transcript = transcriptPanel(d.view, {
      at,
      limit: d.limit ?? 200,
      earlier: d.earlier ?? 0,
      calls: digest.calls,
      onSelect: select,
      near: this.#nearViewport(top),
    });
    const charts = h(
      "section",
      { class: "asv-panel asv-charts", "data-testid": "charts" },
      kept ? null : h("h2", {}, "Charts"),
    );
    const fresh = [
      renderHeader(state),
      h(
        "div",
        { class: "asv-grid" },
        h(
          "div",
          {},
          panel("load-errors", [d.view.load_errors, state.errors.load_errors], () =>
            renderLoadErrors(d.view.load_errors, state.errors.load_errors),
          ),
          transcript.panel,
        ),
        h(
          "div",
          {},
          charts,
          panel("workflow", undefined, () => renderWorkflow(digest.workflow, state.processes, at)),
          panel("activity", undefined, () =>
            renderActivity(digest.activity, digest.observations, at),
          ),
          panel("snapshot", [d.snapshot, d.totals?.lists], () =>
            renderSnapshot(d.snapshot, d.totals?.lists),
          ),
          panel("processes", [state.processes, state.run?.run_id, d.totals?.history], () =>
            renderProcesses(state.processes, state.run?.run_id, d.totals?.history),
          ),
        ),
      ),
    ];
    // A step changes the tree only where the new state differs: the charts'
    // section and its plots stay as they are and get new data below.
    morphChildren(this, h("div", {}, fresh), keep);
    this.#buildWhenNear(transcript.later, laterPanels, fills ?? []);
    const series = d.charts ?? d.series ?? seriesOf(d.view);
    const rendered = () => this.#whenFilled(() => this.dispatchEvent(new CustomEvent("rendered")));
    if (kept) {
      this.#charts.plots.update(series, at);
      this.#charts.plots.whenDrawn(rendered);
      return;
    }
    // Making the plots is the costly part: tasks of their own, so none runs long.
    const drawn = ++this.#drawn;
    setTimeout(() => {
      if (drawn !== this.#drawn || !this.isConnected) return;
      this.#charts?.plots.destroy();
      const section = this.querySelector(".asv-charts");
      this.#charts = { section, plots: renderCharts(section, series, at) };
      this.#charts.plots.whenDrawn(rendered);
    });
  }
}

/** Registers `<agent-session-viewer>` (once). */
export function defineSessionViewer(name = "agent-session-viewer") {
  if (!customElements.get(name)) customElements.define(name, class extends SessionViewer {});
}
