//! The BDF's step-size and order control, and its Jacobian and factorisation reuse, as
//! CVODE decides them (Hindmarsh et al., "SUNDIALS", ACM TOMS 31 (2005) 363–396, §2.1;
//! CVODE 7.5's `cvPrepareNextStep`, `cvSetEta`, `cvChooseEta`, `cvDoErrorTest`,
//! `cvHandleNFlag`, `cvNls`, `cvLsSetup`, with their default constants). What the control
//! remembers between attempts lives in [`Memory`].

use super::coefficients::{Formula, MAX_ORDER, Steps};
use crate::control::Decision;
use crate::math;

/// CVODE's `BIAS1`, `BIAS2`, `BIAS3`: the error estimates at orders `q − 1`, `q`, `q + 1`
/// are weighted by these before the step they allow is computed (a safety factor,
/// larger for the less reliable estimate of order `q + 1`).
const BIAS_LOWER: f64 = 6.0;
const BIAS_SAME: f64 = 6.0;
const BIAS_HIGHER: f64 = 10.0;
/// CVODE's `ADDON`: `η = 1/((bias · err)^(1/(q+1)) + ADDON)`.
const ADDON: f64 = 1e-6;
/// CVODE's `ETA_MAX_FX`: a step change by less than this factor is not made.
const KEEP_BELOW: f64 = 1.5;
/// CVODE's `ETA_MAX_FS`, `ETA_MAX_GS`: the largest growth after the first step and
/// after any other.
const MAX_GROWTH_FIRST: f64 = 1e4;
const MAX_GROWTH: f64 = 10.0;
/// CVODE's `ETA_MIN`, `ETA_MIN_EF`, `ETA_MAX_EF`, `ETA_CF`: the least shrink after a
/// successful step, the most after a failed error test (and at most this after a second
/// failure), and the shrink after a failed Newton iteration.
const MIN_FACTOR: f64 = 0.1;
const MAX_ERROR_SHRINK: f64 = 0.2;
const CONVERGENCE_SHRINK: f64 = 0.25;
/// CVODE's `MXNEF1`: after this many failed error tests on one step the order falls.
const ERROR_FAILURES_BEFORE_ORDER_DROP: u32 = 3;
/// CVODE's `LONG_WAIT`: steps at order 1 before an order change after a restart.
const LONG_WAIT: usize = 10;
/// CVODE's `MSBP_DEFAULT`, `DGMAX_LSETUP_DEFAULT`: the iteration matrix `I − γJ` is
/// factored anew every 20 steps, or when `γ` changed by more than 30%.
pub(super) const STEPS_PER_FACTORISATION: u64 = 20;
pub(super) const GAMMA_CHANGE: f64 = 0.3;
/// CVODE 7.5's `CVLS_MSBJ`, `CVLS_DGMAX`: the Jacobian is evaluated anew every 51 steps
/// (50 in earlier versions), and after a failed Newton iteration with a current
/// factorisation when `γ` changed by less than 20%.
pub(super) const STEPS_PER_JACOBIAN: u64 = 51;
pub(super) const GAMMA_CHANGE_FOR_JACOBIAN: f64 = 0.2;
/// CVODE's `NLS_MAXCOR`, `CRDOWN`, `RDIV`: Newton iterations per attempt, the decay of
/// the convergence-rate estimate, and the growth of corrections that means divergence.
pub(super) const MAX_ITERATIONS: usize = 3;
pub(super) const RATE_DECAY: f64 = 0.3;
pub(super) const DIVERGENCE: f64 = 2.0;
/// The Newton iteration's tolerance for a differential-algebraic system, at most CVODE's
/// `tq[4]` at order 1, `0.1/tq[2] = 0.2`: the error the iteration leaves in an algebraic
/// unknown is carried into the next step whatever its length (the corrector puts the
/// unknown back on its equation however short the step), where the error test must be
/// able to pass it at order 1 (`tq[2] = 1/2`). At order 5 `tq[4]` is about 1.4, and a
/// step shrinking after a failure found the start's leftover inconsistency in every
/// correction (the pendulum at index 1, rtol 10⁻⁶, stalled at t = 9.54 with the step
/// at 10⁻¹⁴). IDA's test, `0.33` on `ρ/(1 − ρ) ‖δ‖`, is of the same size.
pub(super) const DAE_NEWTON_TOLERANCE: f64 = 0.2;

/// Why the step is attempted (CVODE's `nflag`). Saved as its number (0, 1, 2): history,
/// which the check of a loaded workspace's shape ignores, where it would compare a unit
/// variant with a fresh workspace's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(into = "u8", try_from = "u8")
)]
pub(super) enum Previous {
    /// A new step.
    Accepted,
    /// A retry after a failed Newton iteration.
    ConvergenceFailure,
    /// A retry after a failed error test.
    ErrorFailure,
}

impl From<Previous> for u8 {
    fn from(previous: Previous) -> u8 {
        previous as u8
    }
}

