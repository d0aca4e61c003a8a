//! The session event schema: the 50 kinds deepstrike 0.2.77 writes, tagged
//! by `"kind"` (the 32 of deepstrike-core 0.2.60 and 18 more), plus unknown
//! kinds kept verbatim. Events borrow their strings from the log text they
//! were parsed from; see `Str`.

mod content;
mod fields;
mod kinds;
pub(crate) mod objects;
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
/// names, the dispatch in `parse`, the turn, the flags and the viewer's
/// metadata cannot disagree. Each line: the variant (named as its body
/// type, with the body's lifetime if any) = "kind": its category, its
/// kernel category (deepstrike's `category_for_kind`), `core` if
/// deepstrike-core 0.2.60 knows it, `turn` if it bears one, `os` if it is a
/// kernel OS event, `snapshot` if the OS snapshot fold reads it (`-` for
/// no), and when it is alarming.
macro_rules! session_events {
    ($($variant:ident $(<$lt:lifetime>)? = $name:literal:
        $category:ident, $kernel:ident, $core:tt, $turn:tt, $os:tt, $folds:tt,
        $alarming:ident;)*) => {
        /// One event of a session log.
        #[derive(Debug, Clone, PartialEq, Serialize)]
        #[serde(tag = "kind", rename_all = "snake_case")]
        pub enum SessionEvent<'a> {
            $($variant($variant $(<$lt>)?),)*
            /// A kind this version does not know: kept, counted and shown,
            /// ignored by the folds.
            #[serde(untagged)]
            Unknown(UnknownEvent<'a>),
        }

        /// Each known kind's place in `KINDS`, named by its variant: the
        /// dispatches compare numbers, not names.
        #[allow(dead_code, reason = "only the discriminants are used")]
        #[derive(Clone, Copy)]
        enum Place { $($variant,)* }

        /// Every known kind's tag, in schema order.
        pub const KINDS: &[&str] = &[$($name),*];

        /// Every known kind with what is known of it, in schema order.
        pub const KIND_TABLE: &[KindInfo] = &[$(KindInfo {
            kind: $name,
            category: Category::$category,
            kernel_category: KernelCategory::$kernel,
            primitive: KernelCategory::$kernel.primitive(),
            core: flag!($core),
            bears_turn: flag!($turn),
            kernel_os: flag!($os),
            snapshot_fold: flag!($folds),
            alarming: Alarming::$alarming,
        }),*];

        impl<'a> SessionEvent<'a> {
            /// The `kind` tag as written in the log.
            pub fn kind(&self) -> &str {
                match self {
                    $(SessionEvent::$variant(_) => $name,)*
                    SessionEvent::Unknown(u) => &u.kind,
                }
            }

            /// The kind's place in `KINDS` (and `KIND_TABLE`); `None` for an
            /// unknown kind. No string comparison: the variant says it. (Each
            /// variant maps to its own place, `Unknown` to the one past the
            /// kinds: the variant's number, read without a table.)
            pub fn kind_index(&self) -> Option<usize> {
                let place = match self {
                    $(SessionEvent::$variant(_) => Place::$variant as usize,)*
                    SessionEvent::Unknown(_) => KINDS.len(),
                };
                (place < KINDS.len()).then_some(place)
            }

            /// True for the 22 kernel OS event kinds (deepstrike-core 0.2.60's).
            pub fn is_kernel_os_event(&self) -> bool {
                match self {
                    $(SessionEvent::$variant(_) => flag!($os),)*
                    SessionEvent::Unknown(_) => false,
                }
            }

            /// The turn the event belongs to; `None` for the kinds without one.
            pub fn turn(&self) -> Option<u32> {
                match self {
                    $(SessionEvent::$variant(_e) => turn_of!($turn, _e),)*
                    SessionEvent::Unknown(_) => None,
                }
            }

            /// True for the 50 kinds this version knows. (A scan of a table:
            /// a `matches!` of 50 strings is KBs of .wasm for no gain.)
            pub fn is_known_kind(kind: &str) -> bool {
                kind_place(kind).is_some()
            }

            /// True for the kinds read strictly (`strict`: the 32 of
            /// deepstrike-core 0.2.60) or tolerantly (all 50).
            pub fn reads_kind(kind: &str, strict: bool) -> bool {
                kind_info(kind).is_some_and(|k| k.core || !strict)
            }

            /// The body of a kind read in the current mode (`text::reading`),
            /// deserialized straight from `text`; `None` for a kind it does
            /// not know. One driver for all kinds (a `from_str` per kind would
            /// repeat its code 50 times in the .wasm).
            fn parse_body(kind: &str, text: &'a str) -> Option<Result<Self, serde_json::Error>> {
                let index = kind_place(kind)?;
                let strict = text::is_strict();
                if !KIND_TABLE.get(index).is_some_and(|k| k.core || !strict) {
                    return None;
                }
                let shape = BODY_SHAPES.get(index)?;
                let mut de = serde_json::Deserializer::from_str(text);
                // Each kind's builder is a few moves: one dispatch holds them
                // all, around one read and one drop of the slots (in place,
                // at the block's end: they are large).
                let event = {
                    let mut slots = fields::Slots::new();
                    if let Err(e) = fields::read(&mut de, shape, &mut slots) {
                        return Some(Err(e));
                    }
                    match index {
                        $(i if i == Place::$variant as usize => {
                            SessionEvent::$variant(fields::Body::build(&mut slots))
                        })*
                        _ => return None,
                    }
                };
                Some(de.end().map(|()| event))
            }
        }

        /// Each known kind's body table (`fields::Body`), in schema order.
        const BODY_SHAPES: &[&fields::Shape] = &[
            $(body_shape!($variant $($lt)?)),*
        ];
    };
}

