//! RATTLE: velocity Verlet on the manifold of holonomic constraints.

use crate::constraints::dot;
use crate::integrators::{Integrator, Properties, half, should_step};
use crate::linalg::dense;
use crate::{Constraints, Forces, Particles, Scalar, SmallVector, StepError};
use alloc::vec::Vec;
use core::fmt;
use num_traits::{Float, Zero};

/// RATTLE (H. C. Andersen, "Rattle: a velocity version of the Shake algorithm for
/// molecular dynamics calculations", J. Comput. Phys. 52, 24–34, 1983; B. Leimkuhler and
/// R. D. Skeel, "Symplectic numerical integrators in constrained Hamiltonian systems",
/// J. Comput. Phys. 112, 117–125, 1994; Hairer, Lubich and Wanner, *Geometric Numerical
/// Integration*, 2nd ed., VII.1.4, eq. (1.26)): velocity Verlet for point masses
/// ([`Particles`]) held by holonomic [`Constraints`] `g(q) = 0`, for
/// `M q'' = F(q) − G(q)ᵀ λ` with `G = ∂g/∂q`:
///
/// ```text
/// p(t + dt/2) = p(t) + dt/2 · (F(q(t)) − G(q(t))ᵀ λ)
/// q(t + dt)   = q(t) + dt · M⁻¹ p(t + dt/2)
/// 0           = g(q(t + dt))                          (solved for λ, Newton)
/// p(t + dt)   = p(t + dt/2) + dt/2 · (F(q(t + dt)) − G(q(t + dt))ᵀ μ)
/// 0           = G(q(t + dt)) M⁻¹ p(t + dt)             (solved for μ, linear)
/// ```
///
/// - **Order** 2, **symplectic** and **time-reversible** on the constraint manifold
///   (stepping by `-dt` undoes a step, to the solve's tolerance and rounding). Energy
///   stays within a bound (`O(dt²)`) forever on conservative systems; the positions stay
///   on `g = 0` to the tolerance and the velocities on `G v = 0` to rounding at every
///   step, with no drift.
/// - **Stability**: as velocity Verlet's for the unconstrained motion (`ω dt ≤ 2`).
/// - **Cost**: two force evaluations per step; per Newton iteration of the position
///   solve one `g`, one `G` and a dense LU of the `m × m` matrix `G(q) M⁻¹ G(qₙ)ᵀ`
///   (`m` the number of constraints: `⅔ m³` operations, so for long chains of hundreds of
///   rods this dominates); then one `G` and one more `m × m` LU for the velocity
///   projection. Newton converges quadratically: two or three iterations a step.
///
/// **The position solve** is Newton's method on the multipliers `ν = dt²/2 · λ`: from
/// the unconstrained drift `q̃`, `q = q̃ − M⁻¹ G(qₙ)ᵀ ν`, each iteration solving
/// `G(q) M⁻¹ G(qₙ)ᵀ Δν = g(q)`. It stops when every `|gₖ(q)|` is at most the
/// [tolerance](Rattle::with_tolerance) (default [`Rattle::DEFAULT_TOLERANCE`],
/// absolute, in the units of `g`), and fails with
/// [`StepError::ConstraintNotConverged`] after
/// [`max_iterations`](Rattle::with_max_iterations) (default
/// [`Rattle::DEFAULT_MAX_ITERATIONS`]). The tolerance must be above the rounding of `g`
/// itself (about `ε·L` for [`Rods`](crate::Rods) of length `L`): `1e-10` suits `f64`
/// states of lengths up to ~10⁴; for `f32` states set one near `1e-5 · L`. **The velocity
/// projection** is linear, solved exactly by LU.
///
/// Forces are meant to depend on positions (conservative systems): a force that reads
/// momenta sees, at the end of the step, the half-kicked momenta, which makes it first
/// order in the velocity dependence.
///
/// Bad input: `dt = 0` does nothing; `dt < 0` steps backwards; non-finite `t` or `dt` is
/// [`StepError::NonFiniteTime`]; a non-finite `g` is [`StepError::NonFiniteResidual`], a
/// non-finite `G` [`StepError::NonFiniteJacobian`], and a singular `G M⁻¹ Gᵀ` (redundant
/// constraints, or a step so long that the constraint surface is missed)
/// [`StepError::SingularJacobian`]. A failed step leaves the state as it was. A start off
/// the constraints is projected onto them by the first step.
///
/// RATTLE keeps its buffers (sized by the bodies and the constraints) between steps: the
/// first step allocates them, no later step of the same sizes allocates. It is not in
/// [`Method`](crate::Method), since it needs constraints.
///
/// # Example
///
/// A pendulum of length 1 m from the horizontal at rest, `g = 9.81`: over a swing the bob
/// stays on its circle.
///
/// ```
/// use glam::DVec2;
/// use timestep::{InPlace, Integrator, Particles, Rattle, Rod, Rods};
///
/// let gravity = InPlace(|_: &Particles<DVec2>, _t: f64, f: &mut Vec<DVec2>| {
///     f[0] = DVec2::new(0.0, -9.81);
/// });
/// let mut bob = Particles::new(vec![1.0], vec![DVec2::new(1.0, 0.0)], vec![DVec2::ZERO]);
/// let mut rattle = Rattle::new(Rods::new(vec![Rod::anchored(0, DVec2::ZERO, 1.0)]));
/// for i in 0..1000 {
///     rattle.step(&mut bob, &gravity, i as f64 * 1e-3, 1e-3)?;
///     let (q, v) = (bob.positions()[0], bob.velocities()[0]);
///     assert!((q.length() - 1.0).abs() <= 2e-10);
///     assert!(q.dot(v).abs() < 1e-12);
/// }
/// // The rod's tension: λ = m v²/L − F·q/L for g = (|q|² − L²)/(2L), which from rest at
/// // the horizontal is −3 m g y / L.
/// let y = bob.positions()[0].y;
/// // The multiplier is first order in dt (see `multipliers`).
/// assert!((rattle.multipliers()[0] - (-3.0 * 9.81 * y)).abs() < 0.05);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Rattle<V: SmallVector, C> {
    constraints: C,
    tolerance: f64,
    max_iterations: usize,
    workspace: Workspace<V>,
}

