// The page's keyboard: space plays, j/k and the arrows move the selection
// and the position, / searches, t switches the theme, ? shows the keys
// (the help dialog, also from its button).
import { filters } from "./filters.js";
import { $, page } from "./page-state.js";
import { togglePlay } from "./playback-controls.js";
import { travel } from "./scrubber.js";
import { moveSelection, refilter } from "./timeline.js";

$("help-button").addEventListener("click", () => $("help").showModal());

addEventListener("keydown", (e) => {
  const typing =
    e.target instanceof HTMLInputElement ||
    e.target instanceof HTMLSelectElement ||
    e.target instanceof HTMLTextAreaElement;
  if (e.key === "Escape") {
    if (e.target === $("search") && $("search").value) {
      $("search").value = "";
      filters.query = "";
      refilter();
    } else $("detail").hidden = true;
    return;
  }
  // Space plays from the scrubber too (a range input types nothing).
  const onScrubber = e.target === $("scrubber") && e.key === " ";
  if ((typing && !onScrubber) || e.metaKey || e.ctrlKey || e.altKey) return;
  const step = e.shiftKey ? 100 : 1;
  switch (e.key) {
    case " ":
      // A focused button takes space as its own click.
      if (e.target instanceof HTMLButtonElement) break;
      e.preventDefault();
      togglePlay();
      break;
    case "/":
      e.preventDefault();
      $("search").focus();
      break;
    case "j":
    case "ArrowDown":
      e.preventDefault();
      moveSelection(1);
      break;
    case "k":
    case "ArrowUp":
      e.preventDefault();
      moveSelection(-1);
      break;
    case "Enter":
      if (page.selected !== null) travel(page.selected);
      break;
    case "ArrowLeft":
      e.preventDefault();
      travel(page.shown - step);
      break;
    case "ArrowRight":
      e.preventDefault();
      travel(page.shown + step);
      break;
    case "Home":
      e.preventDefault();
      travel(0);
      break;
    case "End":
      e.preventDefault();
      travel(page.end);
      break;
    case "t":
      $("theme").click();
      break;
    case "?":
      $("help").showModal();
      break;
  }
});
