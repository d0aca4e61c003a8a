//! Reading the view back from the JSON it writes. The JSON text (already
//! checked valid) is walked as objects whose values stay slices of the text
//! until a type reads them; each type of the view reads itself
//! (`FromView`), and `readable!` gives the view's own types that impl from
//! their definitions, so the schema is written once. (Derived `Deserialize`
//! impls cost the .wasm several times this: see benches/RESULTS.md.) A
//! nested event is kept exactly as written.

use std::cell::Cell;
use std::collections::BTreeMap;

use crate::event::ErrorKind;
use crate::json::JsonText;
use crate::shared_list::SharedList;
use crate::shared_map::SharedMap;
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

#[allow(
    clippy::arithmetic_side_effects,
    reason = "indexes stay within two bytes past the end of a text held in memory"
)]
fn skip_ws(b: &[u8], mut i: usize) -> usize {
    while b.get(i).is_some_and(|c| c.is_ascii_whitespace()) {
        i += 1;
    }
    i
}

/// The index just past the string whose opening quote is at `i`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "indexes stay within two bytes past the end of a text held in memory"
)]
fn string_end(b: &[u8], i: usize) -> usize {
    let mut j = i + 1;
    loop {
        match b.get(j) {
            None => return j,
            Some(b'\\') => j += 2,
            Some(b'"') => return j + 1,
            Some(_) => j += 1,
        }
    }
}

/// The index just past the value starting at `i`.
#[allow(
    clippy::arithmetic_side_effects,
    reason = "indexes stay within two bytes past the end of a text held in memory; depth \
              counts its brackets and is lowered only above 1"
)]
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
            Some(b'{' | b'[') => depth += 1,
            Some(b'}' | b']') => {
                if depth <= 1 {
                    return if depth == 0 { i } else { i + 1 };
                }
                depth -= 1;
            }
            Some(c) if depth == 0 && (*c == b',' || c.is_ascii_whitespace()) => return i,
            Some(_) => {}
        }
        i += 1;
    }
}

/// A member of an object (`key` raw, quotes included) or of an array.
pub struct Item<'a> {
    pub key: &'a str,
    pub value: &'a str,
}

/// The members of the object or array `text` (`open` is `{` or `[`).
#[allow(
    clippy::arithmetic_side_effects,
    reason = "indexes stay within two bytes past the end of a text held in memory"
)]
pub(crate) fn items(text: &str, open: u8) -> Option<Vec<Item<'_>>> {
    let b = text.as_bytes();
    let mut i = skip_ws(b, 0);
    if b.get(i) != Some(&open) {
        return None;
    }
    let mut out = Vec::new();
    loop {
        i = skip_ws(b, i + 1);
        if matches!(b.get(i), Some(b'}' | b']') | None) {
            return Some(out);
        }
        let mut key = "";
        if open == b'{' {
            let end = string_end(b, i);
            key = text.get(i..end)?;
            i = skip_ws(b, skip_ws(b, end) + 1);
        }
        let end = value_end(b, i);
        out.push(Item { key, value: text.get(i..end)? });
        i = skip_ws(b, end);
    }
}

/// A JSON string's value.
pub(crate) fn string(raw: &str) -> Option<String> {
    let inner = raw.strip_prefix('"')?.strip_suffix('"')?;
    if inner.contains('\\') {
        crate::event::objects::from_str(raw).ok()
    } else {
        Some(inner.to_string())
    }
}

/// A u64 as the JS-safe JSON writes it: a number, or a decimal string.
pub(crate) fn unsigned(raw: &str) -> Option<u64> {
    raw.parse().ok().or_else(|| string(raw)?.parse().ok())
}

/// A value of the view, read back from the JSON the view writes.
pub trait FromView: Sized {
    /// The value `raw` holds. When it holds none, the problem is noted at
    /// `at` and a stand-in given, so reading goes on in straight lines (the
    /// read as a whole fails; an early return at each of the ~150 reads,
    /// with the drops of what was half built, cost more .wasm than this).
    fn read(raw: &str, at: &At<'_>) -> Self;
}

/// Where a value is read: the field of an object, to name in a problem.
#[derive(Clone, Copy)]
pub struct At<'a> {
    pub problem: &'a Problem,
    pub what: &'static str,
    pub key: &'static str,
}

impl At<'_> {
    /// Notes a problem (the first one is kept).
    pub fn fail(&self, expected: &'static str) {
        if self.problem.get().is_none() {
            self.problem.set(Some(Bad { what: self.what, key: self.key, expected }));
        }
    }
}

/// A value read, or the default with the problem noted.
#[inline(never)]
fn or_fail<T: Default>(value: Option<T>, at: &At<'_>, expected: &'static str) -> T {
    value.unwrap_or_else(|| {
        at.fail(expected);
        T::default()
    })
}

