//! Batches: one step for a whole slice of states in one call, serially with [`step_all`] or
//! on rayon's thread pool with `par_step_all` (behind the `rayon` feature).
//!
//! A game steps thousands of bodies a frame under the same forces and time step. These
//! functions do that loop for it, and the parallel one splits the slice into chunks of
//! [`CHUNK`] states that rayon's workers step side by side.
//!
//! # Integrators
//!
//! The `integrator` given is a template: each state is stepped by its own clone, made just
//! before its step, so no state sees another's memory. The methods without memory are unit
//! structs or settings, so the clone costs nothing.
//!
//! The methods with a history ([`PositionVerlet`](crate::PositionVerlet), Beeman,
//! Adams–Bashforth–Moulton) are the exception: their memory belongs to the one trajectory
//! their stepper last stepped. The position Verlet case, for example: Give these functions a **fresh** one
//! ([`PositionVerlet::new`](crate::PositionVerlet::new)): every state's clone then has no
//! memory and bootstraps from the state's velocity, every step, which makes each step a
//! velocity-[`Verlet`](crate::Verlet) step in its positions (identical in exact arithmetic,
//! within rounding in floating point). A template *with* memory would apply the last step of
//! its own trajectory to every state, which is wrong for all but that one. To keep the
//! position form's memory across steps, keep one `PositionVerlet` per state and step them
//! yourself:
//!
//! ```
//! use timestep::{Integrator, Particle, PositionVerlet};
//!
//! let gravity = |p: &Particle<f64>, _t: f64| -9.81 * p.mass();
//! let mut bodies = vec![Particle::new(1.0, 0.0, 1.0); 4];
//! let mut integrators = vec![PositionVerlet::new(); bodies.len()];
//! for (body, integrator) in bodies.iter_mut().zip(&mut integrators) {
//!     integrator.step(body, &gravity, 0.0, 0.01)?;
//! }
//! # Ok::<(), timestep::StepError>(())
//! ```
//!
//! # Errors
//!
//! A failed step leaves its state unchanged (as [`Integrator::step`] always does) and does
//! not stop the batch: **every state whose step succeeds is stepped**, the failed ones are
//! left as they were, and the error returned ([`BatchError`]) is the one of the failed state
//! with the lowest index, with the number of states that failed. This is the same for the
//! serial and the parallel function, so which states moved never depends on the thread
//! schedule. A non-finite `t` or `dt` fails every state.
//!
//! A force that **panics** is not an error: the panic propagates out of `step_all` (or
//! `par_step_all`, from whichever worker met it) and leaves the slice partly stepped (some
//! states advanced by `dt`, the rest as they were; which ones is unspecified, since the
//! order of stepping is), and the state being stepped when it hit may be partly updated.
//!
//! # Order
//!
//! Each state's step depends on that state alone, so the order in which the states are
//! stepped changes no result, and it is not specified: the serial function steps four
//! interleaved parts of the slice side by side, which keeps more of memory's bandwidth
//! busy. It shows only to forces with side effects (a call counter, say).
//!
//! # Example
//!
//! ```
//! use glam::Vec3;
//! use timestep::batch::step_all;
//! use timestep::{Particle, SemiImplicitEuler};
//!
//! let gravity = |p: &Particle<Vec3>, _t: f32| Vec3::new(0.0, -9.81, 0.0) * p.mass();
//! let mut particles: Vec<Particle<Vec3>> = (0..1000)
//!     .map(|i| Particle::new(1.0, Vec3::new(i as f32, 100.0, 0.0), Vec3::ZERO))
//!     .collect();
//! for frame in 0..60 {
//!     step_all(&SemiImplicitEuler, &mut particles, &gravity, frame as f32 / 60.0, 1.0 / 60.0)?;
//! }
//! assert!(particles.iter().all(|p| p.position().y < 100.0 - 4.9));
//! # Ok::<(), timestep::batch::BatchError>(())
//! ```

use crate::{Forces, Integrator, State, StepError};
use core::fmt;

/// States per chunk in the parallel batch: large enough that a chunk's work (tens of
/// microseconds for the cheapest step) dwarfs rayon's cost of handing it to a thread, small
/// enough that a million states make hundreds of chunks to balance between threads.
/// (Chunks of 1024 to 65 536 states measured alike; see BENCHMARKS.md.)
///
/// ```
/// use timestep::batch::CHUNK;
///
/// // A million particles are 245 chunks: plenty to share between the cores.
/// assert_eq!(1_000_000_usize.div_ceil(CHUNK), 245);
/// ```
pub const CHUNK: usize = 4096;

/// Why a batch did not step every state: the error of the failed state with the lowest
/// index, and how many failed.
///
/// Every state not counted in `failed` was stepped; the failed ones are unchanged.
///
/// # Example
///
/// ```
/// use timestep::batch::{BatchError, step_all};
/// use timestep::{Rk4, StepError};
///
/// let mut values = [1.0_f64, 2.0];
/// let error = step_all(&Rk4, &mut values, &|y: &f64, _t: f64| -y, 0.0, f64::NAN).unwrap_err();
/// assert_eq!((error.index, error.failed), (0, 2));
/// assert!(matches!(error.error, StepError::NonFiniteTime { .. }));
/// assert_eq!(values, [1.0, 2.0]);
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchError {
    /// The index of the first state (in slice order) whose step failed.
    pub index: usize,
    /// How many states failed (at least 1).
    pub failed: usize,
    /// Why the state at `index` failed.
    pub error: StepError,
}

