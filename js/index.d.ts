// Types of the agent-replay package. They mirror the Rust types in src/;
// `npm test` compiles JSON produced by the Rust code against them
// (scripts/check-types.mjs), so they cannot drift from what the code does.

/** A u64: a number, or a decimal string when beyond 2^53-1 (never rounded). */
export type U64 = number | string;
/** Any JSON value (tool arguments, provider payloads). */
export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

// ---- Nested event types -------------------------------------------------

export type Role = "system" | "user" | "assistant" | "tool";
export type Content = string | ContentPart[];
export type ContentPart =
  | { type: "text"; text: string }
  | {
      type: "image";
      url?: string;
      data?: string;
      media_type?: string;
      detail?: "auto" | "low" | "high";
    }
  | { type: "audio"; data: string; media_type: string }
  | {
      type: "tool_result";
      call_id: string;
      output: string;
      is_error: boolean;
      durable_content?: DurableContent;
    };
export interface ToolCall {
  id: string;
  name: string;
  arguments: Json;
}
export interface Message {
  role: Role;
  content: Content;
  tool_calls?: ToolCall[];
  token_count?: number;
}
export type ErrorKind =
  | "recoverable"
  | "fatal"
  | "governance_denied"
  | "provider_failure"
  | "timeout"
  | "user_interrupt";
export interface ToolResult {
  call_id: string;
  output: Content;
  durable_content?: DurableContent;
  is_error: boolean;
  is_fatal: boolean;
  error_kind?: ErrorKind;
  token_count: number | null;
}
export interface DurableContent {
  blocks: DurableBlock[];
}
export type DurableBlock =
  | { type: "text"; text: string }
  | ({ type: "image" | "audio" | "video" | "file" } & MediaBlock);
export interface MediaBlock {
  source: MediaSource;
  media_type?: string;
  provider_options?: Json;
}
export type MediaSource =
  | { kind: "url"; url: string }
  | { kind: "base64"; data: string }
  | { kind: "file_id"; id: string; affinity: { provider_id: string; endpoint_id: string } }
  | { kind: "object"; handle: string; owner: string; payload_ref: string };
export interface ProviderReplay {
  protocol: string;
  provider?: string;
  model?: string;
  native_blocks?: Json[];
  reasoning_content?: string;
  reasoning_details?: Json;
  native_message?: Json;
  tool_calls?: Json[];
}
export type CancellationReason = "user" | "deadline" | "lease_lost" | "host_shutdown";
export type RollbackReason =
  | { kind: "fatal_tool_error"; tool_name: string; error: string }
  | { kind: "governance_denied"; tool_name: string; reason: string }
  | { kind: "provider_failure"; error: string }
  | { kind: "timeout" }
  | { kind: "user_interrupt" }
  | { kind: "malformed_replay"; reason: string };
export interface MemoryScope {
  tenant_id: string;
  namespace: string;
}
export type MemoryKind = "user" | "feedback" | "project" | "reference";
export interface MemoryRecall {
  record: MemoryRecord;
  score: number;
  why: string;
}
export interface MemoryRecord {
  record_id: string;
  scope: MemoryScope;
  name: string;
  kind: MemoryKind;
  content: string;
  description: string;
  provenance: {
    session_id?: string;
    author: "model" | "host" | "extraction";
    trust: "untrusted" | "user_asserted" | "host_verified";
    evidence_refs?: string[];
  };
  created_at: U64;
  updated_at: U64;
  last_recalled_at?: U64;
  recall_count: U64;
  confidence: number;
  links?: Json[];
  pinned: boolean;
  ttl_days?: number;
}

// ---- The 32 event kinds of deepstrike-core 0.2.60 (as the kernel writes them)

export interface RunStarted {
  kind: "run_started";
  run_id: string;
  goal: string;
  criteria: string[];
  agent_id: string | null;
  system_prompt: string | null;
  attachments: ContentPart[];
}
export interface LlmCompleted {
  kind: "llm_completed";
  turn: number;
  message: Message;
  provider_replay?: ProviderReplay;
}
/** The Node SDK's flat `llm_completed`, accepted on input and kept as written by `parseLog`. */
export interface LlmCompletedSdk {
  kind: "llm_completed";
  turn: number;
  content: Content;
  tool_calls: ToolCall[];
  token_count?: number;
}
export interface ToolRequested {
  kind: "tool_requested";
  turn: number;
  calls: ToolCall[];
}
export interface ToolCompleted {
  kind: "tool_completed";
  turn: number;
  results: ToolResult[];
}
export interface Compressed {
  kind: "compressed";
  turn: number;
  archived_seq_range: [U64, U64];
  action?: string;
  summary?: string;
  summary_tokens?: number;
  preserved_refs?: string[];
}
export interface PageOut {
  kind: "page_out";
  turn: number;
  action?: string;
  summary?: string;
  tier_hint?: string;
  message_count: number;
  archive_ref?: string;
}
export interface PageIn {
  kind: "page_in";
  turn: number;
  entry_count: number;
}
export interface RunTerminal {
  kind: "run_terminal";
  reason: string;
  turns_used: number;
  total_tokens: U64;
}
export interface ToolArgumentRepaired {
  kind: "tool_argument_repaired";
  turn: number;
  tool: string;
  original_arguments: string;
  repaired_arguments: string;
}
export interface PermissionRequested {
  kind: "permission_requested";
  turn: number;
  tool: string;
  arguments: string;
  reason: string | null;
}
export interface PermissionResolved {
  kind: "permission_resolved";
  turn: number;
  approved: boolean;
  responder: "user" | "policy_gate";
}
export interface ToolDenied {
  kind: "tool_denied";
  turn: number;
  call_id: string;
  tool_name: string;
  reason: string;
}
export interface CapabilityChanged {
  kind: "capability_changed";
  turn: number;
  added?: string[];
  removed?: string[];
  change_kind?: string;
  capability_id?: string;
  version?: string;
  mounted_by?: string;
  mount_reason?: string;
}
export interface ContextRenewed {
  kind: "context_renewed";
  turn: number;
  sprint: number;
  handoff_ref: string;
}
export interface Suspended {
  kind: "suspended";
  turn: number;
  reason: string;
  pending_calls?: string[];
}
export interface Resumed {
  kind: "resumed";
  turn: number;
  approved?: string[];
  denied?: string[];
}
export interface ToolGated {
  kind: "tool_gated";
  turn: number;
  call_id: string;
  tool: string;
  reason: string;
}
export interface SignalDeliveryDisposed {
  kind: "signal_delivery_disposed";
  turn: number;
  operation_id: string;
  delivery_id: string;
  attempt: number;
  signal_id: string;
  disposition: string;
  queue_depth: number;
}
export interface BudgetExceeded {
  kind: "budget_exceeded";
  turn: number;
  operation_id: string;
  reservation_id?: string;
  budget: string;
}
export interface BudgetUsageReported {
  kind: "budget_usage_reported";
  turn: number;
  operation_id: string;
  reservation_id: string;
  tokens: U64;
  subagents: number;
  rounds: number;
}
export interface OperationCancelled {
  kind: "operation_cancelled";
  turn: number;
  operation_id: string;
  reason: CancellationReason;
  pending_call_ids: string[];
}
export interface CheckpointTaken {
  kind: "checkpoint_taken";
  turn: number;
  history_len: number;
}
export interface EntropySample {
  kind: "entropy_sample";
  turn: number;
  score: number;
  rho: number;
  repeat_pressure: number;
  failure_rate: number;
  rollbacks_in_window: number;
  window_turns: number;
}
export interface EntropyAlert {
  kind: "entropy_alert";
  turn: number;
  score: number;
  threshold: number;
}
export interface Rollbacked {
  kind: "rollbacked";
  turn: number;
  checkpoint_history_len: number;
  reason?: RollbackReason;
}
export interface AgentProcessChanged {
  kind: "agent_process_changed";
  turn: number;
  agent_id: string;
  parent_session_id: string;
  role: string;
  isolation: string;
  context_inheritance: string;
  state: string;
  permitted_capability_ids?: string[];
  result_termination?: string;
}
export interface MilestoneAdvanced {
  kind: "milestone_advanced";
  turn: number;
  phase_id: string;
  capabilities_unlocked: string[];
}
export interface MilestoneBlocked {
  kind: "milestone_blocked";
  turn: number;
  phase_id: string;
  reason: string;
}
export interface MemoryWritten {
  kind: "memory_written";
  turn: number;
  record_id: string;
  scope: MemoryScope;
  memory_kind: MemoryKind;
  name: string;
  size_bytes: number;
}
export interface MemoryQueried {
  kind: "memory_queried";
  turn: number;
  scope: MemoryScope;
  query: string;
  requested_k: U64;
  requires_async_response: boolean;
}
export interface MemoryValidationFailed {
  kind: "memory_validation_failed";
  turn: number;
  record_id: string;
  error: string;
}
export interface MemoryRetrievalResult {
  kind: "memory_retrieval_result";
  hits: MemoryRecall[];
}