impl TryFrom<u8> for Previous {
    type Error = &'static str;

    fn try_from(number: u8) -> Result<Self, Self::Error> {
        match number {
            0 => Ok(Previous::Accepted),
            1 => Ok(Previous::ConvergenceFailure),
            2 => Ok(Previous::ErrorFailure),
            _ => Err("a BDF step's cause is 0, 1 or 2"),
        }
    }
}

/// What the BDF remembers between attempts (CVODE's `cv_mem` fields of the same names).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Memory {
    /// The Nordsieck array is set up (after `begin`, at the first attempt).
    pub(super) started: bool,
    /// The order `q`, and the order the next step will take.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, MAX_ORDER>")
    )]
    pub(super) order: usize,
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, MAX_ORDER>")
    )]
    pub(super) next_order: usize,
    /// Steps to wait before the order may change (`qwait`).
    pub(super) wait: usize,
    /// The highest order allowed.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, MAX_ORDER>")
    )]
    pub(super) max_order: usize,
    /// The step the Nordsieck array is scaled for (`hscale`).
    pub(super) h: f64,
    /// The last steps, `tau[1]` the most recent.
    pub(super) tau: Steps,
    /// The step's formula.
    pub(super) formula: Formula,
    /// Steps accepted since `begin` (`nst`), and at the last factorisation and Jacobian.
    pub(super) steps: u64,
    pub(super) factored_at: u64,
    pub(super) jacobian_at: u64,
    /// `γ = h/l₁` of this attempt and of the last factorisation.
    pub(super) gamma: f64,
    pub(super) factored_gamma: f64,
    /// The Newton iteration's convergence-rate estimate (`crate`), kept across steps.
    pub(super) rate: f64,
    /// The growth allowed at the next step (`etamax`): 1 after a failure.
    pub(super) max_growth: f64,
    /// Why this attempt is made, and the failures on this step so far.
    pub(super) previous: Previous,
    pub(super) error_failures: u32,
    /// The next attempt restarts at order 1 from the rate at its start (after repeated
    /// error failures at order 1).
    pub(super) reload: bool,
    /// The `tq[5]` of the step whose correction is saved for an order increase (0 while
    /// none is).
    pub(super) saved_tq5: f64,
    /// The decision on the last attempt.
    pub(super) decision: Decision,
}

impl Memory {
    pub(super) fn new(max_order: usize) -> Self {
        Memory {
            started: false,
            order: 1,
            next_order: 1,
            wait: 2,
            max_order,
            h: 0.0,
            tau: [0.0; MAX_ORDER + 2],
            formula: Formula::new(1, 1.0, &[0.0; MAX_ORDER + 2]),
            steps: 0,
            factored_at: 0,
            jacobian_at: 0,
            gamma: 0.0,
            factored_gamma: 0.0,
            rate: 1.0,
            max_growth: MAX_GROWTH_FIRST,
            previous: Previous::Accepted,
            error_failures: 0,
            reload: false,
            saved_tq5: 0.0,
            decision: Decision {
                accept: false,
                factor: 1.0,
            },
        }
    }

    /// Sets the formula for a step of `h` (CVODE's `cvSet`); returns `γ/γ_factored` (1
    /// before the first step is accepted, as CVODE's `gamrat`).
    pub(super) fn set_formula(&mut self, h: f64) -> f64 {
        self.formula = Formula::new(self.order, h, &self.tau);
        self.gamma = h / self.formula.l[1];
        if self.steps == 0 {
            self.factored_gamma = self.gamma;
        }
        self.gamma / self.factored_gamma
    }

    /// Whether this attempt factors `I − γJ` anew (CVODE's `callSetup`).
    pub(super) fn refactor(&self, gamma_ratio: f64) -> bool {
        self.previous != Previous::Accepted
            || self.steps == 0
            || self.steps >= self.factored_at + STEPS_PER_FACTORISATION
            || (gamma_ratio - 1.0).abs() > GAMMA_CHANGE
    }

    /// Whether a factorisation evaluates the Jacobian anew (CVODE's `jbad`), after
    /// `bad_jacobian` (a Newton failure with the Jacobian not current).
    pub(super) fn new_jacobian(&self, bad_jacobian: bool) -> bool {
        let gamma_change = (self.gamma / self.factored_gamma - 1.0).abs();
        self.steps == 0
            || self.steps >= self.jacobian_at + STEPS_PER_JACOBIAN
            || (bad_jacobian && gamma_change < GAMMA_CHANGE_FOR_JACOBIAN)
            || self.previous == Previous::ConvergenceFailure
    }

    /// The Newton iteration failed: retry at a quarter of the step, its growth held at
    /// the step after (CVODE's `cvHandleNFlag`).
    pub(super) fn convergence_failure(&mut self) -> Decision {
        self.max_growth = 1.0;
        self.previous = Previous::ConvergenceFailure;
        self.decide(false, CONVERGENCE_SHRINK)
    }

