//! OTLP/JSON, written straight into one string: an
//! `ExportTraceServiceRequest`, field for field as the OpenTelemetry
//! protobuf definitions name them in JSON (lowerCamelCase). Per the
//! OTLP/JSON encoding, trace and span ids are hex strings and 64-bit
//! integers (times, `intValue`) decimal strings; enums are their numbers.
//! (Written by hand rather than through derived `Serialize` types: the
//! attributes are appended as they are made, with no tree to build and
//! drop, which keeps the .wasm smaller.)

use std::fmt::Write as _;

/// Appends `text` as a JSON string.
#[inline(never)]
pub fn push_str(out: &mut String, text: &str) {
    out.push('"');
    let mut rest = text;
    while let Some(at) = rest.find(|c: char| c == '"' || c == '\\' || c < ' ') {
        let (plain, tail) = rest.split_at_checked(at).unwrap_or((rest, ""));
        out.push_str(plain);
        let mut chars = tail.chars();
        match chars.next() {
            Some('"') => out.push_str("\\\""),
            Some('\\') => out.push_str("\\\\"),
            Some('\n') => out.push_str("\\n"),
            Some('\r') => out.push_str("\\r"),
            Some('\t') => out.push_str("\\t"),
            Some(c) => {
                let _ = write!(out, "\\u{:04x}", u32::from(c));
            }
            None => {}
        }
        rest = chars.as_str();
    }
    out.push_str(rest);
    out.push('"');
}

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
pub fn push_u64(out: &mut String, value: u64) {
    out.push('"');
    out.push_str(itoa::Buffer::new().format(value));
    out.push('"');
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

    fn write(&self, out: &mut String) {
        match &self.error {
            None => out.push_str("{\"code\":0}"),
            Some(message) => {
                out.push_str("{\"code\":2,\"message\":");
                push_str(out, message);
                out.push('}');
            }
        }
    }
}

/// A span's or an event's attributes: `KeyValue` objects written as they
/// come, comma-separated.
/// (Its writers are kept out of line: one copy each in the .wasm, not one
/// per attribute of the export.)
#[derive(Debug, Default)]
pub struct Attributes(String);

impl Attributes {
    /// Opens the next `KeyValue`, up to its value's value.
    #[inline(never)]
    fn key(&mut self, key: &str, kind: &str) -> &mut String {
        let out = &mut self.0;
        if !out.is_empty() {
            out.push(',');
        }
        out.push_str("{\"key\":");
        push_str(out, key);
        out.push_str(",\"value\":{\"");
        out.push_str(kind);
        out.push_str("\":");
        out
    }

    #[inline(never)]
    pub fn str(&mut self, key: &str, value: &str) {
        let out = self.key(key, "stringValue");
        push_str(out, value);
        out.push_str("}}");
    }

    #[inline(never)]
    pub fn int(&mut self, key: &str, value: u64) {
        let out = self.key(key, "intValue");
        push_u64(out, value);
        out.push_str("}}");
    }

    pub fn bool(&mut self, key: &str, value: bool) {
        let out = self.key(key, "boolValue");
        out.push_str(if value { "true}}" } else { "false}}" });
    }

    pub fn strings(&mut self, key: &str, values: &[String]) {
        let out = self.key(key, "arrayValue");
        out.push_str("{\"values\":[");
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                out.push(',');
            }
            out.push_str("{\"stringValue\":");
            push_str(out, v);
            out.push('}');
        }
        out.push_str("]}}}");
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
                let out = self.key(key, "stringValue");
                out.push_str(raw);
                out.push_str("}}");
            }
            Some(b't' | b'f') => {
                let out = self.key(key, "boolValue");
                out.push_str(raw);
                out.push_str("}}");
            }
            Some(b'{' | b'[') => self.str(key, raw),
            Some(_) if raw.parse::<i64>().is_ok() => {
                let out = self.key(key, "intValue");
                push_str(out, raw);
                out.push_str("}}");
            }
            Some(_) => {
                let out = self.key(key, "doubleValue");
                out.push_str(raw);
                out.push_str("}}");
            }
        }
    }

    fn write(&self, out: &mut String) {
        out.push_str("\"attributes\":[");
        out.push_str(&self.0);
        out.push(']');
    }
}

/// A span event.
#[derive(Debug)]
pub struct SpanEvent {
    pub time: u64,
    pub name: String,
    pub attributes: Attributes,
}

impl SpanEvent {
    fn write(&self, out: &mut String) {
        out.push_str("{\"timeUnixNano\":");
        push_u64(out, self.time);
        out.push_str(",\"name\":");
        push_str(out, &self.name);
        out.push(',');
        self.attributes.write(out);
        out.push('}');
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
    pub fn write(&self, out: &mut String) {
        out.push_str("{\"traceId\":");
        push_str(out, self.trace_id);
        out.push_str(",\"spanId\":");
        push_str(out, self.span_id);
        if !self.parent_span_id.is_empty() {
            out.push_str(",\"parentSpanId\":");
            push_str(out, self.parent_span_id);
        }
        out.push_str(",\"name\":");
        push_str(out, self.name);
        out.push_str(if matches!(self.kind, SpanKind::Client) {
            ",\"kind\":3"
        } else {
            ",\"kind\":1"
        });
        out.push_str(",\"startTimeUnixNano\":");
        push_u64(out, self.start);
        out.push_str(",\"endTimeUnixNano\":");
        push_u64(out, self.end);
        out.push(',');
        self.attributes.write(out);
        if !self.events.is_empty() {
            out.push_str(",\"events\":[");
            for (i, event) in self.events.iter().enumerate() {
                if i > 0 {
                    out.push(',');
                }
                event.write(out);
            }
            out.push(']');
        }
        out.push_str(",\"status\":");
        self.status.write(out);
        out.push('}');
    }
}

/// The request around the spans `write_spans` appends.
pub fn write_request(
    out: &mut String,
    resource: &Attributes,
    scope: (&str, &str),
    write_spans: impl FnOnce(&mut String),
) {
    out.push_str("{\"resourceSpans\":[{\"resource\":{");
    resource.write(out);
    out.push_str("},\"scopeSpans\":[{\"scope\":{\"name\":");
    push_str(out, scope.0);
    out.push_str(",\"version\":");
    push_str(out, scope.1);
    out.push_str("},\"spans\":[");
    write_spans(out);
    out.push_str("]}]}]}");
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_are_escaped_as_json() {
        let text = "a \"q\" \\ \n\r\t \u{1} é ☃";
        let mut out = String::new();
        push_str(&mut out, text);
        assert_eq!(serde_json::from_str::<String>(&out).unwrap(), text);
        assert_eq!(out, "\"a \\\"q\\\" \\\\ \\n\\r\\t \\u0001 é ☃\"");
    }

    #[test]
    fn json_values_become_attributes_of_their_type() {
        let mut a = Attributes::default();
        for (key, raw) in [("s", "\"x\\ny\""), ("t", "true"), ("n", "null"), ("o", "{\"a\":1}")] {
            a.json(key, raw);
        }
        a.json("i", "-12");
        a.json("d", "1.5e3");
        let mut out = String::from("{");
        a.write(&mut out);
        out.push('}');
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
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