// ---- The 18 kinds deepstrike 0.2.77 adds (as its SDK writes them) --------
// docs/spec/deepstrike-0.2.77.md. Read tolerantly only: strict reading is
// deepstrike-core 0.2.60's, to which they are unknown kinds. Enum-like
// strings list the values 0.2.77 writes; another value is kept as written.

/** An object the runtime writes whole and agent-replay carries as written. */
export type JsonObject = { [key: string]: Json };
export interface PromptMeasured {
  kind: "prompt_measured";
  turn: number;
  measurement: {
    request_fingerprint: string;
    input_tokens: U64;
    /** `heuristic` (an estimate before the call) or `postflight` (the provider's count). */
    source: { kind: string } & JsonObject;
    confidence: string;
  };
  effect_id: string;
}
export interface ContextPrepared {
  kind: "context_prepared";
  turn: number;
  effect_id: string;
  /** The kernel's `context/v1` preparation; it lists every history entry. */
  preparation: JsonObject;
}
export interface ProviderAttempt {
  kind: "provider_attempt";
  effect_id: string;
  attempt_seq: number;
  route: JsonObject;
  request_fingerprint: string;
  status: "success" | "transport_exhausted" | "aborted" | "rejected";
  transport_rungs: number;
  started_at_ms: U64;
  finished_at_ms: U64;
  /** A provider error kind: `context_overflow`, `model_unavailable`, `rate_limit`, ... */
  last_error_class?: string;
  usage?: JsonObject;
  wire_evidence?: JsonObject;
  accounting_policy_id?: string;
}
export interface KernelObservation {
  kind: "kernel_observation";
  turn: number;
  observation_kind: string;
  /** The observation as the kernel made it (its `kind` repeats `observation_kind`). */
  raw: JsonObject;
}
/** A workflow node's final message (its tool calls' arguments are parsed JSON). */
export interface WorkflowNodeOutput {
  role: string;
  content: Json;
  tool_calls?: { id: string; name: string; arguments: Json }[];
}
export interface WorkflowNodesSubmitted {
  kind: "workflow_nodes_submitted";
  turn: number;
  nodes: JsonObject[];
  base_index?: number;
  submitter_agent_id?: string;
}
export interface WorkflowBatchSpawned {
  kind: "workflow_batch_spawned";
  turn: number;
  node_count: number;
  node_ids: string[];
}
export interface WorkflowNodeCompleted {
  kind: "workflow_node_completed";
  turn: number;
  agent_id: string;
  status: string;
  termination: string;
  classify_branch?: Json;
  tournament_winner?: Json;
  loop_continue?: boolean;
  output?: WorkflowNodeOutput;
}
export interface WorkflowCompleted {
  kind: "workflow_completed";
  turn: number;
  node_outcomes: {
    node_id: string;
    status: string;
    termination: string;
    output?: WorkflowNodeOutput;
  }[];
  total_nodes: number;
}
export interface RoundStarted {
  kind: "round_started";
  /** 1-based. */
  round: number;
  goal: string;
}
export interface RoundPaced {
  kind: "round_paced";
  round: number;
  action: "continue" | "sleep" | "stop";
  reason: string;
  delay_ms?: U64;
  /** Only for `sleep`. */
  wake_at_ms?: U64;
  coerced_from?: string;
}
export interface GroupMemberJoined {
  kind: "group_member_joined";
  session_id: string;
  role: string;
  member_kind: "peer" | "vehicle";
}
export interface GroupBudgetCharged {
  kind: "group_budget_charged";
  tokens: U64;
  subagents: number;
  rounds: number;
}
export interface SummaryUpgraded {
  kind: "summary_upgraded";
  compressed_seq: U64;
  summary: string;
}
export interface SemanticArchivePending {
  kind: "semantic_archive_pending";
  effect_id: string;
  action: string;
}
export interface SemanticArchiveCompleted {
  kind: "semantic_archive_completed";
  effect_id: string;
  record_id: string;
}
export interface SemanticArchiveFailed {
  kind: "semantic_archive_failed";
  effect_id: string;
  error: string;
}
export interface MemoryWriteFailed {
  kind: "memory_write_failed";
  turn: number;
  record_id: string;
  error: string;
}
export interface MemoryQueryFailed {
  kind: "memory_query_failed";
  turn: number;
  scope: MemoryScope;
  query: string;
  error: string;
}

/** One event of a session log (normalised shape: the kernel's for the 32 core kinds, the
 * SDK's for the others). */
export type SessionEvent =
  | RunStarted
  | LlmCompleted
  | ToolRequested
  | ToolCompleted
  | Compressed
  | PageOut
  | PageIn
  | RunTerminal
  | ToolArgumentRepaired
  | PermissionRequested
  | PermissionResolved
  | ToolDenied
  | CapabilityChanged
  | ContextRenewed
  | Suspended
  | Resumed
  | ToolGated
  | SignalDeliveryDisposed
  | BudgetExceeded
  | BudgetUsageReported
  | OperationCancelled
  | CheckpointTaken
  | EntropySample
  | EntropyAlert
  | Rollbacked
  | AgentProcessChanged
  | MilestoneAdvanced
  | MilestoneBlocked
  | MemoryWritten
  | MemoryQueried
  | MemoryValidationFailed
  | MemoryRetrievalResult
  | PromptMeasured
  | ContextPrepared
  | ProviderAttempt
  | KernelObservation
  | WorkflowNodesSubmitted
  | WorkflowBatchSpawned
  | WorkflowNodeCompleted
  | WorkflowCompleted
  | RoundStarted
  | RoundPaced
  | GroupMemberJoined
  | GroupBudgetCharged
  | SummaryUpgraded
  | SemanticArchivePending
  | SemanticArchiveCompleted
  | SemanticArchiveFailed
  | MemoryWriteFailed
  | MemoryQueryFailed;
