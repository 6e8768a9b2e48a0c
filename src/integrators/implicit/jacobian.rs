//! The one source of Jacobians `∂f/∂y` in the crate, and the time derivative `∂f/∂t`:
//! every implicit method (backward Euler's Newton, the Rosenbrock methods, Radau5, SEULEX,
//! the BDF) takes its Jacobian from here. The forces' own Jacobian when they give one
//! ([`Forces::jacobian`]); otherwise forward differences, dense, [banded](crate::Structure::Banded)
//! (columns a band keeps apart share an evaluation) or [sparse](crate::Structure::Sparse)
//! (one evaluation per colour of the declared pattern), by one column loop
//! ([`difference_columns`]) whose step sizes follow one rule, [`DifferenceStep`], picked
//! by each method as data. The first banded matrix of a workspace is checked against the
//! forces ([`Matrix::check_band`]) inside the same loop.

use crate::linalg::{Matrix, band_weight};
use crate::math;
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// How long a forward difference's step is in each unknown: the crate's one rule, as data,
/// of which each method names its variant.
#[derive(Clone, Copy)]
pub(crate) enum DifferenceStep<'a, T> {
    /// `δⱼ = √ε · max(|yⱼ|, |h fⱼ|, floorⱼ)` for a step of `h`: relative to the
    /// coordinate, to what a step moves it by, and to `floor(j)` (the absolute tolerance
    /// under error control), so that a coordinate far smaller than the others (Robertson's
    /// `y₂ ≈ 10⁻¹³`) is differenced on its own scale ([`Hairer`](Self::Hairer)'s step is
    /// 500 times past it there, and the wrong Jacobian then caps the step near 10³ where
    /// 10¹⁰ is right). An algebraic unknown (a zero row of the mass matrix, `true` in
    /// `algebraic`) has no rate to scale its step by, and at its tolerance's scale alone
    /// the step can vanish in the rounding of its equation (the Robertson DAE's `y₃ = 0`
    /// in `y₁ + y₂ + y₃ − 1`): its floor is at least 1, a step of at least `√ε`. All three
    /// sizes zero: `√(10⁻⁵ ε)`, Hairer's floor. The step is taken as the difference it
    /// makes after rounding, `(yⱼ + δⱼ) − yⱼ`; a state that does not give its coordinates
    /// is differenced with `√ε · max(|h fⱼ|, floorⱼ, 1)`. The Rosenbrock methods, SEULEX
    /// and the BDF.
    Scaled {
        /// The step the Jacobian is for.
        h: T,
        /// The size below which coordinate `j` does not matter (0: none).
        floor: &'a dyn Fn(usize) -> T,
        /// Which unknowns are algebraic (`None`: none).
        algebraic: Option<&'a [bool]>,
    },
    /// radau5.f's `δⱼ = √(ε · max(10⁻⁵, |yⱼ|))`, as it is, not rounded (`|yⱼ|` taken as 0
    /// when the state does not give its coordinates): Radau5 takes its reference code's
    /// steps, so that its step counts are radau5.f's.
    Hairer,
    /// A step in the rate `D` of a one-stage implicit step (`y₁ = y₀ + D dt`), whose Newton
    /// residual is differenced: `δⱼ = ±√ε · max(|Dⱼ|, |yⱼ|/|dt|, 1)`, signed as `Dⱼ`, of
    /// what the stage moves, taken after rounding, `(Dⱼ + δⱼ) − Dⱼ`.
    Rate {
        /// The step's length.
        dt: T,
    },
}

