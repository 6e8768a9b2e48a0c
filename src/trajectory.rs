//! [`Trajectory`]: a run of fixed steps from `t0` to `t1`.

use crate::{Forces, Integrator, Scalar, State, StepError};
use num_traits::Float;

use crate::error::MAX_STEPS;

/// An iterator that steps a state from `t0` to `t1` with a fixed `dt`, yielding every
/// sample `(t, state)`: first the initial state at `t0`, then one per step, the last exactly
/// at `t1`.
///
/// Every step but the last is exactly `dt` long, whatever the times: the step length
/// never comes from the difference of two rounded sample times (far from `t = 0` those
/// differences are 0 or a whole unit in the last place, not `dt`). Sample `i` is at
/// `t0 + i·dt`, computed from `i` in `f64` and rounded once to the state's scalar, so
/// times do not drift. When `dt` does not divide the span, the last step is shortened to
/// land on `t1`, its length `(t1 − t0) − (n − 1)·dt` computed in `f64`; only a remainder
/// smaller than `√ε · |dt|` (`ε` of the state's scalar) is absorbed into the last step
/// instead, which is then that little longer than `dt`. A failed step yields its error and
/// ends the iteration.
///
/// Far from `t = 0` a time can be rounded a long way: `f32` holds only whole seconds at
/// `t = 10⁷`, so neighbouring samples there can carry the same time; the steps between
/// them are still exactly `dt` long, and the forces see the rounded `t`.
///
/// A run refuses to start ([`StepError::TooManySteps`]) if it would take more than
/// [`MAX_STEPS`](Trajectory::MAX_STEPS) steps: beyond 2⁵³ the step number itself is not
/// an exact `f64`, and a run of that length would not end in any useful time anyway.
///
/// This is odeint's `integrate_const`, as an iterator: take every `n`-th sample with
/// [`step_by`](Iterator::step_by), stop early with
/// [`take_while`](Iterator::take_while), or keep only the end with
/// [`run_to_end`](Trajectory::run_to_end).
///
/// # Example
///
/// ```
/// use timestep::{Particle, Rk4, State, Trajectory};
///
/// let gravity = |_: &Particle<f64>, _t: f64| -9.81;
/// let ball = Particle::new(1.0, 0.0, 10.0);
/// let samples: Vec<(f64, Particle<f64>)> =
///     Trajectory::new(Rk4, ball, &gravity, 0.0, 1.0, 0.3)?.collect::<Result<_, _>>()?;
/// let times: Vec<f64> = samples.iter().map(|(t, _)| *t).collect();
/// assert_eq!(times, [0.0, 0.3, 0.6, 0.8999999999999999, 1.0]);
/// let (_, end) = samples[4];
/// assert!((end.position() - (10.0 - 0.5 * 9.81)).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
///
/// A trajectory is lazy, like every iterator: made and dropped, it steps nothing, so
/// dropping one is a warning (`#[must_use]`):
///
/// ```compile_fail
/// #![deny(unused_must_use)]
/// # use timestep::{Rk4, Trajectory};
/// # fn main() -> Result<(), timestep::StepError> {
/// let decay = |y: &f64, _t: f64| -y;
/// Trajectory::new(Rk4, 1.0, &decay, 0.0, 1.0, 0.1)?; // refused: nothing runs
/// # Ok(())
/// # }
/// ```
#[derive(Clone)]
#[must_use = "a trajectory is lazy: iterate it, or call `run_to_end`"]
pub struct Trajectory<'f, S: State, I, F: ?Sized> {
    integrator: I,
    state: S,
    forces: &'f F,
    t0: S::Scalar,
    t1: S::Scalar,
    dt: S::Scalar,
    /// The length of the last step (`dt` when it divides the span).
    last_dt: S::Scalar,
    steps: usize,
    taken: usize,
    started: bool,
    /// The error that ended the run, if one did.
    failed: Option<StepError>,
}

