//! Rosenbrock (linearly implicit Runge–Kutta) methods: a [`RosenbrockTableau`] of
//! coefficients, and one stage loop, [`Rosenbrock`], that runs every tableau on every state,
//! at a fixed step ([`Scheme`]) and under error control ([`AdaptiveMethod`]).

use super::jacobian::{self, DifferenceStep, Differences, Point};
use super::mass::{self, Mass};
use crate::control::{
    AdaptiveMethod, Controller, ErrorNorm, IntoAdaptive, Statistics, ToleranceSet,
};
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::linalg::{Buffer, Matrix, Order, Structure};
use crate::vector::combination;
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{One, Zero};

/// `√ε` of `f64`, `2⁻²⁶` (a constant: `sqrt` is not in `core`).
const ROOT_EPSILON: f64 = 1.0 / 67_108_864.0;

/// The coefficients of an `S`-stage Rosenbrock method with an embedded error estimate, in
/// the form Hairer and Wanner transform it to so that a step needs no matrix–vector
/// products (Solving ODEs II, 2nd ed., IV.7, eq. (7.4′); the form rodas.f uses):
///
/// ```text
/// (I/(h γ) − J) Uᵢ = f(t + αᵢ h, y + Σⱼ₍ⱼ<ᵢ₎ aᵢⱼ Uⱼ) + Σⱼ₍ⱼ<ᵢ₎ (cᵢⱼ/h) Uⱼ + γᵢ h ∂f/∂t
/// y(t + h) = y + Σᵢ bᵢ Uᵢ          (Hairer's mᵢ)
/// ŷ(t + h) = y + Σᵢ b̂ᵢ Uᵢ          (the embedded solution; error estimate y − ŷ)
/// ```
///
/// with `J = ∂f/∂y` and `∂f/∂t` taken once per step at `(t, y)`. Every stage solves with
/// the same matrix `I/(hγ) − J`: one Jacobian and one LU factorisation per step, and no
/// Newton iteration. The original coefficients `αᵢⱼ`, `γᵢⱼ`, `bᵢ` are recovered as
/// `Γ = (I/γ − C)⁻¹`, `α = A Γ`, `b_orig = b Γ` (tests/timestep/integrators/implicit/rosenbrock.rs checks the order
/// conditions of Hairer–Wanner's Table IV.7.1 on them).
///
/// A tableau is a method: wrap it in [`Rosenbrock::new`]. The crate's own are
/// [`Rodas4::TABLEAU`](crate::Rodas4::TABLEAU), [`Rodas5P::TABLEAU`](crate::Rodas5P::TABLEAU)
/// and [`Ros3p::TABLEAU`](crate::Ros3p::TABLEAU).
///
/// # Example
///
/// The linearly implicit Euler method (Hairer–Wanner II, IV.7, (7.1) with one stage,
/// `γ = 1`), order 1, whose embedded "solution" is the start (so its error estimate is the
/// whole step):
///
/// ```
/// use timestep::{Integrator, Rosenbrock, RosenbrockDense, RosenbrockTableau};
///
/// static LINEARLY_IMPLICIT_EULER: RosenbrockTableau<1> = RosenbrockTableau {
///     name: "linearly-implicit-euler",
///     order: 1,
///     embedded_order: 0,
///     gamma: 1.0,
///     a: [[0.0]],
///     c: [[0.0]],
///     alpha: [0.0],
///     gamma_sums: [1.0],
///     b: [1.0],
///     b_hat: [0.0],
///     dense: RosenbrockDense::Hermite,
/// };
/// // On y' = λ y it is backward Euler: y₁ = y₀ / (1 − λ h).
/// let mut y = 1.0_f64;
/// let mut method = Rosenbrock::new(&LINEARLY_IMPLICIT_EULER);
/// method.step(&mut y, &|y: &f64, _t: f64| -1000.0 * y, 0.0, 0.1)?;
/// assert!((y - 1.0 / 101.0).abs() < 1e-15);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RosenbrockTableau<const S: usize> {
    /// The method's kebab-case name.
    pub name: &'static str,
    /// The order of the propagated solution `b`.
    pub order: u32,
    /// The order of the embedded solution `b̂`: the step size is controlled for it.
    pub embedded_order: u32,
    /// The diagonal `γ` of the method (every stage solves with `I/(hγ) − J`).
    pub gamma: f64,
    /// `aᵢⱼ`, strictly lower triangular: where stage `i` evaluates `f`.
    pub a: [[f64; S]; S],
    /// `cᵢⱼ`, strictly lower triangular: the earlier stages in stage `i`'s right-hand side.
    pub c: [[f64; S]; S],
    /// `αᵢ = Σⱼ αᵢⱼ`: stage `i` evaluates `f` at `t + αᵢ h`.
    pub alpha: [f64; S],
    /// `γᵢ = Σⱼ₍ⱼ≤ᵢ₎ γᵢⱼ`: the weight of `h ∂f/∂t` in stage `i`.
    pub gamma_sums: [f64; S],
    /// The propagated weights (Hairer's `mᵢ`).
    pub b: [f64; S],
    /// The embedded weights (Hairer's `m̂ᵢ`).
    pub b_hat: [f64; S],
    /// The continuous extension.
    pub dense: RosenbrockDense<S>,
}