/// The table of a kind's body type, its lifetime (if any) taken as
/// `'static` (a shape does not depend on it).
macro_rules! body_shape {
    ($body:ident) => {
        &<$body as fields::Body<'static>>::SHAPE
    };
    ($body:ident $lt:lifetime) => {
        &<$body<'static> as fields::Body<'static>>::SHAPE
    };
}

/// A flag of the kind table: a word for yes, `-` for no.
macro_rules! flag {
    (-) => {
        false
    };
    ($yes:ident) => {
        true
    };
}

/// The turn of an event body, for the kinds that bear one.
macro_rules! turn_of {
    (-, $e:ident) => {
        None
    };
    (turn, $e:ident) => {
        Some($e.turn)
    };
}

session_events! {
    RunStarted<'a> = "run_started": Run, Sched, core, -, -, -, Never;
    LlmCompleted<'a> = "llm_completed": Llm, Sched, core, turn, -, -, Never;
    ToolRequested<'a> = "tool_requested": Tools, Sched, core, turn, -, -, Never;
    ToolCompleted<'a> = "tool_completed": Tools, Sched, core, turn, -, -, OnError;
    Compressed<'a> = "compressed": Context, Mm, core, turn, os, -, Never;
    PageOut<'a> = "page_out": Context, Mm, core, turn, os, snapshot, Never;
    PageIn = "page_in": Context, Mm, core, turn, os, snapshot, Never;
    RunTerminal<'a> = "run_terminal": Run, Sched, core, -, -, -, Never;
    ToolArgumentRepaired<'a> = "tool_argument_repaired": Tools, Sched, core, turn, -, -, Never;
    PermissionRequested<'a> = "permission_requested": Permissions, Sched, core, turn, -, -, Never;
    PermissionResolved = "permission_resolved": Permissions, Sched, core, turn, -, -, Never;
    ToolDenied<'a> = "tool_denied": Tools, Sched, core, turn, -, -, Always;
    CapabilityChanged<'a> = "capability_changed": Governance, Syscall, core, turn, os, -, Never;
    ContextRenewed<'a> = "context_renewed": Context, Mm, core, turn, os, -, Never;
    Suspended<'a> = "suspended": Permissions, Sched, core, turn, os, snapshot, Never;
    Resumed<'a> = "resumed": Permissions, Sched, core, turn, os, snapshot, Never;
    ToolGated<'a> = "tool_gated": Tools, Syscall, core, turn, os, snapshot, Never;
    SignalDeliveryDisposed<'a> = "signal_delivery_disposed":
        Signals, Ipc, core, turn, os, snapshot, Never;
    BudgetExceeded<'a> = "budget_exceeded": Budgets, Sched, core, turn, os, snapshot, Always;
    BudgetUsageReported<'a> = "budget_usage_reported":
        Budgets, Sched, core, turn, os, snapshot, Never;
    OperationCancelled<'a> = "operation_cancelled":
        Budgets, Sched, core, turn, os, snapshot, Always;
    CheckpointTaken = "checkpoint_taken": Context, Sched, core, turn, os, -, Never;
    EntropySample = "entropy_sample": Entropy, Sched, core, turn, os, -, Never;
    EntropyAlert = "entropy_alert": Entropy, Sched, core, turn, os, -, Always;
    Rollbacked<'a> = "rollbacked": Context, Sched, core, turn, os, -, Always;
    AgentProcessChanged<'a> = "agent_process_changed":
        Processes, Proc, core, turn, os, snapshot, Never;
    MilestoneAdvanced<'a> = "milestone_advanced": Governance, Sched, core, turn, os, -, Never;
    MilestoneBlocked<'a> = "milestone_blocked": Governance, Sched, core, turn, os, -, Always;
    MemoryWritten<'a> = "memory_written": Memory, Mm, core, turn, os, snapshot, Never;
    MemoryQueried<'a> = "memory_queried": Memory, Mm, core, turn, os, snapshot, Never;
    MemoryValidationFailed<'a> = "memory_validation_failed":
        Memory, Mm, core, turn, os, snapshot, Always;
    MemoryRetrievalResult<'a> = "memory_retrieval_result":
        Memory, Sched, core, -, -, snapshot, Never;
    PromptMeasured<'a> = "prompt_measured": Model, Sched, -, turn, -, -, Never;
    ContextPrepared = "context_prepared": Model, Sched, -, turn, -, -, Never;
    ProviderAttempt = "provider_attempt": Model, Sched, -, -, -, -, Never;
    KernelObservation = "kernel_observation": Kernel, Sched, -, turn, -, -, Never;
    WorkflowNodesSubmitted = "workflow_nodes_submitted": Workflow, Sched, -, turn, -, -, Never;
    WorkflowBatchSpawned = "workflow_batch_spawned": Workflow, Sched, -, turn, -, -, Never;
    WorkflowNodeCompleted = "workflow_node_completed": Workflow, Sched, -, turn, -, -, Never;
    WorkflowCompleted = "workflow_completed": Workflow, Sched, -, turn, -, -, Never;
    RoundStarted = "round_started": Run, Sched, -, -, -, -, Never;
    RoundPaced = "round_paced": Run, Sched, -, -, -, -, Never;
    GroupMemberJoined = "group_member_joined": Processes, Sched, -, -, -, -, Never;
    GroupBudgetCharged = "group_budget_charged": Budgets, Sched, -, -, -, -, Never;
    SummaryUpgraded = "summary_upgraded": Context, Sched, -, -, -, -, Never;
    SemanticArchivePending = "semantic_archive_pending": Context, Sched, -, -, -, -, Never;
    SemanticArchiveCompleted = "semantic_archive_completed": Context, Sched, -, -, -, -, Never;
    SemanticArchiveFailed = "semantic_archive_failed": Context, Sched, -, -, -, -, Always;
    MemoryWriteFailed = "memory_write_failed": Memory, Sched, -, turn, -, -, Always;
    MemoryQueryFailed = "memory_query_failed": Memory, Sched, -, turn, -, -, Always;
}

