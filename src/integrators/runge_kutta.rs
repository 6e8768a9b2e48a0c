//! Explicit Runge–Kutta methods: midpoint, improved Euler (Heun) and classic RK4.

use super::{half, should_step};
use crate::{Forces, Integrator, Scalar, State, StepError, VectorSpace};

/// The derivative at time `t` of the state `start` advanced by `rate · dt` (its
/// [`probe`](State::probe)). Always inlined: left out of line (as the inliner chose once a
/// rigid body's recalculation was inlined into its probes) the probe and its derivative
/// go through memory, and RK4 on a body ran 15% slower than the same update by hand.
#[inline(always)]
fn sample<S: State, F: Forces<S> + ?Sized>(
    start: &S,
    rate: &crate::DerivativeOf<S>,
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
) -> crate::DerivativeOf<S> {
    start.probe(rate, dt).derivative(forces, t)
}

/// The explicit midpoint method: an Euler half step finds the slope at the middle of the
/// interval, which then carries the state across the whole step.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt/2, y + k₁ dt/2)
/// y(t + dt) = y + k₂ dt
/// ```
///
/// - **Order** 2.
/// - **Stability**: on an undamped oscillator the spectral radius is `√(1 + (ω dt)⁴/4) > 1`:
///   it gains energy for every `dt`, though far more slowly than explicit Euler.
/// - **Cost**: two force evaluations per step.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Midpoint};
///
/// // y' = -y from y = 1: one step of 0.1 gives 1 - 0.1 + 0.005.
/// let mut y = 1.0_f64;
/// Midpoint.step(&mut y, &|y: &f64, _t: f64| -y, 0.0, 0.1)?;
/// assert!((y - 0.905).abs() < 1e-15);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Midpoint;

impl<S: State> Integrator<S> for Midpoint {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let k1 = state.derivative(forces, t);
            let k2 = sample(state, &k1, forces, t + half(dt), half(dt));
            state.advance(&k2, dt);
        }
        Ok(())
    }
}

/// Improved Euler (Heun's method): average the slope at the start with the slope at an
/// Euler prediction of the end.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt, y + k₁ dt)
/// y(t + dt) = y + (k₁ + k₂) dt/2
/// ```
///
/// - **Order** 2.
/// - **Stability**: the same as [`Midpoint`] on an oscillator (the two share their
///   stability function `1 + z + z²/2`): spectral radius `√(1 + (ω dt)⁴/4) > 1`.
/// - **Cost**: two force evaluations per step.
///
/// # Example
///
/// ```
/// use timestep::{ImprovedEuler, Integrator};
///
/// // y' = t integrates exactly: the trapezoid rule is exact for a linear slope.
/// let mut y = 0.0_f64;
/// ImprovedEuler.step(&mut y, &|_: &f64, t: f64| t, 0.0, 2.0)?;
/// assert_eq!(y, 2.0);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ImprovedEuler;

impl<S: State> Integrator<S> for ImprovedEuler {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let k1 = state.derivative(forces, t);
            let k2 = sample(state, &k1, forces, t + dt, dt);
            state.advance(&k1.add(k2), half(dt));
        }
        Ok(())
    }
}

/// The classic fourth-order Runge–Kutta method.
///
/// ```text
/// k₁ = f(t, y)
/// k₂ = f(t + dt/2, y + k₁ dt/2)
/// k₃ = f(t + dt/2, y + k₂ dt/2)
/// k₄ = f(t + dt, y + k₃ dt)
/// y(t + dt) = y + (k₁ + 2k₂ + 2k₃ + k₄) dt/6
/// ```
///
/// - **Order** 4.
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2√2`, i.e.
///   `k ≤ 8 m / dt²`, but below that bound it loses energy every step (spectral radius
///   `< 1`): the amplitude decays, while the phase stays accurate.
/// - **Cost**: four force evaluations per step.
///
/// The method for accuracy: research, reference solutions, smooth forces.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Rk4};
///
/// let mut y = 1.0_f64;
/// for i in 0..10 {
///     Rk4.step(&mut y, &|y: &f64, _t: f64| -y, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-6);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rk4;

impl<S: State> Integrator<S> for Rk4 {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let two = S::Scalar::from_f64(2.0);
            let k1 = state.derivative(forces, t);
            let k2 = sample(state, &k1, forces, t + half(dt), half(dt));
            let k3 = sample(state, &k2, forces, t + half(dt), half(dt));
            let k4 = sample(state, &k3, forces, t + dt, dt);
            let weighted = k1.add(k2.add(k3).scale(two)).add(k4);
            state.advance(&weighted, dt / S::Scalar::from_f64(6.0));
        }
        Ok(())
    }
}
