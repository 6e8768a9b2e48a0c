//! Beeman's algorithm: positions and velocities from the force now, at the last step and
//! at the end of the step.

use crate::integrators::{Properties, Scheme, Stepper, continues_evenly};
use crate::{Forces, Scalar, State, StepError, Vector};

/// Beeman's algorithm: positions from the force now and one step ago, velocities from
/// the forces one step ago, now and at the end of the step.
///
/// ```text
/// x(t + dt) = x(t) + v(t) dt + (4 a(t) − a(t − dt)) dt²/6
/// v(t + dt) = v(t) + (2 a(t + dt) + 5 a(t) − a(t − dt)) dt/6
/// ```
///
/// D. Beeman, "Some multistep methods for use in molecular dynamics calculations",
/// J. Comput. Phys. 20 (1976) 130–139. Written for any [`State`]: the position update is a
/// drift along the velocity of a probe kicked by `(4F(t) − F(t − dt)) dt/6`, the velocity
/// update a kick by `(2F(t + dt) + 5F(t) − F(t − dt))/6`.
///
/// Its positions follow Störmer–Verlet's recurrence `x(t + dt) = 2x(t) − x(t − dt) +
/// a(t) dt²` (subtract two steps of the formulas above), from a different start; its
/// velocities are more accurate (third order locally, where Verlet's are second). The force at the end of the step is seen at
/// the velocity predicted by the second-order Adams–Bashforth formula,
/// `v(t) + (3a(t) − a(t − dt)) dt/2`, so that with velocity-dependent forces (drag) the
/// method stays second order; that force is the next step's `F(t)`.
///
/// **Bootstrap.** With no history (the first step, after [`Stepper::reset`], when `t` is
/// not where the last step ended or `dt` changed) the step is a velocity Verlet step:
/// `a(t − dt)` is taken as `a(t)` for the positions and the velocity is advanced by
/// `(a(t) + a(t + dt)) dt/2`.
///
/// - **Order** 2 (global; velocities locally of order 3). **Not symplectic**, but its
///   positions are Verlet's and its energy stays in a band without drift: on the unit
///   oscillator at `dt = 0.1`, 8.2·10⁻⁴ over 10⁶ steps, a third of Verlet's
///   (`tests/timestep/integrators/long_runs.rs`).
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2`, as Verlet.
/// - **Cost**: one force evaluation per step (two on a bootstrap step).
///
/// **A method with a history**, so it is stepped through a [`Stepper`], which
/// [`Beeman::new`] makes: the forces it remembers belong to the state it last stepped;
/// call [`reset`](Stepper::reset) after moving a state by hand.
///
/// # Example
///
/// ```
/// use timestep::{Beeman, Integrator, Particle, PositionVerlet};
///
/// let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
/// let mut beeman_particle = Particle::new(1.0, 1.0, 0.0);
/// let mut verlet_particle = beeman_particle;
/// let (mut beeman, mut verlet) = (Beeman::new(), PositionVerlet::new());
/// for i in 0..1000 {
///     let t = i as f64 * 0.01;
///     beeman.step(&mut beeman_particle, &spring, t, 0.01)?;
///     verlet.step(&mut verlet_particle, &spring, t, 0.01)?;
/// }
/// // Störmer–Verlet's positions, up to the different start (5·10⁻⁷ here).
/// assert!((beeman_particle.position() - verlet_particle.position()).abs() < 1e-6);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Beeman;

impl Beeman {
    /// A stepper for Beeman's algorithm with no history yet: its first step is a velocity
    /// Verlet step.
    // A method with a history is only ever stepped through a stepper, so `new` makes one.
    #[allow(clippy::new_ret_no_self)]
    #[must_use]
    pub const fn new<S: State>() -> Stepper<Beeman, S> {
        Stepper::new(Beeman)
    }
}

/// What Beeman's algorithm remembers (the forces at the last two step ends, the last
/// step's length and end), and the buffers of the next step.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct BeemanWorkspace<S: State> {
    memory: Option<(S::Scalar, S::Scalar)>,
    previous: S::Force,
    current: S::Force,
    end: S::Force,
    sum: S::Force,
    velocity: S::Velocity,
    probe: S,
}

impl Scheme for Beeman {
    type Workspace<S: State> = BeemanWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let rate = state.zero_rate();
        BeemanWorkspace {
            memory: None,
            previous: rate.force.clone(),
            current: rate.force.clone(),
            end: rate.force.clone(),
            sum: rate.force,
            velocity: rate.velocity,
            probe: state.clone(),
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
        let BeemanWorkspace {
            memory,
            previous,
            current,
            end,
            sum,
            velocity,
            probe,
        } = workspace;
        let c = |x: f64| S::Scalar::from_f64(x);
        let continuing = continues_evenly(*memory, t, dt);
        if !continuing {
            crate::state::force_into(forces, state, t, current);
            previous.assign(current);
        }
        // x += (v + (4F − F₋₁) dt/6m) dt
        sum.assign(current);
        sum.scale_assign(c(4.0 / 6.0));
        sum.add_scaled_assign(previous, c(-1.0 / 6.0));
        probe.clone_from(state);
        probe.kick_by(sum, dt);
        probe.velocity_into(velocity);
        state.drift_by(velocity, dt);
        // The force at the end, at the velocity v + (3a − a₋₁) dt/2.
        sum.assign(current);
        sum.scale_assign(c(1.5));
        sum.add_scaled_assign(previous, c(-0.5));
        probe.clone_from(state);
        probe.kick_by(sum, dt);
        crate::state::force_into(forces, probe, t + dt, end);
        // v += (2a₊₁ + 5a − a₋₁) dt/6, or Verlet's (a + a₊₁) dt/2 on a bootstrap step.
        if continuing {
            sum.assign(end);
            sum.scale_assign(c(2.0 / 6.0));
            sum.add_scaled_assign(current, c(5.0 / 6.0));
            sum.add_scaled_assign(previous, c(-1.0 / 6.0));
        } else {
            sum.assign(end);
            sum.scale_assign(c(0.5));
            sum.add_scaled_assign(current, c(0.5));
        }
        state.kick_by(sum, dt);
        core::mem::swap(previous, current);
        core::mem::swap(current, end);
        *memory = Some((dt, t + dt));
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("beeman", 2, 1)
    }
}
