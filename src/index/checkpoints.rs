//! Checkpoints for time travel over a paged index: the light state (OS
//! snapshot and summary) every `spacing` events. Their number stays at most
//! `MAX_KEPT`: when it would pass it, every other one goes and the spacing
//! doubles. Memory then stays bounded whatever the log's length, and a step
//! back folds at most `spacing` events from the retained texts.

use crate::state::SessionState;

/// The spacing of a short log.
pub const FIRST_SPACING: u64 = 256;
/// At most this many checkpoints are kept: a step back in time folds at
/// most 1/`MAX_KEPT` of the log again, each checkpoint a light state
/// whose growing lists the others share.
pub const MAX_KEPT: usize = 1024;

#[derive(Debug)]
pub struct Checkpoints {
    spacing: u64,
    max_kept: usize,
    /// (events folded, the light state after them), by position.
    kept: Vec<(u64, SessionState)>,
}

impl Checkpoints {
    /// One every `spacing` events (at least 1), at most `max_kept` (at least 2).
    pub fn new(spacing: u64, max_kept: usize) -> Self {
        Checkpoints { spacing: spacing.max(1), max_kept: max_kept.max(2), kept: Vec::new() }
    }

    /// Takes one of `state`, which has folded `count` events, when due.
    pub fn offer(&mut self, count: u64, state: &SessionState) {
        if count.checked_rem(self.spacing) != Some(0) {
            return;
        }
        self.kept.push((count, state.checkpoint()));
        if self.kept.len() > self.max_kept {
            self.spacing = self.spacing.saturating_mul(2);
            let spacing = self.spacing;
            self.kept.retain(|(at, _)| at.checked_rem(spacing) == Some(0));
        }
    }

    /// The latest checkpoint at or before `position`: (its count, its state).
    pub fn before(&self, position: u64) -> Option<&(u64, SessionState)> {
        let after = self.kept.partition_point(|(at, _)| *at <= position);
        after.checked_sub(1).and_then(|i| self.kept.get(i))
    }

    /// How many are held and their spacing, for `memoryUsage`-like reports.
    pub fn stats(&self) -> (usize, u64) {
        (self.kept.len(), self.spacing)
    }
}
