//! [`AdaptiveMethod`]: what the [`Adaptive`](crate::Adaptive) driver asks of a method.

use super::{Controller, Decision, Statistics, ToleranceSet};
use crate::{DerivativeOf, Forces, State, StepError};

/// A method the [`Adaptive`](crate::Adaptive) driver can step under error control: it
/// attempts a step and estimates that step's error, and it gives the state anywhere inside
/// a step it took.
///
/// The driver owns everything else (the tolerances, the controller, the first step, the
/// landing on the end, events and observers), so a method is its stages, its error
/// estimate and its interpolant. The crate's methods: the embedded Runge–Kutta pairs
/// ([`Bs3`](crate::Bs3), [`Dopri5`](crate::Dopri5), [`Tsit5`](crate::Tsit5),
/// [`Dop853`](crate::Dop853), or any [`&'static EmbeddedPair`](crate::EmbeddedPair)), and
/// the stiff solvers [`Radau5`](crate::Radau5), [`Seulex`](crate::Seulex),
/// [`Bdf`](crate::Bdf) and [`Rosenbrock`](crate::Rosenbrock) ([`Rodas4`](crate::Rodas4),
/// [`Ros3p`](crate::Ros3p)).
///
/// A run calls, in order: [`begin`](AdaptiveMethod::begin) at the start (and again after
/// an event changed the state), then for each step [`attempt`](AdaptiveMethod::attempt)
/// until one is accepted, [`accept`](AdaptiveMethod::accept), any number of
/// [`dense`](AdaptiveMethod::dense) calls, and [`step_on`](AdaptiveMethod::step_on). After
/// each attempt the driver asks [`decide`](AdaptiveMethod::decide) whether the method
/// controls the step itself, and otherwise its [`Controller`].
pub trait AdaptiveMethod<S: State> {
    /// The buffers a run keeps (stage values, Jacobians), sized from the state once and
    /// reused by every later step and run.
    type Workspace;

    /// A workspace for states of the size of `state`.
    #[must_use]
    fn workspace(&self, state: &S) -> Self::Workspace;

    /// The order `q` the step size is controlled for: the error estimate of a step of
    /// length `h` shrinks like `h^(q+1)` (the lower order of an embedded pair).
    #[must_use]
    fn error_order(&self) -> u32;

    /// The step-size controller this method is tuned for; the driver starts with it.
    #[must_use]
    fn controller(&self) -> Controller {
        Controller::default()
    }