impl<'f, S, I, F> Trajectory<'f, S, I, F>
where
    S: State,
    I: Integrator<S>,
    F: Forces<S> + ?Sized,
{
    /// The most steps a run may take: 2⁵³ = 9 007 199 254 740 992 (on targets with a
    /// narrower `usize`, `usize::MAX`). A run that would take more is refused with
    /// [`StepError::TooManySteps`].
    ///
    /// ```
    /// use timestep::{Rk4, StepError, Trajectory};
    ///
    /// assert_eq!(Trajectory::<f64, Rk4, fn(&f64, f64) -> f64>::MAX_STEPS, 1 << 53);
    /// let decay = |y: &f64, _t: f64| -y;
    /// let endless = Trajectory::new(Rk4, 1.0, &decay, 0.0, 10.0, 1e-300);
    /// assert!(matches!(endless, Err(StepError::TooManySteps { .. })));
    /// ```
    pub const MAX_STEPS: u64 = MAX_STEPS;

    /// A run of `integrator` on `state` under `forces` from `t0` to `t1` in steps of `dt`.
    /// `t1 < t0` runs backwards in time, with a negative `dt`; `t1 = t0` yields only the
    /// initial sample.
    ///
    /// # Errors
    ///
    /// [`StepError::NonFiniteTime`] if `t0`, `t1` or `dt` is not finite;
    /// [`StepError::TimeStepDirection`] if `t1 ≠ t0` and `dt` is zero or points away from
    /// `t1`; [`StepError::TooManySteps`] if the run would take more than
    /// [`MAX_STEPS`](Trajectory::MAX_STEPS) steps.
    ///
    /// ```
    /// use timestep::{Rk4, StepError, Trajectory};
    ///
    /// let decay = |y: &f64, _t: f64| -y;
    /// let backwards = Trajectory::new(Rk4, 1.0, &decay, 0.0, 1.0, -0.1);
    /// assert!(matches!(backwards, Err(StepError::TimeStepDirection { .. })));
    /// ```
    pub fn new(
        integrator: I,
        state: S,
        forces: &'f F,
        t0: S::Scalar,
        t1: S::Scalar,
        dt: S::Scalar,
    ) -> Result<Self, StepError> {
        if !(t0.is_finite() && t1.is_finite()) {
            return Err(StepError::NonFiniteTime {
                t: if t0.is_finite() {
                    t1.to_f64()
                } else {
                    t0.to_f64()
                },
                dt: dt.to_f64(),
            });
        }
        if !dt.is_finite() {
            return Err(StepError::NonFiniteTime {
                t: t0.to_f64(),
                dt: dt.to_f64(),
            });
        }
        let (steps, last_dt) = plan(t0.to_f64(), t1.to_f64(), dt.to_f64(), S::Scalar::epsilon())?;
        Ok(Trajectory {
            integrator,
            state,
            forces,
            t0,
            t1,
            dt,
            last_dt: S::Scalar::from_f64(last_dt),
            steps,
            taken: 0,
            started: false,
            failed: None,
        })
    }

    /// The number of steps the run makes in all.
    ///
    /// ```
    /// use timestep::{Rk4, Trajectory};
    ///
    /// let decay = |y: &f32, _t: f32| -y;
    /// // 2000.4 s in steps of 1 s: 2000 whole steps and a last one of 0.4 s.
    /// let run = Trajectory::new(Rk4, 1.0_f32, &decay, 0.0, 2000.4, 1.0)?;
    /// assert_eq!(run.steps(), 2001);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    #[must_use]
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The state as of the last sample yielded.
    #[must_use]
    pub fn state(&self) -> &S {
        &self.state
    }

    /// Runs the remaining steps and returns the last sample, `(t1, state at t1)`, or the
    /// first error (the samples in between are not kept, nor cloned). On a run that has
    /// already been iterated to its end it returns that end again.
    ///
    /// # Errors
    ///
    /// The first [`StepError`] of the integrator (also when the iteration already met it).
    ///
    /// ```
    /// use timestep::{Particle, State, Trajectory, Verlet};
    ///
    /// let gravity = |_: &Particle<f64>, _t: f64| -9.81;
    /// let run = Trajectory::new(Verlet, Particle::new(1.0, 0.0, 0.0), &gravity, 0.0, 2.0, 0.01)?;
    /// let (t, end) = run.run_to_end()?;
    /// assert_eq!(t, 2.0);
    /// // Verlet is exact under constant force: −½ g t².
    /// assert!((end.position() + 0.5 * 9.81 * 4.0).abs() < 1e-11);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    pub fn run_to_end(mut self) -> Result<(S::Scalar, S), StepError> {
        self.started = true;
        if let Some(error) = self.failed {
            return Err(error);
        }
        while self.taken < self.steps {
            self.step_once()?;
        }
        let t = if self.taken == 0 {
            self.t0
        } else {
            self.time(self.taken)
        };
        Ok((t, self.state))
    }

    /// The time of sample `i`: `t0 + i·dt` in `f64`, rounded once; `t1` for the last.
    fn time(&self, step: usize) -> S::Scalar {
        if step >= self.steps {
            self.t1
        } else {
            S::Scalar::from_f64(self.t0.to_f64() + self.dt.to_f64() * step as f64)
        }
    }

    /// Takes the next step (there is one) and returns its end time.
    fn step_once(&mut self) -> Result<S::Scalar, StepError> {
        let t = self.time(self.taken);
        let dt = if self.taken + 1 == self.steps {
            self.last_dt
        } else {
            self.dt
        };
        if let Err(error) = self.integrator.step(&mut self.state, self.forces, t, dt) {
            self.failed = Some(error);
            return Err(error);
        }
        self.taken += 1;
        Ok(self.time(self.taken))
    }
}

