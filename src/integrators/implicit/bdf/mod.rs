//! The variable-order, variable-step BDF (orders 1 to 5) in fixed-leading-coefficient
//! Nordsieck form, with CVODE's error test, order selection, Newton iteration and
//! Jacobian and factorisation reuse.
//!
//! - `coefficients.rs`: the formulas' coefficients and test quantities from the step
//!   history, as data;
//! - `control.rs`: the step-size and order control and the reuse rules;
//! - `workspace.rs`: the Nordsieck array's operations and the Newton iteration;
//! - `tape.rs`: the linear map between accepted arrays, for the adjoint;
//! - `adaptive.rs`: CVODE's step as an [`AdaptiveMethod`](crate::control::AdaptiveMethod),
//!   and the dense output.

mod adaptive;
mod coefficients;
mod control;
pub(crate) mod tape;
mod workspace;

pub use workspace::BdfWorkspace;

use crate::{LinearSolver, Structure};

/// The variable-order, variable-step backward differentiation formulas, orders 1 to 5, as
/// CVODE implements them (Hindmarsh et al., "SUNDIALS: Suite of nonlinear and
/// differential/algebraic equation solvers", ACM TOMS 31 (2005) 363–396, §2.1, and the
/// CVODE user guide's "Mathematical considerations"), for stiff systems, large ones
/// included, under error control ([`Adaptive`](crate::adaptive::Adaptive)).
///
/// The solution's history is a Nordsieck array `zⱼ = hʲ y⁽ʲ⁾(tₙ)/j!`, `j = 0 … q`
/// (Nordsieck 1962; Byrne and Hindmarsh, ACM TOMS 1 (1975) 71–96). A step of `h` predicts
/// it with Pascal's triangle and corrects it by `lⱼ Δ`, with `l` the coefficients of the
/// fixed-leading-coefficient BDF of order `q` at the last `q` steps (Jackson and
/// Sacks-Davis, ACM TOMS 6 (1980) 295–318) and `Δ` the solution of
///
/// ```text
/// Δ = γ f(tₙ, y₍₀₎ + Δ) − z₁₍₀₎/l₁,      γ = h/l₁
/// ```
///
/// by Newton's method with `I − γJ`. As CVODE:
///
/// - the Newton iteration takes at most 3 iterations and stops once `‖δ‖ min(1, ρ) ≤
///   0.1/tq₂` (`ρ` its estimated rate of convergence), and gives up when a correction
///   grows by more than 2; `I − γJ` is factored anew every 20 steps, when `γ` changed by
///   more than 30% or after a failure; the Jacobian `J` is evaluated anew every 51 steps,
///   after a failed iteration, or when the iteration failed with an old one;
/// - the local error, `tq₂ ‖Δ‖` (weighted root mean square with `1/(rtol |yₙ₋₁| + atol)`),
///   must be at most 1; a failure retries at `η = 1/((6 err)^(1/(q+1)) + 10⁻⁶)` (between
///   0.1 and 0.2 from the second failure), and after three the order falls (at order 1,
///   the array restarts from the rate);
/// - every `q + 1` steps the order may change: the next step is the largest that the
///   error estimates at orders `q − 1`, `q` and `q + 1` allow (biased by 6, 6 and 10); a
///   change by less than 1.5 is not made, growth is at most 10 (10⁴ after the first
///   step), and a step after a failure does not grow;
/// - a failed Newton iteration (or forces that are not finite, or a singular matrix)
///   retries at a quarter of the step.
///
/// The run's [`Controller`](crate::control::Controller) is not used. The first step is the
/// driver's guess for an order-1 method (Hairer's), unless given.
///
/// The dense output is the Nordsieck polynomial `Σⱼ zⱼ ((t − tₙ)/h)ʲ` (CVODE's
/// `CVodeGetDky`), of order `q` inside the step, with no force evaluation.
///
/// - **Order**: variable, 1 to 5 (at most [`max_order`](Bdf::max_order)), starting at 1.
/// - **Stability**: orders 1 and 2 are A-stable, orders 3 to 5 A(α)-stable with α = 86°,
///   73° and 51° (Hairer–Wanner II, V.2): stiff components on the negative real axis are
///   damped at any step, oscillatory ones with eigenvalues near the imaginary axis hold
///   the order low.
/// - **Cost** per step: about 1.4 force evaluations (one per Newton iteration), a
///   factorisation every few steps, a Jacobian every few tens: few evaluations per step at
///   low accuracy, the method for large stiff systems (CVODE's domain). A Jacobian by
///   finite differences costs `n` force evaluations (one per diagonal of a
///   [band](Structure::Banded), one per colour of a [sparse](Structure::Sparse) pattern), or
///   one call to [`Forces::jacobian`](crate::Forces::jacobian).
///
/// **Mass matrices and index-1 DAEs.** Forces that give a constant mass matrix `M`
/// ([`Forces::mass_matrix`](crate::Forces::mass_matrix), or a closure in
/// [`WithMass`](crate::WithMass); dense, banded or sparse, in the layout of the
/// [`Structure`]) make it solve `M y' = f(t, y)`, as DASSL's BDF solves index-1 systems
/// (Brenan, Campbell and Petzold, "Numerical Solution of Initial-Value Problems in
/// Differential-Algebraic Equations", SIAM 1996, ch. 3): the corrector is
/// `M (y − a) − γ f(t, y) = 0` with `a = y₍₀₎ − z₁₍₀₎/l₁` (with `M = I`, the equation
/// above), solved by Newton's method with `M − γJ`; the history, the error test and the
/// order selection are unchanged. `M` may be singular: its zero rows are algebraic
/// equations `0 = fᵢ(t, y)`, which each step's end satisfies to the Newton iteration's
/// tolerance (a linear one, with an exact Jacobian row, to rounding: an algebraic row of
/// an older factorisation is the current one times `γ_f/γ`, and is used as such, not
/// rescaled as CVODE rescales the rest). The Newton iteration's tolerance is CVODE's at
/// order 1 at most (0.2; see `control.rs`): the error it leaves in an algebraic unknown
/// does not shrink with the next step. **Index 1** is solved as is; **index 2** in
/// Hessenberg form when told which unknowns are of index 2
/// ([`with_index_two`](Bdf::with_index_two): left out of the error test, as IDA's
/// `IDASetSuppressAlg`); untold, a start whose algebraic equations do not determine the
/// algebraic unknowns (index 2 or 3) stops the run with
/// [`StepError::IndexAboveOne`](crate::StepError::IndexAboveOne). Index 3 is not solved
/// (see [`with_index_two`](Bdf::with_index_two)): use
/// [`Radau5::with_higher_index`](crate::Radau5::with_higher_index). The start must satisfy
/// the algebraic equations: one Newton step on them, at the start's Jacobian (one more
/// Jacobian per run), may move no algebraic unknown by more than its tolerance (at index
/// 2, their residuals are judged instead: see [`with_index_two`](Bdf::with_index_two)), or
/// the run stops with [`StepError::InconsistentStart`](crate::StepError::InconsistentStart);
/// [`Radau5::consistent_start`](crate::Radau5::consistent_start) completes a start. The
/// history starts from `z₁ = h f(t₀, y₀)`, the slope of `y' = f`: with `M ≠ I` the first
/// step's error estimate is pessimistic and its step short (the step grows by up to 10⁴
/// after it). With [GMRES](LinearSolver::Gmres), whose operator is `I − γJ`, a mass
/// matrix other than the identity (read as a diagonal: forces that write off it panic,
/// as outside any band) stops the run with
/// [`StepError::MassWithGmres`](crate::StepError::MassWithGmres).
///
/// ```
/// use timestep::{Adaptive, Bdf, Jacobian, Tolerances, WithMass};
///
/// // y₁' = −y₁ + y₂, 0 = y₂ − sin t (M = diag(1, 0)) from y = (0, 0):
/// // y₂ = sin t, y₁ = (sin t − cos t + e⁻ᵗ)/2.
/// let dae = WithMass::new(
///     |y: &[f64; 2], t: f64| [-y[0] + y[1], y[1] - t.sin()],
///     |m: &mut Jacobian<f64>| m[(0, 0)] = 1.0,
/// );
/// let mut y = [0.0, 0.0];
/// Adaptive::new(Bdf::new())
///     .with_tolerances(Tolerances::new(1e-8, 1e-8))
///     .solve(&mut y, &dae, 0.0, 2.0)?;
/// let exact = (2f64.sin() - 2f64.cos() + (-2f64).exp()) / 2.0;
/// assert!((y[0] - exact).abs() < 1e-6 && (y[1] - 2f64.sin()).abs() < 1e-6);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
///
/// What it does with unusual input: negative spans integrate backwards; forces that are
/// infinite or `NaN`, a singular `I − γJ` and a diverging Newton iteration make an attempt
/// retry at a quarter of the step, and a run whose forces stay non-finite stops with
/// [`AdaptiveError::NonFiniteError`](crate::AdaptiveError::NonFiniteError); a failed
/// attempt leaves the state unchanged. A coordinate whose tolerance scale is zero (zero
/// there with an absolute tolerance of zero) stops the run with
/// [`StepError::ZeroScale`](crate::StepError::ZeroScale).
///
/// # Example
///
/// Robertson's chemical kinetics as SUNDIALS' example `cvRoberts_dns` sets it up, to
/// `t = 4·10¹⁰`:
///
/// ```
/// use timestep::{Adaptive, Bdf, ComponentTolerances};
///
/// let robertson = |y: &[f64; 3], _t: f64| {
///     let (a, b) = (0.04 * y[0], 1e4 * y[1] * y[2]);
///     let c = 3e7 * y[1] * y[1];
///     [b - a, a - b - c, c]
/// };
/// let mut y = [1.0, 0.0, 0.0];
/// let statistics = Adaptive::new(Bdf::new())
///     .with_component_tolerances(ComponentTolerances::new(vec![1e-4; 3], vec![1e-8, 1e-14, 1e-6]))
///     .solve(&mut y, &robertson, 0.0, 4e10)?;
/// // y₁(4·10¹⁰) = 5.208345·10⁻⁸ (CVODE ends at 6.93·10⁻⁸ at this tolerance).
/// assert!((y[0] - 5.208345e-8).abs() < 0.33 * 5.208345e-8);
/// assert!(statistics.accepted < 700);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
///
/// With the `serde` feature it is saved as its settings,
/// `{"structure": "dense", "max_order": 5}`, with `"index_two": k` when
/// [`with_index_two`](Bdf::with_index_two) set it (unknown fields, and orders outside 1 to
/// 5, refused).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Bdf {
    structure: Structure,
    #[cfg_attr(feature = "serde", serde(deserialize_with = "checked_order"))]
    max_order: u8,
    #[cfg_attr(
        feature = "serde",
        serde(default, skip_serializing_if = "LinearSolver::is_direct")
    )]
    linear_solver: LinearSolver,
    #[cfg_attr(
        feature = "serde",
        serde(
            default = "no_index_two",
            skip_serializing_if = "is_no_index_two",
            deserialize_with = "checked_index_two"
        )
    )]
    index_two: usize,
}

