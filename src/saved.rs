//! Saving runs with serde (the feature `serde`): [`SerdeState`], the one bound every
//! workspace's serde impl takes; the helpers their derived impls share (arrays of any
//! length, a float that may be infinite, an index with a limit); and [`shape`], the check a
//! loaded workspace passes before anything steps with it.

use crate::State;
use core::fmt;
use serde::de::DeserializeOwned;
use serde::{Deserialize, Deserializer, Serialize, Serializer, de, ser};

/// A state whose workspaces, steppers and snapshots serialize: the state, its velocity,
/// its force and its scalar all do. Every state of the crate is one with the feature
/// `serde` (particles, rigid bodies, arrays, `Vec`s, glam's vectors); a state of your own
/// is one as soon as it and its rate's parts implement `Serialize` and `Deserialize`.
///
/// ```
/// fn saves<S: timestep::SerdeState>() {}
/// saves::<timestep::Particle<glam::DVec3>>();
/// saves::<Vec<f64>>();
/// saves::<timestep::rigid::RigidBody>();
/// ```
pub trait SerdeState:
    State<
        Scalar: Serialize + DeserializeOwned,
        Velocity: Serialize + DeserializeOwned,
        Force: Serialize + DeserializeOwned,
    > + Serialize
    + DeserializeOwned
{
}

impl<S> SerdeState for S where
    S: State<
            Scalar: Serialize + DeserializeOwned,
            Velocity: Serialize + DeserializeOwned,
            Force: Serialize + DeserializeOwned,
        > + Serialize
        + DeserializeOwned
{
}

/// `[T; N]` for any `N` (serde's own impls stop at 32), as a tuple of `N` elements: the
/// format serde gives arrays. Loading refuses any other length.
pub(crate) mod array {
    use core::fmt;
    use core::marker::PhantomData;
    use serde::ser::SerializeTuple;
    use serde::{Deserialize, Deserializer, Serialize, Serializer, de};

    pub(crate) fn serialize<T: Serialize, S: Serializer, const N: usize>(
        array: &[T; N],
        serializer: S,
    ) -> Result<S::Ok, S::Error> {
        let mut tuple = serializer.serialize_tuple(N)?;
        for element in array {
            tuple.serialize_element(element)?;
        }
        tuple.end()
    }

    pub(crate) fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>, const N: usize>(
        deserializer: D,
    ) -> Result<[T; N], D::Error> {
        struct Elements<T, const N: usize>(PhantomData<T>);

        impl<'de, T: Deserialize<'de>, const N: usize> de::Visitor<'de> for Elements<T, N> {
            type Value = [T; N];

            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "an array of {N} elements")
            }

            fn visit_seq<A: de::SeqAccess<'de>>(self, mut seq: A) -> Result<[T; N], A::Error> {
                let mut slots: [Option<T>; N] = core::array::from_fn(|_| None);
                for (i, slot) in slots.iter_mut().enumerate() {
                    let element = seq.next_element()?;
                    *slot = Some(element.ok_or_else(|| de::Error::invalid_length(i, &self))?);
                }
                if seq.next_element::<de::IgnoredAny>()?.is_some() {
                    return Err(de::Error::invalid_length(N + 1, &self));
                }
                Ok(slots.map(|slot| slot.expect("every slot was filled above")))
            }
        }

        deserializer.deserialize_tuple(N, Elements::<T, N>(PhantomData))
    }
}

/// An `f64` that may be infinite or `NaN` (a sentinel of a method's memory), which formats
/// without them (JSON) cannot write as a number: saved as `{"finite": x}`,
/// `{"infinite": ±1}` (the sign) or `{"nan": bits}`.
pub(crate) mod float {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    #[derive(Serialize, Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Float {
        Finite(f64),
        Infinite(i8),
        Nan(u64),
    }

    pub(crate) fn serialize<S: Serializer>(x: &f64, serializer: S) -> Result<S::Ok, S::Error> {
        let x = *x;
        match x {
            _ if x.is_finite() => Float::Finite(x),
            _ if x.is_nan() => Float::Nan(x.to_bits()),
            _ if x > 0.0 => Float::Infinite(1),
            _ => Float::Infinite(-1),
        }
        .serialize(serializer)
    }

    pub(crate) fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<f64, D::Error> {
        Ok(match Float::deserialize(deserializer)? {
            Float::Finite(x) => x,
            Float::Infinite(sign) if sign < 0 => f64::NEG_INFINITY,
            Float::Infinite(_) => f64::INFINITY,
            Float::Nan(bits) if f64::from_bits(bits).is_nan() => f64::from_bits(bits),
            Float::Nan(_) => f64::NAN,
        })
    }
}

