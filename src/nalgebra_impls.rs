//! nalgebra's vectors as states (feature `nalgebra`, nalgebra 0.34 or 0.35): `SVector`
//! (`Vector2`, `Vector3`, …) is a [`SmallVector`], so a fixed-size vector is a small state
//! stepped by value, and `DVector` is a [`Vector`], a state sized at run time stepped in
//! place. Both in `f32` and `f64`.

use crate::{Interpolate, SmallVector, Vector};
use nalgebra::{DVector, SVector};

macro_rules! impl_nalgebra {
    ($($s:ty),*) => {$(
        impl<const D: usize> SmallVector for SVector<$s, D> {
            type Scalar = $s;
            const DIM: usize = D;

            #[inline]
            fn zero() -> Self {
                SVector::zeros()
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
            #[track_caller]
            fn component(&self, index: usize) -> $s {
                self[index]
            }
            #[inline]
            #[track_caller]
            fn set_component(&mut self, index: usize, value: $s) {
                self[index] = value;
            }
        }

        /// `a·(1 − α) + b·α`, exact at both ends.
        impl<const D: usize> Interpolate for SVector<$s, D> {
            type Scalar = $s;

            #[inline]
            fn interpolate(&self, other: &Self, alpha: $s) -> Self {
                self * (1.0 - alpha) + other * alpha
            }
        }

        impl Vector for DVector<$s> {
            type Scalar = $s;

            #[inline]
            fn dim(&self) -> usize {
                self.len()
            }
            fn zero_like(&self) -> Self {
                DVector::zeros(self.len())
            }
            #[inline]
            #[track_caller]
            fn assign(&mut self, other: &Self) {
                self.copy_from(other);
            }
            #[inline]
            #[track_caller]
            fn add_scaled_assign(&mut self, other: &Self, factor: $s) {
                self.axpy(factor, other, 1.0);
            }
            #[inline]
            fn scale_assign(&mut self, factor: $s) {
                *self *= factor;
            }
            #[inline]
            fn set_zero(&mut self) {
                self.fill(0.0);
            }
            #[inline]
            #[track_caller]
            fn component(&self, index: usize) -> $s {
                self[index]
            }
            #[inline]
            #[track_caller]
            fn set_component(&mut self, index: usize, value: $s) {
                self[index] = value;
            }
            #[inline]
            fn as_scalars(&self) -> Option<&[$s]> {
                Some(self.as_slice())
            }
            #[inline]
            fn as_scalars_mut(&mut self) -> Option<&mut [$s]> {
                Some(self.as_mut_slice())
            }
        }

        /// `a·(1 − α) + b·α`, exact at both ends.
        impl Interpolate for DVector<$s> {
            type Scalar = $s;

            fn interpolate(&self, other: &Self, alpha: $s) -> Self {
                self * (1.0 - alpha) + other * alpha
            }
        }
    )*};
}
impl_nalgebra!(f32, f64);
