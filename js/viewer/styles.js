// The viewer's styles: CSS variables for light and dark themes (the
// system's, or `theme="light|dark"` on the element or <html data-theme>),
// one column on narrow screens. uPlot's own rules follow (MIT, (c) Leon
// Sorokin, from uplot/dist/uPlot.min.css) so no stylesheet has to be linked.
// The colours are palette.js's.
import { THEMES, TONE_COLORS, themeVariables, toneColors } from "./palette.js";

/** The dark theme's variables (the system's choice, or asked for). */
const DARK = themeVariables(THEMES.dark, "asv-");

/** A badge's colours by its status tone (`asv-TONE`). */
const TONE_BADGES = Object.keys(TONE_COLORS)
  .map((tone) => {
    const { color, background } = toneColors(tone, "asv-");
    return `.asv-badge.asv-${tone} { background: ${background}; color: ${color}; }`;
  })
  .join("\n");

export const STYLES = `
agent-session-viewer, .asv-root {
  ${themeVariables(THEMES.light, "asv-")}
  display: block; color: var(--asv-fg); background: var(--asv-bg);
  font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif;
}
@media (prefers-color-scheme: dark) {
  :root:not([data-theme="light"]) :is(agent-session-viewer, .asv-root):not([theme="light"]) {
    ${DARK}
  }
}
:root[data-theme="dark"] :is(agent-session-viewer, .asv-root):not([theme="light"]), :is(agent-session-viewer, .asv-root)[theme="dark"] {
  ${DARK}
}
.asv-header { display: flex; flex-wrap: wrap; gap: 12px 24px; align-items: flex-start; justify-content: space-between; padding: 12px 0; border-bottom: 1px solid var(--asv-line); }
.asv-run { min-width: 0; flex: 1 1 320px; }
.asv-run-line { display: flex; flex-wrap: wrap; gap: 8px; align-items: center; }
.asv-run-id { font-weight: 600; font-family: ui-monospace, SFMono-Regular, Menlo, monospace; }
.asv-agent, .asv-dim { color: var(--asv-dim); }
.asv-goal { margin-top: 4px; font-size: 15px; }
.asv-stats { display: flex; flex-wrap: wrap; gap: 6px; }
.asv-stat { display: flex; flex-direction: column; align-items: center; min-width: 64px; padding: 4px 8px; border: 1px solid var(--asv-line); border-radius: 6px; background: var(--asv-card); }
.asv-stat-value { font-weight: 650; font-variant-numeric: tabular-nums; }
.asv-stat-label { font-size: 11px; color: var(--asv-dim); }
.asv-stat.asv-warn .asv-stat-value { color: var(--asv-warn); }
.asv-stat.asv-bad .asv-stat-value { color: var(--asv-bad); }
.asv-badge { display: inline-block; padding: 0 8px; margin-left: 6px; border-radius: 10px; font-size: 12px; font-weight: 600; background: var(--asv-idle-bg); }
${TONE_BADGES}
.asv-grid { display: grid; grid-template-columns: minmax(0, 3fr) minmax(0, 2fr); gap: 16px; margin-top: 12px; }
@media (max-width: 900px) { .asv-grid { grid-template-columns: minmax(0, 1fr); } }
.asv-panel { content-visibility: auto; contain-intrinsic-size: auto 400px; background: var(--asv-card); border: 1px solid var(--asv-line); border-radius: 8px; padding: 10px 12px; margin-bottom: 12px; min-width: 0; }
.asv-panel h2 { font-size: 15px; margin: 0 0 8px; }
.asv-panel h3 { font-size: 13px; margin: 12px 0 4px; color: var(--asv-dim); }
.asv-transcript { list-style: none; margin: 0; padding: 0; }
.asv-t { contain: content; contain-intrinsic-size: auto 90px; display: flex; gap: 8px; padding: 8px 6px; border-top: 1px solid var(--asv-line); cursor: pointer; border-left: 3px solid transparent; }
.asv-t:first-child { border-top: 0; }
:is(.asv-t, .asv-panel).asv-later { content-visibility: hidden; }
.asv-t:hover { background: var(--asv-bg); }
.asv-t-goal { border-left-color: var(--asv-accent); }
.asv-t-assistant { border-left-color: var(--asv-pending); }
.asv-t.asv-error { border-left-color: var(--asv-warn); background: var(--asv-warn-bg); }
.asv-t.asv-fatal { border-left-color: var(--asv-bad); background: var(--asv-bad-bg); }
.asv-t-rollback { border-left-color: var(--asv-bad); }
.asv-t-suspended, .asv-t-resumed { border-left-color: var(--asv-warn); }
.asv-undone { opacity: 0.55; }
.asv-undone .asv-text { text-decoration: line-through; }
.asv-t-body { min-width: 0; flex: 1; }
.asv-t-head { font-weight: 600; }
.asv-t p { margin: 2px 0; white-space: pre-wrap; overflow-wrap: anywhere; }
.asv-pos { color: var(--asv-dim); font: 12px ui-monospace, monospace; min-width: 3.5em; }
.asv-pre { margin: 4px 0; padding: 6px 8px; max-height: 16em; overflow: auto; background: var(--asv-bg); border: 1px solid var(--asv-line); border-radius: 4px; font: 12px/1.4 ui-monospace, SFMono-Regular, Menlo, monospace; white-space: pre-wrap; overflow-wrap: anywhere; }
.asv-note { color: var(--asv-warn); }
.asv-criteria { margin: 4px 0 0 1.2em; padding: 0; }
.asv-kv { display: grid; gap: 2px; margin-bottom: 8px; }
.asv-table { width: 100%; border-collapse: collapse; font-size: 12px; margin-bottom: 6px; }
.asv-table th, .asv-table td { text-align: left; padding: 3px 6px; border-bottom: 1px solid var(--asv-line); overflow-wrap: anywhere; }
.asv-tree { list-style: none; margin: 0; padding-left: 16px; border-left: 1px dashed var(--asv-line); }
.asv-tree-root { padding-left: 0; border-left: 0; }
.asv-proc { margin: 6px 0; }
.asv-history { margin: 2px 0 0 1em; padding: 0; font-size: 12px; color: var(--asv-dim); list-style: none; }
.asv-errors li { color: var(--asv-bad); }
:is(.asv-workflow, .asv-activity) .asv-table :is(th, td:not(:last-child)) { overflow-wrap: normal; }
.asv-t-model_call { border-left-color: var(--asv-dim); }
.asv-call { margin-top: 4px; padding: 4px 8px; border: 1px solid var(--asv-line); border-radius: 4px; background: var(--asv-bg); font-size: 12px; }
.asv-call-head { display: flex; flex-wrap: wrap; align-items: center; gap: 2px; }
.asv-route { font: 12px ui-monospace, SFMono-Regular, Menlo, monospace; }
.asv-attempts { margin: 2px 0 0; padding: 0 0 0 1em; overflow-wrap: anywhere; }
.asv-attempt-failed { color: var(--asv-bad); }
.asv-life { padding: 6px; margin: 4px 0; text-align: center; font-weight: 600; color: var(--asv-pending); background: var(--asv-pending-bg); border-radius: 4px; }
.asv-chart { margin: 0 0 10px; min-width: 0; }
.asv-chart figcaption { font-size: 12px; font-weight: 600; color: var(--asv-dim); }
.asv-charts .uplot { width: 100%; }
.asv-charts .u-legend { color: var(--asv-fg); }
.asv-charts .u-over { overflow: hidden; }
.asv-after { position: absolute; inset: 0; border-left: 2px solid var(--asv-accent); background: color-mix(in srgb, var(--asv-card) 65%, transparent); pointer-events: none; will-change: transform; }
.uplot, .uplot *, .uplot *::before, .uplot *::after {box-sizing: border-box;}.uplot {font-family: system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, "Noto Sans", sans-serif, "Apple Color Emoji", "Segoe UI Emoji", "Segoe UI Symbol", "Noto Color Emoji";line-height: 1.5;width: min-content;}.u-title {text-align: center;font-size: 18px;font-weight: bold;}.u-wrap {position: relative;user-select: none;}.u-over, .u-under {position: absolute;}.u-under {overflow: hidden;}.uplot canvas {display: block;position: relative;width: 100%;height: 100%;}.u-axis {position: absolute;}.u-legend {font-size: 12px;margin: auto;text-align: center;}.u-inline {display: block;}.u-inline * {display: inline-block;}.u-inline tr {margin-right: 16px;}.u-legend th {font-weight: 600;}.u-legend th > * {vertical-align: middle;display: inline-block;}.u-legend .u-marker {width: 1em;height: 1em;margin-right: 4px;background-clip: padding-box !important;}.u-inline.u-live th::after {content: ":";vertical-align: middle;}.u-inline:not(.u-live) .u-value {display: none;}.u-series > * {padding: 4px;}.u-series th {cursor: pointer;}.u-legend .u-off > * {opacity: 0.3;}.u-select {background: rgba(0,0,0,0.07);position: absolute;pointer-events: none;}.u-cursor-x, .u-cursor-y {position: absolute;left: 0;top: 0;pointer-events: none;will-change: transform;}.u-hz .u-cursor-x, .u-vt .u-cursor-y {height: 100%;border-right: 1px dashed #607D8B;}.u-hz .u-cursor-y, .u-vt .u-cursor-x {width: 100%;border-bottom: 1px dashed #607D8B;}.u-cursor-pt {position: absolute;top: 0;left: 0;border-radius: 50%;border: 0 solid;pointer-events: none;will-change: transform;/*this has to be !important since we set inline "background" shorthand */background-clip: padding-box !important;}.u-axis.u-off, .u-select.u-off, .u-cursor-x.u-off, .u-cursor-y.u-off, .u-cursor-pt.u-off {display: none;}
`;

/** Adds the styles once to the document (or shadow root) holding `el`. */
export function adoptStyles(el) {
  const root = el.getRootNode();
  const host = root instanceof ShadowRoot ? root : document.head;
  if (host.querySelector?.("style[data-agent-replay-viewer]")) return;
  const style = document.createElement("style");
  style.dataset.agentReplayViewer = "";
  style.textContent = STYLES;
  host.append(style);
}
