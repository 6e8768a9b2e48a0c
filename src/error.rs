//! Errors: what a step or a constructor refuses, and why.

use core::fmt;

/// The most steps a [`Trajectory`](crate::Trajectory) makes: 2⁵³ (9.0·10¹⁵), the largest count up to which
/// every step number `i` is an exact `f64`, so that every sample time `t0 + i·dt` is
/// computed from the exact `i` (on targets whose `usize` is narrower, `usize::MAX`).
pub(crate) const MAX_STEPS: u64 = if (usize::MAX as u64) < (1 << 53) {
    usize::MAX as u64
} else {
    1 << 53
};

/// Why a step (or a run of steps) was refused or failed.
///
/// A step that returns an error leaves the state exactly as it was.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Rk4, StepError};
///
/// let mut y = 1.0_f64;
/// let decay = |y: &f64, _t: f64| -y;
/// let error = Rk4.step(&mut y, &decay, 0.0, f64::NAN).unwrap_err();
/// assert!(matches!(error, StepError::NonFiniteTime { .. }));
/// assert_eq!(y, 1.0);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
#[non_exhaustive]
pub enum StepError {
    /// `t` or `dt` is infinite or `NaN`.
    NonFiniteTime {
        /// The time given.
        t: f64,
        /// The time step given.
        dt: f64,
    },
    /// `t` and `dt` are finite, but the step's end `t + dt` overflows the state's
    /// precision: the forces would be evaluated at `t = ∞`.
    EndTimeOverflow {
        /// The time given.
        t: f64,
        /// The time step given.
        dt: f64,
    },
    /// A run from `t0` to `t1` was asked for with `dt = 0`, or with `dt` pointing away from
    /// `t1`.
    TimeStepDirection {
        /// The span `t1 − t0`.
        span: f64,
        /// The time step given.
        dt: f64,
    },
    /// A run from `t0` to `t1` in steps of `dt` would take more steps than a
    /// [`Trajectory`](crate::Trajectory) can count exactly
    /// ([`Trajectory::MAX_STEPS`](crate::Trajectory::MAX_STEPS)): `dt` is far too small
    /// for the span (or the span overflows).
    TooManySteps {
        /// The span `t1 − t0`.
        span: f64,
        /// The time step given.
        dt: f64,
    },
    /// A step from a finite state made a quantity the state promises to keep finite
    /// infinite or `NaN` (a rigid body's orientation, when `|ω| dt` or `ω` itself
    /// overflows); the state is left as it was.
    Overflow {
        /// What overflowed, e.g. `"orientation"`.
        // `core::primitive::str`, not `str`: serde would borrow a `&str` field from the
        // input, which a `'static` one cannot; it is one of a known few instead.
        #[cfg_attr(feature = "serde", serde(deserialize_with = "overflowing_quantity"))]
        quantity: &'static core::primitive::str,
        /// The value that overflowed (for an orientation: the largest coordinate of
        /// `ω · dt`, in radians).
        value: f64,
    },
    /// An implicit method's Newton iteration did not reach its tolerance in the iterations
    /// allowed, or was predicted not to from its contraction rate (it converges, too
    /// slowly); one that diverges is [`StepError::Diverged`].
    NotConverged {
        /// Iterations made.
        iterations: usize,
        /// Size (∞-norm) of the last Newton correction, relative to `1 + |derivative|`.
        correction: f64,
    },
    /// An implicit method's Newton iteration diverges, so more iterations would not help,
    /// however many are allowed: the contraction rate `θ` of a simplified iteration
    /// reached 0.99 (Radau5 and the one-stage methods, as in radau5.f), four iterations in
    /// a row brought no correction smaller than the smallest so far (the one-stage
    /// methods, full Newton among them), or `θ` reached 1 with the last Jacobian it may
    /// take (Radau5 at a fixed step).
    Diverged {
        /// Iterations made.
        iterations: usize,
        /// The contraction rate estimate `θ` that gave up; when four iterations made no
        /// progress, the last correction over the smallest (in the iteration's scaled
        /// norm).
        contraction: f64,
    },
    /// An implicit method's Newton iteration met a singular Jacobian (a zero pivot); for
    /// [`Rattle`](crate::Rattle), a singular `G M⁻¹ Gᵀ` (redundant constraints).
    SingularJacobian,
    /// An implicit method's Jacobian (given by the forces or estimated) has an infinite or
    /// `NaN` entry.
    NonFiniteJacobian,
    /// An implicit method's Newton iteration met an infinite or `NaN` residual.
    NonFiniteResidual,
    /// An implicit step so long that rounding of the end-of-step state decides the answer:
    /// what rounding alone could change exceeds the size of the whole state.
    StepTooLong {
        /// The step.
        dt: f64,
        /// How much rounding could move the solution, in the state's units.
        uncertainty: f64,
        /// The largest coordinate of the state (or of its change over the step).
        extent: f64,
    },
    /// A method that measures its iteration against the step's start
    /// ([`Radau5`](crate::Radau5), [`Seulex`](crate::Seulex)) met a coordinate whose error scale is zero there: the
    /// coordinate is zero and its absolute tolerance is zero. Give it an absolute tolerance.
    ZeroScale {
        /// The coordinate.
        coordinate: usize,
    },
    /// An implicit method was given a [dense](crate::Structure::Dense) Jacobian of more
    /// than [`Structure::DENSE_LIMIT`](crate::Structure::DENSE_LIMIT) unknowns, whose
    /// storage (`8n²` bytes) and factorisation (`⅔ n³` operations per Jacobian) would
    /// exhaust memory or time. Declare its [band](crate::Structure::Banded).
    DenseTooLarge {
        /// Unknowns of the state.
        unknowns: usize,
        /// The most a dense Jacobian may have.
        limit: usize,
    },
    /// The memory an implicit method's matrices need could not be allocated.
    OutOfMemory {
        /// Bytes asked for.
        bytes: u64,
    },
    /// The Jacobian has entries outside the [band](crate::Structure::Banded) an implicit
    /// method was given: unknown `row`'s rate moved, when every unknown was nudged, by
    /// more than the band's entries account for. Finite differences would have folded
    /// the missing entries into the band's (a Rosenbrock method then returns garbage, a
    /// Newton iteration diverges). Checked on the first Jacobian a workspace makes.
    BandTooNarrow {
        /// The unknown whose rate depends on unknowns outside the band.
        row: usize,
        /// Diagonals below the main one declared.
        lower: usize,
        /// Diagonals above the main one declared.
        upper: usize,
    },
    /// A method for second-order problems (a Runge–Kutta–Nyström pair,
    /// [`Dprkn6`](crate::Dprkn6)) was given a first-order state, which has no velocity part
    /// to take its positions' rate from. Use a first-order method
    /// ([`Dopri5`](crate::Dopri5)).
    NotSecondOrder,
    /// The Jacobian has entries outside the [sparse](crate::Structure::Sparse) pattern the
    /// forces gave (`Forces::jacobian_pattern`): unknown
    /// `row`'s rate moved, when every unknown was nudged, by more than the pattern's
    /// entries predict. Checked on the first Jacobian a workspace makes, as a band is.
    PatternTooSparse {
        /// The unknown whose rate depends on unknowns outside the pattern.
        row: usize,
    },
    /// An implicit method was given a [sparse](crate::Structure::Sparse) Jacobian, and the
    /// forces give no pattern (`Forces::jacobian_pattern`
    /// returned `false`).
    NoSparsityPattern,
    /// An implicit method was given a [sparse](crate::Structure::Sparse) Jacobian, and the
    /// crate was built without the feature `sparse` that factors it.
    SparseUnavailable,
    /// A method solving its Newton systems by [`Gmres`](crate::Gmres) was told to use the
    /// forces' [preconditioner](crate::Preconditioner::User), and the forces give none
    /// ([`Forces::precondition`](crate::Forces::precondition) returned `false`).
    NoPreconditioner,
    /// An implicit solve needs more numbers than fit on the stack, and the crate was built
    /// without the `alloc` feature to put them on the heap.
    TooManyUnknowns {
        /// Numbers the solve needs.
        unknowns: usize,
        /// Numbers that fit on the stack.
        capacity: usize,
    },
    /// A differential-algebraic system `M y' = f(t, y)` (a singular mass matrix,
    /// [`Forces::mass_matrix`](crate::Forces::mass_matrix)) was started where its
    /// algebraic equations `0 = fᵢ(t, y)` do not hold. At index 1, one Newton step on them
    /// moves algebraic unknown `coordinate` by `correction` times its error tolerance
    /// (more than 1). At index 2 and 3 (unknowns declared so, whose algebraic equations do
    /// not determine them: [`Radau5::with_higher_index`](crate::Radau5::with_higher_index),
    /// [`Bdf::with_index_two`](crate::Bdf::with_index_two),
    /// [`BackwardEuler::with_higher_index`](crate::BackwardEuler::with_higher_index))
    /// algebraic equation `coordinate`'s residual needs, to first order, some unknown moved
    /// by `correction` times its tolerance (`|fᵢ| / Σⱼ |∂fᵢ/∂yⱼ| scaleⱼ`); the hidden
    /// constraints of those indices (the equations' time derivatives) are not checked.
    /// [`Radau5`](crate::Radau5), the [`Rosenbrock`](crate::Rosenbrock) methods and
    /// [`Bdf`](crate::Bdf) check the start of a run, [`BackwardEuler`](crate::BackwardEuler)
    /// the first step of a workspace. Give a start on the constraints:
    /// [`Radau5::consistent_start`](crate::Radau5::consistent_start) completes the
    /// algebraic unknowns of an index-1 start.
    InconsistentStart {
        /// The algebraic unknown that moves most (index 1), or the algebraic equation
        /// furthest from holding (index 2 and 3), relative to its tolerance.
        coordinate: usize,
        /// How far it moves, or must move, in units of its error tolerance.
        correction: f64,
    },
    /// [`Bdf`](crate::Bdf) or [`BackwardEuler`](crate::BackwardEuler) with
    /// [GMRES](crate::LinearSolver::Gmres) was given forces whose mass matrix
    /// ([`Forces::mass_matrix`](crate::Forces::mass_matrix)) is not the identity: their
    /// matrix-free Newton operator is `I − γJ` only. Solve `M y' = f(t, y)` with the
    /// direct solver ([`LinearSolver::Direct`](crate::LinearSolver::Direct)).
    MassWithGmres,
    /// A differential-algebraic system `M y' = f(t, y)` whose algebraic equations
    /// `0 = fᵢ(t, y)` do not determine its algebraic unknowns at the start (the block of
    /// the Jacobian `∂fᵢ/∂yⱼ` over the algebraic rows and unknowns is singular): an
    /// index-2 or index-3 system. The [`Rosenbrock`](crate::Rosenbrock) methods do not
    /// solve it: they are built for index 1 (rodas.f's documentation), and at index 2
    /// their order drops unless the tableau meets order conditions that Rodas4's and
    /// Ros3p's do not (Hairer–Wanner II, VI.4). [`Radau5`](crate::Radau5),
    /// [`BackwardEuler`](crate::BackwardEuler) and [`Bdf`](crate::Bdf) solve it once told
    /// which unknowns are of index 2 and 3, whose Newton tolerances they scale by the step
    /// (radau5.f's): [`Radau5::with_higher_index`](crate::Radau5::with_higher_index) and
    /// [`BackwardEuler::with_higher_index`](crate::BackwardEuler::with_higher_index)
    /// (index 2 or 3), [`Bdf::with_index_two`](crate::Bdf::with_index_two) (index 2).
    IndexAboveOne,
    /// A method that solves `y' = f(t, y)` only ([`Trapezoid`](crate::Trapezoid),
    /// [`ImplicitMidpoint`](crate::ImplicitMidpoint), [`Newmark`](crate::Newmark),
    /// [`Seulex`](crate::Seulex)) was
    /// given forces with a mass matrix ([`Forces::mass_matrix`](crate::Forces::mass_matrix)):
    /// it refuses them rather than solve another system than the one stated. Solve
    /// `M y' = f(t, y)` with [`BackwardEuler`](crate::BackwardEuler),
    /// [`Radau5`](crate::Radau5), [`Bdf`](crate::Bdf) or a
    /// [`Rosenbrock`](crate::Rosenbrock) method.
    MassUnsupported,
    /// A loaded [`Stepper`](crate::Stepper)'s saved workspace was made for another state
    /// (another size) or another method or structure than the one it was given to step.
    /// The stepper is left as loaded; [`reset`](crate::Stepper::reset) it to start afresh.
    WorkspaceMismatch,
    /// [`Rattle`](crate::Rattle)'s Newton solve for the position constraints did not bring
    /// every `|gₖ(q)|` within its tolerance in the iterations allowed: the step is too long
    /// for the constraints' curvature, or the tolerance is below the rounding of `g`.
    ConstraintNotConverged {
        /// Iterations made.
        iterations: usize,
        /// The largest `|gₖ(q)|` left.
        residual: f64,
    },
}

