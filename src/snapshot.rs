//! The kernel's OS snapshot: a left fold over the kernel OS events (and
//! `memory_retrieval_result`), exactly as the kernel computes it, kept
//! incrementally so one event at a time gives the whole-log result.

use std::collections::HashMap;

use serde::Deserialize;

use crate::event::{AgentProcessChanged, CancellationReason, SessionEvent, Str};
use crate::json::{writable, JsonOut, WriteJson};
use crate::log::{self, LoadReport, LogError, LogOptions};
use crate::shared_list::SharedList;

/// Its name, as its serde `Serialize` writes it.
impl WriteJson for CancellationReason {
    fn write_json(&self, out: &mut JsonOut) {
        out.string(self.as_str());
    }
}

writable! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct SuspendRecord {
        pub turn: u32,
        pub reason: String,
        pub pending_calls: Vec<String>,
    }
}

writable! {
    /// A process as the fold keeps it. deepstrike-core 0.2.60's record always
    /// has `parent_session_id`; the SDKs' (for an event with `parent_task_id`)
    /// has each parent only when it is non-empty (`ProcessRecord::of`).
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct ProcessRecord {
        pub turn: u32,
        pub agent_id: String,
        #[serde(default)]
        pub parent_session_id: Option<String> = omit_none,
        #[serde(default)]
        pub parent_task_id: Option<String> = omit_none,
        pub state: String,
    }
}

impl ProcessRecord {
    /// The record of an `agent_process_changed` event. An event in
    /// deepstrike-core 0.2.60's schema (`parent_session_id`, no
    /// `parent_task_id`) gets the core's record: `{turn, agent_id,
    /// parent_session_id, state}` as written. Any other (the SDKs') gets the
    /// SDKs' record (`os_snapshot.py`): each parent only when non-empty, and
    /// an empty `state` becomes `"running"`.
    pub fn of(e: &AgentProcessChanged<'_>) -> Self {
        let non_empty =
            |s: &Option<Str<'_>>| s.as_deref().filter(|s| !s.is_empty()).map(str::to_string);
        let (parent_session_id, parent_task_id, state) =
            match (&e.parent_session_id, &e.parent_task_id) {
                (Some(session), None) => (Some(session.to_string()), None, e.state.as_str()),
                (session, task) => (
                    non_empty(session),
                    non_empty(task),
                    if e.state.is_empty() { "running" } else { e.state.as_str() },
                ),
            };
        ProcessRecord {
            turn: e.turn,
            agent_id: e.agent_id.to_string(),
            parent_session_id,
            parent_task_id,
            state: state.to_string(),
        }
    }
}

writable! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct BudgetExceededRecord {
        pub turn: u32,
        pub operation_id: String,
        pub reservation_id: Option<String>,
        pub budget: String,
    }
}

writable! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct BudgetUsageRecord {
        pub turn: u32,
        pub operation_id: String,
        pub reservation_id: String,
        pub tokens: u64,
        pub subagents: u32,
        pub rounds: u32,
    }
}

writable! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct CancellationRecord {
        pub turn: u32,
        pub operation_id: String,
        pub reason: CancellationReason,
        pub pending_call_ids: Vec<String>,
    }
}

writable! {
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    pub struct SignalRecord {
        pub turn: u32,
        pub operation_id: String,
        pub delivery_id: String,
        pub attempt: u32,
        pub signal_id: String,
        pub disposition: String,
        pub queue_depth: u32,
    }
}

writable! {
    /// The snapshot, keys in the kernel's order. Reading one back, the four
    /// `memory_*` counts default to 0.
    #[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
    pub struct OsSnapshot {
        pub last_suspend: Option<SuspendRecord>,
        pub last_resumed_turn: Option<u32>,
        pub process_by_agent: Vec<ProcessRecord>,
        pub budget_exceeded: SharedList<BudgetExceededRecord>,
        pub budget_usage_reported: SharedList<BudgetUsageRecord>,
        pub cancellations: SharedList<CancellationRecord>,
        pub signals: SharedList<SignalRecord>,
        pub page_out_count: u32,
        pub page_in_count: u32,
        pub tool_gated_count: u32,
        #[serde(default)]
        pub memory_written_count: u32,
        #[serde(default)]
        pub memory_queried_count: u32,
        #[serde(default)]
        pub memory_validation_failed_count: u32,
        #[serde(default)]
        pub memory_retrieval_result_count: u32,
    }
}

