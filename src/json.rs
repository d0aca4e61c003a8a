//! JSON output for JavaScript: integers beyond 2^53-1 are written as
//! decimal strings so `JSON.parse` never rounds them silently.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::io;

use serde::Serialize;
use serde_json::ser::{CompactFormatter, Formatter, Serializer};

/// The largest integer a JS number holds exactly.
pub const MAX_SAFE_INTEGER: u64 = (1 << 53) - 1;

/// serde_json's compact format, with integers beyond 2^53-1 written as
/// strings when `.0` is true.
struct JsSafe(bool);

/// Writes `digits` as a JSON string. (`itoa`, not `write!`: no formatting
/// machinery, and no I/O error to make, behind the writer.)
fn quoted<W: ?Sized + io::Write>(w: &mut W, digits: &str) -> io::Result<()> {
    w.write_all(b"\"")?;
    w.write_all(digits.as_bytes())?;
    w.write_all(b"\"")
}

impl Formatter for JsSafe {
    fn write_u64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: u64) -> io::Result<()> {
        if self.0 && v > MAX_SAFE_INTEGER {
            quoted(w, itoa::Buffer::new().format(v))
        } else {
            CompactFormatter.write_u64(w, v)
        }
    }

    fn write_i64<W: ?Sized + io::Write>(&mut self, w: &mut W, v: i64) -> io::Result<()> {
        if self.0 && v.unsigned_abs() > MAX_SAFE_INTEGER {
            quoted(w, itoa::Buffer::new().format(v))
        } else {
            CompactFormatter.write_i64(w, v)
        }
    }
}

/// A JSON output that asks `may_grow` before each growth of its buffer,
/// so a caller with a memory budget stops a result that would not fit
/// before the allocation that would abort. One writer type for every
/// output, so each type's writer is compiled once.
///
/// Its writes never fail: a refused growth is noted in `refused` and that
/// write and every later one are dropped (the caller checks at the end).
/// Writes that cannot fail let the compiler drop serde_json's error path
/// at each of the serializer's writes.
pub struct JsonOut {
    bytes: Vec<u8>,
    may_grow: fn(usize) -> bool,
    refused: bool,
    /// Integers beyond 2^53-1 as strings (for JS), else as numbers.
    js_safe: bool,
}

impl JsonOut {
    fn new(may_grow: fn(usize) -> bool, js_safe: bool) -> Self {
        JsonOut { bytes: Vec::with_capacity(256), may_grow, refused: false, js_safe }
    }

