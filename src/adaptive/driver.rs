//! [`Adaptive`]: a method with error control, its settings and its workspace; the solves
//! it offers, each a short loop over a [`Run`].

use super::Step;
use super::compensation::Compensation;
use super::events::{Events, Fired, Output, watch};
use super::run::Run;
use super::snapshot::Snapshot;
#[cfg(feature = "alloc")]
use super::solution::{Integration, NoObserver};
#[cfg(feature = "alloc")]
use crate::control::ComponentTolerances;
use crate::control::{
    AdaptiveMethod, AnyTolerances, Controller, IntoAdaptive, Statistics, ToleranceSet, Tolerances,
};
use crate::{AdaptiveError, AdditiveDrift, DerivativeOf, Forces, Scalar, State, Vector};
use num_traits::Float;

/// A method stepped under error control from `t0` to `t1`: each step's local error is
/// estimated, measured against the [`Tolerances`], and the [`Controller`] picks the next
/// step; a step whose error is too large is rejected and retried smaller. The method is
/// any with error control: an embedded Runge–Kutta pair ([`Dopri5`](crate::Dopri5),
/// [`Tsit5`](crate::Tsit5), [`Bs3`](crate::Bs3), [`Dop853`](crate::Dop853)), for stiff
/// problems [`Radau5`](crate::Radau5), [`Seulex`](crate::Seulex) or a Rosenbrock method
/// ([`Rodas4`](crate::Rodas4), [`Ros3p`](crate::Ros3p)), or one chosen by name
/// ([`AdaptiveKind`](crate::AdaptiveKind)).
///
/// - [`solve`](Adaptive::solve): the state from `t0` to `t1`, in place, nothing kept.
/// - [`integrate`](Adaptive::integrate)`(…).solve()`: a [`Solution`](super::Solution)
///   (the steps or requested samples, the dense output at any `t`, the events, the
///   statistics), with events, samples and an observer in one run.
/// - [`start`](Adaptive::start): a [`Run`] you step yourself.
///
/// It keeps its workspace (the method's stage values, the candidate state) between runs,
/// like a [`Stepper`](crate::Stepper): after the first run nothing allocates, for states
/// of any size. A run on a state of another size makes a new workspace.
///
/// # Example
///
/// The Arenstorf orbit, a periodic three-body orbit (Hairer–Nørsett–Wanner I, II.0),
/// integrated over one period with Dormand–Prince 5(4) at tolerances 10⁻⁷, from a first
/// step of 10⁻⁴ as in dopri5.f's test driver: it returns to its start.
///
/// ```
/// use timestep::{Adaptive, Dopri5, Tolerances};
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
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
pub struct Adaptive<S: State, M: AdaptiveMethod<S>> {
    pub(super) method: M,
    pub(super) tolerances: AnyTolerances,
    pub(super) controller: Controller,
    pub(super) initial_step: Option<f64>,
    pub(super) max_step: Option<f64>,
    pub(super) max_steps: u64,
    pub(super) stiffness_test: u64,
    pub(super) compensated: bool,
    pub(super) workspace: Option<Workspace<S, M>>,
}

/// The buffers of an adaptive run: the method's, and the driver's own.
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        deny_unknown_fields,
        bound(
            serialize = "S: crate::SerdeState, M::Workspace: serde::Serialize",
            deserialize = "S: crate::SerdeState, M::Workspace: serde::Deserialize<'de>"
        )
    )
)]
pub(super) struct Workspace<S: State, M: AdaptiveMethod<S>> {
    pub(super) method: M::Workspace,
    /// The candidate of an attempt; after an accepted step, the state before it.
    pub(super) other: S,
    /// A state inside a step, where events and samples are read.
    pub(super) probe: S,
    /// The rate after the trial step of the first step's choice.
    pub(super) rate: DerivativeOf<S>,
    /// What a compensated run carries between steps; `None` for a plain run.
    #[cfg_attr(feature = "serde", serde(default))]
    pub(super) compensation: Option<Compensation<S>>,
}

