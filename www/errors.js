// The page's error line: a source that failed, a worker's error, a worker
// that never started.
import { $ } from "./page-state.js";
import { hideProgress } from "./progress.js";

/** Shows `message` for a while, or until the next one with `keep`. */
export function showError(message, { keep = false } = {}) {
  const box = $("error");
  box.textContent = message;
  box.hidden = false;
  hideProgress();
  clearTimeout(showError.timer);
  if (!keep) showError.timer = setTimeout(() => (box.hidden = true), 8000);
}