impl<T: Scalar> DifferenceStep<'_, T> {
    /// The step `δⱼ` of unknown `j`, whose coordinate is `y` (`None`: the state does not
    /// give it) and whose rate (or, for [`Rate`](Self::Rate), Newton unknown `Dⱼ`) is
    /// `value`, before rounding.
    pub(crate) fn size(&self, j: usize, y: Option<T>, value: T) -> T {
        let sqrt_epsilon = T::epsilon().sqrt();
        match *self {
            DifferenceStep::Scaled {
                h,
                floor,
                algebraic,
            } => {
                let floor = match algebraic {
                    Some(algebraic) if algebraic[j] => floor(j).max(T::one()),
                    _ => floor(j),
                };
                let moved = (h * value).abs().max(floor);
                match y {
                    Some(y) => {
                        let size = y.abs().max(moved);
                        if size > T::zero() {
                            sqrt_epsilon * size
                        } else {
                            (T::epsilon() * T::from_f64(1e-5)).sqrt()
                        }
                    }
                    None => sqrt_epsilon * moved.max(T::one()),
                }
            }
            DifferenceStep::Hairer => {
                let y = y.map_or(T::zero(), Float::abs);
                (T::epsilon() * y.max(T::from_f64(1e-5))).sqrt()
            }
            DifferenceStep::Rate { dt } => {
                let y = y.map_or(T::zero(), Float::abs);
                let size = value.abs().max(y / dt.abs()).max(T::one());
                let delta = sqrt_epsilon * size;
                if value < T::zero() { -delta } else { delta }
            }
        }
    }

    /// The step `delta` as taken after rounding, from the coordinate `y` (0 when not
    /// given) or the Newton unknown `value`: see each variant.
    pub(crate) fn taken(&self, y: T, value: T, delta: T) -> T {
        match self {
            DifferenceStep::Scaled { .. } => (y + delta) - y,
            DifferenceStep::Hairer => delta,
            DifferenceStep::Rate { .. } => (value + delta) - value,
        }
    }
}

/// A function differenced column by column by [`difference_columns`]: a state's rate
/// (through [`jacobian`]), or a one-stage method's Newton residual.
pub(crate) trait Differenced<T> {
    /// Sets the nudged point to the point itself.
    fn start(&mut self);
    /// The step of unknown `j` ([`DifferenceStep::size`]).
    fn step(&self, j: usize) -> T;
    /// Moves unknown `j` of the nudged point by `delta`; returns the step as taken
    /// ([`DifferenceStep::taken`]).
    fn nudge(&mut self, j: usize, delta: T) -> T;
    /// Puts unknown `j` of the nudged point back.
    fn restore(&mut self, j: usize);
    /// Evaluates the function at the nudged point.
    fn evaluate(&mut self);
    /// How far row `i` moved between the point and the nudged point, and the size of
    /// the row it moved (for [`Matrix::check_band`]).
    fn change(&self, i: usize) -> (T, T);
}

/// Writes the forward differences of `function` into `matrix` (cleared and prepared),
/// unless `analytic` (the matrix holds the function's own Jacobian): one evaluation per
/// column, per group of columns a band keeps apart (`lower + upper + 1` apart: no row
/// sees two of them), or per colour of a sparse pattern. `steps` receives the steps
/// taken. The first banded matrix of a workspace (`band_checked` false) is then checked
/// against the function with one more evaluation, every unknown nudged by weights that
/// tell a group's columns apart ([`Matrix::check_band`]). Returns the evaluations made.
///
/// # Errors
///
/// [`StepError::BandTooNarrow`] when the function has entries outside the band
/// ([`StepError::PatternTooSparse`] outside a sparse pattern).
pub(crate) fn difference_columns<T: Scalar>(
    function: &mut impl Differenced<T>,
    matrix: &mut Matrix<T>,
    steps: &mut [T],
    band_checked: &mut bool,
    analytic: bool,
) -> Result<u64, StepError> {
    let check = matrix.is_banded() && !*band_checked;
    if analytic && !check {
        return Ok(0);
    }
    let mut evaluations = 0;
    function.start();
    if !analytic {
        for columns in matrix.column_groups() {
            for j in matrix.unknowns(&columns) {
                steps[j] = function.nudge(j, function.step(j));
            }
            function.evaluate();
            evaluations += 1;
            for j in matrix.unknowns(&columns) {
                function.restore(j);
            }
            matrix.set_differences(columns, steps, |i| function.change(i).0);
        }
    }
    if check {
        for (j, step) in steps.iter_mut().enumerate() {
            *step = function.nudge(j, function.step(j) * band_weight::<T>(j));
        }
        function.evaluate();
        evaluations += 1;
        matrix.check_band(|j| steps[j], |i| function.change(i))?;
        *band_checked = true;
    }
    Ok(evaluations)
}

