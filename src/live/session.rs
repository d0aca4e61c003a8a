//! The session handle: one session's full state (folded over every event
//! ever appended, including those long trimmed from the live buffer) and
//! its live buffer in a shared store; observe, resume and subscribe with
//! gap and lag recovery.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::rc::Rc;

use super::cursor::{CursorError, SessionCursor};
use super::store::{
    AppendError, GapReason, ObservedEvent, Replay, ReplayStore, RestoreBase, StoredEvent,
    SubscribeResult,
};
use super::subscription::{Subscription, SubscriptionItem};
use crate::error::{Error, ErrorCode};
use crate::event::SessionEvent;
use crate::json::{writable, JsonOut, JsonText, WriteJson};
use crate::log::{self, LogError, LogOptions};
use crate::state::{EventGate, SessionState};
use crate::units::{Millis, Position, Revision};
use crate::view::{SessionSummary, SessionView};

/// The current complete observation of a session.
#[derive(Debug, Clone, PartialEq)]
pub struct Observation<V> {
    pub session_id: String,
    pub revision: Revision,
    pub cursor: String,
    pub state: V,
}

impl<V: WriteJson> WriteJson for Observation<V> {
    fn write_json(&self, out: &mut JsonOut) {
        crate::write_object!(out,
            "session_id": self.session_id,
            "revision": self.revision,
            "cursor": self.cursor,
            "state": self.state,
        );
    }
}

writable! {
    /// Why a resume could not replay: what was asked, and where the session is.
    #[derive(Debug, Clone, PartialEq, Eq)]
    pub struct LiveReplayGap {
        pub session_id: String,
        pub requested_cursor: String,
        pub latest_cursor: String,
        pub latest_revision: Revision,
        pub reason: GapReason,
    }
}

/// An observation as sent to a client: the state serialised when taken.
pub type SentObservation = Observation<JsonText>;

#[derive(Debug, Clone, PartialEq)]
pub enum Resume {
    /// Applying `events` to the client's state gives `observe().state`.
    Replayed { events: Vec<ObservedEvent>, cursor: String },
    /// `gap.latest_cursor == observation.cursor`.
    Gap { gap: LiveReplayGap, observation: Box<SentObservation> },
}

/// What a session subscription yields.
#[derive(Debug, Clone, PartialEq)]
pub enum SessionItem {
    Event(ObservedEvent),
    Gap { gap: LiveReplayGap, observation: Box<SentObservation> },
}

/// Why an append to a session was refused; nothing was appended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SessionAppendError {
    /// The log or events had errors (all listed).
    InvalidLog(Vec<LogError>),
    /// More events than the caller allows in one append (the count given).
    TooManyEvents(usize),
    Store(AppendError),
    /// Memory ran short (`crate::memory`) after this many events (the
    /// first ones) were appended.
    ShortOfMemory(usize),
}

impl From<SessionAppendError> for Error {
    fn from(e: SessionAppendError) -> Self {
        match e {
            SessionAppendError::InvalidLog(errors) => {
                Error::invalid_log("nothing appended: ", errors)
            }
            SessionAppendError::TooManyEvents(n) => Error::new(
                ErrorCode::LimitExceeded,
                format!("nothing appended: {n} events, more than allowed at once"),
            ),
            SessionAppendError::Store(e) => e.into(),
            SessionAppendError::ShortOfMemory(appended) => Error::new(
                ErrorCode::LimitExceeded,
                format!("the memory limit was reached after the first {appended} events"),
            ),
        }
    }
}