export type EventKind = SessionEvent["kind"];
/** The viewer's groups of kinds. */
export type EventCategory =
  | "run"
  | "llm"
  | "model"
  | "tools"
  | "permissions"
  | "processes"
  | "workflow"
  | "budgets"
  | "signals"
  | "context"
  | "memory"
  | "governance"
  | "entropy"
  | "kernel";
/** deepstrike's kernel category of a kind (`category_for_kind`; `sched` for any it does not name). */
export type KernelCategory = "syscall" | "sched" | "mm" | "proc" | "ipc";
/** deepstrike's primitive of a kind (`primitive_for_kind`), what its `primitive_filter` matches. */
export type Primitive = "syscall" | "mm" | "sched";
/** What is known of one kind (a row of the Rust kind table). */
export interface KindInfo {
  kind: EventKind;
  category: EventCategory;
  kernel_category: KernelCategory;
  primitive: Primitive;
  /** deepstrike-core 0.2.60 knows it: strict reading reads only these (the others are
   * `unknown_kind` errors there). */
  core: boolean;
  /** Its events carry a `turn`. */
  bears_turn: boolean;
  /** One of the kernel's OS event kinds. */
  kernel_os: boolean;
  /** The OS snapshot fold reads it. */
  snapshot_fold: boolean;
  /** `on_error`: when one of its results is an error. */
  alarming: "never" | "always" | "on_error";
}
/** The kinds this version knows and the categories, in display order. */
export interface KindTable {
  categories: readonly EventCategory[];
  kinds: readonly Readonly<KindInfo>[];
}
/** An event as read from a log: any kind, in the shape it was written. */
export type LoggedEvent =
  | SessionEvent
  | LlmCompletedSdk
  | { kind: string; [field: string]: Json | undefined };

// ---- Loading ---------------------------------------------------------------

export type LogErrorCode =
  | "invalid_json"
  | "invalid_event"
  | "unknown_kind"
  | "truncated"
  | "invalid_utf8"
  | "invalid_entry"
  | "seq_gap"
  | "seq_disorder"
  | "limit_exceeded";
/** A problem in a log. line and column are 1-based; column counts characters
 * and points at the last character of the offending token. */
export interface LogError {
  line: number;
  column: number;
  /** The element index, for a JSON array. */
  index?: number;
  code: LogErrorCode;
  message: string;
  /** The event's kind, when it could be read. */
  kind?: string;
  /** Path of the field at fault, e.g. `results[0].is_error`. */
  field?: string;
}
export type Framing = "json_array" | "json_lines" | "stored_entries" | "stored_entries_array";
export interface ParsedLog {
  framing: Framing;
  events: LoggedEvent[];
  errors: LogError[];
}
export interface LoadOptions {
  strict?: boolean;
}

// ---- The OS snapshot -------------------------------------------------------

export interface OsSnapshot {
  last_suspend: { turn: number; reason: string; pending_calls: string[] } | null;
  last_resumed_turn: number | null;
  /** Core 0.2.60's record for an event with `parent_session_id` and no `parent_task_id`;
   * otherwise the SDKs': each parent only when non-empty, `state` never empty. */
  process_by_agent: (
    | { turn: number; agent_id: string; parent_session_id: string; state: string }
    | {
        turn: number;
        agent_id: string;
        parent_task_id?: string;
        parent_session_id?: string;
        state: string;
      }
  )[];
  budget_exceeded: {
    turn: number;
    operation_id: string;
    reservation_id: string | null;
    budget: string;
  }[];
  budget_usage_reported: {
    turn: number;
    operation_id: string;
    reservation_id: string;
    tokens: U64;
    subagents: number;
    rounds: number;
  }[];
  cancellations: {
    turn: number;
    operation_id: string;
    reason: CancellationReason;
    pending_call_ids: string[];
  }[];
  signals: {
    turn: number;
    operation_id: string;
    delivery_id: string;
    attempt: number;
    signal_id: string;
    disposition: string;
    queue_depth: number;
  }[];
  page_out_count: number;
  page_in_count: number;
  tool_gated_count: number;
  memory_written_count: number;
  memory_queried_count: number;
  memory_validation_failed_count: number;
  memory_retrieval_result_count: number;
}

// ---- The session view ------------------------------------------------------

/** An event at its 1-based position in the session, as written (integers
 * beyond 2^53-1 as strings; fields this version does not know kept). */
export interface Entry<E extends SessionEvent = SessionEvent> {
  position: number;
  event: E;
}
export type SessionStatus =
  | { state: "not_started" }
  | { state: "running" }
  | { state: "suspended"; position: number; turn: number; reason: string; pending_calls: string[] }
  | { state: "terminal"; position: number; reason: string; turns_used: number; total_tokens: U64 };
/** A stretch of the log over which the runtime counts its turns up from one start: a run's
 * start, or a wake after a crash (docs/api.md, "Lives"). Numbered from 1. */
export interface Life {
  life: number;
  first_position: number;
  last_position: number;
  /** The runtime turn the life starts from: the waking event's, else 0. */
  first_turn: number;
  /** The highest runtime turn of the life (`first_turn` until one comes). */
  last_turn: number;
}
/** The events of one turn of one life. */
export interface TurnSummary {
  life: number;
  turn: number;
  first_position: number;
  last_position: number;
  event_count: number;
  kinds: Record<string, number>;
  tool_calls: string[];
  /** Completion and tool result token counts. */
  tokens: number;
  /** The prompt's measured size (`prompt_measured`): each request's latest measurement. */
  input_tokens: number;
  /** Completion token counts. */
  output_tokens: number;
  errors: number;
}
export interface ToolOutcome {
  position: number;
  output: string;
  is_error: boolean;
  is_fatal: boolean;
  error_kind: ErrorKind | null;
  token_count: number | null;
}
export type TranscriptEntry =
  | { type: "goal"; position: number; life: number; text: string; criteria: string[] }
  | {
      type: "assistant";
      position: number;
      life: number;
      turn: number;
      text: string;
      tool_call_ids: string[];
      token_count: number | null;
      /** The position of the first rollback that undid this entry. */
      rolled_back_at: number | null;
    }
  | {
      type: "tool_call";
      position: number;
      /** Calls pair with their results within a life: a call re-run after a wake is an entry of
       * the new life. */
      life: number;
      turn: number;
      call_id: string;
      name: string | null;
      arguments: Json;
      result: ToolOutcome | null;
      denied: string | null;
      gated: string | null;
      /** The position of the first rollback that undid this entry. */
      rolled_back_at: number | null;
    }
  | {
      type: "suspended";
      position: number;
      life: number;
      turn: number;
      reason: string;
      pending_calls: string[];
    }
  | {
      type: "resumed";
      position: number;
      life: number;
      turn: number;
      approved: string[];
      denied: string[];
    }
  | {
      type: "rollback";
      position: number;
      life: number;
      turn: number;
      checkpoint_history_len: number;
      reason: RollbackReason | null;
    };
