//! Reading a view back from its JSON and rebuilding the folder that made
//! it, so a client that only has an observation (after a live-replay gap)
//! can keep folding from there.
//!
//! The view is walked as raw JSON text (`raw.rs`) rather than through
//! derived `Deserialize` impls, which cost ~20 KB of gzipped .wasm for the
//! view's 20-odd types; getters note the first problem instead of
//! returning early. Recorded events stay byte for byte.

use std::collections::HashMap;

use super::raw::{Bad, Obj, Problem};
use super::transcript::{ToolOutcome, TranscriptEntry, TranscriptFolder};
use super::*;
use crate::event::{ErrorKind, SessionEvent};
use crate::log::{LogError, LogErrorCode};
use crate::snapshot::{OsSnapshot, OsSnapshotFolder, ProcessRecord, SuspendRecord};

fn error_kind(o: &Obj<'_>, key: &'static str) -> Option<ErrorKind> {
    Some(match o.opt_str(key).as_deref() {
        None => return None,
        Some("recoverable") => ErrorKind::Recoverable,
        Some("fatal") => ErrorKind::Fatal,
        Some("governance_denied") => ErrorKind::GovernanceDenied,
        Some("provider_failure") => ErrorKind::ProviderFailure,
        Some("timeout") => ErrorKind::Timeout,
        Some("user_interrupt") => ErrorKind::UserInterrupt,
        Some(other) => ErrorKind::Other(other.to_string()),
    })
}

fn log_error_code(o: &Obj<'_>) -> LogErrorCode {
    match o.str("code").as_str() {
        "invalid_json" => LogErrorCode::InvalidJson,
        "invalid_event" => LogErrorCode::InvalidEvent,
        "unknown_kind" => LogErrorCode::UnknownKind,
        "truncated" => LogErrorCode::Truncated,
        "invalid_utf8" => LogErrorCode::InvalidUtf8,
        "invalid_entry" => LogErrorCode::InvalidEntry,
        "seq_gap" => LogErrorCode::SeqGap,
        "seq_disorder" => LogErrorCode::SeqDisorder,
        _ => {
            o.fail("code", "a load error code");
            LogErrorCode::InvalidJson
        }
    }
}

#[inline(never)]
fn entries(o: &Obj<'_>, key: &'static str) -> Vec<Entry> {
    o.list(key, "entry", |e| Entry { position: e.u64("position"), event: e.json("event") })
}

#[inline(never)]
fn status(o: Obj<'_>) -> Status {
    match o.str("state").as_str() {
        "not_started" => Status::NotStarted,
        "running" => Status::Running,
        "suspended" => Status::Suspended {
            position: o.u64("position"),
            turn: o.u32("turn"),
            reason: o.str("reason"),
            pending_calls: o.strs("pending_calls"),
        },
        "terminal" => Status::Terminal {
            position: o.u64("position"),
            reason: o.str("reason"),
            turns_used: o.u32("turns_used"),
            total_tokens: o.u64("total_tokens"),
        },
        _ => {
            o.fail("state", "a status");
            Status::NotStarted
        }
    }
}

#[inline(never)]
fn tool_outcome(r: Obj<'_>) -> ToolOutcome {
    ToolOutcome {
        position: r.u64("position"),
        output: r.str("output"),
        is_error: r.bool("is_error"),
        is_fatal: r.bool("is_fatal"),
        error_kind: error_kind(&r, "error_kind"),
        token_count: r.opt_u32("token_count"),
    }
}

#[inline(never)]
fn transcript_entry(o: Obj<'_>) -> TranscriptEntry {
    let position = o.u64("position");
    match o.str("type").as_str() {
        "goal" => {
            TranscriptEntry::Goal { position, text: o.str("text"), criteria: o.strs("criteria") }
        }
        "assistant" => TranscriptEntry::Assistant {
            position,
            turn: o.u32("turn"),
            text: o.str("text"),
            tool_call_ids: o.strs("tool_call_ids"),
            token_count: o.opt_u32("token_count"),
            rolled_back: o.bool("rolled_back"),
        },
        "tool_call" => TranscriptEntry::ToolCall {
            position,
            turn: o.u32("turn"),
            call_id: o.str("call_id"),
            name: o.opt_str("name"),
            arguments: o.json("arguments"),
            result: o.opt_obj("result", "tool result").map(tool_outcome),
            denied: o.opt_str("denied"),
            gated: o.opt_str("gated"),
            rolled_back: o.bool("rolled_back"),
        },
        "suspended" => TranscriptEntry::Suspended {
            position,
            turn: o.u32("turn"),
            reason: o.str("reason"),
            pending_calls: o.strs("pending_calls"),
        },
        "resumed" => TranscriptEntry::Resumed {
            position,
            turn: o.u32("turn"),
            approved: o.strs("approved"),
            denied: o.strs("denied"),
        },
        "rollback" => TranscriptEntry::Rollback {
            position,
            turn: o.u32("turn"),
            checkpoint_history_len: o.u32("checkpoint_history_len"),
            reason: o.opt_obj("reason", "rollback reason").map(|_| o.json("reason")),
        },
        _ => {
            o.fail("type", "a transcript entry type");
            TranscriptEntry::Goal { position, text: String::new(), criteria: Vec::new() }
        }
    }
}

