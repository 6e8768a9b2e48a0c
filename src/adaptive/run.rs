//! [`Run`]: a controlled step you own, the unit every adaptive solve is a loop over.

use super::Adaptive;
use super::driver::Workspace;
use super::snapshot::Snapshot;
use super::stiffness::StiffnessTest;
use crate::control::{
    AdaptiveMethod, AnyTolerances, ErrorNorm, Memory, Statistics, Stop, ToleranceSet,
};
use crate::math;
use crate::{AdaptiveError, DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::Float;

/// How many attempts in a row may have a non-finite error estimate, each retried shorter,
/// before the run stops with [`AdaptiveError::NonFiniteError`].
const MAX_NON_FINITE: u32 = 10;

/// What one [`Run::try_step`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Attempt {
    /// The step met the tolerance: the state is at its end.
    Accepted,
    /// The step was too long; the state is unchanged and the next attempt is shorter.
    Rejected,
    /// The run was already at its end: nothing was attempted.
    Done,
}

/// An adaptive run under way, stepped by you: each [`step`](Run::step) is one accepted
/// step under error control (each [`try_step`](Run::try_step) one attempt, accepted or
/// rejected, as Odeint's controlled steppers), between which you may read the state, the
/// dense output of the step just taken ([`state_at`](Run::state_at)), the statistics, and
/// change the state ([`state_mut`](Run::state_mut)). Made by [`Adaptive::start`]; every
/// `solve*` of [`Adaptive`] is a short loop over it.
///
/// # Example
///
/// A game loop's physics under error control: step until the end, printing each step.
///
/// ```
/// use timestep::{Adaptive, Dopri5, Tolerances};
///
/// let decay = |y: &f64, _t: f64| -y;
/// let mut y = 1.0_f64;
/// let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-8, 1e-8));
/// let mut run = solver.start(&mut y, &decay, 0.0, 2.0)?;
/// while run.step()? {
///     let (t, y) = (run.time(), *run.state());
///     assert!((y - (-t).exp()).abs() < 1e-7);
/// }
/// assert_eq!(run.time(), 2.0);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[must_use = "a run does nothing until stepped: call `step` or `try_step`"]
pub struct Run<'a, S: State, M: AdaptiveMethod<S>, F: ?Sized> {
    method: &'a M,
    tolerances: &'a AnyTolerances,
    controller: crate::control::Controller,
    max_steps: u64,
    workspace: &'a mut Workspace<S, M>,
    state: &'a mut S,
    forces: &'a F,
    progress: Progress,
}

/// What a run remembers between steps besides the method's workspace: where it is, the
/// controller's memory, the counters.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub(super) struct Progress {
    /// Where the state is.
    pub(super) t: f64,
    end: f64,
    direction: f64,
    max_step: f64,
    /// The next step to attempt.
    h: f64,
    /// The last accepted step: its start and length (its end is `t`, unless cut).
    step_start: f64,
    step_length: f64,
    /// The method's first stage is the rate at the state (false after `state_mut`).
    started: bool,
    /// An accepted step's end is to become the next step's start
    /// ([`AdaptiveMethod::step_on`]), once its dense output has been read.
    step_on: bool,
    /// Accepted steps evaluate what their dense output needs.
    dense: bool,
    /// The last accepted step's dense output is prepared
    /// ([`AdaptiveMethod::prepare_dense`]): done at its first read.
    dense_ready: bool,
    /// What the controller remembers of the accepted steps.
    memory: Memory,
    after_rejection: bool,
    non_finite: u32,
    /// Why the last attempt failed, if a method could not take it.
    failure: Option<StepError>,
    stiffness: StiffnessTest,
    pub(super) statistics: Statistics,
}

impl Progress {
    /// The saved run's memory under a resuming solver's largest step and stiffness test:
    /// from here on, a step is at most `|max_step|` (the whole span left for `None`, which
    /// bounds every step from here as the whole span did) and the next one too.
    pub(super) fn resumed(mut self, max_step: Option<f64>, stiffness_every: u64) -> Self {
        let left = (self.end - self.t).abs();
        self.max_step = max_step.map_or(left, |h| h.abs().min(left));
        self.h = self.h.abs().min(self.max_step) * self.direction;
        self.stiffness.set_every(stiffness_every);
        self
    }

