//! The first-order explicit methods: explicit Euler and semi-implicit (symplectic) Euler.

use super::should_step;
use crate::{Forces, Integrator, State, StepError};

/// Explicit (forward) Euler: `y(t + dt) = y(t) + f(t, y(t)) · dt`.
///
/// Positions advance with the velocity at the start of the step, momenta with the force at
/// the start of the step.
///
/// - **Order** 1: the global error shrinks linearly with `dt`.
/// - **Stability**: on an undamped oscillator the one-step map has spectral radius
///   `√(1 + ω² dt²) > 1` for every `dt`: it gains energy, always. Damping `b` makes it stable
///   only while `b/m` outweighs `ω² dt`.
/// - **Cost**: one force evaluation per step.
///
/// Use it to learn from, or for forces that do not depend on position or velocity (there it
/// is exact for velocity). For anything that oscillates, prefer [`SemiImplicitEuler`].
///
/// # Example
///
/// The first article's experiment: 1 kg, 10 N, `dt = 1` s for 10 s lands at 450 m, not 500.
///
/// ```
/// use timestep::{ExplicitEuler, Integrator, Particle};
///
/// let mut car = Particle::new(1.0_f32, 0.0, 0.0);
/// let push = |_: &Particle<f32>, _t: f32| 10.0;
/// for i in 0..10 {
///     ExplicitEuler.step(&mut car, &push, i as f32, 1.0)?;
/// }
/// assert_eq!((car.position(), car.velocity()), (450.0, 100.0));
/// # use timestep::State;
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExplicitEuler;

impl<S: State> Integrator<S> for ExplicitEuler {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let rate = state.derivative(forces, t);
            state.advance(&rate, dt);
        }
        Ok(())
    }
}

/// Semi-implicit (symplectic) Euler: kick the momenta with the force at the start of the
/// step, then drift the positions with the *new* velocity.
///
/// ```text
/// p(t + dt) = p(t) + F(t, x(t), v(t)) · dt
/// x(t + dt) = x(t) + v(t + dt) · dt
/// ```
///
/// - **Order** 1, like explicit Euler, but **symplectic**: on a conservative system it keeps
///   a modified energy exactly, so the true energy oscillates within a bound, forever.
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2` (spectral radius 1),
///   i.e. `k ≤ 4 m / dt²`.
/// - **Cost**: one force evaluation per step.
///
/// What most game physics engines use, and the crate's recommendation for games.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Particle, SemiImplicitEuler, State};
///
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) + 7.5 * p.position().powi(2);
/// for i in 0..100_000 {
///     SemiImplicitEuler.step(&mut particle, &spring, i as f64 * 0.01, 0.01)?;
/// }
/// // Bounded: within about ω dt / 2 of the initial energy, even after 1000 s.
/// assert!((energy(&particle) / 7.5 - 1.0).abs() < 0.03);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct SemiImplicitEuler;

impl<S: State> Integrator<S> for SemiImplicitEuler {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let force = forces.force(state, t);
            state.kick(force, dt);
            let velocity = state.velocity();
            state.drift(velocity, dt);
        }
        Ok(())
    }
}
