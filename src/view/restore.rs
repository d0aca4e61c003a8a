//! Reading a view back from its JSON and rebuilding the folder that made
//! it, so a client that only has an observation (after a live-replay gap)
//! can keep folding from there. The view reads itself back through the
//! definitions that write it (`raw::FromView`, `readable!`); recorded
//! events stay byte for byte.

use std::collections::HashMap;

use super::raw::read_whole;
use super::transcript::TranscriptFolder;
use super::*;
use crate::event::SessionEvent;
use crate::snapshot::{OsSnapshot, OsSnapshotFolder};

impl SessionViewFolder {
    /// The folder whose view is the one in `json`: folding on from it gives
    /// what folding the whole log would have.
    pub fn restore(json: &str) -> std::result::Result<Self, String> {
        let view: SessionView = read_whole(json, "view").map_err(|e| e.to_string())?;
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
        let last = Position(view.event_count);
        let current_turn =
            view.turns.iter().find(|t| t.last_position == last).map_or(0, |t| t.turn);
        // Token counts are input: their sum saturates, as when folding.
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

/// The OS snapshot of the log a view was folded from: the snapshot's fold
/// run over the events the view keeps. The view keeps every event of the
/// kinds that fold reads (tests/restore.rs checks this), each list in log
/// order; each part of the snapshot comes from the kinds of one list, so
/// folding list after list gives what folding in log order gives.
pub fn os_snapshot_of(view: &SessionView) -> std::result::Result<OsSnapshot, String> {
    let mut folder = OsSnapshotFolder::new();
    for entry in entry_lists(view).into_iter().flatten() {
        let event = SessionEvent::from_json(entry.event.get())
            .map_err(|e| format!("the entry at position {}: {}", entry.position, e.message))?;
        folder.apply(&event);
    }
    Ok(folder.into_snapshot())
}
