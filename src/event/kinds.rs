//! The body of each of the 50 event kinds. The 32 of deepstrike-core
//! 0.2.60 field for field as the kernel writes them; the 18 the runtime
//! (deepstrike 0.2.77) adds with only the fields the view reads (its
//! prompt measurements, and turns), the rest kept in the event's text. The
//! `kind` tag lives on `SessionEvent`; unknown top-level fields are ignored
//! (the event's original text keeps them).

use super::fields::{table, Body, FieldSpec, FieldType, Object, Shape, Slots, Value};
use super::text::names;
use serde::Serialize;

use super::content::{ContentPart, Message, ProviderReplay, ToolCall, ToolResult};
use super::records::{CancellationReason, MemoryKind, MemoryRecall, MemoryScope, RollbackReason};
use super::Str;

table!(RunStarted<'a> {
    run_id: Str<'a>,
    goal: Str<'a>,
    criteria: Vec<Str<'a>> = default,
    agent_id: Option<Str<'a>> = default,
    system_prompt: Option<Str<'a>> = default,
    attachments: Vec<ContentPart<'a>> = default,
});

/// An assistant completion. Also accepts the Node SDK's flat shape
/// `{turn, content, tool_calls, token_count?}`, normalised to `message`.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct LlmCompleted<'a> {
    pub turn: u32,
    pub message: Message<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider_replay: Option<ProviderReplay<'a>>,
}

impl<'a> Body<'a> for LlmCompleted<'a> {
    const SHAPE: Shape = Shape::Object(Object {
        // What `tagged::read_via_wire`, which read it before, expected.
        expecting: "an object",
        names: &["turn", "message", "content", "tool_calls", "token_count", "provider_replay"],
        fields: &[
            FieldSpec { ty: FieldType::U32, nullable: false, required: true },
            FieldSpec { ty: FieldType::Message, nullable: true, required: false },
            FieldSpec { ty: FieldType::Content, nullable: true, required: false },
            FieldSpec { ty: FieldType::Calls, nullable: true, required: false },
            FieldSpec { ty: FieldType::U32, nullable: true, required: false },
            FieldSpec { ty: FieldType::Replay, nullable: true, required: false },
        ],
        closed: false,
        finish: Some(|slots| {
            // A field written `null` is as good as missing here.
            let message = matches!(slots.get(1), Some(Value::Message(_)));
            let content = matches!(slots.get(2), Some(Value::Content(_)));
            let tool_calls = matches!(slots.get(3), Some(Value::Calls(_)));
            match (message, content, tool_calls) {
                (true, _, _) | (false, true, true) => Ok(()),
                (false, true, false) => Err("missing field `tool_calls`".into()),
                (false, false, _) => Err("missing field `message`".into()),
            }
        }),
    });

    fn build(slots: &mut Slots<'a>) -> Self {
        let turn = slots.next();
        let message: Option<Message<'a>> = slots.next();
        let content: Option<super::Content<'a>> = slots.next();
        let tool_calls: Option<Vec<ToolCall<'a>>> = slots.next();
        let token_count = slots.next();
        // `finish` saw `message`, or `content` and `tool_calls`.
        let message = message.unwrap_or_else(|| Message {
            role: super::Role::Assistant,
            content: content.unwrap_or(super::Content::Parts(Vec::new())),
            tool_calls: tool_calls.unwrap_or_default(),
            token_count,
        });
        LlmCompleted { turn, message, provider_replay: slots.next() }
    }
}

table!(ToolRequested<'a> { turn: u32, calls: Vec<ToolCall<'a>> });

table!(ToolCompleted<'a> { turn: u32, results: Vec<ToolResult<'a>> });

table!(Compressed<'a> {
    turn: u32,
    archived_seq_range: (u64, u64),
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary_tokens: Option<u32> = default,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    preserved_refs: Vec<Str<'a>> = default,
});

table!(PageOut<'a> {
    turn: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    action: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    summary: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    tier_hint: Option<Str<'a>> = default,
    message_count: u32 = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    archive_ref: Option<Str<'a>> = default,
});

