//! [`Jacobian`]: the matrix forces fill in, and its [`Structure`].

#[cfg(feature = "sparse")]
use super::sparse::Layout;
use super::{Order, banded};
use core::ops::{Index, IndexMut, Range};

/// Which entries of a Jacobian can be non-zero.
///
/// A **banded** Jacobian has non-zeros only on the diagonal, `lower` diagonals below it and
/// `upper` above: unknown `i` is coupled to unknowns `i − lower ..= i + upper` alone, as in
/// a chain of masses, a 1-D grid or a method-of-lines PDE. The unknowns are counted in the
/// order of the crate's matrices: a first-order system's own, and for a second-order state
/// whose velocity and force parts have the same size, each position coordinate followed by
/// its momentum (`x₀, p₀, x₁, p₁, …`), where a chain of masses is banded
/// ([`Structure::chain`]). A band that misses some of the forces' dependences is refused
/// by the first step that makes the Jacobian
/// ([`StepError::BandTooNarrow`](crate::StepError::BandTooNarrow)); a dense Jacobian of
/// more than [`Structure::DENSE_LIMIT`] unknowns is refused before it is allocated. Its LU factorisation costs
/// `O(n · lower · (lower + upper))` instead of `O(n³)`, its storage `O(n · (2·lower + upper))`
/// instead of `O(n²)`, and finite differences estimate it with `lower + upper + 1` force
/// evaluations instead of `n` (columns far enough apart are perturbed together).
///
/// A **sparse** Jacobian (feature `sparse`) has non-zeros only where the forces say,
/// through `Forces::jacobian_pattern`: a 2-D grid, a
/// network, any system of 10⁴–10⁶ unknowns whose couplings no narrow band holds. It is
/// stored in compressed columns and factored by faer's sparse LU (a fill-reducing column
/// order and its symbolic analysis made once, each refactorisation numeric only, in
/// double precision; faer picks its SIMD code by CPU, which the feature `deterministic`
/// does not cover); finite differences perturb together the columns that share no row
/// (a colouring of the pattern: 5 force evaluations for the 5-point stencil on a grid,
/// however large). Its unknowns keep the state's own numbering (never interleaved). A
/// singular sparse matrix is not reported as
/// [`SingularJacobian`](crate::StepError::SingularJacobian) (faer takes a zero pivot):
/// its solves are non-finite, which the methods report as such. A
/// pattern that misses some of the forces' dependences is refused by the first step that
/// makes the Jacobian ([`StepError::PatternTooSparse`](crate::StepError::PatternTooSparse)),
/// forces that give no pattern by the first step
/// ([`StepError::NoSparsityPattern`](crate::StepError::NoSparsityPattern)), and without the
/// feature `sparse` every implicit method refuses it
/// ([`StepError::SparseUnavailable`](crate::StepError::SparseUnavailable)): the variant is
/// there in every build, so that matching on it or reading saved settings never depends
/// on another crate's choice of features.
///
/// ```
/// use timestep::Structure;
///
/// let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
/// assert_eq!(tridiagonal.bandwidth(), 3);
/// assert_eq!(Structure::Dense.bandwidth(), usize::MAX);
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case", deny_unknown_fields)
)]
pub enum Structure {
    /// Any entry may be non-zero.
    #[default]
    Dense,
    /// Non-zeros only from `lower` diagonals below the main one to `upper` above it:
    /// `Jᵢⱼ = 0` unless `j − upper ≤ i ≤ j + lower`.
    Banded {
        /// Diagonals below the main one.
        lower: usize,
        /// Diagonals above the main one.
        upper: usize,
    },
    /// Non-zeros only at the entries the forces' pattern lists
    /// (`Forces::jacobian_pattern`), and on the diagonal.
    /// Needs the feature `sparse`.
    Sparse,
}

impl Structure {
    /// The most unknowns a [dense](Structure::Dense) Jacobian may have: 4096, a matrix of
    /// 128 MiB in `f64` whose LU factorisation takes `⅔ n³ ≈ 4.6·10¹⁰` operations, seconds
    /// per factorisation. A larger system is refused
    /// ([`StepError::DenseTooLarge`](crate::StepError::DenseTooLarge)) before anything is
    /// allocated, instead of an allocation that aborts the process (8·10¹⁰ bytes at 10⁵
    /// unknowns) or a factorisation that runs for hours (2·10⁴): give it a
    /// [band](Structure::Banded) (a chain, a grid: [`chain`](Structure::chain)).
    pub const DENSE_LIMIT: usize = 4096;

