// The live panel of a followed stream: its status, the cursor to copy, a
// cursor to resume from, connect and disconnect, and the gaps it recovered
// from.
import { $, page } from "./page-state.js";
import { ask } from "./page-worker.js";

/** Shows a followed stream's status, cursor and gaps. */
export function showLive({ live, gaps }) {
  if (!live) return;
  const pill = $("live-status");
  pill.textContent = live.status;
  pill.className = `pill ${live.status}`;
  $("cursor").value = live.cursor ?? "";
  $("connect").textContent =
    live.status === "disconnected" || live.status === "closed" ? "Connect" : "Disconnect";
  const list = $("gaps");
  // Gaps are only added, except when the source rewrites its history.
  const key = gaps.map((g) => `${g.from}-${g.to}-${g.rewritten}`).join();
  if (list.dataset.key !== key) {
    list.dataset.key = key;
    list.replaceChildren(
      ...gaps.map((g) => {
        const li = document.createElement("li");
        li.textContent = g.rewritten
          ? `the log was truncated or replaced: its history restarts${g.to ? `; events 1–${g.to} came as an observation` : ""}`
          : g.reason === "not_replayed"
            ? `events 1–${g.to} came as the first observation (not replayed)`
            : `gap (${g.reason}): events ${g.from}–${g.to} missed; recovered from the observation at event ${g.recovered_at}, revision ${g.revision}`;
        return li;
      }),
    );
  }
}

$("copy-cursor").addEventListener("click", async () => {
  const input = $("cursor");
  try {
    await navigator.clipboard.writeText(input.value);
  } catch {
    input.select();
    document.execCommand?.("copy");
  }
  $("copy-cursor").textContent = "Copied";
  setTimeout(() => ($("copy-cursor").textContent = "Copy"), 1200);
});

$("resume-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const cursor = $("resume-cursor").value.trim();
  if (cursor && page.liveUrl) ask({ op: "live", url: page.liveUrl, cursor });
});

$("connect").addEventListener("click", () => {
  if (!page.liveUrl) return;
  if ($("connect").textContent === "Disconnect") ask({ op: "disconnect" });
  else ask({ op: "live", url: page.liveUrl });
});