/// A count that the code takes as many elements of an array: loading refuses one above
/// `MAX`.
pub(crate) fn at_most<'de, D: Deserializer<'de>, const MAX: usize>(
    deserializer: D,
) -> Result<usize, D::Error> {
    let value = usize::deserialize(deserializer)?;
    if value <= MAX {
        Ok(value)
    } else {
        Err(de::Error::custom(format_args!(
            "{value} is out of range (at most {MAX})"
        )))
    }
}

/// An index into an array of `LEN`: loading refuses one at `LEN` or above.
pub(crate) fn below<'de, D: Deserializer<'de>, const LEN: usize>(
    deserializer: D,
) -> Result<usize, D::Error> {
    let value = usize::deserialize(deserializer)?;
    if value < LEN {
        Ok(value)
    } else {
        Err(de::Error::custom(format_args!(
            "index {value} is out of range (below {LEN})"
        )))
    }
}

/// `NaN`: a value a method finds anew when it next needs it, so that it is not saved.
pub(crate) fn nan() -> f64 {
    f64::NAN
}

/// A fingerprint of the shape of a value's serialization: which enum variants it holds,
/// how long its sequences are, which options hold more than numbers, and nothing of its
/// numbers. A loaded workspace is used only when its shape is that of a workspace the
/// method makes for the state it is to step: made for another size, another structure or
/// another method, it would index out of bounds (or misread its buffers) steps later.
///
/// `None` and `Some` of numbers alone (a remembered step, `Option<(t, dt)>`) have one
/// shape, and so have all enum variants that hold numbers alone (a remembered outcome):
/// that is history, which a fresh workspace has not got. Variants without content (a
/// dense structure, a natural row order) and variants holding more than numbers (a matrix
/// made or not, one method's workspace or another's) are shape. `Err` for a value that
/// does not serialize (a sparse LU).
pub(crate) fn shape<T: Serialize + ?Sized>(value: &T) -> Result<u64, ShapeError> {
    let mut shape = Shape::default();
    value.serialize(&mut shape)?;
    Ok(shape.hash)
}

/// The state of [`shape`]: the hash so far, and whether anything but numbers was seen.
#[derive(Default)]
struct Shape {
    hash: u64,
    structured: bool,
}

/// What [`shape`]'s hash takes in besides variant indices.
#[derive(Clone, Copy)]
enum Token {
    Number,
    Unit,
    Sequence,
    Element,
    End,
    Variant,
    Some,
}

impl Shape {
    fn mix(&mut self, x: u64) {
        // FxHash's step: enough to tell shapes apart, which are few and never chosen by
        // an adversary to collide (a loaded value is also checked field by field).
        self.hash = (self.hash.rotate_left(5) ^ x).wrapping_mul(0x517c_c1b7_2722_0a95);
    }

    fn token(&mut self, token: Token) -> Result<(), ShapeError> {
        self.mix(token as u64 + 1);
        Ok(())
    }

    fn structure(&mut self, token: Token) -> Result<&mut Self, ShapeError> {
        self.structured = true;
        self.token(token)?;
        Ok(self)
    }

    fn variant(&mut self, index: u32) -> Result<&mut Self, ShapeError> {
        self.structure(Token::Variant)?;
        self.mix(u64::from(index));
        Ok(self)
    }

    /// Variant `index` holding `inner`: numbers alone are a value (a method's memory of
    /// its last outcome, `Estimated(error)` or `Failed(factor)`), anything more is shape
    /// (a matrix made or not, another method's workspace).
    fn close_variant(&mut self, index: u32, inner: &Shape) -> Result<(), ShapeError> {
        if inner.structured {
            self.variant(index)?;
            self.mix(inner.hash);
            Ok(())
        } else {
            self.token(Token::Number)
        }
    }
}

/// The fields of a tuple or struct variant, shaped apart and closed as
/// [`Shape::close_variant`] says.
pub(crate) struct Variant<'a> {
    outer: &'a mut Shape,
    inner: Shape,
    index: u32,
}

