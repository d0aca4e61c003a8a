// A log's loading: its progress bar, and the header of what is folded so
// far while a large log loads; and the header laid out, hidden, at start-up
// for its fonts.
import { num } from "/agent-replay/js/viewer/dom.js";
import { renderHeader } from "/agent-replay/js/viewer/render-header.js";
import { $ } from "./page-state.js";

let progressShown = null; // the progress message drawn at the next frame

/** Shows the latest progress at the next frame (at most one redraw a
 * frame, however often the worker reports). */
export function showProgress(msg) {
  if (!progressShown) requestAnimationFrame(drawProgress);
  progressShown = msg;
}

/** Hides the progress bar, and drops a progress not yet drawn: the log
 * loaded, or failed. */
export function hideProgress() {
  progressShown = null;
  $("progress").hidden = true;
}

function drawProgress() {
  if (!progressShown) return; // loaded, or failed, meanwhile
  const { bytes, total, events, name } = progressShown;
  progressShown = null;
  $("progress").hidden = false;
  const fraction = total ? Math.min(1, bytes / total) : 1;
  $("progress-fill").style.transform = `scaleX(${fraction.toFixed(3)})`;
  $("progress-fill").classList.toggle("indeterminate", !total);
  const file = document.createElement("code");
  file.textContent = name;
  $("progress-text").replaceChildren(
    "Loading ",
    file,
    `: ${(bytes / 1e6).toFixed(1)} MB${total ? ` of ${(total / 1e6).toFixed(1)} MB` : ""} · ${num(events)} events`,
  );
}

/** Lays out a header, hidden, at start-up: its layout finds the fonts a
 * header uses, each by a synchronous call to the browser process, which
 * answers late once the log streams in; the first header's layout then
 * finds them in the renderer's cache. Removed once laid out. */
export function warmHeaderFonts() {
  const sample = {
    run: { run_id: "run", agent_id: "agent", goal: "goal" },
    status: { state: "running" },
    errors: {
      tool_errors: 1,
      fatal_tool_errors: 0,
      denied_tools: 0,
      unknown_events: 0,
      load_errors: 0,
    },
    event_count: 1234,
    revision: 1,
    total_tokens: 1,
  };
  const box = document.createElement("div");
  box.className = "asv-root";
  box.setAttribute("aria-hidden", "true");
  // Laid out, its text shaped, but never seen.
  box.style.cssText =
    "position: absolute; visibility: hidden; width: 0; height: 0; overflow: hidden";
  box.append(renderHeader(sample));
  document.body.append(box);
  requestAnimationFrame(() => setTimeout(() => box.remove()));
}

/** The header of what is folded so far, shown while a large log loads (only
 * the header: the worker is busy folding, so the page does little). */
export function showPartial(msg) {
  $("partial").replaceChildren(renderHeader(msg.summary));
  requestAnimationFrame(() =>
    document.dispatchEvent(new CustomEvent("viewer-partial", { detail: { events: msg.end } })),
  );
}