/// How the event of a kind whose body is its turn (`Turned`) or nothing
/// (`Untyped`) is built: from the kind and the turn alone, which a scan of
/// its text gives (`syntax::top_level`), without deserializing it.
#[derive(Clone, Copy)]
enum BareBody {
    Turned(fn(Turned) -> SessionEvent<'static>),
    Untyped(fn(Untyped) -> SessionEvent<'static>),
}

/// The kinds whose body is a `BareBody`, each with its place in `KINDS`.
const BARE_BODIES: [(Place, BareBody); 17] = {
    use BareBody::{Turned as T, Untyped as U};
    use SessionEvent as E;
    [
        (Place::ContextPrepared, T(E::ContextPrepared)),
        (Place::KernelObservation, T(E::KernelObservation)),
        (Place::WorkflowNodesSubmitted, T(E::WorkflowNodesSubmitted)),
        (Place::WorkflowBatchSpawned, T(E::WorkflowBatchSpawned)),
        (Place::WorkflowNodeCompleted, T(E::WorkflowNodeCompleted)),
        (Place::WorkflowCompleted, T(E::WorkflowCompleted)),
        (Place::MemoryWriteFailed, T(E::MemoryWriteFailed)),
        (Place::MemoryQueryFailed, T(E::MemoryQueryFailed)),
        (Place::ProviderAttempt, U(E::ProviderAttempt)),
        (Place::RoundStarted, U(E::RoundStarted)),
        (Place::RoundPaced, U(E::RoundPaced)),
        (Place::GroupMemberJoined, U(E::GroupMemberJoined)),
        (Place::GroupBudgetCharged, U(E::GroupBudgetCharged)),
        (Place::SummaryUpgraded, U(E::SummaryUpgraded)),
        (Place::SemanticArchivePending, U(E::SemanticArchivePending)),
        (Place::SemanticArchiveCompleted, U(E::SemanticArchiveCompleted)),
        (Place::SemanticArchiveFailed, U(E::SemanticArchiveFailed)),
    ]
};

impl SessionEvent<'static> {
    /// The event of a kind whose body is its turn or nothing (`BareBody`),
    /// from its place in `KINDS` and its turn: what reading its text again
    /// gives, for a text read before (time travel folds events again).
    /// `None` for the other kinds, and for a turned kind without a turn.
    pub fn bare(index: usize, turn: Option<u32>) -> Option<Self> {
        BareBody::of(index)?.event(turn)
    }

    /// An event of the kind at `index` with its turn and the rest of its
    /// body empty (zero scores), for the kinds whose body only the
    /// per-event lists and the turns read, not the summary (its run totals
    /// read prompt measurements and tool calls) or the OS snapshot: a light
    /// state (time travel) folds it as it folds the event as written.
    /// `None` for the other kinds.
    pub fn skeleton(index: usize, turn: u32) -> Option<Self> {
        use SessionEvent as E;
        Some(match index {
            i if i == Place::EntropySample as usize => E::EntropySample(EntropySample {
                turn,
                score: 0.0,
                rho: 0.0,
                repeat_pressure: 0.0,
                failure_rate: 0.0,
                rollbacks_in_window: 0,
                window_turns: 0,
            }),
            i if i == Place::EntropyAlert as usize => {
                E::EntropyAlert(EntropyAlert { turn, score: 0.0, threshold: 0.0 })
            }
            i if i == Place::CheckpointTaken as usize => {
                E::CheckpointTaken(CheckpointTaken { turn, history_len: 0 })
            }
            _ => return None,
        })
    }
}

impl BareBody {
    /// The bare body of the kind at `index` in `KINDS`, if its body is one.
    fn of(index: usize) -> Option<Self> {
        BARE_BODIES.iter().find(|(place, _)| *place as usize == index).map(|(_, body)| *body)
    }

