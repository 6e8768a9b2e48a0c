//! Radau IIA of order 5 (Hairer–Wanner's Radau5): the 3-stage collocation method at the
//! Radau points, at fixed steps and under error control.
//!
//! - `coefficients.rs`: the method's table and the transformation of its Newton system,
//!   with their sources;
//! - `workspace.rs`: the parts of a step (Jacobian, factorisations, one Newton iteration,
//!   error estimate, collocation polynomial);
//! - `fixed.rs`: one step as a [`Scheme`](crate::Scheme);
//! - `adaptive.rs`: radau5.f's step and step-size control as an
//!   [`AdaptiveMethod`](crate::control::AdaptiveMethod).

mod adaptive;
mod coefficients;
mod consistent;
mod fixed;
mod memory;
mod workspace;

#[cfg(feature = "alloc")]
pub(crate) use coefficients::{matrix, nodes};
pub use workspace::Radau5Workspace;

use super::mass::HigherIndex;
use crate::{ImplicitSettings, Structure};

/// Radau IIA of order 5, after Hairer and Wanner's code radau5.f: an implicit 3-stage
/// Runge–Kutta method, stiffly accurate and L-stable, for stiff systems under error
/// control ([`Adaptive`](crate::adaptive::Adaptive)) or at fixed steps.
///
/// Each step solves for the stage values `Yᵢ = y₀ + Zᵢ` at the Radau points
/// `cᵢ = (4 − √6)/10, (4 + √6)/10, 1`:
///
/// ```text
/// Zᵢ = h Σⱼ aᵢⱼ f(t + cⱼ h, y₀ + Zⱼ)        y₁ = y₀ + Z₃
/// ```
///
/// by simplified Newton iterations with one Jacobian `J` for all stages. With
/// `T⁻¹ A⁻¹ T = diag(γ, [[α, −β], [β, α]])` the `3n × 3n` system splits into one real
/// system `(γ/h) I − J` and one complex `((α + iβ)/h) I − J` (Hairer–Wanner II, IV.8), each
/// factored once per step size. The complex one is factored in complex arithmetic by the
/// same dense or banded LU as the real one: half the work of the equivalent real
/// `2n × 2n` system, and up to 16 unknowns it stays on the stack.
///
/// Under error control it is radau5.f's algorithm:
///
/// - the Jacobian is kept from step to step while the Newton iteration contracts by
///   1000× per iteration (radau5.f's `THET = 0.001`), and the factorisations while the
///   step does not change by more than 20%;
/// - the Newton iteration starts from the last step's collocation polynomial, stops when
///   the estimated error left is below `κ = max(10ε/rtol', min(0.03, √rtol'))` of the
///   tolerance (radau5.f's `FNEWT`, with `rtol' = rtol^(2/3)/10` its tightened tolerance),
///   and gives up on a step when it diverges, or converges too slowly to finish in
///   [`max_iterations`](Radau5::max_iterations), shrinking the step by how slowly;
/// - the error estimate is `(I − hγ₀J)⁻¹ (γ₀ h f(y₀) + Σ eᵢ Zᵢ)`, filtered through the
///   real factorisation so that stiff components do not inflate it, and evaluated once
///   more at `y₀ + err` on a first or retried step;
/// - the step size comes from that estimate (`err^(1/4)`, safety 0.9 lowered as the
///   Newton iterations grow), with Gustafsson's predictive controller, between ⅛ and 8
///   times the last. The run's [`Controller`](crate::control::Controller) is not used.
///
/// Tolerances are tightened as radau5.f does (`rtol' = rtol^(2/3)/10`,
/// `atol' = atol · rtol'/rtol`), so the tolerances given to
/// [`Adaptive`](crate::adaptive::Adaptive) mean what they mean to radau5.f, and the
/// error is measured against the size of the step's start.
///
/// At a fixed step ([`Integrator`](crate::Integrator), and `"radau5"` in
/// [`Method`](crate::Method)) each step evaluates the Jacobian at its start and iterates
/// until the correction is below the [`tolerance`](Radau5::tolerance) (by default
/// `ε^(2/3)` relative to `1 + |yᵢ|`), evaluating it again at the end stage if the
/// iteration stalls.
///
/// - **Order** 5 (stage order 3); the dense output, the collocation polynomial, is of
///   order 3.
/// - **Stability**: L-stable (`R(∞) = 0`): stiff components are damped in one step, at any
///   step size. Not symplectic: it damps oscillations too, less than backward Euler.
/// - **Cost** per Newton iteration: three force evaluations and a real and a complex
///   `n × n` solve; per new step size one real and one complex factorisation; per new
///   Jacobian `n` force evaluations by finite differences (one per diagonal of a
///   [band](Structure::Banded)), or one call to [`Forces::jacobian`](crate::Forces::jacobian).
///
/// **Mass matrices and DAEs.** Forces that give a constant mass matrix `M`
/// ([`Forces::mass_matrix`](crate::Forces::mass_matrix), or a closure in
/// [`WithMass`](crate::WithMass)) make it solve `M y' = f(t, y)`, as radau5.f does with
/// `IMAS = 1` (Hairer–Wanner II, VI.6): the stage equations become
/// `M Zᵢ = h Σⱼ aᵢⱼ f(t + cⱼ h, y₀ + Zⱼ)`, the two systems `(γ/h) M − J` and
/// `((α + iβ)/h) M − J`, the error estimate `E₁⁻¹ (f(y₀) + M Σ dᵢ Zᵢ / h)`; the
/// Newton start and the dense output are unchanged. `M` may be singular: its zero rows
/// are algebraic equations `0 = fᵢ(t, y)`, which each step's end satisfies (the method is
/// stiffly accurate), and an index-1 system is solved at the order of an ODE (the
/// algebraic unknowns' errors are measured as the others'). For index 2 or 3, order the
/// unknowns by index and say where each index starts
/// ([`with_higher_index`](Radau5::with_higher_index)). The start must satisfy the
/// algebraic equations: [`consistent_start`](Radau5::consistent_start) completes it, and
/// an adaptive run from a start off by more than the tolerance stops with
/// [`StepError::InconsistentStart`](crate::StepError::InconsistentStart).
/// [`Bdf`](crate::Bdf) takes `M` too (index 1, and 2 with
/// [`Bdf::with_index_two`](crate::Bdf::with_index_two)); the other methods ignore it.
///
/// What it does with unusual input: a step of `dt = 0` does nothing; negative steps
/// integrate backwards; a force that is infinite or `NaN` at the start of a step is
/// refused ([`StepError::NonFiniteResidual`](crate::StepError::NonFiniteResidual) at
/// fixed steps, [`AdaptiveError::NonFiniteError`](crate::AdaptiveError) under
/// error control); one that is non-finite at a stage only makes the adaptive method
/// retry a shorter step (the step may have been too long for the Newton iteration), and
/// the fixed step refuse the step. A singular matrix is a shorter retry under error
/// control and [`StepError::SingularJacobian`](crate::StepError::SingularJacobian) at a
/// fixed step. A failed step leaves the state unchanged.
///
/// Use it for stiff problems at tolerances from 10⁻³ to 10⁻¹⁰: chemical kinetics,
/// relaxation oscillations, method-of-lines PDEs (with a banded Jacobian), where explicit
/// methods are held to their stability limit.
///
/// # Example
///
/// Van der Pol's oscillator with `μ = 1000` in Hairer's scaled form (relaxation
/// oscillations with layers of width 10⁻⁶), the problem of radau5.f's test driver:
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::Tolerances;
/// use timestep::Radau5;
///
/// let epsilon = 1e-6;
/// let van_der_pol = move |y: &[f64; 2], _t: f64| {
///     [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / epsilon]
/// };
/// let mut y = [2.0, -0.66];
/// let mut solver = Adaptive::new(Radau5::new())
///     .with_tolerances(Tolerances::new(1e-4, 1e-4))
///     .with_initial_step(1e-6);
/// let statistics = solver.solve(&mut y, &van_der_pol, 0.0, 2.0)?;
/// // Hairer's reference solution at t = 2 (1.7061677, −0.8928097).
/// assert!((y[0] - 1.7061677).abs() < 1e-4 && (y[1] + 0.8928097).abs() < 1e-3);
/// // An explicit method needs millions of steps here.
/// assert!(statistics.accepted < 400);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
///
/// At a fixed step, on a stiff spring where explicit methods explode:
///
/// ```
/// use timestep::{Integrator, Particle, Radau5};
///
/// let stiff = |p: &Particle<f64>, _t: f64| -1.0e6 * p.position();
/// let mut particle = Particle::new(1.0, 1.0, 0.0);
/// let mut radau = Radau5::new();
/// for i in 0..60 {
///     radau.step(&mut particle, &stiff, i as f64 / 60.0, 1.0 / 60.0)?;
/// }
/// // L-stable: the oscillation (period 6 ms) is damped away, not amplified.
/// assert!(particle.position().abs() < 1e-3);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Radau5 {
    /// Its `linear_forces` always `false`: Radau5 does not take the declaration.
    settings: ImplicitSettings,
    higher_index: HigherIndex,
}

