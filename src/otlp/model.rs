//! The OTLP/JSON shapes this export writes: `ExportTraceServiceRequest`
//! and what it holds, field for field as the OpenTelemetry protobuf
//! definitions name them in JSON (lowerCamelCase). Per the OTLP/JSON
//! encoding, trace and span ids are hex strings and 64-bit integers
//! (times, `intValue`) decimal strings; enums are their numbers.

use serde::Serialize;

use crate::json::JsonText;

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ExportTraceServiceRequest {
    pub resource_spans: Vec<ResourceSpans>,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ResourceSpans {
    pub resource: Resource,
    pub scope_spans: Vec<ScopeSpans>,
}

#[derive(Debug, Serialize)]
pub struct Resource {
    pub attributes: Vec<KeyValue>,
}

#[derive(Debug, Serialize)]
pub struct ScopeSpans {
    pub scope: Scope,
    pub spans: Vec<Span>,
}

#[derive(Debug, Serialize)]
pub struct Scope {
    pub name: &'static str,
    pub version: &'static str,
}

/// `Span.SpanKind`: the values this export uses.
#[derive(Debug, Clone, Copy)]
pub enum SpanKind {
    Internal = 1,
    Client = 3,
}

impl Serialize for SpanKind {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_u8(*self as u8)
    }
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Span {
    pub trace_id: String,
    pub span_id: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub parent_span_id: String,
    pub name: String,
    pub kind: SpanKind,
    pub start_time_unix_nano: String,
    pub end_time_unix_nano: String,
    pub attributes: Vec<KeyValue>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<SpanEvent>,
    pub status: Status,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SpanEvent {
    pub time_unix_nano: String,
    pub name: String,
    pub attributes: Vec<KeyValue>,
}

/// `Status.StatusCode`: 0 unset, 2 error (this export never claims "ok":
/// the conventions leave a successful operation's status unset).
#[derive(Debug, Default, Serialize)]
pub struct Status {
    pub code: u8,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub message: String,
}

impl Status {
    pub fn error(message: impl Into<String>) -> Status {
        Status { code: 2, message: message.into() }
    }
}

#[derive(Debug, Serialize)]
pub struct KeyValue {
    pub key: String,
    pub value: AnyValue,
}

#[derive(Debug, Serialize)]
pub enum AnyValue {
    #[serde(rename = "stringValue")]
    String(String),
    #[serde(rename = "boolValue")]
    Bool(bool),
    /// A 64-bit integer, written as its decimal string.
    #[serde(rename = "intValue")]
    Int(String),
    /// A number with a fraction or an exponent, written as the log wrote it.
    #[serde(rename = "doubleValue")]
    Double(JsonText),
    #[serde(rename = "arrayValue")]
    Array(ArrayValue),
}

#[derive(Debug, Serialize)]
pub struct ArrayValue {
    pub values: Vec<AnyValue>,
}

/// Builds a span's or an event's attribute list. (Plain `&str` keys and
/// values: one copy of each method in the .wasm.)
#[derive(Debug, Default)]
pub struct Attributes(pub Vec<KeyValue>);

impl Attributes {
    pub fn put(&mut self, key: &str, value: AnyValue) {
        self.0.push(KeyValue { key: key.to_string(), value });
    }

    pub fn str(&mut self, key: &str, value: &str) {
        self.put(key, AnyValue::String(value.to_string()));
    }

    pub fn int(&mut self, key: &str, value: u64) {
        self.put(key, AnyValue::Int(value.to_string()));
    }

    pub fn bool(&mut self, key: &str, value: bool) {
        self.put(key, AnyValue::Bool(value));
    }

    pub fn strings(&mut self, key: &str, values: &[String]) {
        let values = values.iter().map(|v| AnyValue::String(v.clone())).collect();
        self.put(key, AnyValue::Array(ArrayValue { values }));
    }

    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(key, v);
        }
    }
}