    /// The event, given the text's only `turn` if it has one; `None` when a
    /// `Turned` body has none (the full parse says why).
    fn event(self, turn: Option<u32>) -> Option<SessionEvent<'static>> {
        match self {
            BareBody::Turned(variant) => turn.map(|turn| variant(Turned { turn })),
            BareBody::Untyped(variant) => Some(variant(Untyped {})),
        }
    }
}

/// Declares `Category` and the list of all of them from one list.
macro_rules! categories {
    ($($category:ident),* $(,)?) => {
        /// The viewer's groups of kinds, in display order.
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
        #[serde(rename_all = "snake_case")]
        pub enum Category {
            $($category,)*
        }

        impl Category {
            /// Every category, in display order.
            pub const ALL: &'static [Category] = &[$(Category::$category),*];
        }
    };
}

categories!(
    Run,
    Llm,
    Model,
    Tools,
    Permissions,
    Processes,
    Workflow,
    Budgets,
    Signals,
    Context,
    Memory,
    Governance,
    Entropy,
    Kernel,
);

/// deepstrike's kernel category of a kind (`category_for_kind` in its
/// `runtime/kernel_event_log.py`): `Sched` for every kind it does not name,
/// kernel event or not.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum KernelCategory {
    Syscall,
    Sched,
    Mm,
    Proc,
    Ipc,
}