impl Radau5 {
    /// radau5.f's `NIT`: Newton iterations allowed per step.
    pub const DEFAULT_MAX_ITERATIONS: usize = 7;

    /// radau5.f's defaults: a dense Jacobian, the Newton tolerance derived from the
    /// error tolerance (at fixed steps `ε^(2/3)`), and
    /// [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS) Newton iterations.
    ///
    /// ```
    /// use timestep::{Radau5, Structure};
    ///
    /// let radau = Radau5::new();
    /// assert_eq!((radau.structure(), radau.tolerance(), radau.max_iterations()), (Structure::Dense, None, 7));
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Radau5 {
            settings: ImplicitSettings::new(),
            higher_index: HigherIndex::NONE,
        }
    }

    /// The same method with `settings`: the Jacobian's structure (as
    /// [`with_structure`](Self::with_structure)), the Newton tolerance (as
    /// [`with_tolerance`](Self::with_tolerance); `None`: radau5.f's `FNEWT` under error
    /// control, `ε^(2/3)` at fixed steps) and the iterations (as
    /// [`with_max_iterations`](Self::with_max_iterations); `None`:
    /// [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS), radau5.f's 7). The
    /// linear-forces declaration is not taken: Radau5's simplified Newton iteration is
    /// radau5.f's, stopped by its own convergence test, for linear forces too; nor is the
    /// linear solver, which is the direct one (Radau5 factors its two matrices). Both are
    /// dropped, so that they change nothing, and
    /// [`settings`](Self::settings) reports them at their defaults. The index settings
    /// ([`with_higher_index`](Self::with_higher_index)) are kept.
    ///
    /// ```
    /// use timestep::{ImplicitSettings, Radau5, Structure};
    ///
    /// let settings = ImplicitSettings::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// let radau = Radau5::new().with_settings(settings);
    /// assert_eq!(radau.settings(), settings);
    /// assert_eq!(radau.max_iterations(), 7); // radau5.f's, not another method's
    /// assert!(!Radau5::new().with_settings(settings.with_linear_forces()).settings().linear_forces());
    /// ```
    #[must_use]
    pub const fn with_settings(self, settings: ImplicitSettings) -> Self {
        Radau5 {
            settings: ImplicitSettings {
                linear_forces: false,
                linear_solver: crate::LinearSolver::Direct,
                ..settings
            },
            ..self
        }
    }

    /// The settings it takes, as [`with_settings`](Self::with_settings) or the builders
    /// set them (`linear_forces` always `false`).
    ///
    /// ```
    /// use timestep::{ImplicitSettings, Radau5};
    ///
    /// assert_eq!(Radau5::new().settings(), ImplicitSettings::new());
    /// assert_eq!(Radau5::new().with_tolerance(0.01).settings().tolerance(), Some(0.01));
    /// ```
    #[must_use]
    pub const fn settings(&self) -> ImplicitSettings {
        self.settings
    }

    /// The same method, told which entries of the Jacobian can be non-zero: with a
    /// [banded](Structure::Banded) one, finite differences take one force evaluation per
    /// diagonal and both factorisations work inside the band, `O(n)` for a chain or a 1-D
    /// grid. A band that covers the whole matrix is solved densely.
    ///
    /// ```
    /// use timestep::{Radau5, Structure};
    ///
    /// let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
    /// assert_eq!(Radau5::new().with_structure(tridiagonal).structure(), tridiagonal);
    /// ```
    #[must_use]
    pub const fn with_structure(self, structure: Structure) -> Self {
        self.with_settings(self.settings.with_structure(structure))
    }

    /// The same method with Newton tolerance `tolerance`. Under error control it is
    /// radau5.f's `FNEWT`: the iteration stops when the error it leaves is below this
    /// fraction of the error tolerance (default `max(10ε/rtol', min(0.03, √rtol'))`);
    /// smaller costs more iterations per step and makes the error follow the tolerance
    /// more closely. On Robertson's kinetics at loose tolerances the default lets Newton's
    /// error dominate: the final error (`benches/stiff.rs`, t = 4·10⁵) stays between
    /// 10⁻⁵ and 10⁻³ for every `rtol` from 1 to 10⁻³, where with 10⁻³ it is near 10⁻⁶
    /// from `rtol = 5.6·10⁻²` on, and a final error of 10⁻⁶ costs 53 steps instead of 86.
    /// At fixed steps it is the correction allowed relative to `1 + |yᵢ|` (default
    /// `ε^(2/3)`).
    ///
    /// # Panics
    ///
    /// If `tolerance` is not finite and positive (zero, negative, infinite or `NaN`).
    ///
    /// ```
    /// use timestep::Radau5;
    ///
    /// assert_eq!(Radau5::new().with_tolerance(0.01).tolerance(), Some(0.01));
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        assert!(
            ImplicitSettings::check_tolerance(tolerance).is_ok(),
            "Radau5 tolerance must be finite and positive, got {tolerance:e}"
        );
        self.with_settings(self.settings.with_tolerance(tolerance))
    }

    /// The same method allowing `max_iterations` Newton iterations per step (per Jacobian
    /// at fixed steps). Under error control a step that would need more is retried
    /// shorter; at fixed steps it returns
    /// [`StepError::NotConverged`](crate::StepError::NotConverged).
    ///
    /// # Panics
    ///
    /// If `max_iterations` is 0.
    ///
    /// ```
    /// use timestep::Radau5;
    ///
    /// assert_eq!(Radau5::new().with_max_iterations(10).max_iterations(), 10);
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        assert!(
            ImplicitSettings::check_max_iterations(max_iterations).is_ok(),
            "Radau5 needs at least one Newton iteration"
        );
        self.with_settings(self.settings.with_max_iterations(max_iterations))
    }

    /// The same method for a differential-algebraic system of index 2 or 3 (`M y' = f`,
    /// see [`Forces::mass_matrix`](crate::Forces::mass_matrix)) whose unknowns are
    /// ordered by index as radau5.f asks: `0..index2` of index 0 or 1 (radau5.f's
    /// `NIND1 = index2`), `index2..index3` of index 2 (`NIND2 = index3 − index2`), and
    /// `index3..` of index 3 (`NIND3`, the rest). Under error control the Newton
    /// iteration's and the error estimate's scale of an index-2 unknown is divided by
    /// `|h|`, of an index-3 unknown by `h²` (radau5.f's `SCAL(I)/HHFAC`; Hairer, Lubich
    /// and Roche 1989, *The Numerical Solution of Differential-Algebraic Systems by
    /// Runge–Kutta Methods*, LNM 1409, §7): their local errors are `h` and `h²` times
    /// larger than the others' (an index-2 unknown of Radau IIA is of order 3, not 5),
    /// and unscaled they would hold the step near zero. An adaptive run's start is
    /// checked against the algebraic equations by their residuals (they do not contain
    /// the unknowns they determine, so there is no Newton step on them to measure it by):
    /// an equation `0 = fᵢ(t₀, y₀)` whose residual needs, to first order, some unknown
    /// moved by more than its tolerance (`|fᵢ| > Σⱼ |∂fᵢ/∂yⱼ| scaleⱼ`) stops the run with
    /// [`StepError::InconsistentStart`](crate::StepError::InconsistentStart) naming it (the
    /// pendulum released at `x² + y² = 1.01` at index 3: 0.01 against
    /// `2 x (atol + rtol |x|) = 4·10⁻⁶` for rtol = atol = 10⁻⁶). The hidden constraints (for the pendulum at index 3, the
    /// velocity constraint) are not checked: that would take derivatives of the
    /// algebraic equations, which the forces do not give. At fixed steps it changes
    /// nothing. Default: no unknown of index above 1 (`index2 = index3 = usize::MAX`).
    ///
    /// # Panics
    ///
    /// If `index3 < index2`.
    ///
    /// ```
    /// use timestep::Radau5;
    ///
    /// // A pendulum (x, y, vx, vy, λ) as an index-3 system: positions of index 1,
    /// // velocities of index 2, the multiplier of index 3.
    /// let radau = Radau5::new().with_higher_index(2, 4);
    /// assert_eq!(radau.higher_index(), (2, 4));
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_higher_index(self, index2: usize, index3: usize) -> Self {
        assert!(
            index2 <= index3,
            "Radau5's index-3 unknowns ({index3}..) must follow its index-2 ones ({index2}..)"
        );
        Radau5 {
            higher_index: HigherIndex { index2, index3 },
            ..self
        }
    }

    /// Where the index-2 and index-3 unknowns start, as
    /// [`with_higher_index`](Self::with_higher_index) set it (`usize::MAX` for none).
    ///
    /// ```
    /// assert_eq!(timestep::Radau5::new().higher_index(), (usize::MAX, usize::MAX));
    /// ```
    #[must_use]
    pub fn higher_index(&self) -> (usize, usize) {
        (self.higher_index.index2, self.higher_index.index3)
    }

    /// Which entries of the Jacobian can be non-zero.
    ///
    /// ```
    /// assert_eq!(timestep::Radau5::new().structure(), timestep::Structure::Dense);
    /// ```
    #[must_use]
    pub fn structure(&self) -> Structure {
        self.settings.structure
    }

    /// The Newton tolerance set, or `None` for the defaults.
    ///
    /// ```
    /// assert_eq!(timestep::Radau5::new().tolerance(), None);
    /// ```
    #[must_use]
    pub fn tolerance(&self) -> Option<f64> {
        self.settings.tolerance
    }

    /// Newton iterations allowed per step.
    ///
    /// ```
    /// assert_eq!(timestep::Radau5::new().max_iterations(), 7);
    /// ```
    #[must_use]
    pub fn max_iterations(&self) -> usize {
        self.settings
            .max_iterations_or(Self::DEFAULT_MAX_ITERATIONS)
    }
}

