//! [`SeulexWorkspace`] and the parts of a SEULEX step: the Jacobian, one line of the
//! extrapolation table (seulex.f's `SEUL`) with its stability check, and the error of the
//! extrapolated value.

use super::control::Memory;
use super::sequence::{KEPT_INCREMENTS, MAX_COLUMNS, Table, first_kept};
use super::tableau::extrapolate;
use crate::integrators::implicit::jacobian::{self, DifferenceStep, Differences, Point};
use crate::linalg::{Buffer, Matrix, Order, Solver, Structure};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One};

/// The buffers of a SEULEX run: the rate at the step's start, the extrapolation table (one
/// increment per line), the linearly implicit Euler increments the dense output is made
/// from (line `j` keeps its last `j`: 78 for twelve lines) and its coefficients, a few
/// scratch rates, a probe state, the Jacobian and the factors of `I/hⱼ − J`, and what the
/// order and step control remembers.
///
/// Made once per [`Adaptive`](crate::adaptive::Adaptive) and reused: nothing in a step
/// allocates. Up to 16 unknowns the matrices are on the stack; beyond, on the heap
/// (without `alloc` a run then stops with
/// [`AdaptiveError::NonFiniteError`](crate::AdaptiveError::NonFiniteError)).
///
/// ```
/// use timestep::control::AdaptiveMethod;
/// use timestep::workspace::SeulexWorkspace;
/// use timestep::Seulex;
///
/// let workspace: SeulexWorkspace<[f64; 2]> = Seulex::new().workspace(&[1.0, 0.0]);
/// # drop(workspace);
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct SeulexWorkspace<S: State> {
    /// `f(t, y)` at the step's start, when `rate_fresh`.
    pub(super) rate: DerivativeOf<S>,
    pub(super) rate_fresh: bool,
    /// `Tⱼ₁ − y₀`, extrapolated in place: `table[0]` is the step's increment.
    pub(super) table: [DerivativeOf<S>; MAX_COLUMNS],
    /// The increments `Δ` each line keeps for the dense output.
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::array"))]
    pub(super) kept: [DerivativeOf<S>; KEPT_INCREMENTS],
    /// The dense output's derivative estimates (scratch) and coefficients.
    pub(super) derivatives: [DerivativeOf<S>; MAX_COLUMNS],
    pub(super) coefficients: [DerivativeOf<S>; MAX_COLUMNS],
    /// The current increment `Δ`, their sum `yₘ − y₀`, a stage rate and the stability
    /// check's right-hand side.
    pub(super) delta: DerivativeOf<S>,
    pub(super) sum: DerivativeOf<S>,
    pub(super) stage_rate: DerivativeOf<S>,
    pub(super) check: DerivativeOf<S>,
    /// The finite differences' buffers.
    pub(super) coordinates: DerivativeOf<S>,
    pub(super) nudge: DerivativeOf<S>,
    pub(super) probe: S,
    /// `J`, kept from step to step while the stability check allows it.
    pub(super) jacobian: Result<Matrix<S::Scalar>, StepError>,
    /// `I/hⱼ − J`, factored.
    pub(super) matrix: Result<Matrix<S::Scalar>, StepError>,
    /// A right-hand side and solution, and the finite differences' steps.
    pub(super) solution: Result<Buffer<S::Scalar>, StepError>,
    pub(super) steps: Result<Buffer<S::Scalar>, StepError>,
    /// `1/scaleᵢ` of the step's start, `scaleᵢ = atolᵢ + rtolᵢ |y₀ᵢ|`.
    pub(super) weights: Result<Buffer<f64>, StepError>,
    pub(super) memory: Memory,
    /// A banded Jacobian has been checked against the forces (`Matrix::check_band`).
    band_checked: bool,
}

impl<S: State> SeulexWorkspace<S> {
    pub(super) fn new(state: &S, structure: Structure) -> Self {
        let zero = state.zero_rate();
        let (n, order) = (zero.dim(), Order::of(&zero));
        SeulexWorkspace {
            rate: zero.clone(),
            rate_fresh: false,
            table: core::array::from_fn(|_| zero.clone()),
            kept: core::array::from_fn(|_| zero.clone()),
            derivatives: core::array::from_fn(|_| zero.clone()),
            coefficients: core::array::from_fn(|_| zero.clone()),
            delta: zero.clone(),
            sum: zero.clone(),
            stage_rate: zero.clone(),
            check: zero.clone(),
            coordinates: zero.clone(),
            nudge: zero,
            probe: state.clone(),
            jacobian: Matrix::new(structure, order, n),
            matrix: Matrix::new(structure, order, n),
            solution: Buffer::zeroed(n),
            steps: Buffer::zeroed(n),
            weights: Buffer::zeroed(n),
            memory: Memory::new(),
            band_checked: false,
        }
    }
}