/// deepstrike's primitive of a kind (`primitive_for_kind`), what its
/// `primitive_filter` matches: the three the kernel categories fold into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Primitive {
    Syscall,
    Mm,
    Sched,
}

impl KernelCategory {
    /// As `primitive_for_kind` maps it: `proc` and `ipc` are scheduling.
    pub const fn primitive(self) -> Primitive {
        match self {
            KernelCategory::Syscall => Primitive::Syscall,
            KernelCategory::Mm => Primitive::Mm,
            KernelCategory::Sched | KernelCategory::Proc | KernelCategory::Ipc => Primitive::Sched,
        }
    }
}

/// When an event of a kind is something a reader should notice.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum Alarming {
    Never,
    Always,
    /// When one of its results is an error (`tool_completed`).
    OnError,
}

crate::json::writable! {
    /// What is known of one kind (a row of `KIND_TABLE`).
    #[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
    pub struct KindInfo {
        pub kind: &'static str,
        pub category: Category,
        /// deepstrike's `category_for_kind`.
        pub kernel_category: KernelCategory,
        /// deepstrike's `primitive_for_kind`.
        pub primitive: Primitive,
        /// deepstrike-core 0.2.60 knows it: strict reading reads only these.
        pub core: bool,
        /// Its events carry a `turn`.
        pub bears_turn: bool,
        /// One of the kernel's OS event kinds.
        pub kernel_os: bool,
        /// The OS snapshot fold reads it.
        pub snapshot_fold: bool,
        pub alarming: Alarming,
    }
}

/// The row of a known kind.
pub fn kind_info(kind: &str) -> Option<&'static KindInfo> {
    KIND_TABLE.get(kind_place(kind)?)
}

/// A known kind's place in `KINDS` (and `KIND_TABLE`), found by a hash of
/// its name and one comparison: every event's kind is looked up, and on
/// wasm32 each comparison of names is a call to a byte-at-a-time `memcmp`
/// (a scan of the table made several).
pub fn kind_place(kind: &str) -> Option<usize> {
    let place = usize::from(*KIND_SLOTS.get(kind_slot(kind.as_bytes()))?);
    KINDS.get(place).filter(|k| **k == kind).map(|_| place)
}

/// The multiplier of `kind_slot`: one that gives every known kind a slot
/// of its own (the build fails otherwise, below).
const KIND_SEED: u64 = 0x5fac_971a_8018_5845;

