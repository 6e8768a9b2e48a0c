//! [`StiffnessTest`]: when the [`Adaptive`](super::Adaptive) driver asks a method whether
//! its steps are held at the stability limit, and what it makes of the answers.

use crate::control::Statistics;

/// dopri5.f's stiffness test: when it is due, and its counters.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct StiffnessTest {
    /// Test every this many accepted steps (0: never).
    every: u64,
    /// Accepted steps until the next regular test.
    countdown: u64,
    /// Stiff steps since the last six non-stiff ones in a row.
    stiff: u32,
    /// Non-stiff steps in a row since the last stiff one.
    non_stiff: u32,
}

impl StiffnessTest {
    /// `h|λ|` over the stability boundary at which a step counts as held by stability:
    /// dopri5.f's 3.25 for a boundary of 3.307.
    const STIFF: f64 = 0.98;
    /// Stiff steps that make a run stiff.
    const RUN: u32 = 15;
    /// Non-stiff steps in a row that clear the count.
    const CLEAR: u32 = 6;

    /// A test every `every` accepted steps (0: never), with nothing counted yet.
    pub(super) fn new(every: u64) -> Self {
        StiffnessTest {
            every,
            countdown: every,
            stiff: 0,
            non_stiff: 0,
        }
    }

    /// Tests every `every` accepted steps from now on; the counts so far kept, and the
    /// countdown too unless the period changed.
    pub(super) fn set_every(&mut self, every: u64) {
        if every != self.every {
            self.every = every;
            self.countdown = every;
        }
    }

    /// After an accepted step that ended at `t`: tests with `estimate` when it is due
    /// (every `every`-th step, and every step once one was stiff). A countdown, not the
    /// step count's remainder: a division per step shows on cheap problems.
    ///
    /// The countdown is inlined into the driver; the test itself is not.
    #[inline(always)]
    pub(super) fn test(
        &mut self,
        estimate: impl FnOnce() -> Option<f64>,
        t: f64,
        statistics: &mut Statistics,
    ) {
        if self.every == 0 {
            return;
        }
        self.countdown -= 1;
        let regular = self.countdown == 0;
        if regular {
            self.countdown = self.every;
        }
        if !(regular || self.stiff > 0) {
            return;
        }
        self.run_test(estimate, t, statistics);
    }

    /// The test, when it is due.
    #[inline(never)]
    fn run_test(
        &mut self,
        estimate: impl FnOnce() -> Option<f64>,
        t: f64,
        statistics: &mut Statistics,
    ) {
        let Some(ratio) = estimate() else {
            return;
        };
        if ratio >= Self::STIFF {
            statistics.stiff_steps += 1;
            self.non_stiff = 0;
            self.stiff += 1;
            if self.stiff == Self::RUN && statistics.stiff_from.is_none() {
                statistics.stiff_from = Some(t);
            }
        } else {
            self.non_stiff += 1;
            if self.non_stiff == Self::CLEAR {
                self.stiff = 0;
            }
        }
    }
}
