//! [`Solution`]: what one adaptive run hands back; [`Integration`], the run to set up
//! before solving it.

use super::driver::check_times;
use super::events::{Events, Fired, Output, watch};
use super::{Adaptive, Step};
use crate::control::{AdaptiveMethod, IntoAdaptive, Statistics};
use crate::{AdaptiveError, Forces, Scalar, State};
use alloc::vec::Vec;

/// What one adaptive run hands back ([`Integration::solve`], [`solve`](crate::solve)):
/// the states at the accepted steps or at the sample times asked for, the dense output
/// between them, the events that fired, and the statistics (with where and why the run
/// stopped).
///
/// # Example
///
/// A ball thrown up at 10 m/s, watched for its fall through the ground (a terminal
/// event), sampled every 0.5 s:
///
/// ```
/// use timestep::adaptive::{Direction, Event};
/// use timestep::{Adaptive, Dopri5, Stop, Tolerances};
///
/// let fall = |y: &[f64; 2], _t: f64| [y[1], -9.81];
/// let ground = Event::new(|y: &[f64; 2], _t: f64| y[0])
///     .direction(Direction::Falling)
///     .terminal();
/// let times: Vec<f64> = (0..10).map(|i| 0.5 * i as f64).collect();
/// let solution = Adaptive::new(Dopri5)
///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
///     .integrate(&fall, [0.0, 10.0], 0.0, 5.0)
///     .at(&times)
///     .events(ground)
///     .solve()?;
/// let landing = 2.0 * 10.0 / 9.81;
/// assert!((solution.events[0].t - landing).abs() < 1e-9);
/// assert_eq!(solution.statistics.stop, Stop::Event(0));
/// // The samples up to the landing, and the dense output anywhere before it.
/// assert_eq!(solution.times, &times[..5]);
/// assert!((solution.at(1.0).unwrap()[0] - (10.0 - 0.5 * 9.81)).abs() < 1e-9);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone)]
pub struct Solution<S: State, M: AdaptiveMethod<S>> {
    /// The times of the states: the start and every accepted step's end (cut at events),
    /// or the sample times asked for ([`Integration::at`]) that the run reached.
    pub times: Vec<S::Scalar>,
    /// The states at [`times`](Solution::times).
    pub states: Vec<S>,
    /// The events that fired, in time order.
    pub events: Vec<Fired<S>>,
    /// What the run cost, where it stopped and why.
    pub statistics: Statistics,
    dense: Option<Dense<S, M>>,
}

impl<S: State + core::fmt::Debug, M: AdaptiveMethod<S>> core::fmt::Debug for Solution<S, M>
where
    S::Scalar: core::fmt::Debug,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Solution")
            .field("times", &self.times)
            .field("states", &self.states)
            .field("events", &self.events)
            .field("statistics", &self.statistics)
            .field("dense", &self.dense.is_some())
            .finish()
    }
}

/// Every accepted step's start, length, start state and interpolant, and the method that
/// reads them.
#[derive(Clone)]
struct Dense<S: State, M: AdaptiveMethod<S>> {
    method: M,
    /// `(start time, full length, end time)` of each step.
    spans: Vec<(f64, f64, f64)>,
    starts: Vec<S>,
    interpolants: Vec<M::Interpolant>,
}

impl<S: State, M: AdaptiveMethod<S>> Solution<S, M> {
    /// The state at time `t`, from the dense output of the step that covers it (to the
    /// method's [dense order](crate::EmbeddedPair::dense_order)); at a step's end, that
    /// step's end, so after an event its state before the action. `None` outside the
    /// span the run covered, for a `t` that is not finite, when the dense output was not
    /// kept ([`Integration::keep_dense`]), and for a run that took no step (`t0 = t1`:
    /// its state is [`states`](Solution::states)`[0]`, or a sample at `t0`).
    #[must_use]
    pub fn at(&self, t: S::Scalar) -> Option<S> {
        let dense = self.dense.as_ref()?;
        let t = t.to_f64();
        let (first, last) = (dense.spans.first()?, dense.spans.last()?);
        let direction = first.1.signum();
        if !t.is_finite() || (t - first.0) * direction < 0.0 || (t - last.2) * direction > 0.0 {
            return None;
        }
        let index = dense
            .spans
            .partition_point(|&(_, _, end)| (end - t) * direction < 0.0)
            .min(dense.spans.len() - 1);
        let (start, length, _) = dense.spans[index];
        let mut out = dense.starts[index].clone();
        dense.method.interpolate(
            &dense.interpolants[index],
            &dense.starts[index],
            S::Scalar::from_f64(length),
            (t - start) / length,
            &mut out,
        );
        Some(out)
    }

