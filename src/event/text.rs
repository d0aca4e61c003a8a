//! `Str`: a string field that borrows from the log text whenever the JSON
//! string has no escapes, so parsing a large log allocates little.

use std::borrow::Cow;
use std::cell::Cell;
use std::fmt;
use std::ops::Deref;

use serde::de::{self, Deserialize, Deserializer, Visitor};
use serde::{Serialize, Serializer};

#[derive(Clone, PartialEq, Eq, Hash, Default, PartialOrd, Ord)]
pub struct Str<'a>(pub Cow<'a, str>);

impl<'a> Str<'a> {
    pub fn as_str(&self) -> &str {
        &self.0
    }

    pub fn into_owned(self) -> String {
        self.0.into_owned()
    }
}

impl Deref for Str<'_> {
    type Target = str;
    fn deref(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(&*self.0, f)
    }
}

impl fmt::Display for Str<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl<'a> From<&'a str> for Str<'a> {
    fn from(s: &'a str) -> Self {
        Str(Cow::Borrowed(s))
    }
}

impl From<String> for Str<'_> {
    fn from(s: String) -> Self {
        Str(Cow::Owned(s))
    }
}

impl PartialEq<str> for Str<'_> {
    fn eq(&self, other: &str) -> bool {
        *self.0 == *other
    }
}

impl PartialEq<&str> for Str<'_> {
    fn eq(&self, other: &&str) -> bool {
        *self.0 == **other
    }
}

impl Serialize for Str<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&self.0)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for Str<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct StrVisitor;
        impl<'de> Visitor<'de> for StrVisitor {
            type Value = Str<'de>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a string")
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v.to_owned())))
            }
            fn visit_string<E: de::Error>(self, v: String) -> Result<Self::Value, E> {
                Ok(Str(Cow::Owned(v)))
            }
        }
        d.deserialize_str(StrVisitor)
    }
}

thread_local! {
    /// Whether the event being parsed is read strictly: as deepstrike-core
    /// 0.2.60 reads it. A flag beside the parse, not a parameter: serde's
    /// `Deserialize` takes none, and a seed threaded through every nested
    /// type would repeat the derived code.
    static STRICT: Cell<bool> = const { Cell::new(false) };
    /// The keys `kind` read as no struct's field since `take_kind_keys`:
    /// an event's tag, which must be there once (see `read_fast`).
    static KIND_KEYS: Cell<u32> = const { Cell::new(0) };
}

/// Counts a key `kind` that no struct reads (see `KIND_KEYS`).
pub(crate) fn count_kind_key() {
    KIND_KEYS.set(KIND_KEYS.get().saturating_add(1));
}

/// The keys `kind` counted since the last call, starting again from 0.
pub(crate) fn take_kind_keys() -> u32 {
    KIND_KEYS.replace(0)
}

/// Runs `read` with strict reading on or off, restoring the previous mode
/// after (also if `read` unwinds).
pub(crate) fn reading<R>(strict: bool, read: impl FnOnce() -> R) -> R {
    struct Restore(bool);
    impl Drop for Restore {
        fn drop(&mut self) {
            STRICT.set(self.0);
        }
    }
    let _restore = Restore(STRICT.replace(strict));
    read()
}

/// Whether the event being parsed is read strictly (see `reading`).
pub(crate) fn is_strict() -> bool {
    STRICT.get()
}

/// A u64 as JSON gives it, or, read tolerantly, as this package's JS-safe
/// output does beyond 2^53-1: a decimal string. Events read back from
/// JavaScript (or from a view's records) carry big integers that way; the
/// kernel refuses them, and so does strict reading. Used for every u64 field.
pub struct LenientU64(pub u64);

impl<'de> Deserialize<'de> for LenientU64 {
    /// Read through the raw-value path tool arguments already use (a
    /// visitor of its own would cost the .wasm more than this).
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = RawJson::deserialize(d)?;
        let text = raw.get();
        let quoted = text.strip_prefix('"').and_then(|t| t.strip_suffix('"'));
        if quoted.is_some() && is_strict() {
            return Err(de::Error::invalid_type(
                de::Unexpected::Other(text),
                &"an unsigned integer",
            ));
        }
        let digits = quoted.unwrap_or(text);
        match digits.bytes().next() {
            Some(b'0'..=b'9') => digits.parse().ok().map(LenientU64),
            _ => None,
        }
        .ok_or_else(|| {
            de::Error::invalid_value(
                de::Unexpected::Other(text),
                &"an unsigned integer (or one as a decimal string)",
            )
        })
    }
}

pub fn u64_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<u64, D::Error> {
    LenientU64::deserialize(d).map(|n| n.0)
}

pub fn u64_pair_lenient<'de, D: Deserializer<'de>>(d: D) -> Result<(u64, u64), D::Error> {
    <(LenientU64, LenientU64)>::deserialize(d).map(|(a, b)| (a.0, b.0))
}

/// `Deserialize` for an enum of names (unit variants): read through `Str`'s
/// one string path, then matched. A derived impl per enum costs ~1 KB of
/// .wasm each (its own identifier visitor); this costs the match.
///
/// The `open` form is for an enum with an `Other(String)` variant: a name
/// this version does not know is kept there as written (a newer runtime's
/// value never costs its event). Strict reading refuses it when the kernel
/// types the field as this enum (`strict_refuses: true`) and keeps it when
/// the kernel types it as a plain string. `as_str` gives the name back, and
/// serialization writes it.
macro_rules! names {
    ($ty:ident { $($variant:ident = $name:literal),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const NAMES: &[&str] = &[$($name),*];
                let name = <crate::event::Str<'de> as serde::Deserialize>::deserialize(d)?;
                match name.as_str() {
                    $($name => Ok($ty::$variant),)*
                    other => Err(serde::de::Error::unknown_variant(other, NAMES)),
                }
            }
        }
    };
    (open $ty:ident, strict_refuses: $refuses:literal { $($variant:ident = $name:literal),* $(,)? }) => {
        impl<'de> serde::Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                const NAMES: &[&str] = &[$($name),*];
                let name = <crate::event::Str<'de> as serde::Deserialize>::deserialize(d)?;
                match name.as_str() {
                    $($name => Ok($ty::$variant),)*
                    other if $refuses && crate::event::text::is_strict() => {
                        Err(serde::de::Error::unknown_variant(other, NAMES))
                    }
                    _ => Ok($ty::Other(name.into_owned())),
                }
            }
        }

        impl $ty {
            /// The name as written.
            pub fn as_str(&self) -> &str {
                match self {
                    $($ty::$variant => $name,)*
                    $ty::Other(name) => name,
                }
            }
        }

        impl serde::Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                s.serialize_str(self.as_str())
            }
        }
    };
}
pub(crate) use names;

/// Any JSON value, kept as its exact text borrowed from the log: tool
/// arguments are carried, never inspected, so they are not parsed into a
/// tree. Only usable where serde reads straight from text (not inside an
/// internally tagged enum).
#[derive(Clone, Copy)]
pub struct RawJson<'a>(pub &'a serde_json::value::RawValue);

impl RawJson<'_> {
    pub fn get(&self) -> &str {
        self.0.get()
    }
}

impl fmt::Debug for RawJson<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.get())
    }
}

impl PartialEq for RawJson<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.0.get() == other.0.get()
    }
}

impl Serialize for RawJson<'_> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.0.serialize(s)
    }
}

impl<'de: 'a, 'a> Deserialize<'de> for RawJson<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        <&'de serde_json::value::RawValue>::deserialize(d).map(RawJson)
    }
}
