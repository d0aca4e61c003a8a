//! The event bodies read by one table-driven reader instead of a derived
//! deserializer per kind.
//!
//! serde's derive gives each body struct its own map visitor: key matching,
//! a typed slot per field, the drops of a half-built body on error. With 35
//! bodies that code was the largest part of the .wasm. Here each body
//! declares its fields as data (`BodySpec`: name, type, required or not),
//! one visitor walks the object's keys against that table, and each value
//! is read by the deserializer of its field's TYPE (`FieldType`), shared by
//! every kind. The code grows with the number of field types, not with
//! kinds × fields.
//!
//! The reader makes serde_json's calls in the order the derived visitor made
//! them (key, duplicate check, value or skipped value, then the first
//! missing required field in declaration order), through the same
//! `ObjectsOnly` deserializer, so every message and every position stays
//! what it was.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;

use super::content::{ContentPart, Message, ProviderReplay, ToolCall, ToolResult};
use super::kinds::{PromptMeasurement, Responder};
use super::objects::ObjectsOnly;
use super::records::{CancellationReason, MemoryKind, MemoryRecall, MemoryScope, RollbackReason};
use super::{Content, Str};

/// One top-level field of a body.
pub(super) struct FieldSpec {
    pub name: &'static str,
    pub ty: FieldType,
    /// Missing is an error ("missing field `name`"); else the type's default.
    pub required: bool,
}

/// A body's shape: the fields of an object, or any JSON value (a kind
/// whose body nothing reads).
pub(super) enum Shape {
    Object {
        /// serde's "expected …" for a body that is not an object.
        expecting: &'static str,
        fields: &'static [FieldSpec],
        /// A rule across fields, checked once all are read (`None`: none).
        check: Option<Check>,
    },
    Any,
}

/// A rule across a body's fields: the message of its error when broken.
pub(super) type Check = fn(&Slots<'_>) -> Result<(), &'static str>;

/// A body read through the table: its shape, and how it is built from the
/// values read.
pub(super) trait Body<'a>: Sized {
    const SHAPE: Shape;

    /// The body from `slots`, its fields taken in declaration order
    /// (`Slots::next`). Every required field is there (the reader checked).
    fn build(slots: &mut Slots<'a>) -> Self;
}

/// A field's type as the reader knows it: what a value of it is read as,
/// what it is when missing.
pub(super) trait Field<'a>: Sized {
    const TYPE: FieldType;

    /// The value read for the field, or `None` when it was missing.
    fn from_value(value: Option<Value<'a>>) -> Self;
}

/// Declares `FieldType`, `Value` (one variant per field type) and each
/// type's `Field` impl and reader. Each line: the variant, the Rust type,
/// how a value is read from a deserializer, and what the field is when
/// missing (its default; for a required field, a stand-in never built, as
/// the reader refuses a body that lacks it).
macro_rules! field_types {
    ($($variant:ident($ty:ty) = $read:expr, missing $missing:expr;)*) => {
        /// The type of a body field (see `field_types!`).
        #[derive(Clone, Copy)]
        pub(super) enum FieldType { $($variant,)* }

        /// A field's value, as read.
        pub(super) enum Value<'a> { $($variant($ty),)* }

        $(impl<'a> Field<'a> for $ty {
            const TYPE: FieldType = FieldType::$variant;

            fn from_value(value: Option<Value<'a>>) -> Self {
                match value {
                    Some(Value::$variant(v)) => v,
                    _ => $missing,
                }
            }
        })*

        impl<'a> DeserializeSeed<'a> for FieldType {
            type Value = Value<'a>;

            fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Value<'a>, D::Error> {
                match self {
                    $(FieldType::$variant => ($read)(d).map(Value::$variant),)*
                }
            }
        }
    };
}

