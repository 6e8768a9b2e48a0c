//! Radau5 as an [`AdaptiveMethod`]: radau5.f's step (`RADCOR`) split into the driver's
//! calls, with its Newton control, Jacobian reuse, error estimate and step-size control.

use super::Radau5;
use super::coefficients::nodes;
use super::memory::{Memory, Outcome};
use super::workspace::Radau5Workspace;
use super::workspace::collocation_dense;
use crate::control::{AdaptiveMethod, Decision, ErrorNorm, IntoAdaptive, Statistics, ToleranceSet};
use crate::integrators::implicit::contraction::Verdict;
use crate::integrators::implicit::mass::{self, HigherIndex};
use crate::math;
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// radau5.f's `SAFE`.
const SAFETY: f64 = 0.9;

/// radau5.f's `1/FACR`: a step grows at most eightfold.
const MAX_GROWTH: f64 = 8.0;

/// radau5.f's `FACL`: a step shrinks at most fivefold (on an error rejection).
const MAX_SHRINK: f64 = 5.0;

/// radau5.f's `QUOT1`, `QUOT2`: a new step within this range of the last is not taken,
/// and the last one (with its factorisation) is kept.
const KEEP_STEP: (f64, f64) = (1.0, 1.2);

/// The Newton tolerance radau5.f derives from the relative tolerance `rtol` it was given:
/// `max(10 ε / rtol', min(0.03, √rtol'))` with `rtol' = rtol^(2/3) / 10`.
pub(super) fn default_newton_tolerance(rtol: f64, epsilon: f64) -> f64 {
    let tightened = 0.1 * math::powf(rtol, 2.0 / 3.0);
    (10.0 * epsilon / tightened).max(0.03_f64.min(tightened.sqrt()))
}

impl<S: State> AdaptiveMethod<S> for Radau5 {
    type Workspace = Radau5Workspace<S>;

    fn workspace(&self, state: &S) -> Radau5Workspace<S> {
        Radau5Workspace::new(state, self.structure())
    }

