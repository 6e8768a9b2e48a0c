//! SEULEX's order and step-size control (seulex.f's `SEUCOR` and the end of `SEUL`): each
//! line `j` of the table proposes the step `Hⱼ` at which its error would meet the
//! tolerance, and the order is the line of least work per unit step `Wⱼ = Aⱼ/Hⱼ`.
//! What the control remembers between attempts lives in [`Memory`].

use super::sequence::{MAX_COLUMNS, Table};
use crate::control::Decision;
use crate::math;

/// seulex.f's `FAC1`, `FAC2`: line `j` proposes a step between `fac₁^(1/j)/fac₂` and
/// `fac₁^(−1/j)` times the last.
const FAC1: f64 = 0.1;
const FAC2: f64 = 4.0;
/// seulex.f's `FAC3`, `FAC4`: the order falls when the line below works less than
/// `FAC3` times this one, and rises when this one works less than `FAC4` times the one
/// below.
pub(super) const FAC3: f64 = 0.7;
pub(super) const FAC4: f64 = 0.9;
/// seulex.f's `SAFE1`, `SAFE2`: `Hⱼ = H · SAFE2 · (SAFE1/err)^(1/j)`.
const SAFE1: f64 = 0.6;
const SAFE2: f64 = 0.93;

/// The order (target line) a run starts with, from the first coordinate's tolerances
/// (seulex.f): `max(2, min(KM − 2, ⌊−0.6 log₁₀(rtol + atol) + 1.5⌋))`, 2 for loose
/// tolerances up to 8 for `10⁻¹²`.
pub(super) fn initial_order(relative: f64, absolute: f64) -> usize {
    let digits = -math::ln(relative + absolute) / core::f64::consts::LN_10;
    let order = (digits * 0.6 + 1.5) as i64; // truncated, as Fortran's INT
    order.clamp(2, MAX_COLUMNS as i64 - 2) as usize
}

/// The step line `j` (from 1) proposes, relative to the step `H` it was computed with, for
/// its error norm `error` (seulex.f: `H · 1/min(FAC2/facmin, max(facmin,
/// (err/SAFE1)^(1/j)/SAFE2))`, `facmin = FAC1^(1/j)`).
pub(super) fn step_factor(error: f64, j: usize) -> f64 {
    let exponent = 1.0 / j as f64;
    let least = math::powf(FAC1, exponent);
    let ratio = math::powf(error / SAFE1, exponent) / SAFE2;
    1.0 / (FAC2 / least).min(least.max(ratio))
}

/// What the control remembers between attempts and steps (seulex.f's `SEUCOR` locals).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Memory {
    /// The order: the line the step is aimed at (seulex.f's `K`); 0 before the first
    /// attempt of a run, which sets it from the tolerances.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::below::<_, MAX_COLUMNS>")
    )]
    pub(super) order: usize,
    /// No attempt made since `begin` (seulex.f's `NSTEP = 0`): the first step's lines go
    /// up until one meets the tolerance.
    pub(super) first: bool,
    /// The last step reaches the end of the run (seulex.f's `LAST`): its lines go up until
    /// one meets the tolerance, as the first step's.
    pub(super) last: bool,
    /// The last attempt was rejected.
    pub(super) reject: bool,
    /// The last attempt was rejected on its error with the Jacobian of this step's start:
    /// the next attempt goes straight to the lines (seulex.f's `GOTO 30`).
    pub(super) retry_lines: bool,
    /// The Jacobian was evaluated at this step's start (seulex.f's `CALJAC`).
    pub(super) jacobian_fresh: bool,
    /// The stability check's last ratio `‖Δ₂‖/max(1, ‖Δ₁‖)` (seulex.f's `THETA`): the next
    /// step keeps the Jacobian while it is at most `min(10⁻⁴, rtol)`.
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::float"))]
    pub(super) theta: f64,
    /// The error of the last line, times 4 (at least 1): a later line whose error is not
    /// below it has diverged (seulex.f's `ERROLD`).
    pub(super) error_bound: f64,
    /// The step each line proposes (seulex.f's `HH`) and its work per unit step (`W`).
    pub(super) steps: [f64; MAX_COLUMNS],
    pub(super) works: [f64; MAX_COLUMNS],
    /// The last line computed (seulex.f's `KC`); of an accepted step, the degree of its
    /// dense output.
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, MAX_COLUMNS>")
    )]
    pub(super) lines: usize,
    /// The step the last decision asked for: a different one is the run's last, cut to
    /// land on its end.
    pub(super) asked: f64,
    /// The decision on the last attempt.
    pub(super) decision: Decision,
}

