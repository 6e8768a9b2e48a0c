//! [`Adaptive`]: the driver that steps an embedded pair under error control.

use super::events::{Events, MAX_EVENTS, crosses, locate};
use super::stiffness::StiffnessTest;
use super::{AdaptiveError, AdaptiveMethod, Controller, ErrorNorm, Statistics, Tolerances};
use crate::{DerivativeOf, Forces, Scalar, State, Vector};
use num_traits::Float;

/// A method stepped under error control from `t0` to `t1`: each step's local error is
/// estimated, measured against the [`Tolerances`], and the [`Controller`] picks the next
/// step; a step whose error is too large is rejected and retried smaller. The method is
/// any [`AdaptiveMethod`]: an embedded Runge–Kutta pair ([`Dopri5`](crate::Dopri5),
/// [`Tsit5`](crate::Tsit5), [`Bs3`](crate::Bs3), [`Dop853`](crate::Dop853)), or for stiff
/// problems [`Radau5`](crate::Radau5), which controls its own steps.
///
/// It keeps its workspace (the method's stage values, the candidate state) between runs,
/// like a [`Stepper`](crate::Stepper): after the first run nothing allocates, for states
/// of any size (a later run must have a state of the same size).
///
/// # Example
///
/// The Arenstorf orbit, a periodic three-body orbit (Hairer–Nørsett–Wanner I, II.0),
/// integrated over one period with Dormand–Prince 5(4) at tolerances 10⁻⁷, from a first
/// step of 10⁻⁴ as in dopri5.f's test driver: it returns to its start.
///
/// ```
/// use timestep::adaptive::{Adaptive, Tolerances};
/// use timestep::Dopri5;
///
/// let mu = 0.012277471;
/// let arenstorf = move |y: &[f64; 4], _t: f64| {
///     let [x, y, vx, vy] = *y;
///     let d1 = ((x + mu).powi(2) + y * y).powf(1.5);
///     let d2 = ((x - 1.0 + mu).powi(2) + y * y).powf(1.5);
///     [
///         vx,
///         vy,
///         x + 2.0 * vy - (1.0 - mu) * (x + mu) / d1 - mu * (x - 1.0 + mu) / d2,
///         y - 2.0 * vx - (1.0 - mu) * y / d1 - mu * y / d2,
///     ]
/// };
/// let start = [0.994, 0.0, 0.0, -2.00158510637908252240537862224];
/// let period = 17.0652165601579625588917206249;
/// let mut y = start;
/// let mut solver = Adaptive::new(Dopri5)
///     .with_tolerances(Tolerances::new(1e-7, 1e-7))
///     .with_initial_step(1e-4);
/// let statistics = solver.solve(&mut y, &arenstorf, 0.0, period)?;
/// assert!((y[0] - start[0]).abs() < 1e-3 && (y[1] - start[1]).abs() < 1e-3);
/// // dopri5.f: 238 steps, 21 of them rejected.
/// assert_eq!((statistics.accepted, statistics.rejected), (217, 21));
/// # Ok::<(), timestep::adaptive::AdaptiveError>(())
/// ```
pub struct Adaptive<S: State, M: AdaptiveMethod<S>> {
    method: M,
    tolerances: Tolerances,
    controller: Controller,
    initial_step: Option<f64>,
    max_step: Option<f64>,
    max_steps: u64,
    stiffness_test: u64,
    workspace: Option<Workspace<S, M>>,
    /// The state at a sample time of [`solve_at`](Adaptive::solve_at).
    sample: Option<S>,
}

/// The buffers of an adaptive run: the method's, and the driver's own.
struct Workspace<S: State, M: AdaptiveMethod<S>> {
    method: M::Workspace,
    /// The candidate of an attempt; after an accepted step, the state before it.
    other: S,
    /// A state inside a step, where events are located.
    probe: S,
    /// Coordinates for the error norm.
    start_coordinates: DerivativeOf<S>,
    end_coordinates: DerivativeOf<S>,
    /// The rate after the trial step of the first step's choice.
    rate: DerivativeOf<S>,
}

impl<S: State, M: AdaptiveMethod<S>> Workspace<S, M> {
    fn new(method: &M, state: &S) -> Self {
        let zero = state.zero_rate();
        Workspace {
            method: method.workspace(state),
            other: state.clone(),
            probe: state.clone(),
            start_coordinates: zero.clone(),
            end_coordinates: zero.clone(),
            rate: zero,
        }
    }
}

/// How many attempts in a row may have a non-finite error estimate, each retried shorter,
/// before the run stops with [`AdaptiveError::NonFiniteError`].
const MAX_NON_FINITE: u32 = 10;

