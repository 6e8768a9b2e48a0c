//! Sparse Jacobians (feature `sparse`): the [`Pattern`] forces declare, the
//! compressed-column [`Layout`] the crate's matrices store it in (with the column groups
//! finite differences perturb together), and [`SparseLu`], faer's sparse LU with its
//! symbolic analysis kept across numeric refactorisations.
//!
//! A sparse matrix keeps the unknowns in the state's own numbering (velocity part, then
//! force part), never interleaved as a band is: its LU picks its own fill-reducing
//! column order (COLAMD) and pivots rows, so the numbering of the unknowns does not
//! matter to it.

use crate::StepError;
use alloc::collections::BinaryHeap;
use alloc::vec::Vec;
use core::cmp::Reverse;
use core::fmt;
use faer::dyn_stack::{MemBuffer, MemStack, StackReq};
use faer::sparse::linalg::LuError;
use faer::sparse::linalg::lu::{LuSymbolicParams, NumericLu, SymbolicLu, factorize_symbolic_lu};
use faer::sparse::{SparseColMatRef, SymbolicSparseColMatRef};
use faer::traits::ComplexField;
use faer::{Conj, MatMut, Par};

/// Which entries of a [sparse](crate::Structure::Sparse) Jacobian may be non-zero: a list
/// of `(row, column)` pairs, in the numbering of [`Jacobian`](crate::Jacobian) (the
/// state's unknowns: velocity coordinates first, then force coordinates), given by
/// [`Forces::jacobian_pattern`](crate::Forces::jacobian_pattern).
///
/// Repeated entries count once, the order does not matter, and the diagonal is always
/// stored (the Newton matrix `I − h J` has it). An entry the forces depend on but the
/// pattern misses is refused by the first step that makes the Jacobian
/// ([`StepError::PatternTooSparse`]), as a band that is too narrow is.
///
/// ```
/// use timestep::Pattern;
///
/// // A tridiagonal 3 × 3 pattern.
/// let mut pattern = Pattern::new();
/// for i in 0..3_usize {
///     pattern.extend((i.saturating_sub(1)..(i + 2).min(3)).map(|j| (i, j)));
/// }
/// assert_eq!(pattern.len(), 7);
/// assert!(pattern.entries().any(|entry| entry == (2, 1)));
/// ```
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Pattern {
    entries: Vec<(usize, usize)>,
}

impl Pattern {
    /// An empty pattern.
    ///
    /// ```
    /// assert!(timestep::Pattern::new().is_empty());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Pattern {
            entries: Vec::new(),
        }
    }

    /// Declares that entry `(row, column)` may be non-zero: `f_row` depends on unknown
    /// `column`.
    ///
    /// ```
    /// let mut pattern = timestep::Pattern::new();
    /// pattern.insert(0, 1);
    /// assert_eq!(pattern.entries().collect::<Vec<_>>(), [(0, 1)]);
    /// ```
    #[inline]
    pub fn insert(&mut self, row: usize, column: usize) {
        self.entries.push((row, column));
    }

    /// The entries inserted, as `(row, column)`, in the order inserted (repeats included).
    ///
    /// ```
    /// let pattern: timestep::Pattern = [(1, 0), (0, 0)].into_iter().collect();
    /// assert_eq!(pattern.entries().collect::<Vec<_>>(), [(1, 0), (0, 0)]);
    /// ```
    pub fn entries(&self) -> impl ExactSizeIterator<Item = (usize, usize)> + '_ {
        self.entries.iter().copied()
    }

    /// The number of entries inserted (repeats included).
    ///
    /// ```
    /// let pattern: timestep::Pattern = [(0, 0), (0, 0)].into_iter().collect();
    /// assert_eq!(pattern.len(), 2);
    /// ```
    #[must_use]
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether no entry was inserted.
    ///
    /// ```
    /// assert!(timestep::Pattern::default().is_empty());
    /// ```
    #[must_use]
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    /// Removes every entry, keeping the storage.
    ///
    /// ```
    /// let mut pattern: timestep::Pattern = [(0, 0)].into_iter().collect();
    /// pattern.clear();
    /// assert!(pattern.is_empty());
    /// ```
    pub fn clear(&mut self) {
        self.entries.clear();
    }
}

impl Extend<(usize, usize)> for Pattern {
    fn extend<I: IntoIterator<Item = (usize, usize)>>(&mut self, entries: I) {
        self.entries.extend(entries);
    }
}

