//! A deserializer that reads a struct from a JSON object only.
//!
//! serde_json's `deserialize_struct` also reads a struct from an array,
//! field by field in order, so every derived struct's `visit_seq` is
//! compiled into the .wasm for a shape the kernel never writes. Events are
//! read through `ObjectsOnly`, which asks for a map instead, at every depth
//! (it wraps what it hands on: visitors, maps, sequences, enums, seeds):
//! serde_json reads an object exactly as before (same errors, same
//! positions) and refuses an array as it refuses any other non-object
//! ("invalid type: sequence, expected struct …").

use serde::de::{
    DeserializeSeed, Deserializer, EnumAccess, Error, Expected, MapAccess, SeqAccess, Unexpected,
    VariantAccess, Visitor,
};
use serde::Deserialize;
use std::fmt;

/// `D` with `deserialize_struct` read as `deserialize_map`; every other
/// request goes to `D` as it is, its visitor wrapped.
pub(crate) struct ObjectsOnly<D>(pub D);

/// `serde_json::from_str` through `ObjectsOnly` (so that what it reads
/// shares its deserializers with the events').
pub(crate) fn from_str<'de, T: Deserialize<'de>>(text: &'de str) -> serde_json::Result<T> {
    let mut de = serde_json::Deserializer::from_str(text);
    let value = T::deserialize(ObjectsOnly(&mut de))?;
    de.end()?;
    Ok(value)
}

/// What `ObjectsOnly` hands on (a visitor, a map, a sequence, an enum, a
/// variant, a seed), so that what it deserializes is read by `ObjectsOnly`
/// too.
struct Wrap<T>(T);

/// Forwards each named request to the wrapped deserializer, visitor wrapped.
macro_rules! forward {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(Wrap(visitor))
        }
    )*};
}

impl<'de, D: Deserializer<'de>> Deserializer<'de> for ObjectsOnly<D> {
    type Error = D::Error;

    forward!(
        deserialize_any,
        deserialize_bool,
        deserialize_i8,
        deserialize_i16,
        deserialize_i32,
        deserialize_i64,
        deserialize_i128,
        deserialize_u8,
        deserialize_u16,
        deserialize_u32,
        deserialize_u64,
        deserialize_u128,
        deserialize_f32,
        deserialize_f64,
        deserialize_char,
        deserialize_str,
        deserialize_string,
        deserialize_bytes,
        deserialize_byte_buf,
        deserialize_option,
        deserialize_unit,
        deserialize_seq,
        deserialize_map,
        deserialize_identifier,
        deserialize_ignored_any,
    );

    fn deserialize_struct<V: Visitor<'de>>(
        self,
        _name: &'static str,
        _fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_map(Wrap(visitor))
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, Wrap(visitor))
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, Wrap(visitor))
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, Wrap(visitor))
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, Wrap(visitor))
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, Wrap(visitor))
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
    }
}

/// Forwards each named visit of a plain value to the wrapped visitor.
macro_rules! visit {
    ($($method:ident($ty:ty)),* $(,)?) => {$(
        fn $method<E: serde::de::Error>(self, v: $ty) -> Result<V::Value, E> {
            self.0.$method(v)
        }
    )*};
}

