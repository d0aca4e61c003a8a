//! The kind table for JS: each known kind with its category, whether it
//! bears a turn, is a kernel OS event, is read by the OS snapshot fold, and
//! when it is alarming; and the categories in display order.

use agent_replay::event::{Category, KindInfo, KIND_TABLE};
use agent_replay::json::to_js_json;
use wasm_bindgen::prelude::*;

/// `{categories, kinds}` as JSON (`KindTable` in js/index.d.ts).
#[wasm_bindgen(js_name = kindTable)]
pub fn kind_table() -> String {
    #[derive(serde::Serialize)]
    struct Wire {
        categories: &'static [Category],
        kinds: &'static [KindInfo],
    }
    agent_replay::write_json_by_serde!(Wire);
    to_js_json(&Wire { categories: Category::ALL, kinds: KIND_TABLE })
}
