//! JSON output for JavaScript: integers beyond 2^53-1 are written as
//! decimal strings so `JSON.parse` never rounds them silently.

use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

/// The largest integer a JS number holds exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

struct JsSafe;

impl Formatter for JsSafe {
    fn write_u64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: u64) -> io::Result<()> {
        if v > MAX_SAFE_INTEGER {
            write!(w, "\"{v}\"")
        } else {
            CompactFormatter.write_u64(w, v)
        }
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: i64) -> io::Result<()> {
        if v.unsigned_abs() > MAX_SAFE_INTEGER {
            write!(w, "\"{v}\"")
        } else {
            CompactFormatter.write_i64(w, v)
        }
    }
}

/// Compact JSON with unsafe integers as strings.
pub fn to_js_json<T: Serialize + ?Sized>(value: &T) -> String {
    let mut out = Vec::with_capacity(256);
    let mut ser = Serializer::with_formatter(&mut out, JsSafe);
    // Our types serialize only string map keys: this cannot fail.
    if value.serialize(&mut ser).is_err() {
        return "null".into();
    }
    String::from_utf8(out).unwrap_or_default()
}

/// True when a JSON text holds a run of 16+ digits, the only way it can
/// carry an integer beyond 2^53-1. Cheap enough to run on every event.
pub fn may_hold_unsafe_integer(text: &str) -> bool {
    let mut run = 0;
    for b in text.bytes() {
        if b.is_ascii_digit() {
            run += 1;
            if run >= 16 {
                return true;
            }
        } else {
            run = 0;
        }
    }
    false
}