impl<'de, V: Visitor<'de>> Visitor<'de> for Wrap<V> {
    type Value = V::Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.expecting(f)
    }

    visit!(
        visit_bool(bool),
        visit_i8(i8),
        visit_i16(i16),
        visit_i32(i32),
        visit_i64(i64),
        visit_i128(i128),
        visit_u8(u8),
        visit_u16(u16),
        visit_u32(u32),
        visit_u64(u64),
        visit_u128(u128),
        visit_f32(f32),
        visit_f64(f64),
        visit_char(char),
        visit_str(&str),
        visit_borrowed_str(&'de str),
        visit_string(String),
        visit_bytes(&[u8]),
        visit_borrowed_bytes(&'de [u8]),
        visit_byte_buf(Vec<u8>),
    );

    fn visit_none<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_none()
    }

    fn visit_unit<E: serde::de::Error>(self) -> Result<V::Value, E> {
        self.0.visit_unit()
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_some(ObjectsOnly(d))
    }

    fn visit_newtype_struct<D: Deserializer<'de>>(self, d: D) -> Result<V::Value, D::Error> {
        self.0.visit_newtype_struct(ObjectsOnly(d))
    }

    fn visit_seq<A: SeqAccess<'de>>(self, seq: A) -> Result<V::Value, A::Error> {
        self.0.visit_seq(Wrap(seq))
    }

    fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<V::Value, A::Error> {
        self.0.visit_map(Wrap(map)).map_err(|e| e.0)
    }

    fn visit_enum<A: EnumAccess<'de>>(self, data: A) -> Result<V::Value, A::Error> {
        self.0.visit_enum(Wrap(data))
    }
}

impl<'de, S: DeserializeSeed<'de>> DeserializeSeed<'de> for Wrap<S> {
    type Value = S::Value;

    fn deserialize<D: Deserializer<'de>>(self, d: D) -> Result<S::Value, D::Error> {
        self.0.deserialize(ObjectsOnly(d))
    }
}

impl<'de, A: SeqAccess<'de>> SeqAccess<'de> for Wrap<A> {
    type Error = A::Error;

    fn next_element_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<Option<T::Value>, A::Error> {
        self.0.next_element_seed(Wrap(seed))
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

impl<'de, A: MapAccess<'de>> MapAccess<'de> for Wrap<A> {
    type Error = Outlined<A::Error>;

    fn next_key_seed<K: DeserializeSeed<'de>>(
        &mut self,
        seed: K,
    ) -> Result<Option<K::Value>, Self::Error> {
        self.0.next_key_seed(Wrap(seed)).map_err(Outlined)
    }

    fn next_value_seed<T: DeserializeSeed<'de>>(
        &mut self,
        seed: T,
    ) -> Result<T::Value, Self::Error> {
        self.0.next_value_seed(Wrap(seed)).map_err(Outlined)
    }

    fn size_hint(&self) -> Option<usize> {
        self.0.size_hint()
    }
}

/// The error of a wrapped map: `E` itself, with the errors a derived
/// struct raises per field (missing, duplicate, unknown) built out of line.
/// serde's defaults are inlined at every field of every struct otherwise.
pub(super) struct Outlined<E>(E);

impl<E: Error> Error for Outlined<E> {
    fn custom<T: fmt::Display>(msg: T) -> Self {
        Outlined(E::custom(msg))
    }

    fn invalid_type(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Outlined(E::invalid_type(unexpected, expected))
    }

    fn invalid_value(unexpected: Unexpected<'_>, expected: &dyn Expected) -> Self {
        Outlined(E::invalid_value(unexpected, expected))
    }

    fn invalid_length(len: usize, expected: &dyn Expected) -> Self {
        Outlined(E::invalid_length(len, expected))
    }

    fn unknown_variant(variant: &str, expected: &'static [&'static str]) -> Self {
        Outlined(E::unknown_variant(variant, expected))
    }

    #[inline(never)]
    fn unknown_field(field: &str, expected: &'static [&'static str]) -> Self {
        Outlined(E::unknown_field(field, expected))
    }

    #[inline(never)]
    fn missing_field(field: &'static str) -> Self {
        Outlined(E::missing_field(field))
    }

    #[inline(never)]
    fn duplicate_field(field: &'static str) -> Self {
        Outlined(E::duplicate_field(field))
    }
}

impl<E: fmt::Display> fmt::Display for Outlined<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: fmt::Debug> fmt::Debug for Outlined<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

impl<E: std::error::Error> std::error::Error for Outlined<E> {}

