//! The wasm-bindgen layer: converts between JS and the core and delegates.
//! Results cross as JSON strings (one `JSON.parse` on the JS side beats
//! building objects field by field); errors cross as a JSON string
//! `{code, message, errors?}` that `js/api.js` turns into `AgentReplayError`.

// As in the core: nothing reachable from JS may panic (a panic is a trap).
#![deny(
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic,
    clippy::unreachable,
    clippy::todo,
    clippy::unimplemented,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects
)]

mod alloc;
mod budget;
mod entries;
mod index;
mod input;
mod kinds;
mod live;
mod mem;
mod wire;

#[global_allocator]
static ALLOCATOR: alloc::GeometricGrowth = alloc::GeometricGrowth;

use agent_replay::error::{Error, ErrorCode};
use agent_replay::json::{js_safe_text, to_js_json, JsonOut, WriteJson};
use agent_replay::log::{self, LogError, LogOptions};
use agent_replay::snapshot::{
    rebuild_os_snapshot_from_bytes, rebuild_os_snapshot_from_str, OsSnapshot,
};
use agent_replay::state::SessionState as CoreState;
use agent_replay::SessionEvent;
use wasm_bindgen::prelude::*;

fn opts(strict: bool) -> LogOptions {
    LogOptions { strict, ..Default::default() }
}

/// Every error crosses to JS this way: `{code, message, errors?}` as a JSON
/// string, which `js/common.js` turns into `AgentReplayError`.
fn js_error(e: impl Into<Error>) -> JsValue {
    JsValue::from_str(&to_js_json(&e.into()))
}

/// The error table `[{code, status, description}]` as JSON: the one source
/// js/common.js takes codes and HTTP statuses from.
#[wasm_bindgen(js_name = errorCodes)]
pub fn error_codes() -> String {
    struct Row {
        code: ErrorCode,
        status: u16,
        description: &'static str,
    }
    impl WriteJson for Row {
        fn write_json(&self, out: &mut JsonOut) {
            agent_replay::write_object!(out,
                "code": self.code,
                "status": self.status,
                "description": self.description,
            );
        }
    }
    let rows: Vec<Row> = ErrorCode::ALL
        .iter()
        .map(|&code| Row { code, status: code.http_status(), description: code.description() })
        .collect();
    to_js_json(&rows)
}

/// Appends an event's JSON for JS: its text as written, with integers JS
/// would round written as strings.
fn push_event_json(out: &mut String, text: &str) {
    if !out.ends_with('[') {
        out.push(',');
    }
    out.push_str(&js_safe_text(text));
}

