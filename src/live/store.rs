//! The bounded in-memory live replay store: per-session buffers of recent
//! events with positions, lazy capacity and age trimming, replay after a
//! cursor with the gap rules of live-replay.md, and subscriptions.
//! Store-wide bounds (sessions, bytes) evict the least recently active
//! sessions; an evicted session leaves a tombstone so its positions go on
//! where they stopped and an old cursor gets a gap, never a wrong replay.
//! Single-threaded: the clock is passed in (`now`, milliseconds).

use std::collections::{HashMap, VecDeque};
use std::rc::Rc;

use super::cursor::{
    format_cursor, is_valid_incarnation, is_valid_session_id, CursorError, SessionCursor,
};
use super::subscription::{SubQueue, Subscription};
use crate::error::{Error, ErrorCode};
use crate::event::{EventError, SessionEvent};
use crate::json::MAX_SAFE_INTEGER;
use crate::units::{Millis, Position, Revision};

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StoreConfig {
    pub max_events_per_session: usize,
    pub max_age_ms: u64,
    /// The largest event accepted, in bytes of JSON.
    pub max_event_bytes: usize,
    /// The most sessions held at once; past it, the least recently active
    /// session without subscribers is evicted.
    pub max_sessions: usize,
    /// The budget for retained events across sessions: their JSON bytes plus
    /// `EVENT_OVERHEAD` each. Past it, the least recently active sessions
    /// are evicted (or, when they have subscribers, trimmed).
    pub max_total_bytes: usize,
}

/// Bytes counted per retained event beside its JSON (its record and the
/// allocation headers: ~32 bytes measured in WebAssembly).
pub const EVENT_OVERHEAD: usize = 32;

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            max_events_per_session: 2048,
            max_age_ms: 120_000,
            max_event_bytes: 1 << 20,
            max_sessions: 10_000,
            max_total_bytes: 64 << 20,
        }
    }
}

/// An event as replayed or delivered live. Its JSON text is shared with
/// the store and every other consumer, never copied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ObservedEvent {
    pub session_id: Rc<str>,
    pub revision: Revision,
    pub position: Position,
    pub json: Rc<str>,
}

/// Why a replay cannot give exactly the events after a cursor.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GapReason {
    /// The events after the cursor were dropped (capacity or age).
    Trimmed,
    /// This store cannot know: another incarnation, an unknown session, a
    /// cursor ahead of the session.
    Unavailable,
}

impl crate::json::WriteJson for GapReason {
    fn write_json(&self, out: &mut crate::json::JsonOut) {
        out.string(match self {
            GapReason::Trimmed => "trimmed",
            GapReason::Unavailable => "unavailable",
        });
    }
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
    /// Larger than `max_event_bytes` (the size is given).
    EventTooLarge(usize),
    /// A new session, and every session held has live subscribers.
    TooManySessions,
    /// A restore of a session the store holds (its buffer is the truth).
    AlreadyHeld,
    /// A restore whose positions would pass 2^53-1.
    PositionOverflow,
    /// No room for the event within the memory limit (`crate::memory`).
    ShortOfMemory,
}

impl std::fmt::Display for AppendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            AppendError::InvalidSessionId => {
                f.write_str("session id must be non-empty, without CR, LF or NUL")
            }
            AppendError::InvalidRevision => {
                f.write_str("revision must be an integer in [0, 2^53-1]")
            }
            AppendError::EventTooLarge(n) => {
                write!(f, "event of {n} bytes is larger than the store's maxEventBytes")
            }
            AppendError::TooManySessions => {
                f.write_str("maxSessions reached and every session has live subscribers")
            }
            AppendError::InvalidEvent(e) => f.write_str(&Error::from(e.clone()).message),
            AppendError::AlreadyHeld => {
                f.write_str("the session is held: only a session not in memory is restored")
            }
            AppendError::PositionOverflow => {
                f.write_str("restored positions must stay within [0, 2^53-1]")
            }
            AppendError::ShortOfMemory => {
                f.write_str("nothing appended: the memory limit was reached")
            }
        }
    }
}