    /// The band of a chain of bodies, each with `components` position coordinates (1 on a
    /// line, 3 in space), whose forces couple each body to the bodies up to `reach` places
    /// away along the chain (1: nearest neighbours), in a second-order state that lists
    /// its positions body by body (a [`Particles`](crate::Particles) of `n` bodies, a
    /// `Vec` of positions and one of momenta).
    ///
    /// The crate's matrices take a second-order state's unknowns interleaved, position
    /// coordinate `k` then its momentum (`x₀, p₀, x₁, p₁, …`) whenever the state's
    /// velocity and force parts have the same size: each position's rate is its
    /// momentum's velocity, the next column, and each momentum's rate reaches
    /// `2·components·reach + 2·components − 1` columns back (the first position
    /// coordinate of the body `reach` places before) and
    /// `2·components·reach + 2·components − 2` forward (the last momentum coordinate of
    /// the body `reach` places after, for forces that depend on velocities). A band
    /// narrower than the forces' reach is refused by the first step that makes the
    /// Jacobian ([`StepError::BandTooNarrow`](crate::StepError::BandTooNarrow)). Forces
    /// index the [`Jacobian`] by the state's own order all the same.
    ///
    /// # Panics
    ///
    /// If `components` is 0.
    ///
    /// ```
    /// use timestep::Structure;
    ///
    /// // Masses on a line, springs between neighbours.
    /// assert_eq!(Structure::chain(1, 1), Structure::Banded { lower: 3, upper: 2 });
    /// // Beads in space, springs between neighbours: 22 force evaluations per
    /// // finite-difference Jacobian, however long the chain.
    /// assert_eq!(Structure::chain(3, 1).bandwidth(), 22);
    /// ```
    #[track_caller]
    #[must_use]
    pub const fn chain(components: usize, reach: usize) -> Structure {
        assert!(
            components > 0,
            "a body of a chain has at least one coordinate"
        );
        let span = 2 * components * (reach + 1);
        Structure::Banded {
            lower: span - 1,
            upper: span - 2,
        }
    }

    /// The number of diagonals that may be non-zero, `lower + upper + 1` (`usize::MAX` when
    /// dense or sparse): how many force evaluations finite differences need at most
    /// (a sparse pattern's colouring decides its own).
    #[inline]
    #[must_use]
    pub fn bandwidth(self) -> usize {
        match self {
            Structure::Dense | Structure::Sparse => usize::MAX,
            Structure::Banded { lower, upper } => lower.saturating_add(upper).saturating_add(1),
        }
    }

    /// The structure to store for a `dim × dim` matrix: a band that covers the whole matrix
    /// is dense.
    pub(crate) fn for_dim(self, dim: usize) -> Self {
        match self {
            Structure::Banded { lower, upper } if lower < dim && upper < dim => self,
            Structure::Sparse => self,
            _ => Structure::Dense,
        }
    }

    /// The rows that may be non-zero in column `j`.
    #[inline]
    pub(crate) fn rows_of_column(self, j: usize, dim: usize) -> Range<usize> {
        match self {
            // A sparse matrix lists its own (`Layout`).
            Structure::Dense | Structure::Sparse => 0..dim,
            Structure::Banded { lower, upper } => j.saturating_sub(upper)..(j + lower + 1).min(dim),
        }
    }

    /// The columns that may be non-zero in row `i`.
    #[inline]
    pub(crate) fn columns_of_row(self, i: usize, dim: usize) -> Range<usize> {
        match self {
            Structure::Dense | Structure::Sparse => 0..dim,
            Structure::Banded { lower, upper } => i.saturating_sub(lower)..(i + upper + 1).min(dim),
        }
    }
}

/// A square matrix `J[(i, j)] = ∂fᵢ/∂yⱼ` that forces fill in for implicit methods.
///
/// Indices follow the coordinates of the state's [`Derivative`](crate::Derivative):
/// velocity coordinates first, then force coordinates, whatever order the matrix stores
/// them in ([`Structure`]). For a
/// [`Particle`](crate::Particle) on a line, index 0 is the position (row: its rate, the
/// velocity) and index 1 the momentum (row: its rate, the force). For a first-order system
/// (`Vec<f64>`, arrays) index `i` is `yᵢ`. Every entry starts at 0. When the implicit method
/// was told the Jacobian is [banded](Structure::Banded), only entries inside the band exist,
/// and when [sparse](Structure::Sparse) only the entries of the forces' pattern and the
/// diagonal: indexing outside them panics ([`contains`](Jacobian::contains) says which
/// exist).
///
/// # Example
///
/// ```
/// use timestep::Jacobian;
///
/// let mut entries = [0.0_f64; 4];
/// let mut jacobian = Jacobian::new(&mut entries, 2);
/// jacobian[(1, 0)] = -15.0;
/// assert_eq!(jacobian.dim(), 2);
/// assert_eq!(entries, [0.0, 0.0, -15.0, 0.0]);
/// ```
#[derive(Debug)]
pub struct Jacobian<'a, T> {
    entries: &'a mut [T],
    dim: usize,
    /// Whether entry `(i, j)` is `entries[i · dim + j]` (dense, in the unknowns' own
    /// order; `entries` then holds exactly `dim²`): decided once here, so that the
    /// forces' writes skip the structure and order dispatch ([`Jacobian::offset`]).
    row_major: bool,
    structure: Structure,
    order: Order,
    #[cfg(feature = "sparse")]
    layout: Option<&'a Layout>,
}

