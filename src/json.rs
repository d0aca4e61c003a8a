//! JSON output for JavaScript: integers beyond 2^53-1 are written as
//! decimal strings so `JSON.parse` never rounds them silently.

use std::borrow::Cow;
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

/// The largest integer a JS number holds exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

struct JsSafe;

/// Writes `digits` as a JSON string. (`itoa`, not `write!`: no formatting
/// machinery, and no I/O error to make, behind the writer.)
fn quoted<W: ?Sized + io::Write>(w: &mut W, digits: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    w.write_all(digits.as_bytes())?;
    w.write_all(b"\"")
}

impl Formatter for JsSafe {
    fn write_u64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: u64) -> io::Result<()> {
        if v > MAX_SAFE_INTEGER {
            quoted(w, itoa::Buffer::new().format(v))
        } else {
            CompactFormatter.write_u64(w, v)
        }
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: i64) -> io::Result<()> {
        if v.unsigned_abs() > MAX_SAFE_INTEGER {
            quoted(w, itoa::Buffer::new().format(v))
        } else {
            CompactFormatter.write_i64(w, v)
        }
    }
}

/// A JSON output that asks `may_grow` before each growth of its buffer,
/// so a caller with a memory budget stops a result that would not fit
/// before the allocation that would abort. One writer type for every
/// output, so each type's serializer is compiled once.
///
/// Its writes never fail: a refused growth is noted in `refused` and that
/// write and every later one are dropped (the caller checks at the end).
/// Writes that cannot fail let the compiler drop serde_json's error path
/// at each of the serializer's writes.
struct Output {
    bytes: Vec<u8>,
    may_grow: fn(usize) -> bool,
    refused: bool,
}

impl Output {
    fn new(may_grow: fn(usize) -> bool) -> Self {
        Output { bytes: Vec::with_capacity(256), may_grow, refused: false }
    }

    /// The text written, if it was written whole. (Out of line: one copy
    /// for every type's serializer.)
    #[inline(never)]
    fn finish(self, written: bool) -> Option<String> {
        if !written || self.refused {
            return None;
        }
        // (`unreachable!`, not `expect`: no error formatting in the .wasm.)
        #[allow(clippy::unreachable, reason = "serde_json writes UTF-8")]
        Some(
            String::from_utf8(self.bytes)
                .unwrap_or_else(|_| unreachable!("serde_json writes UTF-8")),
        )
    }

    /// Appends `bytes`, or notes that the output may not grow to hold them.
    #[inline(never)]
    fn push(&mut self, bytes: &[u8]) {
        if self.refused {
            return;
        }
        if bytes.len() > self.bytes.capacity().saturating_sub(self.bytes.len()) {
            let grow = self.bytes.capacity().max(bytes.len());
            if !(self.may_grow)(grow) || self.bytes.try_reserve(grow).is_err() {
                self.refused = true;
                return;
            }
        }
        self.bytes.extend_from_slice(bytes);
    }
}

impl io::Write for Output {
    #[inline]
    fn write(&mut self, bytes: &[u8]) -> io::Result<usize> {
        self.push(bytes);
        Ok(bytes.len())
    }

    #[inline]
    fn write_all(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.push(bytes);
        Ok(())
    }

    fn flush(&mut self) -> io::Result<()> {
        Ok(())
    }
}

/// Compact JSON with unsafe integers as strings, or `None` when
/// `may_grow(bytes)` refused a growth of the output by that many bytes.
/// (Never inlined: one copy of each type's serializer in the .wasm,
/// whoever calls it.)
#[inline(never)]
pub fn to_js_json_within<T: Serialize + ?Sized>(
    value: &T,
    may_grow: fn(usize) -> bool,
) -> Option<String> {
    let mut out = Output::new(may_grow);
    // Our types serialize only string map keys: only the output can fail.
    let written = value.serialize(&mut Serializer::with_formatter(&mut out, JsSafe)).is_ok();
    out.finish(written)
}

