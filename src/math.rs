//! The transcendental functions the crate calls, in one place, so that the `deterministic`
//! feature can take every one of them from the pure-Rust `libm` crate: the platform's libm
//! picks its code by CPU (glibc uses FMA variants on AVX2 machines), so its last bit may
//! differ between two machines. Without the feature they are std's (or, without std,
//! num-traits' libm), as before.
//!
//! Call `math::powf(x, y)`, never `x.powf(y)`, in `src/`. `sqrt` is not here: IEEE 754
//! rounds it correctly, so every platform gives the same bits.

use crate::Scalar;

/// One implementation per type: `f32` calls libm's `f`-suffixed functions, `f64` the others.
/// Sealed (a public trait in a private module): [`Scalar`] is this and [`num_traits::Float`],
/// so no other type can be a `Scalar` and escape the guarantee. The names differ from
/// `Float`'s, and take no `self`, so that `x.sin()` in a user's generic code is not
/// ambiguous.
pub trait Functions: Copy {
    /// `(sin x, cos x)`.
    fn math_sin_cos(x: Self) -> (Self, Self);
    /// `eˣ`.
    fn math_exp(x: Self) -> Self;
    /// `eˣ − 1`, accurate near 0.
    fn math_exp_m1(x: Self) -> Self;
    /// `xʸ`.
    fn math_powf(x: Self, y: Self) -> Self;
    /// `ln x`.
    fn math_ln(x: Self) -> Self;
    /// `∛x`.
    fn math_cbrt(x: Self) -> Self;
}

macro_rules! functions {
    ($t:ty, $sin_cos:ident, $exp:ident, $exp_m1:ident, $powf:ident, $ln:ident, $cbrt:ident) => {
        #[cfg(feature = "deterministic")]
        impl Functions for $t {
            #[inline]
            fn math_sin_cos(x: Self) -> (Self, Self) {
                libm::$sin_cos(x)
            }
            #[inline]
            fn math_exp(x: Self) -> Self {
                libm::$exp(x)
            }
            #[inline]
            fn math_exp_m1(x: Self) -> Self {
                libm::$exp_m1(x)
            }
            #[inline]
            fn math_powf(x: Self, y: Self) -> Self {
                libm::$powf(x, y)
            }
            #[inline]
            fn math_ln(x: Self) -> Self {
                libm::$ln(x)
            }
            #[inline]
            fn math_cbrt(x: Self) -> Self {
                libm::$cbrt(x)
            }
        }

        #[cfg(not(feature = "deterministic"))]
        impl Functions for $t {
            #[inline]
            fn math_sin_cos(x: Self) -> (Self, Self) {
                num_traits::Float::sin_cos(x)
            }
            #[inline]
            fn math_exp(x: Self) -> Self {
                num_traits::Float::exp(x)
            }
            #[inline]
            fn math_exp_m1(x: Self) -> Self {
                num_traits::Float::exp_m1(x)
            }
            #[inline]
            fn math_powf(x: Self, y: Self) -> Self {
                num_traits::Float::powf(x, y)
            }
            #[inline]
            fn math_ln(x: Self) -> Self {
                num_traits::Float::ln(x)
            }
            #[inline]
            fn math_cbrt(x: Self) -> Self {
                num_traits::Float::cbrt(x)
            }
        }
    };
}

functions!(f32, sincosf, expf, expm1f, powf, logf, cbrtf);
functions!(f64, sincos, exp, expm1, pow, log, cbrt);

/// `(sin x, cos x)`.
#[inline]
pub(crate) fn sin_cos<S: Scalar>(x: S) -> (S, S) {
    S::math_sin_cos(x)
}

/// `eˣ`.
#[inline]
pub(crate) fn exp<S: Scalar>(x: S) -> S {
    S::math_exp(x)
}

/// `eˣ − 1`, accurate near 0.
#[inline]
pub(crate) fn exp_m1<S: Scalar>(x: S) -> S {
    S::math_exp_m1(x)
}

/// `xʸ`.
#[inline]
pub(crate) fn powf<S: Scalar>(x: S, y: S) -> S {
    S::math_powf(x, y)
}

/// `ln x`.
#[inline]
pub(crate) fn ln<S: Scalar>(x: S) -> S {
    S::math_ln(x)
}

/// `∛x`.
#[inline]
pub(crate) fn cbrt<S: Scalar>(x: S) -> S {
    S::math_cbrt(x)
}

/// `xⁿ` by squaring, in this order on every build: LLVM leaves the order of `powi`'s
/// multiplications unspecified (it expands constant exponents itself and calls
/// compiler-rt's `__powidf2` for the others), so under `deterministic` the order is ours.
#[inline]
pub(crate) fn powi<S: Scalar>(x: S, n: i32) -> S {
    #[cfg(feature = "deterministic")]
    {
        let (mut base, mut e, mut power) = (x, n.unsigned_abs(), S::one());
        while e > 0 {
            if e & 1 == 1 {
                power = power * base;
            }
            e >>= 1;
            if e > 0 {
                base = base * base;
            }
        }
        if n < 0 { S::one() / power } else { power }
    }
    #[cfg(not(feature = "deterministic"))]
    {
        num_traits::Float::powi(x, n)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The squaring loop gives what repeated multiplication gives wherever that is exact, and
    /// the reciprocal for negative exponents.
    #[test]
    fn powi_multiplies() {
        assert_eq!(powi(3.0_f64, 0), 1.0);
        assert_eq!(powi(3.0_f64, 5), 243.0);
        assert_eq!(powi(-2.0_f32, 3), -8.0);
        assert_eq!(powi(2.0_f64, -3), 0.125);
        assert_eq!(powi(0.5_f64, 7), 0.5_f64.powi(7));
    }

    /// Each function against a value known exactly or to many digits.
    #[test]
    fn functions_agree_with_known_values() {
        let (s, c) = sin_cos(core::f64::consts::FRAC_PI_6);
        assert!((s - 0.5).abs() < 1e-15 && (c - 0.75_f64.sqrt()).abs() < 1e-15);
        assert!((exp(1.0_f64) - core::f64::consts::E).abs() < 1e-15);
        assert!((exp_m1(1e-10_f64) - 1.00000000005e-10).abs() < 1e-25);
        assert_eq!(powf(2.0_f64, 10.0), 1024.0);
        assert_eq!(cbrt(27.0_f64), 3.0);
        assert_eq!(cbrt(-8.0_f32), -2.0);
    }
}