impl FromIterator<(usize, usize)> for Pattern {
    fn from_iter<I: IntoIterator<Item = (usize, usize)>>(entries: I) -> Self {
        Pattern {
            entries: entries.into_iter().collect(),
        }
    }
}

/// A pattern in compressed-column form (rows sorted in each column, the diagonal always
/// present), a row-wise index of it, and the column groups of finite differences.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    dim: usize,
    /// Column `j`'s entries are `col_ptr[j]..col_ptr[j + 1]`.
    col_ptr: Vec<usize>,
    /// The row of each entry.
    row_idx: Vec<usize>,
    /// Where each column's diagonal entry is.
    diagonal: Vec<usize>,
    /// Row `i`'s entries are `row_entries[row_ptr[i]..row_ptr[i + 1]]`.
    row_ptr: Vec<usize>,
    /// `(column, offset)` of each entry, row by row.
    row_entries: Vec<(usize, usize)>,
    /// Group `g`'s columns are `group_columns[group_ptr[g]..group_ptr[g + 1]]`.
    group_ptr: Vec<usize>,
    group_columns: Vec<usize>,
}

impl Layout {
    /// The layout of `pattern` (plus the diagonal) for a `dim × dim` matrix.
    ///
    /// # Panics
    ///
    /// If an entry is outside the matrix.
    #[track_caller]
    pub(crate) fn new(dim: usize, pattern: &Pattern) -> Self {
        let mut counts = alloc::vec![1_usize; dim + 1];
        for (row, column) in pattern.entries() {
            assert!(
                row < dim && column < dim,
                "sparsity pattern entry ({row}, {column}) is outside the {dim} × {dim} Jacobian"
            );
            counts[column] += 1;
        }
        let mut col_ptr = alloc::vec![0; dim + 1];
        for j in 0..dim {
            col_ptr[j + 1] = col_ptr[j] + counts[j];
        }
        let mut row_idx = alloc::vec![0; col_ptr[dim]];
        let mut next = col_ptr.clone();
        for j in 0..dim {
            row_idx[next[j]] = j;
            next[j] += 1;
        }
        for (row, column) in pattern.entries() {
            row_idx[next[column]] = row;
            next[column] += 1;
        }
        // Sort and deduplicate each column, compacting.
        let mut compact = Vec::with_capacity(row_idx.len());
        let mut new_ptr = alloc::vec![0; dim + 1];
        for j in 0..dim {
            let rows = &mut row_idx[col_ptr[j]..col_ptr[j + 1]];
            rows.sort_unstable();
            let start = compact.len();
            for &row in rows.iter() {
                if compact.len() == start || compact.last() != Some(&row) {
                    compact.push(row);
                }
            }
            new_ptr[j + 1] = compact.len();
        }
        let (col_ptr, row_idx) = (new_ptr, compact);
        let diagonal = (0..dim)
            .map(|j| {
                let rows = &row_idx[col_ptr[j]..col_ptr[j + 1]];
                col_ptr[j] + rows.binary_search(&j).expect("the diagonal is stored")
            })
            .collect();
        let mut row_ptr = alloc::vec![0; dim + 1];
        for &row in &row_idx {
            row_ptr[row + 1] += 1;
        }
        for i in 0..dim {
            row_ptr[i + 1] += row_ptr[i];
        }
        let mut row_entries = alloc::vec![(0, 0); row_idx.len()];
        let mut next = row_ptr.clone();
        for j in 0..dim {
            let range = col_ptr[j]..col_ptr[j + 1];
            for (at, &row) in range.clone().zip(&row_idx[range]) {
                row_entries[next[row]] = (j, at);
                next[row] += 1;
            }
        }
        let mut layout = Layout {
            dim,
            col_ptr,
            row_idx,
            diagonal,
            row_ptr,
            row_entries,
            group_ptr: Vec::new(),
            group_columns: Vec::new(),
        };
        layout.colour();
        layout
    }

