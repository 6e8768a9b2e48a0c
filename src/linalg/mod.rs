//! The linear algebra implicit methods share, as Hairer's codes share `dc_decsol`: the
//! [`Jacobian`] forces fill in, its [`Structure`] (dense, banded, or sparse with the
//! feature `sparse`), and LU factorisation with partial pivoting of each, factored once
//! and solved many times.

mod banded;
mod buffer;
mod complex;
pub(crate) mod dense;
mod entry;
mod gmres;
mod jacobian;
mod krylov;
mod order;
#[cfg(feature = "serde")]
mod saved;
#[cfg(feature = "sparse")]
mod sparse;

pub use gmres::{GmresOutcome, GmresWorkspace, LinearOperator};
pub use jacobian::{Jacobian, Structure};
pub use krylov::{Gmres, LinearSolver, Preconditioner, Side};
pub(crate) use order::Order;
#[cfg(feature = "sparse")]
pub use sparse::Pattern;
#[cfg(feature = "sparse")]
use sparse::{Layout, SparseLu};

pub(crate) use buffer::Buffer;
use buffer::INLINE_MATRIX;
pub(crate) use complex::{Complex, ComplexMatrix};
use entry::Entry;

use crate::{Forces, Scalar, State, StepError};
use core::iter::StepBy;
use core::ops::Range;

/// One group of [`Matrix::column_groups`]; [`Matrix::unknowns`] lists its unknowns.
#[derive(Clone, Debug)]
pub(crate) enum Columns {
    /// Columns `lower + upper + 1` apart in the matrix's [`Order`].
    Band {
        columns: StepBy<Range<usize>>,
        order: Order,
    },
    /// Group `g` of a sparse matrix's colouring.
    #[cfg(feature = "sparse")]
    Group(usize),
}

/// The unknowns of one group of columns.
#[derive(Clone, Debug)]
pub(crate) enum Unknowns<'m> {
    Band {
        columns: StepBy<Range<usize>>,
        order: Order,
    },
    #[cfg(feature = "sparse")]
    Group(core::slice::Iter<'m, usize>),
    #[cfg(not(feature = "sparse"))]
    #[allow(dead_code)]
    Never(core::marker::PhantomData<&'m ()>),
}

impl Iterator for Unknowns<'_> {
    type Item = usize;

    #[inline]
    fn next(&mut self) -> Option<usize> {
        match self {
            Unknowns::Band { columns, order } => columns.next().map(|column| order.unknown(column)),
            #[cfg(feature = "sparse")]
            Unknowns::Group(columns) => columns.next().copied(),
            #[cfg(not(feature = "sparse"))]
            Unknowns::Never(_) => None,
        }
    }
}

/// The sparse part of a matrix: its layout (from the forces' pattern) and its LU.
#[cfg(feature = "sparse")]
#[derive(Clone, Debug)]
struct SparseParts<E: faer::traits::ComplexField> {
    layout: Layout,
    lu: SparseLu<E>,
}

/// The entries a `dim × dim` matrix of `structure` stores (a band wider than the matrix is
/// stored densely), or why it is refused.
fn storage_len(structure: Structure, dim: usize) -> Result<(Structure, usize), StepError> {
    let structure = structure.for_dim(dim);
    let len = match structure {
        Structure::Dense if dim > Structure::DENSE_LIMIT => {
            return Err(StepError::DenseTooLarge {
                unknowns: dim,
                limit: Structure::DENSE_LIMIT,
            });
        }
        Structure::Dense => dim * dim,
        Structure::Banded { lower, upper } => banded::storage_len(dim, lower, upper),
        // Allocated when the forces give their pattern.
        #[cfg(feature = "sparse")]
        Structure::Sparse => 0,
        #[cfg(not(feature = "sparse"))]
        Structure::Sparse => return Err(StepError::SparseUnavailable),
    };
    Ok((structure, len))
}

/// A square matrix of a given [`Structure`] in the storage its LU factorisation needs, with
/// the row permutation of the last factorisation. Indexed by the unknowns of a state,
/// stored in the rows of its [`Order`].
#[derive(Clone, Debug)]
pub(crate) struct Matrix<T: Scalar> {
    structure: Structure,
    order: Order,
    dim: usize,
    entries: Buffer<T, INLINE_MATRIX>,
    pivots: Buffer<usize>,
    /// A right-hand side in the matrix's rows, when they are not the unknowns' order.
    reordered: Buffer<T>,
    /// A sparse matrix's layout and LU, once the forces have given their pattern.
    #[cfg(feature = "sparse")]
    sparse: Option<alloc::boxed::Box<SparseParts<f64>>>,
}