impl AppendError {
    pub fn code(&self) -> ErrorCode {
        match self {
            AppendError::InvalidSessionId => ErrorCode::InvalidSessionId,
            AppendError::InvalidRevision => ErrorCode::InvalidInput,
            AppendError::InvalidEvent(_) => ErrorCode::InvalidEvent,
            AppendError::EventTooLarge(_) | AppendError::ShortOfMemory => ErrorCode::LimitExceeded,
            AppendError::TooManySessions => ErrorCode::StoreFull,
            AppendError::AlreadyHeld | AppendError::PositionOverflow => ErrorCode::InvalidInput,
        }
    }
}

impl From<AppendError> for Error {
    fn from(e: AppendError) -> Self {
        Error::new(e.code(), e.to_string())
    }
}

/// An event read back from storage into a session's live window: its text,
/// its turn (which the revision follows) and when it was stored.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StoredEvent {
    pub json: Rc<str>,
    pub turn: Option<u32>,
    pub appended_at: Millis,
}

/// Where a restored session's stored events begin: the position and the
/// revision just before the first of them (0 and 0 for a whole log).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RestoreBase {
    pub position: Position,
    pub revision: Revision,
}

/// One retained event: its text (shared), revision and time. Its position
/// is implied by its place in the buffer.
#[derive(Debug)]
struct Retained {
    json: Rc<str>,
    revision: Revision,
    appended_at: Millis,
}

/// Where a session stands when it has no buffer: its tail and revision.
#[derive(Debug, Clone, Copy)]
struct Standing {
    tail: Position,
    revision: Revision,
    max_turn: Revision,
}

#[derive(Debug)]
struct SessionBuffer {
    id: Rc<str>,
    events: VecDeque<Retained>,
    /// Position of the newest event; 0 before any.
    tail: Position,
    revision: Revision,
    /// The largest turn seen: the revision of an append that gives none.
    max_turn: Revision,
    /// Retained bytes as the store's budget counts them (saturating, as
    /// every sum of input sizes here).
    bytes: usize,
    /// The tick of its last activity (its live entry in the store's LRU queue).
    active: u64,
    /// The tick of its last eviction (to tell its tombstone's queue entry).
    evicted_at: u64,
    /// A tombstone: evicted, events dropped; its positions go on from `tail`.
    evicted: bool,
    /// Empty (no allocation) while nobody subscribes.
    subscribers: Vec<Rc<std::cell::RefCell<SubQueue>>>,
}

/// What the budget counts for one event: its text held in memory, and the
/// overhead (a text's length is below `isize::MAX`, the sum below `usize::MAX`).
#[allow(clippy::arithmetic_side_effects, reason = "a length held in memory plus 32")]
fn cost(json: &str) -> usize {
    json.len() + EVENT_OVERHEAD
}

impl SessionBuffer {
    fn new(id: Rc<str>, from: Standing) -> Self {
        SessionBuffer {
            id,
            events: VecDeque::new(),
            tail: from.tail,
            revision: from.revision,
            max_turn: from.max_turn,
            bytes: 0,
            active: 0,
            evicted_at: 0,
            evicted: false,
            subscribers: Vec::new(),
        }
    }

