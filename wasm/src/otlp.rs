//! `SessionStateCore.toOtlp`: the session folded so far as an OTLP trace
//! (`agent_replay::otlp`) in its JSON encoding, under the memory budget
//! (`read`). (OTLP/protobuf is re-encoded from it in js/otlp-protobuf.js.)

use agent_replay::otlp::{to_otlp, OtlpOptions};
use wasm_bindgen::prelude::*;

use crate::SessionState;

/// `content`: include message content (the conventions' opt-in);
/// `start_time_ms`: where a log with no recorded time starts (Unix
/// milliseconds, a whole number ≥ 0 that `js/api.js` checked).
#[allow(clippy::cast_possible_truncation, clippy::cast_sign_loss, reason = "checked in JS")]
fn options(content: bool, start_time_ms: Option<f64>) -> OtlpOptions {
    OtlpOptions { content, start_time_ms: start_time_ms.map(|ms| ms as u64) }
}

#[wasm_bindgen(js_class = SessionStateCore)]
impl SessionState {
    /// OTLP/JSON.
    #[wasm_bindgen(js_name = toOtlp)]
    pub fn to_otlp(&self, content: bool, start_time_ms: Option<f64>) -> Result<String, JsValue> {
        let options = options(content, start_time_ms);
        self.inner.read("toOtlp", |s| Ok(to_otlp(s.view(), options)))
    }
}