    /// The text written, if it was written whole. (Out of line: one copy
    /// for every type's writer.)
    #[inline(never)]
    pub fn finish(self) -> Option<String> {
        if self.refused {
            return None;
        }
        // (`unreachable!`, not `expect`: no error formatting in the .wasm.)
        #[allow(clippy::unreachable, reason = "only UTF-8 is written")]
        Some(
            String::from_utf8(self.bytes).unwrap_or_else(|_| unreachable!("only UTF-8 is written")),
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

    /// Appends JSON text as it is.
    pub fn raw(&mut self, text: &str) {
        self.push(text.as_bytes());
    }

    /// Appends `text` as a JSON string, escaped as serde_json escapes it.
    #[inline(never)]
    pub fn string(&mut self, text: &str) {
        // (serde_json's own string writer, through its serializer: the
        // escaping is serde_json's exactly.)
        let _ = serde::Serializer::serialize_str(
            &mut Serializer::with_formatter(self, JsSafe(true)),
            text,
        );
    }

    /// Appends an object's key, `name` needing no escape (a field's name),
    /// with a comma before it unless it is the object's first. (The bare
    /// name: the same text `view::raw` reads the field by, stored once.)
    #[inline(never)]
    pub fn key(&mut self, name: &str) {
        self.push(if self.bytes.last() == Some(&b'{') { b"\"" } else { b",\"" });
        self.push(name.as_bytes());
        self.push(b"\":");
    }

    /// Appends an object's member: its key (as [`JsonOut::key`]), then its
    /// value. (One call per field, the value's type by its vtable.)
    #[inline(never)]
    pub fn field(&mut self, name: &str, value: &dyn WriteJson) {
        self.key(name);
        value.write_json(self);
    }

    /// Appends an unsigned integer (for JS, as a string beyond 2^53-1).
    #[inline(never)]
    pub fn unsigned(&mut self, v: u64) {
        let _ = JsSafe(self.js_safe).write_u64(self, v);
    }

    /// Appends a signed integer (for JS, as a string beyond ±(2^53-1)).
    #[inline(never)]
    pub fn signed(&mut self, v: i64) {
        let _ = JsSafe(self.js_safe).write_i64(self, v);
    }

    /// Appends the items of a list as a JSON array. (A loop per item
    /// type: a `dyn Iterator` would bring a whole vtable of iterator
    /// methods per type instead.)
    pub fn list<'a, T: WriteJson + ?Sized + 'a>(&mut self, items: impl IntoIterator<Item = &'a T>) {
        self.push(b"[");
        for (i, item) in items.into_iter().enumerate() {
            if i > 0 {
                self.push(b",");
            }
            item.write_json(self);
        }
        self.push(b"]");
    }

    /// Appends named values as a JSON object.
    pub fn map<'a, T: WriteJson + 'a>(
        &mut self,
        entries: impl IntoIterator<Item = (&'a String, &'a T)>,
    ) {
        self.push(b"{");
        for (i, (name, value)) in entries.into_iter().enumerate() {
            if i > 0 {
                self.push(b",");
            }
            self.string(name);
            self.push(b":");
            value.write_json(self);
        }
        self.push(b"}");
    }
}

/// An output with no memory budget, JS-safe, for JSON built in parts
/// (the OTLP export's).
impl Default for JsonOut {
    fn default() -> Self {
        JsonOut::new(|_| true, true)
    }
}

impl io::Write for JsonOut {
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

/// A value written as JSON for JavaScript: compact, integers beyond
/// 2^53-1 as strings. The view's types get theirs from their definitions
/// (`view::raw::readable!`); written by one non-generic writer, each type
/// is compiled once, not once per field that holds it as a serde
/// `Serialize` is (benches/RESULTS.md).
pub trait WriteJson {
    fn write_json(&self, out: &mut JsonOut);
}

/// Declares a struct (with at most one lifetime) and its `WriteJson` from
/// one list of fields, so each field is named once: written under its own name, in order, and one
/// marked `= omit_none` left out when `None`. (`readable!` adds reading the
/// view back to it.)
macro_rules! writable {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident $(<$lt:lifetime>)? {
            $($(#[$fmeta:meta])* $fvis:vis $field:ident: $ty:ty $(= $omit:ident)?,)*
        }
    ) => {
        $(#[$meta])*
        $vis struct $name $(<$lt>)? {
            $($(#[$fmeta])* $fvis $field: $ty,)*
        }

        impl $(<$lt>)? $crate::json::WriteJson for $name $(<$lt>)? {
            fn write_json(&self, out: &mut $crate::json::JsonOut) {
                out.raw("{");
                $(
                    $(if $crate::json::$omit(&self.$field) {} else)? {
                        out.field(stringify!($field), &self.$field);
                    }
                )*
                out.raw("}");
            }
        }
    };
}
pub(crate) use writable;

/// Writes an object of the fields given, in order:
/// `write_object!(out, "name": value, …)`.
#[macro_export]
macro_rules! write_object {
    ($out:expr, $($key:literal: $value:expr),* $(,)?) => {{
        let out: &mut $crate::json::JsonOut = $out;
        out.raw("{");
        $(
            out.field($key, &$value);
        )*
        out.raw("}");
    }};
}

/// Whether an optional field is left out (`readable!`'s `= omit_none`).
pub fn omit_none<T>(value: &Option<T>) -> bool {
    value.is_none()
}

/// An event as the schema writes it: through its serde `Serialize`,
/// JS-safe. (Native only: the .wasm passes events on as their texts.)
impl WriteJson for crate::event::SessionEvent<'_> {
    fn write_json(&self, out: &mut JsonOut) {
        // String map keys only: only the output could fail, and it never
        // does (it notes a refused growth instead).
        let js_safe = out.js_safe;
        let _ = self.serialize(&mut Serializer::with_formatter(out, JsSafe(js_safe)));
    }
}

/// The kind table's enums of names, written as their serde `Serialize`
/// writes them (`rename_all = "snake_case"`), by hand: no serde_json writer
/// for them in the .wasm. The matches are exhaustive and the test
/// `the_kind_table_is_written_as_serde_writes_it` compares every row.
macro_rules! write_json_names {
    ($($ty:ident { $($variant:ident = $name:literal),* $(,)? })*) => {
        $(impl WriteJson for crate::event::$ty {
            fn write_json(&self, out: &mut JsonOut) {
                out.string(match self {
                    $(crate::event::$ty::$variant => $name,)*
                });
            }
        })*
    };
}
write_json_names! {
    Category {
        Run = "run", Llm = "llm", Model = "model", Tools = "tools",
        Permissions = "permissions", Processes = "processes", Workflow = "workflow",
        Budgets = "budgets", Signals = "signals", Context = "context", Memory = "memory",
        Governance = "governance", Entropy = "entropy", Kernel = "kernel",
    }
    KernelCategory { Syscall = "syscall", Sched = "sched", Mm = "mm", Proc = "proc", Ipc = "ipc" }
    Primitive { Syscall = "syscall", Mm = "mm", Sched = "sched" }
    Alarming { Never = "never", Always = "always", OnError = "on_error" }
}

impl WriteJson for str {
    fn write_json(&self, out: &mut JsonOut) {
        out.string(self);
    }
}

impl WriteJson for String {
    fn write_json(&self, out: &mut JsonOut) {
        out.string(self);
    }
}

impl WriteJson for bool {
    fn write_json(&self, out: &mut JsonOut) {
        out.raw(if *self { "true" } else { "false" });
    }
}

macro_rules! write_json_as {
    ($method:ident as $wide:ty: $($ty:ty),*) => {
        $(impl WriteJson for $ty {
            fn write_json(&self, out: &mut JsonOut) {
                out.$method(<$wide>::from(*self));
            }
        })*
    };
}
write_json_as!(unsigned as u64: u64, u32, u16, u8);
write_json_as!(signed as i64: i64, i32);

impl WriteJson for usize {
    fn write_json(&self, out: &mut JsonOut) {
        out.unsigned(*self as u64);
    }
}

impl WriteJson for JsonText {
    fn write_json(&self, out: &mut JsonOut) {
        out.raw(self.get());
    }
}

impl<T: WriteJson + ?Sized> WriteJson for &T {
    fn write_json(&self, out: &mut JsonOut) {
        (**self).write_json(out);
    }
}

impl<T: WriteJson + ?Sized> WriteJson for Box<T> {
    fn write_json(&self, out: &mut JsonOut) {
        (**self).write_json(out);
    }
}

/// A tuple as serde writes it: an array.
macro_rules! write_json_tuple {
    ($($name:ident)*) => {
        impl<$($name: WriteJson),*> WriteJson for ($($name,)*) {
            #[allow(non_snake_case, reason = "the items, named by their types")]
            fn write_json(&self, out: &mut JsonOut) {
                let ($($name,)*) = self;
                out.list::<dyn WriteJson>([$($name as &dyn WriteJson),*]);
            }
        }
    };
}
write_json_tuple!(A B);
write_json_tuple!(A B C);
write_json_tuple!(A B C D);

impl<T: WriteJson> WriteJson for Option<T> {
    fn write_json(&self, out: &mut JsonOut) {
        match self {
            Some(v) => v.write_json(out),
            None => out.raw("null"),
        }
    }
}

impl<T: WriteJson> WriteJson for [T] {
    fn write_json(&self, out: &mut JsonOut) {
        out.list(self);
    }
}

impl<T: WriteJson, const N: usize> WriteJson for [T; N] {
    fn write_json(&self, out: &mut JsonOut) {
        self.as_slice().write_json(out);
    }
}

impl<T: WriteJson> WriteJson for Vec<T> {
    fn write_json(&self, out: &mut JsonOut) {
        self.as_slice().write_json(out);
    }
}

impl<T: WriteJson> WriteJson for BTreeMap<String, T> {
    fn write_json(&self, out: &mut JsonOut) {
        out.map(self);
    }
}

/// Compact JSON with unsafe integers as strings, or `None` when
/// `may_grow(bytes)` refused a growth of the output by that many bytes.
/// (Over `&dyn WriteJson`: compiled once for every type.)
#[inline(never)]
pub fn to_js_json_within(value: &dyn WriteJson, may_grow: fn(usize) -> bool) -> Option<String> {
    write_within(value, may_grow, true)
}

/// Writes `value` whole, or `None` when `may_grow` refused a growth.
fn write_within(
    value: &dyn WriteJson,
    may_grow: fn(usize) -> bool,
    js_safe: bool,
) -> Option<String> {
    let mut out = JsonOut::new(may_grow, js_safe);
    value.write_json(&mut out);
    out.finish()
}

/// Compact JSON with unsafe integers as strings.
#[inline(never)]
pub fn to_js_json(value: &dyn WriteJson) -> String {
    write_within(value, |_| true, true).unwrap_or_else(|| "null".into())
}

/// Compact JSON with every integer as a number, as serde_json writes it
/// (the kernel's own format, for `OsSnapshot::to_json`).
pub fn to_json_exact(value: &dyn WriteJson) -> String {
    write_within(value, |_| true, false).unwrap_or_default()
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
    pub fn of(value: &dyn WriteJson) -> Self {
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