/// Why a setting of [`Rattle`] was refused.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum RattleSettingError {
    /// The tolerance is zero, negative or not finite.
    Tolerance(f64),
    /// No Newton iterations allowed: no step could solve its constraints.
    NoIterations,
}

impl fmt::Display for RattleSettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RattleSettingError::Tolerance(tolerance) => write!(
                f,
                "the constraint tolerance must be positive and finite, got {tolerance}"
            ),
            RattleSettingError::NoIterations => {
                write!(f, "the constraint solve needs at least one iteration")
            }
        }
    }
}

impl core::error::Error for RattleSettingError {}

/// The buffers of a step, sized by the first step: `n` bodies, `m` constraints.
#[derive(Clone, Debug)]
struct Workspace<V: SmallVector> {
    /// The state at the new positions, where the end force is evaluated.
    trial: Option<Particles<V>>,
    /// The start force, then the end force (`n`).
    force: Vec<V>,
    /// The new positions and momenta, written to the state when the step succeeds (`n`).
    positions: Vec<V>,
    momenta: Vec<V>,
    /// `G(qₙ)`, and `G` at the current iterate (`m × n`).
    start_jacobian: Vec<V>,
    jacobian: Vec<V>,
    /// `g(q)`, then the Newton correction or the velocity multipliers (`m`).
    residual: Vec<V::Scalar>,
    /// `ν = dt²/2 · λ` (`m`).
    scaled_multipliers: Vec<V::Scalar>,
    /// The last step's `λ` at its end (`m`).
    multipliers: Vec<V::Scalar>,
    /// `G M⁻¹ Gᵀ` and its LU (`m × m`), with its pivots.
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    /// Newton iterations of the last step.
    iterations: usize,
}

impl<V: SmallVector> Workspace<V> {
    fn empty() -> Self {
        Workspace {
            trial: None,
            force: Vec::new(),
            positions: Vec::new(),
            momenta: Vec::new(),
            start_jacobian: Vec::new(),
            jacobian: Vec::new(),
            residual: Vec::new(),
            scaled_multipliers: Vec::new(),
            multipliers: Vec::new(),
            matrix: Vec::new(),
            pivots: Vec::new(),
            iterations: 0,
        }
    }

    /// Sizes the buffers for `n` bodies and `m` constraints (no allocation when the sizes
    /// are those of the last step).
    fn resize(&mut self, n: usize, m: usize) {
        let zero = V::Scalar::zero();
        self.force.resize(n, V::zero());
        self.positions.resize(n, V::zero());
        self.momenta.resize(n, V::zero());
        self.start_jacobian.resize(m * n, V::zero());
        self.jacobian.resize(m * n, V::zero());
        self.residual.resize(m, zero);
        self.scaled_multipliers.resize(m, zero);
        self.multipliers.resize(m, zero);
        self.matrix.resize(m * m, zero);
        self.pivots.resize(m, 0);
    }
}