/// The quantities a step reports as overflowing ([`StepError::Overflow`]): a rigid body's.
#[cfg(feature = "serde")]
const OVERFLOWING: [&str; 3] = [
    "orientation",
    "angular velocity I⁻¹ L",
    "angular momentum I ω",
];

/// One of [`OVERFLOWING`], loaded (the error holds a `&'static str`).
#[cfg(feature = "serde")]
fn overflowing_quantity<'de, D: serde::Deserializer<'de>>(
    deserializer: D,
) -> Result<&'static str, D::Error> {
    struct Quantity;

    impl serde::de::Visitor<'_> for Quantity {
        type Value = &'static str;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            write!(f, "one of {OVERFLOWING:?}")
        }

        fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<&'static str, E> {
            OVERFLOWING
                .into_iter()
                .find(|known| *known == name)
                .ok_or_else(|| E::invalid_value(serde::de::Unexpected::Str(name), &self))
        }
    }

    deserializer.deserialize_str(Quantity)
}

impl StepError {
    /// Whether the error is about the problem's statement, not the step: an implicit
    /// method's matrices that cannot be made or a band that does not fit, which no shorter
    /// step changes.
    pub(crate) fn is_structural(&self) -> bool {
        matches!(
            self,
            StepError::DenseTooLarge { .. }
                | StepError::OutOfMemory { .. }
                | StepError::BandTooNarrow { .. }
                | StepError::PatternTooSparse { .. }
                | StepError::NoSparsityPattern
                | StepError::SparseUnavailable
                | StepError::NoPreconditioner
                | StepError::TooManyUnknowns { .. }
                | StepError::NotSecondOrder
                | StepError::WorkspaceMismatch
                | StepError::InconsistentStart { .. }
                | StepError::MassWithGmres
                | StepError::IndexAboveOne
                | StepError::MassUnsupported
        )
    }
}

