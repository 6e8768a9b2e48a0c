//! The linear algebra implicit methods share, as Hairer's codes share `dc_decsol`: the
//! [`Jacobian`] forces fill in, its [`Structure`] (dense or banded), and LU factorisation
//! with partial pivoting of either, factored once and solved many times.

mod banded;
mod buffer;
mod dense;
mod jacobian;

pub use jacobian::{Jacobian, Structure};

pub(crate) use buffer::Buffer;

use crate::{Scalar, StepError};

/// A square matrix of a given [`Structure`] in the storage its LU factorisation needs, with
/// the row permutation of the last factorisation.
#[derive(Clone, Debug)]
pub(crate) struct Matrix<T: Scalar> {
    structure: Structure,
    dim: usize,
    entries: Buffer<T>,
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

    /// The structure, as stored.
    pub(crate) fn structure(&self) -> Structure {
        self.structure
    }

    /// Sets every entry to zero.
    pub(crate) fn clear(&mut self) {
        self.entries.fill(T::zero());
    }

    /// A view forces (and finite differences) write `∂fᵢ/∂yⱼ` into.
    pub(crate) fn as_jacobian(&mut self) -> Jacobian<'_, T> {
        Jacobian::over(&mut self.entries, self.dim, self.structure)
    }

    /// Replaces `J` by `I − factor · J`: the Newton matrix of an implicit step.
    pub(crate) fn make_newton_matrix(&mut self, factor: T) {
        let dim = self.dim;
        let structure = self.structure;
        let mut jacobian = Jacobian::over(&mut self.entries, dim, structure);
        for j in 0..dim {
            for i in structure.rows_of_column(j, dim) {
                let entry = &mut jacobian[(i, j)];
                *entry = -factor * *entry;
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

    /// `Σⱼ |Aᵢⱼ − δᵢⱼ| · |xⱼ|` for row `i` of the Newton matrix `A` (before factoring): how
    /// much rounding of the coordinates `x` moves row `i` of the residual, up to `ε`.
    pub(crate) fn off_identity_row_norm(&self, i: usize, x: impl Fn(usize) -> T) -> T {
        let mut sum = T::zero();
        for j in self.structure.columns_of_row(i, self.dim) {
            let entry = self.entry(i, j);
            let off = if i == j { entry - T::one() } else { entry };
            sum = sum + off.abs() * x(j).abs();
        }
        sum
    }

    fn entry(&self, i: usize, j: usize) -> T {
        match self.structure {
            Structure::Dense => self.entries[i * self.dim + j],
            Structure::Banded { lower, upper } => {
                self.entries[banded::index(i, j, self.dim, lower, upper)]
            }
        }
    }
}
