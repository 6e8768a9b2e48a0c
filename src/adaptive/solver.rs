//! [`Adaptive`]: the driver that steps an embedded pair under error control.

use super::events::{Events, MAX_EVENTS, crosses, locate};
use super::{AdaptiveError, Controller, Statistics, Tolerances};
use crate::integrators::{EmbeddedPair, Stages, combination};
use crate::{DerivativeOf, Forces, Scalar, State, Vector};
use num_traits::Float;

/// An embedded Runge–Kutta pair stepped under error control from `t0` to `t1`: each step's
/// local error is estimated, measured against the [`Tolerances`], and the [`Controller`]
/// picks the next step; a step whose error is too large is rejected and retried smaller.
///
/// It keeps its workspace (the stage values, the candidate state, the error) between runs,
/// like a [`Stepper`](crate::Stepper): after the first run nothing allocates, for states
/// of any size.
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
pub struct Adaptive<S: State, const N: usize> {
    pair: &'static EmbeddedPair<N>,
    tolerances: Tolerances,
    controller: Controller,
    initial_step: Option<f64>,
    max_step: Option<f64>,
    max_steps: u64,
    workspace: Option<Workspace<S, N>>,
}

/// The buffers of an adaptive run.
struct Workspace<S: State, const N: usize> {
    rates: [DerivativeOf<S>; N],
    probe: S,
    /// The state before the step (after an accepted step, the previous state).
    other: S,
    sum: DerivativeOf<S>,
    error: DerivativeOf<S>,
    start_coordinates: DerivativeOf<S>,
    end_coordinates: DerivativeOf<S>,
}

impl<S: State, const N: usize> Workspace<S, N> {
    fn new(state: &S) -> Self {
        let zero = state.zero_rate();
        Workspace {
            rates: core::array::from_fn(|_| zero.clone()),
            probe: state.clone(),
            other: state.clone(),
            sum: zero.clone(),
            error: zero.clone(),
            start_coordinates: zero.clone(),
            end_coordinates: zero,
        }
    }
}

/// One accepted step, as the observer of [`Adaptive::solve_with`] sees it: its ends, and
/// the state anywhere between them from the pair's dense output.
pub struct Step<'a, S: State, const N: usize> {
    pair: &'static EmbeddedPair<N>,
    start_time: S::Scalar,
    end_time: S::Scalar,
    /// The step's full length: more than `end_time − start_time` when an event cut it.
    dt: S::Scalar,
    start: &'a S,
    end: &'a S,
    rates: &'a [DerivativeOf<S>; N],
    scratch: &'a mut DerivativeOf<S>,
}

impl<S: State, const N: usize> Step<'_, S, N> {
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
    /// the pair's continuous extension, without stepping there: `y + dt Σ wᵢ(θ) kᵢ` with
    /// `θ = (t − t₀)/dt`. A `t` outside the step extrapolates, less and less accurately.
    pub fn state_at(&mut self, t: S::Scalar, out: &mut S) {
        let theta = ((t - self.start_time) / self.dt).to_f64();
        dense_state(
            self.pair,
            self.rates,
            self.scratch,
            self.start,
            self.dt,
            theta,
            out,
        );
    }
}

