//! The extrapolation tableau: Aitken–Neville's scheme on the lines `Tⱼ₁` of a step, kept
//! as one column that each new line updates in place (seulex.f's `T`).

use super::sequence::Table;
use crate::{Scalar, Vector};
use num_traits::One;

/// Line `j` (from 1) has just written `Tⱼ₁` into `table[j − 1]`; extrapolates it with the
/// lines before, so that `table[j − 1 − i]` becomes `Tⱼ,ᵢ₊₁` and `table[0]` the value of
/// order `j`, `Tⱼⱼ`:
///
/// ```text
/// Tⱼ,ₖ₊₁ = Tⱼₖ + (Tⱼₖ − Tⱼ₋₁,ₖ) / (nⱼ/nⱼ₋ₖ − 1)
/// ```
///
/// (Hairer–Wanner II, IV.9; the linearly implicit Euler method's error has an expansion in
/// powers of `h`, so each column gains one order). The table holds increments from the
/// step's start: the scheme is linear, so it extrapolates them as it would the states.
pub(crate) fn extrapolate<V: Vector>(table: &mut [V], j: usize, sequence: &Table) {
    let one = V::Scalar::one();
    for l in (2..=j).rev() {
        let factor = sequence.n(j) / sequence.n(l - 1) - 1.0;
        let (lower, upper) = table.split_at_mut(l - 1);
        let (older, newer) = (&mut lower[l - 2], &upper[0]);
        // older ← newer + (newer − older) / factor
        older.scale_assign(-one);
        older.add_scaled_assign(newer, one);
        older.scale_assign(V::Scalar::from_f64(1.0 / factor));
        older.add_scaled_assign(newer, one);
    }
}
