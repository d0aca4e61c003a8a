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
    /// Parses one event tolerantly: open to what newer runtimes write (an
    /// enum value this version does not know is kept as written, a u64 may
    /// be a decimal string, a process may name `parent_task_id` instead of
    /// `parent_session_id`). Unknown kinds become `SessionEvent::Unknown`.
    pub fn from_json(text: &'a str) -> Result<Self, EventError> {
        Self::read(text, false)
    }

    /// Parses one event as deepstrike-core 0.2.60 does, no more, no less:
    /// unknown values of the enums it types are errors, a u64 must be a
    /// number, and `agent_process_changed` needs its `parent_session_id`.
    /// Unknown kinds still become `SessionEvent::Unknown` (the caller decides).
    pub fn from_json_strict(text: &'a str) -> Result<Self, EventError> {
        Self::read(text, true)
    }

    fn read(text: &'a str, strict: bool) -> Result<Self, EventError> {
        Self::parse_kind_and_body(read_kind(text)?, text, strict)
    }

    /// Parses one event if `wanted(kind)` (strictly or not); other events
    /// are only checked to be well-formed JSON and give `None` (a fold that
    /// ignores them need not pay for building them).
    pub fn from_json_if(
        text: &'a str,
        strict: bool,
        wanted: &dyn Fn(&str) -> bool,
    ) -> Result<Option<Self>, EventError> {
        let kind = read_kind(text)?;
        if !wanted(&kind) {
            if !super::syntax::is_valid_json(text) {
                // serde_json says exactly what and where.
                super::objects::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
            }
            return Ok(None);
        }
        Self::parse_kind_and_body(kind, text, strict).map(Some)
    }

    fn parse_kind_and_body(kind: Str<'a>, text: &'a str, strict: bool) -> Result<Self, EventError> {
        match super::text::reading(strict, || SessionEvent::parse_body(&kind, text)) {
            Some(Ok(event)) => match event.missing_in_strict().filter(|_| strict) {
                None => Ok(event),
                Some(field) => Err(missing_field(text, kind, field)),
            },
            Some(Err(e)) => Err(EventError {
                kind: Some(kind.into_owned()),
                ..EventError::from_serde(text, &e)
            }),
            None => {
                super::objects::from_str::<IgnoredAny>(text)
                    .map_err(|e| EventError::from_serde(text, &e))?;
                Ok(SessionEvent::Unknown(UnknownEvent { kind, json: text }))
            }
        }
    }
}

impl SessionEvent<'_> {
    /// A field deepstrike-core 0.2.60 requires that tolerant reading lets
    /// newer runtimes leave out.
    fn missing_in_strict(&self) -> Option<&'static str> {
        match self {
            SessionEvent::AgentProcessChanged(e) if e.parent_session_id.is_none() => {
                Some("parent_session_id")
            }
            _ => None,
        }
    }
}

/// serde's error for a missing field, placed as serde places it: at the
/// event's closing brace.
fn missing_field(text: &str, kind: Str<'_>, field: &str) -> EventError {
    EventError {
        message: format!("missing field `{field}`"),
        offset: text.rfind('}').unwrap_or(0),
        field: Some(field.to_string()),
        kind: Some(kind.into_owned()),
        class: serde_json::error::Category::Data,
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
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`i` and `start` are offsets in `text`, held in memory, plus a few bytes"
)]
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

#[allow(clippy::arithmetic_side_effects, reason = "`b[i]` exists: `i + 1 <= b.len()`")]
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
        let message = match full.rsplit_once(" at line ") {
            Some((message, _)) => message.to_string(),
            None => full,
        };
        let offset = offset_of(text, err.line(), err.column());
        let field = field_path(text, offset, &message);
        EventError { message, offset, field, kind: None, class: err.classify() }
    }
}

/// Byte offset of serde_json's 1-based line and column (column counts bytes).
/// An error serde_json could not place has line and column 0: offset 0.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`start` is an offset in `text` and `column` one in its line, held in memory"
)]
fn offset_of(text: &str, line: usize, column: usize) -> usize {
    let mut start = 0;
    for _ in 1..line {
        match text.get(start..).and_then(|t| t.find('\n')) {
            Some(i) => start += i + 1,
            None => break,
        }
    }
    (start + column.saturating_sub(1)).min(text.len())
}