impl Memory {
    pub(super) const fn new() -> Self {
        let mut works = [0.0; MAX_COLUMNS];
        works[0] = 1e30;
        Memory {
            order: 0,
            first: true,
            last: false,
            reject: false,
            retry_lines: false,
            jacobian_fresh: false,
            theta: f64::INFINITY,
            error_bound: 1.0,
            steps: [0.0; MAX_COLUMNS],
            works,
            lines: 0,
            asked: 0.0,
            decision: Decision {
                accept: false,
                factor: 0.5,
            },
        }
    }

    /// Line `j` (from 1) met `error` on a step of `h`: its proposed step and work per unit
    /// step.
    pub(super) fn propose(&mut self, j: usize, error: f64, h: f64, sequence: &Table) {
        let step = h.abs() * step_factor(error, j);
        self.steps[j - 1] = step;
        self.works[j - 1] = sequence.work[j - 1] / step;
    }

    /// `Hⱼ` and `Wⱼ` of line `j` (from 1).
    fn step(&self, j: usize) -> f64 {
        self.steps[j - 1]
    }

    fn work(&self, j: usize) -> f64 {
        self.works[j - 1]
    }

    /// The step of `h` is accepted after `lines` lines: chooses the next order and step
    /// (seulex.f's "compute optimal order"), and returns the next step relative to `h`.
    pub(super) fn accept(&mut self, h: f64, sequence: &Table) -> f64 {
        let (kc, k) = (self.lines, self.order);
        let top = MAX_COLUMNS - 1;
        let optimal = if kc == 2 {
            if self.reject { 2 } else { 3.min(top) }
        } else if kc <= k {
            let mut optimal = kc;
            if self.work(kc - 1) < self.work(kc) * FAC3 {
                optimal = kc - 1;
            }
            if self.work(kc) < self.work(kc - 1) * FAC4 {
                optimal = (kc + 1).min(top);
            }
            optimal
        } else {
            let mut optimal = kc - 1;
            if kc > 3 && self.work(kc - 2) < self.work(kc - 1) * FAC3 {
                optimal = kc - 2;
            }
            if self.work(kc) < self.work(optimal) * FAC4 {
                optimal = kc.min(top);
            }
            optimal
        };
        let next = if self.reject {
            // After a rejection the step may not grow.
            self.order = optimal.min(kc);
            self.reject = false;
            h.abs().min(self.step(self.order))
        } else {
            let next = if optimal <= kc {
                self.step(optimal)
            } else if kc < k && self.work(kc) < self.work(kc - 1) * FAC4 {
                self.step(kc) * sequence.work[optimal] / sequence.work[kc - 1]
            } else {
                self.step(kc) * sequence.work[optimal - 1] / sequence.work[kc - 1]
            };
            self.order = optimal;
            next
        };
        self.first = false;
        self.jacobian_fresh = false;
        self.decide(true, next / h.abs())
    }

    /// The step of `h` is rejected on its error after `lines` lines: lowers the order where
    /// the line below works less, and retries with that line's step (seulex.f's label
    /// 100).
    pub(super) fn reject(&mut self, h: f64) -> f64 {
        let mut k = self.order.min(self.lines).min(MAX_COLUMNS - 1);
        if k > 2 && self.work(k - 1) < self.work(k) * FAC3 {
            k -= 1;
        }
        self.order = k;
        self.last = false;
        self.reject = true;
        self.retry_lines = self.jacobian_fresh;
        self.first = false;
        self.decide(false, self.step(k) / h.abs())
    }

    /// A line could not be computed (a singular matrix, forces that are not finite, an
    /// unstable linearly implicit Euler step, an extrapolation whose error grows): the
    /// step is retried at half its size (seulex.f's label 79).
    pub(super) fn halve(&mut self) -> f64 {
        self.reject = true;
        self.retry_lines = false;
        self.first = false;
        self.decide(false, 0.5)
    }

    fn decide(&mut self, accept: bool, factor: f64) -> f64 {
        self.decision = Decision { accept, factor };
        factor
    }
}
