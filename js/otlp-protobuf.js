// OTLP/protobuf from OTLP/JSON: the trace js/otlp/ builds (as OTLP/JSON)
// re-encoded as the binary `ExportTraceServiceRequest` that OTLP/HTTP sends
// as `application/x-protobuf`. Outside the .wasm, whose size every page and
// edge worker pays for (issue 28), as the export is: the JSON is the one
// encoding the export builds, and this walks it field for field. Written by hand for the few messages of the trace protocol (field
// numbers from opentelemetry/proto/{collector/trace,trace,common,resource}/v1,
// vendored in tests/otlp-proto/, which the tests decode this output with).
// Each nested message is written apart and then copied in behind its length,
// which protobuf needs before the bytes it measures.

/** Protobuf wire types. */
const VARINT = 0;
const FIXED64 = 1;
const LEN = 2;

const utf8 = new TextEncoder();

/** A message being written, into a buffer that doubles as it fills. */
class Message {
  buf = new Uint8Array(64);
  len = 0;

  reserve(n) {
    if (this.len + n <= this.buf.length) return;
    const grown = new Uint8Array(Math.max(this.buf.length * 2, this.len + n));
    grown.set(this.buf.subarray(0, this.len));
    this.buf = grown;
  }

  byte(b) {
    this.reserve(1);
    this.buf[this.len++] = b;
  }

  /** `n`: a whole number below 2^53 (a length, a tag, a small value). */
  varint(n) {
    let rest = n;
    while (rest >= 0x80) {
      this.byte((rest % 0x80) | 0x80);
      rest = Math.floor(rest / 0x80);
    }
    this.byte(rest);
  }

  /** A 64-bit integer's varint: its two's complement, as protobuf's int64. */
  varint64(big) {
    let rest = BigInt.asUintN(64, big);
    while (rest >= 0x80n) {
      this.byte(Number(rest & 0x7fn) | 0x80);
      rest >>= 7n;
    }
    this.byte(Number(rest));
  }

  tag(field, wire) {
    this.varint(field * 8 + wire);
  }

  bytes(field, bytes) {
    this.tag(field, LEN);
    this.varint(bytes.length);
    this.reserve(bytes.length);
    this.buf.set(bytes, this.len);
    this.len += bytes.length;
  }

  string(field, text) {
    this.bytes(field, utf8.encode(text));
  }

  int(field, n) {
    this.tag(field, VARINT);
    this.varint(n);
  }

  /** `write` fills an 8-byte little-endian view. */
  fixed64(field, write) {
    this.tag(field, FIXED64);
    this.reserve(8);
    write(new DataView(this.buf.buffer, this.len, 8));
    this.len += 8;
  }

  /** A 64-bit unsigned integer as OTLP/JSON writes it: a decimal string. */
  fixed64Of(field, decimal) {
    this.fixed64(field, (view) => view.setBigUint64(0, BigInt(decimal), true));
  }

  /** A nested message, written by `write`. */
  message(field, write) {
    const inner = new Message();
    write(inner);
    this.bytes(field, inner.buf.subarray(0, inner.len));
  }
}

/** An id's bytes from its hex (lowercase, as the core makes them). */
function idBytes(hex) {
  const bytes = new Uint8Array(hex.length >> 1);
  for (let i = 0; i < bytes.length; i++)
    bytes[i] = Number.parseInt(hex.slice(2 * i, 2 * i + 2), 16);
  return bytes;
}

/** `AnyValue`: every field of its `oneof` is written, even a default one. */
function writeValue(value, m) {
  if ("stringValue" in value) m.string(1, value.stringValue);
  else if ("boolValue" in value) m.int(2, value.boolValue ? 1 : 0);
  else if ("intValue" in value) {
    m.tag(3, VARINT);
    m.varint64(BigInt(value.intValue));
  } else if ("doubleValue" in value)
    m.fixed64(4, (view) => view.setFloat64(0, value.doubleValue, true));
  else
    m.message(5, (array) => {
      for (const v of value.arrayValue.values) array.message(1, (any) => writeValue(v, any));
    });
}

/** `repeated KeyValue` as field `field`. */
function writeAttributes(field, attributes, m) {
  for (const { key, value } of attributes) {
    m.message(field, (kv) => {
      kv.string(1, key);
      kv.message(2, (any) => writeValue(value, any));
    });
  }
}

function writeSpan(span, m) {
  m.bytes(1, idBytes(span.traceId));
  m.bytes(2, idBytes(span.spanId));
  if (span.parentSpanId) m.bytes(4, idBytes(span.parentSpanId));
  m.string(5, span.name);
  m.int(6, span.kind);
  m.fixed64Of(7, span.startTimeUnixNano);
  m.fixed64Of(8, span.endTimeUnixNano);
  writeAttributes(9, span.attributes, m);
  for (const event of span.events ?? []) {
    m.message(11, (e) => {
      e.fixed64Of(1, event.timeUnixNano);
      e.string(2, event.name);
      writeAttributes(3, event.attributes, e);
    });
  }
  for (const link of span.links ?? []) {
    m.message(13, (l) => {
      l.bytes(1, idBytes(link.traceId));
      l.bytes(2, idBytes(link.spanId));
      writeAttributes(4, link.attributes, l);
    });
  }
  // (Written when unset too, as the JSON holds `{"code":0}`.)
  m.message(15, (status) => {
    if (span.status.message === undefined) return;
    status.string(2, span.status.message);
    status.int(3, span.status.code);
  });
}

/**
 * The OTLP/JSON trace js/otlp/ builds (one resource, one scope) as an
 * OTLP/protobuf `ExportTraceServiceRequest`.
 * @param {any} trace
 * @returns {Uint8Array}
 */
export function otlpProtobuf(trace) {
  const [resourceSpans] = trace.resourceSpans;
  const [scopeSpans] = resourceSpans.scopeSpans;
  const request = new Message();
  request.message(1, (rs) => {
    rs.message(1, (resource) => writeAttributes(1, resourceSpans.resource.attributes, resource));
    rs.message(2, (ss) => {
      ss.message(1, (scope) => {
        scope.string(1, scopeSpans.scope.name);
        scope.string(2, scopeSpans.scope.version);
      });
      for (const span of scopeSpans.spans) ss.message(2, (s) => writeSpan(span, s));
    });
  });
  return request.buf.slice(0, request.len);
}
