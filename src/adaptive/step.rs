//! [`Step`]: an accepted step, as an observer sees it.

use super::run::Run;
use crate::control::AdaptiveMethod;
use crate::{Forces, State};

/// One accepted step, as an observer ([`Integration::observe`](super::Integration::observe),
/// [`Adaptive::solve_with`](super::Adaptive::solve_with)) sees it: its ends, and the state anywhere between them from
/// the method's dense output.
pub struct Step<'r, 'a, S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized> {
    run: &'r mut Run<'a, S, M, F>,
}

impl<'r, 'a, S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized> Step<'r, 'a, S, M, F> {
    pub(super) fn new(run: &'r mut Run<'a, S, M, F>) -> Self {
        Step { run }
    }

    #[cfg(feature = "alloc")]
    pub(super) fn run(&mut self) -> &mut Run<'a, S, M, F> {
        self.run
    }

    /// The method's workspace after the step, for what an adjoint keeps of it.
    #[cfg(feature = "alloc")]
    pub(crate) fn method_workspace(&self) -> &M::Workspace {
        self.run.method_workspace()
    }

    /// The same, to change (the BDF's records ask it to track more).
    #[cfg(feature = "alloc")]
    pub(crate) fn method_workspace_mut(&mut self) -> &mut M::Workspace {
        self.run.method_workspace_mut()
    }

    /// When the step began.
    #[must_use]
    pub fn start_time(&self) -> S::Scalar {
        self.run.previous_time()
    }

    /// When the step ended (at an event, if one cut it).
    #[must_use]
    pub fn end_time(&self) -> S::Scalar {
        self.run.time()
    }

    /// The state when the step began.
    #[must_use]
    pub fn start(&self) -> &S {
        self.run.previous_state()
    }

    /// The state when the step ended.
    #[must_use]
    pub fn end(&self) -> &S {
        self.run.state()
    }

    /// Writes the state at time `t` (inside the step, or at either end) into `out`, from
    /// the method's continuous extension (for a pair, `y + dt Σ wᵢ(θ) kᵢ` with
    /// `θ = (t − t₀)/dt`), without stepping there. A `t` outside the step extrapolates,
    /// less and less accurately.
    pub fn state_at(&mut self, t: S::Scalar, out: &mut S) {
        self.run.state_at(t, out);
    }
}
