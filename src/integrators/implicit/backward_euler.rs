//! Backward (implicit) Euler: the whole rate at the end of the step, solved by the shared
//! Newton iteration.

use super::mass::HigherIndex;
use super::newton::{ImplicitWorkspace, Rule};
use super::settings::ImplicitSettings;
use super::settings::{newton_builders, one_stage_scheme};
use crate::integrators::Properties;

/// Backward (implicit) Euler: the state at the end of the step is defined by its own
/// derivative, `y(t + dt) = y(t) + f(t + dt, y(t + dt)) · dt`.
///
/// Each step solves for the end-of-step derivative `D` with Newton's method on
/// `r(D) = D − f(t + dt, y + D dt) = 0`, starting from the derivative at the start of the
/// step. The Jacobian `I − dt ∂f/∂y` comes from the forces when they give one
/// ([`Forces::jacobian`](crate::Forces::jacobian), or [`WithJacobian`](crate::WithJacobian) for a closure), and otherwise from forward
/// differences: one force evaluation per coordinate, or, for a [banded](crate::Structure::Banded)
/// Jacobian ([`with_structure`](BackwardEuler::with_structure)), one per diagonal of the
/// band, whatever the size (a tridiagonal system costs 3). Each difference step is
/// `√ε` times the size of what it perturbs: the coordinate of the end-of-step state, so a
/// state far from the origin is differenced as well as one near it.
///
/// The Jacobian is made and factored at the start of a step and kept while the iteration
/// converges at least tenfold per iteration (simplified Newton), and made again when it
/// does not. The iteration stops when every coordinate of the Newton correction is at most
/// `tolerance · (1 + |Dᵢ| + |yᵢ|/|dt|)`, where `yᵢ` is the state's coordinate (when the
/// state gives them: [`State::coordinates_into`](crate::State::coordinates_into)), or within what rounding of the
/// end-of-step state allows: far from the origin the force cannot be resolved better than
/// `ε |∂f/∂y| |y|`.
///
/// Stepped through a [`Stepper`](crate::Stepper) (or a [`Method`](crate::Method)), whose
/// workspace lives from step to step, the factored matrix is kept for the next step too, as
/// Hairer's radau5 and OrdinaryDiffEq's implicit methods keep theirs: while `dt` stays the
/// same and the last step's iteration contracted at least tenfold per iteration (or
/// converged in one). It is made anew when `dt` changes, when the iteration contracts
/// slowly, and after a failed step; a step that fails with a kept matrix is solved again
/// with a new one before an error is reported. Should simplified Newton still diverge, the
/// step is solved once more by full Newton, with the Jacobian made anew at every iteration:
/// slower, but it converges where the Jacobian at the end of the step is far from the one
/// at its start (a torsion spring of `k = 10⁶` turned through half a radian in one frame at
/// 60 Hz takes 8–16 full iterations there). The convergence test is as strict with a kept
/// matrix, so one that no longer fits (the forces changed by hand) costs iterations, not
/// accuracy; reset the stepper after changing the forces or the state by hand all the same.
///
/// - **Order** 1.
/// - **Stability**: A-stable and L-stable: an oscillator is stable for every `dt` and every
///   stiffness, and it always *loses* energy (spectral radius `1/√(1 + ω² dt²)`). The
///   damping is numerical: large steps flatten oscillations you may have wanted to see.
/// - **Cost** per Newton iteration: one force evaluation plus, when the matrix is made,
///   with finite differences one per coordinate of the state's derivative (one per diagonal
///   of a band) and an `n × n` LU factorisation; then a solve with the factors. A linear
///   system converges in one iteration (two evaluations counting the check). Through a
///   [`Stepper`](crate::Stepper) at a constant `dt`, a linear system makes and factors its
///   matrix once for the whole run, and a step costs two residuals and two solves: it
///   starts from the last step's rate, which is the rate at its start to the Newton
///   tolerance, instead of evaluating the force there (a step that does not continue the
///   last one in time evaluates it). Declared linear, with their exact Jacobian
///   ([`with_linear_forces`](Self::with_linear_forces)), such forces cost one residual and
///   one solve per step, the cost of solving the linear step by hand.
///
/// A step that does not converge in `max_iterations` returns
/// [`StepError::NotConverged`](crate::StepError::NotConverged), and a singular or non-finite Jacobian or a non-finite force
/// return their own errors; the state is then left unchanged. Up to 16 unknowns the solve
/// works on the stack (a particle in space has 6, a rigid body 13); beyond, on the heap,
/// for any size: step a large state through a [`Stepper`](crate::Stepper), which makes
/// the matrices once.
///
/// **Mass matrices.** Forces that give a constant mass matrix `M`
/// ([`Forces::mass_matrix`](crate::Forces::mass_matrix), or [`WithMass`](crate::WithMass);
/// dense, banded or sparse, in the layout of the [`Structure`](crate::Structure)) make
/// each step solve `M (y₁ − y₀) = dt f(t + dt, y₁)`: the residual is
/// `M D − f(t + dt, y + D dt)` and the Newton matrix `M − dt ∂f/∂y` (Hairer–Wanner II,
/// VI.1). A singular `M` is an index-1 differential-algebraic system, whose algebraic
/// equations `0 = fᵢ` hold at the end of every step (the method is stiffly accurate); the
/// first step of a workspace checks the start against them, as the BDF does: one Newton
/// step on them may move no algebraic unknown by more than `√ε (1 + |yᵢ|)` (1.5·10⁻⁸ in
/// `f64`), or the step returns [`StepError::InconsistentStart`](crate::StepError::InconsistentStart)
/// ([`Radau5::consistent_start`](crate::Radau5::consistent_start) completes a start), and
/// algebraic equations that do not determine their unknowns (index 2 or more) return
/// [`StepError::IndexAboveOne`](crate::StepError::IndexAboveOne), unless the unknowns are
/// declared of index 2 and 3 ([`with_higher_index`](Self::with_higher_index)). Stepped
/// without a [`Stepper`](crate::Stepper), every step is a first step and is checked.
/// Without a mass matrix nothing changes, to the bit.
///
/// **Matrix-free GMRES.** For systems too large to factor (a 2-D or 3-D grid),
/// [`with_linear_solver`](Self::with_linear_solver) solves the Newton systems
/// `(I − dt J) x = b` by restarted GMRES instead, from products `J v` alone (the forces'
/// [`jacobian_times`](crate::Forces::jacobian_times), or one force evaluation each),
/// preconditioned by a band of `J` or by the forces'
/// [`precondition`](crate::Forces::precondition). On the heat equation a tridiagonal
/// preconditioner is the exact inverse, and each solve takes one Krylov iteration:
///
/// ```
/// use timestep::{BackwardEuler, Gmres, InPlace, Integrator, LinearSolver, Preconditioner, Side, Stepper};
///
/// let n = 1000;
/// let scale = ((n + 1) * (n + 1)) as f64;
/// let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
///     for i in 0..n {
///         let left = if i > 0 { u[i - 1] } else { 0.0 };
///         let right = if i + 1 < n { u[i + 1] } else { 0.0 };
///         du[i] = (left - 2.0 * u[i] + right) * scale;
///     }
/// });
/// let band = Preconditioner::Banded { lower: 1, upper: 1 };
/// let gmres = Gmres::new().with_preconditioner(band, Side::Left);
/// let mut solver = Stepper::new(BackwardEuler::new().with_linear_solver(LinearSolver::Gmres(gmres)));
/// let pi = std::f64::consts::PI;
/// let mut u: Vec<f64> = (1..=n).map(|i| (pi * i as f64 / (n + 1) as f64).sin()).collect();
/// let dt = 1e-3; // 2000 times the explicit limit dx²/2
/// for i in 0..10 {
///     solver.step(&mut u, &heat, i as f64 * dt, dt)?;
/// }
/// // The sine mode is an eigenvector, λ = −(2 − 2 cos(π/(n + 1)))(n + 1)²: each step
/// // divides it by 1 − dt λ.
/// let lambda = -(2.0 - 2.0 * (pi / (n + 1) as f64).cos()) * scale;
/// let middle = u[n / 2] / (pi * (n / 2 + 1) as f64 / (n + 1) as f64).sin();
/// assert!((middle - (1.0 - dt * lambda).powi(-10)).abs() < 1e-9);
/// assert!(solver.workspace().unwrap().linear_iterations() <= 30);
/// # Ok::<(), timestep::StepError>(())
/// ```
///
/// Without a preconditioner each Krylov iteration costs a force evaluation, and a stiff
/// system needs many: GMRES pays where `J` cannot be stored or factored, or with a
/// preconditioner that captures its stiff part (Brown and Hindmarsh, "Reduced storage
/// matrix methods in stiff ODE systems", Appl. Math. Comput. 31 (1989) 40–91).
///
/// Use it for stiff systems: a spring so hard that explicit methods explode at your `dt`.
/// The Newton iteration is shared with the other implicit methods
/// ([`Trapezoid`](crate::Trapezoid), [`ImplicitMidpoint`](crate::ImplicitMidpoint),
/// [`Newmark`](crate::Newmark)), and so are its settings and errors.
///
/// # Example
///
/// A spring of k = 10⁶ at 60 Hz, where every explicit method explodes in a few steps:
///
/// ```
/// use timestep::{BackwardEuler, Integrator, Particle, State};
///
/// let stiff = |p: &Particle<f64>, _t: f64| -1.0e6 * p.position();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) + 0.5e6 * p.position().powi(2);
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// let mut integrator = BackwardEuler::new();
/// let mut last = energy(&particle);
/// for i in 0..60 {
///     integrator.step(&mut particle, &stiff, i as f64 / 60.0, 1.0 / 60.0)?;
///     assert!(energy(&particle) < last);
///     last = energy(&particle);
/// }
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BackwardEuler {
    newton: ImplicitSettings,
    higher_index: HigherIndex,
}