/// The field serde names in "missing field `x`" / "unknown field `x`".
fn quoted_field(message: &str) -> Option<(&str, bool)> {
    if let Some(rest) = message.strip_prefix("missing field `") {
        return Some((rest.get(..rest.find('`')?)?, true));
    }
    let rest = message.strip_prefix("unknown field `")?;
    Some((rest.get(..rest.find('`')?)?, false))
}

/// An open container while the text is walked: an object with the key of
/// the member being read, or an array with the index of its element.
enum Frame {
    Object(Option<String>),
    Array(usize),
}

/// The path (`results[0].is_error`) of the field at fault: the JSON text is
/// walked up to the error offset, tracking keys and array indices.
///
/// serde_json places an error at the last byte it read. An error of a value
/// lands on the value, or on the byte before it when the value is a
/// container: the walk goes through that byte. An error raised after a
/// value was read whole (one read raw, then checked) lands on the comma
/// after it: the walk stops before that comma, in the value's member. An
/// error raised as a container closes lands on its closing bracket: the
/// walk stops before it,
/// leaving that container open. There a named field (serde's missing field,
/// any error of a `tagged::read_via_wire` type) is the object's own field;
/// otherwise the container's last member is at fault (a value that failed
/// after it was read, like an unknown name).
fn field_path(text: &str, offset: usize, message: &str) -> Option<String> {
    let named = quoted_field(message);
    let byte = text.as_bytes().get(offset);
    let at_close = matches!(byte, Some(b'}' | b']'));
    let end = if at_close || byte == Some(&b',') { offset } else { through(offset) };
    let mut stack = open_containers(text, end)?;
    let field_of_top =
        at_close && named.is_some() && matches!(stack.last(), Some(Frame::Object(_)));
    if field_of_top {
        // The object's own field, not the member last read in it.
        stack.pop();
    }
    let mut path = String::new();
    for (depth, frame) in stack.iter().enumerate() {
        match frame {
            Frame::Object(Some(key)) => {
                if !path.is_empty() {
                    path.push('.');
                }
                path.push_str(key);
            }
            Frame::Array(n) if depth > 0 => path.push_str(&format!("[{n}]")),
            _ => {}
        }
    }
    if let Some((name, _)) = named.filter(|&(_, missing)| missing || field_of_top) {
        if !path.is_empty() {
            path.push('.');
        }
        path.push_str(name);
    }
    (!path.is_empty()).then_some(path)
}

#[allow(
    clippy::arithmetic_side_effects,
    reason = "an offset into a text held in memory is below isize::MAX"
)]
fn through(offset: usize) -> usize {
    offset + 1
}

/// The containers open after the first `end` bytes of `text`, outermost
/// first; `None` if a key there is not a valid JSON string.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "`i` steps through a text held in memory, at most two bytes past its end; \
              an array index counts its commas"
)]
fn open_containers(text: &str, end: usize) -> Option<Vec<Frame>> {
    let b = text.as_bytes();
    let mut stack: Vec<Frame> = Vec::new();
    let mut i = 0;
    while i < end {
        let Some(&c) = b.get(i) else { break };
        match c {
            b'{' => stack.push(Frame::Object(None)),
            b'[' => stack.push(Frame::Array(0)),
            b'}' | b']' => {
                stack.pop();
            }
            b',' => match stack.last_mut() {
                Some(Frame::Array(n)) => *n += 1,
                Some(Frame::Object(key)) => *key = None,
                None => {}
            },
            b'"' => {
                let start = i;
                i += 1;
                while let Some(&c) = b.get(i).filter(|&&c| c != b'"') {
                    i += if c == b'\\' { 2 } else { 1 };
                }
                if let Some(Frame::Object(key @ None)) = stack.last_mut() {
                    *key = super::objects::from_str(text.get(start..=i)?).ok();
                }
            }
            _ => {}
        }
        i += 1;
    }
    Some(stack)
}
