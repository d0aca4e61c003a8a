//! The one wire format for events crossing to JS, read by `decodeEvents` in
//! js/common.js. One string of three parts:
//!
//! ```text
//! {header JSON}\n[value, ..., length, value, ..., length, ...]\ntexts
//! ```
//!
//! The header is a JSON object (what the call answers besides events). The
//! second line is one JSON array of a fixed number of values per event, the
//! last of which is the length of the event's text in UTF-16 units (as JS
//! slices it). Then the events' texts, concatenated, as written: JS slices
//! each out without re-serialising it. Folded events carry `kind, turn,
//! length` (3 values); a paged index's `position, kind, turn, length` (4); observed events `revision, position, cursor length,
//! length` (4 values), their text their cursor then their JSON, their
//! session the header's `session_id`. Cursors are formatted in Rust only:
//! here for every event of a wire (a slice for JS to read), by
//! `formatCursor` for the event `append` returns.

use std::fmt::Write;

use agent_replay::json::{js_safe_text, to_js_json};
use agent_replay::live::cursor::write_cursor;
use agent_replay::live::ObservedEvent;
use agent_replay::SessionEvent;

/// The length of a text in UTF-16 units, as JS counts it.
pub fn units(text: &str) -> usize {
    if text.is_ascii() {
        text.len()
    } else {
        text.encode_utf16().count()
    }
}

/// Starts one event's values in the array line.
fn start_row(meta: &mut String) {
    if !meta.ends_with('[') {
        meta.push(',');
    }
}

/// Appends a decimal number.
fn push_number(out: &mut String, n: impl itoa::Integer) {
    out.push_str(itoa::Buffer::new().format(n));
}

/// Folded events, pushed one at a time as a log is read.
#[derive(Default)]
pub struct Folded {
    meta: String,
    texts: String,
}

impl Folded {
    /// `kind, turn, length`; the text with the integers JS would round
    /// written as strings.
    pub fn push(&mut self, text: &str, event: &SessionEvent<'_>) {
        self.push_row(None, text, event.kind(), event.turn());
    }

    /// `position, kind, turn, length`, for an event a paged index holds.
    pub fn push_at(&mut self, position: u64, text: &str, kind: &str, turn: Option<u32>) {
        self.push_row(Some(position), text, kind, turn);
    }

    fn push_row(&mut self, position: Option<u64>, text: &str, kind: &str, turn: Option<u32>) {
        let kind = to_js_json(&kind);
        let json = js_safe_text(text);
        if self.meta.is_empty() {
            self.meta.push('[');
        }
        start_row(&mut self.meta);
        if let Some(position) = position {
            push_number(&mut self.meta, position);
            self.meta.push(',');
        }
        self.meta.push_str(&kind);
        self.meta.push(',');
        match turn {
            Some(turn) => push_number(&mut self.meta, turn),
            None => self.meta.push_str("null"),
        }
        self.meta.push(',');
        push_number(&mut self.meta, units(&json));
        self.texts.push_str(&json);
    }

    /// The wire, with `header` (a JSON object) first.
    pub fn finish(self, header: &str) -> String {
        let meta = if self.meta.is_empty() { "[" } else { &self.meta };
        format!("{header}\n{meta}]\n{}", self.texts)
    }
}

/// Observed events of one session (`revision, position, cursor length,
/// length`; each text is the event's cursor then its JSON). The header holds
/// `fields` (`"type":"event"`, ..., or nothing) and, when there are events,
/// their `session_id`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "sizes and lengths of texts held in memory: far below usize::MAX"
)]
pub fn observed(fields: &str, incarnation: &str, events: &[ObservedEvent]) -> String {
    let Some(first) = events.first() else {
        return format!("{{{fields}}}\n[]\n");
    };
    let session = &*first.session_id;
    let json_bytes: usize = events.iter().map(|e| e.json.len()).sum();
    let cursor_bytes = incarnation.len() + session.len() + 48;
    let mut texts = String::with_capacity(events.len() * cursor_bytes + json_bytes);
    let mut out = String::with_capacity(events.len() * 32 + 64);
    let sep = if fields.is_empty() { "" } else { "," };
    let _ = write!(out, "{{{fields}{sep}\"session_id\":{}}}\n[", to_js_json(&session));
    let mut cursor = String::with_capacity(cursor_bytes);
    for e in events {
        cursor.clear();
        let _ = write_cursor(&mut cursor, incarnation, e.revision, e.position, session);
        let cursor_units = units(&cursor);
        start_row(&mut out);
        for n in [e.revision.0, e.position.0, cursor_units as u64] {
            push_number(&mut out, n);
            out.push(',');
        }
        push_number(&mut out, cursor_units + units(&e.json));
        texts.push_str(&cursor);
        texts.push_str(&e.json);
    }
    out.push_str("]\n");
    out.push_str(&texts);
    out
}
