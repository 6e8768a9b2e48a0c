//! Semi-implicit (symplectic) Euler: kick, then drift with the new velocity.

use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, State, StepError};

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

/// The buffers of a semi-implicit Euler step: the force and the velocity after the kick.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct SemiImplicitEulerWorkspace<S: State> {
    force: S::Force,
    velocity: S::Velocity,
}

impl Scheme for SemiImplicitEuler {
    type Workspace<S: State> = SemiImplicitEulerWorkspace<S>;

    #[inline(always)]
    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let rate = state.zero_rate();
        SemiImplicitEulerWorkspace {
            force: rate.force,
            velocity: rate.velocity,
        }
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
        let SemiImplicitEulerWorkspace { force, velocity } = workspace;
        crate::state::force_into(forces, state, t, force);
        state.kick_drift(force, dt, dt, velocity);
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("semi-implicit-euler", 1, 1).symplectic()
    }
}

impl Memoryless for SemiImplicitEuler {}