    /// Groups the columns so that no row has entries in two columns of a group (a
    /// distance-2 colouring of the columns), by DSATUR (Brélaz 1979): colour next the
    /// column whose neighbours already use the most colours, then the one with the most
    /// neighbours, then the first; give it the smallest colour they do not use. Plain
    /// greedy colouring in column order takes 7 groups for the 5-point stencil on a
    /// grid, DSATUR the optimal 5.
    fn colour(&mut self) {
        let dim = self.dim;
        const NONE: usize = usize::MAX;
        let mut colour = alloc::vec![NONE; dim];
        let mut stamp = alloc::vec![NONE; dim];
        let mut used = Vec::new();
        let neighbours = Layout::neighbours;
        let mut degree = alloc::vec![0_usize; dim];
        for (j, degree) in degree.iter_mut().enumerate() {
            for k in neighbours(self, j) {
                if stamp[k] != j {
                    stamp[k] = j;
                    *degree += 1;
                }
            }
        }
        let mut saturation = alloc::vec![0_usize; dim];
        let mut heap: BinaryHeap<(usize, usize, Reverse<usize>)> =
            (0..dim).map(|j| (0, degree[j], Reverse(j))).collect();
        stamp.fill(NONE);
        let mut colours = 0;
        while let Some((sat, _, Reverse(j))) = heap.pop() {
            if colour[j] != NONE || sat != saturation[j] {
                continue;
            }
            used.clear();
            used.resize(colours + 1, false);
            for k in neighbours(self, j) {
                if colour[k] != NONE {
                    used[colour[k]] = true;
                }
            }
            let c = used.iter().position(|&u| !u).unwrap_or(colours);
            colour[j] = c;
            colours = colours.max(c + 1);
            // The uncoloured neighbours to which `c` is new gain a colour.
            for k in neighbours(self, j) {
                if colour[k] != NONE || stamp[k] == j {
                    continue;
                }
                stamp[k] = j;
                let already = neighbours(self, k).any(|m| m != j && colour[m] == c);
                if !already {
                    saturation[k] += 1;
                    heap.push((saturation[k], degree[k], Reverse(k)));
                }
            }
        }
        let mut group_ptr = alloc::vec![0; colours + 1];
        for &c in &colour {
            group_ptr[c + 1] += 1;
        }
        for g in 0..colours {
            group_ptr[g + 1] += group_ptr[g];
        }
        let mut next = group_ptr.clone();
        let mut group_columns = alloc::vec![0; dim];
        for (j, &c) in colour.iter().enumerate() {
            group_columns[next[c]] = j;
            next[c] += 1;
        }
        self.group_ptr = group_ptr;
        self.group_columns = group_columns;
    }

    /// The columns sharing a row with column `j` (itself included, repeats too).
    fn neighbours(&self, j: usize) -> impl Iterator<Item = usize> + '_ {
        let rows = &self.row_idx[self.col_ptr[j]..self.col_ptr[j + 1]];
        rows.iter().flat_map(move |&row| {
            self.row_entries[self.row_ptr[row]..self.row_ptr[row + 1]]
                .iter()
                .map(|&(column, _)| column)
        })
    }

    /// The number of stored entries.
    pub(crate) fn len(&self) -> usize {
        self.row_idx.len()
    }

    /// The number of column groups.
    pub(crate) fn groups(&self) -> usize {
        self.group_ptr.len() - 1
    }

    /// The columns of group `group`.
    pub(crate) fn group(&self, group: usize) -> &[usize] {
        &self.group_columns[self.group_ptr[group]..self.group_ptr[group + 1]]
    }

    /// `(row, offset)` of each entry of column `column`.
    pub(crate) fn column(&self, column: usize) -> impl Iterator<Item = (usize, usize)> + '_ {
        let range = self.col_ptr[column]..self.col_ptr[column + 1];
        self.row_idx[range.clone()].iter().copied().zip(range)
    }

    /// `(column, offset)` of each entry of row `row`.
    pub(crate) fn row(&self, row: usize) -> &[(usize, usize)] {
        &self.row_entries[self.row_ptr[row]..self.row_ptr[row + 1]]
    }

    /// Where column `column`'s diagonal entry is.
    pub(crate) fn diagonal(&self, column: usize) -> usize {
        self.diagonal[column]
    }

    /// Where entry `(row, column)` is, if stored.
    #[inline]
    pub(crate) fn offset(&self, row: usize, column: usize) -> Option<usize> {
        let start = self.col_ptr[column];
        self.row_idx[start..self.col_ptr[column + 1]]
            .binary_search(&row)
            .ok()
            .map(|at| start + at)
    }

    fn symbolic(&self) -> SymbolicSparseColMatRef<'_, usize> {
        SymbolicSparseColMatRef::new_checked(self.dim, self.dim, &self.col_ptr, None, &self.row_idx)
    }
}