/// How a Rosenbrock method gives the state inside a step (its dense output).
///
/// ```
/// use timestep::{Rodas4, RosenbrockDense};
///
/// assert!(matches!(Rodas4::TABLEAU.dense, RosenbrockDense::Stages { order: 3, .. }));
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RosenbrockDense<const S: usize> {
    /// The method's own interpolant in its stages:
    /// `y(t + θh) = y + Σᵢ wᵢ(θ) Uᵢ` with `wᵢ(θ) = Σₖ weights[i][k] θ^(k+1)` (so
    /// `wᵢ(1)` must be `bᵢ`), of order `order`: a cubic (Rodas4's, whose `θ⁴`
    /// coefficients are zero) or a quartic ([`Rodas5P`](crate::Rodas5P)'s).
    Stages {
        /// The coefficients of `θ`, `θ²`, `θ³` and `θ⁴` of each stage's weight.
        weights: [[f64; 4]; S],
        /// The interpolant's order.
        order: u32,
    },
    /// The cubic Hermite interpolant of the two ends' states and rates (third order; the
    /// rate at the end is the next step's first evaluation, so it costs nothing more).
    Hermite,
}

impl<const S: usize> RosenbrockTableau<S> {
    /// Whether stage `i` evaluates `f` where stage `i − 1` did (the same row of `a`, the
    /// same `α`), so that evaluation is reused: ROS3P's third stage.
    #[must_use]
    pub const fn reuses_rate(&self, i: usize) -> bool {
        if i < 2 || i >= S || self.alpha[i] != self.alpha[i - 1] {
            return false;
        }
        let mut j = 0;
        while j < S {
            if self.a[i][j] != self.a[i - 1][j] {
                return false;
            }
            j += 1;
        }
        true
    }

    /// Force evaluations per fixed step for the stages (the first at the start included),
    /// not counting the Jacobian (`n` with finite differences, one per diagonal of a band)
    /// nor `∂f/∂t` (two, unless the forces are declared autonomous).
    #[must_use]
    pub const fn evaluations(&self) -> u32 {
        let mut count = 0;
        let mut i = 0;
        while i < S {
            if !self.reuses_rate(i) {
                count += 1;
            }
            i += 1;
        }
        count
    }

    /// The error weights `bᵢ − b̂ᵢ`.
    #[must_use]
    pub fn error_weights(&self) -> [f64; S] {
        core::array::from_fn(|i| self.b[i] - self.b_hat[i])
    }

    /// What the tableau says of itself.
    #[must_use]
    pub const fn properties(&self) -> Properties {
        Properties::explicit(self.name, self.order, self.evaluations()).implicit()
    }
}