/// The buffers a forward-difference Jacobian works in, borrowed from a method's workspace.
pub(crate) struct Differences<'w, S: State> {
    /// The state's own coordinates (for the size of each difference step).
    pub coordinates: &'w mut DerivativeOf<S>,
    /// The perturbation: zero (or the offset) but for the columns of one group.
    pub nudge: &'w mut DerivativeOf<S>,
    /// The rate at the perturbed state.
    pub nudged_rate: &'w mut DerivativeOf<S>,
    /// The perturbed state.
    pub probe: &'w mut S,
    /// The step actually taken in each coordinate, after rounding.
    pub steps: &'w mut [S::Scalar],
    /// Whether a banded matrix has been checked against the forces
    /// ([`Matrix::check_band`]), once per workspace; set when it passes.
    pub band_checked: &'w mut bool,
}

/// Where a Jacobian is taken: at `state`, or at `state` advanced by `offset` (Radau5's
/// Jacobian at its last stage, `y₀ + Z₃`, made without a state of its own), at time `t`,
/// where the rate is `rate`. The steps are sized by `state`'s coordinates.
pub(crate) struct Point<'a, S: State> {
    /// The state (the base of `offset`).
    pub state: &'a S,
    /// The time.
    pub t: S::Scalar,
    /// The rate at the point.
    pub rate: &'a DerivativeOf<S>,
    /// The increment from `state` to the point (`None`: the point is `state`).
    pub offset: Option<&'a DerivativeOf<S>>,
}

/// Writes `J = ∂f/∂y` at `point` into `matrix`: the forces' own Jacobian when they give
/// one, else forward differences ([`difference_columns`]) with the steps of `rule`.
/// Returns the number of force evaluations made: `n` dense, `lower + upper + 1` banded,
/// one per colour sparse, plus one for the first banded matrix of a workspace.
///
/// Inlined, so that the forces' own Jacobian costs what asking for it costs; the
/// differences are out of line ([`differences`]).
///
/// # Errors
///
/// [`StepError::BandTooNarrow`] when the forces have entries outside the band
/// ([`StepError::PatternTooSparse`] outside a sparse pattern); the errors of
/// [`Matrix::prepare`] for a sparse matrix without its pattern.
#[inline]
pub(crate) fn jacobian<S: State, F: Forces<S> + ?Sized>(
    point: Point<'_, S>,
    forces: &F,
    rule: DifferenceStep<'_, S::Scalar>,
    matrix: &mut Matrix<S::Scalar>,
    work: Differences<'_, S>,
) -> Result<u64, StepError> {
    matrix.prepare(forces, point.state)?;
    matrix.clear();
    let analytic = match point.offset {
        Some(offset) => {
            point.state.probe_into(offset, S::Scalar::one(), work.probe);
            forces.jacobian(work.probe, point.t, &mut matrix.as_jacobian())
        }
        None => forces.jacobian(point.state, point.t, &mut matrix.as_jacobian()),
    };
    let check = matrix.is_banded() && !*work.band_checked;
    if analytic && !check {
        return Ok(0);
    }
    differences(point, forces, rule, matrix, work, analytic)
}

/// The differences of [`jacobian`] (only the band's check when `analytic`).
///
/// # Errors
///
/// As [`jacobian`].
#[inline(never)]
fn differences<S: State, F: Forces<S> + ?Sized>(
    point: Point<'_, S>,
    forces: &F,
    rule: DifferenceStep<'_, S::Scalar>,
    matrix: &mut Matrix<S::Scalar>,
    work: Differences<'_, S>,
    analytic: bool,
) -> Result<u64, StepError> {
    let Differences {
        coordinates,
        nudge,
        nudged_rate,
        probe,
        steps,
        band_checked,
    } = work;
    let Point {
        state,
        t,
        rate,
        offset,
    } = point;
    let has_coordinates = state.coordinates_into(coordinates);
    let mut rates = Rates {
        state,
        forces,
        t,
        rate,
        offset,
        coordinates: has_coordinates.then_some(&*coordinates),
        rule,
        nudge,
        nudged_rate,
        probe,
    };
    difference_columns(&mut rates, matrix, steps, band_checked, analytic)
}

