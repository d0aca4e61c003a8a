//! A deserializer that reads a struct from a JSON object only.
//!
//! serde_json's `deserialize_struct` also reads a struct from an array,
//! field by field in order, so every derived body's `visit_seq` is compiled
//! into the .wasm for a shape the kernel never writes. Event bodies are read
//! through `ObjectsOnly`, which asks for a map instead: serde_json reads an
//! object exactly as before (same errors, same positions) and refuses an
//! array as it refuses any other non-object ("invalid type: sequence,
//! expected struct …").

use serde::de::{Deserializer, Visitor};

/// `D` with `deserialize_struct` read as `deserialize_map`; every other
/// request goes to `D` unchanged.
pub(super) struct ObjectsOnly<D>(pub D);

/// Forwards each named request to the wrapped deserializer as it is.
macro_rules! forward {
    ($($method:ident),* $(,)?) => {$(
        fn $method<V: Visitor<'de>>(self, visitor: V) -> Result<V::Value, D::Error> {
            self.0.$method(visitor)
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
        self.0.deserialize_map(visitor)
    }

    fn deserialize_unit_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_unit_struct(name, visitor)
    }

    fn deserialize_newtype_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_newtype_struct(name, visitor)
    }

    fn deserialize_tuple<V: Visitor<'de>>(
        self,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple(len, visitor)
    }

    fn deserialize_tuple_struct<V: Visitor<'de>>(
        self,
        name: &'static str,
        len: usize,
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_tuple_struct(name, len, visitor)
    }

    fn deserialize_enum<V: Visitor<'de>>(
        self,
        name: &'static str,
        variants: &'static [&'static str],
        visitor: V,
    ) -> Result<V::Value, D::Error> {
        self.0.deserialize_enum(name, variants, visitor)
    }

    fn is_human_readable(&self) -> bool {
        self.0.is_human_readable()
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

    fn read(text: &str) -> Result<Pair, String> {
        let mut de = serde_json::Deserializer::from_str(text);
        Pair::deserialize(ObjectsOnly(&mut de)).map_err(|e| e.to_string())
    }

    #[test]
    fn reads_a_struct_from_an_object_only() {
        assert_eq!(read(r#"{"b":2,"a":1}"#), Ok(Pair { a: 1, b: 2 }));
        // serde_json alone reads this as `Pair { a: 1, b: 2 }`.
        let array = read("[1,2]").unwrap_err();
        assert!(array.starts_with("invalid type: sequence, expected struct Pair"), "{array}");
        assert_eq!(read(r#"{"a":1}"#), Err("missing field `b` at line 1 column 7".into()));
    }
}