/// A name's first and last eight bytes and its length, mixed by a multiply,
/// its top byte: a slot of `KIND_SLOTS`. Two loads, not a loop over the
/// name's bytes (a name shorter than eight bytes is one word).
const fn kind_slot(name: &[u8]) -> usize {
    let (head, tail) = match (name.first_chunk::<8>(), name.last_chunk::<8>()) {
        (Some(head), Some(tail)) => (u64::from_le_bytes(*head), u64::from_le_bytes(*tail)),
        _ => (short_word(name), 0),
    };
    let mixed = (head ^ tail.rotate_left(1) ^ name.len() as u64).wrapping_mul(KIND_SEED);
    (mixed >> 56) as usize
}

/// A name of fewer than eight bytes as a little-endian word.
const fn short_word(name: &[u8]) -> u64 {
    let mut word = 0u64;
    let mut rest = name;
    while let [head @ .., last] = rest {
        word = word.rotate_left(8) | *last as u64;
        rest = head;
    }
    word
}

/// Each slot's kind (its place in `KINDS`), `u8::MAX` for none.
#[allow(
    clippy::indexing_slicing,
    reason = "evaluated at compile time: a slot is below 256, a place below KINDS.len()"
)]
const KIND_SLOTS: [u8; 256] = {
    let mut slots = [u8::MAX; 256];
    let mut place = 0;
    while place < KINDS.len() {
        let slot = kind_slot(KINDS[place].as_bytes());
        assert!(slots[slot] == u8::MAX, "two kinds share a slot: change KIND_SEED");
        slots[slot] = place as u8;
        place += 1;
    }
    slots
};

/// An event whose kind this version does not know, with its original text.
#[derive(Debug, Clone, PartialEq)]
pub struct UnknownEvent<'a> {
    pub kind: Str<'a>,
    pub json: &'a str,
}

impl Serialize for UnknownEvent<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let raw: &serde_json::value::RawValue =
            objects::from_str(self.json).map_err(serde::ser::Error::custom)?;
        raw.serialize(s)
    }
}

impl SessionEvent<'_> {
    /// The event as compact JSON in the kernel's shape.
    pub fn to_json(&self) -> String {
        // Serializing these types cannot fail: every map key is a string.
        serde_json::to_string(self).unwrap_or_default()
    }
}

#[cfg(test)]
mod tests {
    use super::{kind_info, kind_place, SessionEvent, KINDS, KIND_TABLE};

    #[test]
    fn every_kind_is_found_at_its_place_and_nothing_else_is() {
        for (place, kind) in KINDS.iter().enumerate() {
            assert_eq!(kind_place(kind), Some(place), "{kind}");
            assert_eq!(kind_info(kind).map(|k| k.kind), KIND_TABLE.get(place).map(|k| k.kind));
            // A name that differs by one byte, or is cut, is not a kind.
            for cut in [&kind[1..], &kind[..kind.len() - 1]] {
                assert_eq!(kind_place(cut), KINDS.iter().position(|k| k == &cut), "{cut}");
            }
            let changed = format!("{kind}x");
            assert_eq!(kind_place(&changed), None);
            assert!(!SessionEvent::is_known_kind(&changed));
        }
        for other in ["", "kind", "Tool_completed", "tool_completed ", "\u{e9}v\u{e9}nement"] {
            assert_eq!(kind_place(other), None, "{other}");
        }
    }

    #[test]
    fn each_event_s_kind_index_is_its_kind_s_place() {
        let mut seen = [false; KINDS.len()];
        for line in crate::generate::SAMPLE_JSONL.lines() {
            let event = SessionEvent::from_json(line).unwrap();
            let place = event.kind_index().unwrap();
            assert_eq!(KINDS[place], event.kind());
            seen[place] = true;
        }
        assert!(seen.iter().all(|&s| s), "the sample has every kind");
        let unknown = SessionEvent::from_json(r#"{"kind":"page_inn"}"#).unwrap();
        assert_eq!(unknown.kind_index(), None);
    }
}
