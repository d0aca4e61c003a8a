// What a person sees of one event in a list: its category and a one-line
// label. No DOM here, so a Web Worker can use it too. Kinds, categories and
// what is alarming come from the package's kind table (`eventKinds()`), so
// the WebAssembly must be loaded before these are called.
import { eventKinds } from "../api.js";

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

/** Plain text of message content (a string or content parts). */
export function contentText(content) {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .map((p) => (p.type === "text" ? p.text : p.type === "tool_result" ? p.output : `[${p.type}]`))
    .join(" ");
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
            `${r.call_id}: ${r.is_fatal ? "FATAL " : r.is_error ? "error " : ""}${short(contentText(r.output), 50)}`,
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
      return `suspended (${e.reason})${e.pending_calls?.length ? ` pending ${e.pending_calls.join(", ")}` : ""}`;
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
    default:
      return short(JSON.stringify(e), 90);
  }
}
