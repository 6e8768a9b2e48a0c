//! The Verlet family: velocity Verlet and Störmer's position form.

use super::{half, should_step};
use crate::{Forces, Integrator, Scalar, State, StepError, VectorSpace};
use num_traits::Float;

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
/// positions alone it is exactly the textbook kick–drift–kick.
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

impl<S: State> Integrator<S> for Verlet {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let start = forces.force(state, t);
            state.kick(start, half(dt));
            let velocity = state.velocity();
            state.drift(velocity, dt);
            let end = forces.force(&predicted(state, start, dt), t + dt);
            state.kick(end, half(dt));
        }
        Ok(())
    }
}

/// The state after a half kick, `start` kicked by another half step: its positions are the
/// new ones and its velocity is the Euler prediction `v(t) + a(t) dt` of the end-of-step
/// velocity. Velocity-dependent forces evaluated there keep the method second order.
#[inline]
fn predicted<S: State>(half_kicked: &S, start_force: S::Force, dt: S::Scalar) -> S {
    let mut probe = half_kicked.clone();
    probe.kick(start_force, half(dt));
    probe
}

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
/// **Bootstrap.** With no memory (the first step, after [`reset`](PositionVerlet::reset),
/// or when `t` is not where the last step ended) the step starts from the state's velocity:
/// `u = v + a dt/2`, so its positions match [`Verlet`]'s exactly in exact arithmetic.
///
/// **Velocity.** The state's velocity is still kept up to date, for energy and for
/// velocity-dependent forces, by the kicks velocity Verlet would make:
/// `v(t + dt) = v(t) + (a(t) + a(t + dt)) · dt/2`, with `a(t + dt)` seen at the predicted
/// velocity `v(t) + a(t) dt`, as in [`Verlet`].
///
/// - **Order** 2, **symplectic**, time-reversible (a step of `-dt` after a step of `dt`
///   returns to the start).
/// - **Stability**: an undamped oscillator is stable for `ω dt ≤ 2`, i.e. `k ≤ 4 m / dt²`.
/// - **Cost**: two force evaluations per step.
///
/// **One trajectory per integrator.** The memory belongs to the state it last stepped;
/// give each body its own `PositionVerlet`, and call [`reset`](PositionVerlet::reset) after
/// moving a state by hand. (A memory that does not match is noticed only through `t`.)
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
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound(
        serialize = "S::Velocity: serde::Serialize, S::Scalar: serde::Serialize",
        deserialize = "S::Velocity: serde::Deserialize<'de>, S::Scalar: serde::Deserialize<'de>"
    ))
)]
pub struct PositionVerlet<S: State> {
    memory: Option<LastStep<S>>,
}

#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound(
        serialize = "S::Velocity: serde::Serialize, S::Scalar: serde::Serialize",
        deserialize = "S::Velocity: serde::Deserialize<'de>, S::Scalar: serde::Deserialize<'de>"
    ))
)]
struct LastStep<S: State> {
    displacement_rate: S::Velocity,
    dt: S::Scalar,
    end: S::Scalar,
}

impl<S: State> PositionVerlet<S> {
    /// An integrator with no memory yet: its first step bootstraps from the velocity.
    pub const fn new() -> Self {
        PositionVerlet { memory: None }
    }

    /// Forgets the last step, so the next one bootstraps from the state's velocity.
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
    pub fn reset(&mut self) {
        self.memory = None;
    }
}

impl<S: State> Default for PositionVerlet<S> {
    fn default() -> Self {
        Self::new()
    }
}

impl<S: State> Integrator<S> for PositionVerlet<S> {
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
        let force = forces.force(state, t);
        // a·dt in velocity coordinates, whatever the state's mass or inertia: the change
        // of the velocity a kick makes, plus (central difference) the change a drift makes,
        // for velocities that depend on the positions too (a rigid body's spin `½ ω q`
        // turns with `q`; a particle's velocity does not, and that term is exactly zero).
        let mut kicked = state.clone();
        kicked.kick(force, dt);
        let velocity = state.velocity();
        let (mut ahead, mut behind) = (state.clone(), state.clone());
        ahead.drift(velocity, half(dt));
        behind.drift(velocity, -half(dt));
        let acceleration_dt = kicked
            .velocity()
            .sub(velocity)
            .add(ahead.velocity().sub(behind.velocity()));

        let tolerance = S::Scalar::epsilon().sqrt() * (t.abs() + dt.abs());
        let displacement_rate = match &self.memory {
            Some(last) if (t - last.end).abs() <= tolerance => {
                let stretch = half(dt + last.dt) / dt;
                last.displacement_rate.add_scaled(acceleration_dt, stretch)
            }
            _ => state
                .velocity()
                .add_scaled(acceleration_dt, S::Scalar::from_f64(0.5)),
        };

        state.kick(force, half(dt));
        state.drift(displacement_rate, dt);
        let end_force = forces.force(&predicted(state, force, dt), t + dt);
        state.kick(end_force, half(dt));

        self.memory = Some(LastStep {
            displacement_rate,
            dt,
            end: t + dt,
        });
        Ok(())
    }
}
