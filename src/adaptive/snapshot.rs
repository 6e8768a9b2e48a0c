//! [`Snapshot`]: a run saved between steps, to resume bit for bit.

use super::driver::Workspace;
use super::run::Progress;
use crate::control::{AdaptiveMethod, Statistics};
use crate::{Scalar, State};

/// An adaptive [`Run`](super::Run) saved between steps by
/// [`Run::snapshot`](super::Run::snapshot): the state, the method's workspace (the FSAL
/// stage, the last step's dense output, Radau5's and the Rosenbrock methods' kept Jacobian
/// and factorisation) and the run's memory (its time and end, the next step, the
/// controller's last error, the stiffness test's counters, the statistics). A plain value:
/// clone it, keep a ring of them for a rollback, and resume any with
/// [`Adaptive::resume`](super::Adaptive::resume), which goes on bit for bit as the run
/// that was never interrupted.
///
/// With the feature `serde` it serializes, for a state that is a `SerdeState` (every
/// state of the crate) and a method whose workspace serializes (every method of the
/// crate's): the state, the workspace's numbers (stage rates, the last step's dense output,
/// a kept Jacobian and its LU factors with their row pivots, the method's memory) and the
/// run's memory. A loaded snapshot resumed by a solver with the saved run's settings goes
/// on bit for bit too. Loading refuses what is malformed (unknown fields, buffers whose
/// sizes do not fit together, pivots outside their matrix), and
/// [`resume`](super::Adaptive::resume) refuses a loaded snapshot whose workspace is not one
/// the solver's method makes for its state, or whose times are not a run's
/// ([`AdaptiveError::SnapshotMismatch`](crate::AdaptiveError::SnapshotMismatch)). Two
/// numbers are found again instead of saved, the same bits from the same inputs: an
/// explicit pair's stability boundary (for the stiffness test) and Radau5's tolerance
/// factors. A sparse Jacobian's LU is not saved: a snapshot holding one refuses to
/// serialize. Formats without infinity and `NaN` (JSON) cannot save a run whose state or
/// rates hold them.
///
/// ```
/// # #[cfg(feature = "serde")] {
/// use timestep::{Adaptive, Radau5};
/// use timestep::adaptive::Snapshot;
///
/// let van_der_pol = |y: &[f64; 2], _t: f64| [y[1], 10.0 * (1.0 - y[0] * y[0]) * y[1] - y[0]];
/// let mut solver = Adaptive::new(Radau5::new());
/// let mut y = [2.0, 0.0];
/// let mut run = solver.start(&mut y, &van_der_pol, 0.0, 2.0)?;
/// for _ in 0..10 {
///     run.step()?;
/// }
/// let json = serde_json::to_string(&run.snapshot()).unwrap();
/// while run.step()? {}
/// let first = (*run.state(), run.statistics());
///
/// let loaded: Snapshot<[f64; 2], Radau5> = serde_json::from_str(&json).unwrap();
/// let mut z = [0.0; 2];
/// let mut again = solver.resume(&loaded, &mut z, &van_der_pol)?;
/// while again.step()? {}
/// assert_eq!((*again.state(), again.statistics()), first);
/// # }
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(
        deny_unknown_fields,
        bound(
            serialize = "S: crate::SerdeState, M::Workspace: serde::Serialize",
            deserialize = "S: crate::SerdeState, M::Workspace: serde::Deserialize<'de> + serde::Serialize"
        )
    )
)]
pub struct Snapshot<S: State, M: AdaptiveMethod<S>> {
    pub(super) state: S,
    pub(super) workspace: Workspace<S, M>,
    pub(super) progress: Progress,
    /// For a snapshot loaded with serde, the check [`resume`](super::Adaptive::resume)
    /// makes of it against the solver's method (made here, where the workspace is known
    /// to serialize, which `resume` does not require).
    #[cfg(feature = "serde")]
    #[serde(skip, default = "loaded")]
    pub(super) loaded: Option<Fits<S, M>>,
}

/// Whether a loaded snapshot fits a solver's method.
#[cfg(feature = "serde")]
pub(super) type Fits<S, M> = fn(&M, &Snapshot<S, M>) -> bool;

/// The check of a loaded snapshot.
#[cfg(feature = "serde")]
fn loaded<S: crate::SerdeState, M: AdaptiveMethod<S>>() -> Option<Fits<S, M>>
where
    M::Workspace: serde::Serialize,
{
    Some(fits::<S, M>)
}

/// Whether the snapshot's times and step are a run's, and its workspace has the shape of
/// the one `method` makes for its state: the same sizes, structure and method, whatever
/// the numbers ([`crate::saved::shape`]).
#[cfg(feature = "serde")]
fn fits<S: crate::SerdeState, M: AdaptiveMethod<S>>(method: &M, snapshot: &Snapshot<S, M>) -> bool
where
    M::Workspace: serde::Serialize,
{
    use crate::saved::shape;
    let mut fresh = Workspace::new(method, &snapshot.state);
    fresh.compensate(snapshot.workspace.compensation.is_some(), &snapshot.state);
    snapshot.progress.is_valid()
        && matches!(
            (shape(&fresh), shape(&snapshot.workspace)),
            (Ok(a), Ok(b)) if a == b
        )
}

impl<S: State, M: AdaptiveMethod<S>> Snapshot<S, M> {
    /// The saved state.
    #[must_use]
    pub fn state(&self) -> &S {
        &self.state
    }

    /// The saved state's time.
    #[must_use]
    pub fn time(&self) -> S::Scalar {
        S::Scalar::from_f64(self.progress.t)
    }

    /// The saved run's statistics.
    #[must_use]
    pub fn statistics(&self) -> Statistics {
        self.progress.statistics
    }
}

impl<S: State, M: AdaptiveMethod<S>> Clone for Snapshot<S, M>
where
    M::Workspace: Clone,
{
    fn clone(&self) -> Self {
        Snapshot {
            state: self.state.clone(),
            workspace: self.workspace.clone(),
            progress: self.progress.clone(),
            #[cfg(feature = "serde")]
            loaded: self.loaded,
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.state.clone_from(&source.state);
        self.workspace.clone_from(&source.workspace);
        self.progress.clone_from(&source.progress);
        #[cfg(feature = "serde")]
        {
            self.loaded = source.loaded;
        }
    }
}