impl fmt::Display for StepError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            StepError::NonFiniteTime { t, dt } => write!(
                f,
                "time and time step must be finite (t = {}, dt = {})",
                Number(t),
                Number(dt)
            ),
            StepError::EndTimeOverflow { t, dt } => write!(
                f,
                "the step's end time t + dt overflows the precision (t = {}, dt = {}): the forces would see t = inf",
                Number(t),
                Number(dt)
            ),
            StepError::TimeStepDirection { span, dt } => write!(
                f,
                "time step dt = {} cannot cover the span {}: it must be non-zero and have the span's sign",
                Number(dt),
                Number(span)
            ),
            StepError::TooManySteps { span, dt } => write!(
                f,
                "time step dt = {} is too small for the span {}: the run would take {} steps, more than the {} a trajectory counts exactly",
                Number(dt),
                Number(span),
                Number((span / dt).abs()),
                Number(MAX_STEPS as f64)
            ),
            StepError::Overflow { quantity, value } => write!(
                f,
                "the step overflowed the {quantity} (at {}): the state is too large for its precision or dt too long; the state is left as it was",
                Number(value)
            ),
            StepError::NotConverged {
                iterations,
                correction,
            } => write!(
                f,
                "the implicit solve did not converge in {iterations} Newton iterations (last relative correction {correction:e}); try a smaller dt or a looser tolerance"
            ),
            StepError::Diverged {
                iterations,
                contraction,
            } => write!(
                f,
                "the implicit solve diverged after {iterations} Newton iterations (contraction rate {contraction:e}, not below 1): more iterations would not help; try a smaller dt, or check the forces for discontinuities"
            ),
            StepError::SingularJacobian => write!(
                f,
                "the implicit solve met a singular or non-finite Jacobian in its Newton solve (a Jacobian with infinite or NaN entries, from the forces' own `jacobian` or from finite differences, is reported here too)"
            ),
            StepError::InconsistentStart {
                coordinate,
                correction,
            } => write!(
                f,
                "the start is inconsistent: its algebraic equations do not hold, and satisfying them moves unknown {coordinate} (at index 2 or 3: unknowns through equation {coordinate}) by {correction:e} times its tolerance (complete it with Radau5::consistent_start, or start on the constraints)"
            ),
            StepError::MassWithGmres => write!(
                f,
                "GMRES (in Bdf or BackwardEuler) cannot use a mass matrix other than the identity (its Newton operator is I - gamma J): solve M y' = f with the direct linear solver"
            ),
            StepError::IndexAboveOne => write!(
                f,
                "the algebraic equations do not determine the algebraic unknowns at the start (a singular block of the Jacobian): an index-2 or index-3 system, which the Rosenbrock methods do not solve (they are built for index 1); use Radau5::with_higher_index or BackwardEuler::with_higher_index (index 2 or 3) or Bdf::with_index_two (index 2)"
            ),
            StepError::MassUnsupported => write!(
                f,
                "this method solves y' = f(t, y) only and refuses forces with a mass matrix: solve M y' = f(t, y) with BackwardEuler, Radau5, Bdf or a Rosenbrock method"
            ),
            StepError::ZeroScale { coordinate } => write!(
                f,
                "coordinate {coordinate} is zero with a zero absolute tolerance, so its error scale is zero: give it an absolute tolerance above zero"
            ),
            StepError::NonFiniteResidual => write!(
                f,
                "the implicit solve met a non-finite residual: the forces returned infinity or NaN"
            ),
            StepError::NonFiniteJacobian => write!(
                f,
                "the Jacobian has an infinite or NaN entry: the forces (or their Jacobian) returned infinity or NaN near this state"
            ),
            StepError::StepTooLong {
                dt,
                uncertainty,
                extent,
            } => write!(
                f,
                "the implicit step dt = {dt:e} is too long for the state's precision: rounding alone could move the solution by {uncertainty:e}, more than the state's extent {extent:e}; take shorter steps"
            ),
            StepError::DenseTooLarge { unknowns, limit } => write!(
                f,
                "a dense Jacobian of {unknowns} unknowns is refused (at most {limit}: it would take {} bytes and ⅔·{unknowns}³ operations per factorisation); declare its structure with Structure::Banded (Structure::chain for a chain of bodies) or, with the feature `sparse`, Structure::Sparse",
                8 * (unknowns as u128) * (unknowns as u128)
            ),
            StepError::OutOfMemory { bytes } => write!(
                f,
                "the implicit method's matrices need {bytes} bytes, which could not be allocated; declare a narrower band"
            ),
            StepError::BandTooNarrow { row, lower, upper } => write!(
                f,
                "the rate of unknown {row} depends on unknowns outside the declared band (lower {lower}, upper {upper}); widen it (Structure::chain gives a chain's band; a second-order state's unknowns are interleaved, each position beside its momentum) or use Structure::Dense"
            ),
            StepError::ConstraintNotConverged {
                iterations,
                residual,
            } => write!(
                f,
                "the constraint solve did not converge in {iterations} Newton iterations (largest |g| left {residual:e}); try a smaller dt, or a tolerance above the rounding of the constraints"
            ),
            StepError::NotSecondOrder => write!(
                f,
                "a Runge–Kutta–Nyström method needs a second-order state (positions and momenta); this state has no velocity part: use a first-order method such as Dopri5"
            ),
            StepError::PatternTooSparse { row } => write!(
                f,
                "the rate of unknown {row} depends on unknowns outside the sparsity pattern the forces gave (Forces::jacobian_pattern); add the missing entries"
            ),
            StepError::NoSparsityPattern => write!(
                f,
                "a sparse Jacobian needs its pattern: implement Forces::jacobian_pattern for the forces"
            ),
            StepError::SparseUnavailable => write!(
                f,
                "a sparse Jacobian needs the crate feature `sparse` (timestep built without it)"
            ),
            StepError::NoPreconditioner => write!(
                f,
                "GMRES was told to use the forces' preconditioner: implement Forces::precondition for the forces"
            ),
            StepError::TooManyUnknowns { unknowns, capacity } => write!(
                f,
                "the implicit solve needs {unknowns} numbers but only {capacity} fit on the stack; enable the `alloc` feature (on with `std`) to solve on the heap"
            ),
            StepError::WorkspaceMismatch => f.write_str(
                "the loaded stepper's saved workspace was made for a state of another size or another method than the one it was given",
            ),
        }
    }
}

