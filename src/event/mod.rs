//! The session event schema: 32 kinds tagged by `"kind"`, plus unknown kinds
//! kept verbatim. Events borrow their strings from the log text they were
//! parsed from; see `Str`.

mod content;
mod kinds;
mod parse;
mod records;
pub mod syntax;
mod tagged;
mod text;

pub use content::*;
pub use kinds::*;
pub use parse::EventError;
pub use records::*;
pub use text::{RawJson, Str};

use serde::Serialize;

/// Declares `SessionEvent` and the kind table from one list, so the tag
/// names, the dispatch in `parse` and the kernel-OS flag cannot disagree.
macro_rules! session_events {
    ($($variant:ident($body:ty) = $name:literal, os: $os:literal;)*) => {
        /// One event of a session log.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum SessionEvent<'a> {
            $($variant($body),)*
            /// A kind this version does not know: kept, counted and shown,
            /// ignored by the folds.
            #[serde(untagged)]
            Unknown(UnknownEvent<'a>),
        }

        /// Every known kind's tag, in schema order.
        pub const KINDS: &[&str] = &[$($name),*];

        impl<'a> SessionEvent<'a> {
            /// The `kind` tag as written in the log.
            pub fn kind(&self) -> &str {
                match self {
                    $(SessionEvent::$variant(_) => $name,)*
                    SessionEvent::Unknown(u) => &u.kind,
                }
            }

            /// True for the 22 kernel OS event kinds.
            pub fn is_kernel_os_event(&self) -> bool {
                match self {
                    $(SessionEvent::$variant(_) => $os,)*
                    SessionEvent::Unknown(_) => false,
                }
            }

            /// True for the 32 kinds this version knows. (A scan of a table:
            /// a `matches!` of 32 strings is 1.6 KB of .wasm for no gain.)
            pub fn is_known_kind(kind: &str) -> bool {
                const KINDS: &[&str] = &[$($name),*];
                KINDS.contains(&kind)
            }

            /// The body of a known kind, deserialized straight from `text`;
            /// `None` for an unknown kind. One driver for all kinds (a
            /// `from_str` per kind would repeat its code 32 times in the .wasm).
            fn parse_body(kind: &str, text: &'a str) -> Option<Result<Self, serde_json::Error>> {
                if !Self::is_known_kind(kind) {
                    return None;
                }
                let mut de = serde_json::Deserializer::from_str(text);
                let body = serde::de::DeserializeSeed::deserialize(BodySeed { kind }, &mut de)
                    .and_then(|event| de.end().map(|()| event));
                Some(body)
            }
        }

        /// Deserializes the body of the kind it carries.
        struct BodySeed<'k> {
            kind: &'k str,
        }

        impl<'a> serde::de::DeserializeSeed<'a> for BodySeed<'_> {
            type Value = SessionEvent<'a>;

            fn deserialize<D: serde::Deserializer<'a>>(self, d: D) -> Result<SessionEvent<'a>, D::Error> {
                use serde::Deserialize;
                Ok(match self.kind {
                    $($name => SessionEvent::$variant(<$body>::deserialize(d)?),)*
                    other => return Err(serde::de::Error::custom(format!("unknown event kind `{other}`"))),
                })
            }
        }
    };
}