impl<'de, A: EnumAccess<'de>> EnumAccess<'de> for Wrap<A> {
    type Error = A::Error;
    type Variant = Wrap<A::Variant>;

    fn variant_seed<T: DeserializeSeed<'de>>(
        self,
        seed: T,
    ) -> Result<(T::Value, Wrap<A::Variant>), A::Error> {
        let (value, variant) = self.0.variant_seed(Wrap(seed))?;
        Ok((value, Wrap(variant)))
    }
}

impl<'de, A: VariantAccess<'de>> VariantAccess<'de> for Wrap<A> {
    type Error = A::Error;

    fn unit_variant(self) -> Result<(), A::Error> {
        self.0.unit_variant()
    }

    fn newtype_variant_seed<T: DeserializeSeed<'de>>(self, seed: T) -> Result<T::Value, A::Error> {
        self.0.newtype_variant_seed(Wrap(seed))
    }

    fn tuple_variant<V: Visitor<'de>>(self, len: usize, visitor: V) -> Result<V::Value, A::Error> {
        self.0.tuple_variant(len, Wrap(visitor))
    }

    fn struct_variant<V: Visitor<'de>>(
        self,
        fields: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, A::Error> {
        self.0.struct_variant(fields, Wrap(visitor))
    }
}

#[cfg(test)]
mod tests {
    use super::ObjectsOnly;
    use serde::Deserialize;

    #[derive(Debug, Deserialize, PartialEq)]
    struct Pair {
        a: u32,
        b: u32,
    }

    #[derive(Debug, Deserialize, PartialEq)]
    struct Outer {
        pairs: Vec<Option<Pair>>,
    }

    fn read<'de, T: Deserialize<'de>>(text: &'de str) -> Result<T, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        T::deserialize(ObjectsOnly(&mut de)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_a_struct_from_an_object_only() {
        assert_eq!(read::<Pair>(r#"{"b":2,"a":1}"#), Ok(Pair { a: 1, b: 2 }));
        // serde_json alone reads this as `Pair { a: 1, b: 2 }`.
        let array = read::<Pair>("[1,2]").unwrap_err();
        assert!(array.starts_with("invalid type: sequence, expected struct Pair"), "{array}");
        assert_eq!(read::<Pair>(r#"{"a":1}"#), Err("missing field `b` at line 1 column 7".into()));
    }

    #[test]
    fn objects_fail_as_serde_json_fails_them() {
        let cases = [
            r#"{"a":1,"a":2,"b":3}"#,
            r#"{"pairs":[{"a":1}]}"#,
            r#"{"pairs":[{"a":1,"b":2,"b":2}]}"#,
            r#"{"pairs":[{"a":-1,"b":2}]}"#,
            r#"{"pairs":[{"a":1.5,"b":2}]}"#,
            r#"{"pairs":[{"a":"1","b":2}]}"#,
            r#"{"pairs":[{"a":1,"b":2}"#,
            r#"{"pairs":{}}"#,
            r#"{"pairs":[{"a":1 "b":2}]}"#,
        ];
        for text in cases {
            let plain = serde_json::from_str::<Outer>(text).map_err(|e| e.to_string());
            let pair = serde_json::from_str::<Pair>(text).map_err(|e| e.to_string());
            assert_eq!(read::<Outer>(text), plain, "{text}");
            assert_eq!(read::<Pair>(text), pair, "{text}");
        }
    }

    #[test]
    fn reads_nested_structs_from_objects_only() {
        let pairs = r#"{"pairs":[{"a":1,"b":2},null]}"#;
        assert_eq!(read(pairs), Ok(Outer { pairs: vec![Some(Pair { a: 1, b: 2 }), None] }));
        let nested = read::<Outer>(r#"{"pairs":[null,[1,2]]}"#).unwrap_err();
        assert!(nested.starts_with("invalid type: sequence, expected struct Pair"), "{nested}");
    }
}