impl core::error::Error for StepError {}

/// Why a mass was refused.
///
/// # Example
///
/// ```
/// use timestep::{MassError, Particle};
///
/// assert_eq!(Particle::try_new(-1.0, 0.0, 0.0), Err(MassError::NotPositive(-1.0)));
/// assert_eq!(
///     MassError::NotPositive(-1.0).to_string(),
///     "mass must be positive, got -1"
/// );
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum MassError {
    /// The mass is zero or negative.
    NotPositive(f64),
    /// The mass is infinite or `NaN`.
    NotFinite(f64),
    /// The mass is so small that its inverse overflows the state's precision.
    InverseNotFinite(f64),
    /// The momentum `m·v` of a velocity coordinate does not fit the state's precision: it
    /// overflows to infinity, or underflows (to zero or a subnormal number, losing the
    /// velocity). Checked by [`Particle`](crate::Particle)'s constructors and setters.
    MomentumOutOfRange {
        /// The mass.
        mass: f64,
        /// The velocity coordinate whose momentum is out of range.
        velocity: f64,
    },
}

impl MassError {
    /// Checks that `mass` is finite and positive.
    ///
    /// ```
    /// use timestep::MassError;
    ///
    /// assert_eq!(MassError::check(2.0), Ok(()));
    /// assert_eq!(MassError::check(0.0), Err(MassError::NotPositive(0.0)));
    /// assert!(MassError::check(f64::INFINITY).is_err());
    /// ```
    pub fn check(mass: f64) -> Result<(), MassError> {
        if !mass.is_finite() {
            Err(MassError::NotFinite(mass))
        } else if mass <= 0.0 {
            Err(MassError::NotPositive(mass))
        } else {
            Ok(())
        }
    }
}