impl<T: Scalar> Matrix<T> {
    /// A zero `dim × dim` matrix of `structure` with its rows in `order` (a band wider
    /// than the matrix is stored densely).
    ///
    /// # Errors
    ///
    /// [`StepError::DenseTooLarge`] for a dense matrix of more than
    /// [`Structure::DENSE_LIMIT`] unknowns; [`StepError::OutOfMemory`] when the storage
    /// cannot be allocated; [`StepError::TooManyUnknowns`] when it needs the heap and the
    /// crate was built without `alloc`.
    ///
    /// A [sparse](Structure::Sparse) matrix keeps the unknowns' own order (its LU orders
    /// the columns itself), and stores nothing until [`prepare`](Matrix::prepare) gives
    /// it the forces' pattern; without the feature `sparse` it is refused
    /// ([`StepError::SparseUnavailable`]).
    pub(crate) fn new(structure: Structure, order: Order, dim: usize) -> Result<Self, StepError> {
        let (structure, len) = storage_len(structure, dim)?;
        let order = if structure == Structure::Sparse {
            Order::Natural
        } else {
            order
        };
        let reordered = if order == Order::Natural { 0 } else { dim };
        let pivots = if structure == Structure::Sparse {
            0
        } else {
            dim
        };
        Ok(Matrix {
            structure,
            order,
            dim,
            entries: Buffer::zeroed(len)?,
            pivots: Buffer::zeroed(pivots)?,
            reordered: Buffer::zeroed(reordered)?,
            #[cfg(feature = "sparse")]
            sparse: None,
        })
    }

