//! The kind table for JS: each known kind with its category, whether it
//! bears a turn, is a kernel OS event, is read by the OS snapshot fold, and
//! when it is alarming; and the categories in display order.

use agent_replay::event::{Category, KindInfo, KIND_TABLE};
use agent_replay::json::{to_js_json, JsonOut, WriteJson};
use wasm_bindgen::prelude::*;

/// `{categories, kinds}` as JSON (`KindTable` in js/index.d.ts).
#[wasm_bindgen(js_name = kindTable)]
pub fn kind_table() -> String {
    struct Wire {
        categories: &'static [Category],
        kinds: &'static [KindInfo],
    }
    impl WriteJson for Wire {
        fn write_json(&self, out: &mut JsonOut) {
            agent_replay::write_object!(out, "categories": self.categories, "kinds": self.kinds);
        }
    }
    to_js_json(&Wire { categories: Category::ALL, kinds: KIND_TABLE })
}
