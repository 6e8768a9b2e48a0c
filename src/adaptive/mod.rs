//! Error control: embedded Runge–Kutta pairs, Rosenbrock methods and Radau5 stepped with
//! the step size chosen to meet a tolerance, with dense output between steps.
//!
//! The parts are separate, as in Hairer's codes and OrdinaryDiffEq:
//!
//! - the **method** ([`AdaptiveMethod`]): for an embedded pair
//!   ([`EmbeddedPair`](crate::EmbeddedPair): [`Bs3`](crate::Bs3),
//!   [`Dopri5`](crate::Dopri5), [`Tsit5`](crate::Tsit5), [`Dop853`](crate::Dop853)) its
//!   stages, propagated weights, error weights and continuous extension, as data; for
//!   stiff problems the Rosenbrock methods ([`Rodas4`](crate::Rodas4),
//!   [`Ros3p`](crate::Ros3p): one Jacobian and one LU per step) and
//!   [`Radau5`](crate::Radau5), with its Newton iteration, its Jacobian kept across steps
//!   and its own step-size control ([`AdaptiveMethod::decide`]);
//! - the **error norm** ([`Tolerances`]): Hairer–Nørsett–Wanner's root mean square of
//!   each coordinate's error over `atol + rtol · max(|y₀|, |y₁|)`;
//! - the **controller** ([`Controller`]): the PI controller of dopri5.f, unless the method
//!   decides itself ([`Decision`]);
//! - the **driver** ([`Adaptive`]): Hairer's initial step, first-same-as-last reuse,
//!   accept/reject, landing exactly on the end, and the [`Step`] an observer sees, with
//!   its dense output;
//! - **sampling** ([`Adaptive::solve_at`]): the state at requested times, read from the
//!   dense output, the steps left as the tolerance chose them;
//! - **events** ([`Event`]): zero crossings of functions of the state, located on the
//!   dense output, with an action at each and terminal ones that end the run.
//!
//! Fixed steps are right for games (a frame is a frame), for symplectic long runs (a
//! varying step breaks symplecticity), and for real-time budgets. Error control is right
//! when accuracy matters and the time scale varies: an orbit that is slow at apoapsis and
//! fast at periapsis, a reaction that is fast at first and slow later. On the Arenstorf
//! orbit, Dormand–Prince 5(4) at 10⁻⁷ needs 238 steps where RK4 at a fixed step needs
//! tens of thousands for the same error.
//!
//! The [`Statistics`] of a run count force evaluations, accepted and rejected steps; many
//! rejections mean the controller is fighting the problem (a discontinuity, or stiffness:
//! an explicit pair's step collapsing to its stability limit, where [`Radau5`](crate::Radau5)
//! is the answer); implicit methods also count Jacobians and LU decompositions.

mod controller;
mod embedded;
mod events;
mod method;
mod solver;
mod stiffness;
mod tolerances;

pub use controller::{Controller, Decision};
pub use embedded::PairWorkspace;
pub(crate) use embedded::adaptive_pair;
pub use events::{Action, Direction, Event, Events, NoAction};
pub use method::AdaptiveMethod;
pub(crate) use method::forward_adaptive_method;
pub use solver::{Adaptive, Step};
pub use tolerances::{ErrorNorm, Tolerances};

use core::fmt;

/// What an adaptive run cost.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Statistics {
    /// Force evaluations.
    pub evaluations: u64,
    /// Steps accepted.
    pub accepted: u64,
    /// Steps rejected (and retried smaller).
    pub rejected: u64,
    /// Jacobians evaluated (implicit methods; 0 for explicit ones).
    pub jacobians: u64,
    /// LU decompositions (implicit methods; 0 for explicit ones).
    pub decompositions: u64,
    /// Accepted steps that the stiffness test found held at the stability limit
    /// ([`AdaptiveMethod::stiffness`] at least 0.98; tested as
    /// [`Adaptive::with_stiffness_test`] says). Always 0 for the implicit methods, which
    /// have no such limit.
    pub stiff_steps: u64,
    /// When the run became stiff by that test: 15 stiff steps with never 6 non-stiff ones
    /// in a row between them, the rule of dopri5.f and dop853.f ("the problem seems to
    /// become stiff at x = …"); `None` if it did not. An explicit pair spends most of its
    /// steps there on stability, not accuracy: [`Radau5`](crate::Radau5) or
    /// [`Rodas4`](crate::Rodas4) take far fewer.
    pub stiff_from: Option<f64>,
}