/// No unknown of index 2 (the default, not written when saved: settings saved before it
/// existed read the same).
#[cfg(feature = "serde")]
const fn no_index_two() -> usize {
    usize::MAX
}

#[cfg(feature = "serde")]
#[allow(clippy::trivially_copy_pass_by_ref)] // serde's signature
const fn is_no_index_two(index_two: &usize) -> bool {
    *index_two == usize::MAX
}

/// A saved `index_two` of 0 is refused, as [`Bdf::with_index_two`] refuses it.
#[cfg(feature = "serde")]
fn checked_index_two<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<usize, D::Error> {
    let index_two = <usize as serde::Deserialize>::deserialize(deserializer)?;
    if index_two == 0 {
        return Err(serde::de::Error::custom(
            "a BDF's index_two must be at least 1 (0 leaves no unknown in its error test)",
        ));
    }
    Ok(index_two)
}

/// A saved `max_order` outside 1 to 5 is refused.
#[cfg(feature = "serde")]
fn checked_order<'de, D: serde::Deserializer<'de>>(deserializer: D) -> Result<u8, D::Error> {
    let order = <u8 as serde::Deserialize>::deserialize(deserializer)?;
    if (1..=coefficients::MAX_ORDER as u8).contains(&order) {
        Ok(order)
    } else {
        Err(serde::de::Error::custom(format_args!(
            "a BDF's max_order must be between 1 and 5, got {order}"
        )))
    }
}

