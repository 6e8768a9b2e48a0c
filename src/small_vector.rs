//! [`SmallVector`]: a value of a size fixed at compile time that integrators add and scale
//! by value, and its implementations.

use crate::Scalar;
use core::marker::PhantomData;
use glam::{DQuat, DVec2, DVec3, DVec4, Quat, Vec2, Vec3, Vec3A, Vec4};
use num_traits::{Float, One, Zero};

/// A small vector: a value of a size fixed at compile time, added and scaled by value (an
/// element of a finite-dimensional real vector space). What small states are made of and
/// stepped as, on the stack; [`Vector`](crate::Vector) is its in-place counterpart for
/// values of any size, and every `SmallVector` is one.
///
/// Runge–Kutta methods combine derivative samples linearly, and backward Euler's Newton
/// solve reads and writes single coordinates, so this is all an integrator asks of a value.
/// It is implemented for `f32`, `f64`, the glam vectors and quaternions of both precisions,
/// arrays `[V; N]` and tuples of up to four spaces over the same scalar. A quaternion is
/// treated as a plain 4-vector here; keeping it unit length is the state's job.
///
/// Every `SmallVector` is also a [`State`](crate::State) of a first-order system
/// `y' = f(t, y)`, so implementing it for your own type lets every integrator step that type.
///
/// # Example
///
/// ```
/// use timestep::SmallVector;
/// use glam::Vec3;
///
/// let a = (Vec3::X, 2.0_f32);
/// let b = (Vec3::Y, 1.0_f32);
/// assert_eq!(a.add_scaled(b, 3.0), (Vec3::new(1.0, 3.0, 0.0), 5.0));
/// assert_eq!(<(Vec3, f32)>::DIM, 4);
/// assert_eq!(a.component(3), 2.0);
/// ```
pub trait SmallVector: Copy + PartialEq + core::fmt::Debug {
    /// The field the space is over.
    type Scalar: Scalar;

    /// The number of coordinates.
    const DIM: usize;

    /// The zero vector.
    #[must_use]
    fn zero() -> Self;

    /// `self + other`.
    #[must_use]
    fn add(self, other: Self) -> Self;

    /// `self · factor`.
    #[must_use]
    fn scale(self, factor: Self::Scalar) -> Self;

    /// `self + other · factor`, the update at the heart of every integrator.
    #[inline]
    #[must_use]
    fn add_scaled(self, other: Self, factor: Self::Scalar) -> Self {
        self.add(other.scale(factor))
    }

    /// `self − other`.
    #[inline]
    #[must_use]
    fn sub(self, other: Self) -> Self {
        self.add_scaled(other, -Self::Scalar::one())
    }

    /// Coordinate `index`, counted from 0 in the order the type lists its parts.
    ///
    /// # Panics
    ///
    /// If `index >= Self::DIM`.
    #[must_use]
    fn component(&self, index: usize) -> Self::Scalar;

    /// Sets coordinate `index`.
    ///
    /// # Panics
    ///
    /// If `index >= Self::DIM`.
    fn set_component(&mut self, index: usize, value: Self::Scalar);

    /// The largest absolute coordinate (the ∞-norm); `NaN` if any coordinate is `NaN`.
    #[must_use]
    fn max_abs(&self) -> Self::Scalar {
        let mut largest = Self::Scalar::zero();
        for i in 0..Self::DIM {
            let c = self.component(i).abs();
            if c.is_nan() {
                return c;
            }
            largest = largest.max(c);
        }
        largest
    }

    /// `true` when no coordinate is infinite or `NaN`.
    #[must_use]
    fn is_finite(&self) -> bool {
        (0..Self::DIM).all(|i| self.component(i).is_finite())
    }

