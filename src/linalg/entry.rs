//! [`Entry`]: what LU factorisation asks of the numbers in a matrix, so that one dense and
//! one banded factorisation serve real matrices and the complex ones of Radau5, as
//! Hairer's `DEC`/`DECC` and `DECB`/`DECBC` are one algorithm written twice.

use super::complex::Complex;
use crate::Scalar;
use core::ops::{Add, Div, Mul, Sub};

/// A number LU with partial pivoting can work in: a field with a size for pivoting.
pub(crate) trait Entry:
    Copy
    + Default
    + PartialEq
    + Add<Output = Self>
    + Sub<Output = Self>
    + Mul<Output = Self>
    + Div<Output = Self>
{
    /// The real type sizes are measured in.
    type Real: Scalar;

    /// Zero.
    fn zero() -> Self;

    /// One.
    fn one() -> Self;

    /// The size pivoting compares: `|x|` for a real, `|re| + |im|` for a complex number
    /// (as `DECC` does: cheaper than the modulus, and as good for choosing a pivot).
    /// `NaN` when the entry has one.
    fn magnitude(self) -> Self::Real;
}

impl<T: Scalar> Entry for T {
    type Real = T;

    #[inline(always)]
    fn zero() -> T {
        T::zero()
    }

    #[inline(always)]
    fn one() -> T {
        T::one()
    }

    #[inline(always)]
    fn magnitude(self) -> T {
        self.abs()
    }
}

impl<T: Scalar> Entry for Complex<T> {
    type Real = T;

    #[inline(always)]
    fn zero() -> Self {
        Complex::new(T::zero(), T::zero())
    }

    #[inline(always)]
    fn one() -> Self {
        Complex::new(T::one(), T::zero())
    }

    #[inline(always)]
    fn magnitude(self) -> T {
        self.re.abs() + self.im.abs()
    }
}