impl OsSnapshot {
    /// Keeps the last `n` items of each list that grows with the log, for
    /// display; returns each list's name and how many items it had.
    pub fn keep_last(&mut self, n: usize) -> [(&'static str, usize); 4] {
        let totals = [
            ("budget_exceeded", self.budget_exceeded.len()),
            ("budget_usage_reported", self.budget_usage_reported.len()),
            ("cancellations", self.cancellations.len()),
            ("signals", self.signals.len()),
        ];
        self.budget_exceeded.keep_last(n);
        self.budget_usage_reported.keep_last(n);
        self.cancellations.keep_last(n);
        self.signals.keep_last(n);
        totals
    }

    /// Compact JSON, byte for byte what the kernel writes.
    pub fn to_json(&self) -> String {
        crate::json::to_json_exact(self)
    }
}

/// Folds events into an `OsSnapshot` one at a time.
#[derive(Debug, Clone, Default)]
pub struct OsSnapshotFolder {
    snapshot: OsSnapshot,
    process_index: HashMap<String, usize>,
}

fn owned(v: &[crate::event::Str<'_>]) -> Vec<String> {
    v.iter().map(|s| s.to_string()).collect()
}

impl OsSnapshotFolder {
    pub fn new() -> Self {
        Self::default()
    }

    /// `OsSnapshot::keep_last` on the folded snapshot.
    pub fn keep_last(&mut self, n: usize) -> [(&'static str, usize); 4] {
        self.snapshot.keep_last(n)
    }

    /// The folder whose snapshot is `snapshot` (folding on from it).
    pub fn from_snapshot(snapshot: OsSnapshot) -> Self {
        let process_index = snapshot
            .process_by_agent
            .iter()
            .enumerate()
            .map(|(i, p)| (p.agent_id.clone(), i))
            .collect();
        OsSnapshotFolder { snapshot, process_index }
    }

    pub fn snapshot(&self) -> &OsSnapshot {
        &self.snapshot
    }

    pub fn into_snapshot(self) -> OsSnapshot {
        self.snapshot
    }

    pub fn apply(&mut self, event: &SessionEvent<'_>) {
        use SessionEvent as E;
        let snap = &mut self.snapshot;
        // Counters saturate: a count past u32::MAX cannot trap the fold.
        let bump = |n: &mut u32| *n = n.saturating_add(1);
        match event {
            E::Suspended(e) => {
                snap.last_suspend = Some(SuspendRecord {
                    turn: e.turn,
                    reason: e.reason.to_string(),
                    pending_calls: owned(&e.pending_calls),
                })
            }
            E::Resumed(e) => snap.last_resumed_turn = Some(e.turn),
            E::ToolGated(_) => bump(&mut snap.tool_gated_count),
            E::AgentProcessChanged(e) => {
                let record = ProcessRecord::of(e);
                match self
                    .process_index
                    .get(e.agent_id.as_str())
                    .and_then(|&i| snap.process_by_agent.get_mut(i))
                {
                    Some(slot) => *slot = record,
                    None => {
                        self.process_index
                            .insert(record.agent_id.clone(), snap.process_by_agent.len());
                        snap.process_by_agent.push(record);
                    }
                }
            }
            E::BudgetExceeded(e) => snap.budget_exceeded.push(BudgetExceededRecord {
                turn: e.turn,
                operation_id: e.operation_id.to_string(),
                reservation_id: e.reservation_id.as_ref().map(|s| s.to_string()),
                budget: e.budget.to_string(),
            }),
            E::BudgetUsageReported(e) => snap.budget_usage_reported.push(BudgetUsageRecord {
                turn: e.turn,
                operation_id: e.operation_id.to_string(),
                reservation_id: e.reservation_id.to_string(),
                tokens: e.tokens,
                subagents: e.subagents,
                rounds: e.rounds,
            }),
            E::OperationCancelled(e) => snap.cancellations.push(CancellationRecord {
                turn: e.turn,
                operation_id: e.operation_id.to_string(),
                reason: e.reason.clone(),
                pending_call_ids: owned(&e.pending_call_ids),
            }),
            E::SignalDeliveryDisposed(e) => snap.signals.push(SignalRecord {
                turn: e.turn,
                operation_id: e.operation_id.to_string(),
                delivery_id: e.delivery_id.to_string(),
                attempt: e.attempt,
                signal_id: e.signal_id.to_string(),
                disposition: e.disposition.to_string(),
                queue_depth: e.queue_depth,
            }),
            E::PageOut(_) => bump(&mut snap.page_out_count),
            E::PageIn(_) => bump(&mut snap.page_in_count),
            E::MemoryWritten(_) => bump(&mut snap.memory_written_count),
            E::MemoryQueried(_) => bump(&mut snap.memory_queried_count),
            E::MemoryValidationFailed(_) => bump(&mut snap.memory_validation_failed_count),
            E::MemoryRetrievalResult(_) => bump(&mut snap.memory_retrieval_result_count),
            _ => {}
        }
    }
}

/// The kinds the snapshot fold looks at (the kind table's `snapshot_fold`);
/// every other kind leaves it unchanged.
pub fn folds(kind: &str) -> bool {
    crate::event::kind_info(kind).is_some_and(|k| k.snapshot_fold)
}

/// Loads a whole log from bytes and folds its snapshot. With `full_check`
/// false, only the kinds the fold reads are checked field by field; every
/// other event is checked as JSON with a kind (what the fold depends on).
pub fn rebuild_os_snapshot_from_bytes(
    bytes: &[u8],
    strict: bool,
    full_check: bool,
) -> Result<(OsSnapshot, LoadReport), LogError> {
    fold_log(strict, full_check, |opts, sink| log::read_bytes(bytes, opts, sink))
}

/// The same from a string (already UTF-8: not checked again).
pub fn rebuild_os_snapshot_from_str(
    text: &str,
    strict: bool,
    full_check: bool,
) -> Result<(OsSnapshot, LoadReport), LogError> {
    fold_log(strict, full_check, |opts, sink| log::read_str(text, opts, sink))
}

fn fold_log(
    strict: bool,
    full_check: bool,
    load: impl FnOnce(LogOptions, &mut dyn log::EventSink) -> Result<LoadReport, LogError>,
) -> Result<(OsSnapshot, LoadReport), LogError> {
    let mut folder = OsSnapshotFolder::new();
    let only = if full_check { None } else { Some(folds as fn(&str) -> bool) };
    let opts = LogOptions { strict, only, ..LogOptions::default() };
    let report = load(opts, &mut |_: &str, e: &SessionEvent<'_>| folder.apply(e))?;
    Ok((folder.into_snapshot(), report))
}

/// Folds a whole sequence of events.
pub fn rebuild_os_snapshot<'a>(
    events: impl IntoIterator<Item = &'a SessionEvent<'a>>,
) -> OsSnapshot {
    let mut folder = OsSnapshotFolder::new();
    for event in events {
        folder.apply(event);
    }
    folder.into_snapshot()
}
