//! A paged session index, for logs too large to hold as a view: it folds
//! the OS snapshot, the summary and the per-turn figures, keeps each event's
//! text once (`texts`), and answers by position range: events and their
//! texts, filters, full-text search (`search`), and the state at any
//! position (`checkpoints`). No list of copied events or transcript is
//! built; a client reads pages of what it shows.

mod case_table;
mod check;
mod checkpoints;
mod search;
mod shown;
mod texts;

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::{BTreeMap, HashMap};

use crate::event::syntax::find_byte;
use crate::event::{SessionEvent, KINDS};
use crate::log::{self, Deferred, EventSink, LoadReport, LogError, LogOptions, LogReader};
use crate::state::SessionState;
pub use crate::state::MAX_UNKNOWN_KINDS;
use crate::view::{Detail, TranscriptEntry, TurnSummary};
pub use check::CheckProgress;
use check::{CheckPass, DeferredSlot};
use checkpoints::Checkpoints;
use search::Query;
pub use shown::shown_state_json;
use texts::{Adopting, RetainedTexts, Span};

/// An event of the index: where its text is, its kind (an index into
/// `KINDS`, then into the index's unknown kinds) and its turn.
#[derive(Debug, Clone, Copy)]
struct Slot {
    span: Span,
    kind: u32,
    /// `NO_TURN` for the kinds without one.
    turn: u32,
}

const NO_TURN: u32 = u32::MAX;

/// One event of a page.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct IndexedEvent<'a> {
    /// 1-based, as in the view.
    pub position: u64,
    pub kind: &'a str,
    pub turn: Option<u32>,
    /// The event's JSON as written.
    pub text: &'a str,
}

/// Which events a filter keeps: those of the kinds listed (a kind, or
/// `kernel_observation/<observation_kind>`; any when `None`), plus, when
/// `unknown`, those of every kind this version does not know; and of those,
/// the ones whose text holds `query`. Categories, kernel categories and
/// primitives are sets of kinds: the kind table (`eventKinds()` in JS)
/// turns them into kinds.
#[derive(Debug, Default, Clone)]
pub struct Filter {
    pub kinds: Option<Vec<String>>,
    pub unknown: bool,
    pub query: Option<String>,
}

/// The folds and the retained events, fed by the log reader.
#[derive(Debug)]
struct Folded {
    state: SessionState,
    texts: RetainedTexts,
    slots: Vec<Slot>,
    /// The kinds this version does not know, in order of appearance, and
    /// each one's place among them (a log may hold any number of them).
    unknown_kinds: Vec<String>,
    unknown_ids: HashMap<String, usize>,
    checkpoints: Checkpoints,
    /// While a whole log handed over is read: where its texts are.
    adopting: Option<Adopting>,
    /// The events whose check was deferred, in log order (`check`), and
    /// where the next event given is when its check is deferred.
    deferred: Vec<DeferredSlot>,
    next_deferred: Option<Deferred>,
    /// The load errors before the current reader's first, not counting
    /// those the deferred check found: a deferred event's place among them.
    error_base: usize,
}

impl EventSink for Folded {
    fn event(&mut self, json: &str, event: &SessionEvent<'_>) -> Result<(), String> {
        let deferred = self.next_deferred.take();
        let kind = match event.kind_index() {
            Some(known) => u32::try_from(known).unwrap_or(u32::MAX),
            None => self.unknown_kind_id(event.kind())?,
        };
        let adopted = self.adopting.and_then(|log| log.span(json));
        let span = adopted.or_else(|| self.texts.push(json)).ok_or("an event of 4 GiB or more")?;
        let turn = event.turn().unwrap_or(NO_TURN);
        // Refused, memory is short: the reader says so (`deliver`).
        crate::memory::try_reserve(&mut self.slots, 1).map_err(|_| String::new())?;
        if let Some(at) = deferred {
            // The event is kept with its note, or refused with it.
            crate::memory::try_reserve(&mut self.deferred, 1).map_err(|_| String::new())?;
            let position = (self.slots.len() as u64).saturating_add(1);
            self.deferred.push(DeferredSlot { position, at });
        }
        self.slots.push(Slot { span, kind, turn });
        self.state.apply(event, json);
        self.checkpoints.offer(self.slots.len() as u64, &self.state);
        Ok(())
    }

