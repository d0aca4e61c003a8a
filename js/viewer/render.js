// The panels of a session, built from the package's own data: a summary
// (or view) for the header and processes, the view's transcript, and the
// OS snapshot. `at` cuts everything to the state as of that position.
import { routeText } from "./describe.js";
import { activityAt, callAt, observationsAt, upperBound } from "./digest.js";
import { h, num, standIn } from "./dom.js";
import { statusTone, statusWords, suspensionWords } from "./status.js";

/** What the header's token figure counts, said where it is shown. */
const BUDGET_TOKENS =
  "Tokens the kernel counted against the run's budget. A model call's " +
  "'in' and 'out' are the provider's own counts of that call.";

/** The run, its status and its totals. `state` is a summary or a view. */
export function renderHeader(state) {
  const run = state.run;
  const e = state.errors;
  const turns = state.status.state === "terminal" ? state.turns_used : state.revision;
  const stat = (label, value, cls, title) =>
    h(
      "div",
      { class: `asv-stat ${cls ?? ""}`, title },
      h("span", { class: "asv-stat-value" }, value),
      h("span", { class: "asv-stat-label" }, label),
    );
  return h(
    "header",
    { class: "asv-header", "data-testid": "header" },
    h(
      "div",
      { class: "asv-run" },
      h(
        "div",
        { class: "asv-run-line" },
        h(
          "span",
          { class: `asv-badge asv-${statusTone(state.status)}`, "data-testid": "status" },
          statusWords(state.status),
        ),
        h(
          "span",
          { class: "asv-run-id", "data-testid": "run-id" },
          run ? run.run_id : (state.session_id ?? "no run yet"),
        ),
        run?.agent_id ? h("span", { class: "asv-agent" }, `agent ${run.agent_id}`) : null,
      ),
      h("div", { class: "asv-goal", "data-testid": "goal" }, run ? run.goal : ""),
    ),
    h(
      "div",
      { class: "asv-stats" },
      stat("events", num(state.event_count)),
      stat("turns", num(turns), "asv-turns"),
      // The kernel's count against the run's budget, which is not the sum of
      // the provider's per-call input and output counts shown on model calls.
      stat("budget tokens", num(state.total_tokens), "asv-tokens", BUDGET_TOKENS),
      stat("tool errors", num(e.tool_errors), e.tool_errors ? "asv-warn" : ""),
      stat("fatal", num(e.fatal_tool_errors), e.fatal_tool_errors ? "asv-bad" : ""),
      stat("denied", num(e.denied_tools), e.denied_tools ? "asv-warn" : ""),
      stat("unknown events", num(e.unknown_events), e.unknown_events ? "asv-warn" : ""),
      stat("load errors", num(e.load_errors), e.load_errors ? "asv-bad" : ""),
    ),
  );
}

function pre(text, cls) {
  return h("pre", { class: cls ?? "asv-pre" }, text);
}

function argsText(args) {
  return typeof args === "string" ? args : JSON.stringify(args, null, 2);
}

