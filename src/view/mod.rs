//! The session view: everything a person needs to understand a run, folded
//! incrementally from the events (run header, status, turns, transcript,
//! processes, permissions, budgets, signals, capabilities, milestones,
//! entropy, checkpoints, memory, counts, unknown kinds). Records that are
//! an event as it happened keep the event itself (`Entry`), as written
//! (integers beyond 2^53-1 as strings).

mod raw;
mod restore;
mod transcript;

use std::collections::{BTreeMap, HashMap};

use serde::Serialize;

use crate::event::{SessionEvent, Str};
use crate::json::JsonText;
use crate::log::LogError;
pub use restore::os_snapshot_of;
pub use transcript::{ToolOutcome, TranscriptEntry};

/// An event at its 1-based position in the session.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Entry {
    pub position: u64,
    pub event: JsonText,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RunHeader {
    pub position: u64,
    pub run_id: String,
    pub goal: String,
    pub criteria: Vec<String>,
    pub agent_id: Option<String>,
    pub system_prompt: Option<String>,
    pub attachment_count: usize,
}

/// Where the run stands now.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "state", rename_all = "snake_case")]
pub enum Status {
    NotStarted,
    Running,
    Suspended { position: u64, turn: u32, reason: String, pending_calls: Vec<String> },
    Terminal { position: u64, reason: String, turns_used: u32, total_tokens: u64 },
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct TurnSummary {
    pub turn: u32,
    pub first_position: u64,
    pub last_position: u64,
    pub event_count: u64,
    pub kinds: BTreeMap<String, u64>,
    pub tool_calls: Vec<String>,
    pub tokens: u64,
    pub errors: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessTransition {
    pub position: u64,
    pub turn: u32,
    pub state: String,
    pub result_termination: Option<String>,
}

/// A sub-agent with its latest fields and every state it went through.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProcessView {
    pub agent_id: String,
    pub parent_session_id: String,
    pub role: String,
    pub isolation: String,
    pub context_inheritance: String,
    pub state: String,
    pub permitted_capability_ids: Vec<String>,
    pub result_termination: Option<String>,
    pub first_turn: u32,
    pub last_turn: u32,
    pub history: Vec<ProcessTransition>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionResolution {
    pub position: u64,
    pub approved: bool,
    pub responder: String,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct PermissionRequest {
    pub position: u64,
    pub turn: u32,
    pub tool: String,
    pub arguments: String,
    pub reason: Option<String>,
    /// Filled by the next `permission_resolved`, oldest request first.
    pub resolution: Option<PermissionResolution>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Permissions {
    pub requests: Vec<PermissionRequest>,
    pub gated: Vec<Entry>,
    pub denied: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Budgets {
    pub usage: Vec<Entry>,
    pub exceeded: Vec<Entry>,
    /// Latest reported tokens per operation.
    pub tokens_by_operation: BTreeMap<String, u64>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Capabilities {
    /// The capability set now, in the order capabilities were first added.
    pub current: Vec<String>,
    pub history: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Entropy {
    pub samples: Vec<Entry>,
    pub alerts: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ContextView {
    pub compressions: Vec<Entry>,
    pub page_outs: Vec<Entry>,
    pub page_ins: Vec<Entry>,
    pub renewals: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct MemoryView {
    pub writes: Vec<Entry>,
    pub queries: Vec<Entry>,
    pub validation_failures: Vec<Entry>,
    pub retrievals: Vec<Entry>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct ErrorCounts {
    pub tool_errors: u64,
    pub fatal_tool_errors: u64,
    pub denied_tools: u64,
    pub unknown_events: u64,
    pub load_errors: u64,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct UnknownView {
    pub position: u64,
    pub kind: String,
    pub json: String,
}

/// The rich read view of a session. Its JSON shape is the `SessionView`
/// type of the package's TypeScript declarations.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct SessionView {
    pub session_id: Option<String>,
    pub event_count: u64,
    /// The largest turn seen (0 before any).
    pub revision: u64,
    pub run: Option<RunHeader>,
    pub status: Status,
    pub turns_used: u32,
    /// `run_terminal`'s total, or until then the sum of reported token counts.
    pub total_tokens: u64,
    pub turns: Vec<TurnSummary>,
    pub transcript: Vec<TranscriptEntry>,
    pub processes: Vec<ProcessView>,
    pub permissions: Permissions,
    pub budgets: Budgets,
    pub signals: Vec<Entry>,
    pub cancellations: Vec<Entry>,
    pub capabilities: Capabilities,
    pub milestones: Vec<Entry>,
    pub entropy: Entropy,
    pub checkpoints: Vec<Entry>,
    pub rollbacks: Vec<Entry>,
    pub context: ContextView,
    pub memory: MemoryView,
    pub argument_repairs: Vec<Entry>,
    pub counts: BTreeMap<String, u64>,
    pub errors: ErrorCounts,
    pub unknown: Vec<UnknownView>,
    pub load_errors: Vec<LogError>,
}

/// Folds events into a `SessionView` one at a time.
#[derive(Debug, Clone)]
pub struct SessionViewFolder {
    view: SessionView,
    turn_index: HashMap<u32, usize>,
    process_index: HashMap<String, usize>,
    transcript: transcript::TranscriptFolder,
    current_turn: u32,
    reported_tokens: u64,
    /// False in a light copy: the per-event lists (transcript, turns,
    /// entries) are not kept, only what describes the state at this point.
    lists: bool,
}

/// The part of the view that describes the state at one point, without
/// the per-event lists: what a time-travel checkpoint keeps and shows.
#[derive(Debug, Serialize)]
pub struct SessionSummary<'a> {
    pub session_id: &'a Option<String>,
    pub event_count: u64,
    pub revision: u64,
    pub run: &'a Option<RunHeader>,
    pub status: &'a Status,
    pub turns_used: u32,
    pub total_tokens: u64,
    pub processes: &'a [ProcessView],
    pub current_capabilities: &'a [String],
    pub tokens_by_operation: &'a BTreeMap<String, u64>,
    pub counts: &'a BTreeMap<String, u64>,
    pub errors: &'a ErrorCounts,
}

/// Counts `key`, allocating its string only the first time.
fn bump(map: &mut BTreeMap<String, u64>, key: &str) {
    match map.get_mut(key) {
        Some(n) => *n = (*n).saturating_add(1),
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

fn owned(v: &[Str<'_>]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

fn opt(v: &Option<Str<'_>>) -> Option<String> {
    v.as_ref().map(|s| s.to_string())
}

impl SessionViewFolder {
    pub fn new(session_id: Option<String>) -> Self {
        SessionViewFolder {
            view: SessionView {
                session_id,
                event_count: 0,
                revision: 0,
                run: None,
                status: Status::NotStarted,
                turns_used: 0,
                total_tokens: 0,
                turns: Vec::new(),
                transcript: Vec::new(),
                processes: Vec::new(),
                permissions: Permissions::default(),
                budgets: Budgets::default(),
                signals: Vec::new(),
                cancellations: Vec::new(),
                capabilities: Capabilities::default(),
                milestones: Vec::new(),
                entropy: Entropy::default(),
                checkpoints: Vec::new(),
                rollbacks: Vec::new(),
                context: ContextView::default(),
                memory: MemoryView::default(),
                argument_repairs: Vec::new(),
                counts: BTreeMap::new(),
                errors: ErrorCounts::default(),
                unknown: Vec::new(),
                load_errors: Vec::new(),
            },
            turn_index: HashMap::new(),
            process_index: HashMap::new(),
            transcript: transcript::TranscriptFolder::default(),
            current_turn: 0,
            reported_tokens: 0,
            lists: true,
        }
    }

    pub fn view(&self) -> &SessionView {
        &self.view
    }

    pub fn summary(&self) -> SessionSummary<'_> {
        let v = &self.view;
        SessionSummary {
            session_id: &v.session_id,
            event_count: v.event_count,
            revision: v.revision,
            run: &v.run,
            status: &v.status,
            turns_used: v.turns_used,
            total_tokens: v.total_tokens,
            processes: &v.processes,
            current_capabilities: &v.capabilities.current,
            tokens_by_operation: &v.budgets.tokens_by_operation,
            counts: &v.counts,
            errors: &v.errors,
        }
    }

    /// A copy that keeps folding the summary but no per-event lists: cheap
    /// to hold many of (time-travel checkpoints).
    pub fn light(&self) -> SessionViewFolder {
        let v = &self.view;
        let mut light = SessionViewFolder::new(v.session_id.clone());
        let l = &mut light.view;
        l.event_count = v.event_count;
        l.revision = v.revision;
        l.run.clone_from(&v.run);
        l.status.clone_from(&v.status);
        l.turns_used = v.turns_used;
        l.total_tokens = v.total_tokens;
        l.processes.clone_from(&v.processes);
        l.capabilities.current.clone_from(&v.capabilities.current);
        l.budgets.tokens_by_operation.clone_from(&v.budgets.tokens_by_operation);
        l.counts.clone_from(&v.counts);
        l.errors = v.errors.clone();
        light.process_index.clone_from(&self.process_index);
        light.current_turn = self.current_turn;
        light.reported_tokens = self.reported_tokens;
        light.lists = false;
        light
    }

    /// Records load errors beside the events (tolerant loading).
    pub fn add_load_errors(&mut self, errors: &[LogError]) {
        self.view.errors.load_errors =
            self.view.errors.load_errors.saturating_add(errors.len() as u64);
        if self.lists {
            self.view.load_errors.extend_from_slice(errors);
        }
    }

    /// Folds one event; `text` is its JSON as written (kept by the entries).
    pub fn apply(&mut self, event: &SessionEvent<'_>, text: &str) {
        use SessionEvent as E;
        let v = &mut self.view;
        v.event_count = v.event_count.saturating_add(1);
        let position = v.event_count;
        bump(&mut v.counts, event.kind());
        if let Some(turn) = event.turn() {
            self.current_turn = turn;
            v.revision = v.revision.max(u64::from(turn));
        }
        if matches!(v.status, Status::NotStarted) {
            v.status = Status::Running;
        }
        let turn = self.current_turn;
        let lists = self.lists;
        let entry = || Entry { position, event: JsonText::from_raw_str(text) };
        // Records the event in a per-event list, unless this is a light copy.
        macro_rules! keep {
            ($list:expr) => {
                if lists {
                    $list.push(entry())
                }
            };
        }
        let mut tokens = 0u64;
        let mut errors = 0u64;
        let mut tool_names: Vec<String> = Vec::new();
        match event {
            E::RunStarted(e) => {
                v.run = Some(RunHeader {
                    position,
                    run_id: e.run_id.to_string(),
                    goal: e.goal.to_string(),
                    criteria: owned(&e.criteria),
                    agent_id: opt(&e.agent_id),
                    system_prompt: opt(&e.system_prompt),
                    attachment_count: e.attachments.len(),
                });
            }
            E::LlmCompleted(e) => tokens = u64::from(e.message.token_count.unwrap_or(0)),
            E::ToolRequested(e) => {
                tool_names = e.calls.iter().map(|c| c.name.to_string()).collect()
            }
            E::ToolCompleted(e) => {
                for r in &e.results {
                    tokens = tokens.saturating_add(u64::from(r.token_count.unwrap_or(0)));
                    if r.is_error {
                        errors = errors.saturating_add(1);
                        v.errors.tool_errors = v.errors.tool_errors.saturating_add(1);
                    }
                    if r.is_fatal {
                        v.errors.fatal_tool_errors = v.errors.fatal_tool_errors.saturating_add(1);
                    }
                }
            }
            E::RunTerminal(e) => {
                v.turns_used = e.turns_used;
                v.status = Status::Terminal {
                    position,
                    reason: e.reason.to_string(),
                    turns_used: e.turns_used,
                    total_tokens: e.total_tokens,
                };
            }
            E::Suspended(e) => {
                v.status = Status::Suspended {
                    position,
                    turn: e.turn,
                    reason: e.reason.to_string(),
                    pending_calls: owned(&e.pending_calls),
                };
            }
            E::Resumed(_) => {
                if matches!(v.status, Status::Suspended { .. }) {
                    v.status = Status::Running;
                }
            }
            E::ToolArgumentRepaired(_) => keep!(v.argument_repairs),
            E::PermissionRequested(e) if lists => v.permissions.requests.push(PermissionRequest {
                position,
                turn: e.turn,
                tool: e.tool.to_string(),
                arguments: e.arguments.to_string(),
                reason: opt(&e.reason),
                resolution: None,
            }),
            E::PermissionRequested(_) => {}
            E::PermissionResolved(e) => {
                if let Some(req) =
                    v.permissions.requests.iter_mut().find(|r| r.resolution.is_none())
                {
                    req.resolution = Some(PermissionResolution {
                        position,
                        approved: e.approved,
                        responder: e.responder.as_str().to_string(),
                    });
                }
            }
            E::ToolDenied(_) => {
                v.errors.denied_tools = v.errors.denied_tools.saturating_add(1);
                keep!(v.permissions.denied);
            }
            E::ToolGated(_) => keep!(v.permissions.gated),
            E::CapabilityChanged(e) => {
                let current = &mut v.capabilities.current;
                current.retain(|c| !e.removed.iter().any(|r| r.as_str() == c));
                for added in &e.added {
                    if !current.iter().any(|c| c == added.as_str()) {
                        current.push(added.to_string());
                    }
                }
                keep!(v.capabilities.history);
            }
            E::MilestoneAdvanced(e) => {
                for cap in &e.capabilities_unlocked {
                    if !v.capabilities.current.iter().any(|c| c == cap.as_str()) {
                        v.capabilities.current.push(cap.to_string());
                    }
                }
                keep!(v.milestones);
            }
            E::MilestoneBlocked(_) => keep!(v.milestones),
            E::ContextRenewed(_) => keep!(v.context.renewals),
            E::Compressed(_) => keep!(v.context.compressions),
            E::PageOut(_) => keep!(v.context.page_outs),
            E::PageIn(_) => keep!(v.context.page_ins),
            E::SignalDeliveryDisposed(_) => keep!(v.signals),
            E::BudgetExceeded(_) => keep!(v.budgets.exceeded),
            E::BudgetUsageReported(e) => {
                v.budgets.tokens_by_operation.insert(e.operation_id.to_string(), e.tokens);
                keep!(v.budgets.usage);
            }
            E::OperationCancelled(_) => keep!(v.cancellations),
            E::CheckpointTaken(_) => keep!(v.checkpoints),
            E::EntropySample(_) => keep!(v.entropy.samples),
            E::EntropyAlert(_) => keep!(v.entropy.alerts),
            E::Rollbacked(_) => keep!(v.rollbacks),
            E::AgentProcessChanged(e) => {
                let transition = ProcessTransition {
                    position,
                    turn: e.turn,
                    state: e.state.to_string(),
                    result_termination: opt(&e.result_termination),
                };
                let latest = ProcessView {
                    agent_id: e.agent_id.to_string(),
                    parent_session_id: e.parent_session_id.as_deref().unwrap_or("").to_string(),
                    role: e.role.to_string(),
                    isolation: e.isolation.to_string(),
                    context_inheritance: e.context_inheritance.to_string(),
                    state: e.state.to_string(),
                    permitted_capability_ids: owned(&e.permitted_capability_ids),
                    result_termination: opt(&e.result_termination),
                    first_turn: e.turn,
                    last_turn: e.turn,
                    history: Vec::new(),
                };
                let index = match self.process_index.get(e.agent_id.as_str()) {
                    Some(&i) => i,
                    None => {
                        self.process_index.insert(latest.agent_id.clone(), v.processes.len());
                        v.processes.push(latest.clone());
                        v.processes.len().saturating_sub(1)
                    }
                };
                if let Some(p) = v.processes.get_mut(index) {
                    let (first_turn, mut history) = (p.first_turn, std::mem::take(&mut p.history));
                    history.push(transition);
                    *p = ProcessView { first_turn, history, ..latest };
                }
            }
            E::MemoryWritten(_) => keep!(v.memory.writes),
            E::MemoryQueried(_) => keep!(v.memory.queries),
            E::MemoryValidationFailed(_) => keep!(v.memory.validation_failures),
            E::MemoryRetrievalResult(_) => keep!(v.memory.retrievals),
            E::Unknown(u) => {
                v.errors.unknown_events = v.errors.unknown_events.saturating_add(1);
                if lists {
                    v.unknown.push(UnknownView {
                        position,
                        kind: u.kind.to_string(),
                        json: u.json.to_string(),
                    });
                }
            }
        }
        self.reported_tokens = self.reported_tokens.saturating_add(tokens);
        if !matches!(v.status, Status::Terminal { .. }) {
            v.total_tokens = self.reported_tokens;
        } else if let Status::Terminal { total_tokens, .. } = v.status {
            v.total_tokens = total_tokens;
        }
        if lists {
            self.transcript.apply(&mut v.transcript, event, position);
            self.track_turn(turn, position, event.kind(), tokens, errors, tool_names);
        }
    }

    fn track_turn(
        &mut self,
        turn: u32,
        position: u64,
        kind: &str,
        tokens: u64,
        errors: u64,
        tools: Vec<String>,
    ) {
        let turns = &mut self.view.turns;
        let index = *self.turn_index.entry(turn).or_insert_with(|| {
            turns.push(TurnSummary {
                turn,
                first_position: position,
                last_position: position,
                event_count: 0,
                kinds: BTreeMap::new(),
                tool_calls: Vec::new(),
                tokens: 0,
                errors: 0,
            });
            turns.len().saturating_sub(1)
        });
        let Some(t) = turns.get_mut(index) else { return };
        t.last_position = position;
        t.event_count = t.event_count.saturating_add(1);
        bump(&mut t.kinds, kind);
        t.tool_calls.extend(tools);
        t.tokens = t.tokens.saturating_add(tokens);
        t.errors = t.errors.saturating_add(errors);
    }
}
