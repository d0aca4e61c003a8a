// What a person sees of one event in a list: its category and a one-line
// label. No DOM here, so a Web Worker can use it too. Kinds, categories and
// what is alarming come from the package's kind table (`eventKinds()`), so
// the WebAssembly must be loaded before these are called.
import { eventKinds } from "../api.js";
import { suspensionWords } from "./status.js";
import { contentText, contextSummary, routeText } from "./event-text.js";

export { contentText, contextSummary, routeText };

let byKind;

function kindOf(kind) {
  byKind ??= new Map(eventKinds().kinds.map((k) => [k.kind, k]));
  return byKind.get(kind);
}

/** Event categories, in display order, with the kinds each holds. */
export function categories() {
  const { categories: order, kinds } = eventKinds();
  return Object.fromEntries(
    order.map((c) => [c, kinds.filter((k) => k.category === c).map((k) => k.kind)]),
  );
}

/** The category of a kind; kinds this version does not know are "unknown". */
export function categoryOf(kind) {
  return kindOf(kind)?.category ?? "unknown";
}

/** deepstrike's own kernel category of a kind (syscall, sched, mm, proc,
 * ipc) and its primitive (syscall, mm, sched), as the kind table gives
 * them; `null` for a kind it does not know or a table without them. */
export function kernelFacetsOf(kind) {
  const k = kindOf(kind);
  return { kernel_category: k?.kernel_category ?? null, primitive: k?.primitive ?? null };
}

/** The kernel categories and primitives the table names, in table order
 * (empty lists when the table has no such columns). */
export function kernelFacets(table = eventKinds()) {
  const distinct = (key) => [...new Set(table.kinds.map((k) => k[key]).filter((v) => v != null))];
  return { kernel_categories: distinct("kernel_category"), primitives: distinct("primitive") };
}

/** Events a reader should notice: failures, denials, alerts, overruns. */
export function isAlarming(event) {
  switch (kindOf(event.kind)?.alarming) {
    case "always":
      return true;
    case "on_error":
      return (event.results ?? []).some((r) => r.is_error);
    default:
      return false;
  }
}

function short(text, n = 90) {
  const s = String(text ?? "")
    .replace(/\s+/g, " ")
    .trim();
  return s.length > n ? `${s.slice(0, n - 1)}…` : s;
}

function contextText(preparation) {
  const c = contextSummary(preparation);
  const sources = Object.entries(c.sources)
    .map(([source, n]) => `${n} ${source}`)
    .join(", ");
  return `context: ${c.included} entries in${sources ? ` (${sources})` : ""}${c.excluded ? `, ${c.excluded} left out` : ""}${c.projected_tokens != null ? `, ~${c.projected_tokens} of ${c.budget_tokens} tokens` : ""}`;
}

/** The part of a kernel observation's raw body worth a glance. */
function observationText(raw) {
  if (!raw || typeof raw !== "object") return "";
  if (Array.isArray(raw.effects)) return `: ${raw.effects.map((e) => e.kind).join(", ")}`;
  if (raw.decision)
    return `: round ${raw.round} ${raw.decision.action} (${short(raw.decision.reason, 40)})`;
  if (raw.to) return `: ${raw.handle_id ?? ""} → ${raw.to}`;
  if (Array.isArray(raw.recalls)) return `: ${raw.recalls.length} recalled`;
  if (Array.isArray(raw.runnable)) return `: ${raw.runnable.map((r) => r.id).join(", ")}`;
  return "";
}

function calls(list) {
  return (list ?? []).map((c) => c.name).join(", ");
}

