//! OTLP/JSON, written straight into one output (the project's
//! `JsonOut`, its strings escaped as everywhere else): an
//! `ExportTraceServiceRequest`, field for field as the OpenTelemetry
//! protobuf definitions name them in JSON (lowerCamelCase). Per the
//! OTLP/JSON encoding, trace and span ids are hex strings and 64-bit
//! integers (times, `intValue`) decimal strings; enums are their numbers.
//! (Written by hand rather than through derived `Serialize` types: the
//! attributes are appended as they are made, with no tree to build and
//! drop, which keeps the .wasm smaller.)

use crate::json::JsonOut;

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

/// Appends a 64-bit integer as OTLP/JSON writes it: a decimal string.
fn push_u64(out: &mut JsonOut, value: u64) {
    out.string(itoa::Buffer::new().format(value));
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

    fn write(&self, out: &mut JsonOut) {
        match &self.error {
            None => out.raw("{\"code\":0}"),
            Some(message) => {
                out.raw("{\"code\":2,\"message\":");
                out.string(message);
                out.raw("}");
            }
        }
    }
}

/// What follows an attribute's key up to its value, for each type of value.
const STRING: &str = ",\"value\":{\"stringValue\":";
const INT: &str = ",\"value\":{\"intValue\":";
const BOOL: &str = ",\"value\":{\"boolValue\":";
const ARRAY: &str = ",\"value\":{\"arrayValue\":";
const DOUBLE: &str = ",\"value\":{\"doubleValue\":";

/// A span's or an event's attributes: `KeyValue` objects written as they
/// come, comma-separated.
/// (Its writers are kept out of line: one copy each in the .wasm, not one
/// per attribute of the export.)
#[derive(Default)]
pub struct Attributes(JsonOut);

impl Attributes {
    /// Opens the next `KeyValue`, up to its value's value: `kind` is the
    /// text from the key's closing quote to there (`STRING` and so on;
    /// one write, not five: the export writes many attributes).
    #[inline(never)]
    fn key(&mut self, key: &str, kind: &str) -> &mut JsonOut {
        let out = &mut self.0;
        out.raw(if out.is_empty() { "{\"key\":" } else { ",{\"key\":" });
        out.string(key);
        out.raw(kind);
        out
    }

    #[inline(never)]
    pub fn str(&mut self, key: &str, value: &str) {
        let out = self.key(key, STRING);
        out.string(value);
        out.raw("}}");
    }

    #[inline(never)]
    pub fn int(&mut self, key: &str, value: u64) {
        let out = self.key(key, INT);
        push_u64(out, value);
        out.raw("}}");
    }

    pub fn bool(&mut self, key: &str, value: bool) {
        let out = self.key(key, BOOL);
        out.raw(if value { "true}}" } else { "false}}" });
    }

    pub fn strings(&mut self, key: &str, values: &[String]) {
        let out = self.key(key, ARRAY);
        out.raw("{\"values\":[");
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.raw(",");
            }
            out.raw("{\"stringValue\":");
            out.string(v);
            out.raw("}");
        }
        out.raw("]}}}");
    }

    #[inline(never)]
    pub fn opt_str(&mut self, key: &str, value: Option<&str>) {
        if let Some(v) = value {
            self.str(key, v);
        }
    }

    /// A JSON value (valid, as the view keeps it) as an attribute:
    /// strings, booleans and numbers as themselves (integers as decimal
    /// strings, other numbers as written), objects and arrays as their
    /// JSON text; `null` as nothing.
    #[inline(never)]
    pub fn json(&mut self, key: &str, raw: &str) {
        match raw.as_bytes().first() {
            None | Some(b'n') => {}
            Some(b'"') => {
                let out = self.key(key, STRING);
                out.raw(raw);
                out.raw("}}");
            }
            Some(b't' | b'f') => {
                let out = self.key(key, BOOL);
                out.raw(raw);
                out.raw("}}");
            }
            Some(b'{' | b'[') => self.str(key, raw),
            Some(_) if raw.parse::<i64>().is_ok() => {
                let out = self.key(key, INT);
                out.string(raw);
                out.raw("}}");
            }
            Some(_) => {
                let out = self.key(key, DOUBLE);
                out.raw(raw);
                out.raw("}}");
            }
        }
    }

    fn write(&self, out: &mut JsonOut) {
        out.raw("\"attributes\":[");
        out.append(&self.0);
        out.raw("]");
    }
}