session_events! {
    RunStarted(RunStarted<'a>) = "run_started", os: false;
    LlmCompleted(LlmCompleted<'a>) = "llm_completed", os: false;
    ToolRequested(ToolRequested<'a>) = "tool_requested", os: false;
    ToolCompleted(ToolCompleted<'a>) = "tool_completed", os: false;
    Compressed(Compressed<'a>) = "compressed", os: true;
    PageOut(PageOut<'a>) = "page_out", os: true;
    PageIn(PageIn) = "page_in", os: true;
    RunTerminal(RunTerminal<'a>) = "run_terminal", os: false;
    ToolArgumentRepaired(ToolArgumentRepaired<'a>) = "tool_argument_repaired", os: false;
    PermissionRequested(PermissionRequested<'a>) = "permission_requested", os: false;
    PermissionResolved(PermissionResolved) = "permission_resolved", os: false;
    ToolDenied(ToolDenied<'a>) = "tool_denied", os: false;
    CapabilityChanged(CapabilityChanged<'a>) = "capability_changed", os: true;
    ContextRenewed(ContextRenewed<'a>) = "context_renewed", os: true;
    Suspended(Suspended<'a>) = "suspended", os: true;
    Resumed(Resumed<'a>) = "resumed", os: true;
    ToolGated(ToolGated<'a>) = "tool_gated", os: true;
    SignalDeliveryDisposed(SignalDeliveryDisposed<'a>) = "signal_delivery_disposed", os: true;
    BudgetExceeded(BudgetExceeded<'a>) = "budget_exceeded", os: true;
    BudgetUsageReported(BudgetUsageReported<'a>) = "budget_usage_reported", os: true;
    OperationCancelled(OperationCancelled<'a>) = "operation_cancelled", os: true;
    CheckpointTaken(CheckpointTaken) = "checkpoint_taken", os: true;
    EntropySample(EntropySample) = "entropy_sample", os: true;
    EntropyAlert(EntropyAlert) = "entropy_alert", os: true;
    Rollbacked(Rollbacked<'a>) = "rollbacked", os: true;
    AgentProcessChanged(AgentProcessChanged<'a>) = "agent_process_changed", os: true;
    MilestoneAdvanced(MilestoneAdvanced<'a>) = "milestone_advanced", os: true;
    MilestoneBlocked(MilestoneBlocked<'a>) = "milestone_blocked", os: true;
    MemoryWritten(MemoryWritten<'a>) = "memory_written", os: true;
    MemoryQueried(MemoryQueried<'a>) = "memory_queried", os: true;
    MemoryValidationFailed(MemoryValidationFailed<'a>) = "memory_validation_failed", os: true;
    MemoryRetrievalResult(MemoryRetrievalResult<'a>) = "memory_retrieval_result", os: false;
}

/// An event whose kind this version does not know, with its original text.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownEvent<'a> {
    pub kind: Str<'a>,
    pub json: &'a str,
}

impl Serialize for UnknownEvent<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue =
            serde_json::from_str(self.json).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl SessionEvent<'_> {
    /// The turn the event belongs to; `None` for the kinds without one.
    pub fn turn(&self) -> Option<u32> {
        use SessionEvent as E;
        Some(match self {
            E::RunStarted(_) | E::RunTerminal(_) | E::MemoryRetrievalResult(_) | E::Unknown(_) => {
                return None
            }
            E::LlmCompleted(e) => e.turn,
            E::ToolRequested(e) => e.turn,
            E::ToolCompleted(e) => e.turn,
            E::Compressed(e) => e.turn,
            E::PageOut(e) => e.turn,
            E::PageIn(e) => e.turn,
            E::ToolArgumentRepaired(e) => e.turn,
            E::PermissionRequested(e) => e.turn,
            E::PermissionResolved(e) => e.turn,
            E::ToolDenied(e) => e.turn,
            E::CapabilityChanged(e) => e.turn,
            E::ContextRenewed(e) => e.turn,
            E::Suspended(e) => e.turn,
            E::Resumed(e) => e.turn,
            E::ToolGated(e) => e.turn,
            E::SignalDeliveryDisposed(e) => e.turn,
            E::BudgetExceeded(e) => e.turn,
            E::BudgetUsageReported(e) => e.turn,
            E::OperationCancelled(e) => e.turn,
            E::CheckpointTaken(e) => e.turn,
            E::EntropySample(e) => e.turn,
            E::EntropyAlert(e) => e.turn,
            E::Rollbacked(e) => e.turn,
            E::AgentProcessChanged(e) => e.turn,
            E::MilestoneAdvanced(e) => e.turn,
            E::MilestoneBlocked(e) => e.turn,
            E::MemoryWritten(e) => e.turn,
            E::MemoryQueried(e) => e.turn,
            E::MemoryValidationFailed(e) => e.turn,
        })
    }

    /// The event as compact JSON in the kernel's shape.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }
}
