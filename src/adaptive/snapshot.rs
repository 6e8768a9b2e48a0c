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
pub struct Snapshot<S: State, M: AdaptiveMethod<S>> {
    pub(super) state: S,
    pub(super) workspace: Workspace<S, M>,
    pub(super) progress: Progress,
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
        }
    }

    fn clone_from(&mut self, source: &Self) {
        self.state.clone_from(&source.state);
        self.workspace.clone_from(&source.workspace);
        self.progress.clone_from(&source.progress);
    }
}