#[inline(never)]
fn process(o: Obj<'_>) -> ProcessView {
    ProcessView {
        agent_id: o.str("agent_id"),
        parent_session_id: o.str("parent_session_id"),
        role: o.str("role"),
        isolation: o.str("isolation"),
        context_inheritance: o.str("context_inheritance"),
        state: o.str("state"),
        permitted_capability_ids: o.strs("permitted_capability_ids"),
        result_termination: o.opt_str("result_termination"),
        first_turn: o.u32("first_turn"),
        last_turn: o.u32("last_turn"),
        history: o.list("history", "process transition", |h| ProcessTransition {
            position: h.u64("position"),
            turn: h.u32("turn"),
            state: h.str("state"),
            result_termination: h.opt_str("result_termination"),
        }),
    }
}

#[inline(never)]
fn permission_request(r: Obj<'_>) -> PermissionRequest {
    PermissionRequest {
        position: r.u64("position"),
        turn: r.u32("turn"),
        tool: r.str("tool"),
        arguments: r.str("arguments"),
        reason: r.opt_str("reason"),
        resolution: r.opt_obj("resolution", "resolution").map(|s| PermissionResolution {
            position: s.u64("position"),
            approved: s.bool("approved"),
            responder: s.str("responder"),
        }),
    }
}

/// A view from its JSON (as `to_js_json` writes it). Filled field by
/// field into an empty view: one value to drop on an error keeps the
/// .wasm small.
#[inline(never)]
fn view_of(json: &str) -> Result<SessionView, Bad> {
    if !crate::event::syntax::is_valid_json(json) {
        return Err(Bad { what: "view", key: "", expected: "valid JSON" });
    }
    let problem = Problem::new(None);
    let v = Obj::parse(json, "view", &problem);
    let mut out = SessionViewFolder::new(v.opt_str("session_id")).view;
    out.event_count = v.u64("event_count");
    out.revision = v.u64("revision");
    out.run = v.opt_obj("run", "run").map(|r| RunHeader {
        position: r.u64("position"),
        run_id: r.str("run_id"),
        goal: r.str("goal"),
        criteria: r.strs("criteria"),
        agent_id: r.opt_str("agent_id"),
        system_prompt: r.opt_str("system_prompt"),
        attachment_count: r.usize("attachment_count"),
    });
    out.status = status(v.obj("status", "status"));
    out.turns_used = v.u32("turns_used");
    out.total_tokens = v.u64("total_tokens");
    out.turns = v.list("turns", "turn", |t| TurnSummary {
        turn: t.u32("turn"),
        first_position: t.u64("first_position"),
        last_position: t.u64("last_position"),
        event_count: t.u64("event_count"),
        kinds: t.counts("kinds"),
        tool_calls: t.strs("tool_calls"),
        tokens: t.u64("tokens"),
        errors: t.u64("errors"),
    });
    out.transcript = v.list("transcript", "transcript entry", transcript_entry);
    out.processes = v.list("processes", "process", process);
    let o = v.obj("permissions", "permissions");
    out.permissions.requests = o.list("requests", "permission request", permission_request);
    out.permissions.gated = entries(&o, "gated");
    out.permissions.denied = entries(&o, "denied");
    let o = v.obj("budgets", "budgets");
    out.budgets.usage = entries(&o, "usage");
    out.budgets.exceeded = entries(&o, "exceeded");
    out.budgets.tokens_by_operation = o.counts("tokens_by_operation");
    out.signals = entries(&v, "signals");
    out.cancellations = entries(&v, "cancellations");
    let o = v.obj("capabilities", "capabilities");
    out.capabilities.current = o.strs("current");
    out.capabilities.history = entries(&o, "history");
    out.milestones = entries(&v, "milestones");
    let o = v.obj("entropy", "entropy");
    out.entropy.samples = entries(&o, "samples");
    out.entropy.alerts = entries(&o, "alerts");
    out.checkpoints = entries(&v, "checkpoints");
    out.rollbacks = entries(&v, "rollbacks");
    let o = v.obj("context", "context");
    out.context.compressions = entries(&o, "compressions");
    out.context.page_outs = entries(&o, "page_outs");
    out.context.page_ins = entries(&o, "page_ins");
    out.context.renewals = entries(&o, "renewals");
    let o = v.obj("memory", "memory");
    out.memory.writes = entries(&o, "writes");
    out.memory.queries = entries(&o, "queries");
    out.memory.validation_failures = entries(&o, "validation_failures");
    out.memory.retrievals = entries(&o, "retrievals");
    out.argument_repairs = entries(&v, "argument_repairs");
    out.counts = v.counts("counts");
    let o = v.obj("errors", "errors");
    out.errors.tool_errors = o.u64("tool_errors");
    out.errors.fatal_tool_errors = o.u64("fatal_tool_errors");
    out.errors.denied_tools = o.u64("denied_tools");
    out.errors.unknown_events = o.u64("unknown_events");
    out.errors.load_errors = o.u64("load_errors");
    out.unknown = v.list("unknown", "unknown event", |u| UnknownView {
        position: u.u64("position"),
        kind: u.str("kind"),
        json: u.str("json"),
    });
    out.load_errors = v.list("load_errors", "load error", |e| LogError {
        line: e.usize("line"),
        column: e.usize("column"),
        index: e.opt_usize("index"),
        code: log_error_code(&e),
        message: e.str("message"),
        kind: e.opt_str("kind"),
        field: e.opt_str("field"),
    });
    match problem.get() {
        Some(bad) => Err(bad),
        None => Ok(out),
    }
}

