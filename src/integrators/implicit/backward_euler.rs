//! Backward (implicit) Euler, solved by Newton's method on the crate's linear algebra.

use crate::integrators::{Memoryless, Properties, Scheme};
use crate::linalg::{Buffer, Matrix, Structure};
use crate::{DerivativeOf, Forces, Jacobian, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// Backward (implicit) Euler: the state at the end of the step is defined by its own
/// derivative, `y(t + dt) = y(t) + f(t + dt, y(t + dt)) · dt`.
///
/// Each step solves for the end-of-step derivative `D` with Newton's method on
/// `r(D) = D − f(t + dt, y + D dt) = 0`, starting from the derivative at the start of the
/// step. The Jacobian `I − dt ∂f/∂y` comes from the forces when they give one
/// ([`Forces::jacobian`], or [`WithJacobian`] for a closure), and otherwise from forward
/// differences: one force evaluation per coordinate, or, for a [banded](Structure::Banded)
/// Jacobian ([`with_structure`](BackwardEuler::with_structure)), one per diagonal of the
/// band, whatever the size (a tridiagonal system costs 3). Each difference step is
/// `√ε` times the size of what it perturbs: the coordinate of the end-of-step state, so a
/// state far from the origin is differenced as well as one near it.
///
/// The Jacobian is made and factored once per step and kept while the iteration converges
/// at least tenfold per iteration (simplified Newton), and made again when it does not.
/// The iteration stops when every coordinate of the Newton correction is at most
/// `tolerance · (1 + |Dᵢ| + |yᵢ|/|dt|)`, where `yᵢ` is the state's coordinate (when the
/// state gives them: [`State::coordinates_into`]), or within what rounding of the
/// end-of-step state allows: far from the origin the force cannot be resolved better than
/// `ε |∂f/∂y| |y|`.
///
/// - **Order** 1.
/// - **Stability**: A-stable and L-stable: an oscillator is stable for every `dt` and every
///   stiffness, and it always *loses* energy (spectral radius `1/√(1 + ω² dt²)`). The
///   damping is numerical: large steps flatten oscillations you may have wanted to see.
/// - **Cost** per Newton iteration: one force evaluation plus, with finite differences, one
///   per coordinate of the state's derivative, and an `n × n` LU solve. A linear system
///   converges in one iteration (two evaluations counting the check).
///
/// A step that does not converge in `max_iterations` returns
/// [`StepError::NotConverged`], and a singular or non-finite Jacobian or a non-finite force
/// return their own errors; the state is then left unchanged. Up to 16 unknowns the solve
/// works on the stack (a particle in space has 6, a rigid body 13); beyond, on the heap,
/// for any size: step a large state through a [`Stepper`](crate::Stepper), which makes
/// the matrices once.
///
/// Use it for stiff systems: a spring so hard that explicit methods explode at your `dt`.
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
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(try_from = "serde_impl::Settings", into = "serde_impl::Settings")
)]
pub struct BackwardEuler {
    tolerance: Option<f64>,
    max_iterations: usize,
    structure: Structure,
}

impl BackwardEuler {
    /// Newton iterations allowed per step by default.
    pub const DEFAULT_MAX_ITERATIONS: usize = 20;

    /// A solver with the default tolerance (`ε^(2/3)` of the state's scalar: about
    /// `4·10⁻¹¹` in `f64`, `2·10⁻⁵` in `f32`),
    /// [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS) and a dense Jacobian.
    #[must_use]
    pub const fn new() -> Self {
        BackwardEuler {
            tolerance: None,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
            structure: Structure::Dense,
        }
    }

