//! OTLP/JSON, written straight into one output (the project's `JsonOut`,
//! its strings escaped as everywhere else): the `Trace` field for field as
//! the OpenTelemetry protobuf definitions name them in JSON
//! (lowerCamelCase); the attributes, written as they were put
//! (`model::Attributes`), copied in. Per the OTLP/JSON encoding, trace and
//! span ids are hex strings and 64-bit integers (times, `intValue`) decimal
//! strings; enums are their numbers.
//!
//! (`#[inline]` throughout: see the parent module's doc.)

use super::model::{Attributes, Link, Span, SpanEvent, SpanKind, Status, Trace};
use crate::json::JsonOut;

/// Appends a 64-bit integer as OTLP/JSON writes it: a decimal string.
#[inline]
fn push_u64(out: &mut JsonOut, value: u64) {
    out.string(itoa::Buffer::new().format(value));
}

#[inline]
fn write_status(status: &Status, out: &mut JsonOut) {
    match &status.error {
        None => out.raw("{\"code\":0}"),
        Some(message) => {
            out.raw("{\"code\":2,\"message\":");
            out.string(message);
            out.raw("}");
        }
    }
}

#[inline]
fn write_attributes(attributes: &Attributes, out: &mut JsonOut) {
    out.raw("\"attributes\":[");
    out.append(attributes.json_text());
    out.raw("]");
}

#[inline]
fn write_event(event: &SpanEvent, out: &mut JsonOut) {
    out.raw("{\"timeUnixNano\":");
    push_u64(out, event.time);
    out.raw(",\"name\":");
    out.string(&event.name);
    out.raw(",");
    write_attributes(&event.attributes, out);
    out.raw("}");
}

#[inline]
fn write_link(link: &Link, trace_id: &str, out: &mut JsonOut) {
    out.raw("{\"traceId\":");
    out.string(trace_id);
    out.raw(",\"spanId\":");
    out.string(&link.span_id);
    out.raw(",");
    write_attributes(&link.attributes, out);
    out.raw("}");
}

/// Writes `items` as `,"name":[...]`, or nothing when there are none.
#[inline]
fn write_list<T>(out: &mut JsonOut, name: &str, items: &[T], write: impl Fn(&T, &mut JsonOut)) {
    if items.is_empty() {
        return;
    }
    out.raw(name);
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.raw(",");
        }
        write(item, out);
    }
    out.raw("]");
}

#[inline]
fn write_span(span: &Span, trace_id: &str, out: &mut JsonOut) {
    out.raw("{\"traceId\":");
    out.string(trace_id);
    out.raw(",\"spanId\":");
    out.string(&span.span_id);
    if !span.parent_span_id.is_empty() {
        out.raw(",\"parentSpanId\":");
        out.string(&span.parent_span_id);
    }
    out.raw(",\"name\":");
    out.string(&span.name);
    out.raw(if matches!(span.kind, SpanKind::Client) { ",\"kind\":3" } else { ",\"kind\":1" });
    out.raw(",\"startTimeUnixNano\":");
    push_u64(out, span.start);
    out.raw(",\"endTimeUnixNano\":");
    push_u64(out, span.end);
    out.raw(",");
    write_attributes(&span.attributes, out);
    write_list(out, ",\"events\":[", &span.events, write_event);
    write_list(out, ",\"links\":[", &span.links, |link, out| write_link(link, trace_id, out));
    out.raw(",\"status\":");
    write_status(&span.status, out);
    out.raw("}");
}

/// The trace as an OTLP/JSON `ExportTraceServiceRequest`.
#[inline]
pub fn to_json(trace: &Trace) -> String {
    let mut out = JsonOut::default();
    out.raw("{\"resourceSpans\":[{\"resource\":{");
    write_attributes(&trace.resource, &mut out);
    out.raw("},\"scopeSpans\":[{\"scope\":{\"name\":");
    out.string(trace.scope.0);
    out.raw(",\"version\":");
    out.string(trace.scope.1);
    out.raw("},\"spans\":[");
    for (i, span) in trace.spans.iter().enumerate() {
        if i > 0 {
            out.raw(",");
        }
        write_span(span, &trace.trace_id, &mut out);
    }
    out.raw("]}]}]}");
    // (No memory budget here: the output is never refused.)
    out.finish().unwrap_or_default()
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
        write_attributes(&a, &mut out);
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
