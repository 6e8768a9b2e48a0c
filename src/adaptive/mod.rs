//! The adaptive driver: methods with error control stepped with the step size chosen to
//! meet a tolerance, with dense output between steps, events and samples, into a
//! [`Solution`] or a [`Run`] you step yourself.
//!
//! The parts are separate, as in Hairer's codes and OrdinaryDiffEq; the driver is the top
//! layer, the rest sit below the methods in [`control`](crate::control):
//!
//! - the **method** ([`AdaptiveMethod`](crate::control::AdaptiveMethod)): for an embedded pair
//!   ([`EmbeddedPair`](crate::EmbeddedPair): [`Bs3`](crate::Bs3),
//!   [`Dopri5`](crate::Dopri5), [`Tsit5`](crate::Tsit5), [`Dop853`](crate::Dop853)) its
//!   stages, propagated weights, error weights and continuous extension, as data; for
//!   stiff problems the Rosenbrock methods ([`Rodas4`](crate::Rodas4),
//!   [`Ros3p`](crate::Ros3p): one Jacobian and one LU per step) and
//!   [`Radau5`](crate::Radau5), with its Newton iteration, its Jacobian kept across steps
//!   and its own step-size control ([`AdaptiveMethod::decide`](crate::control::AdaptiveMethod::decide));
//! - the **error norm** ([`Tolerances`](crate::Tolerances)): Hairer–Nørsett–Wanner's root mean square of
//!   each coordinate's error over `atol + rtol · max(|y₀|, |y₁|)`;
//! - the **controller** ([`Controller`](crate::control::Controller)): the PI controller of dopri5.f, unless the method
//!   decides itself ([`Decision`](crate::control::Decision));
//! - the **controlled step** ([`Run`], made by [`Adaptive::start`]): Hairer's initial
//!   step, first-same-as-last reuse, accept/reject, landing exactly on the end;
//! - the **driver** ([`Adaptive`]): its settings and workspace, and the solves, each a
//!   short loop over a [`Run`]; the [`Step`] an observer sees, with its dense output;
//! - the **solution** ([`Adaptive::integrate`], [`solve`]): the steps or samples, the
//!   dense output anywhere in the span ([`Solution::at`]), the events, the statistics;
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
//! The [`Statistics`](crate::Statistics) of a run count force evaluations, accepted and rejected steps; many
//! rejections mean the controller is fighting the problem (a discontinuity, or stiffness:
//! an explicit pair's step collapsing to its stability limit, where [`Radau5`](crate::Radau5)
//! is the answer); implicit methods also count Jacobians and LU decompositions.

mod compensation;
mod driver;
mod events;
mod run;
mod snapshot;
#[cfg(feature = "alloc")]
mod solution;
mod step;
mod stiffness;

pub use driver::Adaptive;
pub use events::{Action, Direction, Event, Events, Fired, NoAction};
pub use run::{Attempt, Run};
pub use snapshot::Snapshot;
#[cfg(feature = "alloc")]
pub use solution::{Integration, NoObserver, Solution, solve};
pub use step::Step;
