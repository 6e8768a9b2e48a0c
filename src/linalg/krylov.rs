//! [`LinearSolver`]: how an implicit method solves its Newton systems `(I − γJ) x = b`,
//! by LU factorisation of a stored Jacobian or matrix-free by restarted GMRES
//! ([`Gmres`], with its [`Preconditioner`] on a [`Side`]).

/// How the Newton systems `(I − γJ) x = b` of an implicit method are solved.
///
/// - [`Direct`](LinearSolver::Direct) (the default): `J` is stored in the method's
///   [`Structure`](crate::Structure) and `I − γJ` factored by LU (CVODE's dense, band and
///   sparse solvers);
/// - [`Gmres`](LinearSolver::Gmres): restarted GMRES, matrix-free: `J` is never stored,
///   only its products with vectors are formed (CVODE's `SUNLinSol_SPGMR`), for systems
///   too large to factor (a 2-D or 3-D grid of 10⁴–10⁶ unknowns).
///
/// ```
/// use timestep::{Bdf, Gmres, LinearSolver};
///
/// let bdf = Bdf::new().with_linear_solver(LinearSolver::Gmres(Gmres::new()));
/// assert_eq!(bdf.linear_solver(), LinearSolver::Gmres(Gmres::new()));
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum LinearSolver {
    /// LU factorisation of `I − γJ` in the method's structure.
    #[default]
    Direct,
    /// Restarted, preconditioned GMRES with Jacobian–vector products.
    Gmres(Gmres),
}

impl LinearSolver {
    /// Whether this is the direct solver (for serde's `skip_serializing_if`).
    #[must_use]
    pub const fn is_direct(&self) -> bool {
        matches!(self, LinearSolver::Direct)
    }
}

/// The settings of restarted GMRES inside Newton's iteration (Saad and Schultz 1986;
/// CVODE's `SUNLinSol_SPGMR` with `CVodeSetEpsLin`), as CVODE defaults them: at most
/// [`max_dimension`](Gmres::max_dimension) = 5 Krylov iterations (`maxl`), no restart
/// (`max_restarts` = 0), the linear residual's weighted root mean square at most
/// `0.05 · tq₄` (`epslin` times the Newton iteration's own tolerance), no preconditioner.
///
/// Each iteration costs one Jacobian–vector product `J v`: the forces' own
/// ([`Forces::jacobian_times`](crate::Forces::jacobian_times)), or one force evaluation by
/// the directional difference `(f(y + σv) − f(y))/σ`, `σ = 1/‖v‖` in the error weights
/// (CVODE's `cvLsDQJtimes`). Memory: `(max_dimension + 4) · n` numbers, against the
/// stored Jacobian and its LU factors of the direct solver.
///
/// A linear solve that does not reach its tolerance but reduced the residual hands its
/// approximation to Newton's iteration (CVODE's `SUNLS_RES_REDUCED`); one that did not
/// reduce it fails the iteration, which retries at a smaller step.
///
/// ```
/// use timestep::{Gmres, Preconditioner, Side};
///
/// let gmres = Gmres::new()
///     .with_max_dimension(10)
///     .with_restarts(1)
///     .with_preconditioner(Preconditioner::Banded { lower: 1, upper: 1 }, Side::Left);
/// assert_eq!((gmres.max_dimension(), gmres.restarts()), (10, 1));
/// assert_eq!(gmres.side(), Some(Side::Left));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Gmres {
    max_dimension: usize,
    restarts: usize,
    /// The linear tolerance as a fraction of Newton's, in millionths (an integer keeps
    /// the settings `Eq`).
    tolerance_ppm: u32,
    preconditioner: Preconditioner,
    side: Side,
}

impl Gmres {
    /// CVODE's `epslin` default: the linear tolerance is this fraction of Newton's.
    pub const DEFAULT_TOLERANCE_FACTOR: f64 = 0.05;

    /// CVODE's defaults: 5 iterations, no restart, `epslin` 0.05, no preconditioner.
    #[must_use]
    pub const fn new() -> Self {
        Gmres {
            max_dimension: 5,
            restarts: 0,
            tolerance_ppm: 50_000,
            preconditioner: Preconditioner::None,
            side: Side::Left,
        }
    }

    /// At most `max_dimension` Krylov iterations per cycle (CVODE's `maxl`).
    ///
    /// # Panics
    ///
    /// If `max_dimension` is 0.
    #[track_caller]
    #[must_use]
    pub const fn with_max_dimension(self, max_dimension: usize) -> Self {
        assert!(
            max_dimension >= 1,
            "GMRES needs a Krylov dimension of at least 1"
        );
        Gmres {
            max_dimension,
            ..self
        }
    }

