//! SEULEX as an [`AdaptiveMethod`]: seulex.f's step (`SEUCOR`) split into the driver's
//! calls. An attempt computes lines of the extrapolation table until one meets the
//! tolerance or the convergence monitor gives up, and decides the next order and step
//! itself ([`AdaptiveMethod::decide`]).

use super::Seulex;
use super::control::{Memory, initial_order};
use super::dense;
use super::sequence::{MAX_COLUMNS, Table};
use super::workspace::{LineFailure, SeulexWorkspace};
use crate::control::{AdaptiveMethod, Decision, ErrorNorm, IntoAdaptive, Statistics, ToleranceSet};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::One;

/// How an attempt ended.
enum Verdict {
    /// The last line met the tolerance, with this error.
    Accept(f64),
    /// The convergence monitor rejected the step, at this error.
    Reject(f64),
}

/// One attempt's fixed context: what every line of it needs.
struct Attempt<'a, S: State, F: ?Sized> {
    method: &'a Seulex,
    sequence: &'a Table,
    state: &'a S,
    forces: &'a F,
    t: S::Scalar,
    h: S::Scalar,
    statistics: &'a mut Statistics,
}

impl<S: State, F: Forces<S> + ?Sized> Attempt<'_, S, F> {
    /// Line `j` of the table, with its cost counted; records it as the last line computed.
    fn line(&mut self, workspace: &mut SeulexWorkspace<S>, j: usize) -> Result<f64, LineFailure> {
        workspace.memory.lines = j;
        workspace.line(
            j,
            self.sequence,
            self.method.autonomous,
            self.state,
            self.forces,
            self.t,
            self.h,
            &mut self.statistics.evaluations,
            &mut self.statistics.decompositions,
        )
    }

    /// The lines of a first or last step (seulex.f): up to the order, accepting the first
    /// line from the second on that meets the tolerance; then one more if it can.
    fn careful(&mut self, workspace: &mut SeulexWorkspace<S>) -> Result<Verdict, LineFailure> {
        let k = workspace.memory.order;
        let mut error = 0.0;
        for j in 1..=k {
            error = self.line(workspace, j)?;
            if j > 1 && error <= 1.0 {
                return Ok(Verdict::Accept(error));
            }
        }
        self.one_more(workspace, error)
    }

    /// The lines of any other step, with seulex.f's convergence monitor: lines up to
    /// `k − 1`, accepted there if the error allows; rejected at once if the error is too
    /// large for line `k + 1` to meet the tolerance; else line `k`, and maybe `k + 1`.
    fn basic(&mut self, workspace: &mut SeulexWorkspace<S>) -> Result<Verdict, LineFailure> {
        let k = workspace.memory.order;
        let mut error = 0.0;
        for j in 1..k {
            error = self.line(workspace, j)?;
        }
        if k != 2 && !workspace.memory.reject {
            if error <= 1.0 {
                return Ok(Verdict::Accept(error));
            }
            if error > 4.0 * self.sequence.n(k + 1) * self.sequence.n(k) {
                return Ok(Verdict::Reject(error));
            }
        }
        let error = self.line(workspace, k)?;
        if error <= 1.0 {
            return Ok(Verdict::Accept(error));
        }
        self.one_more(workspace, error)
    }

    /// "Hope for convergence in line k + 1" (seulex.f), if the error of line `k` leaves
    /// any.
    fn one_more(
        &mut self,
        workspace: &mut SeulexWorkspace<S>,
        error: f64,
    ) -> Result<Verdict, LineFailure> {
        let k = workspace.memory.order;
        if error > 2.0 * self.sequence.n(k + 1) {
            return Ok(Verdict::Reject(error));
        }
        let error = self.line(workspace, k + 1)?;
        Ok(if error > 1.0 {
            Verdict::Reject(error)
        } else {
            Verdict::Accept(error)
        })
    }
}

/// The step numbers and works of each sequence.
static FROM_ONE: Table = Table::new(super::StepSequence::FromOne);
static FROM_TWO: Table = Table::new(super::StepSequence::FromTwo);

impl Seulex {
    /// The step numbers and works of this method's sequence.
    pub(crate) fn table(&self) -> &'static Table {
        match self.sequence {
            super::StepSequence::FromOne => &FROM_ONE,
            super::StepSequence::FromTwo => &FROM_TWO,
        }
    }
}

impl<S: State> AdaptiveMethod<S> for Seulex {
    type Workspace = SeulexWorkspace<S>;

    fn workspace(&self, state: &S) -> SeulexWorkspace<S> {
        SeulexWorkspace::new(state, self.structure)
    }

