// The page's deep link: the hash holds where the viewer is (links.js),
// written as the user moves (replaceState, in idle time once the moves
// pause, at least every second while they go on: no history entry per
// step), read at start (app.js) and when the user edits it.
import { whenIdle } from "/agent-replay/js/viewer/idle.js";
import { decodeLink, encodeLink } from "./links.js";
import { filters, showKinds } from "./filters.js";
import { $, page } from "./page-state.js";
import { travel } from "./scrubber.js";
import { refilter, select } from "./timeline.js";

/** The page's link not yet applied: its filters are, at once; its position
 * and selection wait until the log holds them (a live session streams them
 * in; a loaded log clamps them to its end). The demo does not take it: a
 * link without ?log= or ?live= waits for the file or URL opened next. */
let pendingLink = null;

function currentLink() {
  return {
    at: pendingLink?.at ?? (page.followLatest ? null : page.shown),
    sel: pendingLink?.sel ?? page.selected,
    kinds: filters.kinds,
    categories: filters.categories,
    kernel_categories: filters.kernel_categories,
    primitives: filters.primitives,
    query: filters.query,
  };
}

/** The hash is written once the moves pause this long (ms)... */
const HASH_QUIET = 250;
/** ...or this long after the first move it lacks, while they go on
 * (playback, a drag). Each replaceState costs the browser process work of
 * its own, which a step on a 2-core machine waits behind. */
const HASH_MAX_WAIT = 1000;

let hashTimer = 0;
let hashDue = 0; // when the oldest move not yet in the hash is to be written
/** Writes the hash of where the viewer is, once the moves pause. */
export function writeHash() {
  const now = performance.now();
  if (!hashTimer) hashDue = now + HASH_MAX_WAIT;
  clearTimeout(hashTimer);
  hashTimer = setTimeout(
    () => {
      hashTimer = 0;
      whenIdle(replaceHash, { timeout: 1000 });
    },
    Math.min(HASH_QUIET, hashDue - now),
  );
}

/** Writes the hash of where the viewer is now, in idle time: a
 * replaceState can take milliseconds, which a step's frame goes without. */
function replaceHash() {
  const hash = encodeLink(currentLink());
  if (location.hash.replace(/^#/, "") === hash) return;
  history.replaceState(history.state, "", hash ? `#${hash}` : location.pathname + location.search);
}

/** Applies a link's filters and search to the controls, and keeps its
 * position and selection for `applyPendingLink`. */
export function openLink(link) {
  filters.kinds = link.kinds;
  filters.categories = link.categories;
  filters.kernel_categories = link.kernel_categories;
  filters.primitives = link.primitives;
  filters.query = link.query;
  $("search").value = link.query;
  for (const c of document.querySelectorAll(".chip[data-filter]"))
    c.setAttribute("aria-pressed", String(filters[c.dataset.filter].includes(c.textContent)));
  showKinds();
  pendingLink = link.at === null && link.sel === null ? null : link;
}

/** Travels to the pending link's position and selects its event once the
 * log holds them, or clamped to the end once the log is loaded. */
export function applyPendingLink() {
  const link = pendingLink;
  if (!link || page.demoFollowed || (!page.complete && !page.liveUrl)) return;
  if (!page.complete && page.end < Math.max(link.at ?? 0, link.sel ?? 0)) return;
  pendingLink = null;
  if (link.at !== null) {
    travel(link.at);
    // A live session's link is a moment: stay there as events arrive.
    if (page.liveUrl) page.followLatest = false;
  }
  if (link.sel !== null && link.sel >= 1 && link.sel <= page.end) {
    select(link.sel);
    page.revealSelected = true;
  }
  writeHash();
}

addEventListener("hashchange", () => {
  openLink(decodeLink(location.hash));
  refilter();
  applyPendingLink();
});
