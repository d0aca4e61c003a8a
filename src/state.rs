//! `SessionState`: the OS snapshot and the session view folded together,
//! from events, whole logs, or log chunks.

use crate::event::SessionEvent;
use crate::log::{self, LoadReport, LogError, LogOptions, LogReader};
use crate::snapshot::{OsSnapshot, OsSnapshotFolder};
use crate::view::{os_snapshot_of, Detail, SessionSummary, SessionView, SessionViewFolder};

/// Receives each event folded from a streamed log, with its JSON text.
pub type EventSink<'s> = dyn FnMut(&str, &SessionEvent<'_>) + 's;

/// Sees each event of a streamed log before it is folded, and may refuse
/// it (with why): it is then not folded, and the reader reports it where it
/// is (`limit_exceeded`). What a live session appends a log through, so
/// that its store and its state take the same events.
pub type EventGate<'s> = dyn FnMut(&str, &SessionEvent<'_>) -> Result<(), String> + 's;

/// Distinct kinds this version does not know that a state or an index
/// folds from a log; events of any further one are refused (load errors,
/// `limit_exceeded`). Each such kind is counted in the summary, which every
/// time-travel checkpoint copies: without a bound, a log of ever-new kinds
/// would make folding with checkpoints quadratic.
pub const MAX_UNKNOWN_KINDS: usize = 4096;