    /// The same solver with relative tolerance `tolerance`.
    ///
    /// # Panics
    ///
    /// If `tolerance` is not finite and positive.
    ///
    /// ```
    /// use timestep::BackwardEuler;
    ///
    /// let solver = BackwardEuler::new().with_tolerance(1e-12);
    /// assert_eq!(solver.tolerance(), Some(1e-12));
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        assert!(
            tolerance.is_finite() && tolerance > 0.0,
            "BackwardEuler tolerance must be finite and positive, got {tolerance:e}"
        );
        BackwardEuler {
            tolerance: Some(tolerance),
            ..self
        }
    }

    /// The same solver allowing `max_iterations` Newton iterations per step.
    ///
    /// # Panics
    ///
    /// If `max_iterations` is 0.
    ///
    /// ```
    /// use timestep::BackwardEuler;
    ///
    /// let solver = BackwardEuler::new().with_max_iterations(5);
    /// assert_eq!(solver.max_iterations(), 5);
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        assert!(
            max_iterations > 0,
            "BackwardEuler needs at least one Newton iteration"
        );
        BackwardEuler {
            max_iterations,
            ..self
        }
    }

    /// The same solver, told which entries of the Jacobian can be non-zero. A
    /// [banded](Structure::Banded) Jacobian makes each Newton iteration `O(n)` for a chain
    /// or a 1-D grid: finite differences take one force evaluation per diagonal, and the
    /// LU factorisation works inside the band. A band that covers the whole matrix is
    /// solved densely.
    ///
    /// # Example
    ///
    /// The heat equation `u_t = u_xx` on 10 000 interior points, stiff beyond any explicit
    /// method at this step (`dt/dx² = 10⁵`), costs three force evaluations per Newton
    /// iteration:
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
    pub const fn with_structure(self, structure: Structure) -> Self {
        BackwardEuler { structure, ..self }
    }

    /// The relative tolerance set, or `None` for the default of the state's precision.
    pub fn tolerance(&self) -> Option<f64> {
        self.tolerance
    }

    /// Newton iterations allowed per step.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }

    /// Which entries of the Jacobian can be non-zero.
    pub fn structure(&self) -> Structure {
        self.structure
    }
}

impl Default for BackwardEuler {
    fn default() -> Self {
        BackwardEuler::new()
    }
}

/// The buffers of a backward Euler step: the Newton unknown and its residuals (rates of
/// the state), the end-of-step probe, the matrix and its LU factors, and three numbers per
/// unknown.
#[derive(Clone, Debug)]
pub struct BackwardEulerWorkspace<S: State> {
    rate: DerivativeOf<S>,
    residual: DerivativeOf<S>,
    nudged: DerivativeOf<S>,
    nudged_residual: DerivativeOf<S>,
    end_rate: DerivativeOf<S>,
    coordinates: DerivativeOf<S>,
    end: S,
    matrix: Result<Matrix<S::Scalar>, StepError>,
    correction: Result<Buffer<S::Scalar>, StepError>,
    nudges: Result<Buffer<S::Scalar>, StepError>,
    allowed: Result<Buffer<S::Scalar>, StepError>,
    rounding: Result<Buffer<S::Scalar>, StepError>,
}

impl Scheme for BackwardEuler {
    type Workspace<S: State> = BackwardEulerWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let rate = state.zero_rate();
        let n = rate.dim();
        BackwardEulerWorkspace {
            residual: rate.clone(),
            nudged: rate.clone(),
            nudged_residual: rate.clone(),
            end_rate: rate.clone(),
            coordinates: rate.clone(),
            rate,
            end: state.clone(),
            matrix: Matrix::new(self.structure, n),
            correction: Buffer::zeroed(n),
            nudges: Buffer::zeroed(n),
            allowed: Buffer::zeroed(n),
            rounding: Buffer::zeroed(n),
        }
    }

    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        Newton::new(self, workspace, state)?.solve(state, forces, t, dt)
    }

    fn properties(&self) -> Properties {
        Properties::explicit("backward-euler", 1, 1).implicit()
    }
}

impl Memoryless for BackwardEuler {}

/// One backward Euler solve: the settings and the workspace, unpacked.
struct Newton<'w, S: State> {
    tolerance: S::Scalar,
    max_iterations: usize,
    rate: &'w mut DerivativeOf<S>,
    residual: &'w mut DerivativeOf<S>,
    nudged: &'w mut DerivativeOf<S>,
    nudged_residual: &'w mut DerivativeOf<S>,
    end_rate: &'w mut DerivativeOf<S>,
    coordinates: &'w mut DerivativeOf<S>,
    has_coordinates: bool,
    end: &'w mut S,
    matrix: &'w mut Matrix<S::Scalar>,
    correction: &'w mut [S::Scalar],
    nudges: &'w mut [S::Scalar],
    allowed: &'w mut [S::Scalar],
    rounding: &'w mut [S::Scalar],
}

