//! Finding the interned strings a monitor still holds, for [`Interner::collect`].
//!
//! An engine's state is serializable (saved states), and a saved state is complete by
//! construction: what is not in it is not needed to go on. So the strings an engine holds are
//! the [`Sym`]s its serialization visits. [`mark_syms`] runs that serialization into a
//! serializer that writes nothing and notes each `Sym` it meets, so no engine needs a walk of
//! its own that could forget a field.
//!
//! [`Interner::collect`]: crate::Interner::collect

use serde::ser::{self, Serialize};

use crate::Sym;

/// Calls `mark` with every [`Sym`] in `value`'s serialization (values and names alike, and the
/// same one as often as it occurs); returns the number of compound values walked (the cost
/// of the walk, for [`crate::StringCollection`]).
pub fn mark_syms<T: Serialize + ?Sized>(value: &T, mark: &mut dyn FnMut(Sym)) -> usize {
    let mut walker = Walker {
        mark,
        in_sym: false,
        walked: 0,
    };
    value
        .serialize(&mut walker)
        .expect("the walk itself never fails");
    walker.walked
}

struct Walker<'a> {
    mark: &'a mut dyn FnMut(Sym),
    /// Set while the content of a `Sym` newtype is serialized: its `u32` is the id.
    in_sym: bool,
    walked: usize,
}

/// The walk cannot fail; serde requires an error type all the same.
#[derive(Debug)]
pub struct Never;

impl std::fmt::Display for Never {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a state walk failed")
    }
}

impl std::error::Error for Never {}

impl ser::Error for Never {
    fn custom<T: std::fmt::Display>(_: T) -> Self {
        Never
    }
}

/// The methods of a serializer whose values hold nothing to note.
macro_rules! ignore {
    ($($name:ident($t:ty)),* $(,)?) => {
        $(fn $name(self, _: $t) -> Result<(), Never> { Ok(()) })*
    };
}

impl<'w> ser::Serializer for &mut Walker<'w> {
    type Ok = ();
    type Error = Never;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Self;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Self;

    ignore!(
        serialize_bool(bool),
        serialize_i8(i8),
        serialize_i16(i16),
        serialize_i32(i32),
        serialize_i64(i64),
        serialize_u8(u8),
        serialize_u16(u16),
        serialize_u64(u64),
        serialize_f32(f32),
        serialize_f64(f64),
        serialize_char(char),
        serialize_str(&str),
        serialize_bytes(&[u8]),
        serialize_unit_struct(&'static str),
    );

    fn serialize_u32(self, v: u32) -> Result<(), Never> {
        if self.in_sym {
            (self.mark)(Sym(v));
        }
        Ok(())
    }

    fn serialize_none(self) -> Result<(), Never> {
        Ok(())
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), Never> {
        self.walked += 1;
        value.serialize(self)
    }

    fn serialize_unit(self) -> Result<(), Never> {
        Ok(())
    }

    fn serialize_unit_variant(self, _: &'static str, _: u32, _: &'static str) -> Result<(), Never> {
        Ok(())
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        name: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        let outer = self.in_sym;
        self.in_sym = name == "Sym";
        value.serialize(&mut *self)?;
        self.in_sym = outer;
        Ok(())
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), Never> {
        value.serialize(self)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        _: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Self, Never> {
        self.walked += 1;
        Ok(self)
    }
}

/// The compound parts: each element is walked in turn.
macro_rules! elements {
    ($($tr:ident :: $method:ident),* $(,)?) => {
        $(
            impl<'w> ser::$tr for &mut Walker<'w> {
                type Ok = ();
                type Error = Never;
                fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
                    value.serialize(&mut **self)
                }
                fn end(self) -> Result<(), Never> {
                    Ok(())
                }
            }
        )*
    };
}

elements!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field,
    SerializeTupleVariant::serialize_field,
);

impl<'w> ser::SerializeMap for &mut Walker<'w> {
    type Ok = ();
    type Error = Never;
    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), Never> {
        key.serialize(&mut **self)
    }
    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), Never> {
        value.serialize(&mut **self)
    }
    fn end(self) -> Result<(), Never> {
        Ok(())
    }
}

/// Structs and struct variants: each field is walked in turn.
macro_rules! fields {
    ($($tr:ident),*) => {
        $(
            impl<'w> ser::$tr for &mut Walker<'w> {
                type Ok = ();
                type Error = Never;
                fn serialize_field<T: Serialize + ?Sized>(
                    &mut self,
                    _: &'static str,
                    value: &T,
                ) -> Result<(), Never> {
                    value.serialize(&mut **self)
                }
                fn end(self) -> Result<(), Never> {
                    Ok(())
                }
            }
        )*
    };
}

fields!(SerializeStruct, SerializeStructVariant);

#[cfg(test)]
mod tests {
    use super::*;
    use crate::Value;
    use std::collections::BTreeMap;

    #[derive(serde::Serialize)]
    struct State {
        values: Vec<Value>,
        by_name: BTreeMap<u32, (Sym, Option<Value>)>,
        count: u32,
        nested: Option<Box<State>>,
    }

    #[test]
    fn every_sym_is_found_and_no_other_number() {
        let state = State {
            values: vec![Value::Str(Sym(7)), Value::Int(8), Value::Str(Sym(9))],
            by_name: [
                (10, (Sym(11), Some(Value::Str(Sym(12))))),
                (13, (Sym(14), None)),
            ]
            .into_iter()
            .collect(),
            count: 15,
            nested: Some(Box::new(State {
                values: vec![Value::Str(Sym(16))],
                by_name: BTreeMap::new(),
                count: 17,
                nested: None,
            })),
        };
        let mut found = Vec::new();
        let walked = mark_syms(&state, &mut |s| found.push(s.0));
        assert!(walked >= 6, "{walked}");
        found.sort();
        assert_eq!(found, vec![7, 9, 11, 12, 14, 16]);
    }
}