export interface ProcessView {
  agent_id: string;
  /** `""` when the runtime names the parent by task (deepstrike 0.2.77). */
  parent_session_id: string;
  /** The parent task, as deepstrike 0.2.77 writes it instead of a session. */
  parent_task_id: string | null;
  role: string;
  isolation: string;
  context_inheritance: string;
  state: string;
  permitted_capability_ids: string[];
  result_termination: string | null;
  first_turn: number;
  last_turn: number;
  history: { position: number; turn: number; state: string; result_termination: string | null }[];
}
export interface PermissionRequest {
  position: number;
  turn: number;
  tool: string;
  arguments: string;
  reason: string | null;
  resolution: { position: number; approved: boolean; responder: string } | null;
}
/** The rich read view of a session (what the viewer renders). */
export interface SessionView {
  session_id: string | null;
  event_count: number;
  revision: number;
  run: {
    position: number;
    run_id: string;
    goal: string;
    criteria: string[];
    agent_id: string | null;
    system_prompt: string | null;
    attachment_count: number;
    /** The provider route the run was started with, as written (deepstrike 0.2.77). */
    route: JsonObject | null;
  } | null;
  status: SessionStatus;
  turns_used: number;
  total_tokens: U64;
  lives: Life[];
  turns: TurnSummary[];
  transcript: TranscriptEntry[];
  processes: ProcessView[];
  /** Every `agent_process_changed`, as written. */
  process_changes: Entry<AgentProcessChanged>[];
  permissions: {
    requests: PermissionRequest[];
    gated: Entry<ToolGated>[];
    denied: Entry<ToolDenied>[];
  };
  budgets: {
    usage: Entry<BudgetUsageReported>[];
    exceeded: Entry<BudgetExceeded>[];
    tokens_by_operation: Record<string, U64>;
  };
  /** Every `suspended` and `resumed`, as written. */
  suspensions: Entry<Suspended | Resumed>[];
  signals: Entry<SignalDeliveryDisposed>[];
  cancellations: Entry<OperationCancelled>[];
  capabilities: { current: string[]; history: Entry<CapabilityChanged>[] };
  milestones: Entry<MilestoneAdvanced | MilestoneBlocked>[];
  entropy: { samples: Entry<EntropySample>[]; alerts: Entry<EntropyAlert>[] };
  checkpoints: Entry<CheckpointTaken>[];
  rollbacks: Entry<Rollbacked>[];
  context: {
    compressions: Entry<Compressed>[];
    page_outs: Entry<PageOut>[];
    page_ins: Entry<PageIn>[];
    renewals: Entry<ContextRenewed>[];
  };
  memory: {
    writes: Entry<MemoryWritten>[];
    queries: Entry<MemoryQueried>[];
    validation_failures: Entry<MemoryValidationFailed>[];
    retrievals: Entry<MemoryRetrievalResult>[];
    write_failures: Entry<MemoryWriteFailed>[];
    query_failures: Entry<MemoryQueryFailed>[];
  };
  argument_repairs: Entry<ToolArgumentRepaired>[];
  /** The provider calls. */
  model: {
    attempts: Entry<ProviderAttempt>[];
    prompts: Entry<PromptMeasured>[];
    contexts: Entry<ContextPrepared>[];
  };
  kernel_observations: Entry<KernelObservation>[];
  workflow: {
    batches: Entry<WorkflowBatchSpawned>[];
    submissions: Entry<WorkflowNodesSubmitted>[];
    nodes: Entry<WorkflowNodeCompleted>[];
    completions: Entry<WorkflowCompleted>[];
  };
  rounds: Entry<RoundStarted | RoundPaced>[];
  groups: Entry<GroupMemberJoined | GroupBudgetCharged>[];
  summary_upgrades: Entry<SummaryUpgraded>[];
  semantic_archive: Entry<
    SemanticArchivePending | SemanticArchiveCompleted | SemanticArchiveFailed
  >[];
  counts: Record<string, number>;
  errors: {
    tool_errors: number;
    fatal_tool_errors: number;
    denied_tools: number;
    unknown_events: number;
    load_errors: number;
  };
  totals: RunTotals;
  unknown: { position: number; kind: string; json: string }[];
  load_errors: LogError[];
}

/** The state at one point without the per-event lists: what a time-travel
 * checkpoint holds (`SessionState.summary()`). */
/** `SessionIndex.turnSeries()`: each `TurnSummary` number, by column. */
export interface TurnSeries {
  life: Float64Array;
  turn: Float64Array;
  first_position: Float64Array;
  last_position: Float64Array;
  event_count: Float64Array;
  tokens: Float64Array;
  input_tokens: Float64Array;
  output_tokens: Float64Array;
  errors: Float64Array;
}

export interface SessionSummary {
  session_id: string | null;
  event_count: number;
  revision: number;
  run: SessionView["run"];
  status: SessionStatus;
  turns_used: number;
  total_tokens: U64;
  lives: Life[];
  processes: ProcessView[];
  current_capabilities: string[];
  tokens_by_operation: Record<string, U64>;
  counts: Record<string, number>;
  errors: SessionView["errors"];
  totals: RunTotals;
}

/** One tool's calls and failed results in a run (`RunTotals.tools`). */
export interface ToolTally {
  name: string;
  calls: number;
  errors: number;
}

/** Totals over a whole run: what a runs table sorts, filters and charts by. */
export interface RunTotals {
  /** Prompt sizes measured, each request's latest measurement in its turn. */
  input_tokens: U64;
  /** Completion token counts. */
  output_tokens: U64;
  /** Tool calls requested. */
  tool_calls: number;
  /** Models the run's route and its provider attempts named (at most 16), first seen first. */
  models: string[];
  /** Calls and failed results by tool (at most 256 tools), first called first. */
  tools: ToolTally[];
  /** The earliest provider attempt's start (Unix ms); null before any attempt. */
  first_ms: U64 | null;
  /** The latest provider attempt's end (Unix ms); null before any attempt. */
  last_ms: U64 | null;
}

/** An event as a streamed log folds it (`write`/`end` with `onEvent`). */
export interface FoldedEvent {
  /** Its 1-based position in the session. */
  position: number;
  kind: string;
  /** Its turn, for kinds that have one. */
  turn: number | null;
  /** Its JSON text as written (integers JS would round written as strings). */
  json: string;
}

// ---- The API ---------------------------------------------------------------

/** Every code an `AgentReplayError` or an edge error response carries
 * (the core's table, src/error.rs; `errorCodes()` lists it at run time). */
export type ErrorCode =
  | "invalid_input"
  | "invalid_request"
  | "invalid_log"
  | "invalid_event"
  | "invalid_observation"
  | "malformed_cursor"
  | "wrong_session"
  | "invalid_session_id"
  | "limit_exceeded"
  | "store_full"
  | "closed"
  | "forbidden"
  | "not_found"
  | "method_not_allowed"
  | "too_many_streams"
  | "unsupported_host"
  | "misdirected_request"
  | "unauthorized"
  | "storage_full"
  | "storage_unavailable"
  | "internal";