/// How many items each list `SessionState::keep_last` cut had: the OS
/// snapshot's by name, each process's history by agent id.
#[derive(Debug)]
pub struct CutTotals {
    pub lists: [(&'static str, usize); 4],
    pub history: Vec<(String, usize)>,
}

#[derive(Debug)]
pub struct SessionState {
    os: OsSnapshotFolder,
    view: SessionViewFolder,
    stream: Option<LogReader>,
    /// How many distinct kinds this version does not know were folded.
    unknown_kinds: usize,
}

impl SessionState {
    pub fn new(session_id: Option<String>) -> Self {
        SessionState {
            os: OsSnapshotFolder::new(),
            view: SessionViewFolder::new(session_id),
            stream: None,
            unknown_kinds: 0,
        }
    }

    /// A state whose view keeps `detail` besides the summary.
    pub fn with_detail(session_id: Option<String>, detail: Detail) -> Self {
        SessionState {
            os: OsSnapshotFolder::new(),
            view: SessionViewFolder::with_detail(session_id, detail),
            stream: None,
            unknown_kinds: 0,
        }
    }

    /// The state a view was folded into (e.g. a live-replay observation's),
    /// ready to fold the events that follow it.
    pub fn from_view_json(json: &str) -> Result<Self, String> {
        let view = SessionViewFolder::restore(json)?;
        let os = OsSnapshotFolder::from_snapshot(os_snapshot_of(view.view())?);
        let unknown_kinds = view.view().counts.unknown_kinds();
        Ok(SessionState { os, view, stream: None, unknown_kinds })
    }

    /// A light copy for time travel: it folds on the OS snapshot and the
    /// summary, not the per-event lists, so many can be held.
    pub fn checkpoint(&self) -> Self {
        SessionState {
            os: self.os.clone(),
            view: self.view.light(),
            stream: None,
            unknown_kinds: self.unknown_kinds,
        }
    }

    /// Folds one event, given with its JSON text as written (the view's
    /// records keep it); its position is the next one.
    pub fn apply(&mut self, event: &SessionEvent<'_>, text: &str) {
        if self.is_new_unknown(event) {
            self.unknown_kinds = self.unknown_kinds.saturating_add(1);
        }
        self.os.apply(event);
        self.view.apply(event, text);
    }

    /// Whether the event is of a kind this version does not know and the
    /// state has not folded yet.
    fn is_new_unknown(&self, event: &SessionEvent<'_>) -> bool {
        matches!(event, SessionEvent::Unknown(u) if self.view.view().counts.count(&u.kind) == 0)
    }

    /// Whether an event a log reader delivers may be folded: one of a new
    /// unknown kind past `MAX_UNKNOWN_KINDS` is refused, for the reader to
    /// report.
    fn admit(&self, event: &SessionEvent<'_>) -> Result<(), String> {
        if self.unknown_kinds >= MAX_UNKNOWN_KINDS && self.is_new_unknown(event) {
            return Err(format!(
                "more than {MAX_UNKNOWN_KINDS} distinct kinds this version does not know"
            ));
        }
        Ok(())
    }

    /// Folds one event given as JSON text.
    pub fn apply_json(&mut self, text: &str) -> Result<(), crate::event::EventError> {
        let event = SessionEvent::from_json(text)?;
        self.apply(&event, text);
        Ok(())
    }

    /// Folds a whole log held in a string; load errors join the view.
    pub fn apply_str(&mut self, text: &str, opts: LogOptions) -> Result<LoadReport, LogError> {
        let report =
            log::read_str(text, opts, &mut Folding { state: self, gate: &mut |_, _| Ok(()) })?;
        self.view.add_load_errors(&report.errors);
        Ok(report)
    }

    /// Folds a whole log held in bytes; load errors join the view.
    pub fn apply_bytes(&mut self, bytes: &[u8], opts: LogOptions) -> Result<LoadReport, LogError> {
        let report =
            log::read_bytes(bytes, opts, &mut Folding { state: self, gate: &mut |_, _| Ok(()) })?;
        self.view.add_load_errors(&report.errors);
        Ok(report)
    }

    /// Folds the next chunk of a log being streamed in; `end` finishes it.
    pub fn write(&mut self, chunk: &[u8], opts: LogOptions) -> Result<(), LogError> {
        self.write_each(chunk, opts, &mut |_, _| {})
    }

    /// `write`, handing each folded event to `sink` too.
    pub fn write_each(
        &mut self,
        chunk: &[u8],
        opts: LogOptions,
        sink: &mut EventSink<'_>,
    ) -> Result<(), LogError> {
        self.write_through(chunk, opts, &mut |t, e| {
            sink(t, e);
            Ok(())
        })
    }

    /// `write`, each event folded only if `gate` lets it through.
    pub fn write_through(
        &mut self,
        chunk: &[u8],
        opts: LogOptions,
        gate: &mut EventGate<'_>,
    ) -> Result<(), LogError> {
        let mut reader = self.stream.take().unwrap_or_else(|| LogReader::new(opts));
        let before = reader.errors().len();
        let result = reader.push(chunk, &mut Folding { state: self, gate });
        self.view.add_load_errors(errors_since(&reader, before));
        self.stream = Some(reader);
        result
    }

    /// Ends a streamed log: the unterminated last line or buffered array.
    pub fn end(&mut self) -> Result<LoadReport, LogError> {
        self.end_each(&mut |_, _| {})
    }

    /// `end`, handing each folded event to `sink` too.
    pub fn end_each(&mut self, sink: &mut EventSink<'_>) -> Result<LoadReport, LogError> {
        self.end_through(&mut |t, e| {
            sink(t, e);
            Ok(())
        })
    }

    /// `end`, each event folded only if `gate` lets it through.
    pub fn end_through(&mut self, gate: &mut EventGate<'_>) -> Result<LoadReport, LogError> {
        let mut reader = self.stream.take().unwrap_or_default();
        let before = reader.errors().len();
        let result = reader.finish(&mut Folding { state: self, gate });
        self.view.add_load_errors(errors_since(&reader, before));
        result.map(|()| reader.report())
    }

    pub fn event_count(&self) -> u64 {
        self.view.view().event_count
    }

    /// The largest turn folded so far.
    pub fn revision(&self) -> u64 {
        self.view.view().revision
    }

    pub fn os_snapshot(&self) -> &OsSnapshot {
        self.os.snapshot()
    }

    /// The full view; in a checkpoint its per-event lists are empty.
    pub fn view(&self) -> &SessionView {
        self.view.view()
    }

    /// The full view, the state done with (no copy of its lists).
    pub fn into_view(self) -> SessionView {
        self.view.into_view()
    }

    /// Cuts the lists that grow with the log (the OS snapshot's records,
    /// each process's history) to their last `n` items, for display: the
    /// state then describes less than it folded, so it is for showing, not
    /// for folding on. Returns how many each list had.
    pub fn keep_last(&mut self, n: usize) -> CutTotals {
        CutTotals { lists: self.os.keep_last(n), history: self.view.keep_last_history(n) }
    }

    pub fn summary(&self) -> SessionSummary<'_> {
        self.view.summary()
    }
}

/// A state folding what a log reader delivers and `gate` lets through.
struct Folding<'s, 'f> {
    state: &'s mut SessionState,
    gate: &'s mut EventGate<'f>,
}

impl log::EventSink for Folding<'_, '_> {
    fn event(&mut self, json: &str, event: &SessionEvent<'_>) -> Result<(), String> {
        self.state.admit(event)?;
        (self.gate)(json, event)?;
        self.state.apply(event, json);
        Ok(())
    }
}

/// The load errors a reader found after it had found `before`.
#[allow(
    clippy::indexing_slicing,
    reason = "a reader's errors only grow: `before` was their count earlier"
)]
fn errors_since(reader: &LogReader, before: usize) -> &[LogError] {
    &reader.errors()[before..]
}