/// The number of steps from `t0` to `t1` in steps of `dt` (all `f64`, widened exactly from
/// the state's scalar, whose machine epsilon is `epsilon`), and the length of the last.
pub(crate) fn plan<E: Scalar>(
    t0: f64,
    t1: f64,
    dt: f64,
    epsilon: E,
) -> Result<(usize, f64), StepError> {
    let span = t1 - t0;
    if span == 0.0 {
        return Ok((0, dt));
    }
    if dt == 0.0 || (span > 0.0) != (dt > 0.0) {
        return Err(StepError::TimeStepDirection { span, dt });
    }
    // Also refuses a span that overflowed (t0 and t1 far apart near the top of the range).
    let ratio = span / dt;
    if ratio.is_nan() || ratio > MAX_STEPS as f64 {
        return Err(StepError::TooManySteps { span, dt });
    }
    // Whole steps, and what is left after them, brought into [0, dt) whichever way `ratio`
    // was rounded.
    let mut whole = ratio.floor();
    let mut remainder = span - whole * dt;
    let extra = (remainder / dt).floor();
    if extra != 0.0 {
        whole += extra;
        remainder -= extra * dt;
    }
    let slack = epsilon.to_f64().sqrt() * dt.abs();
    let (steps, last) = if whole >= 1.0 && remainder.abs() <= slack {
        // Absorbed: the last whole step is stretched by the remainder to land on t1.
        (whole, dt + remainder)
    } else {
        (whole + 1.0, remainder)
    };
    if steps > MAX_STEPS as f64 {
        return Err(StepError::TooManySteps { span, dt });
    }
    Ok((steps as usize, last))
}

/// Shows where the run is, without asking the forces (often a closure) to be `Debug`.
impl<S, I, F> core::fmt::Debug for Trajectory<'_, S, I, F>
where
    S: State + core::fmt::Debug,
    I: core::fmt::Debug,
    F: ?Sized,
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Trajectory")
            .field("integrator", &self.integrator)
            .field("state", &self.state)
            .field("t0", &self.t0)
            .field("t1", &self.t1)
            .field("dt", &self.dt)
            .field("steps", &self.steps)
            .field("taken", &self.taken)
            .finish_non_exhaustive()
    }
}

impl<S, I, F> Iterator for Trajectory<'_, S, I, F>
where
    S: State,
    I: Integrator<S>,
    F: Forces<S> + ?Sized,
{
    type Item = Result<(S::Scalar, S), StepError>;

    fn next(&mut self) -> Option<Self::Item> {
        if !self.started {
            self.started = true;
            return Some(Ok((self.t0, self.state.clone())));
        }
        if self.failed.is_some() || self.taken >= self.steps {
            return None;
        }
        Some(self.step_once().map(|t| (t, self.state.clone())))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = if self.failed.is_some() {
            0
        } else {
            (self.steps - self.taken).saturating_add(usize::from(!self.started))
        };
        (0, Some(left))
    }
}