impl<'a, T> Jacobian<'a, T> {
    /// A dense `dim × dim` matrix over `entries`, row by row.
    ///
    /// A `dim` of 0 is an empty matrix (every index panics); entries past `dim²` are
    /// never touched.
    ///
    /// # Panics
    ///
    /// If `entries` holds fewer than `dim²` values, or `dim²` overflows `usize`.
    #[track_caller]
    #[must_use]
    pub fn new(entries: &'a mut [T], dim: usize) -> Self {
        let len = entries.len();
        assert!(
            dim.checked_mul(dim).is_some_and(|needed| len >= needed),
            "a {dim} × {dim} Jacobian needs {dim}² entries, got {len}"
        );
        Jacobian::over(entries, dim, Structure::Dense, Order::Natural)
    }

    /// A view of storage laid out for `structure`, rows in `order` (the crate's own
    /// matrices).
    pub(crate) fn over(
        entries: &'a mut [T],
        dim: usize,
        structure: Structure,
        order: Order,
    ) -> Self {
        let row_major = structure == Structure::Dense && order == Order::Natural;
        let entries = if row_major {
            &mut entries[..dim * dim]
        } else {
            entries
        };
        Jacobian {
            entries,
            dim,
            row_major,
            structure,
            order,
            #[cfg(feature = "sparse")]
            layout: None,
        }
    }

    /// A view of a sparse matrix's entries, laid out by `layout`.
    #[cfg(feature = "sparse")]
    pub(crate) fn over_sparse(entries: &'a mut [T], dim: usize, layout: &'a Layout) -> Self {
        Jacobian {
            entries,
            dim,
            row_major: false,
            structure: Structure::Sparse,
            order: Order::Natural,
            layout: Some(layout),
        }
    }

    /// The number of rows (and columns).
    #[must_use]
    pub fn dim(&self) -> usize {
        self.dim
    }

    /// Which entries exist.
    #[must_use]
    pub fn structure(&self) -> Structure {
        self.structure
    }

    /// Whether entry `(row, col)` exists: inside the matrix, and inside the band if banded
    /// (in the pattern, or on the diagonal, if sparse).
    ///
    /// ```
    /// let mut entries = [0.0_f64; 4];
    /// let jacobian = timestep::Jacobian::new(&mut entries, 2);
    /// assert!(jacobian.contains((1, 0)) && !jacobian.contains((2, 0)));
    /// ```
    #[inline]
    #[must_use]
    pub fn contains(&self, (row, col): (usize, usize)) -> bool {
        #[cfg(feature = "sparse")]
        if self.structure == Structure::Sparse {
            return row < self.dim
                && col < self.dim
                && self
                    .layout
                    .is_some_and(|layout| layout.offset(row, col).is_some());
        }
        row < self.dim
            && col < self.dim
            && self
                .structure
                .rows_of_column(self.order.row(col), self.dim)
                .contains(&self.order.row(row))
    }

    /// Where entry `(row, col)` is stored. A dense matrix in the unknowns' own order (every
    /// analytic Jacobian of a first-order system) takes one multiply-add and the bounds
    /// checks, inlined into the forces' writes: through the general path below, out of
    /// line, Robertson's 7 entries cost 196 instructions a Jacobian (callgrind,
    /// BENCHMARKS.md "Cheap analytic Jacobian writes"), against 57 for all of rodas.f's
    /// `JAC`.
    #[track_caller]
    #[inline]
    fn offset(&self, (row, col): (usize, usize)) -> usize {
        if self.row_major && row < self.dim && col < self.dim {
            return row * self.dim + col;
        }
        self.offset_checked((row, col))
    }

    /// [`offset`](Jacobian::offset) through the structure and order, refusing an entry
    /// the matrix does not store.
    ///
    /// # Panics
    ///
    /// If [`contains`](Jacobian::contains) does not hold.
    #[track_caller]
    #[inline(never)]
    fn offset_checked(&self, (row, col): (usize, usize)) -> usize {
        assert!(
            self.contains((row, col)),
            "Jacobian index ({row}, {col}) is outside the {} × {} matrix{}",
            self.dim,
            self.dim,
            match self.structure {
                Structure::Dense => "",
                Structure::Banded { .. } => " or its band",
                Structure::Sparse => " or its sparsity pattern (Forces::jacobian_pattern)",
            }
        );
        let (row, col) = (self.order.row(row), self.order.row(col));
        match self.structure {
            Structure::Dense => row * self.dim + col,
            Structure::Banded { lower, upper } => banded::index(row, col, lower, upper),
            #[cfg(feature = "sparse")]
            Structure::Sparse => self
                .layout
                .and_then(|layout| layout.offset(row, col))
                .expect("checked by `contains`"),
            #[cfg(not(feature = "sparse"))]
            Structure::Sparse => unreachable!("no sparse Jacobian without the feature"),
        }
    }
}

impl<T> Index<(usize, usize)> for Jacobian<'_, T> {
    type Output = T;

    #[track_caller]
    #[inline]
    fn index(&self, index: (usize, usize)) -> &T {
        &self.entries[self.offset(index)]
    }
}

impl<T> IndexMut<(usize, usize)> for Jacobian<'_, T> {
    #[track_caller]
    #[inline]
    fn index_mut(&mut self, index: (usize, usize)) -> &mut T {
        let offset = self.offset(index);
        &mut self.entries[offset]
    }
}