impl MassError {
    /// Checks `mass` and returns its inverse `1 / mass`, refusing a mass that is not finite
    /// and positive, or so small that its inverse overflows `S`.
    ///
    /// ```
    /// use timestep::MassError;
    ///
    /// assert_eq!(MassError::inverse(4.0_f64), Ok(0.25));
    /// assert_eq!(MassError::inverse(-1.0_f32), Err(MassError::NotPositive(-1.0)));
    /// assert!(matches!(MassError::inverse(1e-40_f32), Err(MassError::InverseNotFinite(_))));
    /// ```
    pub fn inverse<S: crate::Scalar>(mass: S) -> Result<S, MassError> {
        MassError::check(mass.to_f64())?;
        let inverse = S::one() / mass;
        if inverse.is_finite() {
            Ok(inverse)
        } else {
            Err(MassError::InverseNotFinite(mass.to_f64()))
        }
    }
}

impl fmt::Display for MassError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MassError::NotPositive(m) => write!(f, "mass must be positive, got {}", Number(*m)),
            MassError::NotFinite(m) => write!(f, "mass must be finite, got {}", Number(*m)),
            MassError::InverseNotFinite(m) => {
                write!(f, "mass {} is too small: its inverse overflows", Number(*m))
            }
            MassError::MomentumOutOfRange { mass, velocity } => write!(
                f,
                "mass {} times velocity {} is out of range: the momentum m·v (or the velocity p/m) overflows or underflows",
                Number(*mass),
                Number(*velocity)
            ),
        }
    }
}

