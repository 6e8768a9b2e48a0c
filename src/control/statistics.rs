//! [`Statistics`]: what an adaptive run cost, where it ended and why.

use core::ops::{Add, AddAssign};

/// What an adaptive run cost, where it ended and why.
///
/// Runs add up (`+`, `+=`): the counts are summed, and the sum ends where the later
/// run ended ([`t`](Statistics::t), [`stop`](Statistics::stop),
/// [`stiff_from`](Statistics::stiff_from) if it found stiffness, else the earlier's).
///
/// ```
/// use timestep::{Adaptive, Dopri5, Stop};
///
/// let decay = |y: &f64, _t: f64| -y;
/// let mut solver = Adaptive::new(Dopri5);
/// let (mut y, mut total) = (1.0_f64, timestep::Statistics::default());
/// for (t0, t1) in [(0.0, 1.0), (1.0, 2.0)] {
///     total += solver.solve(&mut y, &decay, t0, t1)?;
/// }
/// assert_eq!((total.t, total.stop), (2.0, Stop::End));
/// assert!(total.accepted >= 2 && total.evaluations > 6 * total.accepted);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
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
    /// Krylov iterations of a matrix-free linear solver ([`Gmres`](crate::Gmres); 0 for
    /// direct solvers), CVODE's `nli`.
    #[cfg_attr(feature = "serde", serde(default))]
    pub linear_iterations: u64,
    /// Jacobian–vector products `J v` made by such a solver (CVODE's `njtv`): by the
    /// forces ([`Forces::jacobian_times`](crate::Forces::jacobian_times)) or by a
    /// directional difference, whose force evaluations count in
    /// [`evaluations`](Statistics::evaluations) too.
    #[cfg_attr(feature = "serde", serde(default))]
    pub jacobian_products: u64,
    /// Accepted steps that the stiffness test found held at the stability limit
    /// ([`AdaptiveMethod::stiffness`](super::AdaptiveMethod::stiffness) at least 0.98;
    /// tested as [`Adaptive::with_stiffness_test`](crate::Adaptive::with_stiffness_test)
    /// says). Always 0 for the implicit methods, which have no such limit.
    pub stiff_steps: u64,
    /// When the run became stiff by that test: 15 stiff steps with never 6 non-stiff ones
    /// in a row between them, the rule of dopri5.f and dop853.f ("the problem seems to
    /// become stiff at x = …"); `None` if it did not. An explicit pair spends most of its
    /// steps there on stability, not accuracy: [`Radau5`](crate::Radau5) or
    /// [`Rodas4`](crate::Rodas4) take far fewer.
    pub stiff_from: Option<f64>,
    /// Where the run is (while it runs) or ended: the time of its state.
    pub t: f64,
    /// Why the run ended; [`Stop::Running`] while it runs.
    pub stop: Stop,
}

impl Statistics {
    /// Steps attempted, accepted or rejected.
    #[must_use]
    pub fn steps(&self) -> u64 {
        self.accepted + self.rejected
    }
}

/// Why an adaptive run ended. (A run that fails ends with an
/// [`AdaptiveError`](crate::AdaptiveError) instead, which says why.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
#[non_exhaustive]
pub enum Stop {
    /// Not ended: the run is going on (a [`Run`](crate::adaptive::Run) between steps), or
    /// never started.
    #[default]
    Running,
    /// It reached the end of its span.
    End,
    /// A terminal [`Event`](crate::adaptive::Event), the one of this index, ended it.
    Event(usize),
}

impl Add for Statistics {
    type Output = Statistics;

    fn add(self, later: Statistics) -> Statistics {
        Statistics {
            evaluations: self.evaluations + later.evaluations,
            accepted: self.accepted + later.accepted,
            rejected: self.rejected + later.rejected,
            jacobians: self.jacobians + later.jacobians,
            decompositions: self.decompositions + later.decompositions,
            linear_iterations: self.linear_iterations + later.linear_iterations,
            jacobian_products: self.jacobian_products + later.jacobian_products,
            stiff_steps: self.stiff_steps + later.stiff_steps,
            stiff_from: later.stiff_from.or(self.stiff_from),
            t: later.t,
            stop: later.stop,
        }
    }
}

impl AddAssign for Statistics {
    fn add_assign(&mut self, later: Statistics) {
        *self = *self + later;
    }
}