    /// 3: the error estimate is `O(h⁴)`.
    fn error_order(&self) -> u32 {
        3
    }

    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.start_rate);
        statistics.evaluations += 1;
        workspace.memory = Memory::new();
    }

    fn start_rate<'w>(&self, workspace: &'w Radau5Workspace<S>) -> &'w DerivativeOf<S> {
        &workspace.start_rate
    }

    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let h64 = h.to_f64();
        workspace.memory.h = h64;
        if !workspace.start_rate.is_finite() {
            return Ok(f64::INFINITY);
        }
        // radau5.f measures the error against its tightened tolerances
        // rtol' = rtol^(2/3)/10, atol' = atol·rtol'/rtol, and the size of the step's start.
        let norm = ErrorNorm::new(tolerances, state, state);
        let n = workspace.dim();
        let epsilon = S::Scalar::epsilon().to_f64();
        let mut tightening = workspace.memory.tightening;
        // Matrices that could not be made (too large dense, no `alloc`, sparse without
        // the feature) are a structural error, which stops the run, not a NaN estimate.
        let linear = workspace.linear()?;
        for i in 0..n {
            let relative = tolerances.relative_at(i);
            let r = if relative > 0.0 {
                relative
            } else {
                tolerances.absolute_at(i)
            };
            if r != tightening.0 {
                tightening = (r, 0.1 * math::powf(r, -1.0 / 3.0));
            }
            // radau5.f's Newton test and error estimate divide by the start's scales: a
            // purely relative tolerance on a zero coordinate leaves nothing to divide by.
            let scale = S::Scalar::from_f64(tightening.1 * norm.scale(i));
            if scale <= S::Scalar::zero() {
                return Err(StepError::ZeroScale { coordinate: i });
            }
            linear.scale[i] = scale;
        }
        // The errors of index-2 and index-3 unknowns weigh h and h² times less
        // (radau5.f's `SCAL(I)/HHFAC`).
        let HigherIndex { index2, index3 } = self.higher_index;
        for i in index2.min(n)..n {
            let power = if i >= index3 { 2 } else { 1 };
            linear.scale[i] = linear.scale[i] / math::powi(h.abs(), power);
        }
        workspace.memory.tightening = tightening;
        let first_relative = match tolerances.relative_at(0) {
            r if r > 0.0 => r,
            _ => tolerances.absolute_at(0),
        };
        let fnewt = match self.tolerance() {
            Some(tolerance) => tolerance,
            None => {
                let kept = &mut workspace.memory.newton_tolerance;
                if kept.0 != first_relative {
                    *kept = (
                        first_relative,
                        default_newton_tolerance(first_relative, epsilon),
                    );
                }
                kept.1
            }
        };

        // The mass matrix is read with the first Jacobian; a workspace loaded from a saved
        // run does not keep it, and may go on with its saved Jacobian: read it here too.
        if let Err(cause) = workspace.read_mass(state, forces) {
            return self.fail(workspace, 0.5, cause);
        }
        let memory = &mut workspace.memory;
        if memory.wants_jacobian && !memory.jacobian_fresh {
            workspace.read_coordinates(state);
            match workspace.evaluate_jacobian(state, forces, t, false) {
                Ok(evaluations) => statistics.evaluations += evaluations,
                // The matrices could not be made, or the band does not fit: no shorter
                // step helps.
                Err(cause) => return self.fail(workspace, 0.5, cause),
            }
            statistics.jacobians += 1;
            let memory = &mut workspace.memory;
            memory.jacobian_fresh = true;
            memory.wants_jacobian = false;
            memory.factored = None;
        }
        if workspace.memory.check_start {
            workspace.memory.check_start = false;
            let higher = self.higher_index.within(n);
            if let Some(cause) = inconsistency(workspace, &norm, higher) {
                return self.fail(workspace, 0.5, cause);
            }
            // The real matrix held the algebraic equations' Newton matrix.
            workspace.memory.factored = None;
        }
        if workspace.memory.factored != Some(h64) {
            statistics.decompositions += 1;
            match workspace.factor(h) {
                Ok(()) => workspace.memory.factored = Some(h64),
                Err(StepError::NonFiniteJacobian) => return Ok(f64::INFINITY),
                Err(cause) => return self.fail(workspace, 0.5, cause),
            }
        }
        if workspace.memory.has_polynomial {
            let h_old = workspace.memory.h_old;
            workspace.extrapolated_start(h64, h_old);
        } else {
            workspace.zero_start();
        }

        // The simplified Newton iteration, with radau5.f's convergence control.
        let nit = self.max_iterations();
        workspace.memory.contraction.start_step(epsilon);
        let mut newt = 0;
        loop {
            if newt >= nit {
                let last = workspace.memory.contraction.dynold;
                return self.fail(workspace, 0.5, not_converged(newt, last));
            }
            let dyno = workspace.newton_iteration(state, forces, t, h);
            statistics.evaluations += 3;
            newt += 1;
            if !dyno.is_finite() {
                return self.fail(workspace, 0.5, StepError::NonFiniteResidual);
            }
            let contraction = &mut workspace.memory.contraction;
            match contraction.observe(newt, dyno, nit, fnewt) {
                Verdict::Converged => break,
                Verdict::Continue => {}
                // Converging, but not within the iterations left: retry shorter, by as
                // much as the contraction says.
                Verdict::TooSlow { shrink } => {
                    return self.fail(workspace, shrink, not_converged(newt, dyno));
                }
                Verdict::Diverged => {
                    let diverged = StepError::Diverged {
                        iterations: newt,
                        contraction: contraction.theta,
                    };
                    return self.fail(workspace, 0.5, diverged);
                }
            }
        }
        workspace.memory.iterations = newt;
        let second = workspace.memory.first || workspace.memory.reject;
        let (error, evaluations) = workspace.error_estimate(state, forces, t, h, second);
        statistics.evaluations += evaluations;
        workspace.memory.outcome = Outcome::Estimated(error);
        end.clone_from(state);
        end.advance(&workspace.z[2], S::Scalar::one());
        Ok(error)
    }

    fn decide(&self, workspace: &mut Radau5Workspace<S>, _error: f64) -> Option<Decision> {
        let memory = &mut workspace.memory;
        let error = match memory.outcome {
            Outcome::Failed(factor) => {
                memory.reject = true;
                memory.wants_jacobian = !memory.jacobian_fresh;
                return Some(Decision {
                    accept: false,
                    factor,
                });
            }
            Outcome::Estimated(error) => error,
        };
        let nit = self.max_iterations() as f64;
        let fac = SAFETY.min(SAFETY * (1.0 + 2.0 * nit) / (memory.iterations as f64 + 2.0 * nit));
        let mut quot = (math::powf(error, 0.25) / fac).clamp(1.0 / MAX_GROWTH, MAX_SHRINK);
        if error < 1.0 {
            memory.first = false;
            memory.accepted += 1;
            if memory.accepted > 1 {
                // Gustafsson's predictive controller (Hairer–Wanner II, IV.8, (8.25)).
                let predicted = (memory.h_accepted / memory.h)
                    * math::powf(error * error / memory.error_accepted, 0.25)
                    / SAFETY;
                quot = quot.max(predicted.clamp(1.0 / MAX_GROWTH, MAX_SHRINK));
            }
            memory.h_accepted = memory.h;
            memory.error_accepted = error.max(1e-2);
            let mut factor = 1.0 / quot;
            if memory.reject {
                factor = factor.min(1.0);
            }
            memory.reject = false;
            let keep = memory.contraction.keeps_jacobian()
                && (KEEP_STEP.0..=KEEP_STEP.1).contains(&factor);
            if keep {
                factor = 1.0;
            }
            memory.wants_jacobian = !memory.contraction.keeps_jacobian();
            Some(Decision {
                accept: true,
                factor,
            })
        } else {
            let factor = if memory.first { 0.1 } else { 1.0 / quot };
            memory.reject = true;
            memory.wants_jacobian = !memory.jacobian_fresh;
            Some(Decision {
                accept: false,
                factor,
            })
        }
    }

    fn accept<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        _start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        _dense: bool,
        statistics: &mut Statistics,
    ) {
        // The polynomial is needed for the next step's Newton start, dense or not.
        workspace.keep_polynomial();
        end.derivative_into(forces, t + h, &mut workspace.end_rate);
        statistics.evaluations += 1;
    }

    fn dense(
        &self,
        workspace: &mut Radau5Workspace<S>,
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        workspace.dense(start, theta, out);
    }

    /// The last stage's increment `Z₃` and the collocation polynomial's coefficients.
    type Interpolant = [DerivativeOf<S>; 4];

    fn interpolant(&self, workspace: &Radau5Workspace<S>) -> [DerivativeOf<S>; 4] {
        let [p1, p2, p3] = workspace.polynomial.clone();
        [workspace.z[2].clone(), p1, p2, p3]
    }

    fn interpolate(
        &self,
        [z3, p1, p2, p3]: &[DerivativeOf<S>; 4],
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let mut scratch = z3.zero_like();
        collocation_dense(nodes(), [p1, p2, p3], z3, &mut scratch, start, theta, out);
    }

    /// A differential-algebraic system's algebraic unknowns (of index 1) completed at an
    /// event's state, which the collocation polynomial gives with the algebraic equations
    /// unsatisfied between its nodes ([`Radau5::consistent_start`]'s Newton iteration).
    fn settle<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        statistics.evaluations += self.settle_algebraic(workspace, state, forces, t);
    }

    fn step_on(&self, workspace: &mut Radau5Workspace<S>) {
        core::mem::swap(&mut workspace.start_rate, &mut workspace.end_rate);
        let memory = &mut workspace.memory;
        memory.h_old = memory.h;
        memory.has_polynomial = true;
        memory.jacobian_fresh = false;
    }
}

