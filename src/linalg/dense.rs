//! Dense LU factorisation with partial pivoting, row by row in one slice.

use super::Entry;
use crate::StepError;
use num_traits::{Float, Zero};

/// Factors the `n × n` row-major matrix `a` in place as `P A = L U` (unit lower `L` below
/// the diagonal, `U` on and above it); `pivots[k]` is the row swapped with row `k` at step
/// `k`.
pub(super) fn factor<T: Entry>(
    a: &mut [T],
    pivots: &mut [usize],
    n: usize,
) -> Result<(), StepError> {
    for k in 0..n {
        let mut pivot_row = k;
        let mut largest = a[k * n + k].magnitude();
        for i in k + 1..n {
            let candidate = a[i * n + k].magnitude();
            // A NaN is taken as the pivot, which the check below refuses.
            if candidate > largest || candidate.is_nan() {
                pivot_row = i;
                largest = candidate;
            }
        }
        if !largest.is_finite() {
            return Err(StepError::NonFiniteJacobian);
        }
        if largest == <T::Real as Zero>::zero() {
            return Err(StepError::SingularJacobian);
        }
        pivots[k] = pivot_row;
        if pivot_row != k {
            for j in 0..n {
                a.swap(k * n + j, pivot_row * n + j);
            }
        }
        let (upper, lower) = a.split_at_mut((k + 1) * n);
        let pivot_entries = &upper[k * n..(k + 1) * n];
        let pivot = pivot_entries[k];
        for row in lower.chunks_exact_mut(n) {
            let factor = row[k] / pivot;
            row[k] = factor;
            if factor != <T as Entry>::zero() {
                for (entry, &above) in row[k + 1..].iter_mut().zip(&pivot_entries[k + 1..]) {
                    *entry = *entry - factor * above;
                }
            }
        }
    }
    Ok(())
}

/// Solves `A x = b` from the factorisation of [`factor`], `b` in `rhs`, `x` out.
pub(super) fn solve<T: Entry>(a: &[T], pivots: &[usize], n: usize, rhs: &mut [T]) {
    for (k, &pivot) in pivots.iter().enumerate().take(n) {
        rhs.swap(k, pivot);
    }
    for i in 0..n {
        let mut sum = rhs[i];
        for (j, &l) in a[i * n..i * n + i].iter().enumerate() {
            sum = sum - l * rhs[j];
        }
        rhs[i] = sum;
    }
    for i in (0..n).rev() {
        let row = &a[i * n..(i + 1) * n];
        let mut sum = rhs[i];
        for j in i + 1..n {
            sum = sum - row[j] * rhs[j];
        }
        rhs[i] = sum / row[i];
    }
}
