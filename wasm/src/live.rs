//! Bindings of the live replay store, its subscriptions and the session
//! handle. Events cross in the one wire format (`crate::wire`); cursors are
//! formatted and parsed here, never in JS.

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::json::to_js_json;
use agent_replay::live::{
    AppendError, Replay, ReplaySession, ReplayStore, Restore, RestoreBase, Resume, SessionItem,
    SessionSubscription, StoreConfig, SubscribeResult, Subscription, SubscriptionItem,
};
use agent_replay::units::{Millis, Position, Revision};
use wasm_bindgen::prelude::*;

use crate::{budget, js_error, wire};

/// Milliseconds from a JS number; anything not a finite non-negative number is 0.
fn millis(ms: f64) -> u64 {
    if ms.is_finite() && ms > 0.0 {
        ms as u64
    } else {
        0
    }
}

/// A reading of the JS clock.
fn clock(now: f64) -> Millis {
    Millis(millis(now))
}

fn revision(r: Option<f64>) -> Result<Option<Revision>, JsValue> {
    match r {
        None => Ok(None),
        Some(r)
            if r.is_finite() && r >= 0.0 && r.fract() == 0.0 && r <= 9_007_199_254_740_991.0 =>
        {
            Ok(Some(Revision(r as u64)))
        }
        Some(_) => Err(js_error(AppendError::InvalidRevision)),
    }
}