    /// Whether the times and steps are those of a run (checked on a loaded snapshot): all
    /// finite, the direction ±1, the next step not against it, the largest not negative.
    #[cfg(feature = "serde")]
    pub(super) fn is_valid(&self) -> bool {
        let finite = [
            self.t,
            self.end,
            self.max_step,
            self.h,
            self.step_start,
            self.step_length,
        ]
        .iter()
        .all(|x| x.is_finite());
        finite
            && self.direction.abs() == 1.0
            && self.h * self.direction >= 0.0
            && self.max_step >= 0.0
    }
}

impl<'a, S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized> Run<'a, S, M, F> {
    /// A run of `solver` from `state` at `t0` to `t1`; [`Adaptive::start`] checks the
    /// settings first.
    pub(super) fn new(
        solver: &'a mut Adaptive<S, M>,
        state: &'a mut S,
        forces: &'a F,
        t0: f64,
        t1: f64,
    ) -> Self {
        let span = t1 - t0;
        let direction = if span < 0.0 { -1.0 } else { 1.0 };
        let max_step = solver
            .max_step
            .map_or(span.abs(), |h| h.abs().min(span.abs()));
        let progress = Progress {
            t: t0,
            end: t1,
            direction,
            max_step,
            h: solver
                .initial_step
                .map_or(0.0, |h| h.abs().min(max_step) * direction),
            step_start: t0,
            step_length: 0.0,
            started: false,
            step_on: false,
            dense: false,
            dense_ready: false,
            memory: Memory::INITIAL,
            after_rejection: false,
            non_finite: 0,
            failure: None,
            stiffness: StiffnessTest::new(solver.stiffness_test),
            statistics: Statistics {
                t: t0,
                stop: if t0 == t1 { Stop::End } else { Stop::Running },
                ..Statistics::default()
            },
        };
        Run::with_progress(solver, state, forces, progress)
    }

    /// A run of `solver` from `state`, as far on as `progress` says.
    pub(super) fn with_progress(
        solver: &'a mut Adaptive<S, M>,
        state: &'a mut S,
        forces: &'a F,
        progress: Progress,
    ) -> Self {
        let Adaptive {
            method,
            tolerances,
            controller,
            max_steps,
            workspace,
            ..
        } = solver;
        Run {
            method,
            tolerances,
            controller: *controller,
            max_steps: *max_steps,
            workspace: workspace.get_or_insert_with(|| Workspace::new(method, state)),
            state,
            forces,
            progress,
        }
    }

    /// Saves the run as it is between steps, to [resume](Adaptive::resume) from later:
    /// the state, the method's workspace and the run's memory, cloned.
    #[must_use]
    pub fn snapshot(&self) -> Snapshot<S, M>
    where
        M::Workspace: Clone,
    {
        Snapshot {
            state: self.state.clone(),
            workspace: self.workspace.clone(),
            progress: self.progress.clone(),
            #[cfg(feature = "serde")]
            loaded: None,
        }
    }

    /// Makes every accepted step keep what its dense output needs, so that
    /// [`state_at`](Run::state_at) can be read (some methods need extra evaluations for
    /// it, made at a step's first read and only then: DOP853 three, Verner's pairs three to
    /// nine). Off unless asked for.
    pub fn with_dense_output(mut self) -> Self {
        self.progress.dense = true;
        self
    }

    /// The time of the state.
    #[must_use]
    pub fn time(&self) -> S::Scalar {
        S::Scalar::from_f64(self.progress.t)
    }

    /// The state: after an accepted step, its end.
    #[must_use]
    pub fn state(&self) -> &S {
        self.state
    }

