//! The implicit midpoint rule: the rate at the middle of the step, taken at the mean of
//! both ends.

use super::newton::Rule;
use super::settings::ImplicitSettings;
use super::settings::{newton_builders, one_stage_scheme};
use crate::integrators::Properties;

/// The implicit midpoint rule: the step takes the rate at its middle, evaluated at the mean
/// of the states at its two ends.
///
/// ```text
/// y(t + dt) = y(t) + dt · f(t + dt/2, (y(t) + y(t + dt)) / 2)
/// ```
///
/// Each step solves for the step's rate `D = (y(t + dt) − y(t)) / dt` with the Newton
/// iteration [`BackwardEuler`](crate::BackwardEuler) uses, on
/// `r(D) = D − f(t + dt/2, y + D dt/2)`, whose matrix is `I − (dt/2) ∂f/∂y`: the same
/// settings (tolerance, iterations, a [banded](crate::Structure::Banded) or analytic
/// Jacobian through [`Forces::jacobian`](crate::Forces::jacobian) or [`WithJacobian`](crate::WithJacobian)), the
/// same errors, the same stack or heap workspace. (It is the one-stage Gauss–Legendre
/// Runge–Kutta method.)
///
/// - **Order** 2, **symplectic** and **time-reversible**: stepping by `-dt` undoes a step
///   (to the Newton tolerance). It keeps every quadratic invariant exactly (angular
///   momentum, a linear oscillator's energy), and on a conservative system any energy
///   within a bound forever. On a [`Particle`](crate::Particle) the state is linear, so the
///   mean of the ends is the midpoint probe exactly; a rigid body's probe is renormalized,
///   which keeps its orientation a unit quaternion at the cost of exact symplecticity.
/// - **Stability**: A-stable, with the trapezoidal rule's `R(z) = (1 + z/2) / (1 − z/2)` on
///   linear systems: `|R(iθ)| = 1` at every step and stiffness, and very stiff modes flip
///   sign each step instead of decaying (not L-stable).
/// - **Cost**: one force evaluation at the start (the Newton iteration's first guess), then
///   per Newton iteration one, plus with finite differences one per coordinate (or per
///   diagonal of a band); a linear system converges in one iteration plus the check.
///   Through a [`Stepper`](crate::Stepper) the factored matrix is kept from step to step,
///   as [`BackwardEuler`](crate::BackwardEuler) keeps it, and a step that continues the
///   last starts from that step's rate, with no evaluation at its start.
///
/// With `dt = 0` the state is untouched, a negative `dt` integrates backwards, and a
/// non-finite `t`, `dt` or force is refused ([`StepError`](crate::StepError)) with the state unchanged, as
/// for every method ([`Integrator`](crate::Integrator)); a step too long for the state's
/// precision returns [`StepError::StepTooLong`](crate::StepError::StepTooLong).
///
/// Use it for long runs of stiff conservative systems: a symplectic method with no step
/// limit.
///
/// # Example
///
/// A spring of k = 10⁶ at 60 Hz, `ω dt = 16.7`, far past every explicit method's limit,
/// keeps its energy; stepping back returns to the start:
///
/// ```
/// use timestep::{ImplicitMidpoint, Integrator, Particle, State};
///
/// let stiff = |p: &Particle<f64>, _t: f64| -1.0e6 * p.position();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) + 0.5e6 * p.position().powi(2);
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// let dt = 1.0 / 60.0;
/// for i in 0..600 {
///     ImplicitMidpoint::new().step(&mut particle, &stiff, i as f64 * dt, dt)?;
/// }
/// assert!((energy(&particle) / 0.5e6 - 1.0).abs() < 1e-12);
/// for i in (0..600).rev() {
///     ImplicitMidpoint::new().step(&mut particle, &stiff, (i + 1) as f64 * dt, -dt)?;
/// }
/// assert!((particle.position() - 1.0).abs() < 1e-9);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "gauss-legendre")]
pub struct ImplicitMidpoint {
    newton: ImplicitSettings,
}

/// The rule: the stage in the middle of the step, the whole of its rate.
const RULE: Rule = Rule {
    stage: 0.5,
    velocity_weight: 1.0,
    force_weight: 1.0,
    start_kick: 0.0,
};

impl ImplicitMidpoint {
    /// The implicit midpoint rule with the default Newton settings (those of
    /// [`BackwardEuler::new`](crate::BackwardEuler::new)).
    ///
    /// ```
    /// use timestep::{ImplicitMidpoint, Scheme};
    ///
    /// let properties = ImplicitMidpoint::new().properties();
    /// assert_eq!((properties.name, properties.order), ("implicit-midpoint", 2));
    /// assert!(properties.symplectic && properties.implicit);
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        ImplicitMidpoint {
            newton: ImplicitSettings::new(),
        }
    }
}

newton_builders!(ImplicitMidpoint);
#[cfg(feature = "serde")]
super::settings::newton_serde!(ImplicitMidpoint, "ImplicitMidpoint");

one_stage_scheme!(
    ImplicitMidpoint,
    RULE,
    Properties::explicit("implicit-midpoint", 2, 1)
        .symplectic()
        .implicit()
);