/// A [`RosenbrockTableau`] with its settings: which entries of the Jacobian can be non-zero,
/// and whether the forces depend on time. It steps at a fixed step ([`Scheme`], through
/// [`Integrator`](crate::Integrator)) and under error control
/// ([`Adaptive`](crate::adaptive::Adaptive)).
///
/// Each step (or attempt) of size `h` from `(t, y)`:
///
/// 1. takes the Jacobian `J = ∂f/∂y` at `(t, y)`: from the forces when they give one
///    ([`Forces::jacobian`], or [`WithJacobian`](crate::WithJacobian)), otherwise by forward
///    differences, one force evaluation per coordinate, or one per diagonal of a
///    [banded](Structure::Banded) Jacobian ([`with_structure`](Rosenbrock::with_structure)),
///    with steps `√(ε · max(10⁻⁵, |yⱼ|))` as in Hairer's codes;
/// 2. takes `∂f/∂t` by a central difference in `t` with step `ε^(1/3) · max(|t|, |h|)`
///    (accurate to about `ε^(2/3)`, so it does not cap a fourth-order method's accuracy as
///    rodas.f's forward difference does): two more force evaluations, right for any
///    forces. Forces that do not depend on time can skip them
///    ([`assume_autonomous`](Rosenbrock::assume_autonomous)); forces that do and are
///    declared autonomous lose the method's order;
/// 3. factors `I/(hγ) − J` once (LU with partial pivoting, dense or banded) and solves it
///    once per stage.
///
/// **Mass matrices.** Forces that give a constant mass matrix `M`
/// ([`Forces::mass_matrix`], or [`WithMass`](crate::WithMass)) make the system
/// `M y' = f(t, y)`: the step factors `M/(hγ) − J` and adds `M Σⱼ (cᵢⱼ/h) Uⱼ` to each
/// stage's right-hand side (rodas.f with `IMAS = 1`; Hairer–Wanner II, VI.4). A singular
/// `M` is an index-1 differential-algebraic system; a run's start must satisfy its
/// algebraic equations, within the tolerance under error control (within `√ε` at a fixed
/// step), or the first step returns [`StepError::InconsistentStart`]
/// ([`Radau5::consistent_start`](crate::Radau5::consistent_start) completes one), and
/// algebraic equations that do not determine their unknowns (index 2 or more) return
/// [`StepError::IndexAboveOne`]. That refusal is the method's, not a missing option: a
/// Rosenbrock method is built for index 1 (rodas.f's documentation says so), and at index
/// 2 its order drops unless its tableau meets further order conditions (Hairer–Wanner
/// II, VI.4), which Rodas4's and Ros3p's are not built to meet, and there is no Newton
/// iteration whose tolerance could be scaled as radau5.f scales Radau5's. Solve index 2
/// and 3 with [`Radau5::with_higher_index`](crate::Radau5::with_higher_index),
/// [`Bdf::with_index_two`](crate::Bdf::with_index_two) (index 2) or, at fixed steps,
/// [`BackwardEuler::with_higher_index`](crate::BackwardEuler::with_higher_index).
/// [`Rodas4`](crate::Rodas4) is stiffly accurate, so its steps end on the algebraic
/// equations to rounding.
///
/// So a step costs one Jacobian and one factorisation ([`Statistics`]'
/// `jacobians` and `decompositions` count them), however stiff the forces: there is no
/// Newton iteration to fail. Under error control a rejected step is retried from the same
/// Jacobian and `∂f/∂t` (a new factorisation only), as rodas.f does, and the step sizes
/// are rodas.f's ([`Controller::RODAS`]). Up to 16 unknowns the matrix lives in the workspace inline (on
/// the stack for a step without a [`Stepper`](crate::Stepper)); beyond, on the heap, made
/// once per workspace.
///
/// What a step does with unusual input, beyond the [`Integrator`](crate::Integrator) rules
/// (`dt = 0` does nothing, negative `dt` runs backwards, non-finite `t` or `dt` is
/// refused): a singular `I/(hγ) − J` returns [`StepError::SingularJacobian`], a non-finite
/// Jacobian [`StepError::NonFiniteJacobian`], forces that return infinity or `NaN`
/// [`StepError::NonFiniteResidual`], and the state is left unchanged; under error control
/// the first two make the attempt report `f64::MAX` (the driver retries shorter: as
/// `h → 0` the matrix tends to `I/(hγ)`, which is regular), the third a non-finite error.
/// Huge steps are stable (Rodas4 and Rodas5P are L-stable, Ros3p A-stable) but no more accurate than the
/// method's order allows; tiny steps are limited by the rounding of `I/(hγ) − J`, where
/// `1/(hγ)` swamps `J` below about `ε · |J|` relative steps.
///
/// # Example
///
/// A heat equation on 1000 points (tridiagonal Jacobian, three force evaluations per
/// Jacobian), stepped by Rodas4 at `dt/dx² ≈ 10⁴`:
///
/// ```
/// use timestep::{InPlace, Integrator, Rodas4, Stepper, Structure};
///
/// let n = 1000;
/// let dx = 1.0 / (n + 1) as f64;
/// let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
///     for i in 0..n {
///         let left = if i > 0 { u[i - 1] } else { 0.0 };
///         let right = if i + 1 < n { u[i + 1] } else { 0.0 };
///         du[i] = (left - 2.0 * u[i] + right) / (dx * dx);
///     }
/// });
/// let pi = std::f64::consts::PI;
/// let mut u: Vec<f64> = (1..=n).map(|i| (pi * i as f64 * dx).sin()).collect();
/// let method = Rodas4
///     .with_structure(Structure::Banded { lower: 1, upper: 1 })
///     .assume_autonomous();
/// let mut solver = Stepper::new(method);
/// for i in 0..10 {
///     solver.step(&mut u, &heat, i as f64 * 0.01, 0.01)?;
/// }
/// // The slowest mode decays like e^(−π² t) (up to the grid's O(dx²)).
/// let middle = u[n / 2] / (pi * (n / 2 + 1) as f64 * dx).sin();
/// assert!((middle - (-pi * pi * 0.1_f64).exp()).abs() < 1e-5);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Rosenbrock<const S: usize> {
    tableau: &'static RosenbrockTableau<S>,
    structure: Structure,
    autonomous: bool,
}

impl<const S: usize> Rosenbrock<S> {
    /// The method of `tableau`, with a dense Jacobian and `∂f/∂t` by finite differences.
    #[must_use]
    pub const fn new(tableau: &'static RosenbrockTableau<S>) -> Self {
        Rosenbrock {
            tableau,
            structure: Structure::Dense,
            autonomous: false,
        }
    }

    /// The same method, told which entries of the Jacobian can be non-zero: a
    /// [banded](Structure::Banded) Jacobian costs one force evaluation per diagonal with
    /// finite differences, and its factorisation works inside the band (`O(n)` per step for
    /// a chain or a 1-D grid: [`Structure::chain`]). A band that covers the whole matrix is
    /// solved densely. An analytic Jacobian ([`Forces::jacobian`]) may only write the
    /// band's entries. A band that misses some of the forces' dependences is refused by
    /// the first step ([`StepError::BandTooNarrow`](crate::StepError::BandTooNarrow)),
    /// which it would otherwise turn into garbage.
    ///
    /// ```
    /// use timestep::{Rodas4, Structure};
    ///
    /// let banded = Rodas4.with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// assert_eq!(banded.structure().bandwidth(), 3);
    /// ```
    #[must_use]
    pub const fn with_structure(self, structure: Structure) -> Self {
        Rosenbrock { structure, ..self }
    }

    /// The same method, told that the forces do not depend on time, so that `∂f/∂t` is
    /// taken as zero and its force evaluation saved. Forces that do depend on time are then
    /// integrated at a lower order (the `γᵢ h ∂f/∂t` terms are what keep it).
    ///
    /// ```
    /// use timestep::Rodas4;
    ///
    /// assert!(Rodas4.assume_autonomous().is_autonomous());
    /// assert!(!timestep::Rosenbrock::new(&Rodas4::TABLEAU).is_autonomous());
    /// ```
    #[must_use]
    pub const fn assume_autonomous(self) -> Self {
        Rosenbrock {
            autonomous: true,
            ..self
        }
    }

    /// The coefficients.
    #[must_use]
    pub const fn tableau(&self) -> &'static RosenbrockTableau<S> {
        self.tableau
    }

    /// Which entries of the Jacobian can be non-zero.
    #[must_use]
    pub const fn structure(&self) -> Structure {
        self.structure
    }

    /// Whether `∂f/∂t` is taken as zero.
    #[must_use]
    pub const fn is_autonomous(&self) -> bool {
        self.autonomous
    }
}

