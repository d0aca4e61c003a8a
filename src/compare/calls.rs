//! A turn's transcript entries as the comparison reads them (its calls,
//! its goal and messages, its suspensions, resumptions and rollbacks), and the alignment of two turns' calls.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use std::collections::HashMap;

use crate::units::Position;
use crate::view::{ToolOutcome, TranscriptEntry};

/// A tool call of the transcript, borrowed from the view.
#[derive(Debug, Clone, Copy)]
pub struct CallRef<'v> {
    pub position: Position,
    pub call_id: &'v str,
    pub name: Option<&'v str>,
    pub arguments: &'v str,
    pub result: Option<&'v ToolOutcome>,
    pub denied: Option<&'v str>,
    pub gated: Option<&'v str>,
}

impl<'v> CallRef<'v> {
    /// The tool's name; a result whose call was never seen goes by its id.
    #[inline]
    pub fn label(&self) -> &'v str {
        self.name.unwrap_or(self.call_id)
    }

    #[inline]
    pub fn output(&self) -> Option<&'v str> {
        self.result.map(|r| r.output.as_str())
    }

    /// The result's event, else the call's.
    #[inline]
    pub fn result_position(&self) -> Position {
        self.result.map_or(self.position, |r| r.position)
    }

    /// How the call went wrong, if it did: denied, gated, failed (fatal,
    /// of which kind).
    #[inline]
    pub fn error(&self) -> Option<String> {
        let mut parts = Vec::new();
        if let Some(reason) = self.denied {
            parts.push(format!("denied: {reason}"));
        }
        if let Some(reason) = self.gated {
            parts.push(format!("gated: {reason}"));
        }
        if let Some(r) = self.result.filter(|r| r.is_error) {
            let fatal = if r.is_fatal { "fatal error" } else { "error" };
            parts.push(match &r.error_kind {
                Some(kind) => format!("{fatal}: {}", kind.as_str()),
                None => fatal.to_string(),
            });
        }
        (!parts.is_empty()).then(|| parts.join("; "))
    }
}

/// A text the comparison reads, at its event's position.
pub type Placed = (Position, String);

/// What the comparison reads of one turn's transcript entries.
#[derive(Debug, Default)]
pub struct TurnEntries<'v> {
    pub calls: Vec<CallRef<'v>>,
    /// Suspensions, resumptions and rollbacks, described without call ids
    /// (they differ between runs).
    pub marks: Vec<Placed>,
    /// The goal and the assistant messages' texts.
    pub messages: Vec<Placed>,
    /// The first assistant message.
    pub assistant: Option<Position>,
}

/// The transcript's entries grouped by turn, in log order: by each turn's
/// index in the view's `turns` (`index`: `(life, turn)` → that index; there
/// are `count` turns).
#[inline]
pub fn entries_by_turn<'v>(
    transcript: &'v [TranscriptEntry],
    index: &HashMap<(u32, u32), usize>,
    count: usize,
) -> Vec<TurnEntries<'v>> {
    let mut turns: Vec<TurnEntries<'v>> = Vec::new();
    turns.resize_with(count, TurnEntries::default);
    for entry in transcript {
        let Some(at) = index.get(&key_of(entry)).and_then(|&i| turns.get_mut(i)) else {
            continue;
        };
        use TranscriptEntry as T;
        match entry {
            T::ToolCall { position, call_id, name, arguments, result, denied, gated, .. } => {
                at.calls.push(CallRef {
                    position: *position,
                    call_id,
                    name: name.as_deref(),
                    arguments: arguments.get(),
                    result: result.as_ref(),
                    denied: denied.as_deref(),
                    gated: gated.as_deref(),
                });
            }
            T::Assistant { position, text, .. } => {
                at.assistant.get_or_insert(*position);
                at.messages.push((*position, text.clone()));
            }
            T::Goal { position, text, .. } => {
                at.messages.push((*position, format!("goal: {text}")))
            }
            T::Suspended { position, reason, .. } => {
                at.marks.push((*position, format!("suspended: {reason}")));
            }
            T::Resumed { position, approved, denied, .. } => {
                let text = format!("resumed: {} approved, {} denied", approved.len(), denied.len());
                at.marks.push((*position, text));
            }
            T::Rollback { position, checkpoint_history_len, reason, .. } => {
                let why = reason.as_ref().map_or(String::new(), |r| format!(" ({})", r.get()));
                let text = format!("rolled back to history {checkpoint_history_len}{why}");
                at.marks.push((*position, text));
            }
        }
    }
    turns
}

/// The `(life, turn)` an entry belongs to; a goal's is turn 0 of its life,
/// where a run starts (`view::Life::first_turn`).
#[inline]
fn key_of(entry: &TranscriptEntry) -> (u32, u32) {
    use TranscriptEntry as T;
    match entry {
        T::Goal { life, .. } => (*life, 0),
        T::Assistant { life, turn, .. }
        | T::ToolCall { life, turn, .. }
        | T::Suspended { life, turn, .. }
        | T::Resumed { life, turn, .. }
        | T::Rollback { life, turn, .. } => (*life, *turn),
    }
}

/// Which sides a step of an alignment has a call on.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Pairing {
    Both,
    OnlyA,
    OnlyB,
}

/// One step of an alignment: the calls' indexes on each side (on the side
/// without a call, the index of its next call, which may be past the end).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Step {
    pub pairing: Pairing,
    pub a: usize,
    pub b: usize,
}

/// How far ahead a call's tool is looked for on the other side: an extra
/// call is recognised when the other side's call comes again within this
/// many, and the alignment stays linear in a turn of many calls.
const LOOKAHEAD: usize = 32;

/// Aligns two turns' calls in order: calls of the same tool pair up; where
/// the tools differ, a call whose tool the other side has a little later
/// is extra on that side (the nearer such match wins), else the two pair
/// up as different calls.
#[inline]
pub fn align_calls(a: &[CallRef<'_>], b: &[CallRef<'_>]) -> Vec<Step> {
    let mut steps = Vec::with_capacity(a.len().max(b.len()));
    let (mut i, mut j) = (0, 0);
    loop {
        let pairing = match (a.get(i), b.get(j)) {
            (None, None) => break,
            (Some(_), None) => Pairing::OnlyA,
            (None, Some(_)) => Pairing::OnlyB,
            (Some(x), Some(y)) if x.label() == y.label() => Pairing::Both,
            (Some(x), Some(y)) => match (distance(x, b, j), distance(y, a, i)) {
                (Some(to_x), Some(to_y)) if to_x <= to_y => Pairing::OnlyB,
                (Some(_), Some(_)) | (None, Some(_)) => Pairing::OnlyA,
                (Some(_), None) => Pairing::OnlyB,
                (None, None) => Pairing::Both,
            },
        };
        steps.push(Step { pairing, a: i, b: j });
        if pairing != Pairing::OnlyB {
            i = i.saturating_add(1);
        }
        if pairing != Pairing::OnlyA {
            j = j.saturating_add(1);
        }
    }
    steps
}

/// How many calls after `from` the list next calls the tool of `call`
/// (within `LOOKAHEAD`).
#[inline]
fn distance(call: &CallRef<'_>, list: &[CallRef<'_>], from: usize) -> Option<usize> {
    let mut ahead = list.iter().skip(from.saturating_add(1)).take(LOOKAHEAD);
    ahead.position(|c| c.label() == call.label())
}