impl<S: State> SeulexWorkspace<S> {
    /// The lines of the table the last step computed: after an accepted step, those its
    /// value was extrapolated from.
    #[cfg(feature = "alloc")]
    pub(crate) fn lines(&self) -> usize {
        self.memory.lines
    }
}

/// Why a line of the table could not be computed: the step is retried at half its size.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) enum LineFailure {
    /// `I/hⱼ − J` is singular, or the forces or the Jacobian are not finite.
    Step(StepError),
    /// The linearly implicit Euler step is unstable (the stability check's ratio is above
    /// 1), or the extrapolation's error grows from one line to the next.
    Unstable(f64),
}

/// `x ← (I/hⱼ − J)⁻¹ x`, through the solution buffer.
fn solve<V: Vector>(matrix: &mut Solver<'_, V::Scalar>, solution: &mut [V::Scalar], x: &mut V) {
    for (k, value) in solution.iter_mut().enumerate() {
        *value = x.component(k);
    }
    matrix.solve(solution);
    for (k, value) in solution.iter().enumerate() {
        x.set_component(k, *value);
    }
}

/// `√(Σᵢ (xᵢ wᵢ)²)`: seulex.f's stability check measures without dividing by `n`.
fn weighted_length<V: Vector>(x: &V, weights: &[f64]) -> f64 {
    let squares: f64 = weights
        .iter()
        .enumerate()
        .map(|(i, w)| {
            let scaled = x.component(i).to_f64() * w;
            scaled * scaled
        })
        .sum();
    Float::sqrt(squares)
}