impl Statistics {
    /// Steps attempted, accepted or rejected.
    pub fn steps(&self) -> u64 {
        self.accepted + self.rejected
    }
}

/// Why an adaptive run was refused or stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AdaptiveError {
    /// `t0` or `t1` is infinite or `NaN`.
    NonFiniteTime {
        /// The start.
        t0: f64,
        /// The end.
        t1: f64,
    },
    /// A tolerance is negative, infinite or `NaN`, or both are zero.
    InvalidTolerance {
        /// The relative tolerance.
        relative: f64,
        /// The absolute tolerance.
        absolute: f64,
    },
    /// The controller's settings are out of range (see [`Controller`]).
    InvalidController,
    /// An initial or largest step that is zero or `NaN` (or, initial, infinite).
    InvalidStep {
        /// The step given.
        h: f64,
    },
    /// The step the error asks for is too small to move `t` in its precision: the solution
    /// is singular there, or the tolerance is too tight.
    StepTooSmall {
        /// Where the run stopped.
        t: f64,
        /// The step asked for.
        h: f64,
    },
    /// The error estimate was infinite or `NaN` eleven attempts in a row, each step shorter
    /// than the last by the controller's largest shrink, or until the step was too small
    /// for the precision of `t`: the forces return infinity or `NaN` however short the
    /// step. (A single non-finite estimate, from a step so long that the state overflows,
    /// is a rejected step, retried shorter.)
    NonFiniteError {
        /// Where the run stopped.
        t: f64,
        /// The step tried.
        h: f64,
    },
    /// The sample times of [`Adaptive::solve_at`] are empty, not finite, or not ordered
    /// from the start in one direction.
    InvalidSampleTimes,
    /// The run took the most steps allowed without reaching its end.
    TooManySteps {
        /// Where the run stopped.
        t: f64,
        /// The steps allowed.
        steps: u64,
    },
}

impl fmt::Display for AdaptiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AdaptiveError::NonFiniteTime { t0, t1 } => {
                write!(f, "the start and end times must be finite (t0 = {t0:e}, t1 = {t1:e})")
            }
            AdaptiveError::InvalidTolerance { relative, absolute } => write!(
                f,
                "tolerances must be finite and not negative, and not both zero (relative {relative:e}, absolute {absolute:e})"
            ),
            AdaptiveError::InvalidController => f.write_str(
                "controller settings out of range: 0 < safety <= 1, 0 < min_factor <= 1 <= max_factor, 0 <= beta < 0.2",
            ),
            AdaptiveError::InvalidStep { h } => {
                write!(f, "a step must be finite and non-zero, got {h:e}")
            }
            AdaptiveError::StepTooSmall { t, h } => write!(
                f,
                "the step size {h:e} needed at t = {t:e} is too small for the precision of t: the solution may be singular there, or the tolerance too tight"
            ),
            AdaptiveError::NonFiniteError { t, h } => write!(
                f,
                "the error estimate of the step of {h:e} from t = {t:e} is not finite: the forces returned infinity or NaN"
            ),
            AdaptiveError::InvalidSampleTimes => f.write_str(
                "sample times must be finite, not empty, and ordered from the start in the direction of the run",
            ),
            AdaptiveError::TooManySteps { t, steps } => {
                write!(f, "{steps} steps taken without reaching the end (stopped at t = {t:e})")
            }
        }
    }
}

impl core::error::Error for AdaptiveError {}
