//! Parsing one event from its JSON text. The kind is read first (a byte
//! scan when `"kind"` is the first key, as the kernel writes it), then the
//! body is deserialized straight from the text: no intermediate tree.

use std::collections::BTreeMap;

use serde::de::IgnoredAny;
use serde::Deserialize;
use serde_json::value::RawValue;

use super::{SessionEvent, Str, UnknownEvent};

/// Why one event's text is not a valid event.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventError {
    /// What is wrong, without position.
    pub message: String,
    /// Byte offset in the event text where the parser stopped.
    pub offset: usize,
    /// The top-level field at fault, where one is.
    pub field: Option<String>,
    /// The event's kind, when it could be read.
    pub kind: Option<String>,
    /// Syntax, end of input, or a well-formed value of the wrong shape.
    pub class: serde_json::error::Category,
}

impl<'a> SessionEvent<'a> {
    /// Parses one event. Unknown kinds become `SessionEvent::Unknown`.
    pub fn from_json(text: &'a str) -> Result<Self, EventError> {
        let kind = match scan_leading_kind(text) {
            Some(kind) => Str::from(kind),
            None => probe_kind(text)?,
        };
        match SessionEvent::parse_body(&kind, text) {
            Some(Ok(event)) => Ok(event),
            Some(Err(e)) => Err(EventError {
                kind: Some(kind.into_owned()),
                ..EventError::from_serde(text, &e)
            }),
            None => {
                serde_json::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
                Ok(SessionEvent::Unknown(UnknownEvent { kind, json: text }))
            }
        }
    }
}

/// `{"kind":"name"` at the start (whitespace allowed), with no escapes in
/// the name: the kernel's own layout, recognised without a parser.
fn scan_leading_kind(text: &str) -> Option<&str> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&b'{') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i..i + 6)? != b"\"kind\"" {
        return None;
    }
    i = skip_ws(b, i + 6);
    if b.get(i) != Some(&b':') {
        return None;
    }
    i = skip_ws(b, i + 1);
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i + 1;
    let len = b.get(start..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
    if b.get(start + len) != Some(&b'"') {
        return None;
    }
    text.get(start..start + len)
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i += 1;
    }
    i
}

#[derive(Deserialize)]
#[serde(bound(deserialize = "'de: 'a"))]
struct KindProbe<'a> {
    kind: Str<'a>,
}

fn probe_kind(text: &str) -> Result<Str<'_>, EventError> {
    serde_json::from_str::<KindProbe>(text)
        .map(|p| p.kind)
        .map_err(|e| EventError::from_serde(text, &e))
}

impl EventError {
    pub(crate) fn from_serde(text: &str, err: &serde_json::Error) -> Self {
        let full = err.to_string();
        let message = match full.rfind(" at line ") {
            Some(i) => full[..i].to_string(),
            None => full,
        };
        let offset = offset_of(text, err.line(), err.column());
        let field = quoted_field(&message).or_else(|| field_at(text, offset));
        EventError { message, offset, field, kind: None, class: err.classify() }
    }
}

/// Byte offset of serde_json's 1-based line and column (column counts bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text[start..].find('\n') {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// The field serde names in "missing field `x`" / "unknown field `x`".
fn quoted_field(message: &str) -> Option<String> {
    let rest = message
        .strip_prefix("missing field `")
        .or_else(|| message.strip_prefix("unknown field `"))?;
    Some(rest[..rest.find('`')?].to_string())
}

/// The top-level key whose value spans `offset` (error path only).
fn field_at(text: &str, offset: usize) -> Option<String> {
    let map: BTreeMap<String, &RawValue> = serde_json::from_str(text).ok()?;
    let base = text.as_ptr() as usize;
    map.into_iter().find_map(|(key, raw)| {
        let start = raw.get().as_ptr() as usize - base;
        (start <= offset && offset <= start + raw.get().len()).then_some(key)
    })
}
