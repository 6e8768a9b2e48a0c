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
    (
        $t:ty, $small_sin_cos:ident, $sin_cos:ident, $exp:ident, $exp_m1:ident, $powf:ident,
        $ln:ident, $cbrt:ident
    ) => {
        #[cfg(feature = "deterministic")]
        impl Functions for $t {
            #[inline]
            fn math_sin_cos(x: Self) -> (Self, Self) {
                // The small angles a step turns by inline, libm's own way; the call only
                // beyond.
                match small_angle::$small_sin_cos(x) {
                    Some(sin_cos) => sin_cos,
                    None => libm::$sin_cos(x),
                }
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

functions!(f32, sin_cos_f32, sincosf, expf, expm1f, powf, logf, cbrtf);
functions!(f64, sin_cos_f64, sincos, exp, expm1, pow, log, cbrt);

/// libm's `sincosf` and `sincos` for `|x| ≲ π/4`, where they take no argument reduction,
/// operation for operation (the same bits), inline: a rigid body's exponential map turns
/// by `|ω| dt / 2`, far below π/4, and a call to libm there (another crate's code, whose
/// effects on memory LLVM cannot see) made the whole stepping loop around it compile
/// worse, on the additive update that never calls it too (BENCHMARKS.md, "Deterministic
/// functions"). Beyond `π/4` (and for infinity and `NaN`), `None`: libm's own.
///
/// The kernels and their coefficients are FreeBSD msun's `k_sinf.c`, `k_cosf.c` (Ian
/// Lance Taylor, Bruce D. Evans), `k_sin.c` and `k_cos.c` (Sun Microsystems, 1993), as the
/// `libm` crate 0.2.16 has them (`src/math/k_sinf.rs`, `k_cosf.rs`, `k_sin.rs`,
/// `k_cos.rs`), and the thresholds those of its `sincosf.rs` and `sincos.rs`.
#[cfg(feature = "deterministic")]
// The coefficients as msun publishes them (more digits than an f64 holds; they round to
// the bits given in its comments).
#[allow(clippy::excessive_precision)]
mod small_angle {
    #[inline(always)]
    pub(super) fn sin_cos_f32(x: f32) -> Option<(f32, f32)> {
        let ix = x.to_bits() & 0x7fff_ffff;
        if ix > 0x3f49_0fda {
            return None;
        }
        // |x| < 2⁻¹²: sin x = x and cos x = 1 to the bit.
        if ix < 0x3980_0000 {
            return Some((x, 1.0));
        }
        let x = f64::from(x);
        let z = x * x;
        let w = z * z;
        // |sin(x)/x − s(x)| < 2^−37.5.
        let (s1, s2, s3, s4) = (
            -0.166666666416265235595,
            0.0083333293858894631756,
            -0.000198393348360966317347,
            0.0000027183114939898219064,
        );
        let r = s3 + z * s4;
        let s = z * x;
        let sin = ((x + s * (s1 + z * s2)) + s * w * r) as f32;
        // |cos(x) − c(x)| < 2^−34.1.
        let (c0, c1, c2, c3) = (
            -0.499999997251031003120,
            0.0416666233237390631894,
            -0.00138867637746099294692,
            0.0000243904487962774090654,
        );
        let r = c2 + z * c3;
        let cos = (((1.0 + z * c0) + w * c1) + (w * z) * r) as f32;
        Some((sin, cos))
    }

    #[inline(always)]
    pub(super) fn sin_cos_f64(x: f64) -> Option<(f64, f64)> {
        let ix = ((x.to_bits() >> 32) as u32) & 0x7fff_ffff;
        if ix > 0x3fe9_21fb {
            return None;
        }
        // |x| < 2⁻²⁷ √2: sin x = x and cos x = 1 to the bit.
        if ix < 0x3e46_a09e {
            return Some((x, 1.0));
        }
        // The kernels' tail `y` of a reduced argument: none here.
        let y = 0.0;
        let z = x * x;
        let w = z * z;
        let (s1, s2, s3, s4, s5, s6) = (
            -1.66666666666666324348e-01,
            8.33333333332248946124e-03,
            -1.98412698298579493134e-04,
            2.75573137070700676789e-06,
            -2.50507602534068634195e-08,
            1.58969099521155010221e-10,
        );
        let r = s2 + z * (s3 + z * s4) + z * w * (s5 + z * s6);
        let v = z * x;
        let sin = x + v * (s1 + z * r);
        let (c1, c2, c3, c4, c5, c6) = (
            4.16666666666666019037e-02,
            -1.38888888888741095749e-03,
            2.48015872894767294178e-05,
            -2.75573143513906633035e-07,
            2.08757232129817482790e-09,
            -1.13596475577881948265e-11,
        );
        let r = z * (c1 + z * (c2 + z * c3)) + w * w * (c4 + z * (c5 + z * c6));
        let hz = 0.5 * z;
        let w = 1.0 - hz;
        let cos = w + (((1.0 - w) - hz) + (z * r - x * y));
        Some((sin, cos))
    }
}

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

/// `a.max(b)` for a `b` that is not NaN, as one comparison (x86-64's `maxsd`): a NaN `a`
/// gives `b`, as `f64::max` does, whose test of both arguments for NaN took seven
/// instructions where one does. Equal arguments give `b` (`f64::max` may give either zero).
#[inline(always)]
pub(crate) fn max_of(a: f64, b: f64) -> f64 {
    if a > b { a } else { b }
}

/// `a.min(b)` for a `b` that is not NaN, as one comparison (`minsd`): a NaN `a` gives `b`,
/// as `f64::min` does. Equal arguments give `b`.
#[inline(always)]
pub(crate) fn min_of(a: f64, b: f64) -> f64 {
    if a < b { a } else { b }
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

    /// The inline small angles are libm's to the bit: on a sweep over every binade up to
    /// well past π/4, and on each side of both thresholds.
    #[cfg(feature = "deterministic")]
    #[test]
    fn small_angles_are_libms_bits() {
        let bits32 = |(s, c): (f32, f32)| (s.to_bits(), c.to_bits());
        let bits64 = |(s, c): (f64, f64)| (s.to_bits(), c.to_bits());
        let mut checked = 0;
        for i in 0..200_000_u32 {
            let x = 1e-9_f64 * 1.000_12_f64.powi(i as i32);
            if x > 2.0 {
                break;
            }
            for x in [x, -x] {
                let xf = x as f32;
                assert_eq!(bits32(sin_cos(xf)), bits32(libm::sincosf(xf)), "{xf:e}");
                assert_eq!(bits64(sin_cos(x)), bits64(libm::sincos(x)), "{x:e}");
                checked += 1;
            }
        }
        assert!(checked > 300_000, "{checked}");
        for edge in [0x3f49_0fda_u32, 0x3980_0000] {
            for x in [
                f32::from_bits(edge - 1),
                f32::from_bits(edge),
                f32::from_bits(edge + 1),
            ] {
                assert_eq!(bits32(sin_cos(x)), bits32(libm::sincosf(x)), "{x:e}");
            }
        }
        for high in [0x3fe9_21fb_u64, 0x3e46_a09e] {
            for x in [
                (high << 32) - 1,
                high << 32,
                (high << 32) | 0xffff_ffff,
                (high + 1) << 32,
            ] {
                let x = f64::from_bits(x);
                assert_eq!(bits64(sin_cos(x)), bits64(libm::sincos(x)), "{x:e}");
            }
        }
        for x in [0.0, -0.0, f64::INFINITY, f64::NAN, 1e-300, 5e-324] {
            let (s, c) = sin_cos(x);
            let (ls, lc) = libm::sincos(x);
            assert!(
                s.to_bits() == ls.to_bits() || (s.is_nan() && ls.is_nan()),
                "{x:e}"
            );
            assert!(
                c.to_bits() == lc.to_bits() || (c.is_nan() && lc.is_nan()),
                "{x:e}"
            );
        }
    }
}
