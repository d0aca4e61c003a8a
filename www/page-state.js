// What the page's modules share: where the viewer is (the positions loaded
// and shown, the selection, the source) and the whole log's tables the
// panels are cut from. One object, so that each module writes the same
// fields (an imported `let` cannot be assigned), and each field says who
// reads it.
import { chartTables } from "/agent-replay/js/viewer/chart-data.js";
import { defineSessionViewer } from "/agent-replay/js/viewer/element.js";
import { chartSeries } from "/agent-replay/js/viewer/series.js";

export const $ = (id) => document.getElementById(id);

// Before the page's first use of <agent-session-viewer>: an element not yet
// upgraded would keep `data` as a plain property.
defineSessionViewer();
export const viewer = $("viewer");

export const NO_CHARTS = chartTables(
  chartSeries({ entropy: { samples: [], alerts: [] }, budgets: { usage: [] } }),
);

export const page = {
  end: 0, // the last position loaded
  shown: 0, // the position the panels show
  followLatest: true,
  selected: null, // selected position
  liveUrl: null,
  complete: false, // the source is loaded to its end (not live)
  demoFollowed: false, // following the server's demo
  revealSelected: false, // scroll to the selection once the timeline is filtered
  charts: NO_CHARTS, // the charts' tables of the whole log (the viewer cuts them at the position)
  digest: null, // the runtime panels' rows of the whole log (viewDigest), cut likewise;
  // its model calls come with each state (those its transcript entries show)
};
