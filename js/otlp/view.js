// The parts of the session view (the JSON `SessionState.view()` returns,
// as text) the export reads. The events the view keeps (attempts,
// suspensions, budgets, …) and a tool call's arguments are kept as the
// text the log wrote, which the export copies; the rest is parsed.
import { Obj, items, string, unsigned } from "./raw.js";

/** A list of `{position, event}` entries, each event kept as text. */
function entries(raw) {
  return (items(raw, "[") ?? []).map(({ value }) => {
    const entry = new Obj(value);
    return { position: unsigned(entry.raw("position")) ?? 0n, event: entry.raw("event") };
  });
}

/** The transcript, each tool call with its arguments' text (`argumentsText`). */
function transcript(raw) {
  return (items(raw, "[") ?? []).map(({ value }) => {
    const entry = JSON.parse(value);
    if (entry.type === "tool_call") entry.argumentsText = new Obj(value).raw("arguments");
    return entry;
  });
}

/** The run header, its route (a record, as text) read apart. */
function run(raw) {
  const header = JSON.parse(raw);
  if (header) header.routeText = new Obj(raw).raw("route");
  return header;
}

/** What the export reads of the view `text`. */
export function readView(text) {
  const view = new Obj(text);
  const part = (key) => new Obj(view.raw(key));
  const [permissions, budgets] = [part("permissions"), part("budgets")];
  return {
    sessionId: string(view.raw("session_id")),
    eventCount: unsigned(view.raw("event_count")) ?? 0n,
    run: run(view.raw("run")),
    status: JSON.parse(view.raw("status")) ?? { state: "not_started" },
    turnsUsed: unsigned(view.raw("turns_used")) ?? 0n,
    totalTokens: unsigned(view.raw("total_tokens")) ?? 0n,
    loadErrors: unsigned(part("errors").raw("load_errors")) ?? 0n,
    transcript: transcript(view.raw("transcript")),
    processes: JSON.parse(view.raw("processes")) ?? [],
    requests: JSON.parse(permissions.raw("requests")) ?? [],
    attempts: entries(part("model").raw("attempts")),
    /** The entries that are events on the run, in the order they are listed. */
    runEvents: [
      entries(view.raw("suspensions")),
      entries(permissions.raw("gated")),
      entries(permissions.raw("denied")),
      entries(budgets.raw("usage")),
      entries(budgets.raw("exceeded")),
      entries(view.raw("signals")),
      entries(view.raw("cancellations")),
    ].flat(),
  };
}