super::settings::structure_settings!(
    [const S: usize] Rosenbrock<S>,
    "Rodas4",
    "Rodas4.rosenbrock()",
    "A Rosenbrock method solves one linear system per stage and has no Newton iteration \
     to stop or to cut short."
);

/// Saved as the name of its tableau with its settings,
/// `{"method": "rodas4", "structure": {"banded": {"lower": 1, "upper": 1}}, "autonomous": false}`,
/// so that a round trip keeps the band and the autonomy. Only the crate's own tableaus
/// ([`Rodas4`](crate::Rodas4), [`Rodas5P`](crate::Rodas5P) and [`Ros3p`](crate::Ros3p)) can be saved: another tableau
/// is refused when saving, not lost on loading. Unknown fields, and a method whose number
/// of stages is not the type's, are refused on loading.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::Rosenbrock;
    use crate::{Rodas4, Rodas5P, Ros3p, Structure};
    use serde::de::Error as _;
    use serde::ser::Error as _;

    #[derive(Clone, Copy, serde::Serialize, serde::Deserialize)]
    #[serde(rename_all = "kebab-case")]
    enum Name {
        Rodas4,
        Rodas5p,
        Ros3p,
    }

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "Rosenbrock", deny_unknown_fields)]
    struct Saved {
        method: Name,
        structure: Structure,
        autonomous: bool,
    }

    macro_rules! saved_as {
        ($stages:literal: $($name:ident => $tableau:expr),*) => {
            impl serde::Serialize for Rosenbrock<$stages> {
                fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                    let method = $(if *self.tableau == $tableau { Name::$name } else)* {
                        return Err(S::Error::custom(
                            "only the crate's own Rosenbrock tableaus (rodas4, rodas5p, ros3p) can be saved",
                        ));
                    };
                    Saved { method, structure: self.structure, autonomous: self.autonomous }
                        .serialize(serializer)
                }
            }

            impl<'de> serde::Deserialize<'de> for Rosenbrock<$stages> {
                fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                    let saved = Saved::deserialize(deserializer)?;
                    #[allow(unreachable_patterns)]
                    let tableau = match saved.method {
                        $(Name::$name => &$tableau,)*
                        _ => return Err(D::Error::custom(concat!(
                            "that Rosenbrock method does not have ", $stages, " stages"
                        ))),
                    };
                    Ok(Rosenbrock { tableau, structure: saved.structure, autonomous: saved.autonomous })
                }
            }
        };
    }

    saved_as!(6: Rodas4 => Rodas4::TABLEAU);
    saved_as!(8: Rodas5p => Rodas5P::TABLEAU);
    saved_as!(3: Ros3p => Ros3p::TABLEAU);
}

/// The buffers of a Rosenbrock step: one increment `Uᵢ` per stage, the rates at the start
/// and end of the step, a stage rate, a sum, `∂f/∂t`, the state's coordinates, a probe
/// state, the Jacobian `J` (kept for the retries of a rejected step, as rodas.f keeps it),
/// the matrix `I − hγJ` and its LU factors, and two numbers per unknown.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct RosenbrockWorkspace<S: State, const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::array"))]
    stages: [DerivativeOf<S>; N],
    start_rate: DerivativeOf<S>,
    end_rate: DerivativeOf<S>,
    rate: DerivativeOf<S>,
    sum: DerivativeOf<S>,
    time_rate: DerivativeOf<S>,
    coordinates: DerivativeOf<S>,
    probe: S,
    jacobian: Result<Matrix<S::Scalar>, StepError>,
    matrix: Result<Matrix<S::Scalar>, StepError>,
    solution: Result<Buffer<S::Scalar>, StepError>,
    steps: Result<Buffer<S::Scalar>, StepError>,
    band_checked: bool,
    /// The forces' mass matrix `M` and whether the run's start has been checked against
    /// its algebraic equations (not saved: read again after loading), and `M` times a
    /// combination of stages (empty without `M`).
    #[cfg_attr(feature = "serde", serde(skip))]
    mass: Mass<S::Scalar>,
    mass_product: Result<Buffer<S::Scalar>, StepError>,
    /// The next run starts at an event cut of this one ([`AdaptiveMethod::settle`]): from
    /// the method's own dense output, not checked again.
    #[cfg_attr(feature = "serde", serde(skip))]
    settled: bool,
    /// `jacobian` and `time_rate` are those at the start of the next attempt: it retries
    /// a rejected step from the same state.
    jacobian_current: bool,
    /// `start_rate` is yet to be evaluated, by the next attempt: a method whose dense
    /// output does not read the rate at a step's end leaves it to the step after, as
    /// rodas.f does, and a run's last step costs no evaluation past its end.
    start_pending: bool,
}

impl<S: State, const N: usize> RosenbrockWorkspace<S, N> {
    fn new(state: &S, structure: Structure) -> Self {
        let zero = state.zero_rate();
        let (n, order) = (zero.dim(), Order::of(&zero));
        RosenbrockWorkspace {
            stages: core::array::from_fn(|_| zero.clone()),
            start_rate: zero.clone(),
            end_rate: zero.clone(),
            rate: zero.clone(),
            sum: zero.clone(),
            time_rate: zero.clone(),
            coordinates: zero,
            probe: state.clone(),
            jacobian: Matrix::new(structure, order, n),
            matrix: Matrix::new(structure, order, n),
            solution: Buffer::zeroed(n),
            steps: Buffer::zeroed(n),
            band_checked: false,
            mass: Mass::default(),
            // Sized when forces give a mass matrix.
            mass_product: Buffer::zeroed(0),
            settled: false,
            jacobian_current: false,
            start_pending: false,
        }
    }
}