/// faer's sparse LU of one layout, in `E` (`f64` or `c64`, whatever the state's
/// precision: the factorisation is done in double precision), with the symbolic analysis
/// made once and the buffers of the numeric factorisation and solve kept: a refactorisation
/// allocates only when pivoting makes more fill-in than any before.
pub(crate) struct SparseLu<E: ComplexField> {
    symbolic: SymbolicLu<usize>,
    numeric: NumericLu<usize, E>,
    /// The matrix's values, in the layout's order.
    pub(crate) values: Vec<E>,
    /// A right-hand side.
    pub(crate) rhs: Vec<E>,
    request: StackReq,
    scratch: MemBuffer,
}

impl<E: ComplexField> SparseLu<E> {
    /// The symbolic analysis of `layout` and the buffers of its factorisations.
    ///
    /// # Errors
    ///
    /// [`StepError::OutOfMemory`] when faer cannot allocate them.
    pub(crate) fn new(layout: &Layout) -> Result<Self, StepError> {
        let symbolic = factorize_symbolic_lu(layout.symbolic(), LuSymbolicParams::default())
            .map_err(|_| out_of_memory(layout))?;
        Self::with_symbolic(layout, symbolic)
    }

    /// The same analysis for another precision or field (Radau5's complex system).
    pub(crate) fn like<F: ComplexField>(
        layout: &Layout,
        other: &SparseLu<F>,
    ) -> Result<Self, StepError> {
        Self::with_symbolic(layout, other.symbolic.clone())
    }

    fn with_symbolic(layout: &Layout, symbolic: SymbolicLu<usize>) -> Result<Self, StepError> {
        let request = StackReq::any_of(&[
            symbolic.factorize_numeric_lu_scratch::<E>(Par::Seq, Default::default()),
            symbolic.solve_in_place_scratch::<E>(1, Par::Seq),
        ]);
        let scratch = MemBuffer::try_new(request).map_err(|_| out_of_memory(layout))?;
        Ok(SparseLu {
            symbolic,
            numeric: NumericLu::new(),
            values: alloc::vec![E::zero_impl(); layout.len()],
            rhs: alloc::vec![E::zero_impl(); layout.dim],
            request,
            scratch,
        })
    }

    /// Factors the matrix of `layout` whose values are in `values`.
    ///
    /// # Errors
    ///
    /// [`StepError::SingularJacobian`] when faer finds no entry to pivot on in some column
    /// (which the diagonal, always stored, rules out in practice),
    /// [`StepError::OutOfMemory`] when faer cannot grow its factors. A pivot that is zero
    /// by its value is taken: the solves are then non-finite, which every method checks.
    pub(crate) fn factor(&mut self, layout: &Layout) -> Result<(), StepError> {
        let matrix = SparseColMatRef::new(layout.symbolic(), &self.values);
        let stack = MemStack::new(&mut self.scratch);
        match self.symbolic.factorize_numeric_lu(
            &mut self.numeric,
            matrix,
            Par::Seq,
            stack,
            Default::default(),
        ) {
            Ok(_) => Ok(()),
            Err(LuError::SymbolicSingular { .. }) => Err(StepError::SingularJacobian),
            Err(LuError::Generic(_)) => Err(out_of_memory(layout)),
        }
    }

    /// Solves for the right-hand side in `rhs`, in place, with the last factorisation.
    pub(crate) fn solve(&mut self) {
        let lu = faer::sparse::linalg::lu::LuRef::new_unchecked(&self.symbolic, &self.numeric);
        let n = self.rhs.len();
        let rhs = MatMut::from_column_major_slice_mut(&mut self.rhs, n, 1);
        let stack = MemStack::new(&mut self.scratch);
        lu.solve_in_place_with_conj(Conj::No, rhs, Par::Seq, stack);
    }
}

fn out_of_memory(layout: &Layout) -> StepError {
    StepError::OutOfMemory {
        bytes: (layout.len() as u64).saturating_mul(16),
    }
}

impl<E: ComplexField> Clone for SparseLu<E> {
    fn clone(&self) -> Self {
        SparseLu {
            symbolic: self.symbolic.clone(),
            numeric: self.numeric.clone(),
            values: self.values.clone(),
            rhs: self.rhs.clone(),
            request: self.request,
            scratch: MemBuffer::new(self.request),
        }
    }
}

impl<E: ComplexField> fmt::Debug for SparseLu<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("SparseLu")
            .field("dim", &self.rhs.len())
            .field("entries", &self.values.len())
            .finish_non_exhaustive()
    }
}