impl<S: State, const N: usize> Adaptive<S, N> {
    /// The `pair` with tolerances of 10⁻⁶ (relative and absolute), dopri5.f's
    /// [`Controller`], an automatic first step, steps up to the whole span and at most
    /// 100 000 steps.
    #[must_use]
    pub fn new(pair: impl Into<&'static EmbeddedPair<N>>) -> Self {
        Adaptive {
            pair: pair.into(),
            tolerances: Tolerances::new(1e-6, 1e-6),
            controller: Controller::default(),
            initial_step: None,
            max_step: None,
            max_steps: 100_000,
            workspace: None,
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
        self.solve_with(state, forces, t0, t1, |_| {})
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
        O: FnMut(&mut Step<'_, S, N>),
    {
        self.run(state, forces, t0, t1, &mut (), |_, _, _| {}, observer)
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
        self.run(state, forces, t0, t1, events, on_event, |_| {})
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
        mut observer: O,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        E: Events<S>,
        H: FnMut(usize, S::Scalar, &S),
        O: FnMut(&mut Step<'_, S, N>),
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
        let workspace = self.workspace.get_or_insert_with(|| Workspace::new(state));
        self.tolerances.check(workspace.rates[0].dim())?;
        let mut statistics = Statistics::default();
        if t0 == t1 {
            return Ok(statistics);
        }
        let span = (t1 - t0).to_f64();
        let direction = span.signum();
        let max_step = self
            .max_step
            .map_or(span.abs(), |h| h.abs().min(span.abs()));
        let pair = self.pair;
        let fsal = pair.first_same_as_last();
        let Workspace {
            rates,
            probe,
            other,
            sum,
            error,
            start_coordinates,
            end_coordinates,
        } = workspace;

        state.derivative_into(forces, t0, &mut rates[0]);
        statistics.evaluations += 1;
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
                    pair.tableau.order.min(pair.embedded_order) + 1,
                    &self.tolerances,
                    rates,
                    probe,
                    sum,
                    start_coordinates,
                )
            }
        };

        let lower_order = pair.tableau.order.min(pair.embedded_order);
        let watched = events.count().min(MAX_EVENTS);
        let mut g_start = [0.0; MAX_EVENTS];
        for (i, g) in g_start.iter_mut().enumerate().take(watched) {
            *g = events.value(i, state, t0);
        }
        let mut previous_error = 1e-4;
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
                return Err(AdaptiveError::StepTooSmall { t, h });
            }
            if (t + 1.01 * h - end) * direction > 0.0 {
                h = end - t;
                last = true;
            }
            let (t_s, h_s) = (S::Scalar::from_f64(t), S::Scalar::from_f64(h));
            let which = if fsal {
                Stages::AllButFirst
            } else {
                Stages::All
            };
            if !fsal {
                statistics.evaluations += 1;
            }
            pair.tableau
                .stages(rates, probe, sum, state, forces, t_s, h_s, which);
            statistics.evaluations += N as u64 - 1;

            // The candidate, in `other`; the error estimate `h Σ eᵢ kᵢ`, in `error`.
            let (direction_b, factor_b) = combination(&pair.tableau.b, rates, sum);
            other.clone_from(state);
            other.advance(direction_b, h_s * S::Scalar::from_f64(factor_b));
            let (direction_e, factor_e) = combination(&pair.error, rates, error);
            let error_norm = self.tolerances.norm(
                direction_e,
                (h * factor_e).abs(),
                state,
                other,
                start_coordinates,
                end_coordinates,
            );
            if !error_norm.is_finite() {
                return Err(AdaptiveError::NonFiniteError { t, h });
            }
            let decision = self.controller.decide(
                error_norm,
                lower_order,
                &mut previous_error,
                after_rejection,
            );
            if decision.accept {
                statistics.accepted += 1;
                core::mem::swap(state, other);
                let start_time = S::Scalar::from_f64(t);
                let step_start = t;
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
                                dense_state(pair, rates, sum, other, h_s, theta, probe);
                                let at = S::Scalar::from_f64(step_start + theta * h);
                                events.value(i, probe, at)
                            },
                            g_start[i],
                            g_end[i],
                            tolerance.max(1e-15),
                        );
                        // A root at the very start is the event just handled (its function
                        // left at zero by the action): not a new one.
                        let fresh = theta > 2.0 * tolerance;
                        if fresh && first.is_none_or(|(_, earliest)| theta < earliest) {
                            first = Some((i, theta));
                        }
                    }
                }
                if let Some((_, theta)) = first {
                    if theta < 1.0 {
                        dense_state(pair, rates, sum, other, h_s, theta, state);
                        t = step_start + theta * h;
                    }
                }

                let mut step = Step {
                    pair,
                    start_time,
                    end_time: S::Scalar::from_f64(t),
                    dt: h_s,
                    start: other,
                    end: state,
                    rates,
                    scratch: sum,
                };
                observer(&mut step);
                if let Some((index, _)) = first {
                    let t_event = S::Scalar::from_f64(t);
                    events.act(index, state, t_event);
                    on_event(index, t_event, state);
                    if events.terminal(index) || t == end {
                        return Ok(statistics);
                    }
                    // Going on from the event: its state may have changed, so the first
                    // stage and the events' values are taken anew.
                    state.derivative_into(forces, t_event, &mut rates[0]);
                    statistics.evaluations += 1;
                    for (i, g) in g_start.iter_mut().enumerate().take(watched) {
                        *g = events.value(i, state, t_event);
                    }
                    last = false;
                    after_rejection = false;
                    h = (h * decision.factor).abs().min(max_step) * direction;
                    continue;
                }
                g_start = g_end;
                if last {
                    return Ok(statistics);
                }
                if fsal {
                    rates.swap(0, N - 1);
                } else {
                    // The next step evaluates its first stage itself.
                }
                after_rejection = false;
                h = (h * decision.factor).abs().min(max_step) * direction;
            } else {
                statistics.rejected += 1;
                after_rejection = true;
                last = false;
                h *= decision.factor;
            }
        }
    }
}

