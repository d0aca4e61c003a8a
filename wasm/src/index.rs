//! `SessionIndexCore`: the paged index (`agent_replay::index`) for JS, held
//! under the memory budget (`budget::Held`). Pages cross in the one event
//! wire (`wire::Folded`), positions of a filter as a `Uint32Array`, the
//! rest as JSON.

use agent_replay::index::{shown_state_json, Filter, SessionIndex as CoreIndex, TURN_SERIES};
use agent_replay::json::to_js_json;
use agent_replay::state::SessionState;
use wasm_bindgen::prelude::*;

use crate::{budget, opts, report_json, wire};

#[wasm_bindgen(js_name = SessionIndexCore)]
pub struct SessionIndex {
    inner: budget::Held<CoreIndex>,
}

/// `{summary, os_snapshot}` of a state, as JSON.
fn state_json(state: &SessionState) -> String {
    format!(
        "{{\"summary\":{},\"os_snapshot\":{}}}",
        to_js_json(&state.summary()),
        to_js_json(state.os_snapshot())
    )
}

#[wasm_bindgen(js_class = SessionIndexCore)]
impl SessionIndex {
    /// With `defer_check`, non-strict loads defer the typed check of the
    /// events no fold reads to `checkStep` (`CoreIndex::deferring`).
    #[wasm_bindgen(constructor)]
    pub fn new(session_id: Option<String>, defer_check: Option<bool>) -> SessionIndex {
        let index = CoreIndex::new(session_id).deferring(defer_check.unwrap_or(false));
        SessionIndex { inner: budget::Held::new("SessionIndex", index) }
    }

    /// Checks up to `budget` more deferred events (`CoreIndex::check_step`;
    /// 0 only says how far it got): `[checked_to, done]`, `done` 1 or 0 (two
    /// numbers, not JSON: no formatter for them in the .wasm).
    #[wasm_bindgen(js_name = checkStep)]
    pub fn check_step(&mut self, budget: u32) -> Result<Vec<f64>, JsValue> {
        self.inner.fold("checkStep", |i| {
            let progress = i.check_step(budget as usize);
            Ok(vec![progress.checked_to as f64, f64::from(u8::from(progress.done))])
        })
    }

    /// Indexes a whole log, which the index then keeps as its events'
    /// texts. Like `SessionState.apply`, it reports nothing: the load
    /// errors are read with `loadErrors`.
    #[wasm_bindgen(js_name = applyBytes)]
    pub fn apply_bytes(&mut self, bytes: Vec<u8>, strict: bool) -> Result<(), JsValue> {
        self.inner.fold("apply", |i| {
            i.apply_log(bytes, opts(strict))?;
            Ok(())
        })
    }

    /// Makes room at once for the index of a log of about `bytes` bytes
    /// (`alloc::reserve`: within the memory limit).
    pub fn reserve(&self, bytes: f64) {
        crate::alloc::reserve(CoreIndex::expected_bytes(bytes as usize));
    }

    /// Indexes the next chunk, which the index then keeps as its events'
    /// texts (copied in once, by the bindings, as `applyBytes`'s log).
    pub fn write(&mut self, chunk: Vec<u8>, strict: bool) -> Result<(), JsValue> {
        self.inner.fold("write", |i| Ok(i.write(chunk, opts(strict))?))
    }

    /// Ends a streamed log; `{framing, events, errors}` as JSON.
    pub fn end(&mut self) -> Result<String, JsValue> {
        self.inner.fold("end", |i| Ok(report_json(&i.end()?)))
    }

    #[wasm_bindgen(getter, js_name = eventCount)]
    pub fn event_count(&self) -> Result<f64, JsValue> {
        Ok(self.inner.get()?.event_count() as f64)
    }

    /// The events at positions `from..=to` in the event wire, each with
    /// its position (`Folded::push_at`).
    pub fn events(&self, from: f64, to: f64) -> Result<String, JsValue> {
        self.inner.read("events", |i| {
            let mut page = wire::Folded::default();
            for e in i.events(from as u64, to as u64) {
                page.push_at(e.position, e.text, e.kind, e.turn);
            }
            Ok(page.finish("{}"))
        })
    }

