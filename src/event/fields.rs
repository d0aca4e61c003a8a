//! The event bodies and the structs in them, read by one table-driven
//! reader instead of a derived deserializer per struct.
//!
//! serde's derive gives each struct its own map visitor: key matching, a
//! typed slot per field, the drops of a half-built struct on error. With 35
//! bodies and a dozen nested structs that code was the largest part of the
//! .wasm. Here each struct declares its fields as data (`Object`: names,
//! field types, required or not; `table!`), one visitor walks an object's
//! keys against that table, and each value is read by the deserializer of
//! its field's type (`FieldType`), shared by every struct. The code grows
//! with the number of field types, not with structs × fields.
//!
//! The reader makes serde_json's calls in the order the derived visitor made
//! them (key, unknown-field or duplicate check, value or skipped value,
//! then the first missing required field in declaration order), through the
//! same `ObjectsOnly` deserializer, so every message and every position
//! stays what it was.

use std::fmt;

use serde::de::{DeserializeSeed, Deserializer, Error, IgnoredAny, MapAccess, Visitor};
use serde::Deserialize;
use serde_json::value::RawValue;

use super::content::{
    ContentPart, DurableBlock, DurableContent, ErrorKind, FileAffinity, ImageDetail, MediaSource,
    Message, ProviderReplay, Role, ToolCall, ToolResult,
};
use super::kinds::{PromptMeasurement, Responder};
use super::objects::ObjectsOnly;
use super::records::{
    Author, CancellationReason, MemoryKind, MemoryRecall, MemoryRecord, MemoryScope, Provenance,
    RollbackReason, Trust,
};
use super::tagged::{BlockType, PartType, RollbackKind, SourceKind};
use super::{Content, RawJson, Str};