table!(PageIn { turn: u32, entry_count: u32 });

table!(RunTerminal<'a> {
    reason: Str<'a>,
    turns_used: u32,
    total_tokens: u64,
});

table!(ToolArgumentRepaired<'a> {
    turn: u32,
    tool: Str<'a>,
    original_arguments: Str<'a>,
    repaired_arguments: Str<'a>,
});

table!(PermissionRequested<'a> {
    turn: u32,
    tool: Str<'a>,
    arguments: Str<'a>,
    reason: Option<Str<'a>> = default,
});

/// Who resolved a permission request. The kernel types it as a plain
/// string: the values the runtimes write are named, any other is kept in
/// `Other`, strict or not.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Responder {
    User,
    PolicyGate,
    /// The host's handler answered (a bool, or a response without a responder).
    Host,
    /// The host's handler raised.
    PermissionHandler,
    Other(String),
}

names!(open Responder, strict_refuses: false {
    User = "user",
    PolicyGate = "policy_gate",
    Host = "host",
    PermissionHandler = "permission_handler",
});

table!(PermissionResolved { turn: u32, approved: bool, responder: Responder });

table!(ToolDenied<'a> { turn: u32, call_id: Str<'a>, tool_name: Str<'a>, reason: Str<'a> });

table!(CapabilityChanged<'a> {
    turn: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    added: Vec<Str<'a>> = default,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    removed: Vec<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    change_kind: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    capability_id: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    version: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    mounted_by: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    mount_reason: Option<Str<'a>> = default,
});

table!(ContextRenewed<'a> { turn: u32, sprint: u32, handoff_ref: Str<'a> });

table!(Suspended<'a> {
    turn: u32,
    reason: Str<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pending_calls: Vec<Str<'a>> = default,
});

table!(Resumed<'a> {
    turn: u32,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    approved: Vec<Str<'a>> = default,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    denied: Vec<Str<'a>> = default,
});

table!(ToolGated<'a> { turn: u32, call_id: Str<'a>, tool: Str<'a>, reason: Str<'a> });

table!(SignalDeliveryDisposed<'a> {
    turn: u32,
    operation_id: Str<'a>,
    delivery_id: Str<'a>,
    attempt: u32,
    signal_id: Str<'a>,
    disposition: Str<'a>,
    queue_depth: u32,
});

table!(BudgetExceeded<'a> {
    turn: u32,
    operation_id: Str<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    reservation_id: Option<Str<'a>> = default,
    budget: Str<'a>,
});

table!(BudgetUsageReported<'a> {
    turn: u32,
    operation_id: Str<'a>,
    reservation_id: Str<'a>,
    tokens: u64,
    subagents: u32,
    rounds: u32,
});

table!(OperationCancelled<'a> {
    turn: u32,
    operation_id: Str<'a>,
    reason: CancellationReason,
    pending_call_ids: Vec<Str<'a>> = default,
});

table!(CheckpointTaken { turn: u32, history_len: u32 });

table!(EntropySample {
    turn: u32,
    score: f64,
    rho: f64,
    repeat_pressure: f64,
    failure_rate: f64,
    rollbacks_in_window: u32,
    window_turns: u32,
});

table!(EntropyAlert { turn: u32, score: f64, threshold: f64 });

table!(Rollbacked<'a> {
    turn: u32,
    checkpoint_history_len: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    reason: Option<RollbackReason<'a>> = default,
});

// deepstrike-core 0.2.60 writes (and strictly requires) `parent_session_id`;
// the SDKs write `parent_task_id` instead (the spawning task: `root` or an
// agent id).
table!(AgentProcessChanged<'a> {
    turn: u32,
    agent_id: Str<'a>,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_session_id: Option<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    parent_task_id: Option<Str<'a>> = default,
    role: Str<'a>,
    isolation: Str<'a>,
    context_inheritance: Str<'a>,
    state: Str<'a>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    permitted_capability_ids: Vec<Str<'a>> = default,
    #[serde(skip_serializing_if = "Option::is_none")]
    result_termination: Option<Str<'a>> = default,
});