impl<V: SmallVector, C: Constraints<V>> Rattle<V, C> {
    /// The default tolerance of the position solve: every `|gₖ(q)| ≤ 10⁻¹⁰`, in the units
    /// of `g` (metres for [`Rods`](crate::Rods)).
    pub const DEFAULT_TOLERANCE: f64 = 1e-10;

    /// The default most Newton iterations of the position solve per step.
    pub const DEFAULT_MAX_ITERATIONS: usize = 20;

    /// RATTLE for `constraints`, with the default tolerance and iterations.
    #[must_use]
    pub fn new(constraints: C) -> Self {
        Rattle {
            constraints,
            tolerance: Self::DEFAULT_TOLERANCE,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            workspace: Workspace::empty(),
        }
    }

    /// The same with the position solve stopping when every `|gₖ(q)| ≤ tolerance`.
    ///
    /// # Panics
    ///
    /// If `tolerance` is zero, negative or not finite ([`try_with_tolerance`](Rattle::try_with_tolerance)
    /// returns the error).
    #[track_caller]
    #[must_use]
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        self.try_with_tolerance(tolerance)
            .unwrap_or_else(|error| panic!("Rattle::with_tolerance: {error}"))
    }

    /// The same with the position solve stopping when every `|gₖ(q)| ≤ tolerance`, or why
    /// the tolerance was refused.
    ///
    /// ```
    /// use timestep::{Rattle, RattleSettingError, Rods};
    ///
    /// let rattle = Rattle::new(Rods::<f64>::new(vec![]));
    /// assert_eq!(rattle.try_with_tolerance(0.0).unwrap_err(), RattleSettingError::Tolerance(0.0));
    /// ```
    pub fn try_with_tolerance(self, tolerance: f64) -> Result<Self, RattleSettingError> {
        if tolerance > 0.0 && tolerance.is_finite() {
            Ok(Rattle { tolerance, ..self })
        } else {
            Err(RattleSettingError::Tolerance(tolerance))
        }
    }

    /// The same allowing at most `max_iterations` Newton iterations per step.
    ///
    /// # Panics
    ///
    /// If `max_iterations` is zero.
    #[track_caller]
    #[must_use]
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        if max_iterations == 0 {
            panic!(
                "Rattle::with_max_iterations: {}",
                RattleSettingError::NoIterations
            );
        }
        Rattle {
            max_iterations,
            ..self
        }
    }

    /// The tolerance of the position solve.
    #[must_use]
    pub fn tolerance(&self) -> f64 {
        self.tolerance
    }

    /// The most Newton iterations per step.
    #[must_use]
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    /// The constraints.
    #[must_use]
    pub fn constraints(&self) -> &C {
        &self.constraints
    }

    /// The multipliers `μ` of the last step's velocity projection: the constraint forces
    /// `−G(q)ᵀ μ` that make the end velocity tangent, an `O(dt)` estimate of `λ` at the
    /// step's end (the mean of `μ` and the next step's position multiplier is the
    /// `O(dt²)` one). Empty before the first step.
    #[must_use]
    pub fn multipliers(&self) -> &[V::Scalar] {
        &self.workspace.multipliers
    }

    /// The Newton iterations the last step's position solve took.
    #[must_use]
    pub fn iterations(&self) -> usize {
        self.workspace.iterations
    }

    /// The method's name, order, cost and character.
    #[must_use]
    pub fn properties(&self) -> Properties {
        Properties::explicit("rattle", 2, 2).symplectic()
    }

    /// One step; the caller has checked `t` and `dt`.
    fn advance<F: Forces<Particles<V>> + ?Sized>(
        &mut self,
        state: &mut Particles<V>,
        forces: &F,
        t: V::Scalar,
        dt: V::Scalar,
    ) -> Result<(), StepError> {
        let (n, m) = (state.len(), self.constraints.count());
        self.workspace.resize(n, m);
        let constraints = &self.constraints;
        let Workspace {
            trial,
            force,
            positions,
            momenta,
            start_jacobian,
            jacobian,
            residual,
            scaled_multipliers,
            multipliers,
            matrix,
            pivots,
            iterations,
        } = &mut self.workspace;
        let inverse = state.inverse_masses();
        let (kick, tolerance) = (half(dt), V::Scalar::from_f64(self.tolerance));

        // The unconstrained half kick and drift: p̃ = p + dt/2 F, q̃ = q + dt M⁻¹ p̃.
        crate::state::force_into(forces, state, t, force);
        jacobian_into(constraints, state.positions(), start_jacobian);
        for i in 0..n {
            momenta[i] = state.momenta()[i].add_scaled(force[i], kick);
            positions[i] = state.positions()[i].add_scaled(momenta[i], dt * inverse[i]);
        }

        // Newton on ν: q = q̃ − M⁻¹ G(qₙ)ᵀ ν with g(q) = 0.
        scaled_multipliers.fill(V::Scalar::zero());
        *iterations = 0;
        loop {
            constraints.value(positions, residual);
            let size = residual
                .iter()
                .fold(V::Scalar::zero(), |largest, g| largest.max(g.abs()));
            if residual.iter().any(|g| !g.is_finite()) {
                return Err(StepError::NonFiniteResidual);
            }
            if size <= tolerance {
                break;
            }
            if *iterations == self.max_iterations {
                return Err(StepError::ConstraintNotConverged {
                    iterations: *iterations,
                    residual: size.to_f64(),
                });
            }
            *iterations += 1;
            jacobian_into(constraints, positions, jacobian);
            coupling_into(jacobian, start_jacobian, inverse, m, matrix);
            dense::factor(matrix, pivots, m)?;
            dense::solve(matrix, pivots, m, residual);
            for (k, &correction) in residual.iter().enumerate() {
                scaled_multipliers[k] = scaled_multipliers[k] + correction;
                let row = &start_jacobian[k * n..(k + 1) * n];
                for i in 0..n {
                    positions[i] = positions[i].add_scaled(row[i], -correction * inverse[i]);
                }
            }
        }

        // p(t + dt/2) = p̃ − G(qₙ)ᵀ ν / dt, then the end force there and its half kick.
        for (k, &nu) in scaled_multipliers.iter().enumerate() {
            let row = &start_jacobian[k * n..(k + 1) * n];
            for i in 0..n {
                momenta[i] = momenta[i].add_scaled(row[i], -nu / dt);
            }
        }
        let trial = match trial {
            Some(trial) => {
                trial.clone_from(state);
                trial
            }
            None => trial.insert(state.clone()),
        };
        trial.set_positions_and_momenta(positions, momenta);
        crate::state::force_into(forces, trial, t + dt, force);
        for i in 0..n {
            momenta[i] = momenta[i].add_scaled(force[i], kick);
        }

        // The velocity projection: G M⁻¹ Gᵀ μ' = G M⁻¹ p̂ at the new positions, p = p̂ − Gᵀ μ'.
        jacobian_into(constraints, positions, jacobian);
        coupling_into(jacobian, jacobian, inverse, m, matrix);
        for (k, rate) in residual.iter_mut().enumerate() {
            let row = &jacobian[k * n..(k + 1) * n];
            *rate = (0..n).fold(V::Scalar::zero(), |sum, i| {
                sum + dot(row[i], momenta[i]) * inverse[i]
            });
        }
        dense::factor(matrix, pivots, m)?;
        dense::solve(matrix, pivots, m, residual);
        let two_over_dt = V::Scalar::from_f64(2.0) / dt;
        for (k, &mu) in residual.iter().enumerate() {
            let row = &jacobian[k * n..(k + 1) * n];
            for i in 0..n {
                momenta[i] = momenta[i].add_scaled(row[i], -mu);
            }
            // μ' = dt/2 · λ.
            multipliers[k] = mu * two_over_dt;
        }
        state.set_positions_and_momenta(positions, momenta);
        Ok(())
    }
}