/**
 * Loads the WebAssembly, once, before anything else: needed in browsers and
 * bundles (`js/web.js`), which fetch the `.wasm` from beside the package's
 * JS unless given its URL, a `Response`, its bytes or a compiled
 * `WebAssembly.Module`.
 * Node, Deno, workerd and `require` load it on import: there it resolves at
 * once, so code shared between hosts may call it everywhere.
 */
export function init(
  wasm?: string | URL | Request | Response | BufferSource | WebAssembly.Module,
): Promise<void>;

/** The error table: each code, the HTTP status the edge answers it with,
 * and what it means. */
export function errorCodes(): { code: ErrorCode; status: number; description: string }[];

/** The HTTP status of an error code (500 for a code not in the table). */
export function httpStatusOf(code: ErrorCode | (string & {})): number;

/** Every error thrown by this package. */
export class AgentReplayError extends Error {
  readonly code: ErrorCode;
  /** For `invalid_log`: every error found, with positions. */
  readonly errors?: LogError[];
  constructor(code: ErrorCode, message: string, details?: { errors?: LogError[] });
}

// ---- Comparing runs --------------------------------------------------------

/** What a difference between two runs is about. */
export type DifferenceAspect =
  | "turn"
  | "call"
  | "message"
  | "arguments"
  | "result"
  | "error"
  | "tokens"
  | "status";
/** One side of a difference: the event that holds the value, and the value
 * (`null`: the side has nothing there; its position is then the event it
 * has at that point: its next call or turn, else the end of its turn or log). */
export interface DifferenceSide {
  position: number;
  value: string | null;
}
export interface Difference {
  aspect: DifferenceAspect;
  life: number;
  turn: number;
  /** The call's index among the turn's aligned calls (call, arguments, result, error). */
  call: number | null;
  a: DifferenceSide;
  b: DifferenceSide;
}
/** A turn as one run has it. */
export interface TurnSide {
  first_position: number;
  last_position: number;
  event_count: number;
  tool_calls: number;
  tokens: number;
}
/** One turn of either run, and what differs in it (in log order). */
export interface TurnComparison {
  life: number;
  turn: number;
  a: TurnSide | null;
  b: TurnSide | null;
  differences: Difference[];
}
export interface RunSide {
  event_count: number;
  status: SessionStatus;
  total_tokens: U64;
  /** The log's load errors: the good events are compared. */
  load_errors: LogError[];
}
/** Two runs compared (`compareRuns`). */
export interface RunComparison {
  /** No difference at all. */
  matches: boolean;
  /** The first difference of the first turn (in `(life, turn)` order) that has one. */
  first_divergence: Difference | null;
  difference_count: number;
  /** Every turn of either run, in `(life, turn)` order. */
  turns: TurnComparison[];
  a: RunSide;
  b: RunSide;
}
/** Two runs compared turn by turn (by life and turn), then tool call by tool
 * call (by order and tool name), with the first divergence. Each run is a log
 * (string or bytes, any framing), an array of events, or a SessionState
 * folded with its lists (not a checkpoint). A log's load errors are kept in
 * the result unless `strict`, which throws on the first. */
export function compareRuns(
  a: string | Uint8Array | LoggedEvent[] | SessionState,
  b: string | Uint8Array | LoggedEvent[] | SessionState,
  options?: LoadOptions,
): RunComparison;

/** Loads a log (JSON array, JSON Lines or stored entries). Tolerant by
 * default: every valid event, with the errors beside them. */
export function parseLog(input: string | Uint8Array, options?: LoadOptions): ParsedLog;

/** The kernel's exact OS snapshot. Throws `invalid_log` (with `errors`) if
 * the log has any error: a snapshot that skipped events would not be exact.
 * The events the fold reads are checked field by field, the others as JSON
 * objects with a kind; `validate: "all"` checks every event field by field. */
export function rebuildOsSnapshot(
  input: LoggedEvent[] | string | Uint8Array,
  options?: LoadOptions & { validate?: "folded" | "all" },
): OsSnapshot;

/**
 * Bytes allocated in WebAssembly memory for one input (`allocInput`): fill
 * them through `bytes` and hand `bytes` (or `bytes.subarray(0, n)`) to
 * `rebuildOsSnapshot`, `SessionState.apply`, `SessionIndex.apply` or
 * `SessionIndex.write`, which take them where they lie, with no copy; the
 * buffer is then used up. A view of it is valid until the next call into
 * the package (any call may grow the memory, which detaches every view):
 * take `bytes` again after one. A stale view, or a view of the memory that
 * does not start a live buffer, throws `invalid_input`.
 */
export class InputBuffer {
  private constructor();
  /** Bytes it holds (the most a view of it may give). */
  readonly capacity: number;
  /** A fresh view of its bytes in WebAssembly memory (what the memory held
   * there until filled: hand over only what you filled). */
  readonly bytes: Uint8Array;
  /** Frees a buffer not handed to a call. */
  free(): void;
}

/** Allocates an input buffer of `capacity` bytes (1 to 2^32 − 1), counted
 * against the memory limit (`limit_exceeded` past it). */
export function allocInput(capacity: number): InputBuffer;

/** The WebAssembly linear memory the host holds, the bytes allocated in it
 * now (linear memory never shrinks; allocated bytes do), the most allocated
 * during the last call the limit watched, and the memory limit. */
export function memoryUsage(): {
  wasm_memory_bytes: number;
  allocated_bytes: number;
  peak_bytes: number;
  limit_bytes: number;
};

/** Sets the memory limit of this WebAssembly instance in bytes allocated
 * (default 3 GiB), held while each call runs: a call past it throws
 * `limit_exceeded` instead of trapping, a SessionState or SessionIndex it was
 * folding is dropped, and a live append stops at the limit. */
export function setMemoryLimit(bytes: number): void;

/** The embedded sample session (JSON Lines; uses all 50 kinds). */
export function sampleLog(): string;

/** The event kinds this version knows, from the Rust kind table (frozen). */
export function eventKinds(): KindTable;

/** Incremental session state: the OS snapshot and the session view. */
export class SessionState {
  constructor(sessionId?: string, options?: LoadOptions);
  /** The state an observation (or a view, or either's JSON text) describes,
   * ready to fold the events after it. Throws `invalid_observation`. */
  static fromObservation(observation: Observation | SessionView | string): SessionState;
  /** Folds an event, events, or a whole log (string or bytes), in order. */
  apply(input: LoggedEvent | LoggedEvent[] | string | Uint8Array, options?: LoadOptions): this;
  /** Folds the next chunk of a log arriving in pieces; `onEvent` sees each event folded. */
  write(
    chunk: string | Uint8Array,
    options?: LoadOptions & { onEvent?: (event: FoldedEvent) => void },
  ): this;
  /** Ends a log written in chunks. */
  end(options?: { onEvent?: (event: FoldedEvent) => void }): {
    framing: Framing;
    events: number;
    errors: LogError[];
  };
  /** A light copy for time travel: folds on the OS snapshot and the summary,
   * not the per-event lists (its `view()` lists are empty). */
  checkpoint(): SessionState;
  summary(): SessionSummary;
  osSnapshot(): OsSnapshot;
  view(): SessionView;
  /** The session so far as an OTLP trace (docs/otlp.md): OTLP/JSON, or
   * OTLP/protobuf bytes with `format: "protobuf"`. */
  toOtlp(options: OtlpStateOptions & { format: "protobuf" }): Uint8Array;
  toOtlp(options?: OtlpStateOptions & { format?: "json" }): OtlpTrace;
  readonly eventCount: number;
  readonly revision: number;
  free(): void;
  [Symbol.dispose](): void;
}