    fn deferred(&mut self, at: Deferred) {
        let errors_before = self.error_base.saturating_add(at.errors_before);
        self.next_deferred = Some(Deferred { errors_before, ..at });
    }
}

impl Folded {
    /// The id of a kind this version does not know: after the known ones;
    /// refused past `MAX_UNKNOWN_KINDS` of them.
    fn unknown_kind_id(&mut self, kind: &str) -> Result<u32, String> {
        let i = match self.unknown_ids.get(kind) {
            Some(&i) => i,
            None if self.unknown_kinds.len() >= MAX_UNKNOWN_KINDS => {
                return Err(format!(
                    "more than {MAX_UNKNOWN_KINDS} distinct kinds this version does not know"
                ))
            }
            None => {
                let i = self.unknown_kinds.len();
                self.unknown_kinds.push(kind.to_string());
                self.unknown_ids.insert(kind.to_string(), i);
                i
            }
        };
        // Known kinds and MAX_UNKNOWN_KINDS fit in a u32.
        Ok(i.checked_add(KINDS.len()).and_then(|id| u32::try_from(id).ok()).unwrap_or(u32::MAX))
    }

    /// The text of the event at a 1-based position.
    fn text_at(&self, position: u64) -> Option<&str> {
        let slot = self.slots.get(usize::try_from(position.checked_sub(1)?).ok()?)?;
        self.texts.get(slot.span)
    }

    /// The event of a slot as a fold takes it: built from the slot when
    /// its body is its turn or nothing, or, with `skeletons`, one only the
    /// per-event lists read (`SessionEvent::skeleton`); else read again
    /// from its text (every retained text was read once; a deferred one
    /// is checked before any read reaches it).
    fn event_of(&self, slot: &Slot, skeletons: bool) -> Option<(SessionEvent<'_>, &str)> {
        let text = self.texts.get(slot.span)?;
        let kind = slot.kind as usize;
        let turn = (slot.turn != NO_TURN).then_some(slot.turn);
        let skeleton = || turn.filter(|_| skeletons).and_then(|t| SessionEvent::skeleton(kind, t));
        match SessionEvent::bare(kind, turn).or_else(skeleton) {
            Some(built) => Some((built, text)),
            None => SessionEvent::from_json(text).ok().map(|parsed| (parsed, text)),
        }
    }

    /// Folds the state and the checkpoints again from the slots, as the
    /// load folded them (the deferred check's repair).
    fn refold(&mut self, session_id: Option<String>, (spacing, max_kept): (u64, usize)) {
        let mut state = SessionState::with_detail(session_id, Detail::Turns);
        let mut checkpoints = Checkpoints::new(spacing, max_kept);
        for (i, slot) in self.slots.iter().enumerate() {
            if let Some((event, text)) = self.event_of(slot, false) {
                state.apply(&event, text);
            }
            checkpoints.offer((i as u64).saturating_add(1), &state);
        }
        self.state = state;
        self.checkpoints = checkpoints;
    }

    fn kind_name(&self, id: u32) -> &str {
        let id = id as usize;
        match KINDS.get(id) {
            Some(kind) => kind,
            None => id
                .checked_sub(KINDS.len())
                .and_then(|i| self.unknown_kinds.get(i))
                .map_or("", |k| k),
        }
    }
}

/// A paged index of one session's log (see the module doc).
#[derive(Debug)]
pub struct SessionIndex {
    folded: Folded,
    reader: Option<LogReader>,
    load_errors: Vec<LogError>,
    /// The position `state_at` last gave and a light copy of its state: a
    /// step forward from there (a drag of the scrubber, playback) folds
    /// only the events in between, not all those since the checkpoint.
    last_state: RefCell<Option<(u64, SessionState)>>,
    /// Whether non-strict loads defer the check of the events no fold
    /// reads (`deferring`), and how far that check got.
    defer_check: bool,
    check: RefCell<CheckPass>,
    /// What the check's refold (`finish_check`) starts from.
    session_id: Option<String>,
    spacing: (u64, usize),
}