    /// The last state kept: without sample times, where the run ended (the end of the
    /// span, or a terminal event); with them ([`Integration::at`]), the state at the last
    /// sample time the run reached, which is not the end of the span unless the times end
    /// there (the run still goes to `t1`: [`statistics`](Solution::statistics)`.t` says
    /// where it ended). `None` when no state was kept (sample times none of which the run
    /// reached, or none given: `at(&[])`).
    #[must_use]
    pub fn last(&self) -> Option<&S> {
        self.states.last()
    }
}

/// An adaptive run from a state at `t0` to `t1` to be set up and [solved](Integration::solve):
/// made by [`Adaptive::integrate`]. Events, samples and an observer combine in one run.
#[must_use = "an integration does nothing until solved: call `solve`"]
pub struct Integration<'a, S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized, E, O> {
    solver: &'a mut Adaptive<S, M>,
    forces: &'a F,
    state: S,
    t0: S::Scalar,
    t1: S::Scalar,
    times: Option<&'a [S::Scalar]>,
    events: E,
    observer: O,
    keep_dense: bool,
}

/// The observer of an [`Integration`] that observes nothing.
pub type NoObserver<S, M, F> = for<'r, 'b> fn(&mut Step<'r, 'b, S, M, F>);

impl<'a, S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized>
    Integration<'a, S, M, F, (), NoObserver<S, M, F>>
{
    pub(super) fn new(
        solver: &'a mut Adaptive<S, M>,
        forces: &'a F,
        state: S,
        t0: S::Scalar,
        t1: S::Scalar,
    ) -> Self {
        Integration {
            solver,
            forces,
            state,
            t0,
            t1,
            times: None,
            events: (),
            observer: |_| {},
            keep_dense: true,
        }
    }
}

impl<'a, S, M, F, E, O> Integration<'a, S, M, F, E, O>
where
    S: State,
    M: AdaptiveMethod<S> + Clone,
    F: Forces<S> + ?Sized,
    E: Events<S>,
    O: for<'r, 'b> FnMut(&mut Step<'r, 'b, S, M, F>),
{
    /// Keeps the states at `times` (read from the dense output; the steps are the
    /// tolerance's, never shortened to land on them) instead of at every step. They must
    /// be finite and ordered from `t0` towards `t1`, within the span; `t0` itself may be
    /// among them.
    pub fn at(self, times: &'a [S::Scalar]) -> Self {
        Integration {
            times: Some(times),
            ..self
        }
    }

    /// Watches `events` ([`Event`](super::Event) or a tuple of up to four).
    pub fn events<E2: Events<S>>(self, events: E2) -> Integration<'a, S, M, F, E2, O> {
        Integration {
            solver: self.solver,
            forces: self.forces,
            state: self.state,
            t0: self.t0,
            t1: self.t1,
            times: self.times,
            events,
            observer: self.observer,
            keep_dense: self.keep_dense,
        }
    }

    /// Calls `observer` with every accepted [`Step`].
    pub fn observe<O2>(self, observer: O2) -> Integration<'a, S, M, F, E, O2>
    where
        O2: for<'r, 'b> FnMut(&mut Step<'r, 'b, S, M, F>),
    {
        Integration {
            solver: self.solver,
            forces: self.forces,
            state: self.state,
            t0: self.t0,
            t1: self.t1,
            times: self.times,
            events: self.events,
            observer,
            keep_dense: self.keep_dense,
        }
    }

    /// Whether the [`Solution`] keeps every step's dense output for
    /// [`at`](Solution::at) (by default it does). For a large state, whose every step's
    /// stages are copies of it, keep the samples alone.
    pub fn keep_dense(self, keep: bool) -> Self {
        Integration {
            keep_dense: keep,
            ..self
        }
    }

    /// Runs it.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError::InvalidSampleTimes`] for sample times that are not finite, not
    /// ordered from `t0` in the run's direction, or beyond `t1`;
    /// [`AdaptiveError::EventNotANumber`] for an event function that is `NaN` where it is
    /// read; [`AdaptiveError::TooManyEvents`] for more than four events; otherwise as [`Adaptive::solve`].
    pub fn solve(self) -> Result<Solution<S, M>, AdaptiveError> {
        let Integration {
            solver,
            forces,
            mut state,
            t0,
            t1,
            times,
            mut events,
            observer,
            keep_dense,
        } = self;
        if let Some(times) = times {
            check_times(times, t0, t1)?;
        }
        let method = solver.method.clone();
        let mut run = solver
            .start(&mut state, forces, t0, t1)?
            .with_dense_output();
        let mut recorder = Recorder {
            solution: Solution {
                times: Vec::new(),
                states: Vec::new(),
                events: Vec::new(),
                statistics: Statistics::default(),
                dense: keep_dense.then(|| Dense {
                    method,
                    spans: Vec::new(),
                    starts: Vec::new(),
                    interpolants: Vec::new(),
                }),
            },
            every_step: times.is_none(),
            observer,
        };
        if recorder.every_step {
            recorder.solution.times.push(run.time());
            recorder.solution.states.push(run.state().clone());
        }
        watch(&mut run, &mut events, times.unwrap_or(&[]), &mut recorder)?;
        let mut solution = recorder.solution;
        solution.statistics = run.statistics();
        Ok(solution)
    }
}

