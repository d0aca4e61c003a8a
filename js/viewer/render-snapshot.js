// The kernel's panels: its OS snapshot (counters and the latest rows of
// its lists) and its sub-agent processes as a tree under the run.
import { h, num } from "./dom.js";
import { table } from "./render-panels.js";
import { suspensionWords } from "./status.js";

/** The kernel's OS snapshot, field by field, as `rebuildOsSnapshot` gives it.
 * `lengths`: the full lengths of its lists, when they were shortened. */
export function renderSnapshot(snap, lengths = {}) {
  const counter = (label, value, key) =>
    h(
      "div",
      { class: "asv-stat" },
      h("span", { class: "asv-stat-value", "data-key": key }, num(value)),
      h("span", { class: "asv-stat-label" }, label),
    );
  return h(
    "section",
    { class: "asv-panel", "data-testid": "snapshot" },
    h("h2", {}, "OS snapshot"),
    h(
      "div",
      { class: "asv-kv" },
      h(
        "div",
        {},
        h("b", {}, "Last suspension: "),
        h(
          "span",
          { "data-key": "last_suspend" },
          snap.last_suspend
            ? `turn ${snap.last_suspend.turn}, ${suspensionWords(snap.last_suspend)}`
            : "none",
        ),
      ),
      h(
        "div",
        {},
        h("b", {}, "Last resumed: "),
        h(
          "span",
          { "data-key": "last_resumed_turn" },
          snap.last_resumed_turn === null ? "never" : `turn ${snap.last_resumed_turn}`,
        ),
      ),
    ),
    h(
      "div",
      { class: "asv-stats" },
      counter("pages out", snap.page_out_count, "page_out_count"),
      counter("pages in", snap.page_in_count, "page_in_count"),
      counter("tools gated", snap.tool_gated_count, "tool_gated_count"),
      counter("memory written", snap.memory_written_count, "memory_written_count"),
      counter("memory queries", snap.memory_queried_count, "memory_queried_count"),
      counter(
        "memory rejected",
        snap.memory_validation_failed_count,
        "memory_validation_failed_count",
      ),
      counter(
        "memory results",
        snap.memory_retrieval_result_count,
        "memory_retrieval_result_count",
      ),
    ),
    h("h3", {}, "Processes"),
    table(
      [
        ["agent", (p) => p.agent_id],
        ["parent", parentOf],
        ["state", (p) => p.state],
        ["turn", (p) => p.turn],
      ],
      snap.process_by_agent,
      "No sub-agents.",
    ),
    h("h3", {}, "Budgets"),
    table(
      [
        ["operation", (b) => b.operation_id],
        ["reservation", (b) => b.reservation_id],
        ["tokens", (b) => num(b.tokens)],
        ["sub-agents", (b) => b.subagents],
        ["rounds", (b) => b.rounds],
        ["turn", (b) => b.turn],
      ],
      snap.budget_usage_reported,
      "No usage reported.",
      lengths.budget_usage_reported,
    ),
    table(
      [
        ["exceeded", (b) => b.operation_id],
        ["budget", (b) => b.budget],
        ["reservation", (b) => b.reservation_id ?? "–"],
        ["turn", (b) => b.turn],
      ],
      snap.budget_exceeded,
      "No budget exceeded.",
      lengths.budget_exceeded,
    ),
    h("h3", {}, "Cancellations"),
    table(
      [
        ["operation", (c) => c.operation_id],
        ["reason", (c) => c.reason],
        ["pending", (c) => c.pending_call_ids.join(", ")],
        ["turn", (c) => c.turn],
      ],
      snap.cancellations,
      "None.",
      lengths.cancellations,
    ),
    h("h3", {}, "Signals"),
    table(
      [
        ["signal", (s) => s.signal_id],
        ["operation", (s) => s.operation_id],
        ["disposition", (s) => s.disposition],
        ["attempt", (s) => s.attempt],
        ["queue", (s) => s.queue_depth],
        ["turn", (s) => s.turn],
      ],
      snap.signals,
      "None.",
      lengths.signals,
    ),
  );
}

/** A process's parent: its session, or the task deepstrike 0.2.77 names instead. */
const parentOf = (p) => p.parent_session_id || p.parent_task_id || "";

/** State transitions shown per process (the latest). */
const HISTORY = 12;

/** Sub-agents as a tree under the run (by parent session id), each with its
 * state history. */
export function renderProcesses(processes, rootId, historyLengths = {}) {
  const byParent = new Map();
  for (const p of processes) {
    if (!byParent.has(parentOf(p))) byParent.set(parentOf(p), []);
    byParent.get(parentOf(p)).push(p);
  }
  const ids = new Set(processes.map((p) => p.agent_id));
  const node = (p, seen) =>
    h(
      "li",
      { class: "asv-proc", "data-agent": p.agent_id },
      h(
        "div",
        {},
        h("b", {}, p.agent_id),
        h("span", { class: "asv-dim" }, ` ${p.role} · ${p.isolation} · ${p.context_inheritance}`),
        h(
          "span",
          {
            class: `asv-badge asv-${/fail|crash|kill|error/.test(p.state) ? "failed" : /done|complete|exit|join/.test(p.state) ? "done" : "running"}`,
          },
          p.state,
        ),
        p.result_termination ? h("span", { class: "asv-dim" }, ` (${p.result_termination})`) : null,
      ),
      h(
        "ol",
        { class: "asv-history" },
        (historyLengths[p.agent_id] ?? p.history.length) > Math.min(HISTORY, p.history.length)
          ? h(
              "li",
              {},
              `${num((historyLengths[p.agent_id] ?? p.history.length) - Math.min(HISTORY, p.history.length))} earlier states`,
            )
          : null,
        p.history
          .slice(-HISTORY)
          .map((t) =>
            h(
              "li",
              {},
              `#${t.position} turn ${t.turn}: ${t.state}${t.result_termination ? ` (${t.result_termination})` : ""}`,
            ),
          ),
      ),
      children(p.agent_id, seen),
    );
  const children = (id, seen) => {
    const kids = (byParent.get(id) ?? []).filter((k) => !seen.has(k.agent_id));
    if (!kids.length) return null;
    const next = new Set([...seen, ...kids.map((k) => k.agent_id)]);
    return h(
      "ul",
      { class: "asv-tree" },
      kids.map((k) => node(k, next)),
    );
  };
  // Roots: processes whose parent is not itself a process (normally the run).
  const roots = [...byParent.keys()].filter((parent) => !ids.has(parent));
  return h(
    "section",
    { class: "asv-panel", "data-testid": "processes" },
    h("h2", {}, "Sub-agent processes"),
    processes.length
      ? h(
          "ul",
          { class: "asv-tree asv-tree-root" },
          roots.map((r) =>
            h("li", {}, h("b", {}, r === rootId ? `${r} (this run)` : r), children(r, new Set())),
          ),
        )
      : h("p", { class: "asv-dim" }, "No sub-agents."),
  );
}