/// One accepted step, as the observer of [`Adaptive::solve_with`] sees it: its ends, and
/// the state anywhere between them from the method's dense output.
pub struct Step<'a, S: State, M: AdaptiveMethod<S>> {
    method: &'a M,
    workspace: &'a mut M::Workspace,
    start_time: S::Scalar,
    end_time: S::Scalar,
    /// The step's full length: more than `end_time − start_time` when an event cut it.
    dt: S::Scalar,
    start: &'a S,
    end: &'a S,
}

impl<S: State, M: AdaptiveMethod<S>> Step<'_, S, M> {
    /// When the step began.
    pub fn start_time(&self) -> S::Scalar {
        self.start_time
    }

    /// When the step ended.
    pub fn end_time(&self) -> S::Scalar {
        self.end_time
    }

    /// The state when the step began.
    pub fn start(&self) -> &S {
        self.start
    }

    /// The state when the step ended.
    pub fn end(&self) -> &S {
        self.end
    }

    /// Writes the state at time `t` (inside the step, or at either end) into `out`, from
    /// the method's continuous extension (for a pair, `y + dt Σ wᵢ(θ) kᵢ` with
    /// `θ = (t − t₀)/dt`), without stepping there. A `t` outside the step extrapolates,
    /// less and less accurately.
    pub fn state_at(&mut self, t: S::Scalar, out: &mut S) {
        let theta = ((t - self.start_time) / self.dt).to_f64();
        self.method
            .dense(self.workspace, self.start, self.dt, theta, out);
    }
}

impl<S: State, M: AdaptiveMethod<S>> Adaptive<S, M> {
    /// The `method` with tolerances of 10⁻⁶ (relative and absolute), the method's own
    /// [`Controller`] (dopri5.f's for most), an automatic first step, steps up to the whole
    /// span and at most 100 000 steps.
    #[must_use]
    pub fn new(method: M) -> Self {
        Adaptive {
            controller: method.controller(),
            method,
            tolerances: Tolerances::new(1e-6, 1e-6),
            initial_step: None,
            max_step: None,
            max_steps: 100_000,
            stiffness_test: 1000,
            workspace: None,
            sample: None,
        }
    }
    /// The same solver with other tolerances.
    #[must_use]
    pub fn with_tolerances(self, tolerances: Tolerances) -> Self {
        Adaptive { tolerances, ..self }
    }

    /// The same solver with another step-size controller.
    #[must_use]
    pub fn with_controller(self, controller: Controller) -> Self {
        Adaptive { controller, ..self }
    }

    /// The same solver starting with a step of `|h|` (in the direction of the run) instead
    /// of choosing one. `h` must be finite and non-zero: [`solve`](Adaptive::solve)
    /// refuses it otherwise.
    #[must_use]
    pub fn with_initial_step(self, h: f64) -> Self {
        Adaptive {
            initial_step: Some(h),
            ..self
        }
    }

    /// The same solver taking no step longer than `|h|`.
    #[must_use]
    pub fn with_max_step(self, h: f64) -> Self {
        Adaptive {
            max_step: Some(h),
            ..self
        }
    }

    /// The same solver allowing at most `steps` steps (accepted and rejected) per run.
    #[must_use]
    pub fn with_max_steps(self, steps: u64) -> Self {
        Adaptive {
            max_steps: steps,
            ..self
        }
    }

    /// The same solver testing for stiffness ([`AdaptiveMethod::stiffness`]) at every
    /// `every`-th accepted step, and at every step after one found stiff, as dopri5.f's
    /// `NSTIFF` (by default every 1000th; 0 never). The result is in
    /// [`Statistics::stiff_steps`] and [`Statistics::stiff_from`]. A test costs about two
    /// vector operations, so testing every step slows a cheap problem by some percent.
    ///
    /// # Example
    ///
    /// `y′ = −10⁴ (y − cos t)`: after a transient of 10⁻⁴ the solution follows `cos t`
    /// smoothly, yet Dormand–Prince 5(4) must keep `h·10⁴` within its stability boundary
    /// of 3.3. The test says so from the first steps on the smooth part:
    ///
    /// ```
    /// use timestep::adaptive::Adaptive;
    /// use timestep::Dopri5;
    ///
    /// let stiff = |y: &f64, t: f64| -1e4 * (y - t.cos());
    /// let mut y = 0.0_f64;
    /// let statistics = Adaptive::new(Dopri5)
    ///     .with_stiffness_test(1)
    ///     .solve(&mut y, &stiff, 0.0, 1.0)?;
    /// assert!(statistics.accepted > 2500); // 1/(3.3·10⁻⁴) steps at least
    /// let became_stiff = statistics.stiff_from.expect("a stiff problem");
    /// assert!(became_stiff < 0.05);
    /// # Ok::<(), timestep::adaptive::AdaptiveError>(())
    /// ```
    #[must_use]
    pub fn with_stiffness_test(self, every: u64) -> Self {
        Adaptive {
            stiffness_test: every,
            ..self
        }
    }

