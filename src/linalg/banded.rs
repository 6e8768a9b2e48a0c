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
/// `j` at step `j`. `U` is stored as `D⁻¹` on its diagonal and `D⁻¹ U` above it (`D` its
/// diagonal), so that each unknown of the back substitution is one multiplication and one
/// subtraction after the last: a division there, or a multiplication by the reciprocal
/// after the sum, is on the chain of dependent operations from one unknown to the next.
/// Costs `O(n · lower · (lower + upper))`.
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
    let diagonal = lower + upper;
    for j in 0..n {
        let inverse = ab[at(j, j)];
        for c in j + 1..(j + diagonal + 1).min(n) {
            let entry = &mut ab[at(j, c)];
            *entry = *entry * inverse;
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
    if (lower, upper) == (1, 1) {
        solve_tridiagonal(ab, pivots, &mut rhs[..n]);
        return;
    }
    let rows = rows(lower, upper);
    let diagonal = lower + upper;
    let rhs = &mut rhs[..n];
    let columns = ab[..n * rows].chunks_exact(rows);
    if lower > 0 {
        for (j, (column, &pivot)) in columns.clone().zip(pivots).enumerate() {
            if pivot != j {
                rhs.swap(j, pivot);
            }
            let (done, below) = rhs.split_at_mut(j + 1);
            let x = done[j];
            if x != <T as Entry>::zero() {
                for (r, &l) in below.iter_mut().zip(&column[diagonal + 1..]) {
                    *r = *r - l * x;
                }
            }
        }
    }
    // Each row of `U x = y` divided by its diagonal: `D⁻¹ y` first.
    for (r, column) in rhs.iter_mut().zip(columns.clone()) {
        *r = *r * column[diagonal];
    }
    for (j, column) in columns.enumerate().rev() {
        let x = rhs[j];
        let top = j.saturating_sub(diagonal);
        let entries = &column[diagonal - (j - top)..diagonal];
        for (r, &u) in rhs[top..j].iter_mut().zip(entries) {
            *r = *r - u * x;
        }
    }
}

/// [`solve`] for a tridiagonal band (a chain, a 1-D grid; `U` then has two diagonals above
/// its own, from the row swaps), with the unknowns being solved carried in registers: the
/// general loops store each one and load it back at the next, which puts a store and a load
/// on the chain of dependent operations from one unknown to the next. The same operations
/// in the same order, so the same result. On the large bench's heat equation (two solves a
/// step) a step took 16.8 ns per unknown instead of 27.4 (callgrind: 38 instructions per
/// unknown and solve, against 47 for the general loops with the band's size known, and 93
/// with it unknown).
fn solve_tridiagonal<T: Entry>(ab: &[T], pivots: &[usize], rhs: &mut [T]) {
    const ROWS: usize = 4;
    let n = rhs.len();
    if n == 0 {
        return;
    }
    let ab = &ab[..ROWS * n];
    let zero = <T as Entry>::zero();
    let mut current = rhs[0];
    for j in 0..n - 1 {
        let mut next = rhs[j + 1];
        if pivots[j] != j {
            core::mem::swap(&mut current, &mut next);
        }
        // Stored divided by `U`'s diagonal, as the back substitution wants it.
        rhs[j] = current * ab[ROWS * j + 2];
        if current != zero {
            next = next - ab[ROWS * j + 3] * current;
        }
        current = next;
    }
    rhs[n - 1] = current * ab[ROWS * (n - 1) + 2];
    // x_{j+1} and x_{j+2}; U's entries of row j are in columns j + 1 and j + 2.
    let (mut next, mut after) = (zero, zero);
    for j in (0..n).rev() {
        let mut r = rhs[j];
        if j + 2 < n {
            r = r - ab[ROWS * (j + 2)] * after;
        }
        if j + 1 < n {
            r = r - ab[ROWS * (j + 1) + 1] * next;
        }
        rhs[j] = r;
        after = next;
        next = r;
    }
}