impl<S: State, M: AdaptiveMethod<S>> Clone for Workspace<S, M>
where
    M::Workspace: Clone,
{
    fn clone(&self) -> Self {
        Workspace {
            method: self.method.clone(),
            other: self.other.clone(),
            probe: self.probe.clone(),
            rate: self.rate.clone(),
            compensation: self.compensation.clone(),
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.method.clone_from(&source.method);
        self.other.clone_from(&source.other);
        self.probe.clone_from(&source.probe);
        self.rate.clone_from(&source.rate);
        self.compensation.clone_from(&source.compensation);
    }
}

impl<S: State, M: AdaptiveMethod<S>> Workspace<S, M> {
    pub(super) fn new(method: &M, state: &S) -> Self {
        Workspace {
            method: method.workspace(state),
            other: state.clone(),
            probe: state.clone(),
            rate: state.zero_rate(),
            compensation: None,
        }
    }

    /// Readies the workspace for a run from `state`, compensated or not: a compensated
    /// run starts with nothing lost.
    pub(super) fn compensate(&mut self, compensated: bool, state: &S) {
        match (&mut self.compensation, compensated) {
            (Some(compensation), true) => compensation.reset(),
            (None, true) => self.compensation = Some(Compensation::new(state)),
            (_, false) => self.compensation = None,
        }
    }
}

impl<S: State, M: AdaptiveMethod<S>> Adaptive<S, M> {
    /// The `method` with tolerances of 10⁻⁶ (relative and absolute), the method's own
    /// [`Controller`] (dopri5.f's for most), an automatic first step, steps up to the whole
    /// span and at most 100 000 steps.
    #[must_use]
    pub fn new<I: IntoAdaptive<Method = M>>(method: I) -> Self {
        let method = method.into_adaptive();
        Adaptive {
            controller: method.controller(),
            method,
            tolerances: AnyTolerances::Uniform(Tolerances::default()),
            initial_step: None,
            max_step: None,
            max_steps: 100_000,
            stiffness_test: 1000,
            compensated: false,
            workspace: None,
        }
    }

    /// The same solver with other tolerances, the same for every coordinate.
    #[must_use]
    pub fn with_tolerances(self, tolerances: Tolerances) -> Self {
        let tolerances = AnyTolerances::Uniform(tolerances);
        Adaptive { tolerances, ..self }
    }

    /// The same solver with one relative and one absolute tolerance per coordinate,
    /// checked against the state's size when a run starts.
    #[cfg(feature = "alloc")]
    #[must_use]
    pub fn with_component_tolerances(self, tolerances: ComponentTolerances) -> Self {
        let tolerances = AnyTolerances::PerComponent(tolerances);
        Adaptive { tolerances, ..self }
    }

    /// The same solver with another step-size controller.
    #[must_use]
    pub fn with_controller(self, controller: Controller) -> Self {
        Adaptive { controller, ..self }
    }

    /// The same solver starting with a step of `|h|` (in the direction of the run) instead
    /// of choosing one. `h` must be finite and non-zero: a run refuses it otherwise.
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
    /// use timestep::{Adaptive, Dopri5};
    ///
    /// let stiff = |y: &f64, t: f64| -1e4 * (y - t.cos());
    /// let mut y = 0.0_f64;
    /// let statistics = Adaptive::new(Dopri5)
    ///     .with_stiffness_test(1)
    ///     .solve(&mut y, &stiff, 0.0, 1.0)?;
    /// assert!(statistics.accepted > 2500); // 1/(3.3·10⁻⁴) steps at least
    /// let became_stiff = statistics.stiff_from.expect("a stiff problem");
    /// assert!(became_stiff < 0.05);
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    #[must_use]
    pub fn with_stiffness_test(self, every: u64) -> Self {
        Adaptive {
            stiffness_test: every,
            ..self
        }
    }

    /// The same solver adding each accepted step to the state, and each step's length to
    /// the time, with **compensated summation** (Kahan), as
    /// [`Compensated`](crate::Compensated) does for the compositions: the method gives
    /// the step's increment `d`, the driver adds `d + c` to the state and keeps in `c` what
    /// that sum rounds off (exactly, coordinate by coordinate), and the same for `t + h`.
    /// Over many steps a plain run's state takes a rounding of half an ulp at every step,
    /// a random walk (or a drift) that a long run at tight tolerances ends in; compensated,
    /// what is left is the rounding of the increments, `|d|/|y|` times smaller.
    ///
    /// - **Methods**: the explicit pairs ([`Dopri5`](crate::Dopri5), [`Dop853`](crate::Dop853),
    ///   Verner's, …) and the Nyström pairs ([`Dprkn6`](crate::Dprkn6),
    ///   [`Dprkn12`](crate::Dprkn12)), also by name, which sum their increment apart. Any
    ///   other method is refused when a run starts
    ///   ([`AdaptiveError::CompensationUnsupported`]).
    /// - **States**: those whose steps add to their coordinates ([`AdditiveDrift`]): every
    ///   [`Vector`], [`Particle`](crate::Particle), [`Particles`](crate::Particles).
    /// - **Cost**: per accepted step, one more weighted sum of the stages (the increment)
    ///   and a TwoSum per coordinate; two more state-sized buffers.
    /// - What was lost is forgotten where the state is set rather than stepped: at a
    ///   run's start, after [`Run::state_mut`](crate::adaptive::Run::state_mut), at an
    ///   event that cuts the step. A [snapshot](crate::adaptive::Snapshot) keeps it.
    /// - An [adjoint gradient](crate::sensitivity::Adjoint::gradient) takes the steps
    ///   again without it: it is the gradient of the plain method's steps.
    ///
    /// # Example
    ///
    /// A rate of 2⁻⁵⁰ from `y = 1`, in steps of at most 2⁻¹⁰: each step's change, 2⁻⁶⁰ or
    /// less, is below half an ulp of 1 (2⁻⁵³). Plain, the state never moves; compensated,
    /// it gathers every change and lands on `1 + 2⁻⁵⁰` exactly.
    ///
    /// ```
    /// use timestep::{Adaptive, Dopri5};
    ///
    /// let rate = |_: &f64, _t: f64| 2f64.powi(-50);
    /// let solver = || Adaptive::new(Dopri5).with_max_step(2f64.powi(-10));
    /// let (mut plain, mut compensated) = (1.0_f64, 1.0_f64);
    /// solver().solve(&mut plain, &rate, 0.0, 1.0)?;
    /// solver()
    ///     .with_compensated_summation()
    ///     .solve(&mut compensated, &rate, 0.0, 1.0)?;
    /// assert_eq!(plain, 1.0);
    /// assert_eq!(compensated, 1.0 + 2f64.powi(-50));
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    #[must_use]
    pub fn with_compensated_summation(self) -> Self
    where
        S: AdditiveDrift,
    {
        Adaptive {
            compensated: true,
            ..self
        }
    }

    /// The method stepped.
    #[must_use]
    pub fn method(&self) -> &M {
        &self.method
    }

    /// The tolerances.
    #[must_use]
    pub fn tolerances(&self) -> &impl ToleranceSet {
        &self.tolerances
    }

    /// Starts a run of `state` from `t0` to `t1` (backwards when `t1 < t0`) that you step
    /// yourself ([`Run::step`], [`Run::try_step`]); it lands exactly on `t1`.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError`] for non-finite times or invalid settings (tolerances, controller,
    /// initial or largest step).
    pub fn start<'a, F: Forces<S> + ?Sized>(
        &'a mut self,
        state: &'a mut S,
        forces: &'a F,
        t0: S::Scalar,
        t1: S::Scalar,
    ) -> Result<Run<'a, S, M, F>, AdaptiveError> {
        if !(t0.is_finite() && t1.is_finite()) {
            return Err(AdaptiveError::NonFiniteTime {
                t0: t0.to_f64(),
                t1: t1.to_f64(),
            });
        }
        self.check_settings()?;
        let dim = state.rate_dim();
        self.tolerances.check(dim)?;
        let workspace = match &mut self.workspace {
            Some(workspace) if workspace.rate.dim() == dim => workspace,
            workspace => workspace.insert(Workspace::new(&self.method, state)),
        };
        workspace.compensate(self.compensated, state);
        Ok(Run::new(self, state, forces, t0.to_f64(), t1.to_f64()))
    }

    /// Resumes a run saved by [`Run::snapshot`]: `state` becomes the saved state, the
    /// solver's workspace the saved one (the FSAL stage, a kept Jacobian and
    /// factorisation), and the run goes on from the saved time with the saved controller
    /// memory and counters. With the solver's settings those of the saved run, it goes
    /// on bit for bit as the run that was never interrupted (a rollback's resimulation,
    /// a checkpoint's restart); other settings are checked and used from here on (the
    /// tolerances, the controller, the largest step, which shortens the saved next step
    /// too, the stiffness test's period, the most steps), all but the initial step, which
    /// was the saved run's.
    ///
    /// ```
    /// use timestep::{Adaptive, Dopri5, Tolerances};
    ///
    /// let decay = |y: &f64, t: f64| -y * t.cos();
    /// let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-9, 1e-9));
    /// let mut y = 1.0_f64;
    /// let mut run = solver.start(&mut y, &decay, 0.0, 10.0)?;
    /// for _ in 0..5 {
    ///     run.step()?;
    /// }
    /// let saved = run.snapshot();
    /// while run.step()? {}
    /// let first = (*run.state(), run.statistics());
    ///
    /// let mut z = 0.0; // overwritten by the saved state
    /// let mut again = solver.resume(&saved, &mut z, &decay)?;
    /// while again.step()? {}
    /// assert_eq!((*again.state(), again.statistics()), first);
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`AdaptiveError`] for invalid settings (tolerances, controller, initial or largest
    /// step), as [`start`](Adaptive::start); [`AdaptiveError::SnapshotMismatch`] for a
    /// snapshot loaded with serde that does not fit this solver (its workspace made for a
    /// state of another size, or by another method, or its times not a run's).
    pub fn resume<'a, F: Forces<S> + ?Sized>(
        &'a mut self,
        snapshot: &Snapshot<S, M>,
        state: &'a mut S,
        forces: &'a F,
    ) -> Result<Run<'a, S, M, F>, AdaptiveError>
    where
        M::Workspace: Clone,
    {
        self.check_settings()?;
        self.tolerances.check(snapshot.workspace.rate.dim())?;
        #[cfg(feature = "serde")]
        if let Some(fits) = snapshot.loaded {
            if !fits(&self.method, snapshot) {
                return Err(AdaptiveError::SnapshotMismatch);
            }
        }
        match &mut self.workspace {
            Some(workspace) if workspace.rate.dim() == snapshot.workspace.rate.dim() => {
                workspace.clone_from(&snapshot.workspace);
            }
            workspace => *workspace = Some(snapshot.workspace.clone()),
        }
        state.clone_from(&snapshot.state);
        let workspace = self
            .workspace
            .as_mut()
            .expect("the snapshot's workspace, just set");
        if workspace.compensation.is_some() != self.compensated {
            workspace.compensate(self.compensated, state);
        }
        let progress = snapshot
            .progress
            .clone()
            .resumed(self.max_step, self.stiffness_test);
        Ok(Run::with_progress(self, state, forces, progress))
    }

    /// Checks the controller and the initial and largest steps.
    fn check_settings(&self) -> Result<(), AdaptiveError> {
        if !self.controller.is_valid() {
            return Err(AdaptiveError::InvalidController);
        }
        if self.compensated && !self.method.gives_increment() {
            return Err(AdaptiveError::CompensationUnsupported);
        }
        let invalid_step = |h: Option<f64>, infinite_allowed: bool| {
            h.filter(|h| h.is_nan() || *h == 0.0 || (!infinite_allowed && h.is_infinite()))
                .map(|h| AdaptiveError::InvalidStep { h })
        };
        match invalid_step(self.max_step, true).or_else(|| invalid_step(self.initial_step, false)) {
            Some(error) => Err(error),
            None => Ok(()),
        }
    }

    /// Integrates `state` from `t0` to `t1` (backwards when `t1 < t0`), landing exactly on
    /// `t1`, keeping nothing but the end.
    ///
    /// # Errors
    ///
    /// [`AdaptiveError`] for non-finite times or invalid settings (the state untouched), and
    /// for a run that cannot go on (a step too small for the precision of `t`, a non-finite
    /// error estimate, a method's step failing however short, too many steps): the state
    /// is then the last accepted one, at the time the error reports.
    pub fn solve<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        t1: S::Scalar,
    ) -> Result<Statistics, AdaptiveError> {
        let mut run = self.start(state, forces, t0, t1)?;
        while run.step()? {}
        Ok(run.statistics())
    }

    /// A run from `state` at `t0` to `t1` to be set up ([`Integration::at`] for samples,
    /// [`Integration::events`], [`Integration::observe`], [`Integration::keep_dense`])
    /// and [solved](Integration::solve) into a [`Solution`](super::Solution).
    ///
    /// # Example
    ///
    /// ```
    /// use timestep::{Adaptive, Dopri5, Tolerances};
    ///
    /// let decay = |y: &f64, _t: f64| -y;
    /// let solution = Adaptive::new(Dopri5)
    ///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
    ///     .integrate(&decay, 1.0, 0.0, 3.0)
    ///     .solve()?;
    /// // Anywhere in the span, from the dense output.
    /// assert!((solution.at(1.234).unwrap() - (-1.234_f64).exp()).abs() < 1e-9);
    /// assert_eq!(*solution.times.last().unwrap(), 3.0);
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    #[cfg(feature = "alloc")]
    pub fn integrate<'a, F: Forces<S> + ?Sized>(
        &'a mut self,
        forces: &'a F,
        state: S,
        t0: S::Scalar,
        t1: S::Scalar,
    ) -> Integration<'a, S, M, F, (), NoObserver<S, M, F>> {
        Integration::new(self, forces, state, t0, t1)
    }

    /// [`solve`](Adaptive::solve), calling `observer` after every accepted step with that
    /// [`Step`](super::Step), from which it can read the state anywhere inside the step.
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
        O: for<'r, 'a> FnMut(&mut Step<'r, 'a, S, M, F>),
    {
        let mut run = self.start(state, forces, t0, t1)?.with_dense_output();
        watch(&mut run, &mut (), &[], &mut Observing(observer))?;
        Ok(run.statistics())
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
    /// use timestep::{Adaptive, Dopri5, Tolerances};
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
    /// # Ok::<(), timestep::AdaptiveError>(())
    /// ```
    pub fn solve_at<F, H>(
        &mut self,
        state: &mut S,
        forces: &F,
        t0: S::Scalar,
        times: &[S::Scalar],
        sample: H,
    ) -> Result<Statistics, AdaptiveError>
    where
        F: Forces<S> + ?Sized,
        H: FnMut(S::Scalar, &S),
    {
        let t1 = *times.last().ok_or(AdaptiveError::InvalidSampleTimes)?;
        check_times(times, t0, t1)?;
        let mut run = self.start(state, forces, t0, t1)?.with_dense_output();
        watch(&mut run, &mut (), times, &mut Sampling(sample))?;
        Ok(run.statistics())
    }

    /// [`solve`](Adaptive::solve), watching `events` ([`Event`](super::Event) or a tuple of
    /// them): at each one located, the state is moved to it, its action applied, and
    /// `on_event(index, t, &state)` called (for events crossing at the same instant, each
    /// in turn, in index order); a terminal event ends the run there (the state is then at
    /// the event).
    ///
    /// # Errors
    ///
    /// As [`solve`](Adaptive::solve); [`AdaptiveError::EventNotANumber`] for an event
    /// function that is `NaN` where it is read; [`AdaptiveError::TooManyEvents`] for more
    /// than four events (the state untouched).
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
        let mut run = self.start(state, forces, t0, t1)?.with_dense_output();
        watch(&mut run, events, &[], &mut OnEvent(on_event))?;
        Ok(run.statistics())
    }
}