impl core::error::Error for MassError {}

/// A number for an error message: as `{}` prints it when that is short (zero, infinities,
/// `NaN`, and magnitudes from 10⁻⁴ up to 10⁹), in exponent notation otherwise, so that
/// 10³⁰⁰ prints as `1e300` and not as 301 digits.
#[derive(Clone, Copy)]
pub(crate) struct Number(pub(crate) f64);

impl fmt::Display for Number {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let magnitude = self.0.abs();
        if magnitude == 0.0 || !magnitude.is_finite() || (1e-4..1e9).contains(&magnitude) {
            write!(f, "{}", self.0)
        } else {
            write!(f, "{:e}", self.0)
        }
    }
}

/// Why an adaptive run was refused or stopped.
#[derive(Clone, Copy, Debug, PartialEq)]
#[non_exhaustive]
pub enum AdaptiveError {
    /// `t0` or `t1` is infinite or `NaN`.
    NonFiniteTime {
        /// The start.
        t0: f64,
        /// The end.
        t1: f64,
    },
    /// A tolerance is negative, infinite or `NaN`, or both are zero.
    InvalidTolerance {
        /// The relative tolerance.
        relative: f64,
        /// The absolute tolerance.
        absolute: f64,
    },
    /// Per-component tolerances ([`ComponentTolerances`](crate::ComponentTolerances)) whose
    /// count is not the state's number of coordinates.
    ToleranceCount {
        /// How many tolerances were given (of the relative or the absolute ones).
        count: usize,
        /// How many coordinates the state's rate has.
        coordinates: usize,
    },
    /// The controller's settings are out of range (see [`Controller`](crate::control::Controller)).
    InvalidController,
    /// An initial or largest step that is zero or `NaN` (or, initial, infinite).
    InvalidStep {
        /// The step given.
        h: f64,
    },
    /// The step the error asks for is too small to move `t` in its precision: the solution
    /// is singular there, or the tolerance is too tight.
    StepTooSmall {
        /// Where the run stopped.
        t: f64,
        /// The step asked for.
        h: f64,
    },
    /// The error estimate was infinite or `NaN` eleven attempts in a row, each step shorter
    /// than the last by the controller's largest shrink, or until the step was too small
    /// for the precision of `t`: the forces return infinity or `NaN` however short the
    /// step. (A single non-finite estimate, from a step so long that the state overflows,
    /// is a rejected step, retried shorter.)
    NonFiniteError {
        /// Where the run stopped.
        t: f64,
        /// The step tried.
        h: f64,
    },
    /// The dense output of an accepted step is not finite where an event or a sample is
    /// read (its end was finite): the step was far longer than its dense output can
    /// bridge, which a tolerance near `f64::MAX` allows. The state is left at the step's end.
    NonFiniteDenseOutput {
        /// Where the dense output was read.
        t: f64,
    },
    /// A method could not take its step however short (Radau5's Newton iteration did
    /// not converge, or its matrix was singular, at every step size tried down to the
    /// precision of `t`): `cause` says which.
    StepFailed {
        /// Where the run stopped.
        t: f64,
        /// The last step tried.
        h: f64,
        /// Why the method's last attempt failed.
        cause: StepError,
    },
    /// The sample times of [`Adaptive::solve_at`](crate::Adaptive::solve_at) are empty, not finite, or not ordered
    /// from the start in one direction.
    InvalidSampleTimes,
    /// The run took the most steps allowed without reaching its end.
    TooManySteps {
        /// Where the run stopped.
        t: f64,
        /// The steps allowed.
        steps: u64,
    },
    /// A loaded [`Snapshot`](crate::adaptive::Snapshot) does not fit the solver it was
    /// given to resume: its workspace was made for a state of another size, or by another
    /// method or structure, or its times and step are not those of a run (not finite, or
    /// its step against its direction).
    SnapshotMismatch,
    /// Compensated summation
    /// ([`Adaptive::with_compensated_summation`](crate::Adaptive::with_compensated_summation))
    /// was asked of a method that does not give its steps' increments: only the explicit
    /// and the Nyström pairs do. Use one of them, or the plain run.
    CompensationUnsupported,
    /// A watched [`Event`](crate::adaptive::Event)'s function returned `NaN` (at the
    /// run's start, at a step's end or at one of the points inside it where events are
    /// read, or after an event): a value without a sign, through which a crossing could
    /// not be seen. The state is left at the end of the step where it was read (at the
    /// start for `t` the run's start). Make the function finite wherever the run may go
    /// (or give it a sign where it is undefined).
    EventNotANumber {
        /// The event's index among those watched.
        index: usize,
        /// Where its function was read.
        t: f64,
    },
    /// More events were given to watch than a run watches (four): the run did not
    /// start. Watch fewer in one run, or combine several into one function (their
    /// product changes sign where any of them does).
    TooManyEvents {
        /// How many were given.
        count: usize,
    },
}

