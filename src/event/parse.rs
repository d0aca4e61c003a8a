//! Parsing one event from its JSON text. The kind is read first (a byte
//! scan when `"kind"` is the first key, as the kernel writes it), then the
//! body is deserialized straight from the text: no intermediate tree.

use serde::de::IgnoredAny;
use serde::Deserialize;

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
        Self::parse_kind_and_body(read_kind(text)?, text)
    }

    /// Parses one event if `wanted(kind)`; other events are only checked to
    /// be well-formed JSON and give `None` (a fold that ignores them need
    /// not pay for building them).
    pub fn from_json_if(
        text: &'a str,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Option<Self>, EventError> {
        let kind = read_kind(text)?;
        if !wanted(&kind) {
            if !super::syntax::is_valid_json(text) {
                // serde_json says exactly what and where.
                serde_json::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
            }
            return Ok(None);
        }
        Self::parse_kind_and_body(kind, text).map(Some)
    }

    fn parse_kind_and_body(kind: Str<'a>, text: &'a str) -> Result<Self, EventError> {
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

/// The kind: by a byte scan when it leads, else by a probe parse.
fn read_kind(text: &str) -> Result<Str<'_>, EventError> {
    match scan_leading_kind(text) {
        Some(kind) => Ok(Str::from(kind)),
        None => probe_kind(text),
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
    i = skip_ws(b, i.saturating_add(1));
    if b.get(i..i.saturating_add(6))? != b"\"kind\"" {
        return None;
    }
    i = skip_ws(b, i.saturating_add(6));
    if b.get(i) != Some(&b':') {
        return None;
    }
    i = skip_ws(b, i.saturating_add(1));
    if b.get(i) != Some(&b'"') {
        return None;
    }
    let start = i.saturating_add(1);
    let len = b.get(start..)?.iter().position(|&c| c == b'"' || c == b'\\')?;
    if b.get(start.saturating_add(len)) != Some(&b'"') {
        return None;
    }
    text.get(start..start.saturating_add(len))
}

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while matches!(b.get(i), Some(b' ' | b'\t' | b'\n' | b'\r')) {
        i = i.saturating_add(1);
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
            Some(i) => full.get(..i).unwrap_or_default().to_string(),
            None => full,
        };
        let offset = offset_of(text, err.line(), err.column());
        let field = field_path(text, offset, &message);
        EventError { message, offset, field, kind: None, class: err.classify() }
    }
}

/// Byte offset of serde_json's 1-based line and column (column counts bytes).
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start = start.saturating_add(i).saturating_add(1),
            None => break,
        }
    }
    start.saturating_add(column.saturating_sub(1)).min(text.len())
}

/// The field serde names in "missing field `x`" / "unknown field `x`".
fn quoted_field(message: &str) -> Option<(&str, bool)> {
    if let Some(rest) = message.strip_prefix("missing field `") {
        return Some((rest.get(..rest.find('`')?)?, true));
    }
    let rest = message.strip_prefix("unknown field `")?;
    Some((rest.get(..rest.find('`')?)?, false))
}

/// The path (`results[0].is_error`) of the field at fault: the JSON text is
/// walked up to the error offset, tracking keys and array indices.
fn field_path(text: &str, offset: usize, message: &str) -> Option<String> {
    enum Frame {
        Object(Option<String>),
        Array(usize),
    }
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    let quoted = quoted_field(message);
    // A missing field is reported once its object has closed: stop before it.
    let end = if matches!(quoted, Some((_, true))) { offset.saturating_sub(1) } else { offset };
    while i < end {
        let Some(&c) = b.get(i) else { break };
        match c {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n = (*n).saturating_add(1),
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let start = i;
                i = i.saturating_add(1);
                while let Some(&c) = b.get(i).filter(|&&c| c != b'"') {
                    i = i.saturating_add(if c == b'\\' { 2 } else { 1 });
                }
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    *key = serde_json::from_str(text.get(start..=i)?).ok();
                }
            }
            _ => {}
        }
        i = i.saturating_add(1);
    }
    let mut path = String::new();
    let last = stack.len().saturating_sub(1);
    for (depth, frame) in stack.iter().enumerate() {
        match frame {
            Frame::Object(Some(key)) if !(depth == last && matches!(quoted, Some((_, true)))) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array(n) if depth > 0 => path.push_str(&format!("[{n}]")),
            _ => {}
        }
    }
    if let Some((name, true)) = quoted {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    }
    (!path.is_empty()).then_some(path)
}