impl Bdf {
    /// The highest order a BDF can take: 5 (order 6 and beyond are not zero-stable at
    /// variable steps in practice, and not A(α)-stable for a useful α).
    pub const MAX_ORDER: usize = coefficients::MAX_ORDER;

    /// The BDF with a dense Jacobian and orders up to 5.
    ///
    /// ```
    /// use timestep::{Bdf, Structure};
    ///
    /// let bdf = Bdf::new();
    /// assert_eq!(bdf.structure(), Structure::Dense);
    /// assert_eq!(bdf.max_order(), 5);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Bdf {
            structure: Structure::Dense,
            max_order: coefficients::MAX_ORDER as u8,
            linear_solver: LinearSolver::Direct,
            index_two: usize::MAX,
        }
    }

    /// The same method, told which entries of the Jacobian can be non-zero: a
    /// [banded](Structure::Banded) Jacobian costs one force evaluation per diagonal with
    /// finite differences, and its factorisations work inside the band. An analytic
    /// Jacobian ([`Forces::jacobian`](crate::Forces::jacobian)) may only write the band's
    /// entries.
    ///
    /// ```
    /// use timestep::{Bdf, Structure};
    ///
    /// let banded = Bdf::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// assert_eq!(banded.structure().bandwidth(), 3);
    /// ```
    #[must_use]
    pub const fn with_structure(self, structure: Structure) -> Self {
        Bdf { structure, ..self }
    }

    /// The same method with orders up to `max_order` (CVODE's `CVodeSetMaxOrd`): 1 is
    /// backward Euler with error control, 2 the A-stable BDF2.
    ///
    /// # Panics
    ///
    /// If `max_order` is not between 1 and [`MAX_ORDER`](Bdf::MAX_ORDER).
    ///
    /// ```
    /// use timestep::Bdf;
    ///
    /// assert_eq!(Bdf::new().with_max_order(2).max_order(), 2);
    /// ```
    #[track_caller]
    #[must_use]
    pub const fn with_max_order(self, max_order: usize) -> Self {
        assert!(
            max_order >= 1 && max_order <= coefficients::MAX_ORDER,
            "a BDF's order must be between 1 and 5"
        );
        Bdf {
            max_order: max_order as u8,
            ..self
        }
    }

    /// The same method solving its Newton systems by `linear_solver`: the
    /// [direct](LinearSolver::Direct) LU of its [`Structure`] (the default), or
    /// matrix-free [GMRES](LinearSolver::Gmres) (CVODE's `CVodeSetLinearSolver` with
    /// `SUNLinSol_SPGMR`). With GMRES the structure is not used: no Jacobian is stored,
    /// only a [banded preconditioner](crate::Preconditioner::Banded)'s band; the
    /// preconditioner is set up when the direct solver would factor (every 20 steps, a
    /// change of `γ` by more than 30%, a failure), its band evaluated when the direct
    /// solver would evaluate its Jacobian.
    ///
    /// ```
    /// use timestep::{Adaptive, Bdf, Gmres, LinearSolver, Tolerances};
    ///
    /// // Stiff decay towards cos t, by GMRES on its 1 × 1 Newton systems.
    /// let bdf = Bdf::new().with_linear_solver(LinearSolver::Gmres(Gmres::new()));
    /// let mut y = vec![0.0];
    /// let statistics = Adaptive::new(bdf)
    ///     .with_tolerances(Tolerances::new(1e-8, 1e-8))
    ///     .solve(&mut y, &|y: &Vec<f64>, t: f64| vec![-1e4 * (y[0] - t.cos())], 0.0, 1.0)?;
    /// assert!((y[0] - 1f64.cos()).abs() < 1e-3);
    /// assert!(statistics.linear_iterations > 0 && statistics.decompositions == 0);
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    #[must_use]
    pub const fn with_linear_solver(self, linear_solver: LinearSolver) -> Self {
        Bdf {
            linear_solver,
            ..self
        }
    }

    /// The same method for a differential-algebraic system of index 2 in Hessenberg form
    /// (`M y' = f`, `M` singular, the algebraic equations `0 = g(y)` not containing the
    /// unknowns they determine), its unknowns ordered by index: `0..index_two` of index 0
    /// or 1, `index_two..` of index 2 (the multipliers; radau5.f's `NIND1`, `NIND2`, as
    /// [`Radau5::with_higher_index`](crate::Radau5::with_higher_index)`(index_two, n)`).
    ///
    /// What changes (Brenan, Campbell and Petzold, "Numerical Solution of Initial-Value
    /// Problems in Differential-Algebraic Equations", SIAM 1996, ch. 3 and 5, and
    /// IDA's `IDASetSuppressAlg`): the index-2 unknowns are left out of the error test and
    /// of the order selection's estimates, whose norms still divide by all `n` unknowns
    /// (a `k`-step BDF converges at order `k` for them at index 2, but their local error
    /// estimate is `O(1/h)` times the others', and would hold the step down for nothing);
    /// in the Newton iteration's convergence test their tolerance is divided by `|h|`
    /// (radau5.f's `SCAL(I)/HHFAC`: their corrections are `1/h` times the rest's); and
    /// with a factorisation made at `γ_f`, their part of a Newton update is taken times
    /// `γ_f/γ` (the system is `γ`-free in `γ λ`). The start is checked against the
    /// algebraic equations by their residuals (they do not contain the index-2 unknowns,
    /// so there is no Newton step on them to measure it by): an equation `0 = fᵢ(t₀, y₀)`
    /// whose residual needs, to first order, some unknown moved by more than its
    /// tolerance (`|fᵢ| > Σⱼ |∂fᵢ/∂yⱼ| scaleⱼ`) stops the run with
    /// [`StepError::InconsistentStart`](crate::StepError::InconsistentStart) naming it;
    /// the hidden constraints (the algebraic equations' derivatives along the solution)
    /// are not checked, which would take derivatives of the equations the forces do not
    /// give: the caller gives a start that satisfies them. Weighing their
    /// error by `|h|` in the error test instead (radau5.f's choice for Radau5) cost the
    /// pendulum of the `pendulum_dae` example 1.65 times the steps at rtol 10⁻⁸ (4500
    /// against 2726) for a period error of 2.6·10⁻⁷ against 3.7·10⁻⁷.
    ///
    /// **Restarts.** A new solve from the end of the last starts the BDF again at order
    /// 1, where the algebraic equations hold only to the last Newton iteration's
    /// tolerance; at index 2 the differential unknowns must jump back onto them in one
    /// step, an error no shorter step reduces, and the start check refuses such a start
    /// when it is off by more than its tolerance (pendulum solves chained a time unit at a
    /// time at rtol 10⁻⁶: refused at t = 2627, the velocity constraint off by 4·10⁻⁶).
    /// Solve a long run in one call, with its sample times and events (events that only
    /// report leave the BDF's history whole: [`Event`](crate::adaptive::Event)); to t = 10⁴
    /// the pendulum at index 2 holds `x² + y² = 1` to 6.2·10⁻⁴ at rtol 10⁻⁸ (Radau5 at
    /// index 2: 6.8·10⁻⁴), or use
    /// [`Radau5::with_higher_index`](crate::Radau5::with_higher_index), whose start
    /// weighs the index-2 error by `|h|`.
    ///
    /// Index 3 is not offered. With variable steps the BDF's index-3 solutions need not
    /// converge: a step change makes an error of `O(1)` in the index-3 unknowns and
    /// `O(1/h)` ones can follow (Gear, Leimkuhler and Gupta, "Automatic integration of
    /// Euler–Lagrange equations with constraints", J. Comput. Appl. Math. 12–13 (1985)
    /// 77–90; Brenan, Campbell and Petzold, ch. 3). Measured on the pendulum at index 3
    /// (velocities of index 2, `λ` of index 3, their Newton tolerances divided by `|h|`
    /// and `h²`) to t = 10 at rtol 10⁻⁶, 10⁻⁸, 10⁻¹⁰: left out of the error test, the
    /// period was off by 5.5·10⁻⁵, 7.2·10⁻⁶, 5.1·10⁻⁸ and the velocities off their
    /// constraint `x vx + y vy = 0` by 4.7·10⁻³, 6.4·10⁻⁴, 6.5·10⁻⁵ (at index 2: 6.0·10⁻⁵,
    /// 3.7·10⁻⁷, 2.3·10⁻⁸ and 7.1·10⁻⁶, 6.7·10⁻⁸, 4.7·10⁻¹⁰); weighed by `|h|` and `h²` in
    /// the error test (radau5.f), off by 6.0·10⁻⁴, 2.8·10⁻⁶, 2.6·10⁻⁵ and 5.5·10⁻³,
    /// 4.4·10⁻⁴, 2.2·10⁻², no better at a tighter tolerance. Reduce an index-3 system to
    /// index 2 (the velocity constraint, or Gear–Gupta–Leimkuhler's stabilised form) or
    /// solve it with [`Radau5::with_higher_index`](crate::Radau5::with_higher_index).
    ///
    /// `index_two` at or past the number of unknowns means none is of index 2 (the
    /// default, `usize::MAX`). The unknowns from `index_two` on are left out of the error
    /// test whatever the mass matrix: on an ODE, or on unknowns of index 0 or 1, that
    /// leaves their errors unwatched.
    ///
    /// # Panics
    ///
    /// If `index_two` is 0: no unknown would be left for the error test, and every step
    /// would pass it.
    ///
    /// ```
    /// use timestep::{Adaptive, Bdf, Jacobian, Tolerances, WithMass};
    ///
    /// // y' = −y + z, 0 = y − sin t (index 2: z is not in the constraint), from y = 0,
    /// // z = 1 (z = y' + y = cos t + sin t).
    /// let dae = WithMass::new(
    ///     |u: &[f64; 2], t: f64| [-u[0] + u[1], u[0] - t.sin()],
    ///     |m: &mut Jacobian<f64>| m[(0, 0)] = 1.0,
    /// );
    /// let mut u = [0.0, 1.0];
    /// Adaptive::new(Bdf::new().with_index_two(1))
    ///     .with_tolerances(Tolerances::new(1e-8, 1e-8))
    ///     .solve(&mut u, &dae, 0.0, 2.0)?;
    /// let z = 2f64.cos() + 2f64.sin();
    /// assert!((u[0] - 2f64.sin()).abs() < 1e-8 && (u[1] - z).abs() < 1e-5);
    /// assert_eq!(Bdf::new().with_index_two(1).index_two(), 1);
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    #[track_caller]
    #[must_use]
    pub const fn with_index_two(self, index_two: usize) -> Self {
        assert!(
            index_two > 0,
            "a BDF's index-2 unknowns must follow at least one unknown of its error test"
        );
        Bdf { index_two, ..self }
    }

    /// Where the index-2 unknowns start, as [`with_index_two`](Self::with_index_two) set
    /// it (`usize::MAX`: none).
    #[must_use]
    pub const fn index_two(&self) -> usize {
        self.index_two
    }

    /// How the Newton systems are solved.
    #[must_use]
    pub const fn linear_solver(&self) -> LinearSolver {
        self.linear_solver
    }

    /// Which entries of the Jacobian can be non-zero.
    #[must_use]
    pub const fn structure(&self) -> Structure {
        self.structure
    }

    /// The highest order the method may take.
    #[must_use]
    pub const fn max_order(&self) -> usize {
        self.max_order as usize
    }
}

super::settings::structure_settings!(
    [] Bdf,
    "Bdf",
    "Bdf::new()",
    "Its Newton iteration follows CVODE's own rules (at most 3 iterations, stopping at \
     `0.1/tq₂` of the error test), not a tolerance or a count given here."
);

impl Default for Bdf {
    /// [`Bdf::new`].
    fn default() -> Self {
        Bdf::new()
    }
}