impl<const N: usize> Rosenbrock<N> {
    /// The stage increments `Uᵢ` of a step of `h` from `state` at `t`, whose rate is in the
    /// workspace's `start_rate`, counting what it costs in `statistics`. `floor(j)` is the
    /// size below which coordinate `j` does not matter (the absolute tolerance), for the
    /// finite differences' steps. The Jacobian and `∂f/∂t` are taken anew unless the
    /// workspace says they are those of `state` (a retry after a rejected attempt).
    #[allow(clippy::too_many_arguments)]
    fn stages<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        floor: impl Fn(usize) -> S::Scalar,
        statistics: &mut Statistics,
    ) -> Result<(), StepError> {
        let RosenbrockWorkspace {
            stages,
            start_rate,
            rate,
            sum,
            time_rate,
            coordinates,
            probe,
            jacobian,
            matrix,
            solution,
            steps,
            band_checked,
            mass,
            mass_product,
            jacobian_current,
            ..
        } = workspace;
        let jacobian = jacobian.as_mut().map_err(|e| *e)?;
        let matrix = matrix.as_mut().map_err(|e| *e)?;
        let solution = solution.as_mut().map_err(|e| *e)?;
        let steps = steps.as_mut().map_err(|e| *e)?;
        let tableau = self.tableau;

        if !mass.is_read() {
            jacobian.prepare(forces, state)?;
            mass.read(forces, jacobian)?;
            if mass.matrix().is_some() {
                *mass_product = Buffer::zeroed(jacobian.dim());
            }
        }
        if !*jacobian_current {
            statistics.jacobians += 1;
            statistics.evaluations += jacobian::jacobian(
                Point {
                    state,
                    t,
                    rate: start_rate,
                    offset: None,
                },
                forces,
                DifferenceStep::Scaled {
                    h,
                    floor: &floor,
                    algebraic: mass.algebraic(),
                },
                jacobian,
                Differences {
                    coordinates,
                    nudge: sum,
                    nudged_rate: rate,
                    probe,
                    steps,
                    band_checked,
                },
            )?;
            if !self.autonomous {
                jacobian::time_derivative(state, forces, t, h, time_rate, rate);
                statistics.evaluations += 2;
            }
            *jacobian_current = true;
        }
        if !mass.checked {
            if mass.is_singular() {
                // An index-1 start: one Newton step on the algebraic equations may move
                // no algebraic unknown by more than its tolerance (as Radau5 and the BDF).
                let correction = &mut solution[..];
                let rate = |i| start_rate.component(i);
                match mass::algebraic_correction(mass, jacobian, matrix, rate, correction) {
                    Err(StepError::SingularJacobian) => return Err(StepError::IndexAboveOne),
                    result => result?,
                };
                // At a fixed step there is no tolerance: √ε (10⁻⁸ in f64), absolute.
                let scale = |i: usize| match floor(i).to_f64() {
                    scale if scale > 0.0 => scale,
                    _ => ROOT_EPSILON,
                };
                let relative = |i: usize| correction[i].to_f64().abs() / scale(i);
                if let Some(error) = mass::inconsistency(correction.len(), relative) {
                    return Err(error);
                }
            }
            mass.checked = true;
        }
        let mass_product = mass_product.as_mut().map_err(|e| *e)?;

        // M − hγJ = hγ (M/(hγ) − J): the stages solve it with right-hand sides scaled by hγ.
        let h_gamma = h * S::Scalar::from_f64(tableau.gamma);
        statistics.decompositions += 1;
        let mass_matrix = mass.matrix();
        match mass_matrix {
            Some(mass_matrix) => {
                matrix.factor_shifted_mass(jacobian, mass_matrix, h_gamma, S::Scalar::one())?;
            }
            None => matrix.factor_shifted(jacobian, h_gamma, S::Scalar::one())?,
        }
        let mut matrix = matrix.solver();

        for i in 0..N {
            if i > 0 && !tableau.reuses_rate(i) {
                let (done, _) = stages.split_at(i);
                let (direction, factor) = weighted(&tableau.a[i][..i], done, sum);
                state.probe_into(direction, S::Scalar::from_f64(factor), probe);
                let stage_time = t + h * S::Scalar::from_f64(tableau.alpha[i]);
                probe.derivative_into(forces, stage_time, rate);
                statistics.evaluations += 1;
            }
            // The right-hand side f + M Σ (cᵢⱼ/h) Uⱼ + γᵢ h ∂f/∂t (rodas.f's, M = I without
            // a mass matrix), times hγ, straight into `solution` in one pass when it can.
            let base = if i == 0 { &*start_rate } else { &*rate };
            let time_weight = (!self.autonomous && tableau.gamma_sums[i] != 0.0)
                .then(|| h * S::Scalar::from_f64(tableau.gamma_sums[i]));
            if mass_matrix.is_none()
                && right_side_in_one_pass::<N, _>(
                    base,
                    &stages[..i],
                    &tableau.c[i][..i],
                    h,
                    time_weight.map(|w| (w, &*time_rate)),
                    h_gamma,
                    solution,
                )
            {
                matrix.solve(solution);
                let stage = &mut stages[i];
                for (k, x) in solution.iter().enumerate() {
                    stage.set_component(k, *x);
                }
                continue;
            }
            // Otherwise pass by pass, in `sum`, or `M Σ` in `mass_product`.
            let coupled = stages
                .iter()
                .zip(&tableau.c[i])
                .take(i)
                .filter(|(_, c)| **c != 0.0);
            match mass_matrix {
                None => {
                    sum.assign(if i == 0 { &*start_rate } else { &*rate });
                    for (stage, &c) in coupled {
                        sum.add_scaled_assign(stage, S::Scalar::from_f64(c) / h);
                    }
                }
                Some(mass_matrix) => {
                    sum.set_zero();
                    for (stage, &c) in coupled {
                        sum.add_scaled_assign(stage, S::Scalar::from_f64(c) / h);
                    }
                    mass_matrix.multiply(|j| sum.component(j), mass_product);
                    sum.assign(if i == 0 { &*start_rate } else { &*rate });
                    for (k, x) in mass_product.iter().enumerate() {
                        sum.set_component(k, sum.component(k) + *x);
                    }
                }
            }
            if !self.autonomous && tableau.gamma_sums[i] != 0.0 {
                sum.add_scaled_assign(time_rate, h * S::Scalar::from_f64(tableau.gamma_sums[i]));
            }
            for (k, x) in solution.iter_mut().enumerate() {
                *x = sum.component(k) * h_gamma;
            }
            matrix.solve(solution);
            let stage = &mut stages[i];
            for (k, x) in solution.iter().enumerate() {
                stage.set_component(k, *x);
            }
        }
        Ok(())
    }
}