impl<'w, S: State> Newton<'w, S> {
    fn new(
        settings: &BackwardEuler,
        workspace: &'w mut BackwardEulerWorkspace<S>,
        state: &S,
    ) -> Result<Self, StepError> {
        let BackwardEulerWorkspace {
            rate,
            residual,
            nudged,
            nudged_residual,
            end_rate,
            coordinates,
            end,
            matrix,
            correction,
            nudges,
            allowed,
            rounding,
        } = workspace;
        let has_coordinates = state.coordinates_into(coordinates);
        Ok(Newton {
            tolerance: match settings.tolerance {
                Some(tolerance) => S::Scalar::from_f64(tolerance),
                None => S::Scalar::epsilon().powf(S::Scalar::from_f64(2.0 / 3.0)),
            },
            max_iterations: settings.max_iterations,
            rate,
            residual,
            nudged,
            nudged_residual,
            end_rate,
            coordinates,
            has_coordinates,
            end,
            matrix: matrix.as_mut().map_err(|e| *e)?,
            correction: correction.as_mut().map_err(|e| *e)?,
            nudges: nudges.as_mut().map_err(|e| *e)?,
            allowed: allowed.as_mut().map_err(|e| *e)?,
            rounding: rounding.as_mut().map_err(|e| *e)?,
        })
    }

    /// The size of coordinate `i` of the state (0 when the state does not say).
    fn coordinate(&self, i: usize) -> S::Scalar {
        if self.has_coordinates {
            self.coordinates.component(i).abs()
        } else {
            S::Scalar::zero()
        }
    }

    /// Solves `D = f(t + dt, y + D dt)` for the end-of-step rate `D`, starting from the rate
    /// at the start, and on success advances `state` by `D dt`.
    fn solve<F: Forces<S> + ?Sized>(
        mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        let end_time = t + dt;
        let n = self.rate.dim();
        state.derivative_into(forces, t, self.rate);
        let mut relative = S::Scalar::infinity();
        // The Jacobian and its factors are kept while the iteration contracts fast
        // (simplified Newton, as Hairer's implicit codes do): a linear system then costs
        // one Jacobian and one factorisation per step, whatever its iterations.
        let mut fresh_jacobian = false;
        let mut previous_ratio = S::Scalar::infinity();
        for iteration in 0..self.max_iterations {
            residual(
                state,
                forces,
                end_time,
                dt,
                self.rate,
                self.end,
                self.end_rate,
                self.residual,
            );
            if !self.residual.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            if !fresh_jacobian {
                self.newton_matrix(state, forces, end_time, dt)?;
                self.set_allowed_corrections(dt);
                self.matrix.factor()?;
                fresh_jacobian = true;
            }
            for (i, c) in self.correction.iter_mut().enumerate() {
                *c = -self.residual.component(i);
            }
            self.matrix.solve(self.correction);
            let mut converged = true;
            let mut ratio = S::Scalar::zero();
            relative = S::Scalar::zero();
            for i in 0..n {
                let delta = self.correction[i];
                self.rate.set_component(i, self.rate.component(i) + delta);
                let scale =
                    S::Scalar::one() + self.rate.component(i).abs() + self.coordinate(i) / dt.abs();
                relative = relative.max(delta.abs() / scale);
                ratio = ratio.max(delta.abs() / self.allowed[i]);
                // A NaN correction is not convergence.
                converged &= delta.abs() <= self.allowed[i];
            }
            if converged {
                if !self.rate.is_finite() {
                    return Err(StepError::NonFiniteResidual);
                }
                self.check_resolved(dt)?;
                state.advance(self.rate, dt);
                return Ok(());
            }
            // A correction that did not shrink at least tenfold on the last one: the kept
            // Jacobian is too far from the current one, so the next iteration makes anew.
            let contracting = ratio <= S::Scalar::from_f64(0.1) * previous_ratio;
            if iteration > 0 && (ratio.is_nan() || !contracting) {
                fresh_jacobian = false;
            }
            previous_ratio = ratio;
        }
        Err(StepError::NotConverged {
            iterations: self.max_iterations,
            correction: relative.to_f64(),
        })
    }