/// Declares a struct read through the table: the struct, its `Body` (its
/// fields as data, built in declaration order) and a `Deserialize` that
/// reads it so. A field written `= default` may be missing (its type's
/// default); every other one is required; `field as "name"` reads a field
/// under another name. `closed:` refuses a field the struct does not name,
/// as serde's `deny_unknown_fields` did; `wire:` declares a struct only read
/// into another type (no derives, no `Deserialize`: `tagged`'s wire structs).
macro_rules! table {
    (closed: $($rest:tt)*) => {
        table!(@parse true; $($rest)*);
    };
    (wire: $(#[$m:meta])* $name:ident<'a> { $($fields:tt)* }) => {
        table!(@wire [$(#[$m])*] $name { $($fields)* });
    };
    (wire closed: $(#[$m:meta])* $name:ident<'a> { $($fields:tt)* }) => {
        table!(@wire closed [$(#[$m])*] $name { $($fields)* });
    };
    (@wire [$($m:tt)*] $name:ident { $($fields:tt)* }) => {
        table!(@struct false; [$($m)*] [$name<'a>] $name { $($fields)* });
    };
    (@wire closed [$($m:tt)*] $name:ident { $($fields:tt)* }) => {
        table!(@struct true; [$($m)*] [$name<'a>] $name { $($fields)* });
    };
    (@parse $closed:literal; $(#[$m:meta])* $name:ident<'a> { $($fields:tt)* }) => {
        table!(@struct $closed; [
            $(#[$m])*
            #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        ] [$name<'a>] $name { $($fields)* });
        table!(@deserialize $name);
    };
    (@parse $closed:literal; $(#[$m:meta])* $name:ident { $($fields:tt)* }) => {
        table!(@struct $closed; [
            $(#[$m])*
            #[derive(Debug, Clone, PartialEq, serde::Serialize)]
        ] [$name] $name { $($fields)* });

        impl<'de> serde::Deserialize<'de> for $name {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::event::fields::read_struct::<$name, D>(d)
            }
        }
    };
    (@deserialize $name:ident) => {
        impl<'de: 'a, 'a> serde::Deserialize<'de> for $name<'a> {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                $crate::event::fields::read_struct::<$name<'de>, D>(d)
            }
        }
    };
    (@struct $closed:literal; [$($m:tt)*] [$($decl:tt)*] $name:ident {
        $($(#[$fm:meta])* $field:ident $(as $rename:literal)? : $ty:ty $(= $default:ident)?),*
        $(,)?
    }) => {
        $($m)*
        pub struct $($decl)* {
            $($(#[$fm])* pub $field: $ty,)*
        }

        impl<'a> $crate::event::fields::Body<'a> for $($decl)* {
            const SHAPE: $crate::event::fields::Shape = {
                use $crate::event::fields::{Field, FieldSpec, Object, Shape, MAX_FIELDS};
                let fields: &[FieldSpec] = &[$(FieldSpec {
                    ty: <$ty as Field<'a>>::TYPE,
                    nullable: <$ty as Field<'a>>::NULLABLE,
                    required: table!(@required $($default)?),
                }),*];
                assert!(fields.len() <= MAX_FIELDS);
                Shape::Object(Object {
                    expecting: concat!("struct ", stringify!($name)),
                    names: &[$(table!(@name $field $($rename)?)),*],
                    fields,
                    closed: $closed,
                    finish: None,
                })
            };

            fn build(slots: &mut $crate::event::fields::Slots<'a>) -> Self {
                $name { $($field: slots.next(),)* }
            }
        }
    };
    (@name $field:ident) => {
        stringify!($field)
    };
    (@name $field:ident $rename:literal) => {
        $rename
    };
    (@required) => {
        true
    };
    (@required default) => {
        false
    };
    ($($rest:tt)*) => {
        table!(@parse false; $($rest)*);
    };
}
pub(super) use table;

/// One field of a struct read through the table (its name is in
/// `Object::names`, at the same place).
pub(super) struct FieldSpec {
    pub ty: FieldType,
    /// Read as an option (`Field::NULLABLE`).
    pub nullable: bool,
    /// Missing is an error ("missing field `name`"); else the type's default.
    pub required: bool,
}

/// An object's fields.
pub(super) struct Object {
    /// serde's "expected …" for a value that is not an object.
    pub expecting: &'static str,
    /// The field names, in declaration order.
    pub names: &'static [&'static str],
    pub fields: &'static [FieldSpec],
    /// A field it does not name is an error ("unknown field …").
    pub closed: bool,
    /// Run once all fields are read (`None`: nothing to do).
    pub finish: Option<Finish>,
}

/// A struct's shape: the fields of an object, or any JSON value (a kind
/// whose body nothing reads).
pub(super) enum Shape {
    Object(Object),
    Any,
}

/// What a struct does once its fields are read, inside the object's visit
/// (so serde_json places its error where it places a missing field's):
/// check a rule across fields, or make the value (`Slots::replace`), as the
/// tagged enums do from their wire structs. The message of its error.
pub(super) type Finish = fn(&mut Slots<'_>) -> Result<(), String>;

/// A struct read through the table: its shape, and how it is built from
/// the values read.
pub(super) trait Body<'a>: Sized {
    const SHAPE: Shape;

    /// The struct from `slots`, its fields taken in declaration order
    /// (`Slots::next`). Every required field is there (the reader checked);
    /// from empty slots, the stand-in of a missing required struct.
    fn build(slots: &mut Slots<'a>) -> Self;
}

/// A field's type as the reader knows it: what a value of it is read as,
/// what it is when missing.
pub(super) trait Field<'a>: Sized {
    const TYPE: FieldType;
    /// Read as an option: `null` gives `None`.
    const NULLABLE: bool = false;

    /// The value read for the field, or `None` when it was missing.
    fn from_value(value: Option<Value<'a>>) -> Self;
}

/// Declares `FieldType`, `Value` (one variant per field type) and each
/// type's `Field` impl and reader. Each line: the variant, the Rust type
/// (`Box`ed in `Value` if large), how a value is read from a deserializer,
/// and what the field is when missing (its default; for a required field, a
/// stand-in never built, as the reader refuses a struct that lacks it).
macro_rules! field_types {
    ($($variant:ident($ty:ty $(, $boxed:ident)?) = $read:expr, missing $missing:expr;)*) => {
        /// The type of a field (see `field_types!`).
        #[derive(Clone, Copy)]
        pub(super) enum FieldType { $($variant,)* }

        /// A field's value, as read (`Null`: a nullable field's `null`).
        pub(super) enum Value<'a> { Null, $($variant(field_types!(@store $ty $(, $boxed)?)),)* }

        $(impl<'a> Field<'a> for $ty {
            const TYPE: FieldType = FieldType::$variant;

            fn from_value(value: Option<Value<'a>>) -> Self {
                match value {
                    Some(Value::$variant(v)) => field_types!(@load v $(, $boxed)?),
                    _ => $missing,
                }
            }
        })*

        impl<'a> DeserializeSeed<'a> for FieldType {
            type Value = Value<'a>;

            fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Value<'a>, D::Error> {
                match self {
                    $(FieldType::$variant => ($read)(d)
                        .map(|v| Value::$variant(field_types!(@save v $(, $boxed)?))),)*
                }
            }
        }
    };
    (@store $ty:ty) => { $ty };
    (@store $ty:ty, boxed) => { Box<$ty> };
    (@load $v:ident) => { $v };
    (@load $v:ident, boxed) => { *$v };
    (@save $v:ident) => { $v };
    (@save $v:ident, boxed) => { Box::new($v) };
}

/// A table struct missing where it is required: its stand-in (never built).
fn stand_in<'a, T: Body<'a>>() -> T {
    T::build(&mut Slots::new())
}

field_types! {
    U32(u32) = u32::deserialize, missing 0;
    U64(u64) = super::text::u64_lenient, missing 0;
    U64Pair((u64, u64)) = super::text::u64_pair_lenient, missing (0, 0);
    F64(f64) = f64::deserialize, missing 0.0;
    Bool(bool) = bool::deserialize, missing false;
    Str(Str<'a>) = Str::deserialize, missing Str::default();
    Strs(Vec<Str<'a>>) = Vec::<Str<'a>>::deserialize, missing Vec::new();
    Raw(RawJson<'a>) = RawJson::deserialize, missing RawJson(RawValue::NULL);
    Raws(Vec<RawJson<'a>>) = Vec::<RawJson<'a>>::deserialize, missing Vec::new();
    Role(Role) = Role::deserialize, missing Role::Other(String::new());
    Content(Content<'a>) = Content::deserialize, missing Content::Parts(Vec::new());
    Part(ContentPart<'a>, boxed) = ContentPart::deserialize, missing ContentPart::Text { text: Str::default() };
    Parts(Vec<ContentPart<'a>>) = Vec::<ContentPart<'a>>::deserialize, missing Vec::new();
    Message(Message<'a>, boxed) = Message::deserialize, missing stand_in();
    Calls(Vec<ToolCall<'a>>) = Vec::<ToolCall<'a>>::deserialize, missing Vec::new();
    Results(Vec<ToolResult<'a>>) = Vec::<ToolResult<'a>>::deserialize, missing Vec::new();
    ErrorKind(ErrorKind) = ErrorKind::deserialize, missing ErrorKind::Other(String::new());
    Durable(DurableContent<'a>) = DurableContent::deserialize, missing stand_in();
    Block(DurableBlock<'a>, boxed) = DurableBlock::deserialize,
        missing DurableBlock::Text { text: Str::default() };
    Blocks(Vec<DurableBlock<'a>>) = Vec::<DurableBlock<'a>>::deserialize, missing Vec::new();
    Replay(ProviderReplay<'a>, boxed) = ProviderReplay::deserialize, missing stand_in();
    Responder(Responder) = Responder::deserialize, missing Responder::Other(String::new());
    Cancellation(CancellationReason) =
        CancellationReason::deserialize, missing CancellationReason::Other(String::new());
    Rollback(RollbackReason<'a>, boxed) = RollbackReason::deserialize, missing RollbackReason::Timeout;
    Scope(MemoryScope<'a>, boxed) = MemoryScope::deserialize, missing stand_in();
    MemoryKind(MemoryKind) = MemoryKind::deserialize, missing MemoryKind::Other(String::new());
    Recalls(Vec<MemoryRecall<'a>>) = Vec::<MemoryRecall<'a>>::deserialize, missing Vec::new();
    Record(MemoryRecord<'a>, boxed) = MemoryRecord::deserialize, missing stand_in();
    Provenance(Provenance<'a>, boxed) = Provenance::deserialize, missing stand_in();
    Author(Author) = Author::deserialize, missing Author::Other(String::new());
    Trust(Trust) = Trust::deserialize, missing Trust::Other(String::new());
    Detail(ImageDetail) = ImageDetail::deserialize, missing ImageDetail::Other(String::new());
    Source(MediaSource<'a>, boxed) = MediaSource::deserialize,
        missing MediaSource::Url { url: Str::default() };
    Affinity(FileAffinity<'a>, boxed) = FileAffinity::deserialize, missing stand_in();
    PartType(PartType) = PartType::deserialize, missing PartType::Text;
    BlockType(BlockType) = BlockType::deserialize, missing BlockType::Text;
    SourceKind(SourceKind) = SourceKind::deserialize, missing SourceKind::Url;
    RollbackKind(RollbackKind) = RollbackKind::deserialize, missing RollbackKind::Timeout;
    Measurement(PromptMeasurement<'a>) =
        PromptMeasurement::deserialize, missing PromptMeasurement::default();
}

/// An `Option<T>` field: `T`'s type, read as serde reads an option (`null`
/// is `None`) by one path for every `T` (`Nullable`).
impl<'a, T: Field<'a>> Field<'a> for Option<T> {
    const TYPE: FieldType = T::TYPE;
    const NULLABLE: bool = true;

    fn from_value(value: Option<Value<'a>>) -> Self {
        match value {
            None | Some(Value::Null) => None,
            value => Some(T::from_value(value)),
        }
    }
}

/// The most fields a struct has.
pub(super) const MAX_FIELDS: usize = 16;

/// The values read for a struct's fields, by place in its `Object`.
pub(super) struct Slots<'a> {
    values: [Option<Value<'a>>; MAX_FIELDS],
    /// The next field `next` gives.
    taken: usize,
}

impl<'a> Slots<'a> {
    pub fn new() -> Self {
        Slots { values: Default::default(), taken: 0 }
    }

    fn has(&self, place: usize) -> bool {
        self.values.get(place).is_some_and(Option::is_some)
    }

    /// The value read for the field at `place`, if it was there.
    pub fn get(&self, place: usize) -> Option<&Value<'a>> {
        self.values.get(place)?.as_ref()
    }

    /// Every value replaced by `value`, which `next` gives next: a value
    /// made from the fields (`Finish`).
    pub fn replace(&mut self, value: Value<'a>) {
        *self = Slots::new();
        if let Some(first) = self.values.first_mut() {
            *first = Some(value);
        }
    }

    /// The next field's value, in declaration order.
    pub fn next<T: Field<'a>>(&mut self) -> T {
        let value = self.values.get_mut(self.taken).and_then(Option::take);
        self.taken = self.taken.saturating_add(1);
        T::from_value(value)
    }
}

/// Reads an event body of shape `shape` from `de` into `slots` (empty).
/// The slots are filled in place, never moved: they are large.
pub(super) fn read<'a>(
    de: &mut serde_json::Deserializer<serde_json::de::StrRead<'a>>,
    shape: &'static Shape,
    slots: &mut Slots<'a>,
) -> serde_json::Result<()> {
    read_shape(ObjectsOnly(de), shape, slots)
}

/// `T` read from `d` through its table.
pub(super) fn read_struct<'a, T: Body<'a>, D: Deserializer<'a>>(d: D) -> Result<T, D::Error> {
    let mut slots = Slots::new();
    read_shape(d, &T::SHAPE, &mut slots)?;
    Ok(T::build(&mut slots))
}

fn read_shape<'a, D: Deserializer<'a>>(
    d: D,
    shape: &'static Shape,
    slots: &mut Slots<'a>,
) -> Result<(), D::Error> {
    match shape {
        // The name only matters to formats that write it; serde_json does not.
        Shape::Object(object) => {
            d.deserialize_struct("", object.names, ObjectVisitor(object, slots))
        }
        Shape::Any => IgnoredAny::deserialize(d).map(|_| ()),
    }
}

/// The one map visitor of every table struct, filling the slots it holds.
struct ObjectVisitor<'s, 'a>(&'static Object, &'s mut Slots<'a>);

impl<'a> Visitor<'a> for ObjectVisitor<'_, 'a> {
    type Value = ();

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.0.expecting)
    }

    fn visit_map<A: MapAccess<'a>>(self, mut map: A) -> Result<(), A::Error> {
        let ObjectVisitor(object, slots) = self;
        while let Some(place) = map.next_key_seed(Key(object))? {
            let found = place.and_then(|place| {
                Some((
                    *object.names.get(place)?,
                    object.fields.get(place)?,
                    slots.values.get_mut(place)?,
                ))
            });
            let Some((name, field, slot)) = found else {
                map.next_value::<IgnoredAny>()?;
                continue;
            };
            if slot.is_some() {
                return Err(A::Error::duplicate_field(name));
            }
            *slot = Some(if field.nullable {
                map.next_value_seed(Nullable(field.ty))?
            } else {
                map.next_value_seed(field.ty)?
            });
        }
        for (place, (name, field)) in object.names.iter().zip(object.fields).enumerate() {
            if field.required && !slots.has(place) {
                return Err(A::Error::missing_field(name));
            }
        }
        if let Some(finish) = object.finish {
            finish(slots).map_err(A::Error::custom)?;
        }
        Ok(())
    }
}

/// A nullable field's value: serde's `Option` read (`deserialize_option`),
/// `null` as `Value::Null`.
struct Nullable(FieldType);

impl<'a> DeserializeSeed<'a> for Nullable {
    type Value = Value<'a>;

    fn deserialize<D: Deserializer<'a>>(self, d: D) -> Result<Value<'a>, D::Error> {
        d.deserialize_option(self)
    }
}

impl<'a> Visitor<'a> for Nullable {
    type Value = Value<'a>;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("option")
    }

    fn visit_none<E: Error>(self) -> Result<Value<'a>, E> {
        Ok(Value::Null)
    }

    fn visit_unit<E: Error>(self) -> Result<Value<'a>, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'a>>(self, d: D) -> Result<Value<'a>, D::Error> {
        self.0.deserialize(d)
    }
}

/// A key: the place of the field it names, `None` for a field the struct
/// does not read (an error if it is `closed`).
struct Key(&'static Object);

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
        match self.0.names.iter().position(|name| *name == key) {
            None if self.0.closed => Err(E::unknown_field(key, self.0.names)),
            None if key == "kind" => {
                super::text::count_kind_key();
                Ok(None)
            }
            place => Ok(place),
        }
    }
}

#[cfg(test)]
mod tests {
    //! A table struct and the serde-derived struct it replaces, read from
    //! the same texts: the same values, the same errors at the same places.

    use crate::event::objects;

    /// Read through the table.
    mod table {
        use crate::event::Str;

        table!(Probe<'a> {
            turn: u32,
            name: Str<'a>,
            tags: Vec<Str<'a>> = default,
            note: Option<Str<'a>> = default,
            size: u64 = default,
            flag: bool = default,
        });

        table!(closed: Shut<'a> { id: Str<'a>, tag as "type": Option<u32> = default });
    }

    /// Read by serde's derive, as the schema was.
    #[allow(dead_code, reason = "the fields are compared through Debug")]
    mod derived {
        use crate::event::Str;
        use serde::Deserialize;

        #[derive(Debug, Deserialize)]
        #[serde(bound(deserialize = "'de: 'a"))]
        pub struct Probe<'a> {
            pub turn: u32,
            pub name: Str<'a>,
            #[serde(default)]
            pub tags: Vec<Str<'a>>,
            #[serde(default)]
            pub note: Option<Str<'a>>,
            #[serde(default, deserialize_with = "crate::event::text::u64_lenient")]
            pub size: u64,
            #[serde(default)]
            pub flag: bool,
        }

        #[derive(Debug, Deserialize)]
        #[serde(deny_unknown_fields, bound(deserialize = "'de: 'a"))]
        pub struct Shut<'a> {
            pub id: Str<'a>,
            #[serde(rename = "type")]
            pub tag: Option<u32>,
        }
    }

    const VALUES: [&str; 12] = [
        "null",
        "1",
        "-1",
        "1.5",
        "4294967296",
        "\"x\"",
        "\"7\"",
        "[]",
        "[\"a\",1]",
        "{}",
        "true",
        "\"\\u0041\"",
    ];

    /// Texts around `object`: each member (and pair) dropped, doubled, given each of
    /// `VALUES`; an unknown key added; every truncation; inside an array.
    fn variants(object: &str) -> Vec<String> {
        let inner = &object[1..object.len() - 1];
        let members: Vec<&str> = inner.split(",\"").collect();
        let member =
            |i: usize| if i == 0 { members[0].to_string() } else { format!("\"{}", members[i]) };
        let join = |ms: Vec<String>| format!("{{{}}}", ms.join(","));
        let mut out =
            vec![object.to_string(), "[]".into(), "[1,2]".into(), "\"s\"".into(), "null".into()];
        let all = |f: &dyn Fn(usize) -> Vec<String>| join((0..members.len()).flat_map(f).collect());
        for i in 0..members.len() {
            for j in 0..i {
                out.push(all(&|k| if k == i || k == j { vec![] } else { vec![member(k)] }));
            }
            out.push(all(&|j| if j == i { vec![] } else { vec![member(j)] }));
            out.push(all(&|j| if j == i { vec![member(j), member(j)] } else { vec![member(j)] }));
            out.push(all(&|j| {
                if j == i {
                    vec!["\"zz\":1".into(), member(j)]
                } else {
                    vec![member(j)]
                }
            }));
            for value in VALUES {
                let key = member(i).split(':').next().unwrap_or_default().to_string();
                out.push(all(&|j| {
                    if j == i {
                        vec![format!("{key}:{value}")]
                    } else {
                        vec![member(j)]
                    }
                }));
            }
        }
        out.extend((0..object.len()).map(|n| object[..n].to_string()));
        let more: Vec<String> = out.iter().map(|t| format!("[{t}, {t}]")).collect();
        out.extend(more);
        out
    }

    /// Each text read both ways gives the same: the same Debug of the
    /// values (same struct names, same fields) or the same error.
    fn same(texts: &[String], table: fn(&str) -> String, derived: fn(&str) -> String) {
        for text in texts {
            assert_eq!(table(text), derived(text), "{text}");
        }
    }

    fn read<'a, T: serde::Deserialize<'a> + std::fmt::Debug>(text: &'a str) -> String {
        format!("{:?}", objects::from_str::<T>(text).map_err(|e| e.to_string()))
    }

    #[test]
    fn a_table_struct_reads_as_the_derived_struct_did() {
        let probe = r#"{"turn":3,"name":"n","tags":["a","b"],"note":"x","size":"5","flag":true}"#;
        let texts = variants(probe);
        assert!(texts.len() > 300);
        same(&texts, |t| read::<table::Probe>(t), |t| read::<derived::Probe>(t));
        same(&texts, |t| read::<Vec<table::Probe>>(t), |t| read::<Vec<derived::Probe>>(t));
        let shut = variants(r#"{"id":"i","type":2}"#);
        same(&shut, |t| read::<table::Shut>(t), |t| read::<derived::Shut>(t));
        // The texts hold both outcomes.
        assert!(texts.iter().any(|t| read::<table::Probe>(t).starts_with("Ok")));
        assert!(texts.iter().any(|t| read::<table::Probe>(t).contains("duplicate field")));
        assert!(shut.iter().any(|t| read::<table::Shut>(t).contains("unknown field `zz`")));
    }
}
