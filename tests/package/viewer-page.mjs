// The embeddable view as an app uses it: <agent-session-viewer> given a log.
import { init, sampleLog } from "agent-replay";
import "agent-replay/viewer";

await init();
const el = document.createElement("agent-session-viewer");
document.body.append(el);
el.addEventListener(
  "rendered",
  () => {
    const text = (s) => el.querySelector(s)?.textContent ?? null;
    globalThis.result = {
      status: text("[data-testid=status]"),
      runId: text("[data-testid=run-id]"),
      transcript: el.querySelectorAll("[data-testid=transcript] > li").length,
      charts: el.querySelectorAll("[data-testid=charts] canvas").length,
      pagesOut: text("[data-key=page_out_count]"),
      processes: el.querySelectorAll("[data-testid=processes] .asv-proc").length,
    };
  },
  { once: true },
);
el.log = sampleLog();