/// The fewest unknowns whose stage sums go term by term, one pass over memory per term (as
/// before the one-pass forms below): measured on a quiet machine against rodas.f, the one
/// pass made Rodas4 1.31–1.34 times as fast on Van der Pol (2 unknowns) and 1.07–1.09 on
/// Robertson (3), and 2–3 % slower on the Brusselator of 80 unknowns, whose passes the
/// compiler vectorises (BENCHMARKS.md, "Stiff solvers against the reference codes").
const ONE_PASS_BELOW: usize = 8;

/// `Σⱼ wⱼ Uⱼ` as a direction and a factor, as [`combination`] gives it, but in one pass over
/// the coordinates when the vectors are slices of fewer than [`ONE_PASS_BELOW`] numbers: a
/// Rosenbrock tableau's weights are read at run time, where [`combination`]'s unrolled
/// tests (made for explicit tableaus, whose constant weights fold away) run in full. Each
/// term is added as [`Vector::add_scaled_assign`] adds it, in the same order, so the sum
/// has the same bits.
fn weighted<'a, D: Vector>(weights: &[f64], stages: &'a [D], sum: &'a mut D) -> (&'a D, f64) {
    if let Some(out) = sum
        .as_scalars_mut()
        .filter(|out| out.len() < ONE_PASS_BELOW)
    {
        let mut first = true;
        let mut all = true;
        for (stage, &w) in stages.iter().zip(weights).filter(|(_, w)| **w != 0.0) {
            let Some(u) = stage.as_scalars().filter(|u| u.len() == out.len()) else {
                all = false;
                break;
            };
            let w = D::Scalar::from_f64(w);
            if first {
                for (o, &u) in out.iter_mut().zip(u) {
                    *o = u * w;
                }
                first = false;
            } else {
                for (o, &u) in out.iter_mut().zip(u) {
                    *o = *o + u * w;
                }
            }
        }
        if all {
            if first {
                out.fill(D::Scalar::zero());
                return (sum, 0.0);
            }
            return (sum, 1.0);
        }
    }
    combination(weights, stages, sum)
}

/// A stage's right-hand side times `hγ`, `(f + Σⱼ (cⱼ/h) Uⱼ + γᵢ h ∂f/∂t) hγ`, written into
/// `out` coordinate by coordinate when every vector is a slice of `out`'s length, below
/// [`ONE_PASS_BELOW`] (the terms in the order, and with the arithmetic, of the pass-by-pass
/// form); `false`, with `out` untouched, otherwise. A copy per method (`STAGES`): shared by
/// Rodas4 and Rodas5P, one copy stayed out of line, and Rodas4 took 6 % more instructions
/// in a program that also runs Rodas5P.
fn right_side_in_one_pass<const STAGES: usize, D: Vector>(
    rate: &D,
    stages: &[D],
    c: &[f64],
    h: D::Scalar,
    time: Option<(D::Scalar, &D)>,
    h_gamma: D::Scalar,
    out: &mut [D::Scalar],
) -> bool {
    let n = out.len();
    if n >= ONE_PASS_BELOW {
        return false;
    }
    fn slice<D: Vector>(v: &D, n: usize) -> Option<&[D::Scalar]> {
        v.as_scalars().filter(|v| v.len() == n)
    }
    let Some(rate) = slice(rate, n) else {
        return false;
    };
    let time = match time {
        Some((w, v)) => match slice(v, n) {
            Some(v) => Some((w, v)),
            None => return false,
        },
        None => None,
    };
    // At most as many terms as stages: a fixed-size list on the stack.
    let mut terms: [(D::Scalar, &[D::Scalar]); 8] = [(D::Scalar::zero(), &[]); 8];
    let mut count = 0;
    for (stage, &c) in stages.iter().zip(c).filter(|(_, c)| **c != 0.0) {
        let (Some(u), Some(term)) = (slice(stage, n), terms.get_mut(count)) else {
            return false;
        };
        *term = (D::Scalar::from_f64(c) / h, u);
        count += 1;
    }
    let terms = &terms[..count];
    for (k, o) in out.iter_mut().enumerate() {
        let mut acc = rate[k];
        for &(w, u) in terms {
            acc = acc + u[k] * w;
        }
        if let Some((w, v)) = time {
            acc = acc + v[k] * w;
        }
        *o = acc * h_gamma;
    }
    true
}