    /// Makes a [sparse](Structure::Sparse) matrix ready for its first Jacobian: asks the
    /// forces for their pattern at `state`, lays it out, colours its columns and makes
    /// the LU's symbolic analysis, once (nothing to do for other structures, or later).
    ///
    /// # Errors
    ///
    /// [`StepError::NoSparsityPattern`] when the forces give no pattern;
    /// [`StepError::OutOfMemory`] when the LU's buffers cannot be allocated.
    ///
    /// # Panics
    ///
    /// If the pattern has an entry outside the matrix.
    #[track_caller]
    pub(crate) fn prepare<S: State<Scalar = T>, F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        state: &S,
    ) -> Result<(), StepError> {
        #[cfg(feature = "sparse")]
        if self.structure == Structure::Sparse && self.sparse.is_none() {
            let mut pattern = Pattern::new();
            if !forces.jacobian_pattern(state, &mut pattern) {
                return Err(StepError::NoSparsityPattern);
            }
            self.set_pattern(&pattern)?;
        }
        let _ = (forces, state);
        Ok(())
    }

    /// Lays out a sparse matrix for `pattern` (and the diagonal), colours its columns and
    /// makes its LU's symbolic analysis.
    #[cfg(feature = "sparse")]
    #[track_caller]
    fn set_pattern(&mut self, pattern: &Pattern) -> Result<(), StepError> {
        let layout = Layout::new(self.dim, pattern);
        self.entries = Buffer::zeroed(layout.len())?;
        let lu = SparseLu::new(&layout)?;
        self.sparse = Some(alloc::boxed::Box::new(SparseParts { layout, lu }));
        Ok(())
    }

    /// The sparse layout of this matrix, if it has one.
    #[cfg(feature = "sparse")]
    fn layout(&self) -> Option<&Layout> {
        self.sparse.as_ref().map(|parts| &parts.layout)
    }

    /// Calls `f(column, offset)` for each stored entry of row `row` (in the matrix's order).
    #[inline]
    fn for_each_in_row(&self, row: usize, mut f: impl FnMut(usize, usize)) {
        #[cfg(feature = "sparse")]
        if let Some(layout) = self.layout() {
            for &(column, at) in layout.row(row) {
                f(column, at);
            }
            return;
        }
        for column in self.structure.columns_of_row(row, self.dim) {
            f(column, self.offset(row, column));
        }
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
        #[cfg(feature = "sparse")]
        if let Some(parts) = &self.sparse {
            return Jacobian::over_sparse(&mut self.entries, self.dim, &parts.layout);
        }
        Jacobian::over(&mut self.entries, self.dim, self.structure, self.order)
    }

    /// The unknowns finite differences perturb together, group by group: every
    /// `bandwidth`-th column, so that no row sees two of a group and one evaluation
    /// differences them all (dense: each column on its own; sparse: the groups of the
    /// pattern's colouring). [`unknowns`](Matrix::unknowns) lists a group's unknowns.
    pub(crate) fn column_groups(&self) -> impl ExactSizeIterator<Item = Columns> + use<T> {
        let (dim, order) = (self.dim, self.order);
        #[cfg(feature = "sparse")]
        let (groups, sparse) = match self.layout() {
            Some(layout) => (layout.groups(), true),
            None => (self.structure.bandwidth().min(dim), false),
        };
        #[cfg(not(feature = "sparse"))]
        let (groups, sparse) = (self.structure.bandwidth().min(dim), false);
        (0..groups).map(move |group| Self::group_of(group, groups, dim, order, sparse))
    }

    /// Group `group` of `groups`: of a sparse colouring, or of a band.
    #[inline]
    fn group_of(group: usize, groups: usize, dim: usize, order: Order, sparse: bool) -> Columns {
        #[cfg(feature = "sparse")]
        if sparse {
            return Columns::Group(group);
        }
        let _ = sparse;
        Columns::Band {
            columns: (group..dim).step_by(groups),
            order,
        }
    }

    /// The unknowns of one group of [`column_groups`](Matrix::column_groups).
    #[inline]
    pub(crate) fn unknowns(&self, columns: &Columns) -> Unknowns<'_> {
        match columns {
            Columns::Band { columns, order } => Unknowns::Band {
                columns: columns.clone(),
                order: *order,
            },
            #[cfg(feature = "sparse")]
            Columns::Group(group) => Unknowns::Group(
                self.layout()
                    .expect("a sparse group of a sparse matrix")
                    .group(*group)
                    .iter(),
            ),
        }
    }

    /// Writes the forward differences of one group of `columns` (unknowns), perturbed
    /// together by `steps[j]` each: `J[(i, j)] = change(i) / steps[j]` for every unknown
    /// `i` whose row column `j` may have, `change(i)` what the perturbation moved unknown
    /// `i`'s rate by.
    #[inline]
    pub(crate) fn set_differences(
        &mut self,
        columns: Columns,
        steps: &[T],
        change: impl Fn(usize) -> T,
    ) {
        let columns = match columns {
            Columns::Band { columns, order } => Unknowns::Band { columns, order },
            #[cfg(feature = "sparse")]
            Columns::Group(group) => {
                let parts = self.sparse.as_ref().expect("a sparse matrix's layout");
                for &j in parts.layout.group(group) {
                    for (row, at) in parts.layout.column(j) {
                        self.entries[at] = change(row) / steps[j];
                    }
                }
                return;
            }
        };
        for j in columns {
            let column = self.order.row(j);
            for row in self.structure.rows_of_column(column, self.dim) {
                let at = self.offset(row, column);
                self.entries[at] = change(self.order.unknown(row)) / steps[j];
            }
        }
    }

    /// Replaces `J` by `I − D J`, `D = diag(factor(i))` over the unknowns `i`: the Newton
    /// matrix of an implicit step, each row scaled by how much of its stage's rate the
    /// step takes.
    pub(crate) fn make_newton_matrix(&mut self, factor: impl Fn(usize) -> T) {
        #[cfg(feature = "sparse")]
        if let Some(parts) = &self.sparse {
            for column in 0..self.dim {
                for (row, at) in parts.layout.column(column) {
                    let entry = -factor(row) * self.entries[at];
                    self.entries[at] = if row == column {
                        entry + T::one()
                    } else {
                        entry
                    };
                }
            }
            return;
        }
        for column in 0..self.dim {
            for row in self.structure.rows_of_column(column, self.dim) {
                let at = self.offset(row, column);
                let entry = -factor(self.order.unknown(row)) * self.entries[at];
                self.entries[at] = if row == column {
                    entry + T::one()
                } else {
                    entry
                };
            }
        }
    }

    /// Replaces `J` by `M − D J`, `D = diag(factor(i))`, for a `mass` matrix `M` of this
    /// matrix's structure and layout (read into a copy of it): the Newton matrix of an
    /// implicit step of `M y' = f(t, y)`, [`make_newton_matrix`](Matrix::make_newton_matrix)
    /// with `M` in place of `I`.
    pub(crate) fn make_newton_matrix_with_mass(
        &mut self,
        mass: &Matrix<T>,
        factor: impl Fn(usize) -> T,
    ) {
        debug_assert_eq!(self.entries.len(), mass.entries.len());
        #[cfg(feature = "sparse")]
        if let Some(parts) = &self.sparse {
            for column in 0..self.dim {
                for (row, at) in parts.layout.column(column) {
                    self.entries[at] = mass.entries[at] - factor(row) * self.entries[at];
                }
            }
            return;
        }
        for column in 0..self.dim {
            for row in self.structure.rows_of_column(column, self.dim) {
                let at = self.offset(row, column);
                self.entries[at] =
                    mass.entries[at] - factor(self.order.unknown(row)) * self.entries[at];
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
            #[cfg(feature = "sparse")]
            Structure::Sparse => {
                let parts = self.sparse.as_mut().expect("a sparse matrix's layout");
                for (value, &entry) in parts.lu.values.iter_mut().zip(self.entries.iter()) {
                    if !entry.is_finite() {
                        return Err(StepError::NonFiniteJacobian);
                    }
                    *value = entry.to_f64();
                }
                parts.lu.factor(&parts.layout)
            }
            #[cfg(not(feature = "sparse"))]
            Structure::Sparse => Err(StepError::SparseUnavailable),
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
            (self.dim, self.structure, self.order),
            (jacobian.dim, jacobian.structure, jacobian.order)
        );
        self.lay_out_like(jacobian)?;
        for (entry, &j) in self.entries.iter_mut().zip(jacobian.entries.iter()) {
            *entry = -(scale * j);
        }
        if self.structure == Structure::Dense {
            // Every (dim + 1)-th entry, without `offset`'s dispatch and the buffer's
            // `match` per entry (24 instructions a factorisation at three unknowns).
            for entry in self.entries.iter_mut().step_by(self.dim + 1) {
                *entry = *entry + shift;
            }
        } else {
            for i in 0..self.dim {
                let at = self.offset(i, i);
                self.entries[at] = self.entries[at] + shift;
            }
        }
        self.factor()
    }

    /// Gives a sparse matrix (once) the layout and LU of `jacobian`'s; nothing to do for
    /// the others, whose layout is their structure's.
    fn lay_out_like(&mut self, jacobian: &Matrix<T>) -> Result<(), StepError> {
        debug_assert_eq!(
            (self.dim, self.structure, self.order),
            (jacobian.dim, jacobian.structure, jacobian.order)
        );
        #[cfg(feature = "sparse")]
        if self.structure == Structure::Sparse && self.sparse.is_none() {
            let from = jacobian
                .sparse
                .as_ref()
                .expect("a sparse Jacobian's layout");
            let layout = from.layout.clone();
            self.entries = Buffer::zeroed(layout.len())?;
            let lu = SparseLu::like(&layout, &from.lu)?;
            self.sparse = Some(alloc::boxed::Box::new(SparseParts { layout, lu }));
        }
        let _ = jacobian;
        Ok(())
    }

    /// Sets this matrix to `shift·M − scale·J` for `jacobian` and a `mass` matrix `M`
    /// (both of this matrix's structure and size, `mass` a copy of `jacobian`'s layout)
    /// and factors it: Radau5's `γ M − h J` for `M y' = f(t, y)` (radau5.f's `DECOMR`
    /// with `IMAS = 1`).
    ///
    /// # Errors
    ///
    /// As [`factor`](Matrix::factor).
    pub(crate) fn factor_shifted_mass(
        &mut self,
        jacobian: &Matrix<T>,
        mass: &Matrix<T>,
        scale: T,
        shift: T,
    ) -> Result<(), StepError> {
        self.lay_out_like(jacobian)?;
        for ((entry, &j), &m) in self
            .entries
            .iter_mut()
            .zip(jacobian.entries.iter())
            .zip(mass.entries.iter())
        {
            *entry = shift * m - scale * j;
        }
        self.factor()
    }

    /// Sets this matrix to `jacobian`'s rows where `algebraic(i)` holds for unknown `i`,
    /// and to the identity's elsewhere, and factors it: the Newton matrix of the algebraic
    /// equations `0 = fᵢ(y)` with the differential unknowns held fixed (their correction
    /// is 0), for completing a DAE's start.
    ///
    /// # Errors
    ///
    /// As [`factor`](Matrix::factor).
    pub(crate) fn factor_algebraic(
        &mut self,
        jacobian: &Matrix<T>,
        algebraic: impl Fn(usize) -> bool,
    ) -> Result<(), StepError> {
        self.lay_out_like(jacobian)?;
        self.entries.copy_from_slice(&jacobian.entries);
        self.factor_algebraic_in_place(algebraic)
    }

    /// [`factor_algebraic`](Matrix::factor_algebraic) of the Jacobian this matrix holds,
    /// in place (the Jacobian is lost).
    ///
    /// # Errors
    ///
    /// As [`factor`](Matrix::factor).
    pub(crate) fn factor_algebraic_in_place(
        &mut self,
        algebraic: impl Fn(usize) -> bool,
    ) -> Result<(), StepError> {
        for row in 0..self.dim {
            if algebraic(self.order.unknown(row)) {
                continue;
            }
            self.clear_row(row);
            let at = self.offset(row, row);
            self.entries[at] = T::one();
        }
        self.factor()
    }

    /// Sets every stored entry of row `row` (in the matrix's order) to zero.
    fn clear_row(&mut self, row: usize) {
        #[cfg(feature = "sparse")]
        if let Some(parts) = &self.sparse {
            for &(_, at) in parts.layout.row(row) {
                self.entries[at] = T::zero();
            }
            return;
        }
        for column in self.structure.columns_of_row(row, self.dim) {
            let at = self.offset(row, column);
            self.entries[at] = T::zero();
        }
    }

    /// `out = A x` over the unknowns, `x(j)` unknown `j`'s value (of an unfactored matrix).
    pub(crate) fn multiply(&self, x: impl Fn(usize) -> T, out: &mut [T]) {
        self.multiply_each(x, |i, value| out[i] = value);
    }

    /// `A x` over the unknowns, handing each unknown `i`'s entry to `out(i, value)` (of an
    /// unfactored matrix).
    pub(crate) fn multiply_each(&self, x: impl Fn(usize) -> T, mut out: impl FnMut(usize, T)) {
        for row in 0..self.dim {
            let mut sum = T::zero();
            self.for_each_in_row(row, |column, at| {
                sum = sum + self.entries[at] * x(self.order.unknown(column));
            });
            out(self.order.unknown(row), sum);
        }
    }

    /// `Σⱼ |Aᵢⱼ| x(j)` over unknown `i`'s row (of an unfactored matrix), `x(j)` unknown
    /// `j`'s weight.
    pub(crate) fn weighted_row_sum(&self, i: usize, x: impl Fn(usize) -> T) -> T {
        let mut sum = T::zero();
        self.for_each_in_row(self.order.row(i), |column, at| {
            sum = sum + self.entries[at].abs() * x(self.order.unknown(column));
        });
        sum
    }

    /// Whether unknown `i`'s row (of an unfactored matrix) is zero.
    pub(crate) fn is_zero_row(&self, i: usize) -> bool {
        let mut zero = true;
        self.for_each_in_row(self.order.row(i), |_, at| {
            zero &= self.entries[at] == T::zero();
        });
        zero
    }

    /// Where the entry of row `row` and column `column` is stored.
    ///
    /// # Panics
    ///
    /// If a sparse matrix does not store it.
    fn offset(&self, row: usize, column: usize) -> usize {
        match self.structure {
            Structure::Dense => row * self.dim + column,
            Structure::Banded { lower, upper } => banded::index(row, column, lower, upper),
            #[cfg(feature = "sparse")]
            Structure::Sparse => {
                let layout = self.layout().expect("a sparse matrix's layout");
                if row == column {
                    layout.diagonal(column)
                } else {
                    layout.offset(row, column).expect("an entry of the pattern")
                }
            }
            #[cfg(not(feature = "sparse"))]
            Structure::Sparse => unreachable!("sparse matrices need the feature `sparse`"),
        }
    }

    /// Solves `A x = b` with the last factorisation, `b` in, `x` out, both over the
    /// unknowns.
    pub(crate) fn solve(&mut self, rhs: &mut [T]) {
        #[cfg(feature = "sparse")]
        if let Some(parts) = &mut self.sparse {
            for (to, &from) in parts.lu.rhs.iter_mut().zip(rhs.iter()) {
                *to = from.to_f64();
            }
            parts.lu.solve();
            for (to, &from) in rhs.iter_mut().zip(parts.lu.rhs.iter()) {
                *to = T::from_f64(from);
            }
            return;
        }
        let natural = self.order == Order::Natural;
        if !natural {
            into_rows(self.order, rhs, &mut self.reordered);
        }
        let rows = if natural {
            &mut *rhs
        } else {
            &mut self.reordered[..]
        };
        solve_stored(self.structure, &self.entries, &self.pivots, self.dim, rows);
        if !natural {
            out_of_rows(self.order, &self.reordered, rhs);
        }
    }

    /// A solver for the last factorisation with its structure, order and size looked at
    /// once: for a method that solves several right-hand sides per factorisation (a
    /// Rosenbrock step's stages). On a small dense matrix in the unknowns' order it calls
    /// the unrolled solve of its size straight away, where [`solve`](Matrix::solve) takes
    /// the dispatch over sparse, order, structure and size at every call (107
    /// instructions a 3 × 3 solve, 63 through this: BENCHMARKS.md, "The small solve
    /// picked once per factorisation"). The same arithmetic, so the same bits.
    pub(crate) fn solver(&mut self) -> Solver<'_, T> {
        #[cfg(feature = "sparse")]
        let sparse = self.sparse.is_some();
        #[cfg(not(feature = "sparse"))]
        let sparse = false;
        let small = match (sparse, self.structure, self.order) {
            (false, Structure::Dense, Order::Natural) => dense::small_solve(self.dim),
            _ => None,
        };
        match small {
            Some(kernel) => Solver::Small {
                entries: &self.entries,
                pivots: &self.pivots,
                kernel,
            },
            None => Solver::Any(self),
        }
    }

    /// Whether the matrix keeps only some entries (a band narrower than itself, or a
    /// sparse pattern), which [`check_band`](Matrix::check_band) checks the forces against.
    pub(crate) fn is_banded(&self) -> bool {
        matches!(self.structure, Structure::Banded { .. } | Structure::Sparse)
    }

    /// Checks the matrix (before factoring) against the function it is the derivative of:
    /// with every unknown `j` nudged at once by `nudge(j)`, `change(i)` is
    /// `(how far unknown i's function moved, the size of its value)`. The band's entries
    /// predict the move `Σⱼ Aᵢⱼ nudge(j)`; a function with entries outside the band moves
    /// differently, since [`band_weight`] gives columns of one difference group different
    /// weights (folded into the band, an outside entry is counted at the wrong weight,
    /// or not at all). A row whose move differs by more than a thousandth of the terms,
    /// or of the move (in `f32`, a hundredth), beyond what rounding of the values allows,
    /// is refused.
    ///
    /// A sparse pattern is checked the same way: the columns of one colour group get
    /// different weights too.
    ///
    /// # Errors
    ///
    /// [`StepError::BandTooNarrow`] naming the first such row;
    /// [`StepError::PatternTooSparse`] for a sparse pattern.
    pub(crate) fn check_band(
        &self,
        nudge: impl Fn(usize) -> T,
        change: impl Fn(usize) -> (T, T),
    ) -> Result<(), StepError> {
        let refusal = |row| match self.structure {
            Structure::Banded { lower, upper } => StepError::BandTooNarrow { row, lower, upper },
            _ => StepError::PatternTooSparse { row },
        };
        if !self.is_banded() {
            return Ok(());
        }
        // Far above what differences miss on a band that holds every entry (their
        // relative error is about `√ε`, 10⁻⁸ in `f64`, 3·10⁻⁴ in `f32`), far below what an
        // entry outside it moves a row by (its own size, times a difference of weights).
        let fraction = (T::from_f64(30.0) * T::epsilon().sqrt()).max(T::from_f64(1e-3));
        let noise = T::from_f64(1024.0) * T::epsilon();
        for row in 0..self.dim {
            let (mut predicted, mut terms) = (T::zero(), T::zero());
            self.for_each_in_row(row, |column, at| {
                let term = self.entries[at] * nudge(self.order.unknown(column));
                predicted = predicted + term;
                terms = terms + term.abs();
            });
            let unknown = self.order.unknown(row);
            let (moved, size) = change(unknown);
            let allowed = fraction * terms.max(moved.abs()) + noise * size;
            let miss = (moved - predicted).abs();
            if miss > allowed || miss.is_nan() {
                return Err(refusal(unknown));
            }
        }
        Ok(())
    }

    /// `(Σⱼ |Aᵢⱼ − δᵢⱼ| · |xⱼ|, Σⱼ |Aᵢⱼ − δᵢⱼ|)` for unknown `i`'s row of the Newton matrix
    /// `A` (before factoring): how much rounding of the coordinates `x` moves that row of
    /// the residual, up to `ε`, and the same per unit of the largest coordinate.
    pub(crate) fn off_identity_row_norms(&self, i: usize, x: impl Fn(usize) -> T) -> (T, T) {
        let row = self.order.row(i);
        let (mut weighted, mut sum) = (T::zero(), T::zero());
        self.for_each_in_row(row, |column, at| {
            let entry = self.entries[at];
            let off = if row == column {
                entry - T::one()
            } else {
                entry
            }
            .abs();
            weighted = weighted + off * x(self.order.unknown(column)).abs();
            sum = sum + off;
        });
        (weighted, sum)
    }

    /// `|Aᵢᵢ| − Σⱼ≠ᵢ |Aᵢⱼ|` for unknown `i`'s row of the matrix (before factoring): how
    /// far the row is diagonally dominant (negative when it is not). When every row's
    /// margin is positive, `‖A⁻¹‖∞ ≤ 1 / minᵢ margin` (Varah's bound).
    pub(crate) fn dominance(&self, i: usize) -> T {
        let row = self.order.row(i);
        let mut margin = T::zero();
        self.for_each_in_row(row, |column, at| {
            let entry = self.entries[at].abs();
            margin = if row == column {
                margin + entry
            } else {
                margin - entry
            };
        });
        margin
    }
}

