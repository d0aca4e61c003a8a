//! The transcript: the goal, assistant messages, tool calls paired with
//! their results by call id within a life, denials, suspensions and
//! rollbacks. Each entry names its life (a call re-run after a wake is an
//! entry of the new life). Entries between a checkpoint and a rollback to
//! it record that rollback's position (`rolled_back_at`), so time travel
//! knows when they were undone.

use std::collections::HashMap;

use crate::event::{ErrorKind, RollbackReason, SessionEvent, ToolCall};
use crate::json::JsonText;
use crate::units::Position;

use super::readable;

/// As the schema's serde `Serialize` writes it: an object tagged by `kind`.
/// (By hand: no serde_json writer for it in the .wasm. The test
/// `rollback_reasons_are_written_as_serde_writes_them` holds the two
/// together.)
impl crate::json::WriteJson for RollbackReason<'_> {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        use RollbackReason as R;
        out.raw("{");
        out.key("kind");
        match self {
            R::FatalToolError { tool_name, error } => {
                out.string("fatal_tool_error");
                out.key("tool_name");
                out.string(tool_name);
                out.key("error");
                out.string(error);
            }
            R::GovernanceDenied { tool_name, reason } => {
                out.string("governance_denied");
                out.key("tool_name");
                out.string(tool_name);
                out.key("reason");
                out.string(reason);
            }
            R::ProviderFailure { error } => {
                out.string("provider_failure");
                out.key("error");
                out.string(error);
            }
            R::Timeout => out.string("timeout"),
            R::UserInterrupt => out.string("user_interrupt"),
            R::MalformedReplay { reason } => {
                out.string("malformed_replay");
                out.key("reason");
                out.string(reason);
            }
        }
        out.raw("}");
    }
}

/// Its name, as its serde `Serialize` writes it.
impl crate::json::WriteJson for ErrorKind {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        out.string(self.as_str());
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub struct ToolOutcome {
        pub position: Position,
        pub output: String,
        pub is_error: bool,
        pub is_fatal: bool,
        pub error_kind: Option<ErrorKind>,
        pub token_count: Option<u32>,
    }
}

readable! {
    #[derive(Debug, Clone, PartialEq)]
    pub enum TranscriptEntry as "type" {
        Goal = "goal" {
            position: Position,
            life: u32,
            text: String,
            criteria: Vec<String>,
        },
        Assistant = "assistant" {
            position: Position,
            life: u32,
            turn: u32,
            text: String,
            tool_call_ids: Vec<String>,
            token_count: Option<u32>,
            /// The first rollback that undid this entry.
            rolled_back_at: Option<Position>,
        },
        ToolCall = "tool_call" {
            position: Position,
            life: u32,
            turn: u32,
            call_id: String,
            /// `None` for a result whose call was never seen.
            name: Option<String>,
            /// `null` until the call itself is seen.
            arguments: JsonText,
            result: Option<ToolOutcome>,
            denied: Option<String>,
            gated: Option<String>,
            /// The first rollback that undid this entry.
            rolled_back_at: Option<Position>,
        },
        Suspended = "suspended" {
            position: Position,
            life: u32,
            turn: u32,
            reason: String,
            pending_calls: Vec<String>,
        },
        Resumed = "resumed" {
            position: Position,
            life: u32,
            turn: u32,
            approved: Vec<String>,
            denied: Vec<String>,
        },
        Rollback = "rollback" {
            position: Position,
            life: u32,
            turn: u32,
            checkpoint_history_len: u32,
            reason: Option<JsonText>,
        },
    }
}

impl TranscriptEntry {
    /// The life the entry belongs to.
    fn life(&self) -> u32 {
        match self {
            TranscriptEntry::Goal { life, .. }
            | TranscriptEntry::Assistant { life, .. }
            | TranscriptEntry::ToolCall { life, .. }
            | TranscriptEntry::Suspended { life, .. }
            | TranscriptEntry::Resumed { life, .. }
            | TranscriptEntry::Rollback { life, .. } => *life,
        }
    }

