//! The BDF as an [`AdaptiveMethod`]: CVODE's `cvStep` split into the driver's calls. An
//! attempt brings the Nordsieck array to the step (a pending order change, the step's
//! size), predicts, corrects by Newton's method, tests the local error and, accepted,
//! moves the history on and chooses the next order and step
//! ([`AdaptiveMethod::decide`]).

use super::Bdf;
use super::coefficients::MAX_ORDER;
use super::control::Previous;
use super::workspace::BdfWorkspace;
use crate::control::{AdaptiveMethod, Decision, ErrorNorm, IntoAdaptive, Statistics, ToleranceSet};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::One;

impl<S: State> AdaptiveMethod<S> for Bdf {
    type Workspace = BdfWorkspace<S>;

    fn workspace(&self, state: &S) -> BdfWorkspace<S> {
        BdfWorkspace::new(state, self.structure, self.max_order(), self.linear_solver)
    }

    /// 1, for the driver's guess of a first step only: a run starts at order 1, and the
    /// BDF chooses its orders and steps itself.
    fn error_order(&self) -> u32 {
        1
    }

    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut BdfWorkspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.rate);
        statistics.evaluations += 1;
        workspace.memory = super::control::Memory::new(self.max_order());
        workspace.tape.begin();
    }

    fn start_rate<'w>(&self, workspace: &'w BdfWorkspace<S>) -> &'w DerivativeOf<S> {
        &workspace.rate
    }

    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut BdfWorkspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let h64 = h.to_f64();
        let norm = ErrorNorm::new(tolerances, state, state);
        if let Err(cause) = workspace.set_weights(|i| norm.scale(i), h64, self.index_two()) {
            workspace.memory.convergence_failure();
            return Err(cause);
        }
        // The mass matrix is read once per workspace (again after loading a saved one,
        // which does not keep it), the start checked once per run.
        let mut checked = workspace.read_mass(forces, state);
        let settled = core::mem::take(&mut workspace.settled);
        if checked.is_ok() && !workspace.memory.started && !settled {
            checked = workspace.check_start(state, forces, t, h, |i| norm.scale(i), statistics);
        }
        if let Err(cause) = checked {
            workspace.memory.convergence_failure();
            return Err(cause);
        }
        prepare_history(workspace, state, forces, t, h, statistics);
        workspace.predict();
        let gamma_ratio = workspace.memory.set_formula(h64);
        let corrected = workspace.correct(state, forces, t + h, h, gamma_ratio, statistics);
        let size = match corrected {
            Ok(size) if size.is_finite() => size,
            Ok(_) => {
                workspace.memory.convergence_failure();
                return Err(StepError::NonFiniteResidual);
            }
            Err(cause) => {
                workspace.memory.convergence_failure();
                return Err(cause);
            }
        };
        // The error test leaves the index-2 unknowns out (the same norm without any).
        let size = if workspace.index_two < workspace.rate.dim() {
            workspace.error_norm(&workspace.correction)?
        } else {
            size
        };
        let error = size * workspace.memory.formula.tq[2];
        if error > 1.0 {
            let q = workspace.memory.order;
            if workspace.memory.error_failure(error) {
                workspace.lower_order(q);
            }
            return Ok(error);
        }
        // Accepted: the corrected array becomes the history.
        let q = workspace.memory.order;
        let save = workspace.memory.complete(h64);
        if save {
            workspace.saved.assign(&workspace.correction);
        }
        let l = workspace.memory.formula.l;
        for (j, column) in workspace.predicted[..=q].iter_mut().enumerate() {
            column.add_scaled_assign(&workspace.correction, S::Scalar::from_f64(l[j]));
        }
        core::mem::swap(&mut workspace.z, &mut workspace.predicted);
        end.clone_from(state);
        end.advance(&workspace.z[0], S::Scalar::one());
        if end.coordinates_into(&mut workspace.coordinates) && !workspace.coordinates.is_finite() {
            workspace.memory.convergence_failure();
            return Err(StepError::NonFiniteResidual);
        }
        let count = workspace.index_two;
        let BdfWorkspace {
            z,
            correction,
            saved,
            residual,
            weights,
            memory,
            ..
        } = workspace;
        let weights = weights.as_ref().map_err(|e| *e)?;
        let rises = memory.accepted(
            error,
            || BdfWorkspace::<S>::norm_of_first(weights, &z[q], count),
            |factor| {
                residual.assign(correction);
                residual.add_scaled_assign(saved, S::Scalar::from_f64(-factor));
                Some(BdfWorkspace::<S>::norm_of_first(weights, residual, count))
            },
            h64,
        );
        if rises {
            workspace.saved.assign(&workspace.correction);
        }
        workspace.tape.accept(save || rises);
        Ok(error)
    }

    /// The BDF's own decision, made by the attempt (CVODE's step and order selection;
    /// the run's [`Controller`](crate::control::Controller) is not used).
    fn decide(&self, workspace: &mut BdfWorkspace<S>, _error: f64) -> Option<Decision> {
        Some(workspace.memory.decision)
    }

    fn accept<F: Forces<S> + ?Sized>(
        &self,
        _workspace: &mut BdfWorkspace<S>,
        _start: &S,
        _end: &S,
        _forces: &F,
        _t: S::Scalar,
        _h: S::Scalar,
        _dense: bool,
        _statistics: &mut Statistics,
    ) {
        // Nothing to evaluate: the attempt moved the history on, and the dense output is
        // the Nordsieck array.
    }

    fn dense(
        &self,
        workspace: &mut BdfWorkspace<S>,
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let q = workspace.memory.order;
        evaluate(&workspace.z, q, &mut workspace.increment, start, theta, out);
    }

    /// The Nordsieck array of the step (slot 0 its increment) and its order.
    type Interpolant = ([DerivativeOf<S>; MAX_ORDER + 1], usize);

    fn interpolant(&self, workspace: &BdfWorkspace<S>) -> Self::Interpolant {
        (workspace.z.clone(), workspace.memory.order)
    }

    fn interpolate(
        &self,
        (z, q): &Self::Interpolant,
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let mut sum = z[0].zero_like();
        evaluate(z, *q, &mut sum, start, theta, out);
    }

    /// A run cut at an event goes on from the dense output, whose algebraic unknowns are
    /// off their equations by the interpolant's error: no second start check (the
    /// corrector solves them again at the next step's end).
    fn settle<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut BdfWorkspace<S>,
        _state: &mut S,
        _forces: &F,
        _t: S::Scalar,
        _statistics: &mut Statistics,
    ) {
        workspace.settled = true;
    }

    fn step_on(&self, _workspace: &mut BdfWorkspace<S>) {}

    /// `true`: an event that only reports leaves the BDF's history whole.
    fn steps_through_events(&self) -> bool {
        true
    }
}