macro_rules! from_view_by {
    ($ty:ty, $expected:literal, $read:expr) => {
        impl FromView for $ty {
            #[inline(never)]
            fn read(raw: &str, at: &At<'_>) -> Self {
                or_fail($read(raw), at, $expected)
            }
        }
    };
}

from_view_by!(String, "a string", string);
from_view_by!(u64, "an unsigned integer", unsigned);
from_view_by!(u32, "an unsigned 32-bit integer", |r| u32::try_from(unsigned(r)?).ok());
from_view_by!(usize, "an unsigned integer", |r| usize::try_from(unsigned(r)?).ok());
from_view_by!(Position, "a position", |r| unsigned(r).map(Position));
from_view_by!(bool, "true or false", |r| match r {
    "true" => Some(true),
    "false" => Some(false),
    _ => None,
});
/// Read through the event schema's own definition.
impl FromView for ErrorKind {
    fn read(raw: &str, at: &At<'_>) -> Self {
        crate::event::objects::from_str(raw).unwrap_or_else(|_| {
            at.fail("an error kind");
            ErrorKind::Recoverable
        })
    }
}

impl FromView for JsonText {
    fn read(raw: &str, _: &At<'_>) -> Self {
        JsonText::from_raw_str(raw)
    }
}

impl<T: FromView> FromView for Option<T> {
    #[inline(never)]
    fn read(raw: &str, at: &At<'_>) -> Self {
        (raw != "null").then(|| T::read(raw, at))
    }
}

impl<T: FromView> FromView for Vec<T> {
    #[inline(never)]
    fn read(raw: &str, at: &At<'_>) -> Self {
        let mut out = Vec::new();
        let item = At { key: "[]", ..*at };
        each(raw, b'[', at, &mut |i| out.push(T::read(i.value, &item)));
        out
    }
}

impl<T: FromView + Clone> FromView for SharedList<T> {
    fn read(raw: &str, at: &At<'_>) -> Self {
        Vec::<T>::read(raw, at).into_iter().collect()
    }
}

/// An object of values by name (`{"name": value}`).
impl<T: FromView> FromView for BTreeMap<String, T> {
    fn read(raw: &str, at: &At<'_>) -> Self {
        let mut out = BTreeMap::new();
        each(raw, b'{', at, &mut |i| {
            let key = String::read(i.key, at);
            out.insert(key, T::read(i.value, at));
        });
        out
    }
}

impl<T: FromView + Clone + PartialEq> FromView for SharedMap<T> {
    fn read(raw: &str, at: &At<'_>) -> Self {
        SharedMap::from(BTreeMap::read(raw, at))
    }
}

/// Hands each member of the object or array `text` to `f`, or notes that
/// `text` is not one. (One walk compiled for every item type.)
#[inline(never)]
fn each(text: &str, open: u8, at: &At<'_>, f: &mut dyn FnMut(Item<'_>)) {
    match items(text, open) {
        Some(list) => list.into_iter().for_each(f),
        None => at.fail(if open == b'[' { "an array" } else { "an object" }),
    }
}

/// One JSON object, its fields read by the types they hold.
pub struct Obj<'a> {
    fields: Vec<Item<'a>>,
    what: &'static str,
    problem: &'a Problem,
}

impl<'a> Obj<'a> {
    /// The object `text`, named `what` in problems; not an object: an
    /// empty one, and the problem noted.
    #[inline(never)]
    pub fn parse(text: &'a str, what: &'static str, at: &At<'a>) -> Self {
        let fields = items(text, b'{').unwrap_or_else(|| {
            at.fail("an object");
            Vec::new()
        });
        Obj { fields, what, problem: at.problem }
    }

    /// A field's raw text; a missing field reads as `null`.
    pub(crate) fn raw(&self, key: &str) -> &'a str {
        let quoted = |k: &str| k.strip_prefix('"').and_then(|k| k.strip_suffix('"')) == Some(key);
        self.fields.iter().rev().find(|f| quoted(f.key)).map_or("null", |f| f.value)
    }

    /// Where the field `key` is read.
    pub fn at(&self, key: &'static str) -> At<'a> {
        At { problem: self.problem, what: self.what, key }
    }

    /// A field's raw text and where it is read. (Out of line, and apart
    /// from the typed read: finding a field is one function for every
    /// field, whatever its type.)
    #[inline(never)]
    fn locate(&self, key: &'static str) -> (&'a str, At<'a>) {
        (self.raw(key), self.at(key))
    }

    /// A field, read by its type (a problem noted when it is wrong).
    pub fn field<T: FromView>(&self, key: &'static str) -> T {
        let (raw, at) = self.locate(key);
        T::read(raw, &at)
    }
}