impl BatchError {
    /// The combined report of two parts of a batch: the lower index wins, counts add up.
    fn merge(self, other: BatchError) -> BatchError {
        let first = if other.index < self.index {
            other
        } else {
            self
        };
        BatchError {
            failed: self.failed + other.failed,
            ..first
        }
    }
}

impl fmt::Display for BatchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{} state(s) of the batch failed, the first at index {}: {}",
            self.failed, self.index, self.error
        )
    }
}

impl core::error::Error for BatchError {
    fn source(&self) -> Option<&(dyn core::error::Error + 'static)> {
        Some(&self.error)
    }
}

/// Steps every state of `states` from `t` to `t + dt` under `forces`, each with its own
/// clone of `integrator`, in slice order, on the calling thread.
///
/// Equivalent to `integrator.clone().step(state, forces, t, dt)` for each state, except that
/// a failure does not stop the others: see the [module docs](self) for errors and for
/// [`PositionVerlet`](crate::PositionVerlet). Allocates nothing.
///
/// # Errors
///
/// [`BatchError`] if any step failed: the lowest failed index, its [`StepError`], and how
/// many failed. Every other state was stepped.
///
/// # Example
///
/// ```
/// use timestep::batch::step_all;
/// use timestep::{Integrator, Particle, Rk4};
///
/// let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
/// let mut many = vec![Particle::new(1.0, 1.0, 0.0), Particle::new(2.0, -1.0, 3.0)];
/// let mut one_by_one = many.clone();
/// step_all(&Rk4, &mut many, &spring, 0.0, 0.01)?;
/// for particle in &mut one_by_one {
///     Rk4.step(particle, &spring, 0.0, 0.01)?;
/// }
/// assert_eq!(many, one_by_one);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub fn step_all<S, I, F>(
    integrator: &I,
    states: &mut [S],
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
) -> Result<(), BatchError>
where
    S: State,
    I: Integrator<S> + Clone,
    F: Forces<S> + ?Sized,
{
    step_slice(integrator, states, 0, forces, t, dt)
}

/// [`step_all`] on `states`, whose first element has index `offset` in the whole batch.
#[inline]
fn step_slice<S, I, F>(
    integrator: &I,
    states: &mut [S],
    offset: usize,
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
) -> Result<(), BatchError>
where
    S: State,
    I: Integrator<S> + Clone,
    F: Forces<S> + ?Sized,
{
    // Stepping one state after another leaves a single core far below the memory's
    // bandwidth: one sequential stream does not keep enough cache misses in flight. So the
    // slice is cut into `STREAMS` equal parts, stepped side by side (state `i` of every part,
    // then `i + 1` of every part, …): the prefetchers follow several streams at once. See
    // BENCHMARKS.md for the measurements (about 1.6× on 10⁶ particles).
    let part = states.len().div_ceil(STREAMS);
    let mut report: Option<BatchError> = None;
    if part == 0 {
        return Ok(());
    }
    let mut parts = states.chunks_mut(part);
    let mut streams: [&mut [S]; STREAMS] =
        core::array::from_fn(|_| parts.next().unwrap_or(&mut []));
    for i in 0..part {
        for (k, stream) in streams.iter_mut().enumerate() {
            if let Some(state) = stream.get_mut(i) {
                if let Err(error) = integrator.clone().step(state, forces, t, dt) {
                    report = Some(failure(report, offset + k * part + i, error));
                }
            }
        }
    }
    report.map_or(Ok(()), Err)
}

/// How many parts of a slice [`step_slice`] steps side by side.
const STREAMS: usize = 4;

/// The report so far with one more failure at `index`. Out of line: it is the rare path,
/// and keeping it out of the stepping loop keeps that loop small.
#[cold]
#[inline(never)]
fn failure(report: Option<BatchError>, index: usize, error: StepError) -> BatchError {
    let this = BatchError {
        index,
        failed: 1,
        error,
    };
    match report {
        Some(report) => report.merge(this),
        None => this,
    }
}

