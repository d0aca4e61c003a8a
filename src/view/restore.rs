//! Reading a view back from its JSON and rebuilding the folder that made
//! it, so a client that only has an observation (after a live-replay gap)
//! can keep folding from there. The view reads itself back through the
//! definitions that write it (`raw::FromView`, `readable!`); recorded
//! events stay byte for byte.

use std::collections::HashMap;

use super::raw::read_whole;
use super::totals::TotalsFolder;
use super::transcript::TranscriptFolder;
use super::*;
use crate::event::SessionEvent;
use crate::snapshot::{OsSnapshot, OsSnapshotFolder};

impl SessionViewFolder {
    /// The folder whose view is the one in `json`: folding on from it gives
    /// what folding the whole log would have.
    pub fn restore(json: &str) -> std::result::Result<Self, String> {
        let mut view: SessionView = read_whole(json, "view").map_err(|e| e.to_string())?;
        if !has_member(json, "\"totals\"") {
            view.totals = super::RunTotals::of_view(&view);
        }
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
        let turn_index: HashMap<(u32, u32), usize> =
            view.turns.iter().enumerate().map(|(i, t)| ((t.life, t.turn), i)).collect();
        let life = view.lives.last();
        // The current life has a run when the last run started in it.
        let life_has_run = match (&view.run, life) {
            (Some(run), Some(life)) => run.position >= life.first_position,
            _ => false,
        };
        let last = last_measurement(&view, &turn_index)?;
        let totals = TotalsFolder::restore(&view, last.as_ref().map(|m| (m.1, m.2.clone(), m.3)));
        let measured = last.map(|(index, _, request, tokens)| (index, request, tokens));
        Ok(SessionViewFolder {
            turn_index,
            process_index: view
                .processes
                .iter()
                .enumerate()
                .map(|(i, p)| (p.agent_id.clone(), i))
                .collect(),
            transcript: TranscriptFolder::restore(&view.transcript, checkpoints),
            current_turn,
            reported_tokens,
            life_has_run,
            measured,
            totals,
            detail: super::Detail::Full,
            view,
        })
    }
}

/// Whether the object `json` has the top-level member `key` (quoted).
fn has_member(json: &str, key: &str) -> bool {
    super::raw::items(json, b'{').is_some_and(|members| members.iter().any(|m| m.key == key))
}

/// The last prompt measurement (`SessionViewFolder::measured`): read from
/// the last `prompt_measured` the view keeps, its turn summary found by its
/// life (the one its position falls in) and its turn; with that (life, turn).
type Measurement = (usize, (u32, u32), String, u64);

fn last_measurement(
    view: &SessionView,
    turn_index: &HashMap<(u32, u32), usize>,
) -> std::result::Result<Option<Measurement>, String> {
    let Some(entry) = view.model.prompts.last() else { return Ok(None) };
    let Ok(SessionEvent::PromptMeasured(e)) = SessionEvent::from_json(entry.event.get()) else {
        return Err(format!("model.prompts: the entry at position {} is not one", entry.position));
    };
    let life = view.lives.iter().rev().find(|l| l.first_position <= entry.position);
    let at = life.map(|l| (l.life, e.turn));
    let Some((&index, at)) = at.and_then(|at| Some((turn_index.get(&at)?, at))) else {
        return Err(format!("model.prompts: the entry at position {} has no turn", entry.position));
    };
    let m = e.measurement;
    Ok(Some((index, at, m.request_fingerprint.to_string(), m.input_tokens)))
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