// ---- OpenTelemetry export (docs/otlp.md) -----------------------------------

/** An OTLP/JSON attribute value: 64-bit integers as decimal strings. */
export type OtlpAnyValue =
  | { stringValue: string }
  | { boolValue: boolean }
  | { intValue: string }
  | { doubleValue: number }
  | { arrayValue: { values: OtlpAnyValue[] } };

export interface OtlpKeyValue {
  key: string;
  value: OtlpAnyValue;
}

export interface OtlpSpanEvent {
  /** Nanoseconds since the Unix epoch, as a decimal string. */
  timeUnixNano: string;
  name: string;
  attributes: OtlpKeyValue[];
}

/** A link to another span of the trace: a sub-agent's workflow dependency. */
export interface OtlpLink {
  traceId: string;
  spanId: string;
  attributes: OtlpKeyValue[];
}

export interface OtlpSpan {
  /** 32 hex digits. */
  traceId: string;
  /** 16 hex digits. */
  spanId: string;
  /** Absent on the run's root span. */
  parentSpanId?: string;
  name: string;
  /** 1 internal, 3 client (a model call). */
  kind: 1 | 3;
  startTimeUnixNano: string;
  endTimeUnixNano: string;
  attributes: OtlpKeyValue[];
  events?: OtlpSpanEvent[];
  links?: OtlpLink[];
  /** 0 unset, 2 error. */
  status: { code: 0 | 2; message?: string };
}

/** An OTLP `ExportTraceServiceRequest` in its JSON encoding. */
export interface OtlpTrace {
  resourceSpans: {
    resource: { attributes: OtlpKeyValue[] };
    scopeSpans: { scope: { name: string; version: string }; spans: OtlpSpan[] }[];
  }[];
}

export interface OtlpStateOptions {
  /** Message content (goal, system prompt, replies, tool results as the
   * model read them): off by default. */
  content?: boolean;
  /** Where a log with no recorded time starts: Unix milliseconds, a Date or
   * an ISO 8601 string. Without it, such a log starts at the Unix epoch. A
   * log with recorded times keeps them. */
  startTime?: number | Date | string;
  /** "json" (the default): OTLP/JSON as an object; "protobuf": OTLP/protobuf
   * bytes (`application/x-protobuf`). */
  format?: "json" | "protobuf";
}

export interface OtlpOptions extends LoadOptions, OtlpStateOptions {
  /** The session's id: the trace id derives from it and the run id. */
  sessionId?: string;
}

/** A log as an OTLP trace under the OpenTelemetry GenAI conventions:
 * OTLP/JSON, or OTLP/protobuf bytes with `format: "protobuf"`. */
export function toOtlp(
  log: LoggedEvent[] | string | Uint8Array,
  options: OtlpOptions & { format: "protobuf" },
): Uint8Array;
export function toOtlp(
  log: LoggedEvent[] | string | Uint8Array,
  options?: OtlpOptions & { format?: "json" },
): OtlpTrace;

/** What `SessionIndex.filter` keeps; a list left out keeps any. */
export interface IndexFilter {
  /** Kinds, or `kernel_observation/<observation_kind>`. */
  kinds?: string[];
  /** The viewer's categories (`KindInfo.category`, or "unknown"). */
  categories?: string[];
  /** deepstrike's kernel categories. */
  kernelCategories?: string[];
  /** deepstrike's primitives. */
  primitives?: string[];
  /** Text the event's JSON must hold (ASCII letters in either case). */
  query?: string;
}

/** The state a `SessionIndex` gives for a position. */
export interface IndexedState {
  position: number;
  summary: SessionSummary;
  osSnapshot: OsSnapshot;
  /** With `{tail}`: how many items each cut list had, by list name
   * (`lists`), by agent id (`history`) and in `tokens_by_operation`. */
  totals?: {
    lists: Record<string, number>;
    history: Record<string, number>;
    tokens_by_operation: number;
  };
}

/**
 * A paged index of a session log, for logs too large to read out as a view
 * (docs/api.md, "Large logs"): the OS snapshot, the summary and the per-turn
 * figures, each event's text kept once, and answers by position.
 */
/** How far a `SessionIndex`'s deferred check got. */
export interface CheckProgress {
  /** Every event up to this position (1-based) is checked. */
  checkedTo: number;
  /** The log has ended and every event is checked: every load error is
   * reported, and the summary, turns and positions are final. */
  done: boolean;
}

export class SessionIndex {
  /** `deferCheck`: non-strict loads defer the typed check of the events no
   * fold reads to `checkStep` (docs/api.md, "The deferred check"). */
  constructor(sessionId?: string, options?: LoadOptions & { deferCheck?: boolean });
  /** Indexes a whole log (any framing); returns the index, as
   * SessionState.apply returns the state (its load errors: loadErrors()). */
  apply(input: string | Uint8Array, options?: LoadOptions): this;
  /** Makes room at once for the index of a log of about `bytes` bytes
   * about to be written (the memory grows in one step; within the memory
   * limit). */
  reserve(bytes: number): this;
  /** Indexes the next chunk of a log arriving in pieces. */
  write(chunk: string | Uint8Array, options?: LoadOptions): this;
  /** Ends a log written in chunks. */
  end(): { framing: Framing; events: number; errors: LogError[] };
  /** Checks up to `budget` (4096) more events whose check was deferred. */
  checkStep(budget?: number): CheckProgress;
  /** How far the deferred check got, checking no more. */
  checkProgress(): CheckProgress;
  readonly eventCount: number;
  /** The events at positions `from` to `to` (1-based, inclusive, clamped). */
  events(from: number, to: number): FoldedEvent[];
  /** The events at the given positions, in that order (outside the log: skipped). */
  eventsAt(positions: ArrayLike<number>): FoldedEvent[];
  /** The event at a 1-based position, or null. */
  event(position: number): FoldedEvent | null;
  /** The positions of the events the filter keeps, in order. */
  filter(filter?: IndexFilter): Uint32Array;
  /** Up to `limit` (100) positions from `from` (1) of events whose JSON holds
   * `query`, and where to continue (`null` at the end). */
  search(
    query: string,
    options?: { from?: number; limit?: number },
  ): { positions: number[]; next: number | null };
  /** The state as of a position (0: before the first event); with `tail`,
   * each list that grows with the log cut to its last `tail` items. */
  stateAt(position: number, options?: { tail?: number }): IndexedState;
  /** The transcript entries of the events `from` to `to` folded on their own
   * (as if the log began at `from`; lives count from it), the last `last`
   * of them, at the log's positions. */
  transcript(from: number, to: number, options?: { last?: number }): TranscriptEntry[];
  summary(): SessionSummary;
  osSnapshot(): OsSnapshot;
  /** The per-turn figures, without the events. */
  turns(): TurnSummary[];
  /** The per-turn numbers as columns (what a chart draws, with no object
   * per turn); counts past 2^53 are rounded (`turns()` has them exact). */
  turnSeries(): TurnSeries;
  loadErrors(): LogError[];
  /** `kernel_observation` events counted by `observation_kind`. */
  observationKinds(): Record<string, number>;
  memory(): { retained_bytes: number; checkpoints: number; checkpoint_spacing: number };
  free(): void;
  [Symbol.dispose](): void;
}