/// A factorised [`Matrix`] ready to solve with, from [`Matrix::solver`].
pub(crate) enum Solver<'m, T: Scalar> {
    /// A small dense matrix in the unknowns' order: its factors and the solve of its size.
    Small {
        entries: &'m [T],
        pivots: &'m [usize],
        kernel: dense::Kernel<T>,
    },
    /// Any other: [`Matrix::solve`].
    Any(&'m mut Matrix<T>),
}

impl<T: Scalar> Solver<'_, T> {
    /// Solves `A x = b`, `b` in `rhs`, `x` out, both over the unknowns, as
    /// [`Matrix::solve`] does.
    #[inline(always)]
    pub(crate) fn solve(&mut self, rhs: &mut [T]) {
        match self {
            Solver::Small {
                entries,
                pivots,
                kernel,
            } => kernel(entries, pivots, rhs),
            Solver::Any(matrix) => matrix.solve(rhs),
        }
    }
}

/// The weight of unknown `j` in the nudge of [`Matrix::check_band`]: between ½ and 1½,
/// from a hash of `j`, so that the columns of one difference group (every
/// `bandwidth`-th) differ.
pub(crate) fn band_weight<T: Scalar>(j: usize) -> T {
    let hash = (j as u64)
        .wrapping_add(1)
        .wrapping_mul(0x9E37_79B9_7F4A_7C15)
        >> 40;
    T::from_f64(0.5 + hash as f64 / (1u64 << 24) as f64)
}