/// What a session is restored from: its stored events after `base`, with
/// the times they were stored, and the state at a checkpoint among them.
#[derive(Debug, Clone, Copy)]
pub struct Restore<'a> {
    pub base: RestoreBase,
    /// The events after `base`, as JSON Lines (one event per line).
    pub events: &'a [u8],
    /// When each event was stored; an event without one counts as stored now.
    pub times: &'a [Millis],
    /// The position of the state `checkpoint` holds (a view's JSON, as an
    /// observation's `state`), between `base` and the last event; without
    /// one the state is folded from the start, so `base` must be 0.
    pub checkpoint: Option<(Position, &'a str)>,
    /// How many of the newest events form the live window (the storage's
    /// retention); the older ones are only folded.
    pub retain: usize,
}

/// Why reading an append's input stopped: memory ran short (`crate::memory`)
/// after `appended` events, or the input is not a log.
fn read_error(e: LogError, appended: usize) -> SessionAppendError {
    if crate::memory::is_short() {
        SessionAppendError::ShortOfMemory(appended)
    } else {
        SessionAppendError::InvalidLog(vec![e])
    }
}

/// An error of a restore: the input is not what a storage wrote.
fn restore_error(message: impl Into<String>) -> Error {
    Error::new(ErrorCode::InvalidInput, message)
}

struct Inner {
    id: String,
    store: Rc<RefCell<ReplayStore>>,
    state: RefCell<SessionState>,
    /// Why the store refused an event of the log being written, which
    /// stopped it there (`write`).
    stopped: RefCell<Option<AppendError>>,
}

/// A handle on one session. Clones share the session.
#[derive(Clone)]
pub struct ReplaySession {
    inner: Rc<Inner>,
}

impl ReplaySession {
    pub fn new(session_id: &str, store: Rc<RefCell<ReplayStore>>) -> Result<Self, AppendError> {
        if !super::cursor::is_valid_session_id(session_id) {
            return Err(AppendError::InvalidSessionId);
        }
        let state = RefCell::new(SessionState::new(Some(session_id.to_string())));
        let inner = Inner { id: session_id.to_string(), store, state, stopped: RefCell::default() };
        Ok(ReplaySession { inner: Rc::new(inner) })
    }

    pub fn session_id(&self) -> &str {
        &self.inner.id
    }

    pub fn store(&self) -> &Rc<RefCell<ReplayStore>> {
        &self.inner.store
    }