/** A one-line description of an event. */
export function describeEvent(e) {
  switch (e.kind) {
    case "run_started":
      return `run ${e.run_id}: ${short(e.goal)}`;
    case "run_terminal":
      return `${e.reason} after ${e.turns_used} turns, ${e.total_tokens} tokens`;
    case "llm_completed": {
      const m = e.message ?? e;
      const tools = calls(m.tool_calls);
      return short(contentText(m.content)) + (tools ? ` → ${tools}` : "");
    }
    case "tool_requested":
      return `call ${calls(e.calls)}`;
    case "tool_completed":
      return (e.results ?? [])
        .map(
          (r) =>
            `${r.call_id}: ${r.is_fatal ? "FATAL " : r.is_error ? `${r.error_kind ?? "error"} ` : ""}${short(contentText(r.output), 50)}`,
        )
        .join("; ");
    case "tool_argument_repaired":
      return `repaired arguments of ${e.tool}`;
    case "tool_denied":
      return `${e.tool_name} denied: ${short(e.reason)}`;
    case "tool_gated":
      return `${e.tool} gated: ${short(e.reason)}`;
    case "permission_requested":
      return `${e.tool} asks permission${e.reason ? `: ${short(e.reason)}` : ""}`;
    case "permission_resolved":
      return `${e.approved ? "approved" : "refused"} by ${e.responder}`;
    case "suspended":
      return `suspended: ${suspensionWords(e)}`;
    case "resumed":
      return `resumed${e.approved?.length ? ` approved ${e.approved.join(", ")}` : ""}${e.denied?.length ? ` denied ${e.denied.join(", ")}` : ""}`;
    case "agent_process_changed":
      return `${e.agent_id} (${e.role}) → ${e.state}${e.result_termination ? ` (${e.result_termination})` : ""}`;
    case "budget_exceeded":
      return `${e.operation_id} over budget ${e.budget}`;
    case "budget_usage_reported":
      return `${e.operation_id}: ${e.tokens} tokens, ${e.rounds} rounds`;
    case "operation_cancelled":
      return `${e.operation_id} cancelled (${e.reason})`;
    case "signal_delivery_disposed":
      return `${e.signal_id} → ${e.disposition} (${e.operation_id}, attempt ${e.attempt})`;
    case "compressed":
      return `compressed ${e.archived_seq_range?.join("–")}${e.summary ? `: ${short(e.summary, 60)}` : ""}`;
    case "page_out":
      return `paged out ${e.message_count} messages${e.archive_ref ? ` to ${e.archive_ref}` : ""}`;
    case "page_in":
      return `paged in ${e.entry_count} entries`;
    case "context_renewed":
      return `context renewed, sprint ${e.sprint}`;
    case "checkpoint_taken":
      return `checkpoint at history ${e.history_len}`;
    case "rollbacked":
      return `rolled back to history ${e.checkpoint_history_len}${e.reason ? ` (${e.reason.kind})` : ""}`;
    case "memory_written":
      return `wrote ${e.memory_kind} memory ${e.name}`;
    case "memory_queried":
      return `memory query "${short(e.query, 60)}"`;
    case "memory_validation_failed":
      return `memory ${e.record_id} rejected: ${short(e.error)}`;
    case "memory_retrieval_result":
      return `${(e.hits ?? []).length} memory hits`;
    case "capability_changed":
      return `capabilities${e.added?.length ? ` +${e.added.join(" +")}` : ""}${e.removed?.length ? ` -${e.removed.join(" -")}` : ""}`;
    case "milestone_advanced":
      return `milestone ${e.phase_id} reached`;
    case "milestone_blocked":
      return `milestone ${e.phase_id} blocked: ${short(e.reason)}`;
    case "entropy_sample":
      return `entropy ${e.score}`;
    case "entropy_alert":
      return `entropy ${e.score} over ${e.threshold}`;
    case "prompt_measured": {
      const m = e.measurement ?? {};
      return `prompt ${m.input_tokens} tokens (${m.source?.kind ?? "?"}, ${m.confidence ?? "?"})`;
    }
    case "context_prepared":
      return contextText(e.preparation);
    case "provider_attempt": {
      const ms = e.finished_at_ms - e.started_at_ms;
      return `${routeText(e.route)} attempt ${e.attempt_seq}: ${e.status}${e.last_error_class ? ` (${e.last_error_class})` : ""}${Number.isFinite(ms) ? `, ${ms} ms` : ""}`;
    }
    case "kernel_observation":
      return `${e.observation_kind}${observationText(e.raw)}`;
    case "workflow_batch_spawned":
      return `workflow batch of ${e.node_count}: ${(e.node_ids ?? []).join(", ")}`;
    case "workflow_nodes_submitted":
      return `${(e.nodes ?? []).length} workflow nodes submitted${e.submitter_agent_id ? ` by ${e.submitter_agent_id}` : ""}`;
    case "workflow_node_completed":
      return `node ${e.agent_id} ${e.status} (${e.termination})${e.output ? `: ${short(contentText(e.output.content), 60)}` : ""}`;
    case "workflow_completed": {
      const outcomes = e.node_outcomes ?? [];
      const done = outcomes.filter((o) => o.status === "completed").length;
      return `workflow done: ${done} of ${e.total_nodes} nodes completed`;
    }
    case "round_started":
      return `round ${e.round}: ${short(e.goal)}`;
    case "round_paced":
      return `round ${e.round} → ${e.action}${e.delay_ms != null ? ` ${e.delay_ms} ms` : ""}${e.reason ? ` (${short(e.reason, 60)})` : ""}`;
    case "group_member_joined":
      return `${e.session_id} joined the group as ${e.role} (${e.member_kind})`;
    case "group_budget_charged":
      return `group charged ${e.tokens} tokens, ${e.subagents} sub-agents, ${e.rounds} rounds`;
    case "memory_write_failed":
      return `memory write ${e.record_id} failed: ${short(e.error)}`;
    case "memory_query_failed":
      return `memory query "${short(e.query, 40)}" failed: ${short(e.error)}`;
    case "summary_upgraded":
      return `summary of compression #${e.compressed_seq} upgraded: ${short(e.summary, 60)}`;
    case "semantic_archive_pending":
      return `semantic archive pending (${e.action})`;
    case "semantic_archive_completed":
      return `semantic archive done: ${e.record_id}`;
    case "semantic_archive_failed":
      return `semantic archive failed: ${short(e.error)}`;
    default:
      return short(JSON.stringify(e), 90);
  }
}