impl fmt::Display for AdaptiveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match *self {
            AdaptiveError::NonFiniteTime { t0, t1 } => {
                write!(f, "the start and end times must be finite (t0 = {t0:e}, t1 = {t1:e})")
            }
            AdaptiveError::InvalidTolerance { relative, absolute } => write!(
                f,
                "tolerances must be finite and not negative, and not both zero (relative {relative:e}, absolute {absolute:e})"
            ),
            AdaptiveError::ToleranceCount { count, coordinates } => write!(
                f,
                "{count} per-component tolerances given for a state of {coordinates} coordinates: give one relative and one absolute tolerance per coordinate"
            ),
            AdaptiveError::InvalidController => f.write_str(
                "controller settings out of range: 0 < safety <= 1, 0 < min_factor < 1 <= max_factor, 0 <= beta < 0.2",
            ),
            AdaptiveError::InvalidStep { h } => {
                write!(f, "a step must be finite and non-zero, got {h:e}")
            }
            AdaptiveError::StepTooSmall { t, h } => write!(
                f,
                "the step size {h:e} needed at t = {t:e} is too small for the precision of t: the solution may be singular there, or the tolerance too tight"
            ),
            AdaptiveError::NonFiniteError { t, h } => write!(
                f,
                "the error estimate of the step of {h:e} from t = {t:e} is not finite: the forces returned infinity or NaN"
            ),
            AdaptiveError::NonFiniteDenseOutput { t } => write!(
                f,
                "the dense output at t = {t:e} is not finite: the step was too long for its interpolant (is the tolerance sensible?)"
            ),
            AdaptiveError::StepFailed { t, h, cause } => write!(
                f,
                "the step from t = {t:e} failed at every size down to {h:e}: {cause}"
            ),
            AdaptiveError::InvalidSampleTimes => f.write_str(
                "sample times must be finite, not empty, and ordered from the start in the direction of the run",
            ),
            AdaptiveError::TooManySteps { t, steps } => {
                write!(f, "{steps} steps taken without reaching the end (stopped at t = {t:e})")
            }
            AdaptiveError::SnapshotMismatch => f.write_str(
                "the loaded snapshot does not fit the solver: its workspace was made for a state of another size or by another method, or its times are not a run's",
            ),
            AdaptiveError::CompensationUnsupported => f.write_str(
                "compensated summation needs a method that gives its steps' increments (an explicit or Nyström pair such as dopri5, dop853 or dprkn12)",
            ),
            AdaptiveError::EventNotANumber { index, t } => write!(
                f,
                "event {index}'s function is NaN at t = {t:e}: a crossing through a value without a sign cannot be seen"
            ),
            AdaptiveError::TooManyEvents { count } => write!(
                f,
                "{count} events given: a run watches at most 4"
            ),
        }
    }
}

impl core::error::Error for AdaptiveError {}