/// Hands every step to an observer.
struct Observing<O>(O);

impl<S, M, F, O> Output<S, M, F> for Observing<O>
where
    S: State,
    M: AdaptiveMethod<S>,
    F: Forces<S> + ?Sized,
    O: for<'r, 'a> FnMut(&mut Step<'r, 'a, S, M, F>),
{
    fn step(&mut self, step: &mut Step<'_, '_, S, M, F>) {
        (self.0)(step);
    }
}

/// Hands every sample to a function of the time and the state.
struct Sampling<H>(H);

impl<S, M, F, H> Output<S, M, F> for Sampling<H>
where
    S: State,
    M: AdaptiveMethod<S>,
    F: Forces<S> + ?Sized,
    H: FnMut(S::Scalar, &S),
{
    fn sample(&mut self, t: S::Scalar, state: &S) {
        (self.0)(t, state);
    }
}

/// Hands every event to a function of its index, time and the state after its action.
struct OnEvent<H>(H);

impl<S, M, F, H> Output<S, M, F> for OnEvent<H>
where
    S: State,
    M: AdaptiveMethod<S>,
    F: Forces<S> + ?Sized,
    H: FnMut(usize, S::Scalar, &S),
{
    fn event(&mut self, fired: Fired<S>) {
        (self.0)(fired.index, fired.t, &fired.after);
    }
}

/// Checks that sample times are finite and ordered from `t0` towards `t1`, within the
/// span.
pub(super) fn check_times<T: Scalar>(times: &[T], t0: T, t1: T) -> Result<(), AdaptiveError> {
    let direction = (t1 - t0).to_f64().signum();
    let mut previous = t0;
    for &t in times {
        if !t.is_finite()
            || (t - previous).to_f64() * direction < 0.0
            || (t - t1).to_f64() * direction > 0.0
        {
            return Err(AdaptiveError::InvalidSampleTimes);
        }
        previous = t;
    }
    Ok(())
}