impl Radau5 {
    /// Records a failed attempt, to be retried with the step times `factor`.
    fn fail<S: State>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        factor: f64,
        cause: StepError,
    ) -> Result<f64, StepError> {
        workspace.memory.outcome = Outcome::Failed(factor);
        workspace.memory.iterations = match cause {
            StepError::NotConverged { iterations, .. } | StepError::Diverged { iterations, .. } => {
                iterations
            }
            _ => 0,
        };
        Err(cause)
    }
}

/// Why the run's start does not satisfy the algebraic equations of `M y' = f(t, y)`
/// (within the tolerances of `norm`), or `None`: one Newton step on those equations, at
/// the start's Jacobian, moves no algebraic unknown by more than its tolerance. With
/// unknowns declared of index 2 or 3 (`higher`), whose algebraic equations do not
/// determine them, the equations' residuals are judged instead
/// ([`mass::residual_inconsistency`]). An undeclared start whose algebraic equations do
/// not determine the algebraic unknowns (the matrix is singular) is not checked, and
/// neither is one where the step is not finite (the attempt then reports it).
fn inconsistency<S: State, T: ToleranceSet>(
    workspace: &mut Radau5Workspace<S>,
    norm: &ErrorNorm<'_, S, T>,
    higher: bool,
) -> Option<StepError> {
    if higher {
        return workspace.residual_inconsistency(|i| norm.scale(i));
    }
    if !matches!(workspace.algebraic_correction(), Ok(true)) {
        return None;
    }
    mass::inconsistency(workspace.dim(), |i| {
        workspace.correction(i).to_f64().abs() / norm.scale(i)
    })
}

/// A Newton iteration that stopped after `iterations` with a last correction of
/// `correction` (in the scaled norm).
fn not_converged(iterations: usize, correction: f64) -> StepError {
    StepError::NotConverged {
        iterations,
        correction,
    }
}

impl IntoAdaptive for Radau5 {
    type Method = Self;

    fn into_adaptive(self) -> Self {
        self
    }
}
