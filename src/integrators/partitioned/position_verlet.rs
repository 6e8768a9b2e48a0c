//! Störmer–Verlet in its position form: the positions advance from the last step's
//! displacement, not from the velocity.

use super::verlet::predict;
use crate::integrators::{Properties, Scheme, Stepper, continues, half};
use crate::{Forces, Scalar, State, StepError, Vector};
use num_traits::One;

/// Störmer–Verlet in its position form, with no stored velocity:
/// `x(t + dt) = 2x(t) − x(t − dt) + a(t) · dt²`.
///
/// The positions advance from the integrator's memory of the last step, not from the
/// state's velocity. The memory is the last displacement per unit time,
/// `u = (x(t) − x(t − dt)) / dt`, and the recurrence is applied in its summed form
///
/// ```text
/// u(t + dt/2) = u(t − dt/2) + a(t) · dt
/// x(t + dt)   = x(t) + u(t + dt/2) · dt
/// ```
///
/// which is the same formula without the cancellation of `2x(t) − x(t − dt)`. A step of a
/// different length uses the variable-step form `u += a · (dt + dt_previous) / 2`.
///
/// `a` is the full rate of change of the state's velocity: the part the forces make
/// (measured by a kick) plus, for states whose velocity depends on their positions, the
/// part the motion makes (measured by a central difference of two half-step drifts). A
/// particle's velocity does not depend on its position and that part is exactly zero; a
/// rigid body's spin `½ ω q` turns with `q`, and without it the body would stop turning.
///
/// **Bootstrap.** With no memory (the first step, after [`Stepper::reset`],
/// or when `t` is not where the last step ended) the step starts from the state's velocity:
/// `u = v + a dt/2`, so its positions match [`Verlet`](crate::Verlet)'s exactly in exact arithmetic.
///
/// **Velocity.** The state's velocity is still kept up to date, for energy and for
/// velocity-dependent forces, by the kicks velocity Verlet would make:
/// `v(t + dt) = v(t) + (a(t) + a(t + dt)) · dt/2`, with `a(t + dt)` seen at the predicted
/// velocity `v(t) + a(t) dt`, as in [`Verlet`](crate::Verlet).
///
/// - **Order** 2, **symplectic**, time-reversible (a step of `-dt` after a step of `dt`
///   returns to the start).
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2`, i.e. `k ≤ 4 m / dt²`.
/// - **Cost**: two force evaluations per step.
///
/// **A method with a history**, so it is stepped through a [`Stepper`], which
/// [`PositionVerlet::new`] makes: the memory lives in the stepper's workspace and belongs
/// to the state it last stepped. Give each body its own stepper, and call
/// [`reset`](Stepper::reset) after moving a state by hand. (A memory that does not match is
/// noticed only through `t`: it is used when `t` is where the last step ended, to within
/// rounding of `t` and never more than a quarter step.)
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Particle, PositionVerlet, Verlet};
///
/// let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
/// let mut by_position = Particle::new(1.0, 1.0, 0.0);
/// let mut by_velocity = by_position;
/// let mut integrator = PositionVerlet::new();
/// for i in 0..1000 {
///     let t = i as f64 * 0.01;
///     integrator.step(&mut by_position, &spring, t, 0.01)?;
///     Verlet.step(&mut by_velocity, &spring, t, 0.01)?;
/// }
/// assert!((by_position.position() - by_velocity.position()).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct PositionVerlet;

impl PositionVerlet {
    /// A stepper for position Verlet with no memory yet: its first step bootstraps from the
    /// velocity.
    ///
    /// ```
    /// use timestep::{Integrator, Particle, PositionVerlet};
    ///
    /// let mut integrator = PositionVerlet::new();
    /// let mut particle = Particle::new(1.0, 0.0, 1.0);
    /// let free = |_: &Particle<f64>, _t: f64| 0.0;
    /// integrator.step(&mut particle, &free, 0.0, 1.0)?;
    /// particle.set_velocity(-1.0); // moved by hand...
    /// integrator.reset(); // ...so the memory of the old velocity must go
    /// integrator.step(&mut particle, &free, 1.0, 1.0)?;
    /// assert_eq!(particle.position(), 0.0);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    // A method with a history is only ever stepped through a stepper, so `new` makes one.
    #[allow(clippy::new_ret_no_self)]
    #[must_use]
    pub const fn new<S: State>() -> Stepper<PositionVerlet, S> {
        Stepper::new(PositionVerlet)
    }
}

/// What position Verlet remembers of the last step, and the buffers of the next.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct PositionVerletWorkspace<S: State> {
    /// The last step's displacement per unit time, its length and its end time.
    memory: Option<(S::Scalar, S::Scalar)>,
    displacement_rate: S::Velocity,
    force: S::Force,
    end_force: S::Force,
    velocity: S::Velocity,
    acceleration_dt: S::Velocity,
    ahead: S::Velocity,
    behind: S::Velocity,
    probe: S,
}

impl Scheme for PositionVerlet {
    type Workspace<S: State> = PositionVerletWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let rate = state.zero_rate();
        PositionVerletWorkspace {
            memory: None,
            displacement_rate: rate.velocity.clone(),
            force: rate.force.clone(),
            end_force: rate.force,
            velocity: rate.velocity.clone(),
            acceleration_dt: rate.velocity.clone(),
            ahead: rate.velocity.clone(),
            behind: rate.velocity,
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
        let PositionVerletWorkspace {
            memory,
            displacement_rate,
            force,
            end_force,
            velocity,
            acceleration_dt,
            ahead,
            behind,
            probe,
        } = workspace;
        crate::state::force_into(forces, state, t, force);
        // a·dt in velocity coordinates, whatever the state's mass or inertia: the change
        // of the velocity a kick makes, plus (central difference) the change a drift makes,
        // for velocities that depend on the positions too (a rigid body's spin `½ ω q`
        // turns with `q`; a particle's velocity does not, and that term is exactly zero).
        state.velocity_into(velocity);
        probe.clone_from(state);
        probe.kick_by(force, dt);
        probe.velocity_into(acceleration_dt);
        acceleration_dt.add_scaled_assign(velocity, -S::Scalar::one());
        for (buffer, direction) in [
            (&mut *ahead, S::Scalar::one()),
            (&mut *behind, -S::Scalar::one()),
        ] {
            probe.clone_from(state);
            probe.drift_by(velocity, half(dt) * direction);
            probe.velocity_into(buffer);
        }
        ahead.add_scaled_assign(behind, -S::Scalar::one());
        acceleration_dt.add_scaled_assign(ahead, S::Scalar::one());

        match *memory {
            Some((last_dt, last_end)) if continues(last_end, t, dt) => {
                let stretch = half(dt + last_dt) / dt;
                displacement_rate.add_scaled_assign(acceleration_dt, stretch);
            }
            _ => {
                displacement_rate.assign(velocity);
                displacement_rate.add_scaled_assign(acceleration_dt, S::Scalar::from_f64(0.5));
            }
        }

        state.kick_by(force, half(dt));
        state.drift_by(displacement_rate, dt);
        predict(state, force, dt, probe);
        crate::state::force_into(forces, probe, t + dt, end_force);
        state.kick_by(end_force, half(dt));
        *memory = Some((dt, t + dt));
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("position-verlet", 2, 2).symplectic()
    }
}