impl Default for Radau5 {
    fn default() -> Self {
        Radau5::new()
    }
}

/// Saved as its settings, checked again on the way in as the builders check them. The
/// iterations are saved as the count it takes, and radau5.f's default count loads as left
/// at the default, as [`Radau5::new`] has it.
#[cfg(feature = "serde")]
const _: () = {
    use super::settings::InvalidSettings;

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "Radau5", deny_unknown_fields)]
    struct Saved {
        tolerance: Option<f64>,
        max_iterations: usize,
        #[serde(default)]
        structure: Structure,
        #[serde(
            default = "no_higher_index",
            skip_serializing_if = "is_no_higher_index"
        )]
        higher_index: HigherIndex,
    }

    const fn no_higher_index() -> HigherIndex {
        HigherIndex::NONE
    }

    /// The default is not written: settings saved before it existed read the same.
    fn is_no_higher_index(higher_index: &HigherIndex) -> bool {
        *higher_index == HigherIndex::NONE
    }

    impl serde::Serialize for Radau5 {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Saved {
                tolerance: self.tolerance(),
                max_iterations: self.max_iterations(),
                structure: self.structure(),
                higher_index: self.higher_index,
            }
            .serialize(serializer)
        }
    }

    impl<'de> serde::Deserialize<'de> for Radau5 {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let saved = Saved::deserialize(deserializer)?;
            if saved.higher_index.index3 < saved.higher_index.index2 {
                return Err(serde::de::Error::custom(
                    "Radau5's index-3 unknowns must follow its index-2 ones",
                ));
            }
            let settings = InvalidSettings::check(
                "Radau5",
                saved.tolerance,
                saved.max_iterations,
                saved.structure,
                false,
                crate::LinearSolver::Direct,
                Radau5::DEFAULT_MAX_ITERATIONS,
            )
            .map_err(serde::de::Error::custom)?;
            Ok(Radau5 {
                settings,
                higher_index: saved.higher_index,
            })
        }
    }
};