/// Keeps what a run hands out in a [`Solution`], and passes its steps to the observer.
struct Recorder<S: State, M: AdaptiveMethod<S>, O> {
    solution: Solution<S, M>,
    every_step: bool,
    observer: O,
}

impl<S, M, F, O> Output<S, M, F> for Recorder<S, M, O>
where
    S: State,
    M: AdaptiveMethod<S>,
    F: Forces<S> + ?Sized,
    O: for<'r, 'b> FnMut(&mut Step<'r, 'b, S, M, F>),
{
    fn sample(&mut self, t: S::Scalar, state: &S) {
        self.solution.times.push(t);
        self.solution.states.push(state.clone());
    }

    fn step(&mut self, step: &mut Step<'_, '_, S, M, F>) {
        if let Some(dense) = &mut self.solution.dense {
            let run = step.run();
            dense
                .spans
                .push((run.step_start(), run.step_length(), run.time().to_f64()));
            dense.starts.push(run.previous_state().clone());
            dense.interpolants.push(run.interpolant());
        }
        if self.every_step {
            self.solution.times.push(step.end_time());
            self.solution.states.push(step.end().clone());
        }
        (self.observer)(step);
    }

    fn event(&mut self, fired: Fired<S>) {
        self.solution.events.push(fired);
    }
}

/// Solves `y′ = f(t, y)` (or any state under its `forces`) from `state` at `t0` to `t1`
/// with `method` under error control at its defaults (tolerances 10⁻⁶), keeping every
/// step and the dense output: the one call. [`Adaptive`] sets tolerances and the rest.
///
/// # Errors
///
/// As [`Adaptive::solve`].
///
/// # Example
///
/// ```
/// use timestep::{Dopri5, solve};
///
/// let oscillator = |y: &[f64; 2], _t: f64| [y[1], -y[0]];
/// let solution = solve(Dopri5, &oscillator, [1.0, 0.0], 0.0, 10.0)?;
/// let y = solution.at(2.5).unwrap();
/// assert!((y[0] - 2.5_f64.cos()).abs() < 1e-4);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
pub fn solve<S, I, F>(
    method: I,
    forces: &F,
    state: S,
    t0: S::Scalar,
    t1: S::Scalar,
) -> Result<Solution<S, I::Method>, AdaptiveError>
where
    S: State,
    I: IntoAdaptive,
    I::Method: AdaptiveMethod<S> + Clone,
    F: Forces<S> + ?Sized,
{
    Adaptive::new(method)
        .integrate(forces, state, t0, t1)
        .solve()
}