impl BackwardEuler {
    /// A solver with the default tolerance (`ε^(2/3)` of the state's scalar: about
    /// `4·10⁻¹¹` in `f64`, `2·10⁻⁵` in `f32`),
    /// [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS) and a dense Jacobian.
    ///
    /// # Banded Jacobians
    ///
    /// The heat equation `u_t = u_xx` on 10 000 interior points, stiff beyond any explicit
    /// method at this step (`dt/dx² = 10⁵`), costs three force evaluations per Newton
    /// iteration with a tridiagonal [`with_structure`](Self::with_structure):
    ///
    /// ```
    /// use timestep::{BackwardEuler, InPlace, Integrator, Stepper, Structure};
    ///
    /// let n = 10_000;
    /// let dx = 1.0 / (n + 1) as f64;
    /// let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
    ///     for i in 0..n {
    ///         let left = if i > 0 { u[i - 1] } else { 0.0 };
    ///         let right = if i + 1 < n { u[i + 1] } else { 0.0 };
    ///         du[i] = (left - 2.0 * u[i] + right) / (dx * dx);
    ///     }
    /// });
    /// let pi = std::f64::consts::PI;
    /// let mut u: Vec<f64> = (1..=n).map(|i| (pi * i as f64 * dx).sin()).collect();
    /// let banded = BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// let mut solver = Stepper::new(banded);
    /// let dt = 1e-3;
    /// for i in 0..10 {
    ///     solver.step(&mut u, &heat, i as f64 * dt, dt)?;
    /// }
    /// // The slowest mode decays like e^(−π² t), up to the scheme's O(dt) error.
    /// let middle = u[n / 2] / (pi * 0.5_f64).sin();
    /// assert!((middle - (-pi * pi * 0.01_f64).exp()).abs() < 1e-3);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        BackwardEuler {
            newton: ImplicitSettings::new(),
            higher_index: HigherIndex::NONE,
        }
    }

    /// The same method for a differential-algebraic system of index 2 or 3 in Hessenberg
    /// form (`M y' = f`, see [`Forces::mass_matrix`](crate::Forces::mass_matrix)) whose
    /// unknowns are ordered by index as radau5.f asks (and
    /// [`Radau5::with_higher_index`](crate::Radau5::with_higher_index)): `0..index2` of
    /// index 0 or 1 (radau5.f's `NIND1 = index2`), `index2..index3` of index 2
    /// (`NIND2 = index3 − index2`), and `index3..` of index 3 (`NIND3`, the rest).
    ///
    /// Backward Euler is BDF1, which at a constant step converges at order 1 on
    /// Hessenberg systems of index 2 and 3 in every unknown (Brenan, Campbell and
    /// Petzold, *Numerical Solution of Initial-Value Problems in Differential-Algebraic
    /// Equations*, SIAM 1996, ch. 3; Hairer, Lubich and Roche 1989, LNM 1409). What
    /// changes: a start whose algebraic equations do not determine the algebraic unknowns
    /// is solved instead of refused with
    /// [`StepError::IndexAboveOne`](crate::StepError::IndexAboveOne); in the Newton
    /// iteration's convergence test the allowance of an index-2 unknown is divided by
    /// `|dt|`, of an index-3 unknown by `dt²` (radau5.f's `SCAL(I)/HHFAC`: their
    /// corrections, and the rounding in them, are `1/dt` and `1/dt²` times the rest's,
    /// and unscaled the iteration could not resolve them at small steps); and the start
    /// is checked against the algebraic equations by their residuals: at the first step
    /// of a workspace, an equation `0 = fᵢ(t₀, y₀)` whose residual needs the unknowns
    /// moved by more than `√ε (1 + |yⱼ|)` to first order (`|fᵢ| > Σⱼ |∂fᵢ/∂yⱼ| √ε (1 +
    /// |yⱼ|)`) returns [`StepError::InconsistentStart`](crate::StepError::InconsistentStart)
    /// naming it. The hidden constraints (for a pendulum at index 3, the velocity
    /// constraint, the derivative of the position constraint) are not checked: that would
    /// take derivatives of the constraints the forces do not give; a start off them
    /// costs accuracy in the first steps (the multiplier jumps to make up for it).
    ///
    /// Measured on the pendulum (x, y, vx, vy, λ) of length 1 and `g = 9.81` from the
    /// horizontal at rest to `t = 1`, against Radau5 at rtol 10⁻¹²
    /// (tests/timestep/integrators/implicit/higher_index.rs): at index 3 the position is
    /// off by 4.0·10⁻², 2.0·10⁻², 1.0·10⁻² at `dt = 1/400, 1/800, 1/1600` (orders 0.98,
    /// 0.99), the position constraint holds to 5.9·10⁻¹² at every step, and the energy
    /// falls by 5.3, 2.7, 1.4 % of `m g L` (first-order numerical damping); at index 2
    /// (the velocity constraint) the position is off by 2.0·10⁻², 9.8·10⁻³, 4.9·10⁻³
    /// (orders 0.995, 0.997) and drifts off `x² + y² = 1` by 2.5·10⁻², 1.3·10⁻², 6.5·10⁻³.
    /// Unscaled, the index-3 iteration diverged at `dt = 10⁻⁴` (`θ` = 1.00004 after 13
    /// iterations); scaled it converges down to `dt = 10⁻⁶`.
    ///
    /// Default: no unknown of index above 1 (`index2 = index3 = usize::MAX`). Bounds at
    /// or past the number of unknowns declare none of that index; `index2 = 0` declares
    /// every unknown of index 2 or more. The scaling applies to the unknowns declared
    /// whatever the mass matrix: on an ODE, or on unknowns of index 0 or 1, it loosens
    /// their Newton test by `1/|dt|` or `1/dt²` for `|dt| < 1` (and tightens it for
    /// `|dt| > 1`), so declare only the unknowns that are of index 2 and 3. The step's
    /// other behaviour (`dt = 0`, negative `dt`, non-finite forces) is the method's.
    ///
    /// # Panics
    ///
    /// If `index3 < index2`.
    ///
    /// ```
    /// use timestep::{BackwardEuler, Integrator, Jacobian, Stepper, WithMass};
    ///
    /// // A pendulum (x, y, vx, vy, λ) of length 1 as an index-3 system: positions of
    /// // index 1, velocities of index 2, the multiplier of index 3.
    /// let pendulum = WithMass::new(
    ///     |u: &[f64; 5], _t: f64| {
    ///         let [x, y, vx, vy, lambda] = *u;
    ///         [vx, vy, -lambda * x, -lambda * y - 9.81, x * x + y * y - 1.0]
    ///     },
    ///     |m: &mut Jacobian<f64>| (0..4).for_each(|i| m[(i, i)] = 1.0),
    /// );
    /// let mut stepper = Stepper::new(BackwardEuler::new().with_higher_index(2, 4));
    /// let mut u = [1.0_f64, 0.0, 0.0, 0.0, 0.0];
    /// for i in 0..100 {
    ///     stepper.step(&mut u, &pendulum, i as f64 * 1e-3, 1e-3)?;
    ///     // The position constraint holds at every step, to the Newton tolerance.
    ///     assert!((u[0] * u[0] + u[1] * u[1] - 1.0).abs() < 1e-9);
    /// }
    /// assert_eq!(BackwardEuler::new().with_higher_index(2, 4).higher_index(), (2, 4));
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_higher_index(self, index2: usize, index3: usize) -> Self {
        assert!(
            index2 <= index3,
            "BackwardEuler's index-3 unknowns ({index3}..) must follow its index-2 ones ({index2}..)"
        );
        BackwardEuler {
            higher_index: HigherIndex { index2, index3 },
            ..self
        }
    }

    /// Where the index-2 and index-3 unknowns start, as
    /// [`with_higher_index`](Self::with_higher_index) set it (`usize::MAX` for none).
    ///
    /// ```
    /// assert_eq!(timestep::BackwardEuler::new().higher_index(), (usize::MAX, usize::MAX));
    /// ```
    #[must_use]
    pub fn higher_index(&self) -> (usize, usize) {
        (self.higher_index.index2, self.higher_index.index3)
    }
}

newton_builders!(BackwardEuler);
#[cfg(feature = "serde")]
super::settings::newton_serde!(BackwardEuler, "BackwardEuler", higher_index);

/// The buffers of a backward Euler step (the same as every implicit method's).
pub type BackwardEulerWorkspace<S> = ImplicitWorkspace<S>;

one_stage_scheme!(
    BackwardEuler,
    Rule::BACKWARD_EULER,
    Properties::explicit("backward-euler", 1, 1).implicit(),
    higher_index
);