/// Brings the Nordsieck array to a step of `h` from `state` at `t`: set up from the start's
/// rate at the first attempt of a run (`z₁ = h f(t₀, y₀)`) or after repeated failures at
/// order 1; otherwise the order change chosen at the last accepted step, then the
/// rescaling to `h` (CVODE's `cvAdjustParams`).
fn prepare_history<S: State, F: Forces<S> + ?Sized>(
    workspace: &mut BdfWorkspace<S>,
    state: &S,
    forces: &F,
    t: S::Scalar,
    h: S::Scalar,
    statistics: &mut Statistics,
) {
    let h64 = h.to_f64();
    let memory = &mut workspace.memory;
    if !memory.started || memory.reload {
        if memory.reload {
            state.derivative_into(forces, t, &mut workspace.rate);
            statistics.evaluations += 1;
        }
        memory.started = true;
        memory.reload = false;
        memory.order = 1;
        memory.next_order = 1;
        workspace.tape.restart();
        workspace.z[1].assign(&workspace.rate);
        workspace.z[1].scale_assign(h);
        memory.h = h64;
        return;
    }
    if memory.previous == Previous::Accepted && memory.next_order != memory.order {
        let q = memory.order;
        if memory.next_order > q {
            workspace.raise_order();
        } else {
            workspace.lower_order(q);
        }
        let memory = &mut workspace.memory;
        memory.order = memory.next_order;
        memory.wait = memory.order + 1;
    }
    if h64 != workspace.memory.h {
        workspace.rescale(S::Scalar::from_f64(h64 / workspace.memory.h));
        workspace.memory.h = h64;
    }
}

/// `start + z₀ + Σⱼ zⱼ (θ − 1)ʲ`: the Nordsieck polynomial at the fraction `theta` of the
/// step that ends where it is centred (CVODE's `CVodeGetDky` with `k = 0`), `sum` a
/// scratch rate.
fn evaluate<S: State>(
    z: &[DerivativeOf<S>; MAX_ORDER + 1],
    q: usize,
    sum: &mut DerivativeOf<S>,
    start: &S,
    theta: f64,
    out: &mut S,
) {
    let s = S::Scalar::from_f64(theta - 1.0);
    sum.assign(&z[0]);
    let mut power = S::Scalar::one();
    for column in &z[1..=q] {
        power = power * s;
        sum.add_scaled_assign(column, power);
    }
    out.clone_from(start);
    out.advance(sum, S::Scalar::one());
}

impl IntoAdaptive for Bdf {
    type Method = Self;

    fn into_adaptive(self) -> Self {
        self
    }
}
