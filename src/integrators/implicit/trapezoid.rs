//! The trapezoidal rule (Crank–Nicolson): the mean of the rates at both ends of the step.

use super::newton::Rule;
use super::settings::ImplicitSettings;
use super::settings::{newton_builders, one_stage_scheme};
use crate::integrators::Properties;

/// The trapezoidal rule (Crank–Nicolson for a discretised PDE): the step takes the mean of
/// the rates at its two ends.
///
/// ```text
/// y(t + dt) = y(t) + dt/2 · (f(t, y(t)) + f(t + dt, y(t + dt)))
/// ```
///
/// Each step solves for the step's rate `D = (y(t + dt) − y(t)) / dt` with the Newton
/// iteration [`BackwardEuler`](crate::BackwardEuler) uses, on
/// `r(D) = D − ½ f(t, y) − ½ f(t + dt, y + D dt)`, whose matrix is `I − (dt/2) ∂f/∂y`:
/// the same settings (tolerance, iterations, a [banded](crate::Structure::Banded) or
/// analytic Jacobian through [`Forces::jacobian`](crate::Forces::jacobian) or [`WithJacobian`](crate::WithJacobian)),
/// the same errors, the same stack or heap workspace.
///
/// - **Order** 2.
/// - **Stability**: A-stable: an oscillator is stable for every `dt` and every stiffness.
///   Its amplification factor `R(z) = (1 + z/2) / (1 − z/2)` has `|R(iθ)| = 1`, so it keeps
///   an undamped linear oscillator's amplitude and energy exactly, at any step (10⁵ steps
///   of a k = 10⁶ spring at 60 Hz, `ω dt = 16.7`, keep the energy to 10⁻¹²); the price of
///   that long step is phase: `R(iθ)` turns by `2 atan(θ/2)` instead of `θ`. It is not
///   L-stable: very stiff modes are not damped but flip sign each step (`R → −1`), which can
///   show as ringing where backward Euler would smooth.
/// - Not symplectic in general (it keeps quadratic invariants of linear systems only; it
///   is conjugate to the [`ImplicitMidpoint`](crate::ImplicitMidpoint) rule, which is).
/// - **Cost**: one force evaluation at the start, then per Newton iteration one, plus with
///   finite differences one per coordinate (or per diagonal of a band); a linear system
///   converges in one iteration plus the check. It keeps no memory of the state, so the
///   end-of-step force is not reused as the next start's; through a
///   [`Stepper`](crate::Stepper) it keeps its factored matrix from step to step, as
///   [`BackwardEuler`](crate::BackwardEuler) does.
///
/// With `dt = 0` the state is untouched, a negative `dt` integrates backwards, and a
/// non-finite `t`, `dt` or force is refused ([`StepError`](crate::StepError)) with the state unchanged, as
/// for every method ([`Integrator`](crate::Integrator)); a step too long for the state's
/// precision returns [`StepError::StepTooLong`](crate::StepError::StepTooLong).
///
/// Use it for oscillations you want to keep at a step past the explicit limit, and for
/// diffusion (Crank–Nicolson) when second order matters more than damping stiff modes.
///
/// # Example
///
/// A spring of k = 10⁶ at 60 Hz, `ω dt = 16.7`, where every explicit method explodes and
/// backward Euler loses nearly all the energy in a few steps:
///
/// ```
/// use timestep::{Integrator, Particle, State, Trapezoid};
///
/// let stiff = |p: &Particle<f64>, _t: f64| -1.0e6 * p.position();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) + 0.5e6 * p.position().powi(2);
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// for i in 0..600 {
///     Trapezoid::new().step(&mut particle, &stiff, i as f64 / 60.0, 1.0 / 60.0)?;
/// }
/// assert!((energy(&particle) / 0.5e6 - 1.0).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "crank-nicolson")]
#[doc(alias = "trapezoidal")]
pub struct Trapezoid {
    newton: ImplicitSettings,
}

/// The rule: the stage at the end of the step, half of its rate and half the start's.
const RULE: Rule = Rule {
    stage: 1.0,
    velocity_weight: 0.5,
    force_weight: 0.5,
    start_kick: 0.0,
};

impl Trapezoid {
    /// The trapezoidal rule with the default Newton settings (those of
    /// [`BackwardEuler::new`](crate::BackwardEuler::new)).
    ///
    /// ```
    /// use timestep::{Scheme, Trapezoid};
    ///
    /// let properties = Trapezoid::new().properties();
    /// assert_eq!((properties.name, properties.order, properties.implicit), ("trapezoid", 2, true));
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Trapezoid {
            newton: ImplicitSettings::new(),
        }
    }
}

newton_builders!(Trapezoid);
#[cfg(feature = "serde")]
super::settings::newton_serde!(Trapezoid, "Trapezoid");

one_stage_scheme!(
    Trapezoid,
    RULE,
    Properties::explicit("trapezoid", 2, 1).implicit()
);