impl SessionIndex {
    /// About what an index of a log of `log_bytes` needs: every text once
    /// and, beside them, its slots, turns and checkpoints and the room a
    /// growing list's copy takes, three eighths more. What a caller that
    /// knows the log's size makes room for at once (benches/RESULTS.md,
    /// "wt-core8", has what the viewer's log needs).
    pub fn expected_bytes(log_bytes: usize) -> usize {
        log_bytes.saturating_add((log_bytes / 8).saturating_mul(3))
    }

    pub fn new(session_id: Option<String>) -> Self {
        Self::with_checkpoints(session_id, checkpoints::FIRST_SPACING, checkpoints::MAX_KEPT)
    }

    /// An index taking a checkpoint every `spacing` events, at most
    /// `max_kept` (the spacing doubles to stay under it): more checkpoints
    /// cost memory, fewer make `state_at` fold more events.
    pub fn with_checkpoints(session_id: Option<String>, spacing: u64, max_kept: usize) -> Self {
        SessionIndex {
            folded: Folded {
                state: SessionState::with_detail(session_id.clone(), Detail::Turns),
                texts: RetainedTexts::default(),
                slots: Vec::new(),
                unknown_kinds: Vec::new(),
                unknown_ids: HashMap::new(),
                checkpoints: Checkpoints::new(spacing, max_kept),
                adopting: None,
                deferred: Vec::new(),
                next_deferred: None,
                error_base: 0,
            },
            reader: None,
            load_errors: Vec::new(),
            last_state: RefCell::new(None),
            defer_check: false,
            check: RefCell::default(),
            session_id,
            spacing: (spacing, max_kept),
        }
    }

    /// Defers, in the non-strict loads that follow, the check of the
    /// events of kinds whose body no fold reads (`SessionEvent::
    /// from_json_deferring`) to a pass run after (`check_step`), so that
    /// the log is navigable sooner.
    /// An option, off by default: a caller that reads `load_errors` at
    /// `end` (the API's contract until now) gets every error there; the
    /// viewer, which shows the log first and the errors as they come, opts
    /// in and runs the pass between messages. Strict loads never defer.
    pub fn deferring(mut self, on: bool) -> Self {
        self.defer_check = on;
        self
    }

    /// The options a load of this index reads with.
    fn options(&self, opts: LogOptions) -> LogOptions {
        LogOptions { defer_check: self.defer_check, ..opts }
    }

    /// Where the load errors of a reader that has reported `reported`
    /// so far start (`Folded::error_base`).
    fn set_error_base(&mut self, reported: usize) {
        let merged = self.check.get_mut().merged();
        self.folded.error_base =
            self.load_errors.len().saturating_sub(merged).saturating_sub(reported);
    }

    /// Indexes a whole log held in bytes (any framing); its load errors
    /// are kept beside the events.
    pub fn apply_bytes(&mut self, bytes: &[u8], opts: LogOptions) -> Result<LoadReport, LogError> {
        self.set_error_base(0);
        let report = log::read_bytes(bytes, self.options(opts), &mut self.folded)?;
        self.load_errors.extend_from_slice(&report.errors);
        Ok(report)
    }

    /// Indexes a whole log handed over (any framing), which then holds its
    /// events' texts: they are not copied. A log that is not UTF-8 is read
    /// as `apply_bytes` reads it.
    pub fn apply_log(&mut self, log: Vec<u8>, opts: LogOptions) -> Result<LoadReport, LogError> {
        let log = match log::utf8::into_string(log) {
            Ok(log) => log,
            Err(not_utf8) => return self.apply_bytes(&not_utf8, opts),
        };
        self.set_error_base(0);
        let opts = self.options(opts);
        let report = self.adopting(log, 0, |text, folded| log::read_str(text, opts, folded))?;
        self.load_errors.extend_from_slice(&report.errors);
        Ok(report)
    }