    /// The coordinates of a slice of values as one slice of scalars, when the values are
    /// laid out as their coordinates (numbers, and arrays of them); `None` (the default)
    /// otherwise. Large states of such values
    /// ([`Vector::as_scalars`](crate::Vector::as_scalars)) are then read and written by
    /// integrators as plain memory.
    ///
    /// ```
    /// use timestep::SmallVector;
    ///
    /// let values = [[1.0_f64, 2.0], [3.0, 4.0]];
    /// assert_eq!(<[f64; 2]>::slice_as_scalars(&values), Some(&[1.0, 2.0, 3.0, 4.0][..]));
    /// assert_eq!(<(f64, f64)>::slice_as_scalars(&[(1.0, 2.0)]), None);
    /// ```
    #[inline]
    #[must_use]
    fn slice_as_scalars(values: &[Self]) -> Option<&[Self::Scalar]> {
        let _ = values;
        None
    }

    /// [`slice_as_scalars`](SmallVector::slice_as_scalars), to write through.
    ///
    /// ```
    /// use timestep::SmallVector;
    ///
    /// let mut values = [1.0_f32, 2.0];
    /// f32::slice_as_scalars_mut(&mut values).unwrap()[1] = 5.0;
    /// assert_eq!(values, [1.0, 5.0]);
    /// ```
    #[inline]
    fn slice_as_scalars_mut(values: &mut [Self]) -> Option<&mut [Self::Scalar]> {
        let _ = values;
        None
    }
}

fn out_of_range(index: usize, dim: usize) -> ! {
    panic!("coordinate index {index} is out of range for a vector space of dimension {dim}")
}

macro_rules! impl_scalar {
    ($($t:ty),*) => {$(
        impl SmallVector for $t {
            type Scalar = $t;
            const DIM: usize = 1;

            #[inline]
            fn zero() -> Self {
                0.0
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline]
            fn scale(self, factor: $t) -> Self {
                self * factor
            }
            #[inline]
            fn add_scaled(self, other: Self, factor: $t) -> Self {
                self + other * factor
            }
            #[inline]
            fn component(&self, index: usize) -> $t {
                match index {
                    0 => *self,
                    _ => out_of_range(index, 1),
                }
            }
            #[inline]
            fn set_component(&mut self, index: usize, value: $t) {
                match index {
                    0 => *self = value,
                    _ => out_of_range(index, 1),
                }
            }
            #[inline]
            fn slice_as_scalars(values: &[$t]) -> Option<&[$t]> {
                Some(values)
            }
            #[inline]
            fn slice_as_scalars_mut(values: &mut [$t]) -> Option<&mut [$t]> {
                Some(values)
            }
        }
    )*};
}
impl_scalar!(f32, f64);

macro_rules! impl_glam {
    ($($t:ty: $s:ty, $dim:expr;)*) => {$(
        impl SmallVector for $t {
            type Scalar = $s;
            const DIM: usize = $dim;

            #[inline]
            fn zero() -> Self {
                <$t>::from_array([0.0; $dim])
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                self + other
            }
            #[inline]
            fn scale(self, factor: $s) -> Self {
                self * factor
            }
            #[inline]
            fn add_scaled(self, other: Self, factor: $s) -> Self {
                self + other * factor
            }
            #[inline]
            fn component(&self, index: usize) -> $s {
                match self.to_array().get(index) {
                    Some(&c) => c,
                    None => out_of_range(index, $dim),
                }
            }
            #[inline]
            fn set_component(&mut self, index: usize, value: $s) {
                let mut coordinates = self.to_array();
                match coordinates.get_mut(index) {
                    Some(c) => *c = value,
                    None => out_of_range(index, $dim),
                }
                *self = <$t>::from_array(coordinates);
            }
        }
    )*};
}
impl_glam! {
    Vec2: f32, 2;
    Vec3: f32, 3;
    Vec3A: f32, 3;
    Vec4: f32, 4;
    Quat: f32, 4;
    DVec2: f64, 2;
    DVec3: f64, 3;
    DVec4: f64, 4;
    DQuat: f64, 4;
}

impl<V: SmallVector, const N: usize> SmallVector for [V; N] {
    type Scalar = V::Scalar;
    const DIM: usize = V::DIM * N;