table!(MilestoneAdvanced<'a> {
    turn: u32,
    phase_id: Str<'a>,
    capabilities_unlocked: Vec<Str<'a>> = default,
});

table!(MilestoneBlocked<'a> { turn: u32, phase_id: Str<'a>, reason: Str<'a> });

table!(MemoryWritten<'a> {
    turn: u32,
    record_id: Str<'a>,
    scope: MemoryScope<'a>,
    memory_kind: MemoryKind,
    name: Str<'a>,
    size_bytes: u32,
});

table!(MemoryQueried<'a> {
    turn: u32,
    scope: MemoryScope<'a>,
    query: Str<'a>,
    requested_k: u64,
    requires_async_response: bool,
});

table!(MemoryValidationFailed<'a> { turn: u32, record_id: Str<'a>, error: Str<'a> });

table!(MemoryRetrievalResult<'a> { hits: Vec<MemoryRecall<'a>> });

// ---- The kinds deepstrike 0.2.77 adds (docs/spec/deepstrike-0.2.77.md) ----

table!(
    /// A prompt's size, measured before the provider call (an estimate) and
    /// after it (the provider's count), both for the same request.
    PromptMeasured<'a> {
        turn: u32,
        measurement: PromptMeasurement<'a> = default,
    }
);

table!(
    #[derive(Default)]
    PromptMeasurement<'a> {
        /// The request measured: a later measurement of it replaces the earlier.
        request_fingerprint: Str<'a> = default,
        input_tokens: u64 = default,
    }
);

table!(
    /// The body of a kind the view reads only the turn of.
    Turned { turn: u32 }
);

/// The body of a kind the view reads nothing of: checked to be JSON, the
/// whole event kept as written.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Untyped {}

impl Body<'_> for Untyped {
    const SHAPE: Shape = Shape::Any;

    fn build(_: &mut Slots<'_>) -> Self {
        Untyped {}
    }
}

// The other 17 share those two bodies: each typed body of its own costs the
// .wasm its own deserializer, for fields nothing here reads (their text and
// js/index.d.ts give them whole).

/// `{turn, effect_id, preparation}`: the preparation lists the whole history.
pub type ContextPrepared = Turned;
/// `{turn, observation_kind, raw}`: an observation the runtime maps to no kind.
pub type KernelObservation = Turned;
/// `{turn, nodes, base_index?, submitter_agent_id?}`.
pub type WorkflowNodesSubmitted = Turned;
/// `{turn, node_count, node_ids}`.
pub type WorkflowBatchSpawned = Turned;
/// `{turn, agent_id, status, termination, output?, ...}`.
pub type WorkflowNodeCompleted = Turned;
/// `{turn, node_outcomes, total_nodes}`.
pub type WorkflowCompleted = Turned;
/// `{turn, record_id, error}`.
pub type MemoryWriteFailed = Turned;
/// `{turn, scope, query, error}`.
pub type MemoryQueryFailed = Turned;
/// `{effect_id, attempt_seq, route, request_fingerprint, status, ...}` (no turn).
pub type ProviderAttempt = Untyped;
/// `{round, goal}`: a loop round begins (1-based).
pub type RoundStarted = Untyped;
/// `{round, action: continue|sleep|stop, reason, delay_ms?, wake_at_ms?, coerced_from?}`.
pub type RoundPaced = Untyped;
/// `{session_id, role, member_kind: peer|vehicle}`.
pub type GroupMemberJoined = Untyped;
/// `{tokens, subagents, rounds}`.
pub type GroupBudgetCharged = Untyped;
/// `{compressed_seq, summary}`.
pub type SummaryUpgraded = Untyped;
/// `{effect_id, action}`.
pub type SemanticArchivePending = Untyped;
/// `{effect_id, record_id}`.
pub type SemanticArchiveCompleted = Untyped;
/// `{effect_id, error}`.
pub type SemanticArchiveFailed = Untyped;
