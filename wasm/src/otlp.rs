//! `SessionStateCore.toOtlp`: the session folded so far as OTLP/JSON
//! traces (`agent_replay::otlp`), under the memory budget (`read`).

use agent_replay::otlp::{to_otlp, OtlpOptions};
use wasm_bindgen::prelude::*;

use crate::SessionState;

#[wasm_bindgen(js_class = SessionStateCore)]
impl SessionState {
    /// `content`: include message content (the conventions' opt-in).
    #[wasm_bindgen(js_name = toOtlp)]
    pub fn to_otlp(&self, content: bool) -> Result<String, JsValue> {
        self.inner.read("toOtlp", |s| Ok(to_otlp(s.view(), OtlpOptions { content })))
    }
}