/** The facts of an event worth reading before its JSON (the details pane):
 * `[label, value]` pairs, none for kinds whose JSON says it plainly. */
export function eventFacts(e) {
  return factsOf(e).filter(([, v]) => v != null && v !== false && v !== "");
}

function factsOf(e) {
  switch (e.kind) {
    case "prompt_measured": {
      const m = e.measurement ?? {};
      return [
        ["input tokens", m.input_tokens],
        ["source", m.source?.kind],
        ["confidence", m.confidence],
        ["effect", e.effect_id],
      ];
    }
    case "provider_attempt":
      return [
        ["route", routeText(e.route)],
        ["attempt", e.attempt_seq],
        ["status", e.status],
        ["error", e.last_error_class],
        ["duration", `${e.finished_at_ms - e.started_at_ms} ms`],
        ["usage", e.usage && `${e.usage.input_tokens} in, ${e.usage.output_tokens} out`],
        ["effect", e.effect_id],
      ];
    case "context_prepared": {
      const c = contextSummary(e.preparation);
      return [
        ["route", routeText(e.preparation?.provider_route)],
        [
          "projected",
          c.projected_tokens != null && `${c.projected_tokens} of ${c.budget_tokens} tokens`,
        ],
        ...(e.preparation?.plan?.selections ?? []).map((s) => [
          s.action,
          `${s.entry_id} (${s.reason})`,
        ]),
      ];
    }
    case "kernel_observation":
      return [["observation", e.observation_kind]];
    default:
      return [];
  }
}
