// <agent-session-viewer>: the session panels (header, transcript, OS
// snapshot, sub-agent tree, charts, load errors) for any app. Give it a log
// (`log` property or `src` attribute) or data you folded yourself (`data`).
import { renderCharts } from "./charts.js";
import { viewDigest } from "./digest.js";
import { chartSeries } from "./series.js";
import { h, morphChildren, standIn } from "./dom.js";
import { LAZY_PANELS, LaterBuilds } from "./later-builds.js";
import { renderHeader } from "./render-header.js";
import { renderActivity, renderLoadErrors, renderWorkflow } from "./render-panels.js";
import { renderProcesses, renderSnapshot } from "./render-snapshot.js";
import { transcriptPanel } from "./render-transcript.js";
import { adoptStyles } from "./styles.js";

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
  #later = new LaterBuilds(this); // what is left unbuilt, and builds it when wanted

  connectedCallback() {
    this.classList.add("asv-root");
    adoptStyles(this);
    addEventListener("beforeprint", this.#buildAll);
    this.#schedule();
  }

  disconnectedCallback() {
    this.#dropCharts();
    removeEventListener("beforeprint", this.#buildAll);
    this.#later.disconnect();
  }

  /** Builds everything left for later (a printed page shows it all). */
  #buildAll = () => {
    this.#charts?.plots.flush();
    this.#later.buildAll();
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

  /** A whole log (string or bytes), folded here; resolves once shown. The
   * fold (fold.js, with the package's API) is imported when first needed:
   * a page that gives the element folded `data` (the viewer's, whose
   * worker folds) then loads none of the API. */
  async setLog(input) {
    const { foldLog } = await import("./fold.js");
    this.data = await foldLog(input);
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
    this.#placed = this.#later.place();
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
    if (same && !this.#later.has(shown)) {
      keep.add(shown);
      return h(shown.localName, { "data-testid": id });
    }
    if (!far.has(shown)) return build();
    later.push([id, build]);
    const box = shown.cloneNode(false);
    box.classList.add("asv-later");
    return standIn(box);
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
      near: this.#later.nearViewport(top),
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
    this.#later.buildWhenNear(transcript.later, laterPanels, fills ?? []);
    const series = d.charts ?? d.series ?? seriesOf(d.view);
    const rendered = () =>
      this.#later.whenFilled(() => this.dispatchEvent(new CustomEvent("rendered")));
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