    /// The state, to change (an impulse, a reset). The method's first stage is then
    /// evaluated anew at the next step, and the next step's size kept.
    pub fn state_mut(&mut self) -> &mut S {
        self.progress.started = false;
        self.forget_compensation();
        self.state
    }

    /// The state where the last accepted step began, at
    /// [`previous_time`](Run::previous_time); before the first, the state itself (at the
    /// start, as `previous_time` is).
    ///
    /// # Panics
    ///
    /// After an attempt that was not accepted ([`try_step`](Run::try_step) rejected it,
    /// or it failed with an error): the attempt's candidate took the place of the step's
    /// start, so read it before attempting the next step.
    #[must_use]
    pub fn previous_state(&self) -> &S {
        if self.progress.step_length == 0.0 {
            return self.state;
        }
        self.assert_accepted_last("previous_state", "start");
        &self.workspace.other
    }

    /// When the last accepted step began.
    #[must_use]
    pub fn previous_time(&self) -> S::Scalar {
        S::Scalar::from_f64(self.progress.step_start)
    }

    /// The step the next attempt will try (0 before the first, when it is chosen
    /// automatically).
    #[must_use]
    pub fn next_step(&self) -> S::Scalar {
        S::Scalar::from_f64(self.progress.h)
    }

    /// What the run has cost so far, where it is and (once ended) why it stopped.
    #[must_use]
    pub fn statistics(&self) -> Statistics {
        self.progress.statistics
    }

    /// Whether the run is at its end.
    #[must_use]
    pub fn is_done(&self) -> bool {
        self.progress.statistics.stop != Stop::Running
    }

    /// Writes the state at time `t` of the last accepted step into `out`, from the
    /// method's dense output (accurate to its [order](crate::EmbeddedPair::dense_order));
    /// outside the step it extrapolates. Needs [`with_dense_output`](Run::with_dense_output).
    ///
    /// # Panics
    ///
    /// Without dense output, before the first accepted step, or after a rejected attempt
    /// ([`try_step`](Run::try_step)): that attempt's stages took the place of the
    /// accepted step's, so read the dense output before attempting the next step.
    pub fn state_at(&mut self, t: S::Scalar, out: &mut S) {
        assert!(
            self.progress.dense && self.progress.step_length != 0.0,
            "Run::state_at needs with_dense_output() and an accepted step"
        );
        self.assert_accepted_last("state_at", "dense output");
        self.dense_at(self.theta(t), out);
    }

    /// Panics unless the last attempt was accepted: a rejected or failed one wrote its
    /// candidate and stages over the last accepted step's `what`, which `reader` reads.
    #[track_caller]
    fn assert_accepted_last(&self, reader: &str, what: &str) {
        assert!(
            self.progress.step_on,
            "Run::{reader} after an attempt that was not accepted (after a rejected attempt \
             or an error): the last accepted step's {what} was overwritten by the attempt; \
             read it before the next try_step"
        );
    }

    /// Evaluates what the last accepted step's dense output needs, once.
    fn ready_dense(&mut self) {
        if !self.progress.dense_ready {
            self.progress.dense_ready = true;
            self.method.prepare_dense(
                &mut self.workspace.method,
                &self.workspace.other,
                self.forces,
                S::Scalar::from_f64(self.progress.step_start),
                S::Scalar::from_f64(self.progress.step_length),
                &mut self.progress.statistics,
            );
        }
    }

    /// The dense output at the fraction `theta` of the last accepted step.
    fn dense_at(&mut self, theta: f64, out: &mut S) {
        self.ready_dense();
        self.method.dense(
            &mut self.workspace.method,
            &self.workspace.other,
            S::Scalar::from_f64(self.progress.step_length),
            theta,
            out,
        );
    }

    /// The dense output at the fraction `theta` of the last accepted step, in the run's
    /// buffer for states inside a step.
    pub(super) fn dense_probe(&mut self, theta: f64) -> &S {
        self.ready_dense();
        let Workspace {
            method: stages,
            other,
            probe,
            ..
        } = &mut *self.workspace;
        let h = S::Scalar::from_f64(self.progress.step_length);
        self.method.dense(stages, other, h, theta, probe);
        probe
    }

