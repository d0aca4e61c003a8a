//! The deferred check (`SessionIndex::deferring`): the events a load took
//! from a scan (`SessionEvent::from_json_deferring`) are read in full afterwards, in
//! log order, in steps (`SessionIndex::check_step`) or ahead of a read
//! that reaches them. An invalid one is refused from then on, its load
//! error placed among the others where an eager load reports it; once the
//! log has ended and every event is checked, the index drops the invalid
//! events and folds its state again, so that it is the eager load's.

use super::{Folded, SessionIndex};
use crate::event::SessionEvent;
use crate::log::{self, Deferred, LogError};

/// An event whose check was deferred: its position and where it is in
/// the log.
#[derive(Debug, Clone, Copy)]
pub(super) struct DeferredSlot {
    pub position: u64,
    pub at: Deferred,
}

/// How far the deferred check got.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CheckProgress {
    /// Every event up to this position (1-based) is checked.
    pub checked_to: u64,
    /// The log has ended and every event is checked: every load error is
    /// reported, and the state, summary and turns are the eager load's.
    pub done: bool,
}

/// The deferred check's progress and findings.
#[derive(Debug, Default)]
pub(super) struct CheckPass {
    /// The next event of `Folded::deferred` to check.
    next: usize,
    /// The positions found invalid, in order.
    invalid: Vec<u64>,
    /// The errors found and not yet among the load errors, each with its
    /// place there.
    found: Vec<(usize, LogError)>,
    /// How many found errors are among the load errors.
    merged: usize,
}

impl CheckPass {
    pub fn merged(&self) -> usize {
        self.merged
    }

    /// Checks the deferred events in order while `go(checked in this call,
    /// the next one)` says so.
    fn run(&mut self, folded: &Folded, mut go: impl FnMut(usize, &DeferredSlot) -> bool) {
        let mut checked = 0usize;
        while let Some(d) = folded.deferred.get(self.next) {
            if !go(checked, d) {
                break;
            }
            let text = folded.text_at(d.position).unwrap_or_default();
            if let Err(e) = SessionEvent::from_json(text) {
                // Before it: the errors the reader reported before it, and
                // the deferred ones before it, all found already.
                let place = d.at.errors_before.saturating_add(self.invalid.len());
                self.invalid.push(d.position);
                self.found.push((place, log::deferred_error(&d.at, text, e)));
            }
            self.next = self.next.saturating_add(1);
            checked = checked.saturating_add(1);
        }
    }

    fn all_checked(&self, folded: &Folded) -> bool {
        self.next >= folded.deferred.len()
    }

    /// The first invalid event found at or before `position`.
    fn first_invalid(&self, position: u64) -> Option<u64> {
        self.invalid.first().copied().filter(|&p| p <= position)
    }
}

impl SessionIndex {
    /// Checks `budget` more deferred events (a step the viewer's worker
    /// runs between messages) and says how far the check got. Errors found
    /// join `load_errors` where an eager load reports them; once the log
    /// has ended and every event is checked, invalid events are dropped
    /// and the state folded again: positions after one move down by one.
    pub fn check_step(&mut self, budget: usize) -> CheckProgress {
        self.check.get_mut().run(&self.folded, |checked, _| checked < budget);
        self.merge_found();
        let pass = self.check.get_mut();
        let ended = self.reader.is_none() && !self.folded.deferred.is_empty();
        if ended && pass.all_checked(&self.folded) {
            self.finish_check();
        }
        self.check_progress()
    }

    /// How far the deferred check got (all the way, without deferral,
    /// once the log has ended).
    pub fn check_progress(&self) -> CheckProgress {
        let pass = self.check.borrow();
        let checked_to = match self.folded.deferred.get(pass.next) {
            Some(d) => d.position.saturating_sub(1),
            None => self.event_count(),
        };
        let done =
            self.reader.is_none() && pass.all_checked(&self.folded) && pass.invalid.is_empty();
        CheckProgress { checked_to, done }
    }

    /// Checks the deferred events up to `position` before a read of it: an
    /// invalid event is never shown as valid.
    pub(super) fn check_through(&self, position: u64) {
        self.check.borrow_mut().run(&self.folded, |_, d| d.position <= position);
    }

    /// Whether the event at `position`, checked (`check_through`), is
    /// invalid.
    pub(super) fn refused(&self, position: u64) -> bool {
        self.check.borrow().invalid.binary_search(&position).is_ok()
    }

    /// The last position whose state holds no invalid event, up to
    /// `position`: a checkpoint taken after one folded it as valid.
    pub(super) fn clean_through(&self, position: u64) -> u64 {
        let first = self.check.borrow().first_invalid(position);
        first.map_or(position, |p| p.saturating_sub(1))
    }

    /// Puts the errors found so far among the load errors.
    pub(super) fn merge_found(&mut self) {
        let pass = self.check.get_mut();
        for (place, err) in pass.found.drain(..) {
            self.load_errors.insert(place.min(self.load_errors.len()), err);
            pass.merged = pass.merged.saturating_add(1);
        }
    }

    /// Ends a check that reached the end of an ended log: the list of
    /// deferred events is freed, and the invalid events, if any, dropped,
    /// the state and checkpoints folded again from the texts: what the
    /// eager load folded.
    fn finish_check(&mut self) {
        let pass = self.check.get_mut();
        let invalid = std::mem::take(&mut pass.invalid);
        pass.next = 0;
        self.folded.deferred = Vec::new();
        if invalid.is_empty() {
            return;
        }
        let mut position = 0u64;
        self.folded.slots.retain(|_| {
            position = position.saturating_add(1);
            invalid.binary_search(&position).is_err()
        });
        self.last_state.replace(None);
        self.folded.refold(self.session_id.clone(), self.spacing);
    }
}