impl<S: State> SeulexWorkspace<S> {
    /// Evaluates `f(t, y)` at the step's start, unless it is already there.
    pub(super) fn start_rate<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
    ) -> u64 {
        if self.rate_fresh {
            return 0;
        }
        state.derivative_into(forces, t, &mut self.rate);
        self.rate_fresh = true;
        1
    }

    /// Writes `J = ∂f/∂y` at `(t, y)`: the forces' own, or forward differences (which need
    /// the rate at the start, evaluated here if it is not). Returns the force evaluations
    /// made.
    pub(super) fn evaluate_jacobian<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
    ) -> Result<u64, StepError> {
        let jacobian_matrix = self.jacobian.as_mut().map_err(|e| *e)?;
        jacobian_matrix.prepare(forces, state)?;
        let check = jacobian_matrix.is_banded() && !self.band_checked;
        jacobian_matrix.clear();
        // SEULEX solves y' = f only: a mass matrix is refused, not ignored.
        if forces.mass_matrix(&mut jacobian_matrix.as_jacobian()) {
            return Err(StepError::MassUnsupported);
        }
        if !check && forces.jacobian(state, t, &mut jacobian_matrix.as_jacobian()) {
            return Ok(0);
        }
        let mut evaluations = self.start_rate(state, forces, t);
        let weights = self.weights.as_ref().map_err(|e| *e)?;
        let floor = |j: usize| S::Scalar::from_f64(1.0 / weights[j]);
        let steps = self.steps.as_mut().map_err(|e| *e)?;
        let jacobian_matrix = self.jacobian.as_mut().map_err(|e| *e)?;
        evaluations += jacobian::jacobian(
            Point {
                state,
                t,
                rate: &self.rate,
                offset: None,
            },
            forces,
            DifferenceStep::Scaled {
                h,
                floor: &floor,
                algebraic: None,
            },
            jacobian_matrix,
            Differences {
                coordinates: &mut self.coordinates,
                nudge: &mut self.nudge,
                nudged_rate: &mut self.stage_rate,
                probe: &mut self.probe,
                steps,
                band_checked: &mut self.band_checked,
            },
        )?;
        Ok(evaluations)
    }

    /// Line `j` (from 1) of the table for a step of `h` from `state` at `t`: `nⱼ` linearly
    /// implicit Euler steps of `hⱼ = h/nⱼ`,
    ///
    /// ```text
    /// (I/hⱼ − J) Δₘ = f(t + (m + 1) hⱼ, yₘ)      yₘ₊₁ = yₘ + Δₘ      (m = 0, …, nⱼ − 1)
    /// ```
    ///
    /// (`f(t + m hⱼ, yₘ)` for autonomous forces, the start's rate for `m = 0`), then
    /// extrapolated with the lines before. Lines 1 and 2 check the first step's stability
    /// as seulex.f does: a second solve with the first increment, `θ = ‖Δ′‖/max(1, ‖Δ₀‖)`,
    /// must not exceed 1. Returns the error norm of the extrapolated value (line 1: none,
    /// 0), counting the cost in `evaluations` and `decompositions`.
    #[allow(clippy::too_many_arguments)]
    pub(super) fn line<F: Forces<S> + ?Sized>(
        &mut self,
        j: usize,
        sequence: &Table,
        autonomous: bool,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        evaluations: &mut u64,
        decompositions: &mut u64,
    ) -> Result<f64, LineFailure> {
        let one = S::Scalar::one();
        let steps = sequence.numbers[j - 1] as usize;
        let hj = h / S::Scalar::from_f64(sequence.n(j));
        let inverse = one / hj;
        let Self {
            rate,
            table,
            kept,
            delta,
            sum,
            stage_rate,
            check,
            probe,
            jacobian,
            matrix,
            solution,
            weights,
            memory,
            ..
        } = self;
        // Buffers that could not be made (too many unknowns without `alloc`).
        let failed = |cause: &StepError| LineFailure::Step(*cause);
        let jacobian = jacobian.as_ref().map_err(failed)?;
        let matrix = matrix.as_mut().map_err(|cause| failed(cause))?;
        let solution = solution.as_mut().map_err(|cause| failed(cause))?;
        let weights = weights.as_ref().map_err(failed)?;
        matrix
            .factor_shifted(jacobian, one, inverse)
            .map_err(LineFailure::Step)?;
        *decompositions += 1;
        // A line solves once per substep with one factorisation: its solve picked once.
        let matrix = &mut matrix.solver();

        if autonomous {
            delta.assign(rate);
        } else {
            state.derivative_into(forces, t + hj, delta);
            *evaluations += 1;
        }
        if !delta.is_finite() {
            return Err(LineFailure::Step(StepError::NonFiniteResidual));
        }
        solve(matrix, solution, delta);
        let mut keep = first_kept(j);
        if steps == j {
            kept[keep].assign(delta);
            keep += 1;
        }
        sum.set_zero();
        for m in 1..steps {
            sum.add_scaled_assign(delta, one);
            state.probe_into(sum, one, probe);
            let stage_time = if autonomous {
                t + hj * S::Scalar::from_f64(m as f64)
            } else {
                t + hj * S::Scalar::from_f64((m + 1) as f64)
            };
            probe.derivative_into(forces, stage_time, stage_rate);
            *evaluations += 1;
            if !stage_rate.is_finite() {
                return Err(LineFailure::Step(StepError::NonFiniteResidual));
            }
            if m == 1 && j <= 2 {
                // The stability check: one more solve with the first increment.
                let first = weighted_length(delta, weights);
                if autonomous {
                    check.assign(stage_rate);
                } else {
                    probe.derivative_into(forces, t + hj, check);
                    *evaluations += 1;
                }
                check.add_scaled_assign(delta, -inverse);
                solve(matrix, solution, check);
                let second = weighted_length(check, weights);
                memory.theta = second / first.max(1.0);
                // NaN (forces that are not finite) fails too.
                if memory.theta > 1.0 || memory.theta.is_nan() {
                    return Err(LineFailure::Unstable(memory.theta));
                }
            }
            delta.assign(stage_rate);
            solve(matrix, solution, delta);
            if m >= steps - j {
                kept[keep].assign(delta);
                keep += 1;
            }
        }
        let line = &mut table[j - 1];
        line.assign(sum);
        line.add_scaled_assign(delta, one);
        if !line.is_finite() {
            return Err(LineFailure::Step(StepError::NonFiniteResidual));
        }
        if j == 1 {
            return Ok(0.0);
        }
        extrapolate(table, j, sequence);
        // seulex.f's error: the root mean square of |Tⱼⱼ − Tⱼ,ⱼ₋₁| / scaleᵢ, each term at
        // most 10¹⁵.
        let squares: f64 = weights
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let e = (table[0].component(i) - table[1].component(i))
                    .to_f64()
                    .abs()
                    * w;
                let e = if e.is_nan() { e } else { e.min(1e15) };
                e * e
            })
            .sum();
        if squares >= 1e30 || squares.is_nan() {
            return Err(if squares.is_finite() {
                LineFailure::Unstable(Float::sqrt(squares))
            } else {
                LineFailure::Step(StepError::NonFiniteResidual)
            });
        }
        let error: f64 = Float::sqrt(squares / weights.len().max(1) as f64);
        if j > 2 && error >= memory.error_bound {
            return Err(LineFailure::Unstable(error));
        }
        memory.error_bound = (4.0 * error).max(1.0);
        memory.propose(j, error, h.to_f64(), sequence);
        Ok(error)
    }

    /// `1/scaleᵢ` at the step's start, for the norms of its lines; a zero scale (a
    /// coordinate that is zero with a zero absolute tolerance) is refused, as Radau5
    /// refuses it: every error there would be infinitely large.
    pub(super) fn set_weights(&mut self, scale: impl Fn(usize) -> f64) -> Result<(), StepError> {
        let weights = self.weights.as_mut().map_err(|e| *e)?;
        for (i, weight) in weights.iter_mut().enumerate() {
            let scale = scale(i);
            if scale <= 0.0 {
                return Err(StepError::ZeroScale { coordinate: i });
            }
            *weight = 1.0 / scale;
        }
        Ok(())
    }
}