    /// The position of the oldest retained event (`tail.next()` when none is).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "tail counts every event appended to the session, so at least those \
                  retained: len <= tail"
    )]
    fn oldest_position(&self) -> Position {
        Position(self.tail.next().0 - self.events.len() as u64)
    }

    fn pop_oldest(&mut self) -> usize {
        let freed = self.events.pop_front().map_or(0, |e| cost(&e.json));
        // Saturating: byte counts are sums of input sizes (see `bytes`).
        self.bytes = self.bytes.saturating_sub(freed);
        freed
    }

    /// Trims by count, then by age; returns the bytes freed (saturating: a
    /// sum of input sizes).
    fn trim(&mut self, config: &StoreConfig, now: Millis) -> usize {
        let mut freed = 0usize;
        while self.events.len() > config.max_events_per_session {
            freed = freed.saturating_add(self.pop_oldest());
        }
        while self.events.front().is_some_and(|e| now.since(e.appended_at) > config.max_age_ms) {
            freed = freed.saturating_add(self.pop_oldest());
        }
        freed
    }

    fn has_subscribers(&self) -> bool {
        self.subscribers.iter().any(SubQueue::is_alive)
    }

    #[allow(
        clippy::arithmetic_side_effects,
        reason = "an index of a retained event: oldest + index <= tail"
    )]
    fn observed(&self, index: usize) -> Option<ObservedEvent> {
        let e = self.events.get(index)?;
        Some(ObservedEvent {
            session_id: Rc::clone(&self.id),
            revision: e.revision,
            position: Position(self.oldest_position().0 + index as u64),
            json: Rc::clone(&e.json),
        })
    }

    /// The retained events after position `p`: the newest `tail - p`, or all
    /// of them. All, with none missed, once the replay checks passed; all
    /// too when admitting a session raised the floor it starts at past `p`
    /// (nothing of it was missed: it holds no event yet).
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "p <= tail: rule 5 of the replay checks, and a tail only grows"
    )]
    fn after(&self, p: Position) -> Vec<ObservedEvent> {
        let held = self.events.len() as u64;
        let start = held - held.min(self.tail.0 - p.0);
        (start as usize..self.events.len()).filter_map(|i| self.observed(i)).collect()
    }
}

/// Advances the store's tick and returns it.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "one tick per touch or eviction, each an operation: never 2^64 of them"
)]
fn next_tick(tick: &mut u64) -> u64 {
    *tick += 1;
    *tick
}

/// The store. Dropping it ends every subscription.
#[derive(Debug)]
pub struct ReplayStore {
    config: StoreConfig,
    incarnation: Rc<str>,
    /// Live sessions and tombstones of evicted ones.
    sessions: HashMap<Rc<str>, SessionBuffer>,
    /// Live (not evicted) sessions.
    live: usize,
    /// Activity, oldest first: `(tick, session)` pushed at every touch; an
    /// entry whose tick is not its session's `active` is stale and skipped.
    /// Compacted past 4 entries per live session: exact LRU, O(1) amortized.
    lru: VecDeque<(u64, Rc<str>)>,
    /// Counts touches and evictions.
    tick: u64,
    /// Retained bytes across sessions, as the budget counts them
    /// (saturating, as every sum of input sizes here).
    total_bytes: usize,
    /// Evicted sessions with their eviction tick, oldest first (entries of
    /// revived or re-evicted sessions no longer match and are skipped).
    tombstones: VecDeque<(u64, Rc<str>)>,
    /// Where a session with neither buffer nor tombstone stands: 0, until
    /// tombstones overflow; then above every forgotten session's tail, so a
    /// forgotten session's old cursor can only ever get a gap.
    floor: Position,
}

impl ReplayStore {
    /// `incarnation` must be non-empty and URL-safe (see live-replay.md).
    pub fn new(config: StoreConfig, incarnation: &str) -> Result<Self, Error> {
        let invalid = |message: &str| Err(Error::new(ErrorCode::InvalidInput, message));
        if !is_valid_incarnation(incarnation) {
            return invalid(
                "incarnation must be non-empty URL-safe characters (A-Z a-z 0-9 - . _ ~)",
            );
        }
        if config.max_events_per_session == 0 || config.max_sessions == 0 {
            return invalid("maxEventsPerSession and maxSessions must be at least 1");
        }
        Ok(ReplayStore {
            config,
            incarnation: Rc::from(incarnation),
            sessions: HashMap::new(),
            live: 0,
            lru: VecDeque::new(),
            tick: 0,
            total_bytes: 0,
            tombstones: VecDeque::new(),
            floor: Position::START,
        })
    }

