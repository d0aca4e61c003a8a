// The panels that list rows as of a position: load errors, the workflow,
// the runtime's other events; and the table they (and the OS snapshot's
// lists) show their latest rows in.
import { activityAt, observationsAt } from "./digest.js";
import { h, num } from "./dom.js";

/** A table of the last `max` rows (long runs have thousands of signals);
 * `total` when `rows` is already the latest part of a longer list. */
export function table(columns, rows, empty, total = rows.length, max = 50) {
  if (!rows.length) return h("p", { class: "asv-dim" }, empty);
  const shown = rows.slice(-max);
  return [
    h(
      "table",
      { class: "asv-table" },
      h(
        "thead",
        {},
        h(
          "tr",
          {},
          columns.map(([label]) => h("th", {}, label)),
        ),
      ),
      h(
        "tbody",
        {},
        shown.map((r) =>
          h(
            "tr",
            {},
            columns.map(([, get]) => h("td", {}, get(r))),
          ),
        ),
      ),
    ),
    total > shown.length
      ? h("p", { class: "asv-dim" }, `the last ${shown.length} of ${num(total)}`)
      : null,
  ];
}

/** Load errors with their positions (`total` when only some are given). */
export function renderLoadErrors(errors, total = errors.length) {
  if (!errors.length) return null;
  const shown = errors.slice(0, 200);
  return h(
    "section",
    { class: "asv-panel asv-errors", "data-testid": "load-errors" },
    h("h2", {}, `Load errors (${num(total)})`),
    h(
      "ul",
      {},
      shown.map((e) =>
        h(
          "li",
          {},
          h(
            "b",
            {},
            `line ${e.line}, column ${e.column}${e.index !== undefined ? ` (element ${e.index})` : ""}`,
          ),
          ` ${e.code}: ${e.message}${e.field ? ` [${e.field}]` : ""}`,
        ),
      ),
    ),
    total > shown.length
      ? h("p", { class: "asv-dim" }, `and ${num(total - shown.length)} more`)
      : null,
  );
}

/** A node's status, and its termination when that says more. */
const nodeStatus = ({ end }) =>
  !end
    ? "running"
    : end.termination && end.termination !== end.status
      ? `${end.status} (${end.termination})`
      : end.status;

/** The workflow as of `at`: its batches, each node's latest outcome beside
 * the state of the sub-agent process running it (the node id is the
 * process's agent id), and its completion. `null` when there is none. */
export function renderWorkflow(workflow, processes = [], at = Infinity) {
  const by = (x) => x.position <= at;
  const batches = workflow.batches.filter(by);
  const completions = workflow.completions.filter(by);
  const submissions = workflow.submissions.filter(by);
  const nodes = workflow.nodes
    .map((n) => ({ ...n, end: n.ends.filter(by).at(-1) ?? null }))
    .filter((n) => (n.spawned_at !== null && n.spawned_at <= at) || n.end);
  if (!batches.length && !nodes.length && !submissions.length) return null;
  const state = new Map(processes.map((p) => [p.agent_id, p.state]));
  const done = completions.at(-1);
  return h(
    "section",
    { class: "asv-panel asv-workflow", "data-testid": "workflow" },
    h("h2", {}, "Workflow"),
    h(
      "p",
      { class: "asv-dim", "data-key": "workflow-status" },
      [
        `${batches.length} batch${batches.length === 1 ? "" : "es"}`,
        submissions.length ? `${submissions.length} submissions` : "",
        `${nodes.length} nodes`,
        done
          ? `completed: ${done.outcomes} of ${done.total_nodes} nodes reported`
          : "not completed",
      ]
        .filter(Boolean)
        .join(" · "),
    ),
    table(
      [
        ["node", (n) => n.node_id],
        ["batch", (n) => n.batch ?? "–"],
        ["status", nodeStatus],
        ["process", (n) => state.get(n.node_id) ?? ""],
        ["output", (n) => n.end?.output ?? ""],
      ],
      nodes,
      "No nodes.",
    ),
  );
}

/** The runtime's other events as of `at`, one small table per list that
 * has rows (the last few, with the total), the empty ones named in a line;
 * and the kernel observations counted by kind. */
export function renderActivity(activity, observations, at = Infinity) {
  const lists = activityAt(activity, at);
  const sections = [
    ["rounds", "Rounds", ["round", "what", "detail"]],
    ["groups", "Group", ["what", "detail"]],
    ["stopped_tools", "Tools stopped", ["tool", "call", "error_kind", "output"]],
    ["memory_failures", "Memory failures", ["what", "detail"]],
    ["summary_upgrades", "Summary upgrades", ["what", "detail"]],
    ["semantic_archive", "Semantic archiving", ["what", "detail"]],
  ];
  const shown = sections.filter(([key]) => lists[key].total > 0);
  const empty = sections.filter(([key]) => lists[key].total === 0).map(([, title]) => title);
  const seen = observationsAt(observations, at);
  return h(
    "section",
    { class: "asv-panel asv-activity", "data-testid": "activity" },
    h("h2", {}, "Runtime"),
    shown.map(([key, title, columns]) =>
      h(
        "div",
        { "data-list": key },
        h("h3", {}, `${title} (${num(lists[key].total)})`),
        table(
          [["#", (r) => r.position], ...columns.map((c) => [c, (r) => String(r[c] ?? "")])],
          lists[key].rows,
          "",
          lists[key].total,
        ),
      ),
    ),
    h("h3", {}, "Kernel observations"),
    Object.keys(seen).length
      ? h(
          "div",
          { class: "asv-stats" },
          Object.entries(seen).map(([kind, n]) =>
            h(
              "div",
              { class: "asv-stat" },
              h("span", { class: "asv-stat-value", "data-observation": kind }, num(n)),
              h("span", { class: "asv-stat-label" }, kind),
            ),
          ),
        )
      : h("p", { class: "asv-dim" }, "None."),
    empty.length
      ? h("p", { class: "asv-dim" }, `None yet: ${empty.join(", ").toLowerCase()}.`)
      : null,
  );
}