field_types! {
    U32(u32) = u32::deserialize, missing 0;
    OptU32(Option<u32>) = Option::<u32>::deserialize, missing None;
    U64(u64) = super::text::u64_lenient, missing 0;
    U64Pair((u64, u64)) = super::text::u64_pair_lenient, missing (0, 0);
    F64(f64) = f64::deserialize, missing 0.0;
    Bool(bool) = bool::deserialize, missing false;
    Str(Str<'a>) = Str::deserialize, missing Str::default();
    OptStr(Option<Str<'a>>) = Option::<Str<'a>>::deserialize, missing None;
    Strs(Vec<Str<'a>>) = Vec::<Str<'a>>::deserialize, missing Vec::new();
    Parts(Vec<ContentPart<'a>>) = Vec::<ContentPart<'a>>::deserialize, missing Vec::new();
    OptMessage(Option<Message<'a>>) = Option::<Message<'a>>::deserialize, missing None;
    OptContent(Option<Content<'a>>) = Option::<Content<'a>>::deserialize, missing None;
    OptCalls(Option<Vec<ToolCall<'a>>>) = Option::<Vec<ToolCall<'a>>>::deserialize, missing None;
    OptReplay(Option<ProviderReplay<'a>>) =
        Option::<ProviderReplay<'a>>::deserialize, missing None;
    Calls(Vec<ToolCall<'a>>) = Vec::<ToolCall<'a>>::deserialize, missing Vec::new();
    Results(Vec<ToolResult<'a>>) = Vec::<ToolResult<'a>>::deserialize, missing Vec::new();
    Responder(Responder) = Responder::deserialize, missing Responder::Other(String::new());
    Cancellation(CancellationReason) =
        CancellationReason::deserialize, missing CancellationReason::Other(String::new());
    OptRollback(Option<RollbackReason<'a>>) =
        Option::<RollbackReason<'a>>::deserialize, missing None;
    Scope(MemoryScope<'a>) = MemoryScope::deserialize,
        missing MemoryScope { tenant_id: Str::default(), namespace: Str::default() };
    MemoryKind(MemoryKind) = MemoryKind::deserialize, missing MemoryKind::Other(String::new());
    Recalls(Vec<MemoryRecall<'a>>) = Vec::<MemoryRecall<'a>>::deserialize, missing Vec::new();
    Measurement(PromptMeasurement<'a>) =
        PromptMeasurement::deserialize, missing PromptMeasurement::default();
}

/// The most fields a body has.
pub(super) const MAX_FIELDS: usize = 12;

/// The values read for a body's fields, by place in its `BodySpec`.
pub(super) struct Slots<'a> {
    values: [Option<Value<'a>>; MAX_FIELDS],
    /// The next field `next` gives.
    taken: usize,
}

impl<'a> Slots<'a> {
    fn new() -> Self {
        Slots { values: Default::default(), taken: 0 }
    }

    fn has(&self, place: usize) -> bool {
        self.values.get(place).is_some_and(Option::is_some)
    }

    /// The value read for the field at `place`, if it was there.
    pub fn get(&self, place: usize) -> Option<&Value<'a>> {
        self.values.get(place)?.as_ref()
    }

    /// The next field's value, in declaration order.
    pub fn next<T: Field<'a>>(&mut self) -> T {
        let value = self.values.get_mut(self.taken).and_then(Option::take);
        self.taken = self.taken.saturating_add(1);
        T::from_value(value)
    }
}

/// Reads a body of shape `shape` from `de`, as serde's derive read it.
pub(super) fn read<'a>(
    de: &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
    shape: &'static Shape,
) -> serde_json::Result<Slots<'a>> {
    match shape {
        Shape::Object { expecting, fields, check } => {
            ObjectsOnly(de).deserialize_map(ObjectVisitor { expecting, fields, check: *check })
        }
        Shape::Any => IgnoredAny::deserialize(ObjectsOnly(de)).map(|_| Slots::new()),
    }
}

/// The one map visitor of every body.
struct ObjectVisitor {
    expecting: &'static str,
    fields: &'static [FieldSpec],
    check: Option<Check>,
}

impl<'a> Visitor<'a> for ObjectVisitor {
    type Value = Slots<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.expecting)
    }

    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<Slots<'a>, A::Error> {
        let mut slots = Slots::new();
        while let Some(place) = map.next_key_seed(Key(self.fields))? {
            let Some((field, slot)) =
                place.and_then(|p| Some((self.fields.get(p)?, slots.values.get_mut(p)?)))
            else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if slot.is_some() {
                return Err(A::Error::duplicate_field(field.name));
            }
            *slot = Some(map.next_value_seed(field.ty)?);
        }
        for (place, field) in self.fields.iter().enumerate() {
            if field.required && !slots.has(place) {
                return Err(A::Error::missing_field(field.name));
            }
        }
        if let Some(check) = self.check {
            check(&slots).map_err(A::Error::custom)?;
        }
        Ok(slots)
    }
}

/// A key: the place of the field it names, `None` for a field the body
/// does not read.
struct Key(&'static [FieldSpec]);

impl<'a> DeserializeSeed<'a> for Key {
    type Value = Option<usize>;

    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Option<usize>, D::Error> {
        d.deserialize_identifier(self)
    }
}

impl<'a> Visitor<'a> for Key {
    type Value = Option<usize>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("field identifier")
    }

    fn visit_str<E: Error>(self, key: &str) -> Result<Option<usize>, E> {
        Ok(self.0.iter().position(|field| field.name == key))
    }
}