    /// Tombstones kept for evicted sessions before the oldest are forgotten.
    fn max_tombstones(&self) -> usize {
        // Saturating: `max_sessions` is input (any number the host passes).
        self.config.max_sessions.saturating_mul(8)
    }

    /// A live session's buffer.
    fn live_buffer(&self, session_id: &str) -> Option<&SessionBuffer> {
        self.sessions.get(session_id).filter(|s| !s.evicted)
    }

    /// Where a session without a buffer stands: its tombstone, or the floor.
    fn standing(&self, session_id: &str) -> Standing {
        match self.sessions.get(session_id) {
            Some(s) => Standing { tail: s.tail, revision: s.revision, max_turn: s.max_turn },
            None => Standing { tail: self.floor, revision: Revision(0), max_turn: Revision(0) },
        }
    }

    /// The LRU queue's bound before compaction: 4 entries per live session.
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "live counts sessions held in memory, each far larger than 4 bytes"
    )]
    fn max_lru_entries(&self) -> usize {
        self.live.max(16) * 4
    }

    /// Marks a live session as just active (last in eviction order).
    fn touch(&mut self, session_id: &str) {
        let Some(s) = self.sessions.get_mut(session_id).filter(|s| !s.evicted) else { return };
        let tick = next_tick(&mut self.tick);
        s.active = tick;
        self.lru.push_back((tick, Rc::clone(&s.id)));
        if self.lru.len() > self.max_lru_entries() {
            let sessions = &self.sessions;
            self.lru.retain(|(tick, id)| {
                sessions.get(id).is_some_and(|s| !s.evicted && s.active == *tick)
            });
        }
    }

    /// Drops a session's events and subscribers, leaving its tombstone.
    fn evict(&mut self, session_id: &str) {
        let Some(s) = self.sessions.get_mut(session_id).filter(|s| !s.evicted) else { return };
        // Saturating: byte counts are sums of input sizes (see `bytes`).
        self.total_bytes = self.total_bytes.saturating_sub(s.bytes);
        for queue in s.subscribers.drain(..) {
            SubQueue::close(&queue);
        }
        s.events = VecDeque::new();
        s.bytes = 0;
        s.evicted = true;
        s.evicted_at = next_tick(&mut self.tick);
        #[allow(clippy::arithmetic_side_effects, reason = "s was live: `live` counts it")]
        {
            self.live -= 1;
        }
        self.tombstones.push_back((s.evicted_at, Rc::clone(&s.id)));
        // Past the bound, the oldest tombstones are forgotten, and the floor
        // rises above their tails.
        while self.tombstones.len() > self.max_tombstones() {
            let Some((tick, old)) = self.tombstones.pop_front() else { break };
            if self.sessions.get(&old).is_some_and(|s| s.evicted && s.evicted_at == tick) {
                if let Some(s) = self.sessions.remove(&old) {
                    self.floor = self.floor.max(s.tail);
                }
            }
        }
    }

    /// The least recently active live session, but `keep`, that `eligible`
    /// accepts. Stale entries at the front are dropped on the way.
    fn least_recent(
        &mut self,
        keep: &str,
        eligible: impl Fn(&SessionBuffer) -> bool,
    ) -> Option<Rc<str>> {
        fn live<'s>(
            sessions: &'s HashMap<Rc<str>, SessionBuffer>,
            tick: u64,
            id: &Rc<str>,
        ) -> Option<&'s SessionBuffer> {
            sessions.get(id).filter(|s| !s.evicted && s.active == tick)
        }
        while let Some((tick, id)) = self.lru.front() {
            if live(&self.sessions, *tick, id).is_some() {
                break;
            }
            self.lru.pop_front();
        }
        self.lru
            .iter()
            .find(|(tick, id)| {
                &**id != keep && live(&self.sessions, *tick, id).is_some_and(&eligible)
            })
            .map(|(_, id)| Rc::clone(id))
    }

    /// The least recently active session without subscribers, but `keep`.
    fn idle_victim(&mut self, keep: &str) -> Option<Rc<str>> {
        self.least_recent(keep, |s| !s.has_subscribers())
    }

    /// Makes room for one more session: false when every session held has
    /// live subscribers.
    fn admit(&mut self) -> bool {
        if self.live < self.config.max_sessions {
            return true;
        }
        match self.idle_victim("") {
            Some(victim) => {
                self.evict(&victim);
                true
            }
            None => false,
        }
    }

    /// The buffer of a session: revived from its tombstone, or created at
    /// the floor, if need be.
    fn buffer(&mut self, session_id: &str) -> Result<&mut SessionBuffer, AppendError> {
        if self.live_buffer(session_id).is_none() {
            if !self.admit() {
                return Err(AppendError::TooManySessions);
            }
            #[allow(
                clippy::arithmetic_side_effects,
                reason = "admitted: live < max_sessions <= usize::MAX"
            )]
            {
                self.live += 1;
            }
            match self.sessions.get_mut(session_id) {
                Some(s) => s.evicted = false,
                None => {
                    let id: Rc<str> = Rc::from(session_id);
                    let standing = self.standing(session_id);
                    self.sessions.insert(Rc::clone(&id), SessionBuffer::new(id, standing));
                }
            }
            self.touch(session_id);
        }
        self.sessions.get_mut(session_id).ok_or(AppendError::InvalidSessionId)
    }

    /// Brings retained bytes under the budget: whole idle sessions first,
    /// least recently active first; else the oldest events of the least
    /// recently active sessions (`keep`, just appended to, goes last).
    fn enforce_budget(&mut self, keep: &str) {
        while self.total_bytes > self.config.max_total_bytes {
            if let Some(victim) = self.idle_victim(keep) {
                self.evict(&victim);
                continue;
            }
            let target = self.least_recent(keep, |s| !s.events.is_empty());
            let target = target.as_deref().unwrap_or(keep).to_string();
            let freed = self.sessions.get_mut(target.as_str()).map_or(0, SessionBuffer::pop_oldest);
            if freed == 0 {
                break;
            }
            // Saturating: byte counts are sums of input sizes (see `bytes`).
            self.total_bytes = self.total_bytes.saturating_sub(freed);
        }
    }

    pub fn incarnation(&self) -> &str {
        &self.incarnation
    }

    pub fn config(&self) -> StoreConfig {
        self.config
    }

    /// Appends one event given as JSON text (checked as an event).
    pub fn append(
        &mut self,
        session_id: &str,
        json: &str,
        revision: Option<Revision>,
        now: Millis,
    ) -> Result<ObservedEvent, AppendError> {
        let event = SessionEvent::from_json(json).map_err(AppendError::InvalidEvent)?;
        self.append_checked(session_id, json, event.turn(), revision, now)
    }

    /// Appends an event already checked by the caller, with its turn.
    pub fn append_checked(
        &mut self,
        session_id: &str,
        json: &str,
        turn: Option<u32>,
        revision: Option<Revision>,
        now: Millis,
    ) -> Result<ObservedEvent, AppendError> {
        if !is_valid_session_id(session_id) {
            return Err(AppendError::InvalidSessionId);
        }
        if revision.is_some_and(|r| r.0 > MAX_SAFE_INTEGER) {
            return Err(AppendError::InvalidRevision);
        }
        if json.len() > self.config.max_event_bytes {
            return Err(AppendError::EventTooLarge(json.len()));
        }
        let config = self.config;
        self.touch(session_id);
        let session = self.buffer(session_id)?;
        // Before anything changes: a refused growth appends nothing.
        crate::memory::fallibly(&mut || session.events.try_reserve(1).is_ok())
            .map_err(|_| AppendError::ShortOfMemory)?;
        session.max_turn = session.max_turn.max(Revision(turn.map_or(0, u64::from)));
        session.revision = revision.unwrap_or(session.max_turn);
        session.tail = session.tail.next();
        let observed = ObservedEvent {
            session_id: Rc::clone(&session.id),
            revision: session.revision,
            position: session.tail,
            json: Rc::from(json),
        };
        session.events.push_back(Retained {
            json: Rc::clone(&observed.json),
            revision: observed.revision,
            appended_at: now,
        });
        // Saturating: byte counts are sums of input sizes (see `bytes`).
        session.bytes = session.bytes.saturating_add(cost(json));
        if !session.subscribers.is_empty() {
            session.subscribers.retain(|q| SubQueue::offer(q, &observed));
        }
        let freed = session.trim(&config, now);
        self.total_bytes = self.total_bytes.saturating_add(cost(json)).saturating_sub(freed);
        self.enforce_budget(session_id);
        Ok(observed)
    }

    /// Makes a session live where its storage says it stands, so that a
    /// restart (same incarnation) goes on at the same positions: `events`
    /// follow `base`, each at the next position, its revision the largest
    /// turn so far; they form the live window, then trimmed by the store's
    /// bounds as any append would be. A session the store holds is refused
    /// (its buffer is newer than any storage read made before).
    pub fn restore_session(
        &mut self,
        session_id: &str,
        base: RestoreBase,
        events: Vec<StoredEvent>,
        now: Millis,
    ) -> Result<Position, AppendError> {
        if !is_valid_session_id(session_id) {
            return Err(AppendError::InvalidSessionId);
        }
        if self.holds(session_id) {
            return Err(AppendError::AlreadyHeld);
        }
        let count = u64::try_from(events.len()).map_err(|_| AppendError::PositionOverflow)?;
        let tail = base.position.0.checked_add(count).filter(|&t| t <= MAX_SAFE_INTEGER);
        if tail.is_none() || base.revision.0 > MAX_SAFE_INTEGER {
            return Err(AppendError::PositionOverflow);
        }
        if let Some(e) = events.iter().find(|e| e.json.len() > self.config.max_event_bytes) {
            return Err(AppendError::EventTooLarge(e.json.len()));
        }
        let config = self.config;
        let session = self.buffer(session_id)?;
        session.tail = base.position;
        session.revision = base.revision;
        session.max_turn = base.revision;
        for e in events {
            session.max_turn = session.max_turn.max(Revision(e.turn.map_or(0, u64::from)));
            session.revision = session.max_turn;
            session.tail = session.tail.next();
            session.bytes = session.bytes.saturating_add(cost(&e.json));
            let retained =
                Retained { json: e.json, revision: session.revision, appended_at: e.appended_at };
            session.events.push_back(retained);
        }
        let (added, tail) = (session.bytes, session.tail);
        let freed = session.trim(&config, now);
        self.total_bytes = self.total_bytes.saturating_add(added).saturating_sub(freed);
        self.enforce_budget(session_id);
        Ok(tail)
    }

    /// `(incarnation, revision given or latest, tail, session)`.
    pub fn current_cursor(&self, session_id: &str, revision: Option<Revision>) -> String {
        let standing = self.standing(session_id);
        let (latest, tail) = (standing.revision, standing.tail);
        format_cursor(&self.incarnation, revision.unwrap_or(latest), tail, session_id)
    }

    /// The latest revision of a session (0 if unknown).
    pub fn latest_revision(&self, session_id: &str) -> Revision {
        self.standing(session_id).revision
    }

    /// Drops what the retention bounds no longer allow in one session.
    pub fn trim_session(&mut self, session_id: &str, now: Millis) {
        let config = self.config;
        let freed = self.sessions.get_mut(session_id).map_or(0, |s| s.trim(&config, now));
        // Saturating: byte counts are sums of input sizes (see `bytes`).
        self.total_bytes = self.total_bytes.saturating_sub(freed);
    }

    /// The gap rules of live-replay.md, in order; `Ok(Err(reason))` is a gap,
    /// `Ok(Ok(p))` a replay of everything after position `p`.
    fn check(
        &mut self,
        cursor: &str,
        now: Millis,
    ) -> Result<(SessionCursor, Result<Position, GapReason>), CursorError> {
        let c = SessionCursor::parse(cursor)?;
        if c.incarnation != *self.incarnation {
            return Ok((c, Err(GapReason::Unavailable)));
        }
        let p = c.position;
        self.trim_session(&c.session_id, now);
        let standing = self.standing(&c.session_id);
        let verdict = match self.live_buffer(&c.session_id) {
            // Never seen (at the floor: 0 but for churn past every bound) or
            // evicted (at its tombstone): at exactly where it stands nothing
            // was missed; anything else this store can no longer know.
            None if p == standing.tail => Ok(p),
            None => Err(GapReason::Unavailable),
            Some(s) => {
                if p > s.tail {
                    Err(GapReason::Unavailable)
                } else if s.events.is_empty() {
                    if p < s.tail {
                        Err(GapReason::Trimmed)
                    } else {
                        Ok(p)
                    }
                } else if p.next() < s.oldest_position() {
                    Err(GapReason::Trimmed)
                } else {
                    Ok(p)
                }
            }
        };
        Ok((c, verdict))
    }

    /// The events after a cursor, or the gap that stands in their way.
    pub fn replay_after(&mut self, cursor: &str, now: Millis) -> Result<Replay, CursorError> {
        let (c, verdict) = self.check(cursor, now)?;
        Ok(match verdict {
            Err(reason) => Replay::Gap(reason),
            Ok(p) => Replay::Replayed(
                self.live_buffer(&c.session_id).map_or_else(Vec::new, |s| s.after(p)),
            ),
        })
    }

    /// Replay then live: the buffered events after the cursor, then every
    /// later append, with no duplicate and no miss.
    pub fn subscribe(&mut self, cursor: &str, now: Millis) -> Result<SubscribeResult, CursorError> {
        let (c, verdict) = self.check(cursor, now)?;
        let p = match verdict {
            Err(reason) => return Ok(SubscribeResult::Gap(reason)),
            Ok(p) => p,
        };
        self.touch(&c.session_id);
        let capacity = self.config.max_events_per_session;
        let incarnation = Rc::clone(&self.incarnation);
        let Ok(session) = self.buffer(&c.session_id) else {
            // No room for another session: the client gets a gap and an observation.
            return Ok(SubscribeResult::Gap(GapReason::Unavailable));
        };
        let queue = SubQueue::new(capacity, session.after(p), (c.revision, p));
        session.subscribers.push(Rc::clone(&queue));
        Ok(SubscribeResult::Subscribed(Subscription::new(
            queue,
            incarnation,
            Rc::clone(&session.id),
        )))
    }

    /// Retained bytes across sessions, as `max_total_bytes` counts them.
    pub fn retained_bytes(&self) -> usize {
        self.total_bytes
    }

    /// Sessions held now (evicted ones not counted).
    pub fn session_count(&self) -> usize {
        self.live
    }

    /// Evicts a session nobody follows (no live subscriber), as the bounds
    /// would: its events leave memory, its tombstone keeps its positions.
    /// For a host whose sessions are kept elsewhere too (a storage), to let
    /// idle ones go before the bounds press. False when it was not held or
    /// is followed.
    pub fn evict_idle(&mut self, session_id: &str) -> bool {
        let idle = self.live_buffer(session_id).is_some_and(|s| !s.has_subscribers());
        if idle {
            self.evict(session_id);
        }
        idle
    }

    /// Whether the session is held now: neither unknown nor evicted.
    pub fn holds(&self, session_id: &str) -> bool {
        self.live_buffer(session_id).is_some()
    }

    /// Number of events retained for a session now (without trimming).
    pub fn retained(&self, session_id: &str) -> usize {
        self.live_buffer(session_id).map_or(0, |s| s.events.len())
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
