//! The linear algebra implicit methods share, as Hairer's codes share `dc_decsol`: the
//! [`Jacobian`] forces fill in, its [`Structure`] (dense or banded), and LU factorisation
//! with partial pivoting of either, factored once and solved many times.

mod banded;
mod buffer;
mod complex;
mod dense;
mod entry;
mod jacobian;

pub use jacobian::{Jacobian, Structure};

pub(crate) use buffer::Buffer;
use buffer::INLINE_MATRIX;
pub(crate) use complex::{Complex, ComplexMatrix};
use entry::Entry;

use crate::{Scalar, StepError};
use core::iter::StepBy;
use core::ops::Range;

/// The columns of one group of [`Matrix::column_groups`].
pub(crate) type Columns = StepBy<Range<usize>>;

/// A square matrix of a given [`Structure`] in the storage its LU factorisation needs, with
/// the row permutation of the last factorisation.
#[derive(Clone, Debug)]
pub(crate) struct Matrix<T: Scalar> {
    structure: Structure,
    dim: usize,
    entries: Buffer<T, INLINE_MATRIX>,
    pivots: Buffer<usize>,
}

impl<T: Scalar> Matrix<T> {
    /// A zero `dim × dim` matrix of `structure` (a band wider than the matrix is stored
    /// densely).
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when the storage needs the heap and the crate was
    /// built without `alloc`.
    pub(crate) fn new(structure: Structure, dim: usize) -> Result<Self, StepError> {
        let structure = structure.for_dim(dim);
        let len = match structure {
            Structure::Dense => dim * dim,
            Structure::Banded { lower, upper } => banded::storage_len(dim, lower, upper),
        };
        Ok(Matrix {
            structure,
            dim,
            entries: Buffer::zeroed(len)?,
            pivots: Buffer::zeroed(dim)?,
        })
    }

    /// The number of rows (and columns).
    pub(crate) fn dim(&self) -> usize {
        self.dim
    }

    /// Sets every entry to zero.
    pub(crate) fn clear(&mut self) {
        self.entries.fill(T::zero());
    }

