// agent-replay/viewer: the session panels as a custom element,
// <agent-session-viewer> (registered on import), and the pieces it is made
// of for apps that lay them out themselves. Browser only.
import { defineSessionViewer } from "./element.js";

export { SessionViewer, defineSessionViewer } from "./element.js";
export { renderHeader } from "./render-header.js";
export { renderTranscript } from "./render-transcript.js";
export { renderSnapshot, renderProcesses } from "./render-snapshot.js";
export { renderLoadErrors, renderWorkflow, renderActivity } from "./render-panels.js";
export { renderCharts } from "./charts.js";
export { num } from "./dom.js";
export { chartTables } from "./chart-data.js";
export { chartSeries, cutSeries, xLabel } from "./series.js";
export { viewDigest, modelCalls, callAt } from "./digest.js";
export {
  categories,
  categoryOf,
  describeEvent,
  isAlarming,
  contentText,
  eventFacts,
  kernelFacets,
  kernelFacetsOf,
  routeText,
} from "./describe.js";

defineSessionViewer();