    /// Writes `∂r/∂D = I − dt ∂f/∂y` at the current end of step into the matrix: from the
    /// forces' Jacobian when they give one, otherwise by forward differences of the
    /// residual, perturbing together the columns a band keeps apart.
    fn newton_matrix<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        end_time: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        self.matrix.clear();
        if forces.jacobian(self.end, end_time, &mut self.matrix.as_jacobian()) {
            self.matrix.make_newton_matrix(dt);
            return Ok(());
        }
        let n = self.matrix.dim();
        let structure = self.matrix.structure();
        let groups = structure.bandwidth().min(n);
        let sqrt_epsilon = S::Scalar::epsilon().sqrt();
        for group in 0..groups {
            self.nudged.assign(self.rate);
            for j in (group..n).step_by(groups) {
                // Sized by what it moves: the rate, and the end-of-step coordinate it
                // shifts by `h dt`.
                let d = self.rate.component(j);
                let size = d
                    .abs()
                    .max(self.coordinate(j) / dt.abs())
                    .max(S::Scalar::one());
                let h = sqrt_epsilon * size;
                let h = if d < S::Scalar::zero() { -h } else { h };
                self.nudged.set_component(j, d + h);
                // The step actually taken, after rounding.
                self.nudges[j] = self.nudged.component(j) - d;
            }
            residual(
                state,
                forces,
                end_time,
                dt,
                self.nudged,
                self.end,
                self.end_rate,
                self.nudged_residual,
            );
            let mut jacobian = self.matrix.as_jacobian();
            for j in (group..n).step_by(groups) {
                for i in structure.rows_of_column(j, n) {
                    jacobian[(i, j)] = (self.nudged_residual.component(i)
                        - self.residual.component(i))
                        / self.nudges[j];
                }
            }
        }
        Ok(())
    }

    /// How large a correction of each coordinate may still be at convergence: the
    /// tolerance relative to the rate and the state's coordinate, plus what rounding of the
    /// end-of-step state leaves unresolved (`ε Σⱼ |∂fᵢ/∂yⱼ| |yⱼ|`, with a margin).
    fn set_allowed_corrections(&mut self, dt: S::Scalar) {
        let noise_factor = S::Scalar::from_f64(64.0) * S::Scalar::epsilon();
        for i in 0..self.matrix.dim() {
            let d = self.rate.component(i).abs();
            let scale = S::Scalar::one() + d + self.coordinate(i) / dt.abs();
            let rounding = self.matrix.off_identity_row_norm(i, |j| self.coordinate(j)) / dt.abs();
            self.rounding[i] = noise_factor * (rounding + d);
            self.allowed[i] = self.tolerance * scale + self.rounding[i];
        }
    }

    /// Refuses a solution that rounding alone could move by more than the whole state's
    /// extent: a step so long (backward Euler at `dt = 10⁴⁵` on a spring) that the
    /// end-of-step force cannot be resolved, where accepting it would leave garbage.
    fn check_resolved(&self, dt: S::Scalar) -> Result<(), StepError> {
        let n = self.matrix.dim();
        let mut extent = S::Scalar::zero();
        for i in 0..n {
            extent = extent.max(self.coordinate(i) + (self.rate.component(i) * dt).abs());
        }
        let worst = self
            .rounding
            .iter()
            .fold(S::Scalar::zero(), |m, r| m.max(*r))
            * dt.abs();
        if worst > extent {
            return Err(StepError::StepTooLong {
                dt: dt.to_f64(),
                uncertainty: worst.to_f64(),
                extent: extent.to_f64(),
            });
        }
        Ok(())
    }
}