    /// A view forces (and finite differences) write `∂fᵢ/∂yⱼ` into.
    pub(crate) fn as_jacobian(&mut self) -> Jacobian<'_, T> {
        Jacobian::over(&mut self.entries, self.dim, self.structure)
    }

    /// The columns finite differences perturb together, group by group: every
    /// `bandwidth`-th column, so that no row sees two of a group and one evaluation
    /// differences them all (dense: each column on its own).
    pub(crate) fn column_groups(&self) -> impl ExactSizeIterator<Item = Columns> + use<T> {
        let dim = self.dim;
        let groups = self.structure.bandwidth().min(dim);
        (0..groups).map(move |group| (group..dim).step_by(groups))
    }

    /// Writes the forward differences of one group of `columns`, perturbed together by
    /// `steps[j]` each: `J[(i, j)] = change(i) / steps[j]` for every row `i` column `j` may
    /// have, `change(i)` what the perturbation moved row `i` of the function by.
    #[inline]
    pub(crate) fn set_differences(
        &mut self,
        columns: Columns,
        steps: &[T],
        change: impl Fn(usize) -> T,
    ) {
        let (dim, structure) = (self.dim, self.structure);
        let mut jacobian = self.as_jacobian();
        for j in columns {
            for i in structure.rows_of_column(j, dim) {
                jacobian[(i, j)] = change(i) / steps[j];
            }
        }
    }

    /// Replaces `J` by `I − D J`, `D = diag(factor(i))`: the Newton matrix of an implicit
    /// step, each row scaled by how much of its stage's rate the step takes.
    pub(crate) fn make_newton_matrix(&mut self, factor: impl Fn(usize) -> T) {
        let dim = self.dim;
        let structure = self.structure;
        let mut jacobian = Jacobian::over(&mut self.entries, dim, structure);
        for j in 0..dim {
            for i in structure.rows_of_column(j, dim) {
                let entry = &mut jacobian[(i, j)];
                *entry = -factor(i) * *entry;
                if i == j {
                    *entry = *entry + T::one();
                }
            }
        }
    }

    /// Factors the matrix in place as `P A = L U`.
    ///
    /// # Errors
    ///
    /// [`StepError::SingularJacobian`] for a zero pivot, [`StepError::NonFiniteJacobian`]
    /// for a non-finite entry.
    pub(crate) fn factor(&mut self) -> Result<(), StepError> {
        match self.structure {
            Structure::Dense => dense::factor(&mut self.entries, &mut self.pivots, self.dim),
            Structure::Banded { lower, upper } => {
                banded::factor(&mut self.entries, &mut self.pivots, self.dim, lower, upper)
            }
        }
    }

    /// Sets this matrix to `shift·I − scale·J` for `jacobian` (of the same structure and
    /// size) and factors it: the real system of Radau5's transformed Newton iteration,
    /// `γ I − h J`, made from a Jacobian kept unfactored across steps.
    ///
    /// # Errors
    ///
    /// As [`factor`](Matrix::factor).
    pub(crate) fn factor_shifted(
        &mut self,
        jacobian: &Matrix<T>,
        scale: T,
        shift: T,
    ) -> Result<(), StepError> {
        debug_assert_eq!(
            (self.dim, self.structure),
            (jacobian.dim, jacobian.structure)
        );
        for (entry, &j) in self.entries.iter_mut().zip(jacobian.entries.iter()) {
            *entry = -(scale * j);
        }
        for i in 0..self.dim {
            let at = self.offset(i, i);
            self.entries[at] = self.entries[at] + shift;
        }
        self.factor()
    }

    /// Where entry `(i, j)` is stored.
    fn offset(&self, i: usize, j: usize) -> usize {
        match self.structure {
            Structure::Dense => i * self.dim + j,
            Structure::Banded { lower, upper } => banded::index(i, j, lower, upper),
        }
    }

    /// Solves `A x = b` with the last factorisation, `b` in, `x` out, through `get`/`set`
    /// on the caller's vector.
    pub(crate) fn solve(&self, rhs: &mut [T]) {
        match self.structure {
            Structure::Dense => dense::solve(&self.entries, &self.pivots, self.dim, rhs),
            Structure::Banded { lower, upper } => {
                banded::solve(&self.entries, &self.pivots, self.dim, lower, upper, rhs);
            }
        }
    }

    /// `(Σⱼ |Aᵢⱼ − δᵢⱼ| · |xⱼ|, Σⱼ |Aᵢⱼ − δᵢⱼ|)` for row `i` of the Newton matrix `A`
    /// (before factoring): how much rounding of the coordinates `x` moves row `i` of the
    /// residual, up to `ε`, and the same per unit of the largest coordinate.
    pub(crate) fn off_identity_row_norms(&self, i: usize, x: impl Fn(usize) -> T) -> (T, T) {
        let (mut weighted, mut sum) = (T::zero(), T::zero());
        for j in self.structure.columns_of_row(i, self.dim) {
            let entry = self.entry(i, j);
            let off = if i == j { entry - T::one() } else { entry }.abs();
            weighted = weighted + off * x(j).abs();
            sum = sum + off;
        }
        (weighted, sum)
    }

    /// `|Aᵢᵢ| − Σⱼ≠ᵢ |Aᵢⱼ|` for row `i` of the matrix (before factoring): how far the row
    /// is diagonally dominant (negative when it is not). When every row's margin is
    /// positive, `‖A⁻¹‖∞ ≤ 1 / minᵢ margin` (Varah's bound).
    pub(crate) fn dominance(&self, i: usize) -> T {
        let mut margin = T::zero();
        for j in self.structure.columns_of_row(i, self.dim) {
            let entry = self.entry(i, j).abs();
            margin = if i == j {
                margin + entry
            } else {
                margin - entry
            };
        }
        margin
    }

    fn entry(&self, i: usize, j: usize) -> T {
        self.entries[self.offset(i, j)]
    }
}