    /// Moves the entry `by` positions later: an entry folded from a range
    /// of a log that began `by` events in, to the log's positions.
    pub fn shift(&mut self, by: u64) {
        let later = |p: &mut Position| p.0 = p.0.saturating_add(by);
        match self {
            TranscriptEntry::Goal { position, .. }
            | TranscriptEntry::Suspended { position, .. }
            | TranscriptEntry::Resumed { position, .. }
            | TranscriptEntry::Rollback { position, .. } => later(position),
            TranscriptEntry::Assistant { position, rolled_back_at, .. } => {
                later(position);
                rolled_back_at.iter_mut().for_each(later);
            }
            TranscriptEntry::ToolCall { position, rolled_back_at, result, .. } => {
                later(position);
                rolled_back_at.iter_mut().for_each(later);
                result.iter_mut().for_each(|r| later(&mut r.position));
            }
        }
    }

    pub(super) fn position(&self) -> Position {
        match self {
            TranscriptEntry::Goal { position, .. }
            | TranscriptEntry::Assistant { position, .. }
            | TranscriptEntry::ToolCall { position, .. }
            | TranscriptEntry::Suspended { position, .. }
            | TranscriptEntry::Resumed { position, .. }
            | TranscriptEntry::Rollback { position, .. } => *position,
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct TranscriptFolder {
    /// Call id → its entry in the latest life it was seen in.
    calls: HashMap<String, usize>,
    /// checkpoint history_len → position of the latest such checkpoint.
    checkpoints: HashMap<u32, Position>,
}

impl TranscriptFolder {
    /// The folder that produced `out`: call ids to their entries, and the
    /// checkpoints (history length → position) a rollback can return to.
    pub fn restore(out: &[TranscriptEntry], checkpoints: HashMap<u32, Position>) -> Self {
        let calls = out
            .iter()
            .enumerate()
            .filter_map(|(i, e)| match e {
                TranscriptEntry::ToolCall { call_id, .. } => Some((call_id.clone(), i)),
                _ => None,
            })
            .collect();
        TranscriptFolder { calls, checkpoints }
    }

    pub fn apply(
        &mut self,
        out: &mut Vec<TranscriptEntry>,
        event: &SessionEvent<'_>,
        position: Position,
        life: u32,
    ) {
        use SessionEvent as E;
        match event {
            E::RunStarted(e) => out.push(TranscriptEntry::Goal {
                position,
                life,
                text: e.goal.to_string(),
                criteria: e.criteria.iter().map(|c| c.to_string()).collect(),
            }),
            E::LlmCompleted(e) => {
                out.push(TranscriptEntry::Assistant {
                    position,
                    life,
                    turn: e.turn,
                    text: e.message.content.text(),
                    tool_call_ids: e.message.tool_calls.iter().map(|c| c.id.to_string()).collect(),
                    token_count: e.message.token_count,
                    rolled_back_at: None,
                });
                for call in &e.message.tool_calls {
                    self.call(out, call, (life, e.turn), position);
                }
            }
            E::ToolRequested(e) => {
                for call in &e.calls {
                    self.call(out, call, (life, e.turn), position);
                }
            }
            E::ToolCompleted(e) => {
                for r in &e.results {
                    let outcome = ToolOutcome {
                        position,
                        output: r.output.text(),
                        is_error: r.is_error,
                        is_fatal: r.is_fatal,
                        error_kind: r.error_kind.clone(),
                        token_count: r.token_count,
                    };
                    let i = self.slot(out, &r.call_id, (life, e.turn), position);
                    if let Some(TranscriptEntry::ToolCall { result, .. }) = out.get_mut(i) {
                        *result = Some(outcome);
                    }
                }
            }
            E::ToolDenied(e) => {
                let i = self.slot(out, &e.call_id, (life, e.turn), position);
                if let Some(TranscriptEntry::ToolCall { denied, name, .. }) = out.get_mut(i) {
                    *denied = Some(e.reason.to_string());
                    name.get_or_insert_with(|| e.tool_name.to_string());
                }
            }
            E::ToolGated(e) => {
                let i = self.slot(out, &e.call_id, (life, e.turn), position);
                if let Some(TranscriptEntry::ToolCall { gated, name, .. }) = out.get_mut(i) {
                    *gated = Some(e.reason.to_string());
                    name.get_or_insert_with(|| e.tool.to_string());
                }
            }
            E::Suspended(e) => out.push(TranscriptEntry::Suspended {
                position,
                life,
                turn: e.turn,
                reason: e.reason.to_string(),
                pending_calls: e.pending_calls.iter().map(|c| c.to_string()).collect(),
            }),
            E::Resumed(e) => out.push(TranscriptEntry::Resumed {
                position,
                life,
                turn: e.turn,
                approved: e.approved.iter().map(|c| c.to_string()).collect(),
                denied: e.denied.iter().map(|c| c.to_string()).collect(),
            }),
            E::CheckpointTaken(e) => {
                self.checkpoints.insert(e.history_len, position);
            }
            E::Rollbacked(e) => {
                if let Some(&since) = self.checkpoints.get(&e.checkpoint_history_len) {
                    for entry in out.iter_mut().rev().take_while(|x| x.position() > since) {
                        if let TranscriptEntry::Assistant { rolled_back_at, .. }
                        | TranscriptEntry::ToolCall { rolled_back_at, .. } = entry
                        {
                            rolled_back_at.get_or_insert(position);
                        }
                    }
                }
                out.push(TranscriptEntry::Rollback {
                    position,
                    life,
                    turn: e.turn,
                    checkpoint_history_len: e.checkpoint_history_len,
                    reason: e.reason.as_ref().map(|r| JsonText::of(r)),
                });
            }
            _ => {}
        }
    }

    fn call(
        &mut self,
        out: &mut Vec<TranscriptEntry>,
        call: &ToolCall<'_>,
        at: (u32, u32),
        position: Position,
    ) {
        let i = self.slot(out, &call.id, at, position);
        if let Some(TranscriptEntry::ToolCall { name, arguments, .. }) = out.get_mut(i) {
            // A gate or a denial seen first named the entry: the call still
            // brings its arguments. The first call seen wins for both.
            name.get_or_insert_with(|| call.name.to_string());
            if arguments.get() == "null" {
                *arguments = JsonText::from_raw(call.arguments.0);
            }
        }
    }

    /// The entry of a call id in a life, created at this position (and
    /// turn) when first seen.
    fn slot(
        &mut self,
        out: &mut Vec<TranscriptEntry>,
        call_id: &str,
        (life, turn): (u32, u32),
        position: Position,
    ) -> usize {
        let seen = self.calls.get(call_id).copied();
        if let Some(i) = seen.filter(|&i| out.get(i).is_some_and(|e| e.life() == life)) {
            return i;
        }
        let index = out.len();
        out.push(TranscriptEntry::ToolCall {
            position,
            life,
            turn,
            call_id: call_id.to_string(),
            name: None,
            arguments: JsonText::null(),
            result: None,
            denied: None,
            gated: None,
            rolled_back_at: None,
        });
        self.calls.insert(call_id.to_string(), index);
        index
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rollback_reasons_are_written_as_serde_writes_them() {
        let text = |s: &'static str| crate::event::Str::from(s);
        let reasons = [
            RollbackReason::FatalToolError { tool_name: text("t\"1"), error: text("é\n") },
            RollbackReason::GovernanceDenied { tool_name: text("t"), reason: text("r") },
            RollbackReason::ProviderFailure { error: text("e") },
            RollbackReason::Timeout,
            RollbackReason::UserInterrupt,
            RollbackReason::MalformedReplay { reason: text("m") },
        ];
        for reason in &reasons {
            let serde = serde_json::to_string(reason).unwrap();
            assert_eq!(crate::json::to_js_json(reason), serde);
        }
    }

    #[test]
    fn a_shifted_entry_moves_every_position_it_holds() {
        let call = TranscriptEntry::ToolCall {
            position: Position(2),
            life: 1,
            turn: 1,
            call_id: "c".into(),
            name: Some("t".into()),
            arguments: JsonText::from_raw_str("{}"),
            result: Some(ToolOutcome {
                position: Position(3),
                output: "ok".into(),
                is_error: false,
                is_fatal: false,
                error_kind: None,
                token_count: None,
            }),
            denied: None,
            gated: None,
            rolled_back_at: Some(Position(5)),
        };
        let mut call = call;
        call.shift(10);
        let TranscriptEntry::ToolCall { position, result, rolled_back_at, .. } = call else {
            panic!("a tool call stays one");
        };
        assert_eq!(position, Position(12));
        assert_eq!(result.map(|r| r.position), Some(Position(13)));
        assert_eq!(rolled_back_at, Some(Position(15)));
    }
}
