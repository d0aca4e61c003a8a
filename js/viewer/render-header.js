// The header of a session: the run, its status and its totals, from a
// summary or a view.
import { h, num } from "./dom.js";
import { statusTone, statusWords } from "./status.js";

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
