//! [`Controller`]: the next step size from the error of the last.

use crate::math;

/// A PI step-size controller (K. Gustafsson, "Control theoretic techniques for stepsize
/// selection in explicit Runge–Kutta methods", ACM TOMS 17 (1991) 533–554), in the form and
/// with the defaults of Hairer's dopri5.f (Hairer–Nørsett–Wanner I, II.4; Hairer–Wanner II,
/// IV.2).
///
/// After a step of size `h` with error norm `err` (1 = exactly the tolerance), the next
/// step is `h / fac` with
///
/// ```text
/// fac = clamp( err^(1/q − 0.75 β) / err_prev^β / safety,  1/max_factor,  1/min_factor )
/// ```
///
/// where `q` is one more than the lower order of the pair (5 for Dormand–Prince 5(4)) and
/// `err_prev` is the error of the last accepted step (at least 10⁻⁴). A rejected step is
/// retried with `h / min(1/min_factor, err^(1/q)/safety)`, and the step after a rejection
/// may not grow.
///
/// With [`predictive`](Controller::predictive) (rodas.f's default, `IWORK(3) ≤ 1`), an
/// accepted step `h` that follows an accepted step `h_acc` of error `err_acc` is followed
/// by the shorter of that step and Gustafsson's prediction (Hairer–Wanner II, IV.8,
/// (8.25)):
///
/// ```text
/// fac_gus = clamp( (h_acc/h) · (err²/err_acc)^(1/q) / safety,  1/max_factor,  1/min_factor )
/// h_new   = h / max(fac, fac_gus),        then  h_acc = h,  err_acc = max(10⁻², err)
/// ```
///
/// which shrinks the step before the error grows past the tolerance, where the error's
/// growth from step to step says it will.
///
/// ```
/// use timestep::control::Controller;
///
/// let hairer = Controller::default();
/// assert_eq!((hairer.safety, hairer.min_factor, hairer.max_factor, hairer.beta), (0.9, 0.2, 10.0, 0.04));
/// assert!(!hairer.predictive && Controller::RODAS.predictive);
/// ```
///
/// Settings out of range (a safety above 1, a `min_factor` of 1 or more, which could not shrink a rejected step, …), built by hand or
/// loaded, are refused when a run starts ([`AdaptiveError::InvalidController`]).
///
/// [`AdaptiveError::InvalidController`]: crate::AdaptiveError::InvalidController
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Controller {
    /// The safety factor: the step aims at this fraction of the tolerance's step.
    pub safety: f64,
    /// The smallest factor a step may shrink by.
    pub min_factor: f64,
    /// The largest factor a step may grow by.
    pub max_factor: f64,
    /// The weight of the previous error (0: the classical I controller).
    pub beta: f64,
    /// Whether Gustafsson's predictive term may shorten the step after an accepted step,
    /// as rodas.f's `PRED` (settings saved without it load with `false`).
    #[cfg_attr(feature = "serde", serde(default))]
    pub predictive: bool,
}

impl Controller {
    /// dopri5.f's defaults: safety 0.9, factors between 0.2 and 10, β = 0.04.
    pub const DOPRI5: Controller = Controller {
        safety: 0.9,
        min_factor: 0.2,
        max_factor: 10.0,
        beta: 0.04,
        predictive: false,
    };

    /// dop853.f's defaults: safety 0.9, factors between 0.333 and 6, β = 0 (no PI
    /// term).
    pub const DOP853: Controller = Controller {
        safety: 0.9,
        min_factor: 0.333,
        max_factor: 6.0,
        beta: 0.0,
        predictive: false,
    };

    /// rodas.f's controller for Rosenbrock methods: safety 0.9, factors between 0.2 and
    /// 6, β = 0, and Gustafsson's predictive term (rodas.f's `WORK(3..5)` and `IWORK(3)`
    /// left at 0).
    ///
    /// ```
    /// use timestep::control::{AdaptiveMethod, Controller};
    /// use timestep::Rodas4;
    ///
    /// // Rosenbrock methods start with it.
    /// let rodas4 = Rodas4.rosenbrock();
    /// assert_eq!(AdaptiveMethod::<f64>::controller(&rodas4), Controller::RODAS);
    /// // The classical controller with rodas.f's bounds, without the prediction:
    /// let classical = Controller { predictive: false, ..Controller::RODAS };
    /// assert_ne!(classical, Controller::RODAS);
    /// ```
    pub const RODAS: Controller = Controller {
        safety: 0.9,
        min_factor: 0.2,
        max_factor: 6.0,
        beta: 0.0,
        predictive: true,
    };
}

impl Default for Controller {
    /// [`Controller::DOPRI5`].
    fn default() -> Self {
        Controller::DOPRI5
    }
}

/// What a step-size controller decided about a step: accept it or not, and the size of
/// the next attempt relative to this one. The [`Controller`] makes it, or a method that
/// controls its own steps ([`AdaptiveMethod::decide`](super::AdaptiveMethod::decide)).
///
/// ```
/// use timestep::control::Decision;
///
/// let retry_at_half = Decision { accept: false, factor: 0.5 };
/// assert!(!retry_at_half.accept);
/// ```
///
/// The driver multiplies the step by `factor` (and then caps it at the largest step
/// allowed); a factor of exactly 1 keeps the step's length bit for bit, which lets an
/// implicit method keep its factorisation. A `factor` that is zero, negative or not
/// finite is a defect of the method that made it: the next step is then refused as too
/// small ([`AdaptiveError::StepTooSmall`](crate::AdaptiveError::StepTooSmall)) or taken
/// with the sign of the run.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Decision {
    /// Whether the step is accepted.
    pub accept: bool,
    /// The next step's size, relative to this one's.
    pub factor: f64,
}

