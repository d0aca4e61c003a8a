// agent-replay/viewer: the session panels as a custom element,
// <agent-session-viewer> (registered on import), and the pieces it is made
// of for apps that lay them out themselves. Browser only.
import { defineSessionViewer } from "./element.js";

export { SessionViewer, defineSessionViewer } from "./element.js";
export {
  renderHeader,
  renderTranscript,
  renderSnapshot,
  renderProcesses,
  renderLoadErrors,
} from "./render.js";
export { renderCharts } from "./charts.js";
export { chartSeries, cutSeries } from "./series.js";
export { categories, categoryOf, describeEvent, isAlarming, contentText } from "./describe.js";

defineSessionViewer();