    /// The events at the given positions in the event wire, each with its
    /// position (`Folded::push_at`).
    #[wasm_bindgen(js_name = eventsAt)]
    pub fn events_at(&self, positions: &[u32]) -> Result<String, JsValue> {
        self.inner.read("eventsAt", |i| {
            let mut page = wire::Folded::default();
            for e in i.events_at(positions) {
                page.push_at(e.position, e.text, e.kind, e.turn);
            }
            Ok(page.finish("{}"))
        })
    }

    /// The positions the filter keeps (see `Filter`); `kinds` one a line
    /// (no kind holds a newline), `None` for any.
    pub fn filter(
        &self,
        kinds: Option<String>,
        unknown: bool,
        query: Option<String>,
    ) -> Result<Vec<u32>, JsValue> {
        let kinds =
            kinds.map(|k| k.split('\n').filter(|k| !k.is_empty()).map(str::to_string).collect());
        let filter = Filter { kinds, unknown, query };
        // Positions fit: a log in a 4 GiB memory holds fewer than 2^32 events.
        self.inner.read("filter", |i| Ok(i.filter(&filter).into_iter().map(|p| p as u32).collect()))
    }

    /// `{positions, next}` as JSON: up to `limit` matches from `from`.
    pub fn search(&self, query: &str, from: f64, limit: u32) -> Result<String, JsValue> {
        self.inner.read("search", |i| {
            let (positions, next) = i.search(query, from as u64, limit as usize);
            Ok(format!(
                "{{\"positions\":{},\"next\":{}}}",
                to_js_json(&positions),
                to_js_json(&next)
            ))
        })
    }

    /// `{summary, os_snapshot}` as of a position, as JSON; with `tail`,
    /// the lists cut to their last `tail` items and `totals` beside them.
    #[wasm_bindgen(js_name = stateAt)]
    pub fn state_at(&self, position: f64, tail: Option<u32>) -> Result<String, JsValue> {
        self.inner.read("stateAt", |i| {
            let state = i.state_at(position as u64);
            Ok(match tail {
                Some(tail) => shown_state_json(state, tail as usize),
                None => state_json(&state),
            })
        })
    }

    /// The last `last` transcript entries of the events `from..=to` folded
    /// on their own, at the log's positions, as JSON.
    pub fn transcript(&self, from: f64, to: f64, last: u32) -> Result<String, JsValue> {
        self.inner.read("transcript", |i| {
            Ok(to_js_json(&i.transcript(from as u64, to as u64, last as usize)))
        })
    }

    /// The summary after the last event, as JSON.
    pub fn summary(&self) -> Result<String, JsValue> {
        self.inner.read("summary", |i| budget::json("summary", &i.state().summary()))
    }

    /// The OS snapshot after the last event, as JSON.
    #[wasm_bindgen(js_name = osSnapshot)]
    pub fn os_snapshot(&self) -> Result<String, JsValue> {
        self.inner.read("osSnapshot", |i| budget::json("osSnapshot", i.state().os_snapshot()))
    }

    pub fn turns(&self) -> Result<String, JsValue> {
        self.inner.read("turns", |i| budget::json("turns", &i.turns()))
    }

    /// The per-turn numbers, column after column (`turnSeriesColumns`).
    #[wasm_bindgen(js_name = turnSeries)]
    pub fn turn_series(&self) -> Result<Vec<f64>, JsValue> {
        self.inner.read("turnSeries", |i| Ok(i.turn_series()))
    }

    /// The names of `turnSeries`'s columns, in order, one a line.
    #[wasm_bindgen(js_name = turnSeriesColumns)]
    pub fn turn_series_columns() -> String {
        TURN_SERIES.join("\n")
    }

    #[wasm_bindgen(js_name = loadErrors)]
    pub fn load_errors(&self) -> Result<String, JsValue> {
        self.inner.read("loadErrors", |i| budget::json("loadErrors", i.load_errors()))
    }

    #[wasm_bindgen(js_name = observationKinds)]
    pub fn observation_kinds(&self) -> Result<String, JsValue> {
        self.inner.read("observationKinds", |i| Ok(to_js_json(&i.observation_kinds())))
    }

    /// `{retained_bytes, checkpoints, checkpoint_spacing}` as JSON.
    pub fn memory(&self) -> Result<String, JsValue> {
        let (retained, kept, spacing) = self.inner.get()?.memory_stats();
        Ok(format!(
            "{{\"retained_bytes\":{retained},\"checkpoints\":{kept},\"checkpoint_spacing\":{spacing}}}"
        ))
    }
}
