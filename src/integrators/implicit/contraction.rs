//! The convergence control of every simplified Newton iteration here: Radau5's and the
//! one-stage methods'. It is radau5.f's (Hairer & Wanner, *Solving Ordinary Differential
//! Equations II*, 2nd ed., Springer 1996, section IV.8, (8.10)–(8.11) and the text around
//! them; `RADCOR` in radau5.f, labels 40–42), kept as data and a few small methods so that
//! each method's loop only feeds it its correction norms.
//!
//! With one matrix, the iteration contracts its error by some `θ < 1` per iteration, and
//! the `k`-th correction `ΔZₖ` leaves an error of at most `θ/(1 − θ) ‖ΔZₖ‖` (8.10). `θ` is
//! estimated from successive correction norms, `θₖ = ‖ΔZₖ‖/‖ΔZₖ₋₁‖` (radau5.f takes the
//! geometric mean of the last two from the third iteration on), and the iteration
//!
//! - converges when `η ‖ΔZₖ‖ ≤ κ Tol` (8.11), `η = θ/(1 − θ)` (radau5.f's `FACCON`; on
//!   the first iteration, without a `θ` yet, the last one's, relaxed to
//!   `max(η, uround)^0.8`);
//! - diverges when `θ ≥ 0.99`;
//! - is predicted to fail when, at this `θ`, the iterations left cannot bring the error
//!   within the tolerance: `θ^(k_max − 1 − k)/(1 − θ) ‖ΔZₖ‖ > κ Tol`, and radau5.f then
//!   shrinks the step by `0.8 q^(−1/(4 + k_max − 1 − k))`, `q` that ratio clamped to
//!   `[10⁻⁴, 20]`;
//! - and may keep its Jacobian for the next step when `θ ≤ 0.001` (radau5.f's `THET`).

use crate::{Scalar, math};
use num_traits::Float;

/// radau5.f's `THET`: a Jacobian is kept for the next step while the Newton iteration
/// contracts by at least this factor per iteration.
pub(crate) const JACOBIAN_REUSE: f64 = 0.001;

/// The contraction rate at which the iteration is taken to diverge (radau5.f).
const DIVERGENCE: f64 = 0.99;

/// `ε^(2/3)` in the iteration's scalar: the Newton tolerance of a step that has no
/// error tolerance to derive one from (the one-stage methods, fixed-step Radau5), as
/// radau5.f derives its from `rtol`. A constant, which each workspace computes on its first
/// step and keeps (a `powf` a step before, about 125 instructions).
pub(crate) fn default_tolerance<T: Scalar>() -> T {
    math::powf(T::epsilon(), T::from_f64(2.0 / 3.0))
}

/// What the last correction says about the iteration.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum Verdict {
    /// The error left is within the tolerance: stop.
    Converged,
    /// Iterate again.
    Continue,
    /// `θ ≥ 0.99` (or `NaN`): more iterations with this matrix will not converge.
    Diverged,
    /// Converging, but not within the iterations left: retry with the step times `shrink`.
    TooSlow {
        /// radau5.f's step-size factor for the retry.
        shrink: f64,
    },
}

/// radau5.f's Newton convergence control: what it knows of the iteration's contraction,
/// within a step and (`η`, `θ`) from one step to the next.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Contraction {
    /// `θ`, the contraction rate last measured (`THET` when none was this step).
    pub(crate) theta: f64,
    /// `η = θ/(1 − θ)`: the last correction's norm times it bounds the error left
    /// (radau5.f's `FACCON`).
    pub(crate) faccon: f64,
    /// The last correction's norm (radau5.f's `DYNOLD`).
    pub(crate) dynold: f64,
    /// The last ratio of successive norms (radau5.f's `THQOLD`).
    thqold: f64,
    /// The unit roundoff of the iteration's scalar (radau5.f's `UROUND`).
    uround: f64,
}

impl Contraction {
    /// No iteration yet: `η = 1`, as radau5.f starts.
    pub(crate) const fn new() -> Self {
        Contraction {
            theta: JACOBIAN_REUSE,
            faccon: 1.0,
            dynold: 0.0,
            thqold: 0.0,
            uround: f64::EPSILON,
        }
    }

    /// Starts a step's iteration as radau5.f does: the last `η` relaxed to
    /// `max(η, uround)^0.8`, so that a first correction is judged by the contraction of
    /// the steps before, less confidently the longer ago it was measured.
    #[inline]
    pub(crate) fn start_step(&mut self, uround: f64) {
        self.uround = uround;
        self.faccon = math::powf(self.faccon.max(uround), 0.8);
        self.theta = JACOBIAN_REUSE;
    }

    /// Starts an iteration that trusts no contraction measured before it (`η = 1`): its
    /// first correction converges only when it is itself within the tolerance.
    pub(crate) fn start_afresh(&mut self, uround: f64) {
        *self = Contraction::new();
        self.uround = uround;
    }

    /// Takes the norm of the correction of `iteration` (counted from 1, of
    /// `max_iterations` allowed) and says what follows, against the tolerance
    /// `tolerance` of that norm (radau5.f's `FNEWT`). `θ` is measured from the second
    /// iteration to the last but one, as in radau5.f.
    // Inlined into each method's loop: out of line, the call cost Radau5 1.7 % of its
    // instructions on Van der Pol (callgrind, `STIFF_REF_PROFILE=vdp/radau5/k63`).
    #[inline]
    pub(crate) fn observe(
        &mut self,
        iteration: usize,
        norm: f64,
        max_iterations: usize,
        tolerance: f64,
    ) -> Verdict {
        let mut verdict = Verdict::Continue;
        if iteration > 1 && iteration < max_iterations {
            let thq = norm / self.dynold;
            self.theta = if iteration == 2 {
                thq
            } else {
                Float::sqrt(thq * self.thqold)
            };
            self.thqold = thq;
            // Written so that a `NaN` θ diverges.
            if self.theta < DIVERGENCE {
                self.faccon = self.theta / (1.0 - self.theta);
                // Saturated: a limit of `usize::MAX` iterations must not wrap to a
                // negative count (which predicted that nothing ever converges).
                let left = i32::try_from(max_iterations - 1 - iteration).unwrap_or(i32::MAX);
                let dyth = self.faccon * norm * math::powi(self.theta, left) / tolerance;
                if dyth >= 1.0 {
                    let qnewt = dyth.clamp(1e-4, 20.0);
                    let shrink = 0.8 * math::powf(qnewt, -1.0 / (4.0 + f64::from(left)));
                    verdict = Verdict::TooSlow { shrink };
                }
            } else {
                verdict = Verdict::Diverged;
            }
        }
        // Kept on every verdict, so that an iteration that goes on past one (full Newton)
        // measures its next `θ` from this norm.
        self.dynold = norm.max(self.uround);
        if verdict == Verdict::Continue && self.faccon * norm <= tolerance {
            verdict = Verdict::Converged;
        }
        verdict
    }

    /// Whether the iteration contracted fast enough for its Jacobian to serve the next
    /// step (`θ ≤ THET`).
    #[inline]
    pub(crate) fn keeps_jacobian(&self) -> bool {
        self.theta <= JACOBIAN_REUSE
    }
}

impl Default for Contraction {
    fn default() -> Self {
        Contraction::new()
    }
}
