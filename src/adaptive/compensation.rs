//! Compensated summation of an adaptive run's steps
//! ([`Adaptive::with_compensated_summation`](super::Adaptive::with_compensated_summation)).

use crate::integrators::partitioned::add_compensated;
use crate::{DerivativeOf, State, Vector};
use num_traits::One;

/// What a compensated run carries from step to step besides the state and the time: what
/// their last sums rounded off (Kahan's compensation), and a buffer for the step's
/// increment.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields, bound = "S: crate::SerdeState")
)]
pub(super) struct Compensation<S: State> {
    /// Per coordinate, what the last step's `y + d` rounded off.
    lost: DerivativeOf<S>,
    /// What the last step's `t + h` rounded off.
    time_lost: f64,
    /// The accepted step's increment, as its method gives it.
    increment: DerivativeOf<S>,
}

impl<S: State> Clone for Compensation<S> {
    fn clone(&self) -> Self {
        Compensation {
            lost: self.lost.clone(),
            time_lost: self.time_lost,
            increment: self.increment.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.lost.clone_from(&source.lost);
        self.time_lost = source.time_lost;
        self.increment.clone_from(&source.increment);
    }
}

impl<S: State> Compensation<S> {
    /// Nothing lost yet, for states of the size of `state`.
    pub(super) fn new(state: &S) -> Self {
        Compensation {
            lost: state.zero_rate(),
            time_lost: 0.0,
            increment: state.zero_rate(),
        }
    }

    /// Forgets what was lost: the state or the time was set, not summed.
    pub(super) fn reset(&mut self) {
        self.lost.set_zero();
        self.time_lost = 0.0;
    }

    /// The buffer the method writes the accepted step's increment `d` to.
    pub(super) fn increment_mut(&mut self) -> &mut DerivativeOf<S> {
        &mut self.increment
    }

    /// `end = start + (d + c)` coordinate by coordinate, `c` becoming what this sum
    /// rounds off (exactly, by TwoSum), `d` the increment written to
    /// [`increment_mut`](Compensation::increment_mut).
    pub(super) fn add(&mut self, start: &S, end: &mut S) {
        self.increment
            .add_scaled_assign(&self.lost, S::Scalar::one());
        end.clone_from(start);
        add_compensated(end, &self.increment, &mut self.lost);
    }

    /// `t + h`, compensated as the state is.
    pub(super) fn time_after(&mut self, t: f64, h: f64) -> f64 {
        let step = h + self.time_lost;
        let sum = t + step;
        let step_rounded = sum - t;
        let lost = (t - (sum - step_rounded)) + (step - step_rounded);
        self.time_lost = if lost.is_finite() { lost } else { 0.0 };
        sum
    }
}