    /// [`dense_probe`](Run::dense_probe), refused where it is not finite (a state that
    /// gives its coordinates is checked; the step's end was).
    pub(super) fn finite_dense_probe(&mut self, theta: f64) -> Result<&S, AdaptiveError> {
        let t = self.progress.step_start + theta * self.progress.step_length;
        let n = self.workspace.rate.dim();
        let probe = self.dense_probe(theta);
        if probe.has_coordinates() && !(0..n).all(|i| probe.coordinate(i).is_finite()) {
            return Err(AdaptiveError::NonFiniteDenseOutput { t });
        }
        Ok(probe)
    }

    /// The fraction of the last accepted step at which time `t` is.
    pub(super) fn theta(&self, t: S::Scalar) -> f64 {
        (t.to_f64() - self.progress.step_start) / self.progress.step_length
    }

    /// The direction of the run: 1 forwards, −1 backwards.
    pub(super) fn direction(&self) -> f64 {
        self.progress.direction
    }

    /// The last accepted step's interpolant, for a [`Solution`](super::Solution) to keep.
    #[cfg(feature = "alloc")]
    pub(super) fn interpolant(&mut self) -> M::Interpolant {
        self.ready_dense();
        self.method.interpolant(&self.workspace.method)
    }

    /// The method's workspace.
    #[cfg(feature = "alloc")]
    pub(super) fn method_workspace(&self) -> &M::Workspace {
        &self.workspace.method
    }

    /// The method's workspace, to change (an adjoint's record asks it to keep more).
    #[cfg(feature = "alloc")]
    pub(super) fn method_workspace_mut(&mut self) -> &mut M::Workspace {
        &mut self.workspace.method
    }

    /// The last accepted step's full length (more than the state's time less its start
    /// once [`cut`](Run::cut_at) at an event).
    pub(super) fn step_length(&self) -> f64 {
        self.progress.step_length
    }

    pub(super) fn step_start(&self) -> f64 {
        self.progress.step_start
    }

    /// Moves the state back to the fraction `theta` of the last accepted step (an event
    /// there), from where the run goes on; refused, the state left at the step's end,
    /// where the dense output is not finite.
    pub(super) fn cut_at(&mut self, theta: f64) -> Result<(), AdaptiveError> {
        let t = self.progress.step_start + theta * self.progress.step_length;
        self.finite_dense_probe(theta)?;
        core::mem::swap(self.state, &mut self.workspace.probe);
        // A DAE's algebraic unknowns completed: the dense output does not hold them.
        self.method.settle(
            &mut self.workspace.method,
            self.state,
            self.forces,
            S::Scalar::from_f64(t),
            &mut self.progress.statistics,
        );
        self.progress.t = t;
        self.progress.started = false;
        self.forget_compensation();
        self.progress.statistics.t = t;
        self.progress.statistics.stop = Stop::Running;
        Ok(())
    }

    /// A compensated run's state or time was set, not summed: nothing is lost from it.
    fn forget_compensation(&mut self) {
        if let Some(compensation) = &mut self.workspace.compensation {
            compensation.reset();
        }
    }

    /// Whether the method goes on through events that only report
    /// ([`AdaptiveMethod::steps_through_events`]).
    pub(super) fn steps_through_events(&self) -> bool {
        self.method.steps_through_events()
    }

    /// Ends the run where it is, for `stop`.
    pub(super) fn stop(&mut self, stop: Stop) {
        self.progress.statistics.stop = stop;
    }

    /// Attempts steps until one is accepted; `Ok(false)` when the run was already at its
    /// end.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError`] when the run cannot go on (a step too small for the precision of
    /// `t`, a non-finite error estimate, a method's step failing however short, too many
    /// steps): the state is then the last accepted one, at [`time`](Run::time).
    #[inline]
    pub fn step(&mut self) -> Result<bool, AdaptiveError> {
        loop {
            match self.try_step()? {
                Attempt::Accepted => return Ok(true),
                Attempt::Rejected => {}
                Attempt::Done => return Ok(false),
            }
        }
    }

