// The idiomatic pure-JavaScript baseline: JSON.parse per line plus the same
// OS snapshot fold (session-events.md). Also a cross-check of the WASM fold.

export function jsRebuildOsSnapshot(bytes) {
  const text = new TextDecoder().decode(bytes);
  const snap = {
    last_suspend: null,
    last_resumed_turn: null,
    process_by_agent: [],
    budget_exceeded: [],
    budget_usage_reported: [],
    cancellations: [],
    signals: [],
    page_out_count: 0,
    page_in_count: 0,
    tool_gated_count: 0,
    memory_written_count: 0,
    memory_queried_count: 0,
    memory_validation_failed_count: 0,
    memory_retrieval_result_count: 0,
  };
  const processIndex = new Map();
  let start = 0;
  while (start < text.length) {
    let end = text.indexOf("\n", start);
    if (end === -1) end = text.length;
    const line = text.slice(start, end);
    start = end + 1;
    if (line.trim() === "") continue;
    const e = JSON.parse(line);
    switch (e.kind) {
      case "suspended":
        snap.last_suspend = {
          turn: e.turn,
          reason: e.reason,
          pending_calls: e.pending_calls ?? [],
        };
        break;
      case "resumed":
        snap.last_resumed_turn = e.turn;
        break;
      case "tool_gated":
        snap.tool_gated_count++;
        break;
      case "agent_process_changed": {
        const record = {
          turn: e.turn,
          agent_id: e.agent_id,
          parent_session_id: e.parent_session_id,
          state: e.state,
        };
        const i = processIndex.get(e.agent_id);
        if (i === undefined) {
          processIndex.set(e.agent_id, snap.process_by_agent.length);
          snap.process_by_agent.push(record);
        } else snap.process_by_agent[i] = record;
        break;
      }
      case "budget_exceeded":
        snap.budget_exceeded.push({
          turn: e.turn,
          operation_id: e.operation_id,
          reservation_id: e.reservation_id ?? null,
          budget: e.budget,
        });
        break;
      case "budget_usage_reported":
        snap.budget_usage_reported.push({
          turn: e.turn,
          operation_id: e.operation_id,
          reservation_id: e.reservation_id,
          tokens: e.tokens,
          subagents: e.subagents,
          rounds: e.rounds,
        });
        break;
      case "operation_cancelled":
        snap.cancellations.push({
          turn: e.turn,
          operation_id: e.operation_id,
          reason: e.reason,
          pending_call_ids: e.pending_call_ids ?? [],
        });
        break;
      case "signal_delivery_disposed":
        snap.signals.push({
          turn: e.turn,
          operation_id: e.operation_id,
          delivery_id: e.delivery_id,
          attempt: e.attempt,
          signal_id: e.signal_id,
          disposition: e.disposition,
          queue_depth: e.queue_depth,
        });
        break;
      case "page_out":
        snap.page_out_count++;
        break;
      case "page_in":
        snap.page_in_count++;
        break;
      case "memory_written":
        snap.memory_written_count++;
        break;
      case "memory_queried":
        snap.memory_queried_count++;
        break;
      case "memory_validation_failed":
        snap.memory_validation_failed_count++;
        break;
      case "memory_retrieval_result":
        snap.memory_retrieval_result_count++;
        break;
    }
  }
  return snap;
}
