//! The trace as the OTLP protocol defines it (an `ExportTraceServiceRequest`
//! with one resource and one scope), defined once and written as OTLP/JSON
//! (`encode_json`), which js/otlp-protobuf.js re-encodes as protobuf.
//! Ids are kept as the hex the JSON encoding writes; attributes as their
//! JSON, written as they are put.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use crate::json::JsonOut;

/// A span's name under the conventions: `op name`, or `op` alone.
/// (Joined, not formatted: `format!` costs code at every call.)
#[inline]
pub fn span_name(op: &str, name: Option<&str>) -> String {
    name.map_or_else(|| op.to_string(), |n| [op, " ", n].concat())
}

/// Appends `value` as 16 lowercase hex digits.
#[inline]
pub fn push_hex(out: &mut String, value: u64) {
    let mut rest = value;
    for _ in 0..16 {
        rest = rest.rotate_left(4);
        let digit = u32::try_from(rest & 0xf).unwrap_or(0);
        out.push(char::from_digit(digit, 16).unwrap_or('0'));
    }
}

/// `Span.SpanKind`: the values this export uses.
#[derive(Debug, Clone, Copy)]
pub enum SpanKind {
    Internal = 1,
    Client = 3,
}

/// `Status.StatusCode`: 0 unset, 2 error (this export never claims "ok":
/// the conventions leave a successful operation's status unset).
#[derive(Debug, Default)]
pub struct Status {
    pub error: Option<String>,
}

impl Status {
    #[inline]
    pub fn error(message: impl Into<String>) -> Status {
        Status { error: Some(message.into()) }
    }
}

/// A span's, an event's or a link's attributes, in the order they were
/// put: written as OTLP/JSON `KeyValue`s (`{"key":…,"value":{…}}`, the
/// value an `AnyValue`) as they are put, the one encoding the core writes,
/// so no typed value is held in between.
#[derive(Default)]
pub struct Attributes(JsonOut);

// Not inlined: each is called at dozens of sites in cold code, where an
// inlined copy of the writes costs size for no speed.
impl Attributes {
    /// Opens the next `KeyValue` and its value: `{"key":…,"value":{`.
    #[inline(never)]
    fn open(&mut self, key: &str) {
        self.0.raw(if self.0.is_empty() { "{\"key\":" } else { ",{\"key\":" });
        self.0.string(key);
        self.0.raw(",\"value\":{");
    }

    #[inline(never)]
    pub fn str(&mut self, key: &str, value: &str) {
        self.open(key);
        self.0.raw("\"stringValue\":");
        self.0.string(value);
        self.0.raw("}}");
    }

    /// A 64-bit integer: a decimal string, as OTLP/JSON writes them.
    #[inline(never)]
    fn signed(&mut self, key: &str, value: i64) {
        self.open(key);
        self.0.raw("\"intValue\":");
        self.0.string(itoa::Buffer::new().format(value));
        self.0.raw("}}");
    }

    /// An unsigned count or position: OTLP integers are signed 64-bit, so
    /// one past `i64::MAX` is written as `i64::MAX`.
    #[inline]
    pub fn int(&mut self, key: &str, value: u64) {
        self.signed(key, i64::try_from(value).unwrap_or(i64::MAX));
    }

    #[inline]
    pub fn bool(&mut self, key: &str, value: bool) {
        self.open(key);
        self.0.raw(if value { "\"boolValue\":true}}" } else { "\"boolValue\":false}}" });
    }

    #[inline]
    pub fn strings(&mut self, key: &str, values: &[String]) {
        self.open(key);
        self.0.raw("\"arrayValue\":{\"values\":[");
        for (i, v) in values.iter().enumerate() {
            self.0.raw(if i > 0 { ",{\"stringValue\":" } else { "{\"stringValue\":" });
            self.0.string(v);
            self.0.raw("}");
        }
        self.0.raw("]}}}");
    }

    #[inline(never)]
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(key, v);
        }
    }

    /// A JSON value (valid, as the view keeps it) as an attribute:
    /// strings, booleans and numbers as themselves (integers that fit
    /// 64 bits as integers, other numbers as doubles, their text as the
    /// log wrote it), objects and arrays as their JSON text; `null` as
    /// nothing.
    #[inline]
    pub fn json(&mut self, key: &str, raw: &str) {
        match raw.as_bytes().first() {
            None | Some(b'n') => {}
            Some(b'"') => self.str(key, &crate::view::raw::string(raw).unwrap_or_default()),
            Some(b't' | b'f') => self.bool(key, raw == "true"),
            Some(b'{' | b'[') => self.str(key, raw),
            Some(_) => match raw.parse::<i64>() {
                Ok(n) => self.signed(key, n),
                Err(_) => {
                    self.open(key);
                    self.0.raw("\"doubleValue\":");
                    self.0.raw(raw);
                    self.0.raw("}}");
                }
            },
        }
    }

    /// The `KeyValue`s written, comma-separated (the list's brackets are
    /// the caller's).
    #[inline]
    pub fn json_text(&self) -> &JsonOut {
        &self.0
    }
}

/// A span event.
pub struct SpanEvent {
    pub time: u64,
    pub name: String,
    pub attributes: Attributes,
}

/// A link from a span to another span of the same trace.
pub struct Link {
    pub span_id: String,
    pub attributes: Attributes,
}

/// A span, its ids and times resolved.
pub struct Span {
    pub span_id: String,
    /// `""` for the root.
    pub parent_span_id: String,
    pub name: String,
    pub kind: SpanKind,
    pub start: u64,
    pub end: u64,
    pub attributes: Attributes,
    pub events: Vec<SpanEvent>,
    pub links: Vec<Link>,
    pub status: Status,
}

/// One trace: what an `ExportTraceServiceRequest` of this export holds.
pub struct Trace {
    pub trace_id: String,
    pub resource: Attributes,
    /// The instrumentation scope's name and version.
    pub scope: (&'static str, &'static str),
    pub spans: Vec<Span>,
}