impl<'a> Variant<'a> {
    fn new(outer: &'a mut Shape, index: u32) -> Self {
        Variant {
            outer,
            inner: Shape::default(),
            index,
        }
    }

    fn field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ShapeError> {
        self.inner.token(Token::Element)?;
        value.serialize(&mut self.inner)
    }

    fn close(self) -> Result<(), ShapeError> {
        self.outer.close_variant(self.index, &self.inner)
    }
}

impl ser::SerializeTupleVariant for Variant<'_> {
    type Ok = ();
    type Error = ShapeError;

    fn serialize_field<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ShapeError> {
        self.field(value)
    }

    fn end(self) -> Result<(), ShapeError> {
        self.close()
    }
}

impl ser::SerializeStructVariant for Variant<'_> {
    type Ok = ();
    type Error = ShapeError;

    fn serialize_field<T: Serialize + ?Sized>(
        &mut self,
        _: &'static str,
        value: &T,
    ) -> Result<(), ShapeError> {
        self.field(value)
    }

    fn end(self) -> Result<(), ShapeError> {
        self.close()
    }
}

/// A value [`shape`] could not serialize.
#[derive(Debug)]
pub(crate) struct ShapeError;

impl fmt::Display for ShapeError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the value does not serialize")
    }
}

impl ser::StdError for ShapeError {}

impl ser::Error for ShapeError {
    fn custom<T: fmt::Display>(_: T) -> Self {
        ShapeError
    }
}

/// Numbers, booleans and strings are one token each, whatever their value.
macro_rules! numbers {
    ($($method:ident($type:ty),)*) => {
        $(fn $method(self, _: $type) -> Result<(), ShapeError> {
            self.token(Token::Number)
        })*
    };
}

impl<'a> Serializer for &'a mut Shape {
    type Ok = ();
    type Error = ShapeError;
    type SerializeSeq = Self;
    type SerializeTuple = Self;
    type SerializeTupleStruct = Self;
    type SerializeTupleVariant = Variant<'a>;
    type SerializeMap = Self;
    type SerializeStruct = Self;
    type SerializeStructVariant = Variant<'a>;

    numbers! {
        serialize_bool(bool), serialize_i8(i8), serialize_i16(i16), serialize_i32(i32),
        serialize_i64(i64), serialize_u8(u8), serialize_u16(u16), serialize_u32(u32),
        serialize_u64(u64), serialize_f32(f32), serialize_f64(f64), serialize_char(char),
        serialize_str(&str), serialize_bytes(&[u8]),
    }

    // Without `alloc`, serde has no default for it.
    fn collect_str<T: fmt::Display + ?Sized>(self, _: &T) -> Result<(), ShapeError> {
        self.token(Token::Number)
    }

    fn serialize_none(self) -> Result<(), ShapeError> {
        self.token(Token::Number)
    }

    fn serialize_some<T: Serialize + ?Sized>(self, value: &T) -> Result<(), ShapeError> {
        let mut inner = Shape::default();
        value.serialize(&mut inner)?;
        if inner.structured {
            self.structure(Token::Some)?;
            self.mix(inner.hash);
            Ok(())
        } else {
            // Numbers alone: history, the same shape as `None`.
            self.token(Token::Number)
        }
    }

    fn serialize_unit(self) -> Result<(), ShapeError> {
        self.token(Token::Unit)
    }

    fn serialize_unit_struct(self, _: &'static str) -> Result<(), ShapeError> {
        self.token(Token::Unit)
    }

    fn serialize_unit_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
    ) -> Result<(), ShapeError> {
        self.variant(index).map(drop)
    }

    fn serialize_newtype_struct<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        value: &T,
    ) -> Result<(), ShapeError> {
        value.serialize(self)
    }

    fn serialize_newtype_variant<T: Serialize + ?Sized>(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        value: &T,
    ) -> Result<(), ShapeError> {
        let mut inner = Shape::default();
        value.serialize(&mut inner)?;
        self.close_variant(index, &inner)
    }

    fn serialize_seq(self, _: Option<usize>) -> Result<Self, ShapeError> {
        self.structure(Token::Sequence)
    }

    fn serialize_tuple(self, _: usize) -> Result<Self, ShapeError> {
        self.token(Token::Sequence)?;
        Ok(self)
    }

    fn serialize_tuple_struct(self, _: &'static str, _: usize) -> Result<Self, ShapeError> {
        self.token(Token::Sequence)?;
        Ok(self)
    }

    fn serialize_tuple_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Variant<'a>, ShapeError> {
        Ok(Variant::new(self, index))
    }

    fn serialize_map(self, _: Option<usize>) -> Result<Self, ShapeError> {
        self.structure(Token::Sequence)
    }

    fn serialize_struct(self, _: &'static str, _: usize) -> Result<Self, ShapeError> {
        self.structure(Token::Sequence)
    }

    fn serialize_struct_variant(
        self,
        _: &'static str,
        index: u32,
        _: &'static str,
        _: usize,
    ) -> Result<Variant<'a>, ShapeError> {
        Ok(Variant::new(self, index))
    }
}