/// A span event.
pub struct SpanEvent {
    pub time: u64,
    pub name: String,
    pub attributes: Attributes,
}

impl SpanEvent {
    fn write(&self, out: &mut JsonOut) {
        out.raw("{\"timeUnixNano\":");
        push_u64(out, self.time);
        out.raw(",\"name\":");
        out.string(&self.name);
        out.raw(",");
        self.attributes.write(out);
        out.raw("}");
    }
}

/// A span, its ids and times resolved.
pub struct Span<'a> {
    pub trace_id: &'a str,
    pub span_id: &'a str,
    /// `""` for the root.
    pub parent_span_id: &'a str,
    pub name: &'a str,
    pub kind: SpanKind,
    pub start: u64,
    pub end: u64,
    pub attributes: &'a Attributes,
    pub events: &'a [SpanEvent],
    pub status: &'a Status,
}

impl Span<'_> {
    pub fn write(&self, out: &mut JsonOut) {
        out.raw("{\"traceId\":");
        out.string(self.trace_id);
        out.raw(",\"spanId\":");
        out.string(self.span_id);
        if !self.parent_span_id.is_empty() {
            out.raw(",\"parentSpanId\":");
            out.string(self.parent_span_id);
        }
        out.raw(",\"name\":");
        out.string(self.name);
        out.raw(if matches!(self.kind, SpanKind::Client) { ",\"kind\":3" } else { ",\"kind\":1" });
        out.raw(",\"startTimeUnixNano\":");
        push_u64(out, self.start);
        out.raw(",\"endTimeUnixNano\":");
        push_u64(out, self.end);
        out.raw(",");
        self.attributes.write(out);
        if !self.events.is_empty() {
            out.raw(",\"events\":[");
            for (i, event) in self.events.iter().enumerate() {
                if i > 0 {
                    out.raw(",");
                }
                event.write(out);
            }
            out.raw("]");
        }
        out.raw(",\"status\":");
        self.status.write(out);
        out.raw("}");
    }
}

/// The request around the spans `write_spans` appends.
pub fn write_request(
    out: &mut JsonOut,
    resource: &Attributes,
    scope: (&str, &str),
    write_spans: impl FnOnce(&mut JsonOut),
) {
    out.raw("{\"resourceSpans\":[{\"resource\":{");
    resource.write(out);
    out.raw("},\"scopeSpans\":[{\"scope\":{\"name\":");
    out.string(scope.0);
    out.raw(",\"version\":");
    out.string(scope.1);
    out.raw("},\"spans\":[");
    write_spans(out);
    out.raw("]}]}]}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn json_values_become_attributes_of_their_type() {
        let mut a = Attributes::default();
        for (key, raw) in [("s", "\"x\\ny\""), ("t", "true"), ("n", "null"), ("o", "{\"a\":1}")] {
            a.json(key, raw);
        }
        a.json("i", "-12");
        a.json("d", "1.5e3");
        let mut out = JsonOut::default();
        out.raw("{");
        a.write(&mut out);
        out.raw("}");
        let v: serde_json::Value = serde_json::from_str(&out.finish().unwrap()).unwrap();
        let values: Vec<String> = v["attributes"]
            .as_array()
            .unwrap()
            .iter()
            .map(|kv| format!("{}={}", kv["key"].as_str().unwrap(), kv["value"]))
            .collect();
        assert_eq!(
            values,
            [
                r#"s={"stringValue":"x\ny"}"#,
                r#"t={"boolValue":true}"#,
                r#"o={"stringValue":"{\"a\":1}"}"#,
                r#"i={"intValue":"-12"}"#,
                r#"d={"doubleValue":1500.0}"#,
            ]
        );
    }
}
