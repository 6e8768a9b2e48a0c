//! [`Trajectory`]: a run of fixed steps from `t0` to `t1`.

use crate::{Forces, Integrator, Scalar, State, StepError};
use num_traits::{Float, One, Zero};

/// An iterator that steps a state from `t0` to `t1` with a fixed `dt`, yielding every
/// sample `(t, state)`: first the initial state at `t0`, then one per step, the last exactly
/// at `t1`.
///
/// Times are computed as `t0 + i·dt`, not accumulated, so they do not drift. When `dt`
/// does not divide the span, the last step is shortened to land on `t1`; a remainder
/// smaller than `√ε · dt` is absorbed into the last step instead. A failed step yields its
/// error and ends the iteration.
///
/// This is odeint's `integrate_const`, as an iterator: take every `n`-th sample with
/// [`step_by`](Iterator::step_by), keep only the end with [`last`](Iterator::last), or
/// stop early with [`take_while`](Iterator::take_while).
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
/// assert_eq!(times.len(), 5);
/// assert_eq!(times[4], 1.0);
/// let (_, end) = samples[4];
/// assert!((end.position() - (10.0 - 0.5 * 9.81)).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Trajectory<'f, S: State, I, F: ?Sized> {
    integrator: I,
    state: S,
    forces: &'f F,
    t0: S::Scalar,
    t1: S::Scalar,
    dt: S::Scalar,
    steps: usize,
    taken: usize,
    started: bool,
    failed: bool,
}

impl<'f, S, I, F> Trajectory<'f, S, I, F>
where
    S: State,
    I: Integrator<S>,
    F: Forces<S> + ?Sized,
{
    /// A run of `integrator` on `state` under `forces` from `t0` to `t1` in steps of `dt`.
    /// `t1 < t0` runs backwards in time, with a negative `dt`; `t1 = t0` yields only the
    /// initial sample.
    ///
    /// # Errors
    ///
    /// [`StepError::NonFiniteTime`] if `t0`, `t1` or `dt` is not finite;
    /// [`StepError::TimeStepDirection`] if `t1 ≠ t0` and `dt` is zero or points away from
    /// `t1`.
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
        let span = t1 - t0;
        let steps = if span == S::Scalar::zero() {
            0
        } else {
            let ratio = span / dt;
            if !ratio.is_finite() || ratio <= S::Scalar::zero() {
                return Err(StepError::TimeStepDirection {
                    span: span.to_f64(),
                    dt: dt.to_f64(),
                });
            }
            let nearest = ratio.round();
            let slack = S::Scalar::epsilon().sqrt() * ratio.max(S::Scalar::one());
            let whole = if (ratio - nearest).abs() <= slack && nearest >= S::Scalar::one() {
                nearest
            } else {
                ratio.ceil()
            };
            whole.to_f64() as usize
        };
        Ok(Trajectory {
            integrator,
            state,
            forces,
            t0,
            t1,
            dt,
            steps,
            taken: 0,
            started: false,
            failed: false,
        })
    }

    /// The number of steps the run makes in all.
    pub fn steps(&self) -> usize {
        self.steps
    }

    /// The state as of the last sample yielded.
    pub fn state(&self) -> &S {
        &self.state
    }

    fn time(&self, step: usize) -> S::Scalar {
        if step >= self.steps {
            self.t1
        } else {
            self.t0 + self.dt * S::Scalar::from_f64(step as f64)
        }
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
        if self.failed || self.taken >= self.steps {
            return None;
        }
        let t = self.time(self.taken);
        let t_next = self.time(self.taken + 1);
        if let Err(error) = self
            .integrator
            .step(&mut self.state, self.forces, t, t_next - t)
        {
            self.failed = true;
            return Some(Err(error));
        }
        self.taken += 1;
        Some(Ok((t_next, self.state.clone())))
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let left = if self.failed {
            0
        } else {
            self.steps - self.taken + usize::from(!self.started)
        };
        (0, Some(left))
    }
}
