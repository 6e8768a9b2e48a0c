//! SEULEX (Hairer–Wanner's seulex.f): the linearly implicit Euler method with
//! extrapolation, and order and step-size selection by work per unit step.
//!
//! - `sequence.rs`: the step-number sequence and the work of each line, as data;
//! - `tableau.rs`: the extrapolation tableau (Aitken–Neville in place);
//! - `workspace.rs`: the parts of a step (Jacobian, one line of the table with its
//!   stability check, its error);
//! - `control.rs`: the order and step-size controller;
//! - `dense.rs`: the dense output from the extrapolated derivatives at the step's end;
//! - `adaptive.rs`: seulex.f's step as an [`AdaptiveMethod`](crate::control::AdaptiveMethod).

mod adaptive;
mod control;
mod dense;
mod sequence;
mod tableau;
mod workspace;

pub use sequence::StepSequence;
/// For SEULEX's adjoint (`src/sensitivity/adjoint/seulex.rs`).
#[cfg(feature = "alloc")]
pub(crate) use sequence::{MAX_COLUMNS, Table};
#[cfg(feature = "alloc")]
pub(crate) use tableau::extrapolate;
pub use workspace::SeulexWorkspace;

use crate::Structure;

/// SEULEX, after Hairer and Wanner's code seulex.f (Solving ODEs II, 2nd ed., IV.9): the
/// linearly implicit Euler method with polynomial extrapolation, of variable order, for
/// stiff systems at tight tolerances, under error control
/// ([`Adaptive`](crate::adaptive::Adaptive)).
///
/// A step of `H` from `(t, y₀)` computes lines `j = 1, 2, …` of an extrapolation table:
/// line `j` takes `nⱼ` linearly implicit Euler steps of `hⱼ = H/nⱼ` (the
/// [`StepSequence`] 2, 3, 4, 6, 8, 12, … of seulex.f, or 1, 2, 3, 4, 6, 8, … of
/// Hairer–Wanner II, IV.9) with one Jacobian `J = ∂f/∂y` at the step's start,
///
/// ```text
/// (I/hⱼ − J) Δₘ = f(t + (m + 1) hⱼ, yₘ)      yₘ₊₁ = yₘ + Δₘ      Tⱼ₁ = y_nⱼ
/// ```
///
/// and extrapolates it with the lines before (Aitken–Neville), `Tⱼ,ₖ₊₁ = Tⱼₖ + (Tⱼₖ −
/// Tⱼ₋₁,ₖ)/(nⱼ/nⱼ₋ₖ − 1)`: `Tⱼⱼ` is of order `j`, and `‖Tⱼⱼ − Tⱼ,ⱼ₋₁‖` estimates its error.
/// As seulex.f does:
///
/// - the step is accepted at the first line, around the current order `k`, whose error
///   meets the tolerance; a convergence monitor rejects it early when line `k + 1` cannot
///   (error above `4 nₖ₊₁ nₖ` at line `k − 1`, above `2 nₖ₊₁` at line `k`);
/// - each line proposes the step `Hⱼ = H · 0.93 · (0.6/errⱼ)^(1/j)` (between
///   `0.1^(1/j)/4` and `0.1^(−1/j)` times `H`), and the next order is the line of least
///   work per unit step `Aⱼ/Hⱼ` (with work `Aⱼ` counted as five evaluations per Jacobian,
///   one per evaluation, factorisation and solve), among the lines next to the last one
///   computed;
/// - the first linearly implicit Euler step of lines 1 and 2 is checked for stability: a
///   second solve, `θ = ‖(I/hⱼ − J)⁻¹(f(y₁) − Δ₀/hⱼ)‖ / max(1, ‖Δ₀‖)`, above 1 halves the
///   step; an extrapolation whose error grows from line to line, or a singular matrix,
///   halves it too;
/// - the Jacobian is kept for the next step while `θ ≤ min(10⁻⁴, rtol)` (seulex.f's
///   `THET`), and always for a step retried after a rejection;
/// - the first step of a run, and the last (cut to land on the end), take lines until one
///   meets the tolerance.
///
/// The run's [`Controller`](crate::control::Controller) is not used. Errors are measured
/// against the size of the step's start (`atol + rtol |y₀|`, root mean square), as
/// seulex.f does.
///
/// The dense output (Hairer–Ostermann, seulex.f's `IOUT = 2`) is the polynomial through
/// `y₀` that has, at the step's end, `y₁` and the derivatives up to the order `κ − 1`
/// (`κ` the lines of the step) extrapolated from the backward differences of the lines'
/// increments: of order about `κ − 1`, with no force evaluation.
///
/// - **Order**: variable, 2 to 12: a step is accepted at line `k − 1`, `k` or `k + 1`
///   around the order `k` (2 to 11), which starts at `⌊1.5 − 0.6 log₁₀(rtol + atol)⌋`
///   (between 2 and 10) and then follows the least work per unit step.
/// - **Stability**: the linearly implicit Euler method is L-stable, and its extrapolated
///   values `Tⱼⱼ` are A(α)-stable with α close to 90°, their stability functions vanishing
///   at infinity (Hairer–Wanner II, IV.9): stiff components are damped at any step.
/// - **Cost** per line `j`: one factorisation of `I/hⱼ − J`, `nⱼ` force evaluations and
///   solves (one more of each for the stability check of lines 1 and 2, and one more
///   evaluation unless the forces are [autonomous](Seulex::assume_autonomous)); per step
///   at most one Jacobian: `n` force evaluations by finite differences (one per diagonal of
///   a [band](Structure::Banded)), or one call to [`Forces::jacobian`](crate::Forces::jacobian).
///   Cheap per order at high orders: the method for tolerances of 10⁻⁶ to 10⁻¹² on stiff
///   problems of moderate size.
///
/// What it does with unusual input: negative spans integrate backwards; forces that are
/// infinite or `NaN`, a singular `I/hⱼ − J` and an unstable first Euler step make an
/// attempt retry at half the step, and a run whose forces stay non-finite stops with
/// [`AdaptiveError::NonFiniteError`](crate::AdaptiveError::NonFiniteError); a failed
/// attempt leaves the state unchanged.
///
/// # Example
///
/// Van der Pol's oscillator in Hairer's scaled form with `ε = 10⁻⁶` (seulex.f's test
/// driver), at a tolerance of 10⁻⁸:
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::{Seulex, Tolerances};
///
/// let epsilon = 1e-6;
/// let van_der_pol = move |y: &[f64; 2], _t: f64| {
///     [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / epsilon]
/// };
/// let mut y = [2.0, -0.66];
/// let statistics = Adaptive::new(Seulex::new())
///     .with_tolerances(Tolerances::new(1e-8, 1e-8))
///     .with_initial_step(1e-6)
///     .solve(&mut y, &van_der_pol, 0.0, 2.0)?;
/// // seulex.f's solution at 10⁻¹², y(2) = (1.706167437543878, −0.8928100165503831).
/// assert!((y[0] - 1.706167437543878).abs() < 1e-7);
/// assert!((y[1] + 0.8928100165503831).abs() < 1e-7);
/// // seulex.f's own count from this start: 136 accepted steps of 146.
/// assert_eq!((statistics.accepted, statistics.steps()), (136, 146));
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
///
/// With the `serde` feature it is saved as its settings,
/// `{"structure": "dense", "sequence": "from-two", "autonomous": false}` (unknown fields
/// refused).
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct Seulex {
    structure: Structure,
    sequence: StepSequence,
    autonomous: bool,
}

