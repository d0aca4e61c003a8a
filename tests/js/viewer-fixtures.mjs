// Test fixtures for the viewer: the view of a log with the lists the core's
// contract adds for deepstrike 0.2.77 (model, kernel_observations,
// workflow, rounds, groups, memory failures, summary upgrades, semantic
// archive, lives). A core that has them gives them; for one that does not
// yet, the lists are folded here from the events as written: only in
// tests, never in the viewer.
import { readFileSync } from "node:fs";
import { SessionState, parseLog } from "agent-replay";

const root = new URL("../..", import.meta.url).pathname;
export const corpus = (name) =>
  readFileSync(`${root}tests/corpus/deepstrike-0.2.77/${name}`, "utf8");

const LISTS = {
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

/** Whether the core's view has the contract's lists itself. */
export const coreHasContract = (view) => view.model !== undefined && view.lives !== undefined;

/**
 * The view of `text` with the contract's lists. `lifeStarts`: positions
 * where a new life begins (the core's own rule decides that; a fixture
 * names them), used only when the core has no lives.
 */
export function contractView(text, { lifeStarts = [] } = {}) {
  const view = new SessionState().apply(text).view();
  if (coreHasContract(view)) return view;
  const events = parseLog(text).events.map((event, i) => ({ position: i + 1, event }));
  for (const [path, kinds] of Object.entries(LISTS)) {
    const [a, b] = path.split(".");
    const list = events.filter((e) => kinds.includes(e.event.kind));
    if (b) {
      view[a] ??= {};
      view[a][b] = list;
    } else view[a] = list;
  }
  const starts = [1, ...lifeStarts];
  const lifeOf = (p) => starts.filter((s) => s <= p).length;
  view.lives = starts.map((first, i) => {
    const last = (starts[i + 1] ?? events.length + 1) - 1;
    const turns = events
      .filter((e) => e.position >= first && e.position <= last && e.event.turn !== undefined)
      .map((e) => e.event.turn);
    return {
      life: i + 1,
      first_position: first,
      last_position: last,
      first_turn: turns[0] ?? 0,
      last_turn: turns.at(-1) ?? 0,
    };
  });
  for (const t of view.transcript) t.life = lifeOf(t.position);
  for (const t of view.turns) {
    t.life = lifeOf(t.first_position);
    t.output_tokens = t.tokens;
    t.input_tokens = 0;
  }
  return view;
}
