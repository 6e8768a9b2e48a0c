//! Backward (implicit) Euler, solved by Newton's method, and the Jacobian it works with.

use super::should_step;
use crate::{DerivativeOf, Forces, Integrator, Scalar, State, StepError, VectorSpace};
use core::ops::{Index, IndexMut};
use num_traits::{Float, One, Zero};

/// Backward (implicit) Euler: the state at the end of the step is defined by its own
/// derivative, `y(t + dt) = y(t) + f(t + dt, y(t + dt)) · dt`.
///
/// Each step solves for the end-of-step derivative `D` with Newton's method on
/// `r(D) = D − f(t + dt, y + D dt) = 0`, starting from the derivative at the start of the
/// step. The Jacobian `I − dt ∂f/∂y` comes from the forces when they give one
/// ([`Forces::jacobian`], or [`WithJacobian`] for a closure), and otherwise from forward
/// differences, one force evaluation per coordinate. The iteration stops when the Newton
/// correction is at most `tolerance · (1 + |D|)` in the ∞-norm.
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
/// [`StepError::NotConverged`], and a singular Jacobian or a non-finite force return their
/// own errors; the state is then left unchanged. The solve works on the stack and holds at
/// most `N` unknowns (32 by default: enough for a rigid body, 13); a larger state returns
/// [`StepError::TooManyUnknowns`] and wants `BackwardEuler::<M>::default()` with a larger `M`.
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
pub struct BackwardEuler<const N: usize = 32> {
    tolerance: Option<f64>,
    max_iterations: usize,
}