    /// Reads `log[from..]` with `read`, then keeps `log` as a segment of
    /// the texts, which the texts read from it are spans of (not copies),
    /// whether the read succeeded or not: the events it took point there.
    fn adopting<T>(
        &mut self,
        log: String,
        from: usize,
        read: impl FnOnce(&str, &mut Folded) -> T,
    ) -> T {
        let segment = self.folded.texts.reserve_segment();
        self.folded.adopting = segment.map(|segment| Adopting::new(segment, &log));
        let read = read(log.get(from..).unwrap_or_default(), &mut self.folded);
        self.folded.adopting = None;
        if let Some(segment) = segment {
            self.folded.texts.adopt(segment, log);
        }
        read
    }

    /// Indexes the next chunk of a log being streamed in; `end` finishes
    /// it. The chunk, handed over, becomes a segment of the texts (`chunk`).
    pub fn write(&mut self, chunk: Vec<u8>, opts: LogOptions) -> Result<(), LogError> {
        let opts = self.options(opts);
        let mut reader = self.reader.take().unwrap_or_else(|| LogReader::new(opts));
        let before = reader.errors().len();
        self.set_error_base(before);
        let result = self.chunk(&mut reader, chunk);
        self.load_errors.extend(reader.errors().iter().skip(before).cloned());
        self.reader = Some(reader);
        self.merge_found();
        result
    }

    /// A chunk of lines is kept as it is, its whole lines read in place:
    /// only its first line, when it completes one begun in an earlier
    /// chunk, and its unterminated last line are copied (the reader keeps a
    /// line's start). That first line's bytes, read, are overwritten with
    /// newlines: a character may straddle the two chunks, and a segment is
    /// UTF-8. A chunk of an array, of a log whose framing is not known yet,
    /// or one that is not UTF-8 is pushed as the reader takes any chunk.
    fn chunk(&mut self, reader: &mut LogReader, mut chunk: Vec<u8>) -> Result<(), LogError> {
        let folded = &mut self.folded;
        let head = if reader.at_line_start() {
            0
        } else {
            match find_byte(&chunk, b'\n') {
                Some(newline) => newline.saturating_add(1),
                None => return reader.push(&chunk, folded),
            }
        };
        reader.push(chunk.get(..head).unwrap_or_default(), folded)?;
        let body_end = chunk.iter().rposition(|&b| b == b'\n').map_or(0, |i| i.saturating_add(1));
        if !reader.at_line_start() || body_end <= head {
            return reader.push(chunk.get(head..).unwrap_or_default(), folded);
        }
        let tail = chunk.split_off(body_end);
        chunk.get_mut(..head).unwrap_or_default().fill(b'\n');
        match String::from_utf8(chunk) {
            Ok(lines) => {
                self.adopting(lines, head, |lines, folded| reader.push_lines_str(lines, folded))?
            }
            Err(not_utf8) => reader
                .push(not_utf8.as_bytes().get(head..).unwrap_or_default(), &mut self.folded)?,
        }
        reader.push(&tail, &mut self.folded)
    }

    /// Ends a streamed log: its unterminated last line or buffered array.
    pub fn end(&mut self) -> Result<LoadReport, LogError> {
        let mut reader = self.reader.take().unwrap_or_default();
        let before = reader.errors().len();
        self.set_error_base(before);
        let result = reader.finish(&mut self.folded);
        self.load_errors.extend(reader.errors().iter().skip(before).cloned());
        self.merge_found();
        result.map(|()| reader.report())
    }

    pub fn event_count(&self) -> u64 {
        self.folded.slots.len() as u64
    }

    /// The state after the last event: OS snapshot, summary, turns.
    pub fn state(&self) -> &SessionState {
        &self.folded.state
    }

    /// The per-turn figures, without the events.
    pub fn turns(&self) -> &[TurnSummary] {
        &self.state().view().turns
    }

    /// The per-turn numbers by column (`TURN_SERIES` names them), one
    /// column after the other: what a chart of the turns reads, without a
    /// record, a map of kinds and a list of calls per turn. Counts past
    /// 2^53 are rounded (`turns` has them exact).
    pub fn turn_series(&self) -> Vec<f64> {
        let turns = self.turns();
        TURN_COLUMNS.iter().flat_map(|column| turns.iter().map(column)).collect()
    }