/** One model call: its route, attempts, prompt measures and context. */
function callBlock(c) {
  const failed = c.attempts.filter((a) => a.status !== "success");
  return h(
    "div",
    { class: "asv-call", "data-effect": c.effect_id },
    h(
      "div",
      { class: "asv-call-head" },
      h("span", { class: "asv-dim" }, "model call "),
      h("code", { class: "asv-route" }, routeText(c.route) || "(route unknown)"),
      failed.length
        ? h("span", { class: "asv-badge asv-failed" }, `${failed.length} failed`)
        : null,
    ),
    h(
      "ul",
      { class: "asv-attempts" },
      c.attempts.map((a) =>
        h(
          "li",
          {
            class: a.status === "success" ? "" : "asv-attempt-failed",
            "data-position": a.position,
          },
          `attempt ${a.attempt_seq}: ${a.status}${a.error ? ` (${a.error})` : ""} · ${num(a.ms)} ms${a.input_tokens != null ? ` · ${num(a.input_tokens)} in, ${num(a.output_tokens)} out (provider's count)` : ""}`,
        ),
      ),
      c.prompts.length
        ? h(
            "li",
            { class: "asv-dim" },
            `prompt ${c.prompts.map((p) => `${num(p.input_tokens)} tokens (${p.source}, ${p.confidence})`).join(" → ")}`,
          )
        : null,
      c.context
        ? h(
            "li",
            { class: "asv-dim asv-context" },
            `context ${c.context.included} in${
              Object.keys(c.context.sources).length
                ? ` (${Object.entries(c.context.sources)
                    .map(([k, n]) => `${n} ${k}`)
                    .join(", ")})`
                : ""
            }${c.context.excluded ? `, ${c.context.excluded} left out` : ""}${c.context.projected_tokens != null ? ` · ~${num(c.context.projected_tokens)} of ${num(c.context.budget_tokens)} tokens` : ""}`,
          )
        : null,
    ),
  );
}

/** The calls of `calls` (sorted by position) that belong next to
 * transcript entries from position `from` on, as of `at`: by the position
 * of the answer they produced, and those without one (failed, or going on). */
function callsShown(calls, from, at) {
  const byAnswer = new Map();
  const orphans = [];
  let i = upperBound(calls, from - 1, (c) => c.answer ?? c.position);
  for (; i < calls.length && calls[i].position <= at; i += 1) {
    const c = callAt(calls[i], at);
    if (c.answer !== null) byAnswer.set(c.answer, c);
    else if (c.position >= from)
      orphans.push({ type: "model_call", position: c.position, call: c });
  }
  return { byAnswer, orphans };
}

/** Transcript entries and unanswered calls, in position order. */
function merged(entries, orphans) {
  if (!orphans.length) return entries;
  const out = [];
  let j = 0;
  for (const t of entries) {
    while (j < orphans.length && orphans[j].position < t.position) out.push(orphans[j++]);
    out.push(t);
  }
  return out.concat(orphans.slice(j));
}

/** The divider put before the first entry of a life after the first: a
 * life begins with a new run (its goal) or, after a wake, mid-run. */
function lifeDivider(life, first) {
  return h(
    "li",
    { class: "asv-life", "data-life": life },
    `life ${life} (${first.type === "goal" ? "new run" : "after wake"}): turns start again`,
  );
}

/** The classes of a transcript entry as of `at` (its box: drawn whether or
 * not its body is built yet). */
function entryClasses(t, at) {
  const cls = ["asv-t", `asv-t-${t.type}`];
  if (t.rolled_back_at != null && t.rolled_back_at <= at) cls.push("asv-undone");
  if (t.type === "model_call") {
    const done = t.call.attempts.at(-1)?.status;
    if (done !== undefined && done !== "success") cls.push("asv-error");
  } else if (t.type === "tool_call") {
    const r = t.result && t.result.position <= at ? t.result : null;
    if (r?.is_fatal) cls.push("asv-fatal");
    else if (r?.is_error || t.denied) cls.push("asv-error");
  }
  return cls.join(" ");
}

/** The body of a transcript entry as of `at`; `byAnswer`: the model calls
 * by the position of their answer. */
function entryBody(t, at, byAnswer) {
  const undone = t.rolled_back_at != null && t.rolled_back_at <= at;
  switch (t.type) {
    case "goal":
      return [
        h("div", { class: "asv-t-head" }, "Goal"),
        h("p", {}, t.text),
        t.criteria.length
          ? h(
              "ul",
              { class: "asv-criteria" },
              t.criteria.map((c) => h("li", {}, c)),
            )
          : null,
      ];
    case "assistant":
      return [
        h(
          "div",
          { class: "asv-t-head" },
          `Assistant · turn ${t.turn}`,
          t.token_count != null
            ? h("span", { class: "asv-dim" }, ` · ${num(t.token_count)} tokens`)
            : null,
        ),
        h(
          "p",
          { class: "asv-text" },
          t.text || h("span", { class: "asv-dim" }, "(tool calls only)"),
        ),
        byAnswer.has(t.position) ? callBlock(byAnswer.get(t.position)) : null,
      ];
    case "model_call": {
      const done = t.call.attempts.at(-1)?.status;
      const failed = done !== undefined && done !== "success";
      return [
        h(
          "div",
          { class: "asv-t-head" },
          failed ? "Model call failed" : "Model call · no answer yet",
        ),
        callBlock(t.call),
      ];
    }
    case "tool_call": {
      const r = t.result && t.result.position <= at ? t.result : null;
      return [
        h(
          "div",
          { class: "asv-t-head" },
          h("code", {}, t.name ?? "(unknown tool)"),
          h("span", { class: "asv-dim" }, ` · ${t.call_id} · turn ${t.turn}`),
          t.denied ? h("span", { class: "asv-badge asv-failed" }, "denied") : null,
          t.gated ? h("span", { class: "asv-badge asv-suspended" }, "gated") : null,
          r?.is_fatal
            ? h("span", { class: "asv-badge asv-failed" }, "fatal")
            : r?.is_error
              ? h("span", { class: "asv-badge asv-failed" }, r.error_kind ?? "error")
              : null,
          undone ? h("span", { class: "asv-badge asv-idle" }, "rolled back") : null,
        ),
        t.arguments !== null
          ? h("details", {}, h("summary", {}, "arguments"), pre(argsText(t.arguments)))
          : null,
        t.denied ? h("p", { class: "asv-note" }, `Denied: ${t.denied}`) : null,
        t.gated ? h("p", { class: "asv-note" }, `Gated: ${t.gated}`) : null,
        r
          ? pre(r.output, "asv-pre asv-output")
          : t.denied
            ? null
            : h("p", { class: "asv-dim" }, "no result yet"),
      ];
    }
    case "suspended":
      return [
        h("div", { class: "asv-t-head" }, `Suspended · turn ${t.turn}`),
        h("p", {}, suspensionWords(t)),
      ];
    case "resumed":
      return [
        h("div", { class: "asv-t-head" }, `Resumed · turn ${t.turn}`),
        h(
          "p",
          {},
          [
            t.approved.length ? `approved ${t.approved.join(", ")}` : "",
            t.denied.length ? ` denied ${t.denied.join(", ")}` : "",
          ]
            .join(" ")
            .trim() || "resumed",
        ),
      ];
    case "rollback":
      return [
        h("div", { class: "asv-t-head" }, `Rollback · turn ${t.turn}`),
        h(
          "p",
          {},
          `back to history length ${t.checkpoint_history_len}${t.reason ? ` — ${t.reason.kind}${t.reason.tool_name ? ` (${t.reason.tool_name})` : ""}${t.reason.reason || t.reason.error ? `: ${t.reason.reason ?? t.reason.error}` : ""}` : ""}`,
        ),
      ];
    default:
      return [pre(JSON.stringify(t, null, 2))];
  }
}

/**
 * The transcript as of `at`: the goal, assistant messages with the model
 * calls that produced them, tool calls with their results (when they came
 * by `at`), errors and fatal results marked, denials and gates,
 * suspensions, rollbacks with what they undid, model calls that got no
 * answer, and a divider where a new life (after a wake) begins.
 */
export function renderTranscript(view, options = {}) {
  return transcriptPanel(view, options).panel;
}

/**
 * `renderTranscript`, with the entries `near(i)` refuses (`i`: the
 * entry's place among the list's entries) left unbuilt: each is its box
 * alone (classes, position, click; `asv-later`), a stand-in
 * (`standIn`) for the entry already in the tree, and `later[i]` builds the
 * whole entry when it is wanted. Returns `{panel, later}`.
 */
export function transcriptPanel(
  view,
  { at = Infinity, limit = 200, earlier = 0, calls = [], onSelect, near = () => true } = {},
) {
  const entries = view.transcript.filter((t) => t.position <= at);
  const shown = entries.slice(Math.max(0, entries.length - limit));
  const { byAnswer, orphans } = callsShown(calls, shown[0]?.position ?? 0, at);
  for (const o of orphans) o.life = o.call.life;
  const list = h("ol", { class: "asv-transcript", "data-testid": "transcript" });
  const later = [];
  // Entries carry their life (none before the core knew lives: all in 1).
  let life = 1;
  for (const t of merged(shown, orphans)) {
    if ((t.life ?? 1) !== life) {
      life = t.life ?? 1;
      list.append(lifeDivider(life, t));
    }
    const box = (cls, body) =>
      h(
        "li",
        {
          class: cls,
          "data-position": t.position,
          onclick: onSelect && (() => onSelect(t.position)),
        },
        body,
      );
    const cls = entryClasses(t, at);
    const build = () =>
      box(cls, [
        h("span", { class: "asv-pos" }, `#${t.position}`),
        h("div", { class: "asv-t-body" }, entryBody(t, at, byAnswer)),
      ]);
    if (near(later.length)) {
      later.push(null);
      list.append(build());
    } else {
      later.push(build);
      list.append(standIn(box(`${cls} asv-later`, null)));
    }
  }
  const hidden = entries.length - shown.length + earlier;
  const panel = h(
    "section",
    { class: "asv-panel", "data-testid": "transcript-panel" },
    h("h2", {}, "Transcript"),
    hidden > 0
      ? h(
          "p",
          { class: "asv-dim" },
          `${num(hidden)} earlier entries (move back in time to see them)`,
        )
      : null,
    entries.length ? list : h("p", { class: "asv-dim" }, "Nothing yet."),
  );
  return { panel, later };
}

/** A table of the last `max` rows (long runs have thousands of signals);
 * `total` when `rows` is already the latest part of a longer list. */
function table(columns, rows, empty, total = rows.length, max = 50) {
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
