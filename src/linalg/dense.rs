//! Dense LU factorisation with partial pivoting, row by row in one slice.

use super::Entry;
use crate::StepError;
use num_traits::{Float, Zero};

/// Factors the `n × n` row-major matrix `a` in place as `P A = L U` (unit lower `L` below
/// the diagonal, `U` on and above it); `pivots[k]` is the row swapped with row `k` at step
/// `k`.
///
/// Up to four unknowns the size is passed on as a constant, so that the loops unroll (a
/// third fewer instructions at two unknowns).
#[inline]
pub(crate) fn factor<T: Entry>(
    a: &mut [T],
    pivots: &mut [usize],
    n: usize,
) -> Result<(), StepError> {
    match n {
        1 => factor_n(a, pivots, 1),
        2 => factor_n(a, pivots, 2),
        3 => factor_n(a, pivots, 3),
        4 => factor_n(a, pivots, 4),
        _ => factor_n(a, pivots, n),
    }
}

/// [`factor`], inlined where `n` is a constant.
#[inline(always)]
fn factor_n<T: Entry>(a: &mut [T], pivots: &mut [usize], n: usize) -> Result<(), StepError> {
    let (a, pivots) = (&mut a[..n * n], &mut pivots[..n]);
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
///
/// Up to four unknowns with the size a constant, so that the loops unroll and the bounds
/// checks go: at two or three unknowns (Van der Pol, Robertson) the general loops cost
/// three times decsol.f's `SOL` (BENCHMARKS.md, "Stiff solvers against the reference
/// codes").
#[inline]
pub(crate) fn solve<T: Entry>(a: &[T], pivots: &[usize], n: usize, rhs: &mut [T]) {
    match n {
        0 => {}
        1 => solve_fixed::<T, 1>(a, pivots, rhs),
        2 => solve_fixed::<T, 2>(a, pivots, rhs),
        3 => solve_fixed::<T, 3>(a, pivots, rhs),
        4 => solve_fixed::<T, 4>(a, pivots, rhs),
        _ => solve_general(a, pivots, n, rhs),
    }
}

/// A solve of one size: the factors, the pivots, the right-hand side in and the solution
/// out, as [`solve`] takes them.
pub(crate) type Kernel<T> = fn(&[T], &[usize], &mut [T]);

/// The [`solve`] of `n` unknowns as a function of its own, for a caller that solves many
/// times with one factorisation and so picks it once (up to four unknowns; `None` beyond,
/// and for `n = 0`): the same arithmetic, so the same bits.
pub(crate) fn small_solve<T: Entry>(n: usize) -> Option<Kernel<T>> {
    match n {
        1 => Some(solve_fixed::<T, 1>),
        2 => Some(solve_fixed::<T, 2>),
        3 => Some(solve_fixed::<T, 3>),
        4 => Some(solve_fixed::<T, 4>),
        _ => None,
    }
}

/// [`solve`] for `N` unknowns.
#[inline(always)]
fn solve_fixed<T: Entry, const N: usize>(a: &[T], pivots: &[usize], rhs: &mut [T]) {
    let (a, pivots, rhs) = (&a[..N * N], &pivots[..N], &mut rhs[..N]);
    for (k, &pivot) in pivots.iter().enumerate() {
        rhs.swap(k, pivot);
    }
    for i in 1..N {
        let mut sum = rhs[i];
        for j in 0..i {
            sum = sum - a[i * N + j] * rhs[j];
        }
        rhs[i] = sum;
    }
    for i in (0..N).rev() {
        let mut sum = rhs[i];
        for j in i + 1..N {
            sum = sum - a[i * N + j] * rhs[j];
        }
        rhs[i] = sum / a[i * N + i];
    }
}

/// [`solve`] for any number of unknowns, over rows and the solved part of `rhs` as zipped
/// slices.
fn solve_general<T: Entry>(a: &[T], pivots: &[usize], n: usize, rhs: &mut [T]) {
    let (a, rhs) = (&a[..n * n], &mut rhs[..n]);
    for (k, &pivot) in pivots[..n].iter().enumerate() {
        rhs.swap(k, pivot);
    }
    let first = forward_four_rows_at_a_time(a, n, rhs);
    for (i, row) in a.chunks_exact(n).enumerate().skip(first) {
        let (solved, rest) = rhs.split_at_mut(i);
        let sum = row[..i]
            .iter()
            .zip(solved.iter())
            .fold(rest[0], |sum, (&l, &x)| sum - l * x);
        rest[0] = sum;
    }
    let last = backward_four_rows_at_a_time(a, n, rhs);
    for (i, row) in a.chunks_exact(n).enumerate().take(last).rev() {
        let (head, solved) = rhs.split_at_mut(i + 1);
        let sum = row[i + 1..]
            .iter()
            .zip(solved.iter())
            .rev()
            .fold(head[i], |sum, (&u, &x)| sum - u * x);
        head[i] = sum / row[i];
    }
}

/// The backward substitution `xᵢ = (bᵢ − Σⱼ₍ⱼ>ᵢ₎ uᵢⱼ xⱼ) / uᵢᵢ` of [`solve_general`] for the
/// rows from the last up, four at a time, each row's terms taken from the last column
/// back (so that the four sums can share the columns already solved, as in
/// [`forward_four_rows_at_a_time`]). Returns the rows left above, for the row-by-row loop,
/// which sums in the same order.
#[inline(always)]
fn backward_four_rows_at_a_time<T: Entry>(a: &[T], n: usize, rhs: &mut [T]) -> usize {
    let mut end = n;
    while end >= 4 {
        let i = end - 4;
        let rows = &a[i * n..end * n];
        let (r0, rest) = rows.split_at(n);
        let (r1, rest) = rest.split_at(n);
        let (r2, r3) = rest.split_at(n);
        let (block, solved) = rhs[i..].split_at_mut(4);
        let [mut s0, mut s1, mut s2, mut s3] = [block[0], block[1], block[2], block[3]];
        let columns = r0[end..]
            .iter()
            .zip(&r1[end..])
            .zip(&r2[end..])
            .zip(&r3[end..])
            .zip(solved.iter());
        for ((((&u0, &u1), &u2), &u3), &x) in columns.rev() {
            s0 = s0 - u0 * x;
            s1 = s1 - u1 * x;
            s2 = s2 - u2 * x;
            s3 = s3 - u3 * x;
        }
        let x3 = s3 / r3[i + 3];
        s2 = s2 - r2[i + 3] * x3;
        let x2 = s2 / r2[i + 2];
        s1 = s1 - r1[i + 3] * x3;
        s1 = s1 - r1[i + 2] * x2;
        let x1 = s1 / r1[i + 1];
        s0 = s0 - r0[i + 3] * x3;
        s0 = s0 - r0[i + 2] * x2;
        s0 = s0 - r0[i + 1] * x1;
        let x0 = s0 / r0[i];
        block.copy_from_slice(&[x0, x1, x2, x3]);
        end = i;
    }
    end
}

/// The forward substitution `xᵢ = bᵢ − Σⱼ₍ⱼ<ᵢ₎ lᵢⱼ xⱼ` of [`solve_general`] for rows 1, 2,
/// … four at a time, each row's sum taken in the order of `j` as row by row (the same
/// bits): the four sums over the columns before the block are four independent chains of
/// subtractions, where one row's is a chain whose every step waits for the last (the
/// Brusselator's 80 unknowns: twice rodas.f's time in the solves for fewer instructions).
/// Returns the first row left, for the row-by-row loop.
#[inline(always)]
fn forward_four_rows_at_a_time<T: Entry>(a: &[T], n: usize, rhs: &mut [T]) -> usize {
    let mut i = 1;
    while i + 4 <= n {
        let rows = &a[i * n..(i + 4) * n];
        let (r0, rest) = rows.split_at(n);
        let (r1, rest) = rest.split_at(n);
        let (r2, r3) = rest.split_at(n);
        let (solved, block) = rhs.split_at_mut(i);
        let block = &mut block[..4];
        let [mut s0, mut s1, mut s2, mut s3] = [block[0], block[1], block[2], block[3]];
        for ((((&x, &l0), &l1), &l2), &l3) in solved.iter().zip(r0).zip(r1).zip(r2).zip(r3) {
            s0 = s0 - l0 * x;
            s1 = s1 - l1 * x;
            s2 = s2 - l2 * x;
            s3 = s3 - l3 * x;
        }
        s1 = s1 - r1[i] * s0;
        s2 = s2 - r2[i] * s0;
        s2 = s2 - r2[i + 1] * s1;
        s3 = s3 - r3[i] * s0;
        s3 = s3 - r3[i + 1] * s1;
        s3 = s3 - r3[i + 2] * s2;
        block.copy_from_slice(&[s0, s1, s2, s3]);
        i += 4;
    }
    i
}

/// Solves `Aᵀ x = b` from the factorisation `P A = L U` of [`factor`], `b` in `rhs`, `x`
/// out: `Aᵀ = Uᵀ Lᵀ P`, so `Uᵀ z = b` forwards, `Lᵀ w = z` backwards (unit diagonal),
/// then `x = Pᵀ w`, the swaps undone in reverse. The adjoint of a Rosenbrock step solves
/// with the transpose of the matrix its stages were solved with, one factorisation for
/// both.
#[cfg(any(test, feature = "alloc"))]
pub(crate) fn solve_transposed<T: Entry>(a: &[T], pivots: &[usize], n: usize, rhs: &mut [T]) {
    let (a, rhs) = (&a[..n * n], &mut rhs[..n]);
    for i in 0..n {
        let sum = (0..i).fold(rhs[i], |sum, k| sum - a[k * n + i] * rhs[k]);
        rhs[i] = sum / a[i * n + i];
    }
    for i in (0..n).rev() {
        rhs[i] = (i + 1..n).fold(rhs[i], |sum, k| sum - a[k * n + i] * rhs[k]);
    }
    for (k, &pivot) in pivots[..n].iter().enumerate().rev() {
        rhs.swap(k, pivot);
    }
}

#[cfg(test)]
mod tests {
    use super::{factor, solve, solve_transposed};
    use proptest::prelude::*;

    /// An `n × n` matrix of `values` with 3 added along its diagonal: entries of both signs
    /// up to the diagonal's margin, so that rows swap, and seldom singular.
    fn diagonal_heavy(n: usize, values: &[f64]) -> Vec<f64> {
        (0..n * n)
            .map(|k| values[k] + if k % (n + 1) == 0 { 3.0 } else { 0.0 })
            .collect()
    }

    proptest! {
        /// The solve, four rows at a time, gives the bits of the row-by-row substitution
        /// (the backward one summing from the last column back), at every size past the
        /// unrolled ones.
        #[test]
        fn the_solve_is_the_row_by_row_substitution_bit_for_bit(
            n in 5_usize..40,
            values in prop::collection::vec(-4.0_f64..4.0, 1600),
        ) {
            let mut a = diagonal_heavy(n, &values);
            let mut pivots = vec![0; n];
            if factor(&mut a, &mut pivots, n).is_err() {
                return Ok(());
            }
            let b: Vec<f64> = (0..n).map(|i| values[(7 * i) % 1600] + 0.25).collect();
            let mut x = b.clone();
            solve(&a, &pivots, n, &mut x);
            let mut y = b;
            for (k, &p) in pivots.iter().enumerate() {
                y.swap(k, p);
            }
            for i in 0..n {
                y[i] = (0..i).fold(y[i], |sum, j| sum - a[i * n + j] * y[j]);
            }
            for i in (0..n).rev() {
                y[i] = (i + 1..n).rev().fold(y[i], |sum, j| sum - a[i * n + j] * y[j]) / a[i * n + i];
            }
            prop_assert_eq!(x, y);
        }

        /// `Aᵀ x = b` from `A`'s factors: `x` satisfies it to round-off, with pivoting
        /// (entries of both signs up to the diagonal's margin, so rows swap).
        #[test]
        fn transposed_solve_solves_the_transpose(
            n in 1_usize..12,
            values in prop::collection::vec(-4.0_f64..4.0, 144),
        ) {
            let mut a = diagonal_heavy(n, &values);
            let original = a.clone();
            let mut pivots = vec![0; n];
            if factor(&mut a, &mut pivots, n).is_err() {
                return Ok(());
            }
            let b: Vec<f64> = (0..n).map(|i| (i as f64 * 0.7).cos()).collect();
            let mut x = b.clone();
            solve_transposed(&a, &pivots, n, &mut x);
            let size = x.iter().fold(1.0_f64, |m, v| m.max(v.abs()));
            for (j, &bj) in b.iter().enumerate() {
                let product: f64 = (0..n).map(|i| original[i * n + j] * x[i]).sum();
                prop_assert!((product - bj).abs() <= 1e-10 * size, "{product} ≠ {bj}");
            }
        }
    }
}