#[cfg(test)]
mod tests {
    use super::{Matrix, Structure};
    use proptest::prelude::*;

    /// A band matrix from `values` (with a diagonal nudged away from zero, but not so far
    /// that pivoting never swaps rows), and a right-hand side.
    fn band_system(n: usize, lower: usize, upper: usize, values: &[f64]) -> (Vec<f64>, Vec<f64>) {
        let mut dense = vec![0.0; n * n];
        let mut next = values.iter().cycle();
        for i in 0..n {
            for j in i.saturating_sub(lower)..(i + upper + 1).min(n) {
                dense[i * n + j] = *next.next().unwrap();
            }
            dense[i * n + i] += 2.0;
        }
        let rhs = (0..n).map(|i| (i as f64 * 0.37).sin()).collect();
        (dense, rhs)
    }

    fn solve(structure: Structure, n: usize, dense: &[f64], rhs: &[f64]) -> Option<Vec<f64>> {
        let mut matrix = Matrix::<f64>::new(structure, n).unwrap();
        {
            let mut jacobian = matrix.as_jacobian();
            for i in 0..n {
                for j in 0..n {
                    if jacobian.contains((i, j)) {
                        jacobian[(i, j)] = dense[i * n + j];
                    }
                }
            }
        }
        matrix.factor().ok()?;
        let mut x = rhs.to_vec();
        matrix.solve(&mut x);
        Some(x)
    }

    proptest! {
        /// The banded LU solves what the dense LU solves, with pivoting (entries of both
        /// signs, up to the size of the diagonal's margin), for every band shape.
        #[test]
        fn banded_and_dense_lu_agree(
            n in 1_usize..40,
            lower in 0_usize..4,
            upper in 0_usize..4,
            values in prop::collection::vec(-8.0_f64..8.0, 1..64),
        ) {
            let (dense, rhs) = band_system(n, lower, upper, &values);
            // A random matrix may be singular (a zero pivot): skip it.
            let (Some(by_band), Some(by_dense)) = (
                solve(Structure::Banded { lower, upper }, n, &dense, &rhs),
                solve(Structure::Dense, n, &dense, &rhs),
            ) else {
                return Ok(());
            };
            // Each solution solves the system, to rounding relative to the size of the
            // terms summed (norm-wise backward stability; the matrix may be ill-conditioned).
            for x in [&by_band, &by_dense] {
                let size = (0..n)
                    .map(|i| (0..n).map(|j| (dense[i * n + j] * x[j]).abs()).sum::<f64>())
                    .fold(1.0_f64, f64::max);
                for i in 0..n {
                    let row: f64 = (0..n).map(|j| dense[i * n + j] * x[j]).sum();
                    prop_assert!(
                        (row - rhs[i]).abs() <= 1e-13 * size,
                        "row {i}: {row} vs {}", rhs[i]
                    );
                }
            }
        }
    }

    /// Row swaps happen: a band whose first pivot is zero is solved (the dense and banded
    /// LU swap rows 0 and 1), and a singular one is reported.
    #[test]
    fn pivoting_and_singularity() {
        // [[0, 1], [1, 1]] x = [1, 2] → x = [1, 1].
        for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
            let mut matrix = Matrix::<f64>::new(structure, 2).unwrap();
            {
                let mut j = matrix.as_jacobian();
                j[(0, 1)] = 1.0;
                j[(1, 0)] = 1.0;
                j[(1, 1)] = 1.0;
            }
            matrix.factor().unwrap();
            let mut x = [1.0, 2.0];
            matrix.solve(&mut x);
            assert_eq!(x, [1.0, 1.0], "{structure:?}");

            let mut singular = Matrix::<f64>::new(structure, 2).unwrap();
            singular.as_jacobian()[(0, 0)] = 1.0;
            assert_eq!(singular.factor(), Err(crate::StepError::SingularJacobian));
        }
    }
}
