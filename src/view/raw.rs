//! Walking JSON text already checked to be valid, as objects whose values
//! stay slices of the text until a typed getter reads them. Small in
//! code, and a nested event is kept exactly as written.

use std::cell::Cell;
use std::collections::BTreeMap;

use crate::json::JsonText;
use crate::units::Position;

/// The first thing found wrong, kept aside so reading goes on in straight
/// lines: getters give a default and note the problem, and the caller looks
/// once at the end. (An early return at each of the ~150 reads, with the
/// drops of what was half built, cost more .wasm than the reading itself.)
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Bad {
    pub what: &'static str,
    pub key: &'static str,
    pub expected: &'static str,
}

impl std::fmt::Display for Bad {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}.{}: expected {}", self.what, self.key, self.expected)
    }
}

/// Where the first problem of a whole read is noted.
pub type Problem = Cell<Option<Bad>>;

fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i = i.saturating_add(1);
    }
    i
}

/// The index just past the string whose opening quote is at `i`.
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i.saturating_add(1);
    loop {
        match b.get(j) {
            None => return j,
            Some(b'\\') => j = j.saturating_add(2),
            Some(b'"') => return j.saturating_add(1),
            Some(_) => j = j.saturating_add(1),
        }
    }
}

/// The index just past the value starting at `i`.
fn value_end(b: &[u8], mut i: usize) -> usize {
    let mut depth = 0usize;
    loop {
        match b.get(i) {
            None => return i,
            Some(b'"') => {
                i = string_end(b, i);
                if depth == 0 {
                    return i;
                }
                continue;
            }
            Some(b'{' | b'[') => depth = depth.saturating_add(1),
            Some(b'}' | b']') => {
                if depth <= 1 {
                    return if depth == 0 { i } else { i.saturating_add(1) };
                }
                depth = depth.saturating_sub(1);
            }
            Some(c) if depth == 0 && (*c == b',' || c.is_ascii_whitespace()) => return i,
            Some(_) => {}
        }
        i = i.saturating_add(1);
    }
}

/// A member of an object (`key` raw, quotes included) or of an array.
pub struct Item<'a> {
    pub key: &'a str,
    pub value: &'a str,
}

/// The members of the object or array `text` (`open` is `{` or `[`).
fn items(text: &str, open: u8) -> Option<Vec<Item<'_>>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&open) {
        return None;
    }
    let mut out = Vec::new();
    loop {
        i = skip_ws(b, i.saturating_add(1));
        if matches!(b.get(i), Some(b'}' | b']') | None) {
            return Some(out);
        }
        let mut key = "";
        if open == b'{' {
            let end = string_end(b, i);
            key = text.get(i..end)?;
            i = skip_ws(b, skip_ws(b, end).saturating_add(1));
        }
        let end = value_end(b, i);
        out.push(Item { key, value: text.get(i..end)? });
        i = skip_ws(b, end);
    }
}

/// A JSON string's value.
fn string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        serde_json::from_str(raw).ok()
    } else {
        Some(inner.to_string())
    }
}

/// A u64 as the JS-safe JSON writes it: a number, or a decimal string.
fn unsigned(raw: &str) -> Option<u64> {
    raw.parse().ok().or_else(|| string(raw)?.parse().ok())
}

/// One JSON object; `what` names it in problems.
pub struct Obj<'a> {
    fields: Vec<Item<'a>>,
    what: &'static str,
    problem: &'a Problem,
}

impl<'a> Obj<'a> {
    /// The object `text` (valid JSON, see `is_valid_json`); not an object:
    /// an empty one, and the problem noted.
    #[inline(never)]
    pub fn parse(text: &'a str, what: &'static str, problem: &'a Problem) -> Self {
        let fields = items(text, b'{').unwrap_or_else(|| {
            note(problem, Bad { what, key: "", expected: "an object" });
            Vec::new()
        });
        Obj { fields, what, problem }
    }

    /// Notes a problem (the first one is kept).
    pub fn fail(&self, key: &'static str, expected: &'static str) {
        note(self.problem, Bad { what: self.what, key, expected });
    }

