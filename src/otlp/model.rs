//! The trace as the OTLP protocol defines it (an `ExportTraceServiceRequest`
//! with one resource and one scope), defined once and written as OTLP/JSON
//! (`encode_json`), which js/otlp-protobuf.js re-encodes as protobuf.
//! Ids are kept as the hex the JSON encoding writes.

/// A span's name under the conventions: `op name`, or `op` alone.
/// (Joined, not formatted: `format!` costs code at every call.)
pub fn span_name(op: &str, name: Option<&str>) -> String {
    name.map_or_else(|| op.to_string(), |n| [op, " ", n].concat())
}

/// Appends `value` as 16 lowercase hex digits.
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
    pub fn error(message: impl Into<String>) -> Status {
        Status { error: Some(message.into()) }
    }
}

/// An attribute's value (`AnyValue`): the types this export writes.
#[derive(Debug)]
pub enum Value {
    Str(String),
    Int(i64),
    Bool(bool),
    /// A JSON number as written in the log: its text, so the JSON
    /// encoding writes it unchanged.
    Double(String),
    Strings(Vec<String>),
}

/// A span's, an event's or a link's attributes, in the order they were put.
#[derive(Debug, Default)]
pub struct Attributes(pub Vec<(String, Value)>);

// Not inlined: each is called at dozens of sites in cold code, where an
// inlined copy of the push and the copy of the value costs size for no speed.
impl Attributes {
    #[inline(never)]
    fn put(&mut self, key: &str, value: Value) {
        self.0.push((key.to_string(), value));
    }

    #[inline(never)]
    pub fn str(&mut self, key: &str, value: &str) {
        self.put(key, Value::Str(value.to_string()));
    }

    /// An unsigned count or position: OTLP integers are signed 64-bit, so
    /// one past `i64::MAX` is written as `i64::MAX`.
    #[inline(never)]
    pub fn int(&mut self, key: &str, value: u64) {
        self.put(key, Value::Int(i64::try_from(value).unwrap_or(i64::MAX)));
    }

    pub fn bool(&mut self, key: &str, value: bool) {
        self.put(key, Value::Bool(value));
    }

    pub fn strings(&mut self, key: &str, values: &[String]) {
        self.put(key, Value::Strings(values.to_vec()));
    }

    #[inline(never)]
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(key, v);
        }
    }

    /// A JSON value (valid, as the view keeps it) as an attribute:
    /// strings, booleans and numbers as themselves (integers that fit
    /// 64 bits as integers, other numbers as doubles), objects and arrays
    /// as their JSON text; `null` as nothing.
    pub fn json(&mut self, key: &str, raw: &str) {
        let value = match raw.as_bytes().first() {
            None | Some(b'n') => return,
            Some(b'"') => Value::Str(crate::view::raw::string(raw).unwrap_or_default()),
            Some(b't' | b'f') => Value::Bool(raw == "true"),
            Some(b'{' | b'[') => Value::Str(raw.to_string()),
            Some(_) => match raw.parse::<i64>() {
                Ok(n) => Value::Int(n),
                Err(_) => Value::Double(raw.to_string()),
            },
        };
        self.put(key, value);
    }
}

/// A span event.
#[derive(Debug)]
pub struct SpanEvent {
    pub time: u64,
    pub name: String,
    pub attributes: Attributes,
}

/// A link from a span to another span of the same trace.
#[derive(Debug)]
pub struct Link {
    pub span_id: String,
    pub attributes: Attributes,
}

/// A span, its ids and times resolved.
#[derive(Debug)]
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
#[derive(Debug)]
pub struct Trace {
    pub trace_id: String,
    pub resource: Attributes,
    /// The instrumentation scope's name and version.
    pub scope: (&'static str, &'static str),
    pub spans: Vec<Span>,
}