/// Reads `json` whole as a `T`; the first problem found, if any.
pub fn read_whole<T: FromView>(json: &str, what: &'static str) -> Result<T, Bad> {
    if !crate::event::syntax::is_valid_json(json) {
        return Err(Bad { what, key: "", expected: "valid JSON" });
    }
    let problem = Problem::new(None);
    let out = T::read(json, &At { problem: &problem, what, key: "" });
    match problem.get() {
        Some(bad) => Err(bad),
        None => Ok(out),
    }
}

/// Declares a type of the view, its `FromView` and its `WriteJson` from one
/// definition, so the JSON is written and read back by the same schema: a
/// struct (field by field; a field marked `= omit_none` is left out when
/// `None`), an enum tagged by a field (`as "state"`: the tag names each
/// variant), or an enum of names (`as names`).
macro_rules! readable {
    (
        $(#[$meta:meta])*
        $vis:vis struct $name:ident {
            $($(#[$fmeta:meta])* $fvis:vis $field:ident: $ty:ty $(= $omit:ident)?,)*
        }
    ) => {
        $crate::json::writable! {
            $(#[$meta])*
            $vis struct $name {
                $($(#[$fmeta])* $fvis $field: $ty $(= $omit)?,)*
            }
        }

        impl $crate::view::raw::FromView for $name {
            fn read(raw: &str, at: &$crate::view::raw::At<'_>) -> Self {
                let _o = $crate::view::raw::Obj::parse(raw, stringify!($name), at);
                $name { $($field: _o.field(stringify!($field)),)* }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as $tag:literal {
            $(#[$fvmeta:meta])* $first:ident = $first_name:literal
                $({ $($(#[$ffmeta:meta])* $ffield:ident: $fty:ty,)* })?,
            $($(#[$vmeta:meta])* $variant:ident = $vname:literal
                $({ $($(#[$vfmeta:meta])* $vfield:ident: $vty:ty,)* })?,)*
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(#[$fvmeta])* $first $({ $($(#[$ffmeta])* $ffield: $fty,)* })?,
            $($(#[$vmeta])* $variant $({ $($(#[$vfmeta])* $vfield: $vty,)* })?,)*
        }

        /// An object with the tag first, then the variant's fields.
        impl $crate::json::WriteJson for $name {
            fn write_json(&self, out: &mut $crate::json::JsonOut) {
                match self {
                    $name::$first $({ $($ffield,)* })? => {
                        out.raw(concat!("{\"", $tag, "\":\"", $first_name, "\""));
                        $($(
                            out.field(stringify!($ffield), $ffield);
                        )*)?
                    }
                    $($name::$variant $({ $($vfield,)* })? => {
                        out.raw(concat!("{\"", $tag, "\":\"", $vname, "\""));
                        $($(
                            out.field(stringify!($vfield), $vfield);
                        )*)?
                    })*
                }
                out.raw("}");
            }
        }

        impl $crate::view::raw::FromView for $name {
            /// An unknown tag reads as the first variant, the problem noted.
            fn read(raw: &str, at: &$crate::view::raw::At<'_>) -> Self {
                let _o = $crate::view::raw::Obj::parse(raw, stringify!($name), at);
                match _o.field::<String>($tag).as_str() {
                    $($vname => $name::$variant {
                        $($($vfield: _o.field(stringify!($vfield)),)*)?
                    },)*
                    tag => {
                        if tag != $first_name {
                            _o.at($tag).fail(concat!("a ", stringify!($name), " ", $tag));
                        }
                        $name::$first { $($($ffield: _o.field(stringify!($ffield)),)*)? }
                    }
                }
            }
        }
    };
    (
        $(#[$meta:meta])*
        $vis:vis enum $name:ident as names {
            $(#[$fvmeta:meta])* $first:ident = $first_name:literal,
            $($(#[$vmeta:meta])* $variant:ident = $vname:literal,)*
        }
    ) => {
        $(#[$meta])*
        $vis enum $name {
            $(#[$fvmeta])* $first,
            $($(#[$vmeta])* $variant,)*
        }

        /// Its name, as a JSON string.
        impl $crate::json::WriteJson for $name {
            fn write_json(&self, out: &mut $crate::json::JsonOut) {
                out.raw(match self {
                    $name::$first => concat!("\"", $first_name, "\""),
                    $($name::$variant => concat!("\"", $vname, "\""),)*
                });
            }
        }

        impl $crate::view::raw::FromView for $name {
            /// An unknown name reads as the first, the problem noted.
            fn read(raw: &str, at: &$crate::view::raw::At<'_>) -> Self {
                match String::read(raw, at).as_str() {
                    $($vname => $name::$variant,)*
                    name => {
                        if name != $first_name {
                            at.fail(concat!("a ", stringify!($name)));
                        }
                        $name::$first
                    }
                }
            }
        }
    };
}
pub(crate) use readable;