/// Compact JSON with unsafe integers as strings.
pub fn to_js_json<T: Serialize + ?Sized>(value: &T) -> String {
    to_js_json_within(value, |_| true).unwrap_or_else(|| "null".into())
}

/// True when a JSON text holds a run of 16+ digits, the only way it can
/// carry an integer beyond 2^53-1. Cheap enough to run on every event.
#[allow(clippy::arithmetic_side_effects, reason = "`run` stops at 16")]
pub fn may_hold_unsafe_integer(text: &str) -> bool {
    let mut run = 0u32;
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

/// JSON text with every integer beyond ±(2^53-1) written as a decimal
/// string, and nothing else changed (key order, spacing, other numbers):
/// an event keeps the shape it was written in. Borrowed when there is
/// nothing to rewrite, which `may_hold_unsafe_integer` tells cheaply.
#[allow(
    clippy::arithmetic_side_effects,
    clippy::indexing_slicing,
    reason = "`i` steps through `text`, held in memory, at most two bytes past its end; \
              `start`, `i` after a number and `copied` are offsets of ASCII bytes or the \
              end, at most the length: character boundaries"
)]
pub fn js_safe_text(text: &str) -> Cow<'_, str> {
    if !may_hold_unsafe_integer(text) {
        return Cow::Borrowed(text);
    }
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len() + 16);
    let (mut i, mut copied) = (0usize, 0usize);
    while let Some(&c) = b.get(i) {
        if c == b'"' {
            // Skip a string, escapes included.
            i += 1;
            while let Some(&s) = b.get(i) {
                i += if s == b'\\' { 2 } else { 1 };
                if s == b'"' {
                    break;
                }
            }
        } else if c == b'-' || c.is_ascii_digit() {
            let start = i;
            i += 1;
            while b.get(i).is_some_and(|d| {
                d.is_ascii_digit() || matches!(d, b'.' | b'e' | b'E' | b'+' | b'-')
            }) {
                i += 1;
            }
            let token = &text[start..i];
            let integer = !token.contains(['.', 'e', 'E']);
            let unsafe_size = token
                .trim_start_matches('-')
                .parse::<u128>()
                .map_or(integer, |n| n > u128::from(MAX_SAFE_INTEGER));
            if integer && unsafe_size {
                out.push_str(&text[copied..start]);
                out.push('"');
                out.push_str(token);
                out.push('"');
                copied = i;
            }
        } else {
            i += 1;
        }
    }
    out.push_str(&text[copied..]);
    Cow::Owned(out)
}

/// A JSON value kept as text, ready to be written into a larger document
/// without re-serialising. Integers beyond 2^53-1 in it are strings.
#[derive(Clone, Debug)]
pub struct JsonText(Box<serde_json::value::RawValue>);

impl JsonText {
    /// Serialises a value once, JS-safe. (Only the JS-safe serializer is
    /// used here so each type's serialisation is compiled once in the .wasm.)
    pub fn of<T: Serialize + ?Sized>(value: &T) -> Self {
        Self::parse(&to_js_json(value))
    }

    /// Copies already-valid raw JSON as it is (no re-parse), unless it
    /// holds an unsafe integer, which is then rewritten as a string.
    pub fn from_raw(raw: &serde_json::value::RawValue) -> Self {
        match js_safe_text(raw.get()) {
            Cow::Borrowed(_) => JsonText(raw.to_owned()),
            Cow::Owned(safe) => Self::parse(&safe),
        }
    }

    /// A value cut from JSON text already checked valid, JS-safe.
    pub fn from_raw_str(text: &str) -> Self {
        Self::parse(&js_safe_text(text))
    }

    pub fn null() -> Self {
        Self::parse("null")
    }

    /// Callers pass JSON they serialized or checked; were one not to, the
    /// value would be `null` rather than a trap.
    fn parse(text: &str) -> Self {
        JsonText(
            serde_json::value::RawValue::from_string(text.to_string())
                .unwrap_or_else(|_| Box::<serde_json::value::RawValue>::default()),
        )
    }

    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl PartialEq for JsonText {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for JsonText {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}