/// The elements of every compound: each marked, then itself; the end marked.
macro_rules! compound {
    ($($trait:ident :: $method:ident),*) => {
        $(impl ser::$trait for &mut Shape {
            type Ok = ();
            type Error = ShapeError;

            fn $method<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ShapeError> {
                self.token(Token::Element)?;
                value.serialize(&mut **self)
            }

            fn end(self) -> Result<(), ShapeError> {
                self.token(Token::End)
            }
        })*
    };
}

compound!(
    SerializeSeq::serialize_element,
    SerializeTuple::serialize_element,
    SerializeTupleStruct::serialize_field
);

impl ser::SerializeMap for &mut Shape {
    type Ok = ();
    type Error = ShapeError;

    fn serialize_key<T: Serialize + ?Sized>(&mut self, key: &T) -> Result<(), ShapeError> {
        self.token(Token::Element)?;
        key.serialize(&mut **self)
    }

    fn serialize_value<T: Serialize + ?Sized>(&mut self, value: &T) -> Result<(), ShapeError> {
        value.serialize(&mut **self)
    }

    fn end(self) -> Result<(), ShapeError> {
        self.token(Token::End)
    }
}

/// Structs' fields, by position (both sides are the same type).
macro_rules! fields {
    ($($trait:ident),*) => {
        $(impl ser::$trait for &mut Shape {
            type Ok = ();
            type Error = ShapeError;

            fn serialize_field<T: Serialize + ?Sized>(
                &mut self,
                _: &'static str,
                value: &T,
            ) -> Result<(), ShapeError> {
                self.token(Token::Element)?;
                value.serialize(&mut **self)
            }

            fn skip_field(&mut self, _: &'static str) -> Result<(), ShapeError> {
                self.token(Token::Element)
            }

            fn end(self) -> Result<(), ShapeError> {
                self.token(Token::End)
            }
        })*
    };
}

fields!(SerializeStruct);

#[cfg(test)]
mod tests {
    use super::shape;

    #[test]
    fn shapes_differ_by_length_variant_and_structured_option_but_not_by_numbers() {
        let same = |a: &dyn erased::Shaped, b: &dyn erased::Shaped| a.shape() == b.shape();
        assert!(same(&[1.0, 2.0].to_vec(), &[3.0, -4.0].to_vec()));
        assert!(!same(&[1.0, 2.0].to_vec(), &[1.0, 2.0, 3.0].to_vec()));
        // Remembered outcomes are numbers; whether a buffer was made is shape.
        assert!(same(&Ok::<f64, f64>(1.0), &Err::<f64, f64>(1.0)));
        assert!(!same(
            &Ok::<Vec<f64>, f64>(vec![]),
            &Err::<Vec<f64>, f64>(1.0)
        ));
        // Variants without content are shape; those holding numbers, history.
        use crate::Structure;
        let banded = |lower, upper| Structure::Banded { lower, upper };
        assert!(!same(&Structure::Dense, &banded(1, 1)));
        assert!(!same(&Structure::Dense, &Structure::Sparse));
        assert!(same(&banded(1, 1), &banded(2, 0)));
        // History: a remembered step or none.
        assert!(same(&None::<(f64, f64)>, &Some((0.1, 2.0))));
        // A buffer or none.
        assert!(!same(&None::<Vec<f64>>, &Some(vec![1.0])));
        assert!(!same(&Some(vec![1.0]), &Some(vec![1.0, 2.0])));
    }

    /// `shape` through a trait object, to compare values of different types in one list.
    mod erased {
        pub(super) trait Shaped {
            fn shape(&self) -> u64;
        }

        impl<T: serde::Serialize> Shaped for T {
            fn shape(&self) -> u64 {
                super::shape(self).unwrap()
            }
        }
    }
}
