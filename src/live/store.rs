//! The bounded in-memory live replay store: per-session buffers of recent
//! events with positions, lazy capacity and age trimming, replay after a
//! cursor with the gap rules of live-replay.md, and subscriptions.
//! Single-threaded: the clock is passed in (`now`, milliseconds).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use serde::Serialize;

use super::cursor::{format_cursor, is_valid_incarnation, is_valid_session_id, CursorError, SessionCursor};
use super::subscription::{SubQueue, Subscription};
use crate::event::{EventError, SessionEvent};
use crate::json::MAX_SAFE_INTEGER;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConfig {
    pub max_events_per_session: usize,
    pub max_age_ms: u64,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig { max_events_per_session: 2048, max_age_ms: 120_000 }
    }
}

/// An event as replayed or delivered live. Its JSON text is shared with
/// the store and every other consumer, never copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedEvent {
    pub session_id: Rc<str>,
    pub revision: u64,
    pub position: u64,
    pub json: Rc<str>,
}

impl ObservedEvent {
    pub fn cursor(&self, incarnation: &str) -> String {
        format_cursor(incarnation, self.revision, self.position, &self.session_id)
    }
}

/// Why a replay cannot give exactly the events after a cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum GapReason {
    /// The events after the cursor were dropped (capacity or age).
    Trimmed,
    /// This store cannot know: another incarnation, an unknown session, a
    /// cursor ahead of the session.
    Unavailable,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Replay {
    Replayed(Vec<ObservedEvent>),
    Gap(GapReason),
}

#[derive(Debug)]
pub enum SubscribeResult {
    Subscribed(Subscription),
    Gap(GapReason),
}

/// Why an append was refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AppendError {
    InvalidSessionId,
    InvalidRevision,
    InvalidEvent(EventError),
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::InvalidSessionId => f.write_str("session id must be non-empty, without CR, LF or NUL"),
            AppendError::InvalidRevision => f.write_str("revision must be an integer in [0, 2^53-1]"),
            AppendError::InvalidEvent(e) => match &e.field {
                Some(field) => write!(f, "invalid event, field `{field}`: {}", e.message),
                None => write!(f, "invalid event: {}", e.message),
            },
        }
    }
}

/// One retained event: its text (shared), revision and time. Its position
/// is implied by its place in the buffer.
#[derive(Debug)]
struct Retained {
    json: Rc<str>,
    revision: u64,
    appended_at: u64,
}

#[derive(Debug)]
struct SessionBuffer {
    id: Rc<str>,
    events: VecDeque<Retained>,
    /// Position of the newest event; 0 before any.
    tail: u64,
    revision: u64,
    max_turn: u64,
    /// Empty (no allocation) while nobody subscribes.
    subscribers: Vec<Rc<std::cell::RefCell<SubQueue>>>,
}

impl SessionBuffer {
    fn new(id: &str) -> Self {
        SessionBuffer { id: Rc::from(id), events: VecDeque::new(), tail: 0, revision: 0, max_turn: 0, subscribers: Vec::new() }
    }

    fn oldest_position(&self) -> u64 {
        self.tail + 1 - self.events.len() as u64
    }

    fn trim(&mut self, config: &StoreConfig, now: u64) {
        while self.events.len() > config.max_events_per_session {
            self.events.pop_front();
        }
        while self.events.front().is_some_and(|e| now.saturating_sub(e.appended_at) > config.max_age_ms) {
            self.events.pop_front();
        }
    }

    fn observed(&self, index: usize) -> Option<ObservedEvent> {
        let e = self.events.get(index)?;
        Some(ObservedEvent {
            session_id: Rc::clone(&self.id),
            revision: e.revision,
            position: self.oldest_position() + index as u64,
            json: Rc::clone(&e.json),
        })
    }

    /// Every retained event after position `p` (which must be ≥ oldest - 1).
    fn after(&self, p: u64) -> Vec<ObservedEvent> {
        let start = (p + 1 - self.oldest_position()) as usize;
        (start..self.events.len()).filter_map(|i| self.observed(i)).collect()
    }
}

/// The store. Dropping it ends every subscription.
#[derive(Debug)]
pub struct ReplayStore {
    config: StoreConfig,
    incarnation: Rc<str>,
    sessions: HashMap<Rc<str>, SessionBuffer>,
}