    /// 4, for the driver's guess of a first step only: the order changes from step to
    /// step (from 2 to 12), and SEULEX chooses its steps itself.
    fn error_order(&self) -> u32 {
        4
    }

    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut SeulexWorkspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.rate);
        workspace.rate_fresh = true;
        statistics.evaluations += 1;
        workspace.memory = Memory::new();
    }

    fn start_rate<'w>(&self, workspace: &'w SeulexWorkspace<S>) -> &'w DerivativeOf<S> {
        &workspace.rate
    }

    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut SeulexWorkspace<S>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let h64 = h.to_f64();
        if !h64.is_finite() {
            halve(&mut workspace.memory, h64);
            return Ok(f64::NAN);
        }
        // seulex.f measures every line against the size of the step's start.
        let norm = ErrorNorm::new(tolerances, state, state);
        if let Err(cause) = workspace.set_weights(|i| norm.scale(i)) {
            halve(&mut workspace.memory, h64);
            return Err(cause);
        }
        let (relative, absolute) = (tolerances.relative_at(0), tolerances.absolute_at(0));
        let memory = &mut workspace.memory;
        if memory.order == 0 {
            memory.order = initial_order(relative, absolute);
        }
        // seulex.f's `THET`: the Jacobian is kept while the stability check's ratio is
        // below this.
        let keep_jacobian = relative.min(1e-4);
        let careful = if memory.retry_lines {
            // Rejected on its error, with the Jacobian of this start: straight to the
            // lines (seulex.f's `GOTO 30`).
            memory.retry_lines = false;
            false
        } else {
            if memory.reject {
                memory.theta = 2.0 * keep_jacobian;
            }
            // A step other than the one asked for was cut to land on the run's end.
            if !memory.first && h64 != memory.asked {
                memory.last = true;
            }
            if self.autonomous {
                statistics.evaluations += workspace.start_rate(state, forces, t);
            }
            let memory = &mut workspace.memory;
            if memory.theta > keep_jacobian && !memory.jacobian_fresh {
                statistics.jacobians += 1;
                match workspace.evaluate_jacobian(state, forces, t, h) {
                    Ok(evaluations) => statistics.evaluations += evaluations,
                    Err(cause) => {
                        halve(&mut workspace.memory, h64);
                        return Err(cause);
                    }
                }
                workspace.memory.jacobian_fresh = true;
            }
            workspace.memory.first || workspace.memory.last
        };
        workspace.memory.first = false;

        let mut attempt = Attempt {
            method: self,
            sequence: self.table(),
            state,
            forces,
            t,
            h,
            statistics,
        };
        let verdict = if careful {
            attempt.careful(workspace)
        } else {
            attempt.basic(workspace)
        };
        let memory = &mut workspace.memory;
        match verdict {
            Ok(Verdict::Accept(error)) => {
                end.clone_from(state);
                end.advance(&workspace.table[0], S::Scalar::one());
                // An end that overflowed, which an error measured against the start's
                // scale leaves unseen: retried shorter, as a step whose forces were not
                // finite.
                if end.coordinates_into(&mut workspace.coordinates)
                    && !workspace.coordinates.is_finite()
                {
                    halve(&mut workspace.memory, h64);
                    return Ok(f64::NAN);
                }
                let memory = &mut workspace.memory;
                let factor = memory.accept(h64, self.table());
                memory.asked = h64 * factor;
                Ok(error)
            }
            Ok(Verdict::Reject(error)) => {
                let factor = memory.reject(h64);
                memory.asked = h64 * factor;
                Ok(error)
            }
            Err(failure) => {
                halve(memory, h64);
                match failure {
                    LineFailure::Step(cause) => Err(cause),
                    LineFailure::Unstable(ratio) if ratio.is_nan() => Ok(ratio),
                    LineFailure::Unstable(_) => Ok(f64::MAX),
                }
            }
        }
    }

    /// SEULEX's own decision, made by the attempt: accepted or not, and the next step
    /// from the order controller (the run's [`Controller`](crate::control::Controller) is
    /// not used).
    fn decide(&self, workspace: &mut SeulexWorkspace<S>, _error: f64) -> Option<Decision> {
        Some(workspace.memory.decision)
    }

    fn accept<F: Forces<S> + ?Sized>(
        &self,
        _workspace: &mut SeulexWorkspace<S>,
        _start: &S,
        _end: &S,
        _forces: &F,
        _t: S::Scalar,
        _h: S::Scalar,
        _dense: bool,
        _statistics: &mut Statistics,
    ) {
        // Nothing to evaluate: the next step's start rate is taken when it is needed (a
        // Jacobian by differences, autonomous forces), the dense output is made of the
        // lines' increments.
    }

    fn prepare_dense<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut SeulexWorkspace<S>,
        _start: &S,
        _forces: &F,
        _t: S::Scalar,
        _h: S::Scalar,
        _statistics: &mut Statistics,
    ) {
        let SeulexWorkspace {
            table,
            kept,
            derivatives,
            coefficients,
            memory,
            ..
        } = workspace;
        dense::coefficients(
            memory.lines,
            self.table(),
            &table[0],
            kept,
            derivatives,
            coefficients,
        );
    }

    fn dense(
        &self,
        workspace: &mut SeulexWorkspace<S>,
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let lines = workspace.memory.lines;
        dense::evaluate(
            &workspace.coefficients,
            lines,
            &mut workspace.sum,
            start,
            theta,
            out,
        );
    }

    /// The dense output's coefficients and their number.
    type Interpolant = ([DerivativeOf<S>; MAX_COLUMNS], usize);

    fn interpolant(&self, workspace: &SeulexWorkspace<S>) -> Self::Interpolant {
        (workspace.coefficients.clone(), workspace.memory.lines)
    }

    fn interpolate(
        &self,
        (coefficients, lines): &Self::Interpolant,
        start: &S,
        _h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let mut sum = coefficients[0].zero_like();
        dense::evaluate(coefficients, *lines, &mut sum, start, theta, out);
    }

    fn step_on(&self, workspace: &mut SeulexWorkspace<S>) {
        workspace.rate_fresh = false;
    }
}

/// A line failed: retry at half the step.
fn halve(memory: &mut Memory, h: f64) {
    let factor = memory.halve();
    memory.asked = h * factor;
}

impl IntoAdaptive for Seulex {
    type Method = Self;

    fn into_adaptive(self) -> Self {
        self
    }
}