    /// (A `Vec`, so JS gets it through the serializer the load reports use.)
    pub fn load_errors(&self) -> &Vec<LogError> {
        &self.load_errors
    }

    /// The event at a 1-based position.
    /// An event whose deferred check finds it invalid is refused (`None`),
    /// as an eager load never took it.
    pub fn event(&self, position: u64) -> Option<IndexedEvent<'_>> {
        self.check_through(position);
        if self.refused(position) {
            return None;
        }
        let index = usize::try_from(position.checked_sub(1)?).ok()?;
        let slot = self.folded.slots.get(index)?;
        Some(IndexedEvent {
            position,
            kind: self.folded.kind_name(slot.kind),
            turn: (slot.turn != NO_TURN).then_some(slot.turn),
            text: self.folded.texts.get(slot.span)?,
        })
    }

    /// The events at positions `from..=to` (1-based, clamped to the log).
    pub fn events(&self, from: u64, to: u64) -> impl Iterator<Item = IndexedEvent<'_>> {
        (from.max(1)..=to.min(self.event_count())).filter_map(|p| self.event(p))
    }

    /// The events at the given positions (1-based), in the order given;
    /// positions outside the log are skipped.
    pub fn events_at<'s>(
        &'s self,
        positions: &'s [u32],
    ) -> impl Iterator<Item = IndexedEvent<'s>> + 's {
        positions.iter().filter_map(|&p| self.event(u64::from(p)))
    }

    /// The state as of `position` (0: before the first event): the latest
    /// checkpoint at or before it, or the state last given if it is nearer,
    /// with the events after it folded again from their texts. A light
    /// state: OS snapshot and summary.
    pub fn state_at(&self, position: u64) -> SessionState {
        let position = position.min(self.event_count());
        self.check_through(position);
        let checkpoint = self.folded.checkpoints.before(self.clean_through(position));
        let last = self.last_state.take().filter(|(at, _)| {
            *at <= position && checkpoint.is_none_or(|(checkpoint_at, _)| checkpoint_at <= at)
        });
        let (from, mut state) = match (last, checkpoint) {
            (Some(last), _) => last,
            (None, Some((at, cp))) => (*at, cp.checkpoint()),
            (None, None) => (0, self.empty_light_state()),
        };
        self.fold_into(&mut state, from.saturating_add(1), position, true);
        self.last_state.replace(Some((position, state.checkpoint())));
        state
    }

    /// Folds the events at positions `from..=to` into `state`, each as
    /// `Folded::event_of` gives it, with skeletons into a `light` state
    /// (summary and OS snapshot); an event the deferred check refuses is
    /// left out.
    fn fold_into(&self, state: &mut SessionState, from: u64, to: u64, light: bool) {
        self.check_through(to);
        for position in from.max(1)..=to.min(self.event_count()) {
            let Some(slot) = self.slot(position).filter(|_| !self.refused(position)) else {
                continue;
            };
            if let Some((event, text)) = self.folded.event_of(slot, light) {
                state.apply(&event, text);
            }
        }
    }

    /// The last `last` transcript entries of the events at positions
    /// `from..=to` folded on their own, as if the log began at `from` (an
    /// entry begun before it is not there; lives count from it), at the
    /// log's positions: a page's transcript around a position, in one call.
    pub fn transcript(&self, from: u64, to: u64, last: usize) -> Vec<TranscriptEntry> {
        let from = from.max(1);
        let mut state = SessionState::new(None);
        self.fold_into(&mut state, from, to, false);
        let mut entries = state.into_view().transcript;
        entries.drain(..entries.len().saturating_sub(last));
        for entry in &mut entries {
            entry.shift(from.saturating_sub(1));
        }
        entries
    }

    fn empty_light_state(&self) -> SessionState {
        let id = self.state().view().session_id.clone();
        SessionState::with_detail(id, Detail::Summary)
    }

    /// The positions of the events `filter` keeps, in order. With a query,
    /// only the events holding it are looked at (found by a scan of whole
    /// segments, `next_match`); without, every event's kind.
    pub fn filter(&self, filter: &Filter) -> Vec<u64> {
        let passes = self.kind_passes(filter);
        let subs = sub_kinds(filter);
        let observation = kind_index("kernel_observation");
        let key = Query::new(OBSERVATION_KIND_KEY);
        let kept = |position: u64| {
            let Some(slot) = self.slot(position) else { return false };
            let Some(&listed) = passes.get(slot.kind as usize) else { return false };
            // The text only when the kind alone does not decide: texts are
            // spread over the whole log, slots are packed.
            listed
                || Some(slot.kind) == observation
                    && !subs.is_empty()
                    && self
                        .folded
                        .texts
                        .get(slot.span)
                        .zip(key.as_ref())
                        .and_then(|(text, key)| observation_kind(text, key))
                        .is_some_and(|k| subs.iter().any(|sub| *sub == k))
        };
        match filter.query.as_deref().and_then(Query::new) {
            Some(query) => self.matches(&query).filter(|&p| kept(p)).collect(),
            None => (1..=self.event_count()).filter(|&p| kept(p)).collect(),
        }
    }

    /// The slot at a 1-based position.
    fn slot(&self, position: u64) -> Option<&Slot> {
        self.folded.slots.get(usize::try_from(position.checked_sub(1)?).ok()?)
    }

    /// The positions of the events whose text holds `query`, in order.
    fn matches<'s>(&'s self, query: &'s Query<'_>) -> impl Iterator<Item = u64> + 's {
        let mut next = Some(1);
        std::iter::from_fn(move || {
            let found = self.next_match(query, next?);
            next = found.and_then(|p| p.checked_add(1));
            found
        })
    }

    /// For each kind id, whether the filter keeps it.
    fn kind_passes(&self, filter: &Filter) -> Vec<bool> {
        let listed = |name: &str| filter.kinds.as_ref().is_none_or(|l| l.iter().any(|n| n == name));
        let known = KINDS.iter().map(|kind| listed(kind));
        let unknown = self.folded.unknown_kinds.iter().map(|kind| filter.unknown || listed(kind));
        known.chain(unknown).collect()
    }

    /// The positions of up to `limit` events from `from` (1-based) whose
    /// text holds `query`, and the position to continue from (`None` at the
    /// end of the log).
    pub fn search(&self, query: &str, from: u64, limit: usize) -> (Vec<u64>, Option<u64>) {
        let Some(query) = Query::new(query) else { return (Vec::new(), None) };
        let mut found = Vec::new();
        let mut next = from.max(1);
        while next <= self.event_count() {
            if found.len() >= limit {
                return (found, Some(next));
            }
            match self.next_match(&query, next) {
                Some(position) => {
                    found.push(position);
                    next = position.saturating_add(1);
                }
                None => break,
            }
        }
        (found, None)
    }

    /// The first event at or after `from` whose text holds `query`: a scan
    /// of each segment from the event's offset, the match placed in its
    /// event by a galloping search of the slots from there (a frequent
    /// query matches in the event the scan started in, or the next). A
    /// match outside every text, in what an adopted log holds between
    /// them, is passed over.
    fn next_match(&self, query: &Query<'_>, from: u64) -> Option<u64> {
        let slots = &self.folded.slots;
        let mut index = usize::try_from(from.checked_sub(1)?).ok()?;
        while let Some(slot) = slots.get(index) {
            let segment_id = slot.span.segment;
            let segment = self.folded.texts.segment(segment_id)?;
            let in_segment = |s: &Slot| s.span.segment == segment_id;
            let Some(found_at) = query.find(segment, slot.span.start as usize) else {
                index = gallop(slots, index, in_segment);
                continue;
            };
            let at = found_at.start;
            // The first slot from `index` not ending before `at` in this segment.
            let holder = gallop(slots, index, |s| in_segment(s) && s.span.end() <= at);
            let found = slots.get(holder)?;
            // A match that starts on the newline after a text, or runs
            // past the text it starts in, is no event's.
            let starts_in = in_segment(found) && at >= found.span.start as usize;
            if starts_in && found_at.end <= found.span.end() {
                return Some((holder as u64).saturating_add(1));
            }
            index = if starts_in { holder.checked_add(1)? } else { holder };
        }
        None
    }

    /// How many `kernel_observation` events there are of each
    /// `observation_kind`.
    pub fn observation_kinds(&self) -> BTreeMap<String, u64> {
        let mut counts = BTreeMap::new();
        let observation = kind_index("kernel_observation");
        let Some(key) = Query::new(OBSERVATION_KIND_KEY) else { return counts };
        for slot in self.folded.slots.iter().filter(|s| Some(s.kind) == observation) {
            let text = self.folded.texts.get(slot.span).unwrap_or_default();
            if let Some(kind) = observation_kind(text, &key) {
                crate::view::bump(&mut counts, &kind);
            }
        }
        counts
    }

    /// Bytes held by the retained texts, and the checkpoints' count and spacing.
    pub fn memory_stats(&self) -> (usize, usize, u64) {
        let (kept, spacing) = self.folded.checkpoints.stats();
        (self.folded.texts.capacity(), kept, spacing)
    }
}