/// Solves with the LU factors stored for `structure` (dense or banded), `rhs` in the
/// matrix's rows. Written once for real and complex matrices, inlined into each: as a
/// closure called from two places it was not, which cost 44 instructions a solve, a third
/// of a 2 × 2 solve (BENCHMARKS.md, "Stiff solvers against the reference codes").
#[inline(always)]
fn solve_stored<E: Entry>(
    structure: Structure,
    entries: &[E],
    pivots: &[usize],
    dim: usize,
    rhs: &mut [E],
) {
    match structure {
        Structure::Dense => dense::solve(entries, pivots, dim, rhs),
        Structure::Banded { lower, upper } => {
            banded::solve(entries, pivots, dim, lower, upper, rhs);
        }
        Structure::Sparse => unreachable!("a sparse matrix solves through its LU"),
    }
}

/// `rows ← values` (over the unknowns) in the rows of `order`.
fn into_rows<T: Copy>(order: Order, values: &[T], rows: &mut [T]) {
    for (unknown, &value) in values.iter().enumerate() {
        rows[order.row(unknown)] = value;
    }
}

/// `values ← rows` (in the rows of `order`) over the unknowns.
fn out_of_rows<T: Copy>(order: Order, rows: &[T], values: &mut [T]) {
    for (unknown, value) in values.iter_mut().enumerate() {
        *value = rows[order.row(unknown)];
    }
}