impl Controller {
    /// Whether the settings make sense: a safety in (0, 1], `0 < min_factor < 1 ≤
    /// max_factor`, `0 ≤ β < 1/q` for any order. A `min_factor` of 1 would forbid the
    /// shrinking a rejected step needs, and the run would retry the same step until its
    /// step limit.
    pub(crate) fn is_valid(&self) -> bool {
        self.safety > 0.0
            && self.safety <= 1.0
            && self.min_factor > 0.0
            && self.min_factor < 1.0
            && self.max_factor >= 1.0
            && self.max_factor.is_finite()
            && self.beta >= 0.0
            && self.beta < 0.2
    }

    /// Decides on a step `h` of error norm `error` for a pair whose lower order is
    /// `lower_order`, given what the run remembers of the accepted steps before it
    /// (`memory`, updated here on acceptance; [`Memory::INITIAL`] before the first) and
    /// whether the last step was rejected.
    ///
    /// Inlined into the driver, where the order is a constant: the `err^(1/q)` of a
    /// power-of-two `q` is then straight-line square roots, and no call sits between a
    /// step's error and the next step's size. Otherwise the powers are one `ln` and one
    /// `exp` a step, `err^(−e) · prev^β = exp(β ln prev − e ln err)`, with the last error
    /// kept as its logarithm: two `powf` cost twice as much, a quarter of a Lorenz step.
    #[inline(always)]
    pub(crate) fn decide(
        &self,
        error: f64,
        lower_order: u32,
        h: f64,
        memory: &mut Memory,
        after_rejection: bool,
    ) -> Decision {
        let q = lower_order + 1;
        let exponent = 1.0 / f64::from(q) - 0.75 * self.beta;
        let square_roots = self.beta == 0.0 && q.is_power_of_two();
        // err^(1/8) for DOP853 as three square roots: a tenth of `powf`'s cost, which on a
        // cheap right-hand side is a tenth of a step's.
        let roots = |x: f64| (0..q.trailing_zeros()).fold(x, |x, _| num_traits::Float::sqrt(x));
        if error <= 1.0 {
            let ln_error = if square_roots { 0.0 } else { math::ln(error) };
            // `1/clamp(plain/memory/safety, 1/max, 1/min)` as `clamp(safety·memory/plain,
            // min, max)`: one division between the error and the next step, not three.
            let growth = if square_roots {
                self.safety / roots(error)
            } else {
                self.safety * math::exp(self.beta * memory.ln_error - exponent * ln_error)
            };
            // `max` and `min`, not `clamp`: its check of the bounds kept it out of line, a
            // call between the error and the next step. One comparison each: the bounds
            // are numbers (`is_valid`), and a NaN growth gives `min_factor` either way.
            let mut factor = math::min_of(math::max_of(growth, self.min_factor), self.max_factor);
            memory.ln_error = math::max_of(ln_error, Memory::INITIAL.ln_error);
            if self.predictive {
                factor = self.predict(factor, error, q, h, memory);
            }
            Decision {
                accept: true,
                factor: if after_rejection {
                    math::min_of(factor, 1.0)
                } else {
                    factor
                },
            }
        } else {
            let plain = if square_roots {
                roots(error)
            } else {
                math::exp(exponent * math::ln(error))
            };
            Decision {
                accept: false,
                factor: math::max_of(self.safety / plain, self.min_factor),
            }
        }
    }

    /// Gustafsson's predictive term after the accepted step `h` of error `error`: the
    /// smaller of `factor` and the prediction from the accepted step before (none before
    /// the second accepted step), as rodas.f's `FACGUS`; remembers this step for the next.
    #[inline]
    fn predict(&self, factor: f64, error: f64, q: u32, h: f64, memory: &mut Memory) -> f64 {
        let mut factor = factor;
        if memory.accepted_step != 0.0 {
            // `1/FACGUS = safety · (h/h_acc) · (err_acc/err²)^(1/q)`.
            let ratio = memory.accepted_error / (error * error);
            let root = if q.is_power_of_two() {
                (0..q.trailing_zeros()).fold(ratio, |x, _| num_traits::Float::sqrt(x))
            } else {
                math::powf(ratio, 1.0 / f64::from(q))
            };
            let predicted = self.safety * (h / memory.accepted_step) * root;
            factor = factor.min(predicted.max(self.min_factor).min(self.max_factor));
        }
        memory.accepted_step = h;
        memory.accepted_error = error.max(1e-2);
        factor
    }
}

/// What a run's [`Controller`] remembers of the accepted steps before the next one.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Memory {
    /// The logarithm of the last accepted step's error, at least 10⁻⁴ (the PI term's).
    ln_error: f64,
    /// The last accepted step (0 before the first), for the predictive term.
    accepted_step: f64,
    /// Its error, at least 10⁻² (rodas.f's `ERRACC`).
    accepted_error: f64,
}

impl Memory {
    /// Before the first step: the smallest error the PI controller remembers, 10⁻⁴
    /// (dopri5.f's `FACOLD`), and no step for the predictive term.
    pub(crate) const INITIAL: Memory = Memory {
        ln_error: -9.210340371976182,
        accepted_step: 0.0,
        accepted_error: 0.0,
    };
}
