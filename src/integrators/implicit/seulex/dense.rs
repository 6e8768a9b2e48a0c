//! SEULEX's dense output (Hairer–Ostermann; seulex.f's `IOUT = 2` and `SCONTEX`): the
//! derivatives of the solution at the step's end, extrapolated from the backward
//! differences of the linearly implicit Euler increments, and the polynomial of degree
//! `κ` (the number of lines of the step) through `y₀` that has those derivatives at the
//! end.

use super::sequence::{MAX_COLUMNS, Table, first_kept};
use crate::{Scalar, State, Vector};
use num_traits::One;

/// The coefficients `c₁, …, c_κ` of the dense output of an accepted step of `κ = lines`
/// lines, written into `coefficients` (the first `κ` of them), from the step's
/// increment `y₁ − y₀` (`increment`), the linearly implicit Euler increments `Δ` each line
/// kept (line `j` its last `j`, from [`first_kept`]`(j)` on; they are differenced in
/// place), and the step sequence. `derivatives` is scratch of [`MAX_COLUMNS`] rates.
///
/// The `r`-th backward difference of line `j`'s increments at the step's end, times
/// `nⱼ^r/r!`, approximates `Hʳ y⁽ʳ⁾(t + H)/r!`; the lines' approximations are extrapolated
/// as the solution is (seulex.f's `LAMBDA = 0`: every line from the `r`-th on). Then
///
/// ```text
/// c₁ = y₁ − y₀,   cᵣ₊₁ = Hʳ y⁽ʳ⁾(t + H)/r! − cᵣ     (r = 1, …, κ − 1)
/// ```
///
/// so that `p(θ) = y₀ + θ (c₁ + (θ − 1)(c₂ + (θ − 1)(c₃ + …)))` is `y₀` at `θ = 0`, `y₁` at
/// `θ = 1`, and has the extrapolated derivatives there.
pub(super) fn coefficients<V: Vector>(
    lines: usize,
    sequence: &Table,
    increment: &V,
    kept: &mut [V],
    derivatives: &mut [V; MAX_COLUMNS],
    coefficients: &mut [V; MAX_COLUMNS],
) {
    let one = V::Scalar::one();
    // `derivatives[j − 1]`: line j's estimate, extrapolated into `derivatives[r − 1]`.
    let mut factorial = 1.0;
    for r in 1..lines {
        factorial *= r as f64;
        if r >= 2 {
            // One more backward difference of each line's kept increments, from the end.
            for j in r..=lines {
                let (start, end) = (first_kept(j), first_kept(j + 1) - 1);
                for l in (start + 1..=end).rev() {
                    let (before, at) = kept.split_at_mut(l);
                    at[0].add_scaled_assign(&before[l - 1], -one);
                }
            }
        }
        for j in r..=lines {
            let scale = powi(sequence.n(j), r) / factorial;
            let derivative = &mut derivatives[j - 1];
            derivative.assign(&kept[first_kept(j + 1) - 1]);
            derivative.scale_assign(V::Scalar::from_f64(scale));
        }
        for j in r + 1..=lines {
            for l in (r + 1..=j).rev() {
                let factor = sequence.n(j) / sequence.n(l - 1) - 1.0;
                let (lower, upper) = derivatives.split_at_mut(l - 1);
                let (older, newer) = (&mut lower[l - 2], &upper[0]);
                // older ← newer + (newer − older) / factor
                older.scale_assign(-one);
                older.add_scaled_assign(newer, one);
                older.scale_assign(V::Scalar::from_f64(1.0 / factor));
                older.add_scaled_assign(newer, one);
            }
        }
    }
    coefficients[0].assign(increment);
    for r in 1..lines {
        let (before, at) = coefficients.split_at_mut(r);
        at[0].assign(&derivatives[r - 1]);
        at[0].add_scaled_assign(&before[r - 1], -one);
    }
}

/// `xⁿ` for the small whole powers of the dense output, multiplied out in one order on
/// every build.
fn powi(x: f64, n: usize) -> f64 {
    (0..n).fold(1.0, |power, _| power * x)
}

/// Writes `p(θ)` of the coefficients `c₁, …, c_κ` (`coefficients[..lines]`) from `start`
/// into `out`, with `sum` as scratch:
/// `p(θ) = y₀ + θ (c₁ + (θ − 1)(c₂ + … + (θ − 1) c_κ))`.
pub(super) fn evaluate<S: State>(
    coefficients: &[crate::DerivativeOf<S>],
    lines: usize,
    sum: &mut crate::DerivativeOf<S>,
    start: &S,
    theta: f64,
    out: &mut S,
) {
    let one = S::Scalar::one();
    let below = S::Scalar::from_f64(theta - 1.0);
    sum.assign(&coefficients[lines - 1]);
    for coefficient in coefficients[..lines - 1].iter().rev() {
        sum.scale_assign(below);
        sum.add_scaled_assign(coefficient, one);
    }
    out.clone_from(start);
    out.advance(sum, S::Scalar::from_f64(theta));
}