fn parse_log_with(
    read: impl FnOnce(&mut dyn FnMut(&str, &SessionEvent<'_>)) -> Result<log::LoadReport, LogError>,
) -> Result<String, JsValue> {
    let mut events = String::from("[");
    let report = read(&mut |text, _| push_event_json(&mut events, text)).map_err(js_error)?;
    events.push(']');
    Ok(format!(
        "{{\"framing\":{},\"events\":{},\"errors\":{}}}",
        to_js_json(&report.framing),
        events,
        to_js_json(&report.errors)
    ))
}

/// `{framing, events, errors}` as JSON.
#[wasm_bindgen(js_name = parseLogStr)]
pub fn parse_log_str(text: &str, strict: bool) -> Result<String, JsValue> {
    budget::guard("parseLog", || {
        parse_log_with(|sink| {
            log::read_str(text, opts(strict), &mut |t: &str, e: &SessionEvent<'_>| sink(t, e))
        })
    })
}

#[wasm_bindgen(js_name = parseLogBytes)]
pub fn parse_log_bytes(bytes: &[u8], strict: bool) -> Result<String, JsValue> {
    budget::guard("parseLog", || {
        parse_log_with(|sink| {
            log::read_bytes(bytes, opts(strict), &mut |t: &str, e: &SessionEvent<'_>| sink(t, e))
        })
    })
}

/// The OS snapshot as JSON; any load error throws `invalid_log` with all errors.
fn snapshot_json(
    folded: Result<(OsSnapshot, log::LoadReport), LogError>,
) -> Result<String, JsValue> {
    let (snapshot, report) = folded.map_err(js_error)?;
    if !report.errors.is_empty() {
        return Err(js_error(Error::invalid_log("", report.errors)));
    }
    Ok(to_js_json(&snapshot))
}

#[wasm_bindgen(js_name = rebuildOsSnapshotStr)]
pub fn rebuild_os_snapshot_str(
    text: &str,
    strict: bool,
    full_check: bool,
) -> Result<String, JsValue> {
    budget::guard("rebuildOsSnapshot", || {
        snapshot_json(rebuild_os_snapshot_from_str(text, strict, full_check))
    })
}

#[wasm_bindgen(js_name = rebuildOsSnapshotBytes)]
pub fn rebuild_os_snapshot_bytes(
    bytes: &[u8],
    strict: bool,
    full_check: bool,
) -> Result<String, JsValue> {
    budget::guard("rebuildOsSnapshot", || {
        snapshot_json(rebuild_os_snapshot_from_bytes(bytes, strict, full_check))
    })
}

fn report_json(report: &log::LoadReport) -> String {
    format!(
        "{{\"framing\":{},\"events\":{},\"errors\":{}}}",
        to_js_json(&report.framing),
        report.events,
        to_js_json(&report.errors)
    )
}

/// Incremental session state (see `agent_replay::state`), held under the
/// memory budget (`budget::Held`).
#[wasm_bindgen(js_name = SessionStateCore)]
pub struct SessionState {
    inner: budget::Held<CoreState>,
}

impl SessionState {
    fn holding(inner: CoreState) -> SessionState {
        SessionState { inner: budget::Held::new("SessionState", inner) }
    }

    fn state(&self) -> Result<&CoreState, JsValue> {
        self.inner.get()
    }
}

#[wasm_bindgen(js_class = SessionStateCore)]
impl SessionState {
    #[wasm_bindgen(constructor)]
    pub fn new(session_id: Option<String>) -> SessionState {
        SessionState::holding(CoreState::new(session_id))
    }

    /// Folds one event given as its JSON text.
    #[wasm_bindgen(js_name = applyEvent)]
    pub fn apply_event(&mut self, text: &str) -> Result<(), JsValue> {
        self.inner.fold("apply", |s| s.apply_json(text).map_err(Error::from))
    }

    /// Folds a whole log; returns its load errors as JSON (tolerant mode).
    #[wasm_bindgen(js_name = applyStr)]
    pub fn apply_str(&mut self, text: &str, strict: bool) -> Result<String, JsValue> {
        let report =
            self.inner.fold("apply", |s| s.apply_str(text, opts(strict)).map_err(Error::from))?;
        Ok(to_js_json(&report.errors))
    }

    #[wasm_bindgen(js_name = applyBytes)]
    pub fn apply_bytes(&mut self, bytes: &[u8], strict: bool) -> Result<String, JsValue> {
        let report = self
            .inner
            .fold("apply", |s| s.apply_bytes(bytes, opts(strict)).map_err(Error::from))?;
        Ok(to_js_json(&report.errors))
    }

    /// The state a view (given as JSON) was folded into.
    #[wasm_bindgen(js_name = fromView)]
    pub fn from_view(json: &str) -> Result<SessionState, JsValue> {
        budget::guard("SessionState.fromObservation", || {
            CoreState::from_view_json(json)
                .map(SessionState::holding)
                .map_err(|m| js_error(Error::new(ErrorCode::InvalidObservation, m)))
        })
    }

    /// A light copy for time travel (no per-event lists).
    pub fn checkpoint(&self) -> Result<SessionState, JsValue> {
        self.inner.read("checkpoint", |s| Ok(SessionState::holding(s.checkpoint())))
    }

    /// Folds the next chunk and returns the folded events (see `wire`).
    #[wasm_bindgen(js_name = writeEvents)]
    pub fn write_events(&mut self, chunk: &[u8], strict: bool) -> Result<String, JsValue> {
        self.inner.fold("write", |s| {
            let mut folded = wire::Folded::default();
            s.write_each(chunk, opts(strict), &mut |t, e| folded.push(t, e))?;
            Ok(folded.finish("{}"))
        })
    }

    /// Ends a streamed log; its report, then the events the end folded.
    #[wasm_bindgen(js_name = endEvents)]
    pub fn end_events(&mut self) -> Result<String, JsValue> {
        self.inner.fold("end", |s| {
            let mut folded = wire::Folded::default();
            let report = s.end_each(&mut |t, e| folded.push(t, e))?;
            Ok(folded.finish(&report_json(&report)))
        })
    }

    /// Folds the next chunk of a streamed log.
    pub fn write(&mut self, chunk: &[u8], strict: bool) -> Result<(), JsValue> {
        self.inner.fold("write", |s| Ok(s.write(chunk, opts(strict))?))
    }

    /// Ends a streamed log; returns `{framing, events, errors}` of it as JSON.
    pub fn end(&mut self) -> Result<String, JsValue> {
        self.inner.fold("end", |s| Ok(report_json(&s.end()?)))
    }

    #[wasm_bindgen(js_name = osSnapshot)]
    pub fn os_snapshot(&self) -> Result<String, JsValue> {
        self.inner.read("osSnapshot", |s| budget::json("osSnapshot", s.os_snapshot()))
    }

    pub fn view(&self) -> Result<String, JsValue> {
        self.inner.read("view", |s| budget::json("view", s.view()))
    }

    pub fn summary(&self) -> Result<String, JsValue> {
        self.inner.read("summary", |s| budget::json("summary", &s.summary()))
    }

    #[wasm_bindgen(getter, js_name = eventCount)]
    pub fn event_count(&self) -> Result<f64, JsValue> {
        Ok(self.state()?.event_count() as f64)
    }

    #[wasm_bindgen(getter)]
    pub fn revision(&self) -> Result<f64, JsValue> {
        Ok(self.state()?.revision() as f64)
    }
}

/// `{"wasm_memory_bytes", "allocated_bytes", "peak_bytes", "limit_bytes"}`:
/// the linear memory the host holds, the bytes allocated in it now, the
/// most allocated during the last call under the budget (what shows that
/// a call held the limit), and the budget.
#[wasm_bindgen(js_name = memoryUsage)]
pub fn memory_usage() -> String {
    format!(
        "{{\"wasm_memory_bytes\":{},\"allocated_bytes\":{},\"peak_bytes\":{},\"limit_bytes\":{}}}",
        alloc::memory_bytes(),
        alloc::allocated_bytes(),
        alloc::peak_bytes(),
        alloc::limit_bytes()
    )
}