impl SessionViewFolder {
    /// The folder whose view is the one in `json`: folding on from it gives
    /// what folding the whole log would have.
    pub fn restore(json: &str) -> std::result::Result<Self, String> {
        let view = view_of(json).map_err(|e| e.to_string())?;
        let mut checkpoints = HashMap::new();
        for entry in &view.checkpoints {
            match SessionEvent::from_json(entry.event.get()) {
                Ok(SessionEvent::CheckpointTaken(e)) => {
                    checkpoints.insert(e.history_len, entry.position);
                }
                _ => {
                    return Err(format!(
                        "checkpoints: the entry at position {} is not a checkpoint",
                        entry.position
                    ))
                }
            }
        }
        // The last event was counted in the turn current when it came.
        let current_turn =
            view.turns.iter().find(|t| t.last_position == view.event_count).map_or(0, |t| t.turn);
        let reported_tokens = view.turns.iter().fold(0u64, |sum, t| sum.saturating_add(t.tokens));
        Ok(SessionViewFolder {
            turn_index: view.turns.iter().enumerate().map(|(i, t)| (t.turn, i)).collect(),
            process_index: view
                .processes
                .iter()
                .enumerate()
                .map(|(i, p)| (p.agent_id.clone(), i))
                .collect(),
            transcript: TranscriptFolder::restore(&view.transcript, checkpoints),
            current_turn,
            reported_tokens,
            lists: true,
            view,
        })
    }
}

/// The OS snapshot of the log a view was folded from: everything it holds
/// is in the view (the entries it keeps are the events themselves).
pub fn os_snapshot_of(view: &SessionView) -> std::result::Result<OsSnapshot, String> {
    let mut folder = OsSnapshotFolder::new();
    let entries = [&view.budgets.exceeded, &view.budgets.usage, &view.cancellations, &view.signals];
    for entry in entries.into_iter().flatten() {
        let event = SessionEvent::from_json(entry.event.get())
            .map_err(|e| format!("the entry at position {}: {}", entry.position, e.message))?;
        folder.apply(&event);
    }
    let mut snapshot = folder.into_snapshot();
    for entry in &view.transcript {
        match entry {
            TranscriptEntry::Suspended { turn, reason, pending_calls, .. } => {
                snapshot.last_suspend = Some(SuspendRecord {
                    turn: *turn,
                    reason: reason.clone(),
                    pending_calls: pending_calls.clone(),
                })
            }
            TranscriptEntry::Resumed { turn, .. } => snapshot.last_resumed_turn = Some(*turn),
            _ => {}
        }
    }
    snapshot.process_by_agent = view
        .processes
        .iter()
        .map(|p| ProcessRecord {
            turn: p.last_turn,
            agent_id: p.agent_id.clone(),
            parent_session_id: Some(p.parent_session_id.clone()),
            parent_task_id: None,
            state: p.state.clone(),
        })
        .collect();
    let count =
        |kind: &str| view.counts.get(kind).map_or(0, |&n| u32::try_from(n).unwrap_or(u32::MAX));
    snapshot.page_out_count = count("page_out");
    snapshot.page_in_count = count("page_in");
    snapshot.tool_gated_count = count("tool_gated");
    snapshot.memory_written_count = count("memory_written");
    snapshot.memory_queried_count = count("memory_queried");
    snapshot.memory_validation_failed_count = count("memory_validation_failed");
    snapshot.memory_retrieval_result_count = count("memory_retrieval_result");
    Ok(snapshot)
}