/// [`step_all`] in parallel on rayon's global thread pool: the slice is cut into chunks of
/// [`CHUNK`] states, and each chunk is stepped in order by one worker.
///
/// The states end exactly as [`step_all`] leaves them (each state's step depends on that
/// state alone), and so does the error: see the [module docs](self). Needs the `rayon`
/// feature. Allocates only what rayon allocates to schedule the chunks.
///
/// # Errors
///
/// [`BatchError`] if any step failed: the lowest failed index, its [`StepError`], and how
/// many failed. Every other state was stepped.
///
/// # Example
///
/// ```
/// use glam::DVec3;
/// use timestep::batch::{par_step_all, step_all};
/// use timestep::{Particle, Rk4};
///
/// let drag = |p: &Particle<DVec3>, _t: f64| -0.5 * p.momentum() + DVec3::NEG_Z * 9.81;
/// let start: Vec<Particle<DVec3>> = (0..10_000)
///     .map(|i| Particle::new(1.0 + i as f64, DVec3::ZERO, DVec3::new(1.0, 2.0, 3.0)))
///     .collect();
/// let mut parallel = start.clone();
/// let mut serial = start;
/// par_step_all(&Rk4, &mut parallel, &drag, 0.0, 0.01)?;
/// step_all(&Rk4, &mut serial, &drag, 0.0, 0.01)?;
/// assert_eq!(parallel, serial);
/// # Ok::<(), timestep::batch::BatchError>(())
/// ```
#[cfg(feature = "rayon")]
pub fn par_step_all<S, I, F>(
    integrator: &I,
    states: &mut [S],
    forces: &F,
    t: S::Scalar,
    dt: S::Scalar,
) -> Result<(), BatchError>
where
    S: State + Send,
    I: Integrator<S> + Clone + Sync,
    F: Forces<S> + Sync + ?Sized,
{
    use rayon::prelude::*;

    states
        .par_chunks_mut(CHUNK)
        .enumerate()
        .map(|(c, chunk)| step_slice(integrator, chunk, c * CHUNK, forces, t, dt))
        .reduce(
            || Ok(()),
            |a, b| match (a, b) {
                (Err(a), Err(b)) => Err(a.merge(b)),
                (Err(e), Ok(())) | (Ok(()), Err(e)) => Err(e),
                (Ok(()), Ok(())) => Ok(()),
            },
        )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{BackwardEuler, Particle, Rk4};

    /// Forces that are NaN for states at negative positions, so backward Euler refuses them.
    fn poisoned(p: &Particle<f64>, _t: f64) -> f64 {
        if p.position() < 0.0 {
            f64::NAN
        } else {
            -p.position()
        }
    }

    fn mixed() -> Vec<Particle<f64>> {
        [1.0, -1.0, 2.0, -2.0, 3.0]
            .map(|x| Particle::new(1.0, x, 0.0))
            .to_vec()
    }

    #[test]
    fn failures_leave_their_states_and_step_the_others() {
        let start = mixed();
        let mut states = start.clone();
        let error = step_all(&BackwardEuler::new(), &mut states, &poisoned, 0.0, 0.1).unwrap_err();
        assert_eq!((error.index, error.failed), (1, 2));
        assert_eq!(error.error, StepError::NonFiniteResidual);
        for (i, (after, before)) in states.iter().zip(&start).enumerate() {
            if before.position() < 0.0 {
                assert_eq!(after, before, "failed state {i} must be unchanged");
            } else {
                assert!(
                    after.position() < before.position(),
                    "state {i} must be stepped"
                );
            }
        }
    }

    #[test]
    fn the_lowest_failed_index_is_reported_whatever_the_order_of_stepping() {
        // Eight states are stepped as four interleaved streams, 0 2 4 6 1 3 5 7: the failure
        // at 4 is met before the one at 1, and 1 must still be the one reported.
        let mut states: Vec<Particle<f64>> = (0..8)
            .map(|i| Particle::new(1.0, if i == 1 || i == 4 { -1.0 } else { 1.0 }, 0.0))
            .collect();
        let error = step_all(&BackwardEuler::new(), &mut states, &poisoned, 0.0, 0.1).unwrap_err();
        assert_eq!((error.index, error.failed), (1, 2));
    }

    #[test]
    fn merge_keeps_the_lowest_index_and_adds_counts() {
        let e = |index, failed| BatchError {
            index,
            failed,
            error: StepError::SingularJacobian,
        };
        assert_eq!(e(7, 2).merge(e(3, 1)), e(3, 3));
        assert_eq!(e(3, 1).merge(e(7, 2)), e(3, 3));
    }

    #[test]
    fn empty_batches_succeed() {
        let mut none: [f64; 0] = [];
        assert_eq!(
            step_all(&Rk4, &mut none, &|y: &f64, _t: f64| -y, 0.0, 0.1),
            Ok(())
        );
    }

    #[cfg(feature = "rayon")]
    #[test]
    fn parallel_reports_as_serial_does_across_chunks() {
        let start: Vec<Particle<f64>> = (0..3 * CHUNK + 17)
            .map(|i| {
                let x = if i % 1000 == 999 {
                    -1.0
                } else {
                    1.0 + i as f64
                };
                Particle::new(1.0, x, 0.0)
            })
            .collect();
        let mut serial = start.clone();
        let mut parallel = start;
        let integrator = BackwardEuler::new();
        let a = step_all(&integrator, &mut serial, &poisoned, 0.0, 0.1).unwrap_err();
        let b = par_step_all(&integrator, &mut parallel, &poisoned, 0.0, 0.1).unwrap_err();
        assert_eq!(a, b);
        assert_eq!((a.index, a.failed), (999, (3 * CHUNK + 17) / 1000));
        assert_eq!(serial, parallel);
    }
}
