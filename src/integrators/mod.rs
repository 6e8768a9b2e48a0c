//! [`Integrator`] and the methods that implement it, one file per family.

mod backward_euler;
mod euler;
mod method;
mod runge_kutta;
mod verlet;

pub use backward_euler::{BackwardEuler, Jacobian, WithJacobian};
pub use euler::{ExplicitEuler, SemiImplicitEuler};
pub use method::{Method, ParseMethodError};
pub use runge_kutta::{ImprovedEuler, Midpoint, Rk4};
pub use verlet::{PositionVerlet, Verlet};

use crate::{Forces, Scalar, State, StepError};

/// A method that advances a state by one time step.
///
/// `step(&mut state, &forces, t, dt)` moves `state` from time `t` to `t + dt` under
/// `forces`. What every method does with unusual input:
///
/// - `dt = 0`: returns `Ok` at once; the state is untouched and no force is evaluated.
/// - `dt < 0`: integrates backwards in time, which is legal.
/// - `t` or `dt` infinite or `NaN`: returns [`StepError::NonFiniteTime`]; the state is
///   untouched.
/// - forces that return infinity or `NaN`: explicit methods carry them into the state (check
///   with [`VectorSpace::is_finite`](crate::VectorSpace::is_finite) if your forces can);
///   [`BackwardEuler`] refuses the step.
///
/// Methods are unit structs with no memory, except [`PositionVerlet`], which remembers the
/// last step of the one trajectory it steps, and [`BackwardEuler`], which holds its solver
/// settings.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Method, Particle};
///
/// let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
/// for method in Method::all() {
///     let mut integrator = method;
///     let mut particle = Particle::new(1.0, 1.0, 0.0);
///     integrator.step(&mut particle, &spring, 0.0, 0.001)?;
///     assert!((particle.position() - 1.0).abs() < 1e-5, "{method}");
/// }
/// # Ok::<(), timestep::StepError>(())
/// ```
pub trait Integrator<S: State> {
    /// Advances `state` from `t` to `t + dt` under `forces`; see the trait docs for what
    /// happens with zero, negative and non-finite input.
    ///
    /// # Errors
    ///
    /// [`StepError`] when `t` or `dt` is not finite, or (backward Euler) when the implicit
    /// solve fails. The state is then unchanged.
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError>;
}

/// Whether a step should run: `Ok(true)` for a finite non-zero `dt`, `Ok(false)` for
/// `dt = 0` (nothing to do), an error for non-finite time.
#[inline]
pub(crate) fn should_step<S: Scalar>(t: S, dt: S) -> Result<bool, StepError> {
    if !(t.is_finite() && dt.is_finite()) {
        return Err(non_finite_time(t, dt));
    }
    Ok(dt != S::zero())
}

/// The error for a non-finite `t` or `dt`, out of line and cold: a caller stepping in a loop
/// with `t = i·dt` has this exit in every iteration, and marked cold it costs that loop less
/// (a rigid body's semi-implicit Euler step: +4.5–7.4% over hand-written code before,
/// +0.6–4.5% after; see BENCHMARKS.md).
#[cold]
#[inline(never)]
fn non_finite_time<S: Scalar>(t: S, dt: S) -> StepError {
    StepError::NonFiniteTime {
        t: t.to_f64(),
        dt: dt.to_f64(),
    }
}

/// `x / 2` in the state's precision.
#[inline]
pub(crate) fn half<S: Scalar>(x: S) -> S {
    x * S::from_f64(0.5)
}