/// A state's rate as [`difference_columns`] differences it.
struct Rates<'a, S: State, F: ?Sized> {
    state: &'a S,
    forces: &'a F,
    t: S::Scalar,
    rate: &'a DerivativeOf<S>,
    offset: Option<&'a DerivativeOf<S>>,
    coordinates: Option<&'a DerivativeOf<S>>,
    rule: DifferenceStep<'a, S::Scalar>,
    nudge: &'a mut DerivativeOf<S>,
    nudged_rate: &'a mut DerivativeOf<S>,
    probe: &'a mut S,
}

impl<S: State, F: Forces<S> + ?Sized> Rates<'_, S, F> {
    /// Unknown `j` of the offset (0 without one).
    fn offset(&self, j: usize) -> S::Scalar {
        self.offset
            .map_or(S::Scalar::zero(), |offset| offset.component(j))
    }
}

impl<S: State, F: Forces<S> + ?Sized> Differenced<S::Scalar> for Rates<'_, S, F> {
    fn start(&mut self) {
        match self.offset {
            Some(offset) => self.nudge.assign(offset),
            None => self.nudge.set_zero(),
        }
    }

    fn step(&self, j: usize) -> S::Scalar {
        let y = self.coordinates.map(|coordinates| coordinates.component(j));
        self.rule.size(j, y, self.rate.component(j))
    }

    fn nudge(&mut self, j: usize, delta: S::Scalar) -> S::Scalar {
        let y = self
            .coordinates
            .map_or(S::Scalar::zero(), |coordinates| coordinates.component(j));
        let taken = self.rule.taken(y, self.rate.component(j), delta);
        let moved = match self.offset {
            Some(offset) => offset.component(j) + taken,
            None => taken,
        };
        self.nudge.set_component(j, moved);
        taken
    }

    fn restore(&mut self, j: usize) {
        let offset = self.offset(j);
        self.nudge.set_component(j, offset);
    }

    fn evaluate(&mut self) {
        self.state
            .probe_into(self.nudge, S::Scalar::one(), self.probe);
        self.probe
            .derivative_into(self.forces, self.t, self.nudged_rate);
    }

    fn change(&self, i: usize) -> (S::Scalar, S::Scalar) {
        let base = self.rate.component(i);
        (self.nudged_rate.component(i) - base, base.abs())
    }
}

/// Writes `∂f/∂t` at (`state`, `t`) into `out` by a central difference in time (two force
/// evaluations, `scratch` a rate buffer), with step `δ = ε^(1/3) · max(|t|, |h|)` for a
/// step of `h`: its error, `δ² |f‴|/6 + ε |f|/δ`, is about `ε^(2/3)` relative (4·10⁻¹¹ in
/// `f64`). A forward difference (rodas.f's) errs by `√ε` (10⁻⁸), which a fourth-order
/// method's error falls below at ordinary steps: its global error then stops falling like
/// `h⁴` (tests/timestep/integrators/first_order.rs saw order 3.3 on `y' = cos t`).
pub(crate) fn time_derivative<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    t: S::Scalar,
    h: S::Scalar,
    out: &mut DerivativeOf<S>,
    scratch: &mut DerivativeOf<S>,
) {
    let (later, earlier) = time_difference_times(t, h);
    state.derivative_into(forces, later, out);
    state.derivative_into(forces, earlier, scratch);
    out.add_scaled_assign(scratch, -S::Scalar::one());
    out.scale_assign(S::Scalar::one() / (later - earlier));
}

/// The two times `t ± δ`, `δ = ε^(1/3) · max(|t|, |h|)`, at which [`time_derivative`]
/// samples the rate, as rounded: the difference is taken over `later − earlier`. The
/// adjoint of a Rosenbrock step differentiates that same difference
/// (`src/sensitivity/adjoint/rosenbrock.rs`).
pub(crate) fn time_difference_times<T: Scalar>(t: T, h: T) -> (T, T) {
    let third = T::from_f64(1.0 / 3.0);
    let delta = math::powf(T::epsilon(), third) * t.abs().max(h.abs());
    (t + delta, t - delta)
}