impl BackwardEuler {
    /// A solver for up to 32 unknowns with the default tolerance (`ε^(2/3)` of the state's
    /// scalar: about `4·10⁻¹¹` in `f64`, `2·10⁻⁵` in `f32`) and
    /// [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS). For more unknowns, use
    /// `BackwardEuler::<N>::default()`.
    pub const fn new() -> Self {
        BackwardEuler {
            tolerance: None,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl<const N: usize> BackwardEuler<N> {
    /// Newton iterations allowed per step by default.
    pub const DEFAULT_MAX_ITERATIONS: usize = 20;

    /// The same solver with relative tolerance `tolerance`.
    ///
    /// # Panics
    ///
    /// If `tolerance` is not finite and positive.
    ///
    /// ```
    /// use timestep::BackwardEuler;
    ///
    /// let solver: BackwardEuler = BackwardEuler::new().with_tolerance(1e-12);
    /// assert_eq!(solver.tolerance(), Some(1e-12));
    /// ```
    #[track_caller]
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        assert!(
            tolerance.is_finite() && tolerance > 0.0,
            "BackwardEuler tolerance must be finite and positive, got {tolerance}"
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
    /// let solver: BackwardEuler = BackwardEuler::new().with_max_iterations(5);
    /// assert_eq!(solver.max_iterations(), 5);
    /// ```
    #[track_caller]
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

    /// The relative tolerance set, or `None` for the default of the state's precision.
    pub fn tolerance(&self) -> Option<f64> {
        self.tolerance
    }

    /// Newton iterations allowed per step.
    pub fn max_iterations(&self) -> usize {
        self.max_iterations
    }
}

impl<const N: usize> Default for BackwardEuler<N> {
    fn default() -> Self {
        BackwardEuler {
            tolerance: None,
            max_iterations: Self::DEFAULT_MAX_ITERATIONS,
        }
    }
}

impl<S: State, const N: usize> Integrator<S> for BackwardEuler<N> {
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if !should_step(t, dt)? {
            return Ok(());
        }
        let n = DerivativeOf::<S>::DIM;
        if n > N {
            return Err(StepError::TooManyUnknowns {
                unknowns: n,
                capacity: N,
            });
        }
        let one = S::Scalar::one();
        let tolerance = match self.tolerance {
            Some(tolerance) => S::Scalar::from_f64(tolerance),
            None => S::Scalar::epsilon().powf(S::Scalar::from_f64(2.0 / 3.0)),
        };
        let end_time = t + dt;
        let end_of_step = |rate: &DerivativeOf<S>| {
            let mut end = state.clone();
            end.advance(rate, dt);
            end
        };
        let residual = |rate: &DerivativeOf<S>| {
            let end = end_of_step(rate);
            rate.sub(end.derivative(forces, end_time))
        };

        let mut rate = state.derivative(forces, t);
        let mut matrix = [[S::Scalar::zero(); N]; N];
        let mut correction = S::Scalar::infinity();
        for iteration in 1..=self.max_iterations {
            let r = residual(&rate);
            if !r.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            for row in matrix.iter_mut().take(n) {
                row[..n].fill(S::Scalar::zero());
            }
            let end = end_of_step(&rate);
            let analytic = forces.jacobian(
                &end,
                end_time,
                &mut Jacobian::with_stride(matrix.as_flattened_mut(), n, N),
            );
            if analytic {
                for (i, row) in matrix.iter_mut().enumerate().take(n) {
                    for (j, entry) in row.iter_mut().enumerate().take(n) {
                        let identity = if i == j { one } else { S::Scalar::zero() };
                        *entry = identity - dt * *entry;
                    }
                }
            } else {
                let sqrt_epsilon = S::Scalar::epsilon().sqrt();
                for j in 0..n {
                    let h = sqrt_epsilon * rate.component(j).abs().max(one);
                    let mut nudged = rate;
                    nudged.set_component(j, rate.component(j) + h);
                    let h = nudged.component(j) - rate.component(j);
                    let column = residual(&nudged);
                    for (i, row) in matrix.iter_mut().enumerate().take(n) {
                        row[j] = (column.component(i) - r.component(i)) / h;
                    }
                }
            }

            let mut delta = [S::Scalar::zero(); N];
            for (i, d) in delta.iter_mut().enumerate().take(n) {
                *d = -r.component(i);
            }
            solve_in_place(&mut matrix, &mut delta, n)?;
            for (i, d) in delta.iter().enumerate().take(n) {
                rate.set_component(i, rate.component(i) + *d);
            }
            let step_size = delta[..n]
                .iter()
                .fold(S::Scalar::zero(), |m, d| m.max(d.abs()));
            correction = step_size / (one + rate.max_abs());
            if correction <= tolerance {
                *state = end_of_step(&rate);
                return Ok(());
            }
            if iteration == self.max_iterations {
                break;
            }
        }
        Err(StepError::NotConverged {
            iterations: self.max_iterations,
            correction: correction.to_f64(),
        })
    }
}

/// Solves `matrix · x = rhs` for the leading `n × n` block by Gaussian elimination with
/// partial pivoting, leaving `x` in `rhs`.
fn solve_in_place<S: Scalar, const N: usize>(
    matrix: &mut [[S; N]; N],
    rhs: &mut [S; N],
    n: usize,
) -> Result<(), StepError> {
    for col in 0..n {
        let pivot_row = (col..n)
            .max_by(|&a, &b| {
                matrix[a][col]
                    .abs()
                    .partial_cmp(&matrix[b][col].abs())
                    .unwrap_or(core::cmp::Ordering::Equal)
            })
            .unwrap_or(col);
        let pivot = matrix[pivot_row][col];
        if pivot == S::zero() || !pivot.is_finite() {
            return Err(StepError::SingularJacobian);
        }
        matrix.swap(col, pivot_row);
        rhs.swap(col, pivot_row);
        let (upper, lower) = matrix.split_at_mut(col + 1);
        let pivot_entries = &upper[col][col..n];
        for (below, row) in lower[..n - col - 1].iter_mut().enumerate() {
            let factor = row[col] / pivot;
            if factor != S::zero() {
                for (entry, &above) in row[col..n].iter_mut().zip(pivot_entries) {
                    *entry = *entry - factor * above;
                }
                let index = col + 1 + below;
                rhs[index] = rhs[index] - factor * rhs[col];
            }
        }
    }
    for row in (0..n).rev() {
        let mut sum = rhs[row];
        for k in row + 1..n {
            sum = sum - matrix[row][k] * rhs[k];
        }
        rhs[row] = sum / matrix[row][row];
    }
    Ok(())
}

/// A square matrix `J[(i, j)] = ∂fᵢ/∂yⱼ` that forces fill in for [`BackwardEuler`].
///
/// Indices follow the coordinates of the state's [`Derivative`](crate::Derivative):
/// velocity coordinates first, then force coordinates. For a
/// [`Particle`](crate::Particle) on a line, index 0 is the position (row: its rate, the
/// velocity) and index 1 the momentum (row: its rate, the force). Every entry starts at 0.
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
pub struct Jacobian<'a, S> {
    entries: &'a mut [S],
    dim: usize,
    stride: usize,
}

impl<'a, S> Jacobian<'a, S> {
    /// A `dim × dim` matrix over `entries`, row by row.
    ///
    /// # Panics
    ///
    /// If `entries` holds fewer than `dim²` values.
    #[track_caller]
    pub fn new(entries: &'a mut [S], dim: usize) -> Self {
        Self::with_stride(entries, dim, dim)
    }

    #[track_caller]
    fn with_stride(entries: &'a mut [S], dim: usize, stride: usize) -> Self {
        assert!(
            dim <= stride && entries.len() >= stride * dim,
            "a {dim} × {dim} Jacobian needs {} entries, got {}",
            stride * dim,
            entries.len()
        );
        Jacobian {
            entries,
            dim,
            stride,
        }
    }

    /// The number of rows (and columns).
    pub fn dim(&self) -> usize {
        self.dim
    }

    #[track_caller]
    fn offset(&self, (row, col): (usize, usize)) -> usize {
        assert!(
            row < self.dim && col < self.dim,
            "Jacobian index ({row}, {col}) is out of range for dimension {}",
            self.dim
        );
        row * self.stride + col
    }
}

impl<S> Index<(usize, usize)> for Jacobian<'_, S> {
    type Output = S;

    #[track_caller]
    fn index(&self, index: (usize, usize)) -> &S {
        &self.entries[self.offset(index)]
    }
}

impl<S> IndexMut<(usize, usize)> for Jacobian<'_, S> {
    #[track_caller]
    fn index_mut(&mut self, index: (usize, usize)) -> &mut S {
        let offset = self.offset(index);
        &mut self.entries[offset]
    }
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
/// BackwardEuler::<2>::default().step(&mut particle, &forces, 0.0, 0.1)?;
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

    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        (self.jacobian)(state, t, jacobian);
        true
    }
}

/// Serde goes through the public settings, checked again on the way in as
/// [`with_tolerance`](BackwardEuler::with_tolerance) and
/// [`with_max_iterations`](BackwardEuler::with_max_iterations) check them. The capacity `N`
/// is part of the type, not of the data.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::BackwardEuler;
    use core::fmt;

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "BackwardEuler", deny_unknown_fields)]
    pub struct Settings {
        tolerance: Option<f64>,
        max_iterations: usize,
    }

    /// A setting [`BackwardEuler`] would refuse.
    #[derive(Debug)]
    pub struct InvalidSettings(&'static str);

    impl fmt::Display for InvalidSettings {
        fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(self.0)
        }
    }

    impl<const N: usize> From<BackwardEuler<N>> for Settings {
        fn from(solver: BackwardEuler<N>) -> Self {
            Settings {
                tolerance: solver.tolerance,
                max_iterations: solver.max_iterations,
            }
        }
    }

    impl<const N: usize> TryFrom<Settings> for BackwardEuler<N> {
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
            })
        }
    }
}
