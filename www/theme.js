// The light or dark theme: the one saved, else the system's, applied as
// the page starts; the theme button switches it (and the charts, drawn in
// its colours, are drawn again).
import { $, viewer } from "./page-state.js";

function setTheme(theme) {
  document.documentElement.dataset.theme = theme;
  try {
    localStorage.setItem("agent-replay-theme", theme);
  } catch {
    // storage may be off
  }
}
const savedTheme = (() => {
  try {
    return localStorage.getItem("agent-replay-theme");
  } catch {
    return null;
  }
})();
setTheme(savedTheme ?? (matchMedia("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
$("theme").addEventListener("click", () => {
  setTheme(document.documentElement.dataset.theme === "dark" ? "light" : "dark");
  viewer.redraw();
});