/** A stored entry as `StoredEntryReader` gives it. */
export interface StoredEntry {
  /** A decimal string past 2^53-1 (docs/api.md, "Big integers"). */
  seq: number | string;
  /** The event's JSON text, as stored (not parsed as an event). */
  text: string;
  /** The byte offset of the line's start in the stream. */
  offset: number;
  /** The line's bytes, its line break included. */
  length: number;
  /** A keyed batch's key, on its first line. */
  key?: Json;
  /** How many events the keyed batch holds, beside its key. */
  count?: number;
}
/** A load error of a stored-entry line, with the `offset` of the line's start. */
export interface StoredEntryError extends LogError {
  offset: number;
}
/** What `StoredEntryReader.write` and `.end` read. */
export interface StoredEntries {
  entries: StoredEntry[];
  errors: StoredEntryError[];
}

/**
 * Stored entries (`{"seq":N,"event":{…}}` lines) read as entries, in
 * chunks, through the core's reader (docs/api.md, "Stored entries").
 */
export class StoredEntryReader {
  /** `seq` and `offset`: the seq expected of the first line and the byte
   * offset it starts at (both 0 by default). */
  constructor(options?: { seq?: number; offset?: number });
  /** The entries of the whole lines the chunk completes. */
  write(chunk: string | Uint8Array): StoredEntries;
  /** The unterminated last line's entry, or its error (`truncated`: cut short). */
  end(): StoredEntries;
  free(): void;
  [Symbol.dispose](): void;
}

// ---- Live replay (live-replay.md) ------------------------------------------

/** An event as replayed or delivered live. `json` is its original text
 * (forward it byte for byte); `event` is parsed from it on first use
 * (`JSON.stringify` includes it). */
export class ObservedEvent {
  private constructor();
  readonly session_id: string;
  readonly revision: number;
  readonly position: number;
  readonly cursor: string;
  readonly json: string;
  readonly event: SessionEvent;
  toJSON(): {
    session_id: string;
    revision: number;
    position: number;
    cursor: string;
    event: SessionEvent;
    json: string;
  };
}
export type GapReason = "trimmed" | "unavailable";
export interface Lagged {
  type: "lagged";
  dropped: number;
  resume_cursor: string;
}
export interface LiveReplayGap {
  session_id: string;
  requested_cursor: string;
  latest_cursor: string;
  latest_revision: number;
  reason: GapReason;
}
export interface Observation {
  session_id: string;
  revision: number;
  cursor: string;
  state: SessionView;
}
export interface GapItem {
  type: "gap";
  gap: LiveReplayGap;
  observation: Observation;
}

export interface ReplayStoreOptions {
  /** Events kept per session (default 2048). */
  maxEventsPerSession?: number;
  /** Events older than this are trimmed (default 120000 ms; exactly this old is kept). */
  maxAgeMs?: number;
  /** The largest event accepted, in bytes of JSON (default 1 MiB); larger: `limit_exceeded`. */
  maxEventBytes?: number;
  /** The most sessions held (default 10000); past it the least recently active
   * session without subscribers is evicted (its cursors then get `unavailable`). */
  maxSessions?: number;
  /** The budget for retained events across sessions, in bytes of JSON plus 32 per
   * event (default 64 MiB); past it the least recently active sessions are evicted or trimmed. */
  maxTotalBytes?: number;
  /** The clock, in milliseconds (default `Date.now`). */
  now?: () => number;
  /** This store's lifetime id (default: 128 random bits, base64url). Reuse one
   * only if history and positions were preserved across a restart. */
  incarnation?: string;
}

/** A cursor's parts, for a client placing what it receives (an SSE
 * message's id is a cursor). Throws `malformed_cursor`. */
export function parseCursor(cursor: string): {
  incarnation: string;
  revision: number;
  position: number;
  session_id: string;
};

/** The bounded in-memory live replay buffer of many sessions. */
export class ReplayStore {
  constructor(options?: ReplayStoreOptions);
  readonly incarnation: string;
  append(sessionId: string, event: LoggedEvent | string, revision?: number): ObservedEvent;
  /** Appends every valid event the store accepts; `errors` lists the load
   * errors and each event refused (`limit_exceeded`), in log order. */
  appendLog(
    sessionId: string,
    input: string | Uint8Array,
  ): { appended: number; errors: LogError[]; cursor: string };
  currentCursor(sessionId: string, revision?: number): string;
  replayAfter(
    cursor: string,
  ): { type: "replayed"; events: ObservedEvent[] } | { type: "gap"; reason: GapReason };
  subscribe(
    cursor: string,
  ): { type: "subscribed"; subscription: Subscription } | { type: "gap"; reason: GapReason };
  /** Whether the store holds the session now: false for one it never saw
   * and for one it evicted, whose handles can be freed. */
  holds(sessionId: string): boolean;
  trimSession(sessionId: string): void;
  free(): void;
  [Symbol.dispose](): void;
}

/** Replay then live events of one session. */
export class Subscription {
  /** The next pending item; `undefined` when nothing is pending. */
  next(): ObservedEvent | Lagged | undefined;
  /** True once closed (or its store freed) with nothing left to read. */
  readonly closed: boolean;
  close(): void;
  [Symbol.asyncIterator](): AsyncIterator<ObservedEvent | Lagged>;
}

/** A session subscription: replay then live, gaps and lag recovered. */
export interface SessionSubscription extends AsyncIterable<ObservedEvent | GapItem> {
  next(): ObservedEvent | GapItem | undefined;
  readonly closed: boolean;
  close(): void;
}

