// Following a live stream (server-sent events): its events fold into the
// open log's backend as they come, an observation starts it over where
// events were missed, and the page hears of the growth at most every
// LIVE_POST_MS.
import { AgentReplayError, parseCursor } from "/agent-replay/js/web.js";
import { streamBackend } from "./backend.js";
import {
  backend,
  currentGeneration,
  digestShown,
  onReplace,
  post,
  postCharts,
  ready,
  replace,
} from "./worker-session.js";

/** The page hears of a growing stream at most this often. */
const LIVE_POST_MS = 200;

let es = null;
let live = null; // {url, status, cursor, connects}
let queue = [];
let draining = false;
let pendingGap = null;
let lastLivePost = 0;
let livePostTimer = 0;
let marksSent = -1; // the backend's marks' length when last sent live (-1: send them)

const lastPosition = () => backend()?.eventCount ?? 0;
const gaps = () => backend()?.gaps ?? [];

export function liveStatus() {
  return (
    live && {
      url: live.url,
      status: live.status,
      cursor: live.cursor,
      connects: live.connects,
      position: lastPosition(),
    }
  );
}

/** Posts the stream's status. */
export function postLive() {
  post({ op: "live", live: liveStatus(), gaps: gaps() });
}

function setStatus(status) {
  if (!live) return;
  live.status = status;
  postLive();
}

export function stopLive() {
  es?.close();
  es = null;
  if (live) live.status = "disconnected";
  queue = [];
  pendingGap = null;
}

// A new source stops the stream: what it was to post of the old one is
// not posted, and the new one's marks are new.
onReplace(() => {
  stopLive();
  clearTimeout(livePostTimer);
  livePostTimer = 0;
  marksSent = -1;
});

function connect(cursor) {
  es?.close();
  const url = new URL(live.url, self.location.href);
  if (cursor) url.searchParams.set("cursor", cursor);
  live.connects += 1;
  es = new EventSource(url);
  setStatus("connecting");
  es.onopen = () => setStatus("open");
  es.onerror = () => setStatus(es?.readyState === EventSource.CLOSED ? "closed" : "reconnecting");
  es.onmessage = (m) => enqueue({ type: "event", id: m.lastEventId, data: m.data });
  es.addEventListener("gap", (m) => enqueue({ type: "gap", data: m.data }));
  es.addEventListener("observation", (m) => enqueue({ type: "observation", data: m.data }));
}

/** Follows the stream `msg.url` (from `msg.cursor`, or where it was left),
 * into a new backend unless it is the one followed now. */
export async function follow(msg) {
  await ready;
  const url = msg.url;
  if (!live || live.url !== url || msg.fresh) {
    replace(streamBackend);
    live = { url, status: "connecting", cursor: null, connects: 0 };
  }
  connect(msg.cursor ?? live.cursor);
}

/** Follows a stream on from the log just loaded, whose last event `cursor`
 * names: the events after it are replayed, then live ones come. A backend
 * that folds no live events (a paged index) stays as loaded. */
export function followOn(url, cursor) {
  const refused = backend().liveRefusal();
  if (refused) {
    post({ op: "error", message: refused, code: "live" });
    return;
  }
  live = { url, status: "connecting", cursor: cursor ?? null, connects: 0 };
  connect(live.cursor);
}

function enqueue(item) {
  queue.push(item);
  if (!draining) drain();
}

/** The observation URL of a stream URL (`…/sessions/ID/stream` → `…/sessions/ID`). */
function observationUrl() {
  const u = new URL(live.url, self.location.href);
  u.pathname = u.pathname.replace(/\/stream$/, "");
  u.search = "";
  return u;
}

/** Starts the backend over from an observation (`Backend.adopt`). */
function adopt(observation, gap) {
  if (backend().adopt(observation, gap)) marksSent = -1;
  live.cursor = observation.cursor;
}

async function drain() {
  draining = true;
  const mine = currentGeneration();
  while (queue.length && mine === currentGeneration()) {
    const item = queue.shift();
    try {
      if (item.type === "gap") pendingGap = JSON.parse(item.data);
      else if (item.type === "observation") {
        adopt(JSON.parse(item.data), pendingGap);
        pendingGap = null;
      } else {
        const { position } = parseCursor(item.id);
        if (position <= lastPosition()) continue; // already folded (a replay overlapping what we have)
        if (position > lastPosition() + 1) {
          // Events missing before this one: recover with a fresh observation.
          const response = await fetch(observationUrl());
          if (mine !== currentGeneration()) break;
          const observation = await response.json();
          adopt(observation, { reason: "ahead", requested_cursor: live.cursor });
          if (position !== lastPosition() + 1) continue;
        }
        backend().writeLive(`${item.data}\n`);
        live.cursor = item.id;
      }
    } catch (error) {
      post({
        op: "error",
        message: `live: ${error.message}`,
        code: error instanceof AgentReplayError ? error.code : "live",
      });
    }
  }
  draining = false;
  scheduleLivePost();
}

/** Sends the new state at most every LIVE_POST_MS while events stream in. */
function scheduleLivePost() {
  if (livePostTimer) return;
  const wait = Math.max(0, LIVE_POST_MS - (performance.now() - lastLivePost));
  livePostTimer = setTimeout(() => {
    livePostTimer = 0;
    lastLivePost = performance.now();
    // The marks only when new ones came: the page rebuilds the pace from them.
    const marks = backend().marks();
    const newMarks = marks.length !== marksSent;
    marksSent = marks.length;
    postLive();
    postCharts({
      op: "grew",
      end: lastPosition(),
      ...backend().grown(),
      digest: digestShown(),
      marks: newMarks ? marks : undefined,
    });
  }, wait);
}