    /// Prepares to step from `state` at `t`: evaluates the rate there (one evaluation,
    /// counted in `statistics`).
    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    );

    /// The rate at the start of the next step, as [`begin`](AdaptiveMethod::begin) left
    /// it: the driver reads it to choose the first step. (After
    /// [`step_on`](AdaptiveMethod::step_on) a method may leave it to its next attempt:
    /// Rodas4 does, as rodas.f.)
    #[must_use]
    fn start_rate<'w>(&self, workspace: &'w Self::Workspace) -> &'w DerivativeOf<S>;

    /// Attempts a step of `h` from `state` at `t`: writes the new state into `end` and
    /// returns the norm of the step's error estimate (an [`ErrorNorm`](super::ErrorNorm)
    /// of `tolerances` from `state` to `end`; 1 is the tolerance, infinite or `NaN` when
    /// the forces were), or why the step could not be taken at all
    /// ([`StepError::NotConverged`]: a Newton iteration that diverges;
    /// [`StepError::SingularJacobian`]: a singular iteration matrix), which the driver
    /// retries shorter and, should the run die of it, reports
    /// ([`AdaptiveError::StepFailed`](crate::AdaptiveError::StepFailed)).
    #[allow(clippy::too_many_arguments)]
    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut Self::Workspace,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError>;

    /// The method's own decision on the attempt just made, whose error norm `attempt`
    /// returned as `error`, or `None` (the default) to leave it to the run's
    /// [`Controller`].
    ///
    /// For a method whose step size depends on more than its error: Radau5 shrinks a step
    /// by how badly its Newton iteration converged, keeps a step unchanged (so that its
    /// factorisation is reused) when the error asks for a change under 20%, and predicts
    /// with Gustafsson's controller, as radau5.f does; SEULEX chooses its order and step
    /// by work per unit step, as seulex.f does; the BDF its order and step from the error
    /// estimates at neighbouring orders, as CVODE does. The explicit pairs return `None`.
    ///
    /// ```
    /// use timestep::control::AdaptiveMethod;
    /// use timestep::Dopri5;
    ///
    /// let pair = timestep::Pair(Dopri5);
    /// let mut workspace = AdaptiveMethod::<f64>::workspace(&pair, &1.0);
    /// assert_eq!(AdaptiveMethod::<f64>::decide(&pair, &mut workspace, 0.5), None);
    /// ```
    fn decide(&self, workspace: &mut Self::Workspace, error: f64) -> Option<Decision> {
        let _ = (workspace, error);
        None
    }

    /// The last attempt, from `start` to `end`, is accepted: evaluates what stepping on
    /// needs (the rate at `end`, unless the attempt already did) and, if `dense` (the run
    /// may read the step's dense output), what [`dense`](AdaptiveMethod::dense) needs that
    /// cannot wait for [`prepare_dense`](AdaptiveMethod::prepare_dense).
    #[allow(clippy::too_many_arguments)]
    fn accept<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace,
        start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        dense: bool,
        statistics: &mut Statistics,
    );

    /// Evaluates what [`dense`](AdaptiveMethod::dense) needs beyond what
    /// [`accept`](AdaptiveMethod::accept) did, for the accepted step of `h` from `start` at
    /// `t`: the driver calls it before the first dense output it reads of a step, and not
    /// at all for a step whose dense output it does not read. Verner's pairs and DOP853
    /// evaluate their interpolants' extra stages here; the default does nothing.
    #[allow(clippy::too_many_arguments)]
    fn prepare_dense<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace,
        start: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        statistics: &mut Statistics,
    ) {
        let _ = (workspace, start, forces, t, h, statistics);
    }

    /// Writes the state at the fraction `theta` of the accepted step of `h` from `start`
    /// into `out` (0 is the start, 1 the end; outside, it extrapolates), after
    /// [`prepare_dense`](AdaptiveMethod::prepare_dense).
    fn dense(
        &self,
        workspace: &mut Self::Workspace,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    );

    /// What [`dense`](AdaptiveMethod::dense) reads of the workspace for the accepted step
    /// (stage rates, or a collocation polynomial's coefficients), copied out so that a
    /// [`Solution`](crate::Solution) can keep every step's dense output.
    type Interpolant: Clone;

    /// The accepted step's [`Interpolant`](AdaptiveMethod::Interpolant), after
    /// [`accept`](AdaptiveMethod::accept) with `dense` and
    /// [`prepare_dense`](AdaptiveMethod::prepare_dense).
    #[must_use]
    fn interpolant(&self, workspace: &Self::Workspace) -> Self::Interpolant;

    /// [`dense`](AdaptiveMethod::dense) from a kept interpolant: the same state, to the
    /// bit.
    fn interpolate(
        &self,
        interpolant: &Self::Interpolant,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    );

    /// The accepted step's end becomes the next step's start.
    fn step_on(&self, workspace: &mut Self::Workspace);

    /// Makes `state`, which the driver moved to inside the last accepted step (to an
    /// event there, read from the dense output), fit to step on from at `t`. The default
    /// does nothing. Radau5 completes a differential-algebraic system's algebraic unknowns
    /// (of index 1): its dense output between the step's ends does not satisfy the
    /// algebraic equations, and its check of a run's start would refuse the state. The BDF
    /// and the Rosenbrock methods skip that check for the run that goes on from an event.
    /// Force evaluations made are counted in `statistics`.
    fn settle<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        let _ = (workspace, state, forces, t, statistics);
    }

    /// Whether a run goes on from the end of a step in which an event fired that neither
    /// stops the run nor acts on the state, the event read from the dense output (as
    /// CVODE's root finding does), rather than cutting the step at the event and starting
    /// afresh there. `false`, the default: a one-step method starts again for the cost of
    /// one evaluation. The BDF says `true`: starting again loses its history (order 1,
    /// short steps), and on a DAE of index 2 starts off the algebraic equations (the dense
    /// output holds them only to its error), which an order-1 start cannot recover from.
    #[must_use]
    fn steps_through_events(&self) -> bool {
        false
    }

    /// Hairer's stiffness estimate of the step just [accepted](AdaptiveMethod::accept):
    /// `h·|λ|` for the fastest mode the step saw, over the method's
    /// [stability boundary](crate::Tableau::real_stability_boundary) on the negative real
    /// axis; `None` (the default) for a method that has no such limit or no estimate.
    ///
    /// Near 1 or above, the step is held at the stability limit, not by accuracy: the
    /// controller keeps shrinking steps that would blow up, and an implicit method would
    /// take far longer ones. The [`Adaptive`](crate::Adaptive) driver reads it and reports
    /// in [`Statistics::stiff_from`].
    ///
    /// An embedded pair estimates `|λ|` as dopri5.f and dop853.f do, by
    /// `‖f(y₁) − f(yₛ)‖ / ‖y₁ − yₛ‖` with `yₛ` the point of the stage before the last
    /// (both at the step's end for Dormand–Prince 5(4), Tsitouras 5(4) and DOP853): exact
    /// for a linear problem whose fastest mode dominates the difference. A pair whose
    /// stage before the last is inside the step (Bogacki–Shampine 3(2)) has no estimate.
    fn stiffness(&self, workspace: &mut Self::Workspace) -> Option<f64> {
        let _ = workspace;
        None
    }

    /// Whether the method gives its steps' increments
    /// ([`increment`](AdaptiveMethod::increment)), which compensated summation
    /// ([`Adaptive::with_compensated_summation`](crate::Adaptive::with_compensated_summation))
    /// needs. `false`, the default; the explicit and the Nyström pairs say `true`.
    #[must_use]
    fn gives_increment(&self) -> bool {
        false
    }

    /// Writes to `out` the change `y₁ − y₀` of the attempt of `h` from `start` just
    /// accepted, as the method sums it before adding it to the state (an explicit pair's
    /// `h Σ bᵢ kᵢ`, a Nyström pair's `(h v₀ + h² Σ bᵢ Fᵢ/m, h Σ b′ᵢ Fᵢ)`):
    /// the driver then adds it to the state itself, keeping what the sum rounds off. Called
    /// only when [`gives_increment`](AdaptiveMethod::gives_increment) is `true`, after the
    /// attempt and before [`accept`](AdaptiveMethod::accept). The default does nothing.
    fn increment(
        &self,
        workspace: &mut Self::Workspace,
        start: &S,
        h: S::Scalar,
        out: &mut DerivativeOf<S>,
    ) {
        let _ = (workspace, start, h, out);
    }
}

/// A value the [`Adaptive`](crate::Adaptive) driver can step: a method with error
/// control, or a name for one. Every method of the crate with error control implements
/// it ([`Dopri5`](crate::Dopri5) gives its [`Pair`](crate::Pair), `Pair<Dopri5, 7>`;
/// [`Rodas4`](crate::Rodas4) its [`Rosenbrock`](crate::Rosenbrock) method), and so does
/// [`AdaptiveKind`](crate::AdaptiveKind), for a method chosen by name.
///
/// A method of your own ([`AdaptiveMethod`]) implements it by handing back itself:
///
/// ```ignore
/// impl IntoAdaptive for MyMethod {
///     type Method = MyMethod;
///     fn into_adaptive(self) -> MyMethod {
///         self
///     }
/// }
/// ```
pub trait IntoAdaptive {
    /// The method stepped.
    type Method;

    /// The method stepped.
    #[must_use]
    fn into_adaptive(self) -> Self::Method;
}