    #[inline]
    fn zero() -> Self {
        [V::zero(); N]
    }
    #[inline]
    fn add(self, other: Self) -> Self {
        core::array::from_fn(|i| self[i].add(other[i]))
    }
    #[inline]
    fn scale(self, factor: V::Scalar) -> Self {
        self.map(|v| v.scale(factor))
    }
    #[inline]
    fn add_scaled(self, other: Self, factor: V::Scalar) -> Self {
        core::array::from_fn(|i| self[i].add_scaled(other[i], factor))
    }
    fn component(&self, index: usize) -> V::Scalar {
        if index >= Self::DIM {
            out_of_range(index, Self::DIM);
        }
        self[index / V::DIM].component(index % V::DIM)
    }
    fn set_component(&mut self, index: usize, value: V::Scalar) {
        if index >= Self::DIM {
            out_of_range(index, Self::DIM);
        }
        self[index / V::DIM].set_component(index % V::DIM, value);
    }
    #[inline]
    fn slice_as_scalars(values: &[Self]) -> Option<&[V::Scalar]> {
        V::slice_as_scalars(values.as_flattened())
    }
    #[inline]
    fn slice_as_scalars_mut(values: &mut [Self]) -> Option<&mut [V::Scalar]> {
        V::slice_as_scalars_mut(values.as_flattened_mut())
    }
}

macro_rules! impl_tuple {
    ($($name:ident $field:tt),+) => {
        impl<S: Scalar, $($name: SmallVector<Scalar = S>),+> SmallVector for ($($name,)+) {
            type Scalar = S;
            const DIM: usize = 0 $(+ $name::DIM)+;

            #[inline]
            fn zero() -> Self {
                ($($name::zero(),)+)
            }
            #[inline]
            fn add(self, other: Self) -> Self {
                ($(self.$field.add(other.$field),)+)
            }
            #[inline]
            fn scale(self, factor: S) -> Self {
                ($(self.$field.scale(factor),)+)
            }
            #[inline]
            fn add_scaled(self, other: Self, factor: S) -> Self {
                ($(self.$field.add_scaled(other.$field, factor),)+)
            }
            fn component(&self, index: usize) -> S {
                let mut i = index;
                $(
                    if i < $name::DIM {
                        return self.$field.component(i);
                    }
                    i -= $name::DIM;
                )+
                let _ = i;
                out_of_range(index, Self::DIM)
            }
            fn set_component(&mut self, index: usize, value: S) {
                let mut i = index;
                $(
                    if i < $name::DIM {
                        return self.$field.set_component(i, value);
                    }
                    i -= $name::DIM;
                )+
                let _ = i;
                out_of_range(index, Self::DIM)
            }
        }
    };
}
impl_tuple!(A 0);
impl_tuple!(A 0, B 1);
impl_tuple!(A 0, B 1, C 2);
impl_tuple!(A 0, B 1, C 2, D 3);

/// The zero-dimensional vector space over `S`: the velocity of a state that has no positions.
///
/// A first-order system `y' = f(t, y)` integrates its whole value as "momentum", so its
/// velocity carries nothing and costs nothing.
///
/// # Example
///
/// ```
/// use timestep::{NoVelocity, SmallVector};
///
/// assert_eq!(NoVelocity::<f64>::DIM, 0);
/// assert_eq!(NoVelocity::<f64>::zero().add(NoVelocity::zero()), NoVelocity::zero());
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct NoVelocity<S>(PhantomData<S>);

impl<S: Scalar> SmallVector for NoVelocity<S> {
    type Scalar = S;
    const DIM: usize = 0;

    #[inline]
    fn zero() -> Self {
        NoVelocity(PhantomData)
    }
    #[inline]
    fn add(self, _: Self) -> Self {
        self
    }
    #[inline]
    fn scale(self, _: S) -> Self {
        self
    }
    fn component(&self, index: usize) -> S {
        out_of_range(index, 0)
    }
    fn set_component(&mut self, index: usize, _: S) {
        out_of_range(index, 0)
    }
}