/// The events after `cursor` in the wire format, or the gap.
fn replay_wire(store: &RefCell<ReplayStore>, cursor: &str, now: f64) -> Result<String, JsValue> {
    let mut store = store.borrow_mut();
    let replay = store.replay_after(cursor, clock(now)).map_err(js_error)?;
    let incarnation = store.incarnation();
    Ok(match replay {
        Replay::Replayed(events) => wire::observed(r#""type":"replayed""#, incarnation, &events),
        Replay::Gap(reason) => {
            let header = format!(r#""type":"gap","reason":{}"#, to_js_json(&reason));
            wire::observed(&header, incarnation, &[])
        }
    })
}

#[wasm_bindgen(js_name = ReplayStoreCore)]
pub struct ReplayStoreHandle {
    inner: Rc<RefCell<ReplayStore>>,
    last_revision: f64,
}

#[wasm_bindgen(js_class = ReplayStoreCore)]
impl ReplayStoreHandle {
    #[wasm_bindgen(constructor)]
    pub fn new(
        max_events_per_session: f64,
        max_age_ms: f64,
        max_event_bytes: f64,
        max_sessions: f64,
        max_total_bytes: f64,
        incarnation: &str,
    ) -> Result<ReplayStoreHandle, JsValue> {
        let config = StoreConfig {
            max_events_per_session: max_events_per_session as usize,
            max_age_ms: millis(max_age_ms),
            max_event_bytes: max_event_bytes as usize,
            max_sessions: max_sessions as usize,
            max_total_bytes: max_total_bytes as usize,
        };
        let store = ReplayStore::new(config, incarnation).map_err(js_error)?;
        Ok(ReplayStoreHandle { inner: Rc::new(RefCell::new(store)), last_revision: 0.0 })
    }

    #[wasm_bindgen(getter)]
    pub fn incarnation(&self) -> String {
        self.inner.borrow().incarnation().to_string()
    }

    /// Appends one event; returns its position (its revision is then
    /// `lastRevision`): two numbers, the cheapest answer to cross.
    pub fn append(
        &mut self,
        session_id: &str,
        json: &str,
        revision_: Option<f64>,
        now: f64,
    ) -> Result<f64, JsValue> {
        let revision = revision(revision_)?;
        let event = budget::append("ReplayStore.append", json.len(), || {
            self.inner.borrow_mut().append(session_id, json, revision, clock(now))
        })?
        .map_err(js_error)?;
        self.last_revision = event.revision.0 as f64;
        Ok(event.position.0 as f64)
    }

    #[wasm_bindgen(getter, js_name = lastRevision)]
    pub fn last_revision(&self) -> f64 {
        self.last_revision
    }

    /// Appends every valid event of a log the store accepts; `{appended,
    /// errors, cursor}`, `errors` listing the load errors and refused events.
    /// Under the memory budget as `budget::append`: short of memory, the
    /// events before are appended and the last error says where it stopped.
    #[wasm_bindgen(js_name = appendLog)]
    pub fn append_log(&self, session_id: &str, bytes: &[u8], now: f64) -> Result<String, JsValue> {
        let report = budget::append("ReplayStore.appendLog", 0, || {
            self.inner.borrow_mut().append_log(session_id, bytes, clock(now))
        })?
        .map_err(js_error)?;
        Ok(format!(
            "{{\"appended\":{},\"errors\":{},\"cursor\":{}}}",
            report.appended,
            to_js_json(&report.errors),
            to_js_json(&report.cursor)
        ))
    }

    #[wasm_bindgen(js_name = currentCursor)]
    pub fn current_cursor(
        &self,
        session_id: &str,
        revision_: Option<f64>,
    ) -> Result<String, JsValue> {
        Ok(self.inner.borrow().current_cursor(session_id, revision(revision_)?))
    }

    #[wasm_bindgen(js_name = replayAfter)]
    pub fn replay_after(&self, cursor: &str, now: f64) -> Result<String, JsValue> {
        budget::guard("ReplayStore.replayAfter", || replay_wire(&self.inner, cursor, now))
    }

    pub fn subscribe(&self, cursor: &str, now: f64) -> Result<SubscriptionHandle, JsValue> {
        let result = self.inner.borrow_mut().subscribe(cursor, clock(now)).map_err(js_error)?;
        let incarnation = self.incarnation();
        Ok(match result {
            SubscribeResult::Subscribed(sub) => {
                SubscriptionHandle { sub: Some(sub), gap: None, incarnation }
            }
            SubscribeResult::Gap(reason) => {
                SubscriptionHandle { sub: None, gap: Some(to_js_json(&reason)), incarnation }
            }
        })
    }

    #[wasm_bindgen(js_name = trimSession)]
    pub fn trim_session(&self, session_id: &str, now: f64) {
        self.inner.borrow_mut().trim_session(session_id, clock(now));
    }

    /// Whether the session is held now (a handle on an evicted one can go).
    pub fn holds(&self, session_id: &str) -> bool {
        self.inner.borrow().holds(session_id)
    }

    /// Evicts the session if nobody follows it; whether it did.
    #[wasm_bindgen(js_name = evictIdle)]
    pub fn evict_idle(&self, session_id: &str) -> bool {
        self.inner.borrow_mut().evict_idle(session_id)
    }

    /// Ends every subscription; the store stays usable.
    #[wasm_bindgen(js_name = closeSubscriptions)]
    pub fn close_subscriptions(&self) {
        self.inner.borrow_mut().close_subscriptions();
    }
}

#[wasm_bindgen(js_name = SubscriptionCore)]
pub struct SubscriptionHandle {
    sub: Option<Subscription>,
    gap: Option<String>,
    incarnation: String,
}

#[wasm_bindgen(js_class = SubscriptionCore)]
impl SubscriptionHandle {
    /// The session subscribed to (none when subscribing found a gap).
    #[wasm_bindgen(getter, js_name = sessionId)]
    pub fn session_id(&self) -> Option<String> {
        self.sub.as_ref().map(|s| s.session_id().to_string())
    }

    /// The gap reason (JSON) when subscribing found a gap.
    #[wasm_bindgen(getter)]
    pub fn gap(&self) -> Option<String> {
        self.gap.clone()
    }

    pub fn next(&self) -> Option<String> {
        Some(match self.sub.as_ref()?.try_next()? {
            SubscriptionItem::Event(e) => {
                wire::observed(r#""type":"event""#, &self.incarnation, &[e])
            }
            SubscriptionItem::Lagged { dropped, resume_cursor } => wire::observed(
                &format!(
                    r#""type":"lagged","dropped":{dropped},"resume_cursor":{}"#,
                    to_js_json(&resume_cursor)
                ),
                &self.incarnation,
                &[],
            ),
        })
    }

    #[wasm_bindgen(getter)]
    pub fn ended(&self) -> bool {
        self.sub.as_ref().is_none_or(Subscription::is_ended)
    }

    pub fn close(&self) {
        if let Some(s) = &self.sub {
            s.close();
        }
    }
}

#[wasm_bindgen(js_name = ReplaySessionCore)]
pub struct ReplaySessionHandle {
    inner: ReplaySession,
    /// Its store's, for the cursors of the events it sends.
    incarnation: String,
}

fn session_item(item: SessionItem, incarnation: &str) -> String {
    match item {
        SessionItem::Event(e) => wire::observed(r#""type":"event""#, incarnation, &[e]),
        SessionItem::Gap { gap, observation } => wire::observed(
            &format!(
                r#""type":"gap","gap":{},"observation":{}"#,
                to_js_json(&gap),
                to_js_json(&observation)
            ),
            incarnation,
            &[],
        ),
    }
}

#[wasm_bindgen(js_class = ReplaySessionCore)]
impl ReplaySessionHandle {
    #[wasm_bindgen(constructor)]
    pub fn new(
        session_id: &str,
        store: &ReplayStoreHandle,
    ) -> Result<ReplaySessionHandle, JsValue> {
        let inner = ReplaySession::new(session_id, Rc::clone(&store.inner)).map_err(js_error)?;
        Ok(ReplaySessionHandle { inner, incarnation: store.incarnation() })
    }

    /// A session restored from its storage: the events after `(position,
    /// revision)` as JSON Lines with their stored times, the state (a
    /// view's JSON) at `checkpoint_position` when given, the newest
    /// `retain` events in the live window.
    #[allow(clippy::too_many_arguments, reason = "the parts of a restore, converted one by one")]
    pub fn restore(
        session_id: &str,
        store: &ReplayStoreHandle,
        position: f64,
        revision_: f64,
        events: &[u8],
        times: &[f64],
        checkpoint: Option<String>,
        checkpoint_position: f64,
        retain: f64,
        now: f64,
    ) -> Result<ReplaySessionHandle, JsValue> {
        let base = RestoreBase {
            position: Position(millis(position)),
            revision: revision(Some(revision_))?.unwrap_or(Revision(0)),
        };
        let times: Vec<Millis> = times.iter().map(|&t| clock(t)).collect();
        let checkpoint = checkpoint.as_deref().map(|v| (Position(millis(checkpoint_position)), v));
        let retain = if retain.is_finite() && retain >= 0.0 { retain as usize } else { 0 };
        let restore = Restore { base, events, times: &times, checkpoint, retain };
        // Its reader stops short of memory (`limit_exceeded`): measured from here.
        crate::alloc::begin_call();
        let inner =
            ReplaySession::restore(session_id, Rc::clone(&store.inner), restore, clock(now))
                .map_err(js_error)?;
        Ok(ReplaySessionHandle { inner, incarnation: store.incarnation() })
    }

    /// The events of a log or events as JSON Lines, checked as `append`
    /// would, appending nothing (what a storage writes before the append).
    pub fn check(&self, bytes: &[u8], max_events: Option<f64>) -> Result<String, JsValue> {
        let max = max_events.map(|m| m.max(0.0) as usize);
        // Its reader stops short of memory: measured from here.
        crate::alloc::begin_call();
        self.inner.check(bytes, max).map_err(js_error)
    }

    /// Appends a log or events, all or nothing (at most `max_events` of
    /// them), under the memory budget as `budget::append`: short of memory
    /// midway, `limit_exceeded` says how many were appended
    /// (`ReplaySession::append`).
    pub fn append(
        &self,
        bytes: &[u8],
        now: f64,
        max_events: Option<f64>,
    ) -> Result<String, JsValue> {
        let max = max_events.map(|m| m.max(0.0) as usize);
        let events = budget::append("ReplaySession.append", 0, || {
            self.inner.append(bytes, clock(now), max)
        })?
        .map_err(js_error)?;
        Ok(wire::observed("", &self.incarnation, &events))
    }

    /// Appends the events of the next chunk of a log arriving in pieces;
    /// how many it appended. Under the memory budget as `append`: its
    /// reader stops at the event that passes the limit.
    pub fn write(&self, chunk: &[u8], now: f64) -> Result<f64, JsValue> {
        let appended =
            budget::append("ReplaySession.write", 0, || self.inner.write(chunk, clock(now)))?;
        Ok(appended.map_err(js_error)? as f64)
    }

    /// Ends a log written in chunks; how many events its end appended.
    pub fn end(&self, now: f64) -> Result<f64, JsValue> {
        let appended = budget::append("ReplaySession.end", 0, || self.inner.end(clock(now)))?;
        Ok(appended.map_err(js_error)? as f64)
    }

    pub fn observe(&self) -> Result<String, JsValue> {
        budget::guard("ReplaySession.observe", || {
            budget::json("ReplaySession.observe", &self.inner.observe_sent())
        })
    }

    pub fn summary(&self) -> Result<String, JsValue> {
        budget::guard("ReplaySession.summary", || {
            self.inner.read_summary(|s| budget::json("ReplaySession.summary", s))
        })
    }

    pub fn resume(&self, cursor: &str, now: f64) -> Result<String, JsValue> {
        budget::guard("ReplaySession.resume", || self.resume_wire(cursor, now))
    }

    pub fn subscribe(&self, cursor: &str, now: f64) -> Result<SessionSubscriptionHandle, JsValue> {
        let sub = self.inner.subscribe(cursor, clock(now)).map_err(js_error)?;
        Ok(SessionSubscriptionHandle { sub, incarnation: self.incarnation.clone() })
    }
}

impl ReplaySessionHandle {
    /// The events after `cursor` in the wire format, or the gap and the observation.
    fn resume_wire(&self, cursor: &str, now: f64) -> Result<String, JsValue> {
        Ok(match self.inner.resume(cursor, clock(now)).map_err(js_error)? {
            Resume::Replayed { events, cursor } => {
                let header = format!(r#""type":"replayed","cursor":{}"#, to_js_json(&cursor));
                wire::observed(&header, &self.incarnation, &events)
            }
            Resume::Gap { gap, observation } => {
                session_item(SessionItem::Gap { gap, observation }, &self.incarnation)
            }
        })
    }
}

#[wasm_bindgen(js_name = SessionSubscriptionCore)]
pub struct SessionSubscriptionHandle {
    sub: SessionSubscription,
    incarnation: String,
}

#[wasm_bindgen(js_class = SessionSubscriptionCore)]
impl SessionSubscriptionHandle {
    pub fn next(&mut self, now: f64) -> Option<String> {
        let item = self.sub.try_next(clock(now))?;
        Some(session_item(item, &self.incarnation))
    }

    #[wasm_bindgen(getter)]
    pub fn ended(&self) -> bool {
        self.sub.is_ended()
    }

    pub fn close(&mut self) {
        self.sub.close();
    }
}

/// An event's JSON as written, with integers beyond 2^53-1 as strings.
#[wasm_bindgen(js_name = jsSafeEventJson)]
pub fn js_safe_event_json(json: &str) -> String {
    agent_replay::json::js_safe_text(json).into_owned()
}

/// The cursor of an event: what `ObservedEvent.cursor` reads, on first use.
#[wasm_bindgen(js_name = formatCursor)]
pub fn format_cursor(incarnation: &str, revision: f64, position: f64, session_id: &str) -> String {
    agent_replay::live::cursor::format_cursor(
        incarnation,
        Revision(revision as u64),
        Position(position as u64),
        session_id,
    )
}

/// A cursor's parts as JSON `[incarnation, revision, position, session_id]`.
#[wasm_bindgen(js_name = parseCursor)]
pub fn parse_cursor(text: &str) -> Result<String, JsValue> {
    let c = agent_replay::live::SessionCursor::parse(text).map_err(js_error)?;
    Ok(to_js_json(&(c.incarnation, c.revision, c.position, c.session_id)))
}
