//! OTLP/protobuf: the `Trace` as the binary `ExportTraceServiceRequest`
//! that OTLP/HTTP sends as `application/x-protobuf` (the encoding every
//! OTLP backend takes; many take no other). Written by hand for the few
//! messages of the trace protocol (field numbers from
//! opentelemetry/proto/{collector/trace,trace,common,resource}/v1, vendored
//! in tests/otlp-proto/, which the tests decode this output with) rather
//! than through a protobuf crate and generated code. Each nested message is
//! written apart and then copied in behind its length, which protobuf needs
//! before the bytes it measures.

use super::model::{Attributes, Link, Span, SpanEvent, Trace, Value};

/// Protobuf wire types.
const VARINT: u8 = 0;
const FIXED64: u8 = 1;
const LEN: u8 = 2;

/// A message being written.
#[derive(Default)]
struct Message(Vec<u8>);

impl Message {
    fn varint(&mut self, value: u64) {
        let mut rest = value;
        while rest >= 0x80 {
            self.0.push(u8::try_from(rest & 0x7f).unwrap_or(0) | 0x80);
            rest >>= 7;
        }
        self.0.push(u8::try_from(rest).unwrap_or(0));
    }

    fn tag(&mut self, field: u8, wire: u8) {
        self.varint(u64::from(field) << 3 | u64::from(wire));
    }

    fn bytes(&mut self, field: u8, bytes: &[u8]) {
        self.tag(field, LEN);
        self.varint(u64::try_from(bytes.len()).unwrap_or(u64::MAX));
        self.0.extend_from_slice(bytes);
    }

    fn string(&mut self, field: u8, text: &str) {
        self.bytes(field, text.as_bytes());
    }

    fn fixed64(&mut self, field: u8, value: u64) {
        self.tag(field, FIXED64);
        self.0.extend_from_slice(&value.to_le_bytes());
    }

    fn int(&mut self, field: u8, value: u64) {
        self.tag(field, VARINT);
        self.varint(value);
    }

    /// A nested message, written by `write`.
    fn message(&mut self, field: u8, write: impl FnOnce(&mut Message)) {
        let mut inner = Message::default();
        write(&mut inner);
        self.bytes(field, &inner.0);
    }
}

/// An id's bytes from its hex (lowercase, as `ids` makes them).
fn id_bytes(hex: &str) -> Vec<u8> {
    let digits: Vec<u8> = hex.chars().map(|c| c.to_digit(16).map_or(0, |d| d as u8)).collect();
    digits.chunks(2).map(|pair| pair.iter().fold(0, |byte, d| byte << 4 | d)).collect()
}

/// `AnyValue`: every field of its `oneof` is written, even a default one.
fn write_value(value: &Value, m: &mut Message) {
    match value {
        Value::Str(s) => m.string(1, s),
        Value::Bool(b) => m.int(2, u64::from(*b)),
        Value::Int(n) => m.int(3, u64::from_ne_bytes(n.to_ne_bytes())),
        // (serde_json's number parser, already in the .wasm, not core's.)
        Value::Double(text) => {
            let number = serde_json::from_str::<f64>(text).unwrap_or(0.0);
            m.fixed64(4, number.to_bits());
        }
        Value::Strings(values) => m.message(5, |array| {
            for v in values {
                array.message(1, |any| any.string(1, v));
            }
        }),
    }
}

/// `repeated KeyValue` as field `field`.
fn write_attributes(field: u8, attributes: &Attributes, m: &mut Message) {
    for (key, value) in &attributes.0 {
        m.message(field, |kv| {
            kv.string(1, key);
            kv.message(2, |any| write_value(value, any));
        });
    }
}

fn write_event(event: &SpanEvent, m: &mut Message) {
    m.fixed64(1, event.time);
    m.string(2, &event.name);
    write_attributes(3, &event.attributes, m);
}

fn write_link(link: &Link, trace_id: &[u8], m: &mut Message) {
    m.bytes(1, trace_id);
    m.bytes(2, &id_bytes(&link.span_id));
    write_attributes(4, &link.attributes, m);
}

fn write_span(span: &Span, trace_id: &[u8], m: &mut Message) {
    m.bytes(1, trace_id);
    m.bytes(2, &id_bytes(&span.span_id));
    if !span.parent_span_id.is_empty() {
        m.bytes(4, &id_bytes(&span.parent_span_id));
    }
    m.string(5, &span.name);
    m.int(6, span.kind as u64);
    m.fixed64(7, span.start);
    m.fixed64(8, span.end);
    write_attributes(9, &span.attributes, m);
    for event in &span.events {
        m.message(11, |e| write_event(event, e));
    }
    for link in &span.links {
        m.message(13, |l| write_link(link, trace_id, l));
    }
    // (Written when unset too, as the JSON encoding writes `{"code":0}`.)
    m.message(15, |status| {
        if let Some(message) = &span.status.error {
            status.string(2, message);
            status.int(3, 2);
        }
    });
}

/// The trace as an OTLP/protobuf `ExportTraceServiceRequest`.
pub fn to_protobuf(trace: &Trace) -> Vec<u8> {
    let trace_id = id_bytes(&trace.trace_id);
    let mut request = Message::default();
    request.message(1, |resource_spans| {
        resource_spans.message(1, |resource| write_attributes(1, &trace.resource, resource));
        resource_spans.message(2, |scope_spans| {
            scope_spans.message(1, |scope| {
                scope.string(1, trace.scope.0);
                scope.string(2, trace.scope.1);
            });
            for span in &trace.spans {
                scope_spans.message(2, |s| write_span(span, &trace_id, s));
            }
        });
    });
    request.0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn varints_and_ids_are_encoded_as_protobuf_writes_them() {
        let mut m = Message::default();
        m.varint(300);
        m.varint(u64::MAX);
        assert_eq!(m.0, [0xac, 0x02, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x01]);
        assert_eq!(id_bytes("00ff10ab"), [0x00, 0xff, 0x10, 0xab]);
    }

    #[test]
    fn a_negative_integer_attribute_is_ten_bytes_of_twos_complement() {
        let mut m = Message::default();
        write_value(&Value::Int(-1), &mut m);
        assert_eq!(m.0.first(), Some(&0x18));
        assert_eq!(m.0.len(), 11);
    }
}