    /// Attempts one step: accepted (the state moves to its end) or rejected (the state
    /// stays, the next attempt is shorter).
    ///
    /// # Errors
    ///
    /// As [`step`](Run::step).
    #[inline]
    pub fn try_step(&mut self) -> Result<Attempt, AdaptiveError> {
        if self.progress.statistics.stop != Stop::Running {
            return Ok(Attempt::Done);
        }
        let Workspace {
            method: stages,
            other,
            probe,
            rate,
            compensation,
        } = &mut *self.workspace;
        let method = self.method;
        let now = S::Scalar::from_f64(self.progress.t);
        if !self.progress.started {
            method.begin(
                stages,
                self.state,
                self.forces,
                now,
                &mut self.progress.statistics,
            );
            self.progress.started = true;
        } else if self.progress.step_on {
            method.step_on(stages);
        }
        self.progress.step_on = false;
        if self.progress.h == 0.0 {
            self.progress.statistics.evaluations += 1;
            self.progress.h = initial_step(
                self.state,
                self.forces,
                now,
                self.progress.direction,
                self.progress.max_step,
                method.error_order() + 1,
                method.start_rate(stages),
                self.tolerances,
                probe,
                rate,
            );
        }
        let (t, end, direction) = (self.progress.t, self.progress.end, self.progress.direction);
        let mut h = self.progress.h;
        if self.progress.statistics.steps() >= self.max_steps {
            return Err(AdaptiveError::TooManySteps {
                t,
                steps: self.max_steps,
            });
        }
        // The second test for a step within a few ulps of `t`, whose 1 % the first rounds
        // away.
        let last = (t + 1.01 * h - end) * direction > 0.0 || (h - (end - t)) * direction >= 0.0;
        // A step that lands on the end is taken however short: a span of a few ulps of `t`
        // is one step, not a step too small (once rejected, the next attempt is shorter
        // than the span, and checked).
        if !last && (0.1 * h.abs() <= t.abs() * S::Scalar::epsilon().to_f64() || h == 0.0) {
            return Err(match self.progress.failure {
                // Shrunk to nothing by failed attempts: their cause is the run's.
                Some(cause) => AdaptiveError::StepFailed { t, h, cause },
                None if self.progress.non_finite > 0 => AdaptiveError::NonFiniteError { t, h },
                None => AdaptiveError::StepTooSmall { t, h },
            });
        }
        if last {
            h = end - t;
        }
        let (t_s, h_s) = (S::Scalar::from_f64(t), S::Scalar::from_f64(h));
        let attempt = method.attempt(
            stages,
            self.state,
            self.forces,
            t_s,
            h_s,
            self.tolerances,
            other,
            &mut self.progress.statistics,
        );
        // A step so long that the state overflows on the way (an implicit method's first
        // guess on a stiff problem) is retried shorter, as one far over the tolerance;
        // forces that are not finite however short the step stop the run. A step the
        // method could not take is retried shorter too.
        let error = match attempt {
            Ok(error) if error.is_finite() => {
                self.progress.non_finite = 0;
                self.progress.failure = None;
                error
            }
            // Non-finite forces met inside the step, by an implicit method's iteration.
            Ok(_) | Err(StepError::NonFiniteResidual | StepError::NonFiniteJacobian) => {
                self.progress.non_finite += 1;
                if self.progress.non_finite > MAX_NON_FINITE {
                    return Err(AdaptiveError::NonFiniteError { t, h });
                }
                f64::MAX
            }
            // Matrices that cannot be made, a band that does not fit: no shorter step
            // helps.
            Err(cause) if cause.is_structural() => {
                return Err(AdaptiveError::StepFailed { t, h, cause });
            }
            Err(cause) => {
                self.progress.failure = Some(cause);
                f64::MAX
            }
        };
        let decision = match method.decide(stages, error) {
            Some(decision) => decision,
            None => self.controller.decide(
                error,
                method.error_order(),
                h,
                &mut self.progress.memory,
                self.progress.after_rejection,
            ),
        };
        if !decision.accept {
            self.progress.statistics.rejected += 1;
            self.progress.after_rejection = true;
            self.progress.h = h * decision.factor;
            return Ok(Attempt::Rejected);
        }
        self.progress.statistics.accepted += 1;
        if let Some(compensation) = compensation {
            compensation.add_step(method, stages, self.state, h_s, other);
        }
        method.accept(
            stages,
            self.state,
            other,
            self.forces,
            t_s,
            h_s,
            self.progress.dense,
            &mut self.progress.statistics,
        );
        core::mem::swap(self.state, other);
        self.progress.step_on = true;
        self.progress.dense_ready = false;
        self.progress.stiffness.test(
            || method.stiffness(stages),
            t + h,
            &mut self.progress.statistics,
        );
        self.progress.step_start = t;
        self.progress.step_length = h;
        self.progress.t = match compensation {
            _ if last => end,
            Some(compensation) => compensation.time_after(t, h),
            None => t + h,
        };
        self.progress.after_rejection = false;
        // The factor is a number (the controller's bounds are), so one comparison.
        self.progress.h =
            math::min_of((h * decision.factor).abs(), self.progress.max_step) * direction;
        self.progress.statistics.t = self.progress.t;
        if last {
            self.progress.statistics.stop = Stop::End;
        }
        Ok(Attempt::Accepted)
    }
}