    /// A field's raw text; a missing field reads as `null`.
    fn raw(&self, key: &str) -> &'a str {
        let quoted = |k: &str| k.strip_prefix('"').and_then(|k| k.strip_suffix('"')) == Some(key);
        self.fields.iter().rev().find(|f| quoted(f.key)).map_or("null", |f| f.value)
    }

    #[inline(never)]
    fn read<T: Default>(
        &self,
        key: &'static str,
        expected: &'static str,
        read: fn(&'a str) -> Option<T>,
    ) -> T {
        read(self.raw(key)).unwrap_or_else(|| {
            self.fail(key, expected);
            T::default()
        })
    }

    pub fn str(&self, key: &'static str) -> String {
        self.read(key, "a string", string)
    }

    pub fn opt_str(&self, key: &'static str) -> Option<String> {
        self.read(key, "a string or null", |r| {
            if r == "null" {
                Some(None)
            } else {
                string(r).map(Some)
            }
        })
    }

    pub fn u64(&self, key: &'static str) -> u64 {
        self.read(key, "an unsigned integer", unsigned)
    }

    pub fn position(&self, key: &'static str) -> Position {
        Position(self.u64(key))
    }

    pub fn u32(&self, key: &'static str) -> u32 {
        self.read(key, "an unsigned 32-bit integer", |r| u32::try_from(unsigned(r)?).ok())
    }

    pub fn usize(&self, key: &'static str) -> usize {
        self.read(key, "an unsigned integer", |r| usize::try_from(unsigned(r)?).ok())
    }

    pub fn opt_u32(&self, key: &'static str) -> Option<u32> {
        self.read(key, "an unsigned 32-bit integer or null", |r| {
            if r == "null" {
                Some(None)
            } else {
                u32::try_from(unsigned(r)?).ok().map(Some)
            }
        })
    }

    pub fn opt_u64(&self, key: &'static str) -> Option<u64> {
        self.read(key, "an unsigned integer or null", |r| {
            if r == "null" {
                Some(None)
            } else {
                unsigned(r).map(Some)
            }
        })
    }

    pub fn opt_usize(&self, key: &'static str) -> Option<usize> {
        self.read(key, "an unsigned integer or null", |r| {
            if r == "null" {
                Some(None)
            } else {
                usize::try_from(unsigned(r)?).ok().map(Some)
            }
        })
    }

    pub fn bool(&self, key: &'static str) -> bool {
        self.read(key, "true or false", |r| match r {
            "true" => Some(true),
            "false" => Some(false),
            _ => None,
        })
    }

    pub fn strs(&self, key: &'static str) -> Vec<String> {
        self.read(key, "an array of strings", |r| {
            items(r, b'[')?.iter().map(|i| string(i.value)).collect()
        })
    }

    /// An object of counts (`{"name": n}`).
    pub fn counts(&self, key: &'static str) -> BTreeMap<String, u64> {
        self.read(key, "an object of unsigned integers", |r| {
            let mut out = BTreeMap::new();
            for i in items(r, b'{')? {
                out.insert(string(i.key)?, unsigned(i.value)?);
            }
            Some(out)
        })
    }

    /// A field's JSON as written (`null` when missing).
    pub fn json(&self, key: &str) -> JsonText {
        JsonText::from_raw_str(self.raw(key))
    }

    pub fn obj(&self, key: &str, what: &'static str) -> Obj<'a> {
        Obj::parse(self.raw(key), what, self.problem)
    }

    pub fn opt_obj(&self, key: &str, what: &'static str) -> Option<Obj<'a>> {
        match self.raw(key) {
            "null" => None,
            raw => Some(Obj::parse(raw, what, self.problem)),
        }
    }

    pub fn list<T>(
        &self,
        key: &'static str,
        what: &'static str,
        each: impl Fn(Obj<'a>) -> T,
    ) -> Vec<T> {
        let mut out = Vec::new();
        self.each(key, what, &mut |o| out.push(each(o)));
        out
    }

    /// The walk behind `list`, compiled once for every item type.
    #[inline(never)]
    fn each(&self, key: &'static str, what: &'static str, f: &mut dyn FnMut(Obj<'a>)) {
        match items(self.raw(key), b'[') {
            Some(list) => list.into_iter().for_each(|i| f(Obj::parse(i.value, what, self.problem))),
            None => self.fail(key, "an array"),
        }
    }
}

fn note(problem: &Problem, bad: Bad) {
    if problem.get().is_none() {
        problem.set(Some(bad));
    }
}
