//! Leapfrog: drift, kick, drift.

use super::composition::{
    Coefficients, Composition, CompositionWorkspace, Sequence, drift_along_velocity,
};
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, State, StepError};

/// Leapfrog in its drift–kick–drift form (the "position Verlet" of Hairer, Lubich and
/// Wanner): half a drift, a full kick with the force at the middle of the step, half a
/// drift.
///
/// ```text
/// x(t + dt/2) = x(t) + v(t) · dt/2
/// p(t + dt)   = p(t) + F(t + dt/2, x(t + dt/2)) · dt
/// x(t + dt)   = x(t + dt/2) + v(t + dt) · dt/2
/// ```
///
/// **How it relates to velocity Verlet.** Both are Strang splittings of the same motion,
/// one kick–drift–kick ([`Verlet`](crate::Verlet)), this one drift–kick–drift. Over many
/// steps the half drifts of consecutive steps merge, and the run is velocity Verlet's
/// sequence of kicks and drifts shifted by half a step: the same method seen at other
/// times, with the same order, stability and energy behaviour. What differs is the
/// cost: one force evaluation per step here (the force at the middle), two for
/// [`Verlet`](crate::Verlet), which keeps no memory and so evaluates the start force anew.
///
/// - **Order** 2, **symplectic**, time-reversible, for forces that depend on positions
///   and time. The kick sees the velocity of the start of the step, so with a
///   velocity-dependent force (drag) the method is of order 1: use
///   [`Verlet`](crate::Verlet) there.
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2`, i.e. `k ≤ 4 m / dt²`.
/// - **Cost**: one force evaluation per step.
///
/// It is the composition base [`Composition<Leapfrog>`](crate::Composition) builds on
/// when its half drifts are merged.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Leapfrog, Particle, State};
///
/// let spring = |p: &Particle<f64>, _t: f64| -4.0 * p.position();
/// let mut particle = Particle::new(1.0, 1.0, 0.5);
/// Leapfrog.step(&mut particle, &spring, 0.0, 0.1)?;
/// Leapfrog.step(&mut particle, &spring, 0.1, -0.1)?;
/// assert!((particle.position() - 1.0).abs() < 1e-15);
/// assert!((particle.velocity() - 0.5).abs() < 1e-15);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Leapfrog;

/// One leapfrog step: the composition of one step of length 1.
pub(super) static LEAPFROG: Coefficients = Coefficients {
    name: "leapfrog",
    order: 2,
    sequence: Sequence::Composition(&[1.0]),
};

impl Scheme for Leapfrog {
    type Workspace<S: State> = CompositionWorkspace<S>;

    #[inline(always)]
    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        CompositionWorkspace::new(state, false)
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
        Composition::new(Leapfrog, &LEAPFROG).run(
            workspace,
            state,
            forces,
            t,
            dt,
            drift_along_velocity,
        );
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("leapfrog", 2, 1).symplectic()
    }
}

impl Memoryless for Leapfrog {}
