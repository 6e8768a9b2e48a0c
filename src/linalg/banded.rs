//! Banded LU factorisation with partial pivoting, in the column-by-column band storage of
//! LAPACK's `dgbtrf` (with room above the band for the fill-in that row swaps make).

use super::Entry;
use crate::StepError;
use num_traits::{Float, Zero};

/// Rows of the band storage: the band itself plus `lower` rows of fill-in above it.
fn rows(lower: usize, upper: usize) -> usize {
    2 * lower + upper + 1
}

/// The number of entries the storage of an `n × n` matrix with this band takes.
pub(super) fn storage_len(n: usize, lower: usize, upper: usize) -> usize {
    rows(lower, upper) * n
}

/// Where entry `(i, j)` lives, for `j − lower − upper ≤ i ≤ j + lower`.
#[inline]
pub(super) fn index(i: usize, j: usize, lower: usize, upper: usize) -> usize {
    (lower + upper + i - j) + j * rows(lower, upper)
}

/// Factors the band matrix in place as `P A = L U`; `pivots[j]` is the row swapped with row
/// `j` at step `j`. `U`'s diagonal is stored as its reciprocals, so that the back
/// substitution multiplies: a division there is on the chain of dependent operations from
/// one unknown to the next, and took as long as the whole of the rest of a tridiagonal
/// solve. Costs `O(n · lower · (lower + upper))`.
pub(super) fn factor<T: Entry>(
    ab: &mut [T],
    pivots: &mut [usize],
    n: usize,
    lower: usize,
    upper: usize,
) -> Result<(), StepError> {
    let at = |i: usize, j: usize| index(i, j, lower, upper);
    // The last column the row swaps so far reach.
    let mut reach = 0;
    for j in 0..n {
        let below = lower.min(n - 1 - j);
        let mut pivot_offset = 0;
        let mut largest = ab[at(j, j)].magnitude();
        for p in 1..=below {
            let candidate = ab[at(j + p, j)].magnitude();
            // A NaN is taken as the pivot, which the check below refuses.
            if candidate > largest || candidate.is_nan() {
                pivot_offset = p;
                largest = candidate;
            }
        }
        if !largest.is_finite() {
            return Err(StepError::NonFiniteJacobian);
        }
        if largest == <T::Real as Zero>::zero() {
            return Err(StepError::SingularJacobian);
        }
        pivots[j] = j + pivot_offset;
        reach = reach.max((j + upper + pivot_offset).min(n - 1));
        if pivot_offset != 0 {
            for c in j..=reach {
                ab.swap(at(j, c), at(j + pivot_offset, c));
            }
        }
        let pivot = ab[at(j, j)];
        for p in 1..=below {
            let entry = &mut ab[at(j + p, j)];
            *entry = *entry / pivot;
        }
        ab[at(j, j)] = T::one() / pivot;
        for c in j + 1..=reach {
            let above = ab[at(j, c)];
            if above != <T as Entry>::zero() {
                for p in 1..=below {
                    let l = ab[at(j + p, j)];
                    let entry = &mut ab[at(j + p, c)];
                    *entry = *entry - l * above;
                }
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` from the factorisation of [`factor`], `b` in `rhs`, `x` out.
pub(super) fn solve<T: Entry>(
    ab: &[T],
    pivots: &[usize],
    n: usize,
    lower: usize,
    upper: usize,
    rhs: &mut [T],
) {
    // A tridiagonal band (a chain, a 1-D grid) with its sizes known to the compiler: the
    // inner loops of one and two entries unroll, and a solve takes 47 instructions per
    // unknown instead of 149 (callgrind, the large bench's heat equation).
    if (lower, upper) == (1, 1) {
        solve_band(ab, pivots, n, 1, 1, rhs);
    } else {
        solve_band(ab, pivots, n, lower, upper, rhs);
    }
}

#[inline(always)]
fn solve_band<T: Entry>(
    ab: &[T],
    pivots: &[usize],
    n: usize,
    lower: usize,
    upper: usize,
    rhs: &mut [T],
) {
    let rows = rows(lower, upper);
    let diagonal = lower + upper;
    let rhs = &mut rhs[..n];
    let column = |j: usize| &ab[j * rows..(j + 1) * rows];
    // L, column by column (the last `lower` columns reach past the end).
    for j in 0..n {
        let pivot = pivots[j];
        if pivot != j {
            rhs.swap(j, pivot);
        }
        let x = rhs[j];
        if x != <T as Entry>::zero() {
            let column = column(j);
            for p in 1..lower.min(n - 1 - j) + 1 {
                rhs[j + p] = rhs[j + p] - column[diagonal + p] * x;
            }
        }
    }
    // U, from the bottom, with the full `diagonal` entries above the first ones in the
    // interior (a loop of a constant count when the band is known).
    for j in (0..n).rev() {
        let column = column(j);
        let x = rhs[j] * column[diagonal];
        rhs[j] = x;
        if j >= diagonal {
            for k in 1..diagonal + 1 {
                rhs[j - k] = rhs[j - k] - column[diagonal - k] * x;
            }
        } else {
            for k in 1..j + 1 {
                rhs[j - k] = rhs[j - k] - column[diagonal - k] * x;
            }
        }
    }
}