/// Hairer's initial step (Hairer–Nørsett–Wanner I, II.4, and dopri5.f's `HINIT`): an Euler
/// step `h₀ = 0.01 ‖y₀‖/‖f₀‖`, the second derivative estimated from it, and the step at
/// which `h^q · max(‖f₀‖, ‖f′‖) = 0.01`, at most 100 h₀. One force evaluation.
#[allow(clippy::too_many_arguments)]
fn initial_step<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    t0: S::Scalar,
    direction: f64,
    max_step: f64,
    q: u32,
    rate: &DerivativeOf<S>,
    tolerances: &impl ToleranceSet,
    probe: &mut S,
    next_rate: &mut DerivativeOf<S>,
) -> f64 {
    // A coordinate whose scale is zero (a purely relative tolerance on a coordinate that
    // starts at zero) says nothing about the step's size: the guess leaves it out.
    let norm = ErrorNorm::new(tolerances, state, state);
    let n = rate.dim();
    let weight = |i: usize| match norm.scale(i) {
        scale if scale > 0.0 => 1.0 / scale,
        _ => 0.0,
    };
    let root_mean_square = |sum: f64| (sum / n.max(1) as f64).sqrt();
    let (mut f_sum, mut y_sum) = (0.0, 0.0);
    for i in 0..n {
        let w = weight(i);
        let f = rate.component(i).to_f64() * w;
        f_sum += f * f;
        if state.has_coordinates() {
            let y = state.coordinate(i).to_f64() * w;
            y_sum += y * y;
        }
    }
    let (dnf, dny) = (root_mean_square(f_sum), root_mean_square(y_sum));
    let h0 = if dnf <= 1e-5 || dny <= 1e-5 {
        1e-6
    } else {
        0.01 * dny / dnf
    };
    let h0 = h0.min(max_step) * direction;
    state.probe_into(rate, S::Scalar::from_f64(h0), probe);
    probe.derivative_into(forces, t0 + S::Scalar::from_f64(h0), next_rate);
    let mut second = 0.0;
    for i in 0..n {
        let d = (next_rate.component(i) - rate.component(i)).to_f64() * weight(i);
        second += d * d;
    }
    let second = root_mean_square(second) / h0.abs();
    let largest = second.max(dnf);
    let h1 = if largest <= 1e-15 {
        (h0.abs() * 1e-3).max(1e-6)
    } else {
        math::powf(0.01 / largest, 1.0 / f64::from(q))
    };
    (100.0 * h0.abs()).min(h1).min(max_step) * direction
}
