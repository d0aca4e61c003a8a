// Renders a SessionView as a readable plain-text summary for the CLI.

const n = (x) => Number(x).toLocaleString("en-US");

function status(view) {
  const s = view.status;
  switch (s.state) {
    case "not_started":
      return "not started";
    case "running":
      return "running";
    case "suspended":
      return `suspended at turn ${s.turn} (${s.reason}; waiting on ${s.pending_calls.join(", ") || "nothing"})`;
    default:
      return `finished: ${s.reason}`;
  }
}

function counted(names) {
  const counts = new Map();
  for (const name of names) counts.set(name, (counts.get(name) ?? 0) + 1);
  return [...counts].map(([name, c]) => (c > 1 ? `${name} ×${c}` : name)).join(", ");
}

export function summarize(view) {
  const lines = [];
  const run = view.run;
  lines.push(
    run
      ? `Run ${run.run_id}${run.agent_id ? ` · agent ${run.agent_id}` : ""}`
      : `Run (no run_started event)`,
  );
  if (run) lines.push(`Goal: ${run.goal}`);
  lines.push(
    `Status: ${status(view)} · ${view.turns_used || view.revision} turns · ${n(view.total_tokens)} tokens`,
  );
  lines.push(
    `Events: ${n(view.event_count)} · ${view.errors.unknown_events} unknown · ${view.errors.load_errors} load errors`,
  );

  const calls = view.transcript.filter((e) => e.type === "tool_call");
  const e = view.errors;
  lines.push(
    `Tools: ${calls.length} calls${calls.length ? ` (${counted(calls.map((c) => c.name ?? "?"))})` : ""} · ${e.tool_errors} errors (${e.fatal_tool_errors} fatal) · ${e.denied_tools} denied · ${view.permissions.gated.length} gated`,
  );

  if (view.processes.length) {
    lines.push(`Processes: ${view.processes.length}`);
    for (const p of view.processes) {
      const path = p.history.map((h) => h.state).join(" → ");
      lines.push(
        `  ${p.agent_id} (${p.role}): ${path}${p.result_termination ? ` [${p.result_termination}]` : ""}`,
      );
    }
  }
  const b = view.budgets;
  const ops = Object.entries(b.tokens_by_operation)
    .map(([op, t]) => `${op} ${n(t)} tokens`)
    .join(", ");
  lines.push(
    `Budgets: ${b.usage.length} usage reports${ops ? ` (${ops})` : ""} · ${b.exceeded.length} exceeded${b.exceeded.map((x) => `: ${x.event.operation_id} over ${x.event.budget}`).join("")}`,
  );
  lines.push(
    `Signals: ${view.signals.length} · Cancellations: ${view.cancellations.length}${view.cancellations.map((c) => ` (${c.event.operation_id}: ${c.event.reason})`).join("")}`,
  );
  const m = view.memory;
  lines.push(
    `Memory: ${m.writes.length} written · ${m.queries.length} queried · ${m.retrievals.length} retrievals · ${m.validation_failures.length} validation failures`,
  );
  const samples = view.entropy.samples.map((s) => s.event.score);
  if (samples.length) {
    lines.push(
      `Entropy: max ${Math.max(...samples).toFixed(2)} · ${view.entropy.alerts.length} alerts${view.entropy.alerts.map((a) => ` (turn ${a.event.turn}: ${a.event.score} > ${a.event.threshold})`).join("")}`,
    );
  }
  lines.push(
    `Checkpoints: ${view.checkpoints.length} · Rollbacks: ${view.rollbacks.length} · Compressions: ${view.context.compressions.length} · Page out/in: ${view.context.page_outs.length}/${view.context.page_ins.length}`,
  );
  if (view.milestones.length) {
    lines.push(
      `Milestones: ${view.milestones.map((x) => (x.event.kind === "milestone_advanced" ? `${x.event.phase_id} ✓` : `${x.event.phase_id} ✗ (${x.event.reason})`)).join(", ")}`,
    );
  }
  const failed = calls.filter((c) => c.result?.is_error || c.denied);
  if (failed.length) {
    lines.push("Errors:");
    for (const c of failed) {
      const why = c.denied ? `denied: ${c.denied}` : c.result.output.split("\n")[0];
      lines.push(
        `  turn ${c.turn} ${c.name ?? c.call_id}${c.result?.is_fatal ? " (fatal)" : ""}: ${why}`,
      );
    }
  }
  return lines.join("\n");
}