impl Seulex {
    /// SEULEX with a dense Jacobian, seulex.f's step sequence 2, 3, 4, 6, 8, 12, … and
    /// forces that may depend on time.
    ///
    /// ```
    /// use timestep::{Seulex, StepSequence, Structure};
    ///
    /// let seulex = Seulex::new();
    /// assert_eq!(seulex.structure(), Structure::Dense);
    /// assert_eq!(seulex.sequence(), StepSequence::FromTwo);
    /// assert!(!seulex.is_autonomous());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Seulex {
            structure: Structure::Dense,
            sequence: StepSequence::FromTwo,
            autonomous: false,
        }
    }

    /// The same method, told which entries of the Jacobian can be non-zero: a
    /// [banded](Structure::Banded) Jacobian costs one force evaluation per diagonal with
    /// finite differences, and its factorisations work inside the band. An analytic
    /// Jacobian ([`Forces::jacobian`](crate::Forces::jacobian)) may only write the band's
    /// entries.
    ///
    /// ```
    /// use timestep::{Seulex, Structure};
    ///
    /// let banded = Seulex::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// assert_eq!(banded.structure().bandwidth(), 3);
    /// ```
    #[must_use]
    pub const fn with_structure(self, structure: Structure) -> Self {
        Seulex { structure, ..self }
    }

    /// The same method with another step-number sequence.
    ///
    /// ```
    /// use timestep::{Seulex, StepSequence};
    ///
    /// let from_one = Seulex::new().with_sequence(StepSequence::FromOne);
    /// assert_eq!(from_one.sequence(), StepSequence::FromOne);
    /// ```
    #[must_use]
    pub const fn with_sequence(self, sequence: StepSequence) -> Self {
        Seulex { sequence, ..self }
    }

    /// The same method, told that the forces do not depend on time (seulex.f's
    /// `IFCN = 0`): every line starts from the rate at the step's start, evaluated once a
    /// step, and the stability check reuses the next stage's rate, which saves two force
    /// evaluations per line. Forces that do depend on time are then integrated with the
    /// time taken explicitly (`f(t + m hⱼ, yₘ)`), a consistent method still, but one that
    /// does not see a stiff dependence on time.
    ///
    /// ```
    /// use timestep::Seulex;
    ///
    /// assert!(Seulex::new().assume_autonomous().is_autonomous());
    /// ```
    #[must_use]
    pub const fn assume_autonomous(self) -> Self {
        Seulex {
            autonomous: true,
            ..self
        }
    }

    /// Which entries of the Jacobian can be non-zero.
    #[must_use]
    pub const fn structure(&self) -> Structure {
        self.structure
    }

    /// The step-number sequence.
    #[must_use]
    pub const fn sequence(&self) -> StepSequence {
        self.sequence
    }

    /// Whether the forces are taken not to depend on time.
    #[must_use]
    pub const fn is_autonomous(&self) -> bool {
        self.autonomous
    }
}

super::settings::structure_settings!(
    [] Seulex,
    "Seulex",
    "Seulex::new()",
    "The linearly implicit Euler steps it extrapolates solve one linear system each and \
     have no Newton iteration to stop or to cut short."
);

impl Default for Seulex {
    /// [`Seulex::new`].
    fn default() -> Self {
        Seulex::new()
    }
}
