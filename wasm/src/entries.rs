//! `StoredEntryReaderCore`: the core's stored-entry reader
//! (`agent_replay::log::EntryReader`) for JS. What a call reads crosses as
//! one string in the layout of the event wire (`wire`): a header
//! `{"errors":[...]}` (each a load error with the `offset` of its line),
//! then per entry `seq, offset, length, count, key length, length` (count
//! `null` without one; the lengths in UTF-16 units), then each entry's key
//! text (empty without one) and event text, concatenated, as stored.

use agent_replay::json::{to_js_json, JsonOut, WriteJson, MAX_SAFE_INTEGER};
use agent_replay::log::{EntryError, EntryReader, EntrySink, LineEntry};
use wasm_bindgen::prelude::*;

use crate::budget;
use crate::wire::units;

#[wasm_bindgen(js_name = StoredEntryReaderCore)]
pub struct StoredEntryReader {
    inner: EntryReader,
}

#[wasm_bindgen(js_class = StoredEntryReaderCore)]
impl StoredEntryReader {
    /// A reader whose first line has `seq` and starts at byte `offset`.
    #[wasm_bindgen(constructor)]
    pub fn new(seq: f64, offset: f64) -> StoredEntryReader {
        StoredEntryReader { inner: EntryReader::new(seq as u64, offset as u64) }
    }

    /// The entries of the whole lines `chunk` completes, in the wire.
    pub fn write(&mut self, chunk: &[u8]) -> Result<String, JsValue> {
        budget::guard("StoredEntryReader.write", || {
            let mut wire = EntryWire::default();
            self.inner.push(chunk, &mut wire);
            Ok(wire.finish())
        })
    }

    /// The unterminated last line's entry or error, in the wire.
    pub fn end(&mut self) -> Result<String, JsValue> {
        budget::guard("StoredEntryReader.end", || {
            let mut wire = EntryWire::default();
            self.inner.finish(&mut wire);
            Ok(wire.finish())
        })
    }
}

/// A load error with the offset of its line, as JSON: the error's object
/// with `offset` first.
struct PlacedError(EntryError);

impl WriteJson for PlacedError {
    fn write_json(&self, out: &mut JsonOut) {
        let error = to_js_json(&self.0.error);
        let fields = error.strip_prefix('{').unwrap_or(&error);
        out.raw(&format!("{{\"offset\":{},{fields}", self.0.offset));
    }
}

/// The wire of one call, filled as the reader reads.
#[derive(Default)]
struct EntryWire {
    values: String,
    texts: String,
    errors: Vec<PlacedError>,
}

impl EntrySink for EntryWire {
    #[allow(
        clippy::arithmetic_side_effects,
        reason = "lengths of texts held in memory: far below usize::MAX"
    )]
    fn entry(&mut self, line: LineEntry<'_>) {
        let e = line.entry;
        let key = e.key.unwrap_or("");
        let key_units = units(key);
        if !self.values.is_empty() {
            self.values.push(',');
        }
        for n in [e.seq, line.offset, line.length] {
            push_number(&mut self.values, n);
            self.values.push(',');
        }
        match e.count {
            Some(count) => push_number(&mut self.values, count),
            None => self.values.push_str("null"),
        }
        self.values.push(',');
        push_number(&mut self.values, key_units as u64);
        self.values.push(',');
        push_number(&mut self.values, (key_units + units(e.event)) as u64);
        self.texts.push_str(key);
        self.texts.push_str(e.event);
    }

    fn error(&mut self, error: EntryError) {
        self.errors.push(PlacedError(error));
    }
}

impl EntryWire {
    fn finish(self) -> String {
        format!("{{\"errors\":{}}}\n[{}]\n{}", to_js_json(&self.errors), self.values, self.texts)
    }
}

/// Appends a number as JS reads it exactly: past 2^53-1, as a decimal string.
fn push_number(out: &mut String, n: u64) {
    let mut buffer = itoa::Buffer::new();
    let digits = buffer.format(n);
    if n > MAX_SAFE_INTEGER {
        out.push('"');
        out.push_str(digits);
        out.push('"');
    } else {
        out.push_str(digits);
    }
}