    /// The error test failed with the weighted error `error` (CVODE's
    /// `cvDoErrorTest`): retry shorter; after three failures at a tenth of the step at
    /// one order lower, or from the rate at the start at order 1. Returns whether the
    /// order falls (the caller adjusts the Nordsieck array).
    pub(super) fn error_failure(&mut self, error: f64) -> bool {
        self.error_failures += 1;
        self.previous = Previous::ErrorFailure;
        self.max_growth = 1.0;
        if self.error_failures <= ERROR_FAILURES_BEFORE_ORDER_DROP {
            let mut eta = step_ratio(error, BIAS_SAME, self.order + 1).max(MIN_FACTOR);
            if self.error_failures >= 2 {
                eta = eta.min(MAX_ERROR_SHRINK);
            }
            self.decide(false, eta);
            return false;
        }
        self.decide(false, MIN_FACTOR);
        if self.order > 1 {
            self.order -= 1;
            self.next_order = self.order;
            self.wait = self.order + 1;
            true
        } else {
            self.wait = LONG_WAIT;
            self.reload = true;
            false
        }
    }

    /// The step of `h` passed its error test with the weighted error `error`: the
    /// history moves on (CVODE's `cvCompleteStep`). Returns whether the correction is to
    /// be saved for an order increase.
    pub(super) fn complete(&mut self, h: f64) -> bool {
        self.steps += 1;
        let q = self.order;
        for i in (2..=q).rev() {
            self.tau[i] = self.tau[i - 1];
        }
        if q == 1 && self.steps > 1 {
            self.tau[2] = self.tau[1];
        }
        self.tau[1] = h;
        self.wait -= 1;
        let save = self.wait == 1 && q != self.max_order;
        if save {
            self.saved_tq5 = self.formula.tq[5];
        }
        save
    }

    /// The next order and step after an accepted step of `h` with weighted error `error`
    /// (CVODE's `cvPrepareNextStep`, `cvChooseEta`, `cvSetEta`): the largest of the steps
    /// the error estimates at orders `q − 1` (`lower`, the norm of `z_q`), `q` and `q + 1`
    /// (`higher`, the norm of the correction's change, when known) allow, each
    /// `1/((bias · err)^(1/(order+1)) + 10⁻⁶)`; a change by less than 1.5 is not made.
    /// Returns whether the order rises (the caller saves the correction).
    pub(super) fn accepted(
        &mut self,
        error: f64,
        lower: impl FnOnce() -> f64,
        higher: impl FnOnce(f64) -> Option<f64>,
        h: f64,
    ) -> bool {
        let q = self.order;
        let mut rises = false;
        let eta = if self.max_growth == 1.0 {
            self.wait = self.wait.max(2);
            self.next_order = q;
            1.0
        } else {
            let same = step_ratio(error, BIAS_SAME, q + 1);
            self.next_order = q;
            if self.wait != 0 {
                self.limit(same)
            } else {
                self.wait = 2;
                let down = if q > 1 {
                    step_ratio(lower() * self.formula.tq[1], BIAS_LOWER, q)
                } else {
                    0.0
                };
                let up = if q != self.max_order && self.saved_tq5 != 0.0 {
                    let factor = (self.formula.tq[5] / self.saved_tq5)
                        * math::powi(h / self.tau[2], (q + 1) as i32);
                    higher(factor).map_or(0.0, |norm| {
                        step_ratio(norm * self.formula.tq[3], BIAS_HIGHER, q + 2)
                    })
                } else {
                    0.0
                };
                // Ties keep the order, then lower it (CVODE's `cvChooseEta`).
                let best = down.max(same).max(up);
                if best >= KEEP_BELOW && best != same {
                    if best == down {
                        self.next_order = q - 1;
                    } else {
                        self.next_order = q + 1;
                        rises = true;
                    }
                }
                self.limit(best)
            }
        };
        self.max_growth = MAX_GROWTH;
        self.previous = Previous::Accepted;
        self.error_failures = 0;
        self.decide(true, eta);
        rises
    }

    /// CVODE's `cvSetEta` after an accepted step: a change by less than 1.5 is not made
    /// (so an accepted step never shrinks the next: only failures do), growth at most
    /// `max_growth`.
    fn limit(&self, eta: f64) -> f64 {
        if eta < KEEP_BELOW {
            1.0
        } else {
            eta.min(self.max_growth)
        }
    }

    fn decide(&mut self, accept: bool, factor: f64) -> Decision {
        self.decision = Decision { accept, factor };
        self.decision
    }
}

/// `1/((bias · error)^(1/exponent) + ADDON)`: the step ratio at which the error estimate
/// `error` (of a method whose error grows like `h^exponent`) would meet the tolerance.
fn step_ratio(error: f64, bias: f64, exponent: usize) -> f64 {
    1.0 / (math::powf(bias * error, 1.0 / exponent as f64) + ADDON)
}