impl<const N: usize> Scheme for Rosenbrock<N> {
    type Workspace<S: State> = RosenbrockWorkspace<S, N>;

    fn workspace<S: State>(&self, state: &S) -> RosenbrockWorkspace<S, N> {
        RosenbrockWorkspace::new(state, self.structure)
    }

    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        state.derivative_into(forces, t, &mut workspace.start_rate);
        if !workspace.start_rate.is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        let no_floor = |_| S::Scalar::from_f64(0.0);
        let mut statistics = Statistics::default();
        workspace.jacobian_current = false;
        self.stages(workspace, state, forces, t, dt, no_floor, &mut statistics)?;
        let RosenbrockWorkspace { stages, sum, .. } = workspace;
        let (direction, factor) = weighted(&self.tableau.b, stages, sum);
        if !direction.is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        state.advance(direction, S::Scalar::from_f64(factor));
        Ok(())
    }

    fn properties(&self) -> Properties {
        self.tableau.properties()
    }
}

impl<const N: usize> Memoryless for Rosenbrock<N> {}

impl<const N: usize> Rosenbrock<N> {
    /// The dense output at `θ` from the step's stage increments and end rates.
    #[allow(clippy::too_many_arguments)]
    fn dense_from<S: State>(
        &self,
        stages: &[DerivativeOf<S>; N],
        start_rate: &DerivativeOf<S>,
        end_rate: &DerivativeOf<S>,
        sum: &mut DerivativeOf<S>,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        match self.tableau.dense {
            RosenbrockDense::Stages { weights, .. } => {
                // A cubic's zero θ⁴ term adds an exact zero: a cubic keeps its bits.
                let weights: [f64; N] = core::array::from_fn(|i| {
                    let [w1, w2, w3, w4] = weights[i];
                    theta * (w1 + theta * (w2 + theta * (w3 + theta * w4)))
                });
                let (direction, factor) = combination(&weights, stages, sum);
                out.clone_from(start);
                out.advance(direction, S::Scalar::from_f64(factor));
            }
            RosenbrockDense::Hermite => {
                // y₀ + (3θ² − 2θ³)(y₁ − y₀) + h (θ − 2θ² + θ³) f₀ + h (θ³ − θ²) f₁.
                let step = theta * theta * (3.0 - 2.0 * theta);
                let weights: [f64; N] = core::array::from_fn(|i| step * self.tableau.b[i]);
                sum.set_zero();
                for (stage, weight) in stages.iter().zip(weights) {
                    if weight != 0.0 {
                        sum.add_scaled_assign(stage, S::Scalar::from_f64(weight));
                    }
                }
                let first = theta * (1.0 - theta) * (1.0 - theta);
                let last = theta * theta * (theta - 1.0);
                sum.add_scaled_assign(start_rate, h * S::Scalar::from_f64(first));
                sum.add_scaled_assign(end_rate, h * S::Scalar::from_f64(last));
                out.clone_from(start);
                out.advance(sum, S::Scalar::one());
            }
        }
    }
}

impl<S: State, const N: usize> AdaptiveMethod<S> for Rosenbrock<N> {
    type Workspace = RosenbrockWorkspace<S, N>;

    fn workspace(&self, state: &S) -> RosenbrockWorkspace<S, N> {
        RosenbrockWorkspace::new(state, self.structure)
    }

    fn error_order(&self) -> u32 {
        self.tableau.embedded_order.min(self.tableau.order)
    }

    fn controller(&self) -> Controller {
        Controller::RODAS
    }

    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.start_rate);
        statistics.evaluations += 1;
        workspace.jacobian_current = false;
        workspace.start_pending = false;
        workspace.mass.checked = core::mem::take(&mut workspace.settled);
    }

    fn start_rate<'w>(&self, workspace: &'w RosenbrockWorkspace<S, N>) -> &'w DerivativeOf<S> {
        &workspace.start_rate
    }

    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        if workspace.start_pending {
            state.derivative_into(forces, t, &mut workspace.start_rate);
            statistics.evaluations += 1;
            workspace.start_pending = false;
        }
        if !(h.to_f64().is_finite() && workspace.start_rate.is_finite()) {
            // The forces are not finite at the start: no step can help.
            return Ok(f64::NAN);
        }
        // The differences' steps are sized by the absolute tolerance too.
        let at_start = ErrorNorm::new(tolerances, state, state);
        let floor = |j| S::Scalar::from_f64(at_start.scale(j));
        // A singular or non-finite matrix: the driver retries shorter.
        self.stages(workspace, state, forces, t, h, floor, statistics)?;
        let RosenbrockWorkspace { stages, sum, .. } = workspace;
        let (direction, factor) = weighted(&self.tableau.b, stages, sum);
        end.clone_from(state);
        end.advance(direction, S::Scalar::from_f64(factor));
        let (error, factor) = weighted(&self.tableau.error_weights(), stages, sum);
        Ok(ErrorNorm::new(tolerances, state, end).norm(error, factor))
    }

    fn accept<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        _start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        _dense: bool,
        statistics: &mut Statistics,
    ) {
        match self.tableau.dense {
            // The Hermite interpolant's end slope, and the next step's first stage.
            RosenbrockDense::Hermite => {
                end.derivative_into(forces, t + h, &mut workspace.end_rate);
                statistics.evaluations += 1;
            }
            // The next step's first stage, taken by its first attempt.
            RosenbrockDense::Stages { .. } => workspace.start_pending = true,
        }
    }

    fn dense(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let RosenbrockWorkspace {
            stages,
            start_rate,
            end_rate,
            sum,
            ..
        } = workspace;
        self.dense_from(stages, start_rate, end_rate, sum, start, h, theta, out);
    }

    /// The stage increments and the rates at both ends.
    type Interpolant = ([DerivativeOf<S>; N], DerivativeOf<S>, DerivativeOf<S>);

    fn interpolant(&self, workspace: &RosenbrockWorkspace<S, N>) -> Self::Interpolant {
        (
            workspace.stages.clone(),
            workspace.start_rate.clone(),
            workspace.end_rate.clone(),
        )
    }

    fn interpolate(
        &self,
        (stages, start_rate, end_rate): &Self::Interpolant,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let mut sum = start_rate.zero_like();
        self.dense_from(stages, start_rate, end_rate, &mut sum, start, h, theta, out);
    }

    /// A run cut at an event goes on from the dense output, whose algebraic unknowns are
    /// off their equations by the interpolant's error: no second start check (a stiffly
    /// accurate step ends on them again).
    fn settle<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut RosenbrockWorkspace<S, N>,
        _state: &mut S,
        _forces: &F,
        _t: S::Scalar,
        _statistics: &mut Statistics,
    ) {
        workspace.settled = true;
    }

    fn step_on(&self, workspace: &mut RosenbrockWorkspace<S, N>) {
        core::mem::swap(&mut workspace.start_rate, &mut workspace.end_rate);
        workspace.jacobian_current = false;
    }
}

