// A span's, an event's or a link's attributes as OTLP/JSON `KeyValue`s,
// in the order they are put, each value an `AnyValue` of its type. 64-bit
// integers are decimal strings, as OTLP/JSON writes them.
import { string } from "./raw.js";

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);
const INTEGER = /^[+-]?[0-9]+$/;

export class Attributes {
  list = [];

  str(key, value) {
    this.list.push({ key, value: { stringValue: value } });
  }

  /** Nothing for a value the view leaves out (null). */
  optStr(key, value) {
    if (value !== undefined && value !== null) this.str(key, value);
  }

  /** An unsigned count or position (a number, BigInt or decimal string):
   * OTLP integers are signed 64-bit, so one past `i64::MAX` is written as
   * `i64::MAX`. */
  int(key, value) {
    const n = BigInt(value);
    this.list.push({ key, value: { intValue: String(n > I64_MAX ? I64_MAX : n) } });
  }

  bool(key, value) {
    this.list.push({ key, value: { boolValue: value } });
  }

  strings(key, values) {
    const list = values.map((v) => ({ stringValue: v }));
    this.list.push({ key, value: { arrayValue: { values: list } } });
  }

  /** A JSON value, as its text: strings and booleans as themselves,
   * integers that fit 64 bits as integers, other numbers as doubles,
   * objects and arrays as their JSON text as written; `null` as nothing. */
  json(key, raw) {
    const first = raw[0];
    if (first === undefined || first === "n") return;
    if (first === '"') this.str(key, string(raw) ?? "");
    else if (first === "t" || first === "f") this.bool(key, raw === "true");
    else if (first === "{" || first === "[") this.str(key, raw);
    else if (INTEGER.test(raw) && BigInt(raw) <= I64_MAX && BigInt(raw) >= I64_MIN)
      this.list.push({ key, value: { intValue: String(BigInt(raw)) } });
    else this.list.push({ key, value: { doubleValue: Number(raw) } });
  }
}