/// `r(D) = D − f(t + dt, y + D dt)`, into `out`, with `end` left at `y + D dt` and
/// `end_rate` at its rate.
#[allow(clippy::too_many_arguments)]
#[inline]
fn residual<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    end_time: S::Scalar,
    dt: S::Scalar,
    rate: &DerivativeOf<S>,
    end: &mut S,
    end_rate: &mut DerivativeOf<S>,
    out: &mut DerivativeOf<S>,
) {
    state.probe_into(rate, dt, end);
    end.derivative_into(forces, end_time, end_rate);
    out.assign(rate);
    out.add_scaled_assign(end_rate, -S::Scalar::one());
}

/// Forces paired with their analytic Jacobian, for [`BackwardEuler`].
///
/// `jacobian(state, t, J)` fills `J[(i, j)] = ∂fᵢ/∂yⱼ`; see [`Jacobian`] for the indexing.
///
/// # Example
///
/// A damped spring on a particle of mass `m`: position rate `p/m`, momentum rate
/// `−k x − b p/m`.
///
/// ```
/// use timestep::{BackwardEuler, Integrator, Jacobian, Particle, WithJacobian};
///
/// let (k, b, m) = (15.0, 0.1, 2.0);
/// let forces = WithJacobian::new(
///     move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity(),
///     move |_: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| {
///         j[(0, 1)] = 1.0 / m;
///         j[(1, 0)] = -k;
///         j[(1, 1)] = -b / m;
///     },
/// );
/// let mut particle = Particle::new(m, 1.0, 0.0);
/// BackwardEuler::new().step(&mut particle, &forces, 0.0, 0.1)?;
/// # use timestep::State;
/// // The linear solve, done by hand: (1 + b dt/m + k dt²/m) v = v₀ − k x₀ dt / m.
/// let v = (0.0 - k * 1.0 * 0.1 / m) / (1.0 + b * 0.1 / m + k * 0.01 / m);
/// assert!((particle.velocity() - v).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WithJacobian<F, J> {
    /// The forces.
    pub forces: F,
    /// Fills the Jacobian of the state's derivative.
    pub jacobian: J,
}

impl<F, J> WithJacobian<F, J> {
    /// Pairs `forces` with `jacobian`.
    pub const fn new(forces: F, jacobian: J) -> Self {
        WithJacobian { forces, jacobian }
    }
}

impl<S, F, J> Forces<S> for WithJacobian<F, J>
where
    S: State,
    F: Forces<S>,
    J: Fn(&S, S::Scalar, &mut Jacobian<'_, S::Scalar>),
{
    #[inline]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self.forces.force(state, t)
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        self.forces.force_into(state, t, out);
    }

    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        (self.jacobian)(state, t, jacobian);
        true
    }
}

/// Serde goes through the public settings, checked again on the way in as
/// [`with_tolerance`](BackwardEuler::with_tolerance) and
/// [`with_max_iterations`](BackwardEuler::with_max_iterations) check them.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::{BackwardEuler, Structure};
    use core::fmt;

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "BackwardEuler", deny_unknown_fields)]
    pub struct Settings {
        tolerance: Option<f64>,
        max_iterations: usize,
        #[serde(default)]
        structure: Structure,
    }

    /// A setting [`BackwardEuler`] would refuse.
    #[derive(Debug)]
    pub struct InvalidSettings(&'static str);

    impl fmt::Display for InvalidSettings {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl From<BackwardEuler> for Settings {
        fn from(solver: BackwardEuler) -> Self {
            Settings {
                tolerance: solver.tolerance,
                max_iterations: solver.max_iterations,
                structure: solver.structure,
            }
        }
    }

    impl TryFrom<Settings> for BackwardEuler {
        type Error = InvalidSettings;

        fn try_from(settings: Settings) -> Result<Self, Self::Error> {
            if let Some(tolerance) = settings.tolerance {
                if !(tolerance.is_finite() && tolerance > 0.0) {
                    return Err(InvalidSettings(
                        "BackwardEuler tolerance must be finite and positive",
                    ));
                }
            }
            if settings.max_iterations == 0 {
                return Err(InvalidSettings(
                    "BackwardEuler needs at least one Newton iteration",
                ));
            }
            Ok(BackwardEuler {
                tolerance: settings.tolerance,
                max_iterations: settings.max_iterations,
                structure: settings.structure,
            })
        }
    }
}
