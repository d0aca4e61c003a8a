//! Bindings of the live replay store, its subscriptions and the session
//! handle. Events cross as one string: a header line (JSON), a line
//! `[revision, position, length, ...]` (three numbers per event), then the
//! events' original JSON texts concatenated (lengths in UTF-16 units),
//! which js/live.js slices without re-serialising. Cursors are formatted
//! on the JS side from these numbers (one per event would cost more than
//! the event).

use std::cell::RefCell;
use std::rc::Rc;

use agent_replay::json::to_js_json;
use agent_replay::live::{
    AppendError, CursorError, ObservedEvent, Replay, ReplaySession, ReplayStore, Resume,
    SessionItem, SessionSubscription, StoreConfig, SubscribeResult, Subscription, SubscriptionItem,
};
use agent_replay::log::{self, LogOptions};
use agent_replay::SessionEvent;
use wasm_bindgen::prelude::*;

use crate::{error, log_error};

/// Milliseconds from the JS clock; anything not a finite non-negative number is 0.
fn millis(now: f64) -> u64 {
    if now.is_finite() && now > 0.0 {
        now as u64
    } else {
        0
    }
}

fn revision(r: Option<f64>) -> Result<Option<u64>, JsValue> {
    match r {
        None => Ok(None),
        Some(r)
            if r.is_finite() && r >= 0.0 && r.fract() == 0.0 && r <= 9_007_199_254_740_991.0 =>
        {
            Ok(Some(r as u64))
        }
        Some(_) => Err(error("invalid_input", "revision must be an integer in [0, 2^53-1]", &[])),
    }
}

fn cursor_error(e: CursorError) -> JsValue {
    let code = match e {
        CursorError::Malformed { .. } => "malformed_cursor",
        CursorError::WrongSession { .. } => "wrong_session",
    };
    error(code, &e.to_string(), &[])
}

fn append_error(e: AppendError) -> JsValue {
    let code = match e {
        AppendError::InvalidSessionId => "invalid_session_id",
        AppendError::InvalidRevision => "invalid_input",
        AppendError::InvalidEvent(_) => "invalid_event",
        AppendError::EventTooLarge(_) | AppendError::TooManySessions => "limit_exceeded",
    };
    error(code, &e.to_string(), &[])
}