#[cfg(test)]
mod tests {
    use super::{Matrix, Order, Structure};
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
        let mut matrix = Matrix::<f64>::new(structure, Order::Natural, n).unwrap();
        #[cfg(feature = "sparse")]
        if structure == Structure::Sparse {
            let pattern = (0..n * n)
                .filter(|k| dense[*k] != 0.0)
                .map(|k| (k / n, k % n))
                .collect();
            matrix.set_pattern(&pattern).unwrap();
        }
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
        // The solve picked once per factorisation (the small dense kernel up to four
        // unknowns, `solve` itself beyond and for the other structures): the same bits.
        let mut picked = rhs.to_vec();
        matrix.solver().solve(&mut picked);
        let bits = |v: &[f64]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&picked), bits(&x), "{structure:?}, {n} unknowns");
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
            #[allow(unused_mut)]
            let mut solutions = vec![by_band, by_dense];
            // The sparse LU (of the band's pattern) too, when built.
            #[cfg(feature = "sparse")]
            solutions.extend(solve(Structure::Sparse, n, &dense, &rhs));
            // Each solution solves the system, to rounding relative to the size of the
            // terms summed (norm-wise backward stability; the matrix may be ill-conditioned).
            for x in &solutions {
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
            let mut matrix = Matrix::<f64>::new(structure, Order::Natural, 2).unwrap();
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
            let mut picked = [1.0, 2.0];
            matrix.solver().solve(&mut picked);
            assert_eq!(picked, [1.0, 1.0], "{structure:?}");

            let mut singular = Matrix::<f64>::new(structure, Order::Natural, 2).unwrap();
            singular.as_jacobian()[(0, 0)] = 1.0;
            assert_eq!(singular.factor(), Err(crate::StepError::SingularJacobian));
        }
    }

    /// The sparse LU swaps rows as the others do. A singular matrix factors (faer takes a
    /// zero pivot when its pattern has one: the diagonal is always in it) and solves to
    /// non-finite numbers, which the methods report as a non-finite residual or error
    /// estimate, where the dense and banded LU say `SingularJacobian`.
    #[cfg(feature = "sparse")]
    #[test]
    fn sparse_pivoting_and_singularity() {
        let full: super::Pattern = [(0, 0), (0, 1), (1, 0), (1, 1)].into_iter().collect();
        let mut matrix = Matrix::<f64>::new(Structure::Sparse, Order::Natural, 2).unwrap();
        matrix.set_pattern(&full).unwrap();
        {
            let mut j = matrix.as_jacobian();
            j[(0, 1)] = 1.0;
            j[(1, 0)] = 1.0;
            j[(1, 1)] = 1.0;
        }
        matrix.factor().unwrap();
        let mut x = [1.0, 2.0];
        matrix.solve(&mut x);
        assert_eq!(x, [1.0, 1.0]);
        for pattern in [super::Pattern::new(), full] {
            let mut singular = Matrix::<f64>::new(Structure::Sparse, Order::Natural, 2).unwrap();
            singular.set_pattern(&pattern).unwrap();
            singular.as_jacobian()[(0, 0)] = 1.0;
            singular.factor().unwrap();
            let mut x = [1.0, 2.0];
            singular.solve(&mut x);
            assert!(x.iter().any(|x| !x.is_finite()), "{x:?}");
        }
    }
}