/// Writes the state at the fraction `theta` of a step of `dt` from `start` into `out`, from
/// the pair's continuous extension `y + dt Σ wᵢ(θ) kᵢ`.
fn dense_state<S: State, const N: usize>(
    pair: &EmbeddedPair<N>,
    rates: &[DerivativeOf<S>; N],
    scratch: &mut DerivativeOf<S>,
    start: &S,
    dt: S::Scalar,
    theta: f64,
    out: &mut S,
) {
    let weights = pair.dense_weights(theta);
    let (direction, factor) = combination(&weights, rates, scratch);
    out.clone_from(start);
    out.advance(direction, dt * S::Scalar::from_f64(factor));
}

/// Hairer's initial step (Hairer–Nørsett–Wanner I, II.4, and dopri5.f's `HINIT`): an Euler
/// step `h₀ = 0.01 ‖y₀‖/‖f₀‖`, the second derivative estimated from it, and the step at
/// which `h^q · max(‖f₀‖, ‖f′‖) = 0.01`, at most 100 h₀. One force evaluation.
#[allow(clippy::too_many_arguments)]
fn initial_step<S: State, F: Forces<S> + ?Sized, const N: usize>(
    state: &S,
    forces: &F,
    t0: S::Scalar,
    direction: f64,
    max_step: f64,
    q: u32,
    tolerances: &Tolerances,
    rates: &mut [DerivativeOf<S>; N],
    probe: &mut S,
    sum: &mut DerivativeOf<S>,
    coordinates: &mut DerivativeOf<S>,
) -> f64 {
    let has_coordinates = state.coordinates_into(coordinates);
    let n = rates[0].dim().max(1) as f64;
    let scale = |i: usize| {
        let y = if has_coordinates {
            coordinates.component(i).to_f64().abs()
        } else {
            0.0
        };
        tolerances.absolute(i) + tolerances.relative(i) * y
    };
    let (mut dnf, mut dny) = (0.0, 0.0);
    for i in 0..rates[0].dim() {
        let sk = scale(i);
        dnf += (rates[0].component(i).to_f64() / sk).powi(2);
        if has_coordinates {
            dny += (coordinates.component(i).to_f64() / sk).powi(2);
        }
    }
    let (dnf, dny) = ((dnf / n).sqrt(), (dny / n).sqrt());
    let h0 = if dnf <= 1e-5 || dny <= 1e-5 {
        1e-6
    } else {
        0.01 * dny / dnf
    };
    let h0 = h0.min(max_step) * direction;
    state.probe_into(&rates[0], S::Scalar::from_f64(h0), probe);
    probe.derivative_into(forces, t0 + S::Scalar::from_f64(h0), sum);
    let mut second = 0.0;
    for i in 0..rates[0].dim() {
        let d = (sum.component(i) - rates[0].component(i)).to_f64() / scale(i);
        second += d * d;
    }
    let second = (second / n).sqrt() / h0.abs();
    let largest = second.max(dnf);
    let h1 = if largest <= 1e-15 {
        (h0.abs() * 1e-3).max(1e-6)
    } else {
        (0.01 / largest).powf(1.0 / f64::from(q))
    };
    (100.0 * h0.abs()).min(h1).min(max_step) * direction
}
