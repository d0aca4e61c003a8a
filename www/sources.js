// The page's sources: a file chosen or dropped, a log URL (`?log=`), a live
// stream (`?live=`), the server's demo; and what the page does when a
// source has loaded or grown. The worker reads and folds each.
import { applyPendingLink, writeHash } from "./deep-link.js";
import { showError } from "./errors.js";
import { fillKinds } from "./filters.js";
import { $, NO_CHARTS, page } from "./page-state.js";
import { ask, embedded, started } from "./page-worker.js";
import { pause, setMarks } from "./playback-controls.js";
import { hideProgress } from "./progress.js";
import { requestAt, setScrubber } from "./scrubber.js";
import { refilter } from "./timeline.js";

/** What a new source starts from: nothing loaded, shown or selected, the
 * clock paused. */
function startSource() {
  page.charts = NO_CHARTS;
  page.digest = null;
  $("partial").replaceChildren();
  $("welcome").hidden = true;
  $("error").hidden = true;
  $("detail").hidden = true;
  page.selected = null;
  page.end = 0;
  page.shown = 0;
  page.followLatest = true;
  page.complete = false;
  page.demoFollowed = false;
  pause();
  setMarks([]);
  writeHash();
}

/** Opens a log, and with `source.live` follows that stream on from the
 * log's end (from `source.cursor`, its last event's): a followed session's
 * whole history, then what comes. `asked`: its open was posted already
 * (index.html posts the page's `?log=`). */
function openLog(source, { asked = false } = {}) {
  startSource();
  page.liveUrl = source.live ?? null;
  $("live").hidden = !page.liveUrl;
  $("gaps").replaceChildren();
  delete $("gaps").dataset.key;
  if (asked) return;
  // The page's `?paged=` as it stands: the worker says what it means.
  ask({ op: "open", query: location.search, ...source });
}

/** Follows a live stream (from `cursor`, else its start). */
function followLive(url, cursor) {
  startSource();
  page.liveUrl = url;
  $("live").hidden = false;
  $("main").hidden = false;
  $("scrub").hidden = false;
  $("gaps").replaceChildren();
  delete $("gaps").dataset.key;
  ask({ op: "live", url, cursor, fresh: true });
}

/** Opens a file chosen or dropped: the worker reads it, but on a report's
 * page the page does (`fileSource`, www/report.js). */
function openFile(file) {
  if (!embedded) return openLog({ file });
  embedded.fileSource(file).then(openLog, (error) => showError(`${file.name}: ${error.message}`));
}

$("file").addEventListener("change", (e) => {
  const file = e.target.files[0];
  if (file) openFile(file);
  e.target.value = "";
});

$("url-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const url = $("url").value.trim();
  if (!url) return;
  const live = e.submitter?.value === "live" || /\/stream(\?|$)/.test(url);
  const params = new URLSearchParams(live ? { live: url } : { log: url });
  history.replaceState(null, "", `?${params}`);
  live ? followLive(url) : openLog({ url });
});

let dragDepth = 0;
addEventListener("dragenter", (e) => {
  if (![...(e.dataTransfer?.types ?? [])].includes("Files")) return;
  dragDepth += 1;
  $("drop").hidden = false;
});
addEventListener("dragleave", () => {
  dragDepth = Math.max(0, dragDepth - 1);
  if (!dragDepth) $("drop").hidden = true;
});
addEventListener("dragover", (e) => e.preventDefault());
addEventListener("drop", (e) => {
  e.preventDefault();
  dragDepth = 0;
  $("drop").hidden = true;
  const file = e.dataTransfer?.files?.[0];
  if (file) openFile(file);
});

/** The log is loaded to its end: the timeline, scrubber and kinds show it. */
export function loaded(msg) {
  hideProgress();
  $("partial").replaceChildren();
  $("main").hidden = false;
  $("scrub").hidden = false;
  page.end = msg.events;
  document.title = `${msg.name.split("/").pop()} · agent-replay viewer`;
  fillKinds(msg.kinds, msg.observations ?? {});
  // A loaded log's marks came before it; `null`: they are read on demand.
  if (msg.marks === null) setMarks(null);
  setScrubber(page.end);
  refilter();
  // `null`: counted when asked, after the first filter, so that the
  // timeline does not wait for them.
  if (msg.observations === null && msg.kinds.kernel_observation) ask({ op: "observations" });
  page.complete = true;
  applyPendingLink();
  document.dispatchEvent(new CustomEvent("viewer-loaded", { detail: msg }));
}

/** A followed log grew: the scrubber follows it when it was at the end. */
export function grew(msg) {
  page.end = msg.end;
  page.charts = msg.charts;
  page.digest = msg.digest;
  fillKinds(msg.kinds, msg.observations);
  if (msg.marks) setMarks(msg.marks);
  applyPendingLink();
  if (page.followLatest) requestAt(page.end);
  else setScrubber(page.shown);
  refilter(true);
}

/** Opens the page's first source: the report's own log, the page's
 * `?log=` (asked already by index.html) or `?live=`, or else the server's
 * demo. */
export function openFirstSource() {
  const params = new URLSearchParams(location.search);
  if (embedded) {
    embedded.log().then(
      (log) => openLog(log),
      (error) => showError(`report: ${error.message}`),
    );
  } else if (params.get("log")) {
    $("url").value = params.get("log");
    const live = params.get("live") ?? undefined;
    const cursor = params.get("cursor") ?? undefined;
    openLog({ url: params.get("log"), live, cursor }, { asked: Boolean(started?.opened) });
  } else if (params.get("live")) {
    $("url").value = params.get("live");
    followLive(params.get("live"), params.get("cursor") ?? undefined);
  } else {
    followDemo();
  }
}

/** Follows the server's demo (the sample played live) from its start, and
 * offers the next run when the server begins one. */
async function followDemo() {
  const current = async () => {
    try {
      const r = await fetch("/demo");
      return r.ok ? await r.json() : null;
    } catch {
      return null;
    }
  };
  const demo = await current();
  if (!demo) return;
  const follow = (d) => {
    $("url").value = d.stream;
    $("next-run").hidden = true;
    followLive(d.stream, d.start_cursor);
    page.demoFollowed = true;
  };
  follow(demo);
  let following = demo.session_id;
  setInterval(async () => {
    const now = page.liveUrl?.endsWith(`/sessions/${following}/stream`) ? await current() : null;
    if (!now || now.session_id === following) return;
    const link = $("next-run");
    link.hidden = false;
    link.onclick = (e) => {
      e.preventDefault();
      following = now.session_id;
      follow(now);
    };
  }, 5000);
}