/// Makes a unit struct whose `TABLEAU` is a Rosenbrock method the same method as
/// [`Rosenbrock::new(&TABLEAU)`](Rosenbrock::new) with its default settings: a [`Scheme`]
/// (so an [`Integrator`](crate::Integrator)) and an [`AdaptiveMethod`], with
/// `with_structure` and `assume_autonomous` giving the [`Rosenbrock`] with those settings.
macro_rules! rosenbrock_method {
    ($method:ident, $stages:literal) => {
        impl $method {
            /// The method with its default settings (a dense Jacobian, `∂f/∂t` by finite
            /// differences).
            #[must_use]
            pub const fn rosenbrock(self) -> $crate::Rosenbrock<$stages> {
                $crate::Rosenbrock::new(&Self::TABLEAU)
            }

            /// The method told which entries of the Jacobian can be non-zero: see
            /// [`Rosenbrock::with_structure`]($crate::Rosenbrock::with_structure).
            ///
            /// ```
            #[doc = concat!("use timestep::{", stringify!($method), ", Structure};")]
            ///
            #[doc = concat!("let banded = ", stringify!($method), ".with_structure(Structure::Banded { lower: 2, upper: 0 });")]
            /// assert_eq!(banded.structure(), Structure::Banded { lower: 2, upper: 0 });
            /// ```
            #[must_use]
            pub const fn with_structure(
                self,
                structure: $crate::Structure,
            ) -> $crate::Rosenbrock<$stages> {
                self.rosenbrock().with_structure(structure)
            }

            /// The method with `settings` (its structure alone): see
            /// [`Rosenbrock::with_settings`]($crate::Rosenbrock::with_settings).
            #[must_use]
            pub const fn with_settings(
                self,
                settings: $crate::ImplicitSettings,
            ) -> $crate::Rosenbrock<$stages> {
                self.rosenbrock().with_settings(settings)
            }

            /// The method told that the forces do not depend on time: see
            /// [`Rosenbrock::assume_autonomous`]($crate::Rosenbrock::assume_autonomous).
            ///
            /// ```
            #[doc = concat!("use timestep::", stringify!($method), ";")]
            ///
            #[doc = concat!("assert!(", stringify!($method), ".assume_autonomous().is_autonomous());")]
            /// ```
            #[must_use]
            pub const fn assume_autonomous(self) -> $crate::Rosenbrock<$stages> {
                self.rosenbrock().assume_autonomous()
            }
        }

        impl $crate::integrators::Scheme for $method {
            type Workspace<S: $crate::State> =
                <$crate::Rosenbrock<$stages> as $crate::integrators::Scheme>::Workspace<S>;

            fn workspace<S: $crate::State>(&self, state: &S) -> Self::Workspace<S> {
                $crate::integrators::Scheme::workspace(&self.rosenbrock(), state)
            }

            fn advance<S: $crate::State, F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace<S>,
                state: &mut S,
                forces: &F,
                t: S::Scalar,
                dt: S::Scalar,
            ) -> Result<(), $crate::StepError> {
                $crate::integrators::Scheme::advance(
                    &self.rosenbrock(),
                    workspace,
                    state,
                    forces,
                    t,
                    dt,
                )
            }

            fn properties(&self) -> $crate::integrators::Properties {
                Self::TABLEAU.properties()
            }
        }

        impl $crate::integrators::Memoryless for $method {}

        impl $crate::control::IntoAdaptive for $method {
            type Method = $crate::Rosenbrock<$stages>;

            fn into_adaptive(self) -> Self::Method {
                self.rosenbrock()
            }
        }
    };
}
pub(crate) use rosenbrock_method;

impl<const N: usize> IntoAdaptive for Rosenbrock<N> {
    type Method = Self;

    fn into_adaptive(self) -> Self {
        self
    }
}