/// `header \n meta \n texts` (see the module doc).
fn wire(header: &str, events: &[ObservedEvent]) -> String {
    use std::fmt::Write;
    let texts: usize = events.iter().map(|e| e.json.len()).sum();
    let meta = events.len().saturating_mul(24);
    let mut out = String::with_capacity(
        header.len().saturating_add(meta).saturating_add(texts).saturating_add(4),
    );
    out.push_str(header);
    out.push_str("\n[");
    for (i, e) in events.iter().enumerate() {
        let units = if e.json.is_ascii() { e.json.len() } else { e.json.encode_utf16().count() };
        let sep = if i > 0 { "," } else { "" };
        let _ = write!(out, "{sep}{},{},{units}", e.revision, e.position);
    }
    out.push_str("]\n");
    for e in events {
        out.push_str(&e.json);
    }
    out
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
        let store =
            ReplayStore::new(config, incarnation).map_err(|m| error("invalid_input", m, &[]))?;
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
        let event = self
            .inner
            .borrow_mut()
            .append(session_id, json, revision(revision_)?, millis(now))
            .map_err(append_error)?;
        self.last_revision = event.revision as f64;
        Ok(event.position as f64)
    }

    #[wasm_bindgen(getter, js_name = lastRevision)]
    pub fn last_revision(&self) -> f64 {
        self.last_revision
    }

    /// Appends every valid event of a log; `{appended, errors, cursor}`.
    #[wasm_bindgen(js_name = appendLog)]
    pub fn append_log(&self, session_id: &str, bytes: &[u8], now: f64) -> Result<String, JsValue> {
        if !agent_replay::live::cursor::is_valid_session_id(session_id) {
            return Err(append_error(AppendError::InvalidSessionId));
        }
        let mut store = self.inner.borrow_mut();
        let mut appended = 0u64;
        let report = log::read_bytes(
            bytes,
            LogOptions::default(),
            &mut |json: &str, e: SessionEvent<'_>| {
                if store.append_checked(session_id, json, e.turn(), None, millis(now)).is_ok() {
                    appended = appended.saturating_add(1);
                }
            },
        )
        .map_err(log_error)?;
        Ok(format!(
            "{{\"appended\":{appended},\"errors\":{},\"cursor\":{}}}",
            to_js_json(&report.errors),
            to_js_json(&store.current_cursor(session_id, None))
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
        let mut store = self.inner.borrow_mut();
        Ok(match store.replay_after(cursor, millis(now)).map_err(cursor_error)? {
            Replay::Replayed(events) => wire(r#"{"type":"replayed"}"#, &events),
            Replay::Gap(reason) => {
                wire(&format!(r#"{{"type":"gap","reason":{}}}"#, to_js_json(&reason)), &[])
            }
        })
    }

    pub fn subscribe(&self, cursor: &str, now: f64) -> Result<SubscriptionHandle, JsValue> {
        Ok(match self.inner.borrow_mut().subscribe(cursor, millis(now)).map_err(cursor_error)? {
            SubscribeResult::Subscribed(sub) => SubscriptionHandle { sub: Some(sub), gap: None },
            SubscribeResult::Gap(reason) => {
                SubscriptionHandle { sub: None, gap: Some(to_js_json(&reason)) }
            }
        })
    }

    #[wasm_bindgen(js_name = trimSession)]
    pub fn trim_session(&self, session_id: &str, now: f64) {
        self.inner.borrow_mut().trim_session(session_id, millis(now));
    }

    /// Whether the session is held now (a handle on an evicted one can go).
    pub fn holds(&self, session_id: &str) -> bool {
        self.inner.borrow().holds(session_id)
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
}

#[wasm_bindgen(js_class = SubscriptionCore)]
impl SubscriptionHandle {
    /// The gap reason (JSON) when subscribing found a gap.
    #[wasm_bindgen(getter)]
    pub fn gap(&self) -> Option<String> {
        self.gap.clone()
    }

    pub fn next(&self) -> Option<String> {
        Some(match self.sub.as_ref()?.try_next()? {
            SubscriptionItem::Event(e) => wire(r#"{"type":"event"}"#, &[e]),
            SubscriptionItem::Lagged { dropped, resume_cursor } => wire(
                &format!(
                    r#"{{"type":"lagged","dropped":{dropped},"resume_cursor":{}}}"#,
                    to_js_json(&resume_cursor)
                ),
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
}

fn session_item(item: SessionItem) -> String {
    match item {
        SessionItem::Event(e) => wire(r#"{"type":"event"}"#, &[e]),
        SessionItem::Gap { gap, observation } => wire(
            &format!(
                r#"{{"type":"gap","gap":{},"observation":{}}}"#,
                to_js_json(&gap),
                to_js_json(&observation)
            ),
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
        let inner =
            ReplaySession::new(session_id, Rc::clone(&store.inner)).map_err(append_error)?;
        Ok(ReplaySessionHandle { inner })
    }

    /// Appends a log or events, all or nothing (at most `max_events` of them).
    pub fn append(
        &self,
        bytes: &[u8],
        now: f64,
        max_events: Option<f64>,
    ) -> Result<String, JsValue> {
        let max = max_events.map(|m| m.max(0.0) as usize);
        let events = self.inner.append(bytes, millis(now), max).map_err(|e| match e {
            agent_replay::live::session::SessionAppendError::InvalidLog(errors) => {
                let first = errors.first().map(|e| e.to_string()).unwrap_or_default();
                error(
                    "invalid_log",
                    &format!("nothing appended: {} error(s); first at {first}", errors.len()),
                    &errors,
                )
            }
            agent_replay::live::session::SessionAppendError::TooManyEvents(n) => error(
                "limit_exceeded",
                &format!("nothing appended: {n} events, more than allowed at once"),
                &[],
            ),
            agent_replay::live::session::SessionAppendError::Store(e) => append_error(e),
        })?;
        Ok(wire("{}", &events))
    }

    pub fn observe(&self) -> String {
        to_js_json(&self.inner.observe_sent())
    }

    pub fn resume(&self, cursor: &str, now: f64) -> Result<String, JsValue> {
        Ok(match self.inner.resume(cursor, millis(now)).map_err(cursor_error)? {
            Resume::Replayed { events, cursor } => {
                wire(&format!(r#"{{"type":"replayed","cursor":{}}}"#, to_js_json(&cursor)), &events)
            }
            Resume::Gap { gap, observation } => session_item(SessionItem::Gap { gap, observation }),
        })
    }

    pub fn subscribe(&self, cursor: &str, now: f64) -> Result<SessionSubscriptionHandle, JsValue> {
        let sub = self.inner.subscribe(cursor, millis(now)).map_err(cursor_error)?;
        Ok(SessionSubscriptionHandle { sub })
    }
}

#[wasm_bindgen(js_name = SessionSubscriptionCore)]
pub struct SessionSubscriptionHandle {
    sub: SessionSubscription,
}

#[wasm_bindgen(js_class = SessionSubscriptionCore)]
impl SessionSubscriptionHandle {
    pub fn next(&mut self, now: f64) -> Option<String> {
        let item = self.sub.try_next(millis(now))?;
        Some(session_item(item))
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

/// A cursor's parts as JSON `[incarnation, revision, position, session_id]`.
#[wasm_bindgen(js_name = parseCursor)]
pub fn parse_cursor(text: &str) -> Result<String, JsValue> {
    let c = agent_replay::live::SessionCursor::parse(text).map_err(cursor_error)?;
    Ok(to_js_json(&(c.incarnation, c.revision, c.position, c.session_id)))
}
