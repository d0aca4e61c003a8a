// What a viewer needs of a large log beyond its timeline, read from a
// SessionIndex (the package's paged index) instead of a view: the lists
// the charts and the runtime panels draw, and the transcript around a
// position. No DOM: a Worker can use it.
import { lifeAt } from "./digest.js";

/** The view's event lists the charts and runtime panels read, by the
 * kinds they hold (as the view keeps them: tests/js/viewer-units.test.mjs
 * checks this against SessionState.view()). */
export const PANEL_LISTS = {
  "entropy.samples": ["entropy_sample"],
  "entropy.alerts": ["entropy_alert"],
  "budgets.usage": ["budget_usage_reported"],
  "model.attempts": ["provider_attempt"],
  "model.prompts": ["prompt_measured"],
  "model.contexts": ["context_prepared"],
  kernel_observations: ["kernel_observation"],
  "workflow.batches": ["workflow_batch_spawned"],
  "workflow.submissions": ["workflow_nodes_submitted"],
  "workflow.nodes": ["workflow_node_completed"],
  "workflow.completions": ["workflow_completed"],
  rounds: ["round_started", "round_paced"],
  groups: ["group_member_joined", "group_budget_charged"],
  "memory.write_failures": ["memory_write_failed"],
  "memory.query_failures": ["memory_query_failed"],
  summary_upgrades: ["summary_upgraded"],
  semantic_archive: [
    "semantic_archive_pending",
    "semantic_archive_completed",
    "semantic_archive_failed",
  ],
};

/** The index's summary as of its last event without the processes'
 * histories (on a long run, most of a summary: it is read faster cut). */
export function headlineSummary(index) {
  return index.stateAt(index.eventCount, { tail: 0 }).summary;
}

/** Positions read per page. */
const PAGE = 4096;

/** Calls `take(entry)` with each event at `positions` as a view entry
 * `{position, event}`, reading a page at a time (so a caller that keeps
 * less than the entries holds no more than a page of them). */
export function eachEntryAt(index, positions, take) {
  for (let i = 0; i < positions.length; i += PAGE) {
    for (const e of index.eventsAt(positions.subarray(i, i + PAGE)))
      take({ position: e.position, event: JSON.parse(e.json) });
  }
}

/** Sets `path` ("a.b") of `target` to `value`. */
function setPath(target, path, value) {
  const keys = path.split(".");
  const last = keys.pop();
  let at = target;
  for (const k of keys) at = at[k] ??= {};
  at[last] = value;
}

/**
 * A partial view with what series.js's `chartSeries` (with the
 * index's `turnSeries()`) and viewDigest read: lives, run, and the panel
 * lists, each left empty when it holds more than
 * `maxList` events (its panel would need more memory than the rest of the
 * page; the timeline still filters and shows those events). The
 * transcript holds only where the assistant messages are, which model
 * calls are matched to (the worker folds the entries around each position;
 * tool calls the runtime stopped are not listed in the activity panel).
 * The lists' sizes come from the summary's counts, and the lists kept are
 * read in one pass over the index.
 */
export function panelView(index, { maxList = 50_000 } = {}) {
  const summary = headlineSummary(index);
  const view = {
    lives: summary.lives,
    run: summary.run,
    transcript: Array.from(index.filter({ kinds: ["llm_completed"] }), (position) => ({
      type: "assistant",
      position,
    })),
    counts: summary.counts,
    load_errors: index.loadErrors().slice(0, 200),
  };
  const listOf = new Map(); // kind → the list its events go to
  for (const [path, kinds] of Object.entries(PANEL_LISTS)) {
    const list = [];
    setPath(view, path, list);
    const size = kinds.reduce((n, kind) => n + (summary.counts[kind] ?? 0), 0);
    if (size <= maxList) for (const kind of kinds) listOf.set(kind, list);
  }
  const positions = listOf.size ? index.filter({ kinds: [...listOf.keys()] }) : new Uint32Array(0);
  eachEntryAt(index, positions, (entry) => listOf.get(entry.event.kind).push(entry));
  return view;
}

/**
 * The last `last` transcript entries up to `at`, folded from the `span`
 * events before it, each with its life taken from the log's lives. An
 * entry whose start is before the window is not shown.
 */
export function transcriptAround(index, at, lives, { span = 400, last } = {}) {
  if (at < 1) return [];
  const entries = index.transcript(Math.max(1, at - span + 1), at, { last });
  for (const entry of entries) entry.life = lifeAt(lives, entry.position);
  return entries;
}