    /// Up to `restarts` more cycles from the residual when one does not reach the
    /// tolerance (SPGMR's `max_restarts`; any number, 0 the default).
    #[must_use]
    pub const fn with_restarts(self, restarts: usize) -> Self {
        Gmres { restarts, ..self }
    }

    /// The linear tolerance as `factor` times the Newton iteration's (CVODE's
    /// `CVodeSetEpsLin`; 0.05 by default).
    ///
    /// # Panics
    ///
    /// If `factor` is not finite, or not between 10⁻⁶ and 1.
    #[track_caller]
    #[must_use]
    pub fn with_tolerance_factor(self, factor: f64) -> Self {
        assert!(
            factor.is_finite() && (1e-6..=1.0).contains(&factor),
            "GMRES's tolerance factor must be between 1e-6 and 1"
        );
        Gmres {
            tolerance_ppm: (factor * 1e6) as u32,
            ..self
        }
    }

    /// The same solver preconditioned by `preconditioner` on `side`.
    #[must_use]
    pub const fn with_preconditioner(self, preconditioner: Preconditioner, side: Side) -> Self {
        Gmres {
            preconditioner,
            side,
            ..self
        }
    }

    /// The most Krylov iterations per cycle.
    #[must_use]
    pub const fn max_dimension(&self) -> usize {
        self.max_dimension
    }

    /// The restarts allowed.
    #[must_use]
    pub const fn restarts(&self) -> usize {
        self.restarts
    }

    /// The linear tolerance as a fraction of Newton's.
    #[must_use]
    pub fn tolerance_factor(&self) -> f64 {
        f64::from(self.tolerance_ppm) * 1e-6
    }

    /// The preconditioner.
    #[must_use]
    pub const fn preconditioner(&self) -> Preconditioner {
        self.preconditioner
    }

    /// Whether a matrix is made and factored for it: a banded preconditioner's band.
    pub(crate) const fn stores_matrix(&self) -> bool {
        matches!(self.preconditioner, Preconditioner::Banded { .. })
    }

    /// The side the preconditioner is applied on; `None` without one.
    #[must_use]
    pub const fn side(&self) -> Option<Side> {
        match self.preconditioner {
            Preconditioner::None => None,
            _ => Some(self.side),
        }
    }
}

impl Default for Gmres {
    /// [`Gmres::new`].
    fn default() -> Self {
        Gmres::new()
    }
}

/// A preconditioner `P ≈ I − γJ` for [`Gmres`], set up when the direct solver would
/// factor its matrix (every 20 steps, when `γ` changed by more than 30%, after a failure)
/// and applied at every Krylov iteration.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Preconditioner {
    /// None: GMRES on `I − γJ` itself.
    #[default]
    None,
    /// `I − γJ_band`, `J_band` the band of `J` with `lower` and `upper` diagonals, by
    /// forward differences (one force evaluation per diagonal, as CVODE's `CVBANDPRE`;
    /// entries outside the band are dropped, not refused), factored by the banded LU.
    /// Forces that give an analytic [`Forces::jacobian`](crate::Forces::jacobian) are asked
    /// for the band instead, through a banded view: they must write only the entries it
    /// [`contains`](crate::Jacobian::contains) (writing outside the band panics, as for
    /// any banded Jacobian).
    /// Unknowns of one grid point stored together make `lower = upper = components − 1`
    /// block-diagonal: the reactions of a reaction–diffusion system.
    Banded {
        /// Diagonals below the main one.
        lower: usize,
        /// Diagonals above the main one.
        upper: usize,
    },
    /// The forces' own, [`Forces::precondition`](crate::Forces::precondition); forces
    /// that do not give one stop the run with
    /// [`StepError::NoPreconditioner`](crate::StepError::NoPreconditioner).
    User,
}

/// Which side of `A = I − γJ` the preconditioner `P` multiplies.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "snake_case")
)]
pub enum Side {
    /// `P⁻¹ A x = P⁻¹ b`: the residual tested is the preconditioned one (CVODE's
    /// `SUN_PREC_LEFT`).
    #[default]
    Left,
    /// `A P⁻¹ u = b`, `x = P⁻¹ u`: the residual tested is the true one
    /// (`SUN_PREC_RIGHT`).
    Right,
}
