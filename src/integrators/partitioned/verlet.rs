//! Velocity Verlet: kick, drift, kick.

use crate::integrators::{Memoryless, Properties, Scheme, half};
use crate::{Forces, State, StepError};

/// Velocity Verlet (kick–drift–kick leapfrog).
///
/// ```text
/// p(t + dt/2) = p(t) + F(t, x(t)) · dt/2
/// x(t + dt)   = x(t) + v(t + dt/2) · dt
/// p(t + dt)   = p(t + dt/2) + F(t + dt, x(t + dt)) · dt/2
/// ```
///
/// - **Order** 2, **symplectic** and **time-reversible**: stepping by `-dt` undoes a step
///   to rounding. Energy stays within a bound forever on conservative systems.
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2`, i.e. `k ≤ 4 m / dt²`.
/// - **Cost**: two force evaluations per step (this integrator keeps no memory between
///   steps, so it does not reuse the end-of-step force as the next start-of-step force).
///
/// The end-of-step force is evaluated at the new positions with the velocity predicted by a
/// full kick of the start force, `v(t) + a(t) dt` (accurate to `O(dt²)`), not at the
/// half-step velocity, whose `O(dt)` error would make velocity-dependent forces (drag) first
/// order. So the method stays second order with drag, and for forces that depend on
/// positions alone it is exactly the textbook kick–drift–kick. Forces declared
/// [`Positional`](crate::Positional) skip the prediction: their end force is evaluated on
/// the state itself, with the same result and one pass over the state fewer.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Particle, State, Verlet};
///
/// let spring = |p: &Particle<f64>, _t: f64| -4.0 * p.position();
/// let mut particle = Particle::new(1.0, 1.0, 0.5);
/// Verlet.step(&mut particle, &spring, 0.0, 0.1)?;
/// Verlet.step(&mut particle, &spring, 0.1, -0.1)?;
/// assert!((particle.position() - 1.0).abs() < 1e-15);
/// assert!((particle.velocity() - 0.5).abs() < 1e-15);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Verlet;

/// The buffers of a velocity Verlet step: the start force, the velocity after the first
/// half kick, and for forces that read momenta the end force and the predicted state it is
/// seen at.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct VerletWorkspace<S: State> {
    start: S::Force,
    velocity: S::Velocity,
    /// The end force and the predicted state, made on the first step whose forces read
    /// momenta: [`Positional`](crate::Positional) forces never use them, and for
    /// [`Particles`](crate::Particles) they are four of the workspace's six copies of the
    /// positions.
    #[cfg_attr(feature = "serde", serde(skip))]
    predicted: Option<(S::Force, S)>,
}

impl<S: State> VerletWorkspace<S> {
    #[inline(always)]
    pub(super) fn new(state: &S) -> Self {
        let rate = state.zero_rate();
        VerletWorkspace {
            start: rate.force,
            velocity: rate.velocity,
            predicted: None,
        }
    }
}

impl Scheme for Verlet {
    type Workspace<S: State> = VerletWorkspace<S>;

    #[inline(always)]
    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        VerletWorkspace::new(state)
    }

    #[inline(always)]
    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        let VerletWorkspace {
            start,
            velocity,
            predicted,
        } = workspace;
        crate::state::force_into(forces, state, t, start);
        state.kick_drift(start, half(dt), dt, velocity);
        let end = if forces.reads_momenta() {
            let (end, predicted) =
                predicted.get_or_insert_with(|| (state.zero_force(), state.clone()));
            predict(state, start, dt, predicted);
            crate::state::force_into(forces, predicted, t + dt, end);
            end
        } else {
            // The predicted momenta would not be read: the end force at the state itself,
            // into the start force's buffer, as a hand-written loop keeps one.
            crate::state::force_into(forces, state, t + dt, start);
            start
        };
        state.kick_by(end, half(dt));
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("verlet", 2, 2).symplectic()
    }
}

impl Memoryless for Verlet {}

/// Overwrites `predicted` with `half_kicked` kicked by another half step of `start_force`:
/// its positions are the new ones and its velocity is the Euler prediction `v(t) + a(t) dt`
/// of the end-of-step velocity. Velocity-dependent forces evaluated there keep the method
/// second order.
#[inline(always)]
pub(super) fn predict<S: State>(
    half_kicked: &S,
    start_force: &S::Force,
    dt: S::Scalar,
    predicted: &mut S,
) {
    half_kicked.kick_into(start_force, half(dt), predicted);
}