/** One session: its full state and its live buffer in a (shared) store. */
export class ReplaySession {
  constructor(sessionId: string, options?: { store?: ReplayStore } & ReplayStoreOptions);
  readonly sessionId: string;
  readonly store: ReplayStore;
  /** A session restored from its storage at the positions its events were
   * stored at, in `store` (of the incarnation they were stored under):
   * `events` (JSON Lines) follow `base`, `times` say when each was stored,
   * the state is the checkpoint's with the events after it folded on
   * (without a checkpoint, `base` is 0); the newest `retain` form the live window. */
  static restore(
    sessionId: string,
    options: {
      store: ReplayStore;
      base?: { position: number; revision: number };
      events?: string | Uint8Array;
      times?: number[];
      checkpoint?: { position: number; state: SessionView | string };
      retain?: number;
    },
  ): ReplaySession;
  /** What `append` would take, checked, appending nothing: its events as
   * JSON Lines, one event a line. */
  check(
    input: LoggedEvent | LoggedEvent[] | string | Uint8Array,
    options?: { maxEvents?: number },
  ): string;
  /** Appends an event, events, or a log: all or nothing; `maxEvents`
   * refuses more events than that at once (`limit_exceeded`). */
  append(
    input: LoggedEvent | LoggedEvent[] | string | Uint8Array,
    options?: { maxEvents?: number },
  ): ObservedEvent[];
  /** Appends the events of the next chunk of a log arriving in pieces,
   * each read once (stored entries' `seq` checked across chunks); not all
   * or nothing: an event the store refuses stops the log there, and this
   * and every later `write` or `end` throw. */
  write(chunk: string | Uint8Array): this;
  /** Ends a log written in chunks: appends its unterminated last line. */
  end(): this;
  observe(): Observation;
  /** The state without its per-event lists (as `SessionState.summary()`). */
  summary(): SessionSummary;
  resume(cursor: string): { type: "replayed"; events: ObservedEvent[]; cursor: string } | GapItem;
  subscribe(cursor: string): SessionSubscription;
  free(): void;
  [Symbol.dispose](): void;
}

/** What a storage hands back for a restart (docs/edge.md, durable sessions). */
export interface StoredSession {
  /** The position and revision just before the first of `events`. */
  base: { position: number; revision: number };
  /** The stored events' JSON texts after `base`, in order. */
  events: string[];
  /** When each event was stored (ms); a missing one counts as now. */
  times?: number[];
  /** The state at a position among the events (an observation's state, or its JSON). */
  checkpoint?: { position: number; state: SessionView | string };
  /** The keyed batches among `events`: key, first position, event count. */
  keys?: { key: string; position: number; count: number }[];
}

/** Where durable sessions keep their events (`fileStore`, Durable Object SQLite storage). */
export interface SessionStorage {
  /** The incarnation of every cursor over this storage: made once, then kept. */
  incarnation(): Promise<string>;
  /** The session as stored, from at or before the newest `retainEvents`; undefined if none. */
  load(sessionId: string, options: { retainEvents: number }): Promise<StoredSession | undefined>;
  /** Stores events at `position` on, with `key` when given (durable with
   * the batch: one write or transaction); resolves once they are durable,
   * throws when nothing is stored. */
  append(
    sessionId: string,
    batch: { position: number; events: string[]; at: number; key?: string },
  ): Promise<void>;
  /** Takes back the batch just appended at `position` (and its key): the
   * live session refused it after it was stored. */
  undo(sessionId: string, batch: { position: number }): Promise<void>;
  /** Stores the state at `position`; what is before `keepFrom` no restart needs. */
  checkpoint(
    sessionId: string,
    checkpoint: { position: number; revision: number; state: string; at: number; keepFrom: number },
  ): Promise<void>;
}

/**
 * A storage many replicas share (`postgresStore`): it assigns positions
 * itself, under a lock of the session, and is the truth every replica's
 * live sessions catch up with (`tail`, rung by `subscribe`). It takes no
 * batch back, so it has no `undo`.
 */
export interface SharedSessionStorage {
  incarnation(): Promise<string>;
  load(sessionId: string, options: { retainEvents: number }): Promise<StoredSession | undefined>;
  /** Stores the events after the session's last stored position (the
   * batch's `position` is the caller's guess): the position and count of
   * the batch, or of the one stored before under `key` (`replayed`). */
  append(
    sessionId: string,
    batch: { position: number; events: string[]; at: number; key?: string },
  ): Promise<{ position: number; count: number; replayed?: true }>;
  checkpoint(
    sessionId: string,
    checkpoint: { position: number; revision: number; state: string; at: number; keepFrom: number },
  ): Promise<void>;
  /** The stored events after `after`, in order, maybe not all of them:
   * `position` is that of the first. */
  tail(sessionId: string, after: number): Promise<{ position: number; events: string[] }>;
  /** The last stored position of each session of `sessionIds` it holds:
   * what a poll asks first, so that it reads on only the sessions behind. */
  heads?(sessionIds: string[]): Promise<Map<string, number>>;
  /** Calls `onDoorbell(sessionId)` when a session may have new events
   * (`undefined`: any may have); returns what stops it. */
  subscribe?(onDoorbell: (sessionId: string | undefined) => void): () => void;
}

/** What a restart restores into the live window (by default the store's
 * maxEventsPerSession and maxAgeMs, no byte bound). */
export interface Retention {
  events?: number;
  /** Of the events' JSON text. */
  bytes?: number;
  ageMs?: number;
}

/** A session whose appends are stored before they are applied. */
export class DurableSession {
  readonly sessionId: string;
  readonly session: ReplaySession;
  readonly busy: boolean;
  /** When it was last opened, read or appended to (the store's clock). */
  usedAt: number;
  /** As ReplaySession.append, resolving once the events are stored. With
   * `key` (1 to 256 characters, no control character), a batch whose key
   * is remembered is not stored again: it resolves to the first attempt's
   * events, `replayed` set (events the live window no longer holds come
   * with their position and cursor, `json` undefined). */
  append(
    input: LoggedEvent | LoggedEvent[] | string | Uint8Array,
    options?: { maxEvents?: number; key?: string },
  ): Promise<ObservedEvent[] & { replayed?: true }>;
  observe(): Observation;
  resume(cursor: string): { type: "replayed"; events: ObservedEvent[]; cursor: string } | GapItem;
  subscribe(cursor: string): SessionSubscription;
  /** Catches up with a shared storage's table (what other replicas appended). */
  refresh(): Promise<void>;
  free(): void;
}

/** The sessions of a storage over one ReplayStore (the edge handler's `storage`). */
export class DurableSessions {
  constructor(options: {
    storage: SessionStorage | SharedSessionStorage;
    store?: ReplayStore;
    storeOptions?: ReplayStoreOptions;
    retention?: Retention;
    /** Events between stored checkpoints (default 1000). */
    checkpointEvery?: number;
    /** A session nobody follows, unused this long, leaves memory (default 300000 ms). */
    idleMs?: number;
    /** Batch keys remembered per session, newest first (default 1000). */
    maxKeys?: number;
  });
  readonly storage: SessionStorage | SharedSessionStorage;
  /** True for a SharedSessionStorage: positions are its table's. */
  readonly shared: boolean;
  readonly retention: Required<Retention>;
  readonly checkpointEvery: number;
  readonly maxKeys: number;
  /** Sessions kept in memory now. */
  readonly size: number;
  store(): Promise<ReplayStore>;
  /** The session restored from storage (empty when `create` and none is stored). */
  load(sessionId: string, create?: boolean): Promise<DurableSession | undefined>;
  /** The session to append to or stream: kept, loaded, or made. */
  open(sessionId: string): Promise<DurableSession>;
  /** `answer(session)`; for a session storage does not hold, from a transient empty one. */
  read<T>(sessionId: string, answer: (session: DurableSession | ReplaySession) => T): Promise<T>;
  /** Frees the kept session if the store no longer holds it. */
  release(sessionId: string): void;
  /** Stops listening to a shared storage's doorbell. */
  close(): void;
}