    /// A session restored from its storage (`restore`): its state from the
    /// checkpoint and the events after it, its live window from every event
    /// given, at the positions and with the incarnation they were stored
    /// under (the store's). Its cost follows what is given, not the log.
    pub fn restore(
        session_id: &str,
        store: Rc<RefCell<ReplayStore>>,
        restore: Restore<'_>,
        now: Millis,
    ) -> Result<Self, Error> {
        let session = ReplaySession::new(session_id, Rc::clone(&store))?;
        let (from, state) = match restore.checkpoint {
            Some((position, view)) => (position, SessionState::from_view_json(view)),
            None if restore.base.position == Position::START => {
                (Position::START, Ok(SessionState::new(Some(session_id.to_string()))))
            }
            None => return Err(restore_error("a restore after position 0 needs a checkpoint")),
        };
        let mut state = state.map_err(|e| restore_error(format!("checkpoint: {e}")))?;
        if from < restore.base.position {
            return Err(restore_error("the checkpoint is before the stored events"));
        }
        let mut events = Vec::new();
        let mut position = restore.base.position;
        // Read as `append` read them (unknown kinds are events), or a session
        // holding one could never restart.
        let lines = LogOptions { strict: false, ..Default::default() };
        let report =
            log::read_bytes(restore.events, lines, &mut |json: &str, e: &SessionEvent<'_>| {
                position = position.next();
                if position > from {
                    state.apply(e, json);
                }
                let appended_at = restore.times.get(events.len()).copied().unwrap_or(now);
                events.push(StoredEvent { json: Rc::from(json), turn: e.turn(), appended_at });
            })?;
        if !report.errors.is_empty() {
            return Err(Error::invalid_log("stored events: ", report.errors));
        }
        if from > position {
            return Err(restore_error("the checkpoint is after the stored events"));
        }
        let skipped = events.len().saturating_sub(restore.retain);
        let mut base = restore.base;
        for e in events.drain(..skipped) {
            base.position = base.position.next();
            base.revision = base.revision.max(Revision(e.turn.map_or(0, u64::from)));
        }
        store.borrow_mut().restore_session(session_id, base, events, now)?;
        *session.inner.state.borrow_mut() = state;
        Ok(session)
    }

    /// Checks a log (any framing) or event text as `append` would, without
    /// appending: its events as JSON Lines, one event per line, each as
    /// given but for line breaks (JSON whitespace outside strings) made
    /// spaces. What a storage writes before appending, and then appends.
    pub fn check(
        &self,
        input: &[u8],
        max_events: Option<usize>,
    ) -> Result<String, SessionAppendError> {
        let mut lines = String::with_capacity(input.len());
        self.check_events(input, max_events, &mut |json| {
            if !lines.is_empty() {
                lines.push('\n');
            }
            lines.extend(json.chars().map(|c| if matches!(c, '\r' | '\n') { ' ' } else { c }));
        })?;
        Ok(lines)
    }

    /// The first pass of an append: every event valid, none larger than the
    /// store allows, at most `max_events`; `each` gets each event's text.
    fn check_events(
        &self,
        input: &[u8],
        max_events: Option<usize>,
        each: &mut dyn FnMut(&str),
    ) -> Result<usize, SessionAppendError> {
        let strict = LogOptions { strict: false, ..Default::default() };
        let max_event_bytes = self.inner.store.borrow().config().max_event_bytes;
        let mut too_large = None;
        let report = log::read_bytes(input, strict, &mut |json: &str, _: &SessionEvent<'_>| {
            if json.len() > max_event_bytes {
                too_large.get_or_insert(json.len());
            }
            each(json);
        })
        .map_err(|e| read_error(e, 0))?;
        if !report.errors.is_empty() {
            return Err(SessionAppendError::InvalidLog(report.errors));
        }
        if let Some(size) = too_large {
            return Err(SessionAppendError::Store(AppendError::EventTooLarge(size)));
        }
        if max_events.is_some_and(|max| report.events > max) {
            return Err(SessionAppendError::TooManyEvents(report.events));
        }
        Ok(report.events)
    }

    /// Appends a log (any framing) or event text: all or nothing. Every
    /// event is folded into the state and appended to the store. A first
    /// pass checks every event (and that there are at most `max_events`).
    /// Only memory running short (`crate::memory`) can stop the second
    /// pass midway: the events before are appended and folded (the state
    /// is still the fold of what the store holds), and the error says how
    /// many. Past the limit on the last event, the append happened: it is
    /// reported so.
    pub fn append(
        &self,
        input: &[u8],
        now: Millis,
        max_events: Option<usize>,
    ) -> Result<Vec<ObservedEvent>, SessionAppendError> {
        let count = self.check_events(input, max_events, &mut |_| {})?;
        let strict = LogOptions { strict: false, ..Default::default() };
        // Past the limit, this makes memory short: the read stops at once.
        let mut out = Vec::with_capacity(count);
        let mut failure = None;
        let mut store = self.inner.store.borrow_mut();
        let mut state = self.inner.state.borrow_mut();
        let read = log::read_bytes(input, strict, &mut |json: &str, event: &SessionEvent<'_>| {
            if failure.is_some() {
                return;
            }
            match store.append_checked(&self.inner.id, json, event.turn(), None, now) {
                Ok(observed) => {
                    state.apply(event, json);
                    out.push(observed);
                }
                Err(e) => failure = Some(e),
            }
        });
        // Short of memory on its last event, the append happened whole.
        if let (Err(e), true) = (read, out.len() < count) {
            return Err(read_error(e, out.len()));
        }
        match failure {
            Some(AppendError::ShortOfMemory) => Err(SessionAppendError::ShortOfMemory(out.len())),
            // Only a bad session id or no room for the session can fail here,
            // and either fails the first event: nothing was appended.
            Some(e) => Err(SessionAppendError::Store(e)),
            None => Ok(out),
        }
    }

    /// Appends the events of the next chunk of a log arriving in pieces
    /// (a file being written: lines may straddle chunks, stored entries'
    /// `seq` is checked across them), each read once: appended to the store
    /// and folded as it is read, so the session takes the events a
    /// `SessionState` written the same chunks folds, at the same positions.
    /// Load errors join the state's view, as `SessionState::write`'s do.
    /// Not all or nothing: an event the store refuses stops the log there,
    /// and this and every later `write` or `end` return why. Returns how
    /// many events the chunk appended.
    pub fn write(&self, chunk: &[u8], now: Millis) -> Result<usize, SessionAppendError> {
        let opts = LogOptions { strict: false, ..Default::default() };
        self.stream(now, |state, gate| state.write_through(chunk, opts, gate))
    }

    /// Ends a log written in chunks: appends its unterminated last line.
    pub fn end(&self, now: Millis) -> Result<usize, SessionAppendError> {
        self.stream(now, |state, gate| state.end_through(gate).map(|_| ()))
    }

    /// Reads a part of a streamed log into the state, each event appended
    /// to the store first (`EventGate`).
    fn stream(
        &self,
        now: Millis,
        read: impl FnOnce(&mut SessionState, &mut EventGate<'_>) -> Result<(), LogError>,
    ) -> Result<usize, SessionAppendError> {
        let mut stopped = self.inner.stopped.borrow_mut();
        if let Some(e) = stopped.as_ref() {
            return Err(SessionAppendError::Store(e.clone()));
        }
        let mut store = self.inner.store.borrow_mut();
        let mut appended = 0usize;
        let read = read(&mut self.inner.state.borrow_mut(), &mut |json, event| {
            if stopped.is_some() {
                return Err("not appended: the log stopped at an event the store refused".into());
            }
            match store.append_checked(&self.inner.id, json, event.turn(), None, now) {
                Ok(_) => {
                    appended = appended.saturating_add(1);
                    Ok(())
                }
                Err(e) => {
                    let why = e.to_string();
                    *stopped = Some(e);
                    Err(why)
                }
            }
        });
        // A read stopped short of memory (`crate::memory`) is the limit's,
        // not the log's: the events before it are appended, and the log
        // stops there as at an event the store refuses (the rest of the
        // chunk was not read, so no later chunk may follow on).
        if let Err(e) = read {
            let e = read_error(e, appended);
            if matches!(e, SessionAppendError::ShortOfMemory(_)) {
                *stopped = Some(AppendError::ShortOfMemory);
            }
            return Err(e);
        }
        match stopped.as_ref() {
            Some(e) => Err(SessionAppendError::Store(e.clone())),
            None => Ok(appended),
        }
    }

    pub fn revision(&self) -> Revision {
        self.inner.store.borrow().latest_revision(&self.inner.id)
    }

    pub fn cursor(&self) -> String {
        self.inner.store.borrow().current_cursor(&self.inner.id, None)
    }

    pub fn observe(&self) -> Observation<SessionView> {
        Observation {
            session_id: self.inner.id.clone(),
            revision: self.revision(),
            cursor: self.cursor(),
            state: self.inner.state.borrow().view().clone(),
        }
    }

    /// Reads the state without its per-event lists (`SessionState::summary`):
    /// what a session list shows of each session.
    pub fn read_summary<R>(&self, read: impl FnOnce(&SessionSummary<'_>) -> R) -> R {
        read(&self.inner.state.borrow().summary())
    }

    /// The observation with its state serialised now (JS-safe JSON): what
    /// a client is sent, without copying the view.
    pub fn observe_sent(&self) -> SentObservation {
        Observation {
            session_id: self.inner.id.clone(),
            revision: self.revision(),
            cursor: self.cursor(),
            state: JsonText::of(self.inner.state.borrow().view()),
        }
    }

    fn gap(&self, requested: &str, reason: GapReason) -> (LiveReplayGap, Box<SentObservation>) {
        let observation = Box::new(self.observe_sent());
        let gap = LiveReplayGap {
            session_id: self.inner.id.clone(),
            requested_cursor: requested.to_string(),
            latest_cursor: observation.cursor.clone(),
            latest_revision: observation.revision,
            reason,
        };
        (gap, observation)
    }

    /// The events after `cursor`, or a gap with a fresh observation. A
    /// malformed cursor or one of another session is an error, found
    /// before the store is asked anything.
    pub fn resume(&self, cursor: &str, now: Millis) -> Result<Resume, CursorError> {
        SessionCursor::parse_for_session(cursor, &self.inner.id)?;
        let replay = self.inner.store.borrow_mut().replay_after(cursor, now)?;
        Ok(match replay {
            Replay::Replayed(events) => Resume::Replayed { events, cursor: self.cursor() },
            Replay::Gap(reason) => {
                let (gap, observation) = self.gap(cursor, reason);
                Resume::Gap { gap, observation }
            }
        })
    }

    /// Replay then live from `cursor`; on a gap, first the gap with a fresh
    /// observation, then live from its cursor; on lag, recovers by itself.
    pub fn subscribe(&self, cursor: &str, now: Millis) -> Result<SessionSubscription, CursorError> {
        SessionCursor::parse_for_session(cursor, &self.inner.id)?;
        let mut sub =
            SessionSubscription { session: self.clone(), current: None, pending: VecDeque::new() };
        sub.attach(cursor, now)?;
        Ok(sub)
    }
}

/// A session's replay-then-live stream with gap and lag recovery.
pub struct SessionSubscription {
    session: ReplaySession,
    current: Option<Subscription>,
    pending: VecDeque<SessionItem>,
}

impl SessionSubscription {
    /// Subscribes the store from `cursor`; on a gap, queues the gap and
    /// subscribes from the observation's cursor instead.
    fn attach(&mut self, cursor: &str, now: Millis) -> Result<(), CursorError> {
        let result = self.session.inner.store.borrow_mut().subscribe(cursor, now)?;
        match result {
            SubscribeResult::Subscribed(s) => self.current = Some(s),
            SubscribeResult::Gap(reason) => {
                let (gap, observation) = self.session.gap(cursor, reason);
                let from = observation.cursor.clone();
                self.pending.push_back(SessionItem::Gap { gap, observation });
                let retry = self.session.inner.store.borrow_mut().subscribe(&from, now)?;
                self.current = match retry {
                    SubscribeResult::Subscribed(s) => Some(s),
                    // The current cursor always replays (nothing after it).
                    SubscribeResult::Gap(_) => None,
                };
            }
        }
        Ok(())
    }

    /// The next item if one is pending. `now` is used only to recover from lag.
    pub fn try_next(&mut self, now: Millis) -> Option<SessionItem> {
        loop {
            if let Some(item) = self.pending.pop_front() {
                return Some(item);
            }
            match self.current.as_ref()?.try_next()? {
                SubscriptionItem::Event(e) => return Some(SessionItem::Event(e)),
                SubscriptionItem::Lagged { resume_cursor, .. } => {
                    if let Some(old) = self.current.take() {
                        old.close();
                    }
                    // Our own cursor: it parses and is of this session.
                    if self.attach(&resume_cursor, now).is_err() {
                        return None;
                    }
                }
            }
        }
    }

    pub fn is_ended(&self) -> bool {
        self.pending.is_empty() && self.current.as_ref().is_none_or(Subscription::is_ended)
    }

    pub fn close(&mut self) {
        self.pending.clear();
        if let Some(s) = self.current.take() {
            s.close();
        }
    }
}