impl<V: SmallVector, C: Constraints<V>> Integrator<Particles<V>> for Rattle<V, C> {
    fn step<F: Forces<Particles<V>> + ?Sized>(
        &mut self,
        state: &mut Particles<V>,
        forces: &F,
        t: V::Scalar,
        dt: V::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            self.advance(state, forces, t, dt)?;
        }
        Ok(())
    }
}

/// `G(q)` into `out`, zeroed first (the constraints write only their non-zero gradients).
fn jacobian_into<V: SmallVector, C: Constraints<V> + ?Sized>(
    constraints: &C,
    positions: &[V],
    out: &mut [V],
) {
    out.fill(V::zero());
    constraints.jacobian(positions, out);
}

/// `A = G M⁻¹ Hᵀ` (`m × m`, row-major) for the `m × n` Jacobians `G` and `H`: `Aₖₗ =
/// Σᵢ (Gₖᵢ · Hₗᵢ) / mᵢ`.
fn coupling_into<V: SmallVector>(
    g: &[V],
    h: &[V],
    inverse: &[V::Scalar],
    m: usize,
    out: &mut [V::Scalar],
) {
    let n = inverse.len();
    for k in 0..m {
        let row = &g[k * n..(k + 1) * n];
        for l in 0..m {
            let other = &h[l * n..(l + 1) * n];
            out[k * m + l] = (0..n).fold(V::Scalar::zero(), |sum, i| {
                sum + dot(row[i], other[i]) * inverse[i]
            });
        }
    }
}