/// The columns of `SessionIndex::turn_series`, in order: `TurnSummary`
/// fields.
pub const TURN_SERIES: [&str; 9] = [
    "life",
    "turn",
    "first_position",
    "last_position",
    "event_count",
    "tokens",
    "input_tokens",
    "output_tokens",
    "errors",
];

/// Reads each `TURN_SERIES` column of a turn.
#[allow(clippy::cast_precision_loss, reason = "a chart's number: `turns` has them exact")]
const TURN_COLUMNS: [fn(&TurnSummary) -> f64; 9] = [
    |t| t.life.into(),
    |t| t.turn.into(),
    |t| t.first_position.0 as f64,
    |t| t.last_position.0 as f64,
    |t| t.event_count as f64,
    |t| t.tokens as f64,
    |t| t.input_tokens as f64,
    |t| t.output_tokens as f64,
    |t| t.errors as f64,
];

/// A known kind's id.
fn kind_index(kind: &str) -> Option<u32> {
    crate::event::kind_place(kind).and_then(|i| u32::try_from(i).ok())
}

/// The `kernel_observation/<observation_kind>` entries of a filter's kinds.
fn sub_kinds(filter: &Filter) -> Vec<String> {
    let kinds = filter.kinds.iter().flatten();
    kinds.filter_map(|k| k.strip_prefix("kernel_observation/")).map(str::to_string).collect()
}