    /// Integrates `state` from `t0` to `t1` (backwards when `t1 < t0`), landing exactly on
    /// `t1`.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError`] for non-finite times or invalid settings (the state untouched), and
    /// for a run that cannot go on (a step too small for the precision of `t`, a non-finite
    /// error estimate, too many steps): the state is then the last accepted one, at the
    /// time the error reports.
    pub fn solve<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        t1: S::Scalar,
    ) -> Result<Statistics, AdaptiveError> {
        self.run(
            state,
            forces,
            t0,
            t1,
            &mut (),
            |_, _, _| {},
            None::<fn(&mut Step<'_, S, M>)>,
        )
    }

    /// [`solve`](Adaptive::solve), calling `observer` after every accepted step with that
    /// [`Step`], from which it can read the state anywhere inside the step.
    ///
    /// # Errors
    ///
    /// As [`solve`](Adaptive::solve).
    pub fn solve_with<F, O>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        t1: S::Scalar,
        observer: O,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        O: FnMut(&mut Step<'_, S, M>),
    {
        self.run(state, forces, t0, t1, &mut (), |_, _, _| {}, Some(observer))
    }

    /// [`solve`](Adaptive::solve) to the last of `times`, calling `sample(t, &state)` at each
    /// of them with the state there from the dense output: the steps are the tolerance's,
    /// never shortened to land on a sample (Hairer's "dense output" mode, DifferentialEquations.jl's
    /// `saveat`). A time equal to `t0` is sampled at the start; the state ends at the last
    /// time.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError::InvalidSampleTimes`] when `times` is empty, or not finite and
    /// ordered from `t0` in one direction (each at or after the one before, none before
    /// `t0`); otherwise as [`solve`](Adaptive::solve).
    ///
    /// # Example
    ///
    /// `y′ = −y` sampled at ten times, from few steps:
    ///
    /// ```
    /// use timestep::adaptive::{Adaptive, Tolerances};
    /// use timestep::Dopri5;
    ///
    /// let times: Vec<f64> = (1..=10).map(|i| 0.5 * i as f64).collect();
    /// let mut y = 1.0_f64;
    /// let mut samples = Vec::new();
    /// let statistics = Adaptive::new(Dopri5)
    ///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
    ///     .solve_at(&mut y, &|y: &f64, _t: f64| -y, 0.0, &times, |t, y| samples.push((t, *y)))?;
    /// for (t, y) in &samples {
    ///     assert!((y - (-t).exp()).abs() < 1e-9);
    /// }
    /// assert_eq!(samples.len(), 10);
    /// assert!(statistics.accepted < 100);
    /// # Ok::<(), timestep::adaptive::AdaptiveError>(())
    /// ```
    pub fn solve_at<F, H>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        times: &[S::Scalar],
        mut sample: H,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        H: FnMut(S::Scalar, &S),
    {
        let Some(&t1) = times.last() else {
            return Err(AdaptiveError::InvalidSampleTimes);
        };
        let direction = (t1 - t0).to_f64().signum();
        let mut previous = t0;
        for &t in times {
            if !t.is_finite() || (t - previous).to_f64() * direction < 0.0 {
                return Err(AdaptiveError::InvalidSampleTimes);
            }
            previous = t;
        }
        let start = times.partition_point(|&t| t == t0);
        for _ in 0..start {
            sample(t0, state);
        }
        let mut next = start;
        let mut buffer = self.sample.take().unwrap_or_else(|| state.clone());
        let result = self.solve_with(state, forces, t0, t1, |step| {
            while next < times.len() && (times[next] - step.end_time()).to_f64() * direction <= 0.0
            {
                step.state_at(times[next], &mut buffer);
                sample(times[next], &buffer);
                next += 1;
            }
        });
        self.sample = Some(buffer);
        result
    }

    /// [`solve`](Adaptive::solve), watching `events` ([`Event`](super::Event) or a tuple of
    /// them): at each one located, the state is moved to it, its action applied, and
    /// `on_event(index, t, &state)` called; a terminal event ends the run there (the state
    /// is then at the event). Observed steps end at the events.
    ///
    /// # Errors
    ///
    /// As [`solve`](Adaptive::solve).
    pub fn solve_with_events<F, E, H>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        t1: S::Scalar,
        events: &mut E,
        on_event: H,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        E: Events<S>,
        H: FnMut(usize, S::Scalar, &S),
    {
        self.run(
            state,
            forces,
            t0,
            t1,
            events,
            on_event,
            None::<fn(&mut Step<'_, S, M>)>,
        )
    }

    /// The run, with events and an observer.
    #[allow(clippy::too_many_arguments)]
    fn run<F, E, H, O>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        t1: S::Scalar,
        events: &mut E,
        mut on_event: H,
        mut observer: Option<O>,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        E: Events<S>,
        H: FnMut(usize, S::Scalar, &S),
        O: FnMut(&mut Step<'_, S, M>),
    {
        if !(t0.is_finite() && t1.is_finite()) {
            return Err(AdaptiveError::NonFiniteTime {
                t0: t0.to_f64(),
                t1: t1.to_f64(),
            });
        }
        if !self.controller.is_valid() {
            return Err(AdaptiveError::InvalidController);
        }
        let invalid_step = |h: Option<f64>, infinite_allowed: bool| {
            h.filter(|h| h.is_nan() || *h == 0.0 || (!infinite_allowed && h.is_infinite()))
                .map(|h| AdaptiveError::InvalidStep { h })
        };
        if let Some(error) =
            invalid_step(self.max_step, true).or_else(|| invalid_step(self.initial_step, false))
        {
            return Err(error);
        }
        let method = &self.method;
        let workspace = self
            .workspace
            .get_or_insert_with(|| Workspace::new(method, state));
        self.tolerances.check(workspace.start_coordinates.dim())?;
        let mut statistics = Statistics::default();
        if t0 == t1 {
            return Ok(statistics);
        }
        let span = (t1 - t0).to_f64();
        let direction = span.signum();
        let max_step = self
            .max_step
            .map_or(span.abs(), |h| h.abs().min(span.abs()));
        let Workspace {
            method: stages,
            other,
            probe,
            start_coordinates,
            end_coordinates,
            rate,
        } = workspace;
        let mut norm = ErrorNorm::new(&self.tolerances, start_coordinates, end_coordinates);

        method.begin(stages, state, forces, t0, &mut statistics);
        let order = method.error_order();
        let mut h = match self.initial_step {
            Some(h) => h.abs().min(max_step) * direction,
            None => {
                statistics.evaluations += 1;
                initial_step(
                    state,
                    forces,
                    t0,
                    direction,
                    max_step,
                    order + 1,
                    method.start_rate(stages),
                    &mut norm,
                    probe,
                    rate,
                )
            }
        };

        // Dense output costs some methods extra evaluations: only when it may be read.
        let dense = observer.is_some() || events.count() > 0;
        let watched = events.count().min(MAX_EVENTS);
        let mut g_start = [0.0; MAX_EVENTS];
        // The event that acted where this step starts, if one did.
        let mut handled: Option<usize> = None;
        for (i, g) in g_start.iter_mut().enumerate().take(watched) {
            *g = events.value(i, state, t0);
        }
        let mut stiffness = StiffnessTest::new(self.stiffness_test);
        let mut previous_error = 1e-4;
        let mut non_finite = 0;
        let mut after_rejection = false;
        let mut t = t0.to_f64();
        let end = t1.to_f64();
        let mut last = false;
        loop {
            if statistics.accepted + statistics.rejected >= self.max_steps {
                return Err(AdaptiveError::TooManySteps {
                    t,
                    steps: self.max_steps,
                });
            }
            if 0.1 * h.abs() <= t.abs() * S::Scalar::epsilon().to_f64() || h == 0.0 {
                // Shrunk to nothing by non-finite estimates: the forces are the cause.
                return Err(if non_finite > 0 {
                    AdaptiveError::NonFiniteError { t, h }
                } else {
                    AdaptiveError::StepTooSmall { t, h }
                });
            }
            if (t + 1.01 * h - end) * direction > 0.0 {
                h = end - t;
                last = true;
            }
            let (t_s, h_s) = (S::Scalar::from_f64(t), S::Scalar::from_f64(h));
            let error_norm = method.attempt(
                stages,
                state,
                forces,
                t_s,
                h_s,
                &mut norm,
                other,
                &mut statistics,
            );
            // A step so long that the state overflows on the way (an implicit method's first
            // guess on a stiff problem) is retried shorter, as one far over the tolerance;
            // forces that are not finite however short the step stop the run.
            let error_norm = if error_norm.is_finite() {
                non_finite = 0;
                error_norm
            } else {
                non_finite += 1;
                if non_finite > MAX_NON_FINITE {
                    return Err(AdaptiveError::NonFiniteError { t, h });
                }
                f64::MAX
            };
            let decision = match method.decide(stages, error_norm) {
                Some(decision) => decision,
                None => {
                    self.controller
                        .decide(error_norm, order, &mut previous_error, after_rejection)
                }
            };
            if !decision.accept {
                statistics.rejected += 1;
                after_rejection = true;
                last = false;
                h *= decision.factor;
                continue;
            }
            statistics.accepted += 1;
            method.accept(
                stages,
                state,
                other,
                forces,
                t_s,
                h_s,
                dense,
                &mut statistics,
            );
            core::mem::swap(state, other);
            let step_start = t;
            stiffness.test(|| method.stiffness(stages), t + h, &mut statistics);
            t = if last { end } else { t + h };

            // The earliest event crossed in this step, if any: located on the dense
            // output, and the state moved back to it.
            let mut g_end = [0.0; MAX_EVENTS];
            let mut first: Option<(usize, f64)> = None;
            for i in 0..watched {
                g_end[i] = events.value(i, state, S::Scalar::from_f64(t));
                if crosses(g_start[i], g_end[i], events.direction(i)) {
                    let tolerance =
                        4.0 * S::Scalar::epsilon().to_f64() * (step_start.abs() + h.abs())
                            / h.abs();
                    let theta = locate(
                        |theta| {
                            method.dense(stages, other, h_s, theta, probe);
                            let at = S::Scalar::from_f64(step_start + theta * h);
                            events.value(i, probe, at)
                        },
                        g_start[i],
                        g_end[i],
                        tolerance.max(1e-15),
                    );
                    // A root at the very start of the step after an event is that event
                    // again (its function left near zero by the action), not a new one;
                    // after any other step it is new: the last step ended a hair before
                    // the crossing.
                    let fresh = handled != Some(i) || theta > 2.0 * tolerance;
                    if fresh && first.is_none_or(|(_, earliest)| theta < earliest) {
                        first = Some((i, theta));
                    }
                }
            }
            if let Some((_, theta)) = first {
                if theta < 1.0 {
                    method.dense(stages, other, h_s, theta, state);
                    t = step_start + theta * h;
                }
            }

            let mut step = Step {
                method,
                workspace: stages,
                start_time: t_s,
                end_time: S::Scalar::from_f64(t),
                dt: h_s,
                start: other,
                end: state,
            };
            if let Some(observer) = &mut observer {
                observer(&mut step);
            }
            if let Some((index, _)) = first {
                let t_event = S::Scalar::from_f64(t);
                events.act(index, state, t_event);
                on_event(index, t_event, state);
                if events.terminal(index) || t == end {
                    return Ok(statistics);
                }
                // Going on from the event: its state may have changed, so the first
                // stage and the events' values are taken anew.
                method.begin(stages, state, forces, t_event, &mut statistics);
                for (i, g) in g_start.iter_mut().enumerate().take(watched) {
                    *g = events.value(i, state, t_event);
                }
                handled = Some(index);
                last = false;
                after_rejection = false;
                h = (h * decision.factor).abs().min(max_step) * direction;
                continue;
            }
            g_start = g_end;
            handled = None;
            if last {
                return Ok(statistics);
            }
            method.step_on(stages);
            after_rejection = false;
            h = (h * decision.factor).abs().min(max_step) * direction;
        }
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
    norm: &mut ErrorNorm<'_, S>,
    probe: &mut S,
    next_rate: &mut DerivativeOf<S>,
) -> f64 {
    norm.measure(state, state);
    let dnf = norm.norm(rate, 1.0);
    let dny = norm.start_size();
    let h0 = if dnf <= 1e-5 || dny <= 1e-5 {
        1e-6
    } else {
        0.01 * dny / dnf
    };
    let h0 = h0.min(max_step) * direction;
    state.probe_into(rate, S::Scalar::from_f64(h0), probe);
    probe.derivative_into(forces, t0 + S::Scalar::from_f64(h0), next_rate);
    let n = rate.dim();
    let mut second = 0.0;
    for i in 0..n {
        let d = (next_rate.component(i) - rate.component(i)).to_f64() / norm.scale(i);
        second += d * d;
    }
    let second = (second / n.max(1) as f64).sqrt() / h0.abs();
    let largest = second.max(dnf);
    let h1 = if largest <= 1e-15 {
        (h0.abs() * 1e-3).max(1e-6)
    } else {
        (0.01 / largest).powf(1.0 / f64::from(q))
    };
    (100.0 * h0.abs()).min(h1).min(max_step) * direction
}
