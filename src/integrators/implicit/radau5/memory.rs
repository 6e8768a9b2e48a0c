//! What adaptive Radau5 remembers between attempts and steps (radau5.f's `RADCOR`
//! locals), kept in its workspace.

use crate::integrators::implicit::contraction::Contraction;

/// How the last attempt ended.
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) enum Outcome {
    /// The Newton iteration converged; the error norm.
    Estimated(f64),
    /// The Newton iteration diverged, converged too slowly, or the matrix was singular:
    /// retry with the step times this factor.
    Failed(f64),
}

/// What the adaptive method remembers between attempts and steps (radau5.f's `RADCOR`
/// locals).
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(crate) struct Memory {
    /// No step accepted yet since [`begin`](crate::control::AdaptiveMethod::begin).
    pub(super) first: bool,
    /// The last attempt failed.
    pub(super) reject: bool,
    /// The Newton iteration's convergence control (`θ`, `η = θ/(1 − θ)` and the last
    /// correction's norm).
    pub(super) contraction: Contraction,
    /// The last attempt's step.
    pub(super) h: f64,
    /// The last accepted step (the collocation polynomial's).
    pub(super) h_old: f64,
    pub(super) has_polynomial: bool,
    /// Gustafsson's controller: the last accepted step and its error.
    pub(super) h_accepted: f64,
    pub(super) error_accepted: f64,
    pub(super) accepted: u64,
    /// The Jacobian was evaluated at this step's start.
    pub(super) jacobian_fresh: bool,
    /// The next attempt wants a new Jacobian (unless the one kept is fresh).
    pub(super) wants_jacobian: bool,
    /// The step the factorisations are for.
    pub(super) factored: Option<f64>,
    pub(super) iterations: usize,
    pub(super) outcome: Outcome,
    /// The last tolerance `r` and its tightening `0.1 · r^(−1/3)`, and the last first
    /// relative tolerance and its Newton tolerance: constants of a run, kept so that an
    /// attempt calls `powf` for them only when the tolerance changes (three calls an
    /// attempt on two unknowns were a sixth of a Van der Pol run under `deterministic`).
    #[cfg_attr(feature = "serde", serde(skip, default = "Memory::no_tolerance"))]
    pub(super) tightening: (f64, f64),
    #[cfg_attr(feature = "serde", serde(skip, default = "Memory::no_tolerance"))]
    pub(super) newton_tolerance: (f64, f64),
    /// A fixed step's Newton tolerance `ε^(2/3)` in the state's scalar
    /// ([`default_tolerance`](crate::integrators::implicit::contraction::default_tolerance)),
    /// once computed (exact in `f64` for `f32` too). Not saved: computed again, to the same
    /// bits.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) default_tolerance: Option<f64>,
    /// A banded Jacobian has been checked against the forces (`Matrix::check_band`).
    pub(super) band_checked: bool,
    /// The run's start is still to be checked for consistency (a differential-algebraic
    /// system's algebraic equations holding there).
    #[cfg_attr(feature = "serde", serde(default))]
    pub(super) check_start: bool,
}

impl Memory {
    /// No tolerance yet: `NaN` is equal to none, so the next attempt computes what is kept
    /// for it. Also what a loaded workspace has, which is not saved: the same `powf` of the
    /// same tolerance gives the same bits again.
    pub(super) const fn no_tolerance() -> (f64, f64) {
        (f64::NAN, 0.0)
    }

    pub(super) const fn new() -> Self {
        Memory {
            first: true,
            reject: false,
            contraction: Contraction::new(),
            h: 0.0,
            h_old: 0.0,
            has_polynomial: false,
            h_accepted: 0.0,
            error_accepted: 1e-2,
            accepted: 0,
            jacobian_fresh: false,
            wants_jacobian: true,
            factored: None,
            iterations: 0,
            outcome: Outcome::Failed(0.5),
            tightening: Self::no_tolerance(),
            newton_tolerance: Self::no_tolerance(),
            default_tolerance: None,
            band_checked: false,
            check_start: true,
        }
    }
}