/// The first index at or after `from` where `holds` is false (the length
/// of `items` if none), for `holds` true then false over `items[from..]`:
/// steps of 1, 2, 4, ... then a binary search, so a near answer costs a
/// few looks and a far one a logarithm.
fn gallop<T>(items: &[T], from: usize, holds: impl Fn(&T) -> bool) -> usize {
    let rest = items.get(from..).unwrap_or_default();
    // Past `end`, the answer is not before: `rest[end - 1]` holds.
    let mut end = 1;
    while end <= rest.len() && rest.get(end.saturating_sub(1)).is_some_and(&holds) {
        end = end.saturating_mul(2);
    }
    let low = end / 2;
    let window = rest.get(low..end.min(rest.len())).unwrap_or_default();
    from.saturating_add(low).saturating_add(window.partition_point(holds))
}

/// The quoted name of a `kernel_observation`'s `observation_kind` member.
const OBSERVATION_KIND_KEY: &str = "\"observation_kind\"";

/// The `observation_kind` of a `kernel_observation` event's text, `key`
/// being `OBSERVATION_KIND_KEY`'s query. A string without escapes (what the
/// runtime writes) is borrowed; any other goes through the parser.
fn observation_kind<'t>(text: &'t str, key: &Query<'_>) -> Option<Cow<'t, str>> {
    let after = text.get(key.find(text, 0)?.end..)?;
    let value = after.trim_start().strip_prefix(':')?.trim_start();
    let plain = value.strip_prefix('"').and_then(|v| v.split_once('"')).map(|(name, _)| name);
    if let Some(name) = plain.filter(|name| !name.contains('\\')) {
        return Some(Cow::Borrowed(name));
    }
    let mut de = serde_json::Deserializer::from_str(value);
    serde::Deserialize::deserialize(crate::event::objects::ObjectsOnly(&mut de))
        .ok()
        .map(Cow::Owned)
}