impl ReplayStore {
    /// `incarnation` must be non-empty and URL-safe (see live-replay.md).
    pub fn new(config: StoreConfig, incarnation: &str) -> Result<Self, &'static str> {
        if !is_valid_incarnation(incarnation) {
            return Err("incarnation must be non-empty URL-safe characters (A-Z a-z 0-9 - . _ ~)");
        }
        if config.max_events_per_session == 0 {
            return Err("maxEventsPerSession must be at least 1");
        }
        Ok(ReplayStore { config, incarnation: Rc::from(incarnation), sessions: HashMap::new() })
    }

    pub fn incarnation(&self) -> &str {
        &self.incarnation
    }

    pub fn config(&self) -> StoreConfig {
        self.config
    }

    /// Appends one event given as JSON text (checked as an event).
    pub fn append(&mut self, session_id: &str, json: &str, revision: Option<u64>, now: u64) -> Result<ObservedEvent, AppendError> {
        let event = SessionEvent::from_json(json).map_err(AppendError::InvalidEvent)?;
        self.append_checked(session_id, json, event.turn(), revision, now)
    }

    /// Appends an event already checked by the caller, with its turn.
    pub fn append_checked(
        &mut self,
        session_id: &str,
        json: &str,
        turn: Option<u32>,
        revision: Option<u64>,
        now: u64,
    ) -> Result<ObservedEvent, AppendError> {
        if !is_valid_session_id(session_id) {
            return Err(AppendError::InvalidSessionId);
        }
        if revision.is_some_and(|r| r > MAX_SAFE_INTEGER) {
            return Err(AppendError::InvalidRevision);
        }
        let config = self.config;
        let session = match self.sessions.get_mut(session_id) {
            Some(s) => s,
            None => {
                let buffer = SessionBuffer::new(session_id);
                self.sessions.entry(Rc::clone(&buffer.id)).or_insert(buffer)
            }
        };
        session.max_turn = session.max_turn.max(turn.map_or(0, u64::from));
        session.revision = revision.unwrap_or(session.max_turn);
        session.tail += 1;
        let observed = ObservedEvent {
            session_id: Rc::clone(&session.id),
            revision: session.revision,
            position: session.tail,
            json: Rc::from(json),
        };
        session.events.push_back(Retained { json: Rc::clone(&observed.json), revision: observed.revision, appended_at: now });
        if !session.subscribers.is_empty() {
            session.subscribers.retain(|q| SubQueue::offer(q, &observed));
        }
        session.trim(&config, now);
        Ok(observed)
    }

    /// `(incarnation, revision given or latest, tail, session)`.
    pub fn current_cursor(&self, session_id: &str, revision: Option<u64>) -> String {
        let (latest, tail) = self.sessions.get(session_id).map_or((0, 0), |s| (s.revision, s.tail));
        format_cursor(&self.incarnation, revision.unwrap_or(latest), tail, session_id)
    }

    /// The latest revision of a session (0 if unknown).
    pub fn latest_revision(&self, session_id: &str) -> u64 {
        self.sessions.get(session_id).map_or(0, |s| s.revision)
    }

    /// Drops what the retention bounds no longer allow in one session.
    pub fn trim_session(&mut self, session_id: &str, now: u64) {
        let config = self.config;
        if let Some(s) = self.sessions.get_mut(session_id) {
            s.trim(&config, now);
        }
    }

    /// The gap rules of live-replay.md, in order; `Ok(Err(reason))` is a gap,
    /// `Ok(Ok(p))` a replay of everything after position `p`.
    fn check(&mut self, cursor: &str, now: u64) -> Result<(SessionCursor, Result<u64, GapReason>), CursorError> {
        let c = SessionCursor::parse(cursor)?;
        if c.incarnation != *self.incarnation {
            return Ok((c, Err(GapReason::Unavailable)));
        }
        let config = self.config;
        let p = c.position;
        let verdict = match self.sessions.get_mut(c.session_id.as_str()) {
            None if p == 0 => Ok(0),
            None => Err(GapReason::Unavailable),
            Some(s) => {
                s.trim(&config, now);
                if p > s.tail {
                    Err(GapReason::Unavailable)
                } else if s.events.is_empty() {
                    if p < s.tail { Err(GapReason::Trimmed) } else { Ok(p) }
                } else if p + 1 < s.oldest_position() {
                    Err(GapReason::Trimmed)
                } else {
                    Ok(p)
                }
            }
        };
        Ok((c, verdict))
    }

    /// The events after a cursor, or the gap that stands in their way.
    pub fn replay_after(&mut self, cursor: &str, now: u64) -> Result<Replay, CursorError> {
        let (c, verdict) = self.check(cursor, now)?;
        Ok(match verdict {
            Err(reason) => Replay::Gap(reason),
            Ok(p) => Replay::Replayed(self.sessions.get(c.session_id.as_str()).map_or_else(Vec::new, |s| s.after(p))),
        })
    }

    /// Replay then live: the buffered events after the cursor, then every
    /// later append, with no duplicate and no miss.
    pub fn subscribe(&mut self, cursor: &str, now: u64) -> Result<SubscribeResult, CursorError> {
        let (c, verdict) = self.check(cursor, now)?;
        let p = match verdict {
            Err(reason) => return Ok(SubscribeResult::Gap(reason)),
            Ok(p) => p,
        };
        let session = match self.sessions.get_mut(c.session_id.as_str()) {
            Some(s) => s,
            None => {
                let buffer = SessionBuffer::new(&c.session_id);
                self.sessions.entry(Rc::clone(&buffer.id)).or_insert(buffer)
            }
        };
        let queue = SubQueue::new(self.config.max_events_per_session, session.after(p), (c.revision, p));
        session.subscribers.push(Rc::clone(&queue));
        Ok(SubscribeResult::Subscribed(Subscription::new(queue, Rc::clone(&self.incarnation), Rc::clone(&session.id))))
    }

    /// Number of events retained for a session now (without trimming).
    pub fn retained(&self, session_id: &str) -> usize {
        self.sessions.get(session_id).map_or(0, |s| s.events.len())
    }
}

impl ReplayStore {
    /// Ends every subscription (as dropping the store does).
    pub fn close_subscriptions(&mut self) {
        for session in self.sessions.values_mut() {
            for queue in session.subscribers.drain(..) {
                SubQueue::close(&queue);
            }
        }
    }
}

impl Drop for ReplayStore {
    fn drop(&mut self) {
        self.close_subscriptions();
    }
}
