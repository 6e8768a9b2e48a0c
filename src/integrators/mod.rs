//! [`Integrator`], the [`Scheme`] every method is, and the methods, one folder per family:
//! explicit Runge–Kutta tableaus, partitioned (kick/drift) methods, implicit methods.

mod adaptive_kind;
mod explicit_rk;
mod exponential_euler;
pub(crate) mod implicit;
mod method;
mod multistep;
mod nystrom;
pub(crate) mod partitioned;
mod stepper;

pub use adaptive_kind::{AdaptiveKind, AdaptiveKindInterpolant, AdaptiveKindWorkspace};
pub use explicit_rk::{
    Bs3, Dop853, Dopri5, EmbeddedPair, ExplicitEuler, ImprovedEuler, Midpoint, Pair, PairSource,
    PairWorkspace, PredictorCorrector, Rk4, RkWorkspace, Tableau, Tsit5, Vern6, Vern7, Vern8,
    Vern9,
};
pub use exponential_euler::{ExponentialEuler, ExponentialEulerWorkspace, WithLinearPart};
pub use implicit::{
    BackwardEuler, BackwardEulerWorkspace, Bdf, BdfWorkspace, ImplicitMidpoint, ImplicitSettings,
    ImplicitWorkspace, Newmark, NewmarkError, Radau5, Radau5Workspace, Rodas4, Rodas5P, Ros3p,
    Rosenbrock, RosenbrockDense, RosenbrockTableau, RosenbrockWorkspace, Seulex, SeulexWorkspace,
    StepSequence, Trapezoid, WithJacobian, WithMass,
};
pub use method::{Method, MethodKind, MethodWorkspace, ParseMethodError};
pub use multistep::{AdamsBashforthMoulton, AdamsBashforthMoultonWorkspace};
pub use nystrom::{Dprkn6, Dprkn12, Nystrom, NystromDense, NystromPair, NystromWorkspace};
pub use partitioned::{
    AdditiveDrift, Beeman, BeemanWorkspace, Coefficients, Compensated, CompensatedWorkspace,
    Composition, CompositionWorkspace, Leapfrog, PlainDrift, PositionVerlet,
    PositionVerletWorkspace, SemiImplicitEuler, SemiImplicitEulerWorkspace, Sequence,
    SymmetricStep, Verlet, VerletWorkspace,
};
#[cfg(feature = "alloc")]
pub use partitioned::{Rattle, RattleSettingError};
pub use stepper::Stepper;

use crate::{Forces, Scalar, State, StepError};

/// A method that advances a state by one time step.
///
/// `step(&mut state, &forces, t, dt)` moves `state` from time `t` to `t + dt` under
/// `forces`. What every method does with unusual input:
///
/// - `dt = 0`: returns `Ok` at once; the state is untouched and no force is evaluated.
/// - `dt < 0`: integrates backwards in time, which is legal.
/// - `t` or `dt` infinite or `NaN`: returns [`StepError::NonFiniteTime`]; the state is
///   untouched.
/// - `t` and `dt` finite but `t + dt` overflowing the precision (`t = 3·10³⁸`,
///   `dt = 10³⁸` in `f32`): returns [`StepError::EndTimeOverflow`]; the state is
///   untouched.
/// - forces that return infinity or `NaN`: explicit methods carry them into the state (check
///   with [`Vector::is_finite`](crate::Vector::is_finite) if your forces can);
///   [`BackwardEuler`] refuses the step.
///
/// Every method is a [`Scheme`]. Those that remember nothing between steps
/// ([`Memoryless`]: all but the methods with a history, [`PositionVerlet`], Beeman and
/// Adams–Bashforth–Moulton) are integrators themselves, stepping with
/// buffers made on the stack for each step, which is free for a small state. A
/// [`Stepper`] keeps the buffers between steps instead: use one for states sized at run
/// time (a `Vec`), so that no step after the first allocates, and for methods with a
/// history. [`Method`] is a stepper for any method chosen by name.
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Method, Particle};
///
/// let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
/// for mut method in Method::all() {
///     let mut particle = Particle::new(1.0, 1.0, 0.0);
///     method.step(&mut particle, &spring, 0.0, 0.001)?;
///     assert!((particle.position() - 1.0).abs() < 1e-5, "{method}");
/// }
/// # Ok::<(), timestep::StepError>(())
/// ```
pub trait Integrator<S: State> {
    /// Advances `state` from `t` to `t + dt` under `forces`; see the trait docs for what
    /// happens with zero, negative and non-finite input.
    ///
    /// # Errors
    ///
    /// [`StepError`] when `t` or `dt` is not finite, or (implicit methods) when the implicit
    /// solve fails. The state is then unchanged.
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError>;
}

/// A method: its settings, the buffers it works in, and one step of its algorithm.
///
/// This is the part a new method writes. The input checks and the `dt = 0` shortcut are
/// made once, by the [`Integrator`]s that run a scheme ([`Stepper`], and the scheme itself
/// when it is [`Memoryless`]), so [`advance`](Scheme::advance) sees only finite times and
/// a non-zero step.
///
/// Following faer's `*_scratch` queries and OrdinaryDiffEq's caches, the buffers are a
/// separate value, the [`Workspace`](Scheme::Workspace), made from a state of the size to
/// be stepped: stage values, probe states, matrices, and for methods with a history what
/// they remember.
pub trait Scheme {
    /// What a step works in (and, for methods with a history, what they remember).
    type Workspace<S: State>;

    /// A workspace for states of the size of `state`. It may allocate (for a state sized at
    /// run time it does); it is made once per [`Stepper`], or per step by a [`Memoryless`]
    /// scheme stepping on its own, where for a small state it lives on the stack.
    #[must_use]
    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S>;

    /// Advances `state` from `t` to `t + dt`. The caller has checked that `t` and `dt` are
    /// finite and `dt ≠ 0`.
    ///
    /// # Errors
    ///
    /// [`StepError`] when an implicit solve fails; the state is then unchanged.
    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError>;

    /// The method's name, order, cost and character.
    #[must_use]
    fn properties(&self) -> Properties;
}

/// A [`Scheme`] whose workspace holds nothing from one step to the next, so that stepping
/// with a fresh workspace each time is the same method: it is an [`Integrator`] on its own.
///
/// Not for methods with a history ([`PositionVerlet`]): those step through a [`Stepper`].
#[diagnostic::on_unimplemented(
    message = "`{Self}` remembers past steps, so it must be stepped through a `Stepper`",
    label = "use `Stepper::new(...)` (or the method's `new()`) and step that"
)]
pub trait Memoryless: Scheme {}

/// What a method is: the facts its documentation's **Order**, **Stability** and **Cost**
/// state, as values that tests and tables read.
///
/// ```
/// use timestep::{Rk4, Scheme};
///
/// let rk4 = Rk4.properties();
/// assert_eq!((rk4.name, rk4.order, rk4.evaluations, rk4.symplectic), ("rk4", 4, 4, false));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct Properties {
    /// The kebab-case name [`Method`] parses.
    pub name: &'static str,
    /// The order of the global error: it shrinks like `dtᵖ`.
    pub order: u32,
    /// Force evaluations per step; for implicit methods, per step before the solve (each
    /// Newton iteration adds its own).
    pub evaluations: u32,
    /// Whether the method is symplectic (on conservative systems its energy stays within a
    /// bound instead of drifting).
    pub symplectic: bool,
    /// Whether each step solves an implicit equation.
    pub implicit: bool,
}

impl Properties {
    /// An explicit, non-symplectic method.
    pub(crate) const fn explicit(name: &'static str, order: u32, evaluations: u32) -> Self {
        Properties {
            name,
            order,
            evaluations,
            symplectic: false,
            implicit: false,
        }
    }

    /// The same, symplectic.
    pub(crate) const fn symplectic(self) -> Self {
        Properties {
            symplectic: true,
            ..self
        }
    }

    /// The same, implicit.
    pub(crate) const fn implicit(self) -> Self {
        Properties {
            implicit: true,
            ..self
        }
    }
}

impl<S: State, M: Memoryless> Integrator<S> for M {
    #[inline(always)]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if should_step(t, dt)? {
            let mut workspace = self.workspace(state);
            self.advance(&mut workspace, state, forces, t, dt)?;
        }
        Ok(())
    }
}

/// Whether a step should run: `Ok(true)` for a finite non-zero `dt`, `Ok(false)` for
/// `dt = 0` (nothing to do), an error for non-finite time, and for an end time `t + dt`
/// that overflows the precision although `t` and `dt` are finite (the forces would see
/// `t = ∞` at the end of the step).
#[inline(always)]
pub(crate) fn should_step<S: Scalar>(t: S, dt: S) -> Result<bool, StepError> {
    // One test for all three: the sum is finite exactly when `t` and `dt` are and it
    // does not overflow.
    if !(t + dt).is_finite() {
        return Err(non_finite_time(t, dt));
    }
    Ok(dt != S::zero())
}

/// The error for a non-finite `t` or `dt` (or their sum), out of line and cold: a caller stepping in a loop
/// with `t = i·dt` has this exit in every iteration, and marked cold it costs that loop less
/// (a rigid body's semi-implicit Euler step: +4.5–7.4% over hand-written code before,
/// +0.6–4.5% after; see BENCHMARKS.md).
#[cold]
#[inline(never)]
fn non_finite_time<S: Scalar>(t: S, dt: S) -> StepError {
    if t.is_finite() && dt.is_finite() {
        StepError::EndTimeOverflow {
            t: t.to_f64(),
            dt: dt.to_f64(),
        }
    } else {
        StepError::NonFiniteTime {
            t: t.to_f64(),
            dt: dt.to_f64(),
        }
    }
}

/// `x / 2` in the state's precision.
#[inline(always)]
pub(crate) fn half<S: Scalar>(x: S) -> S {
    x * S::from_f64(0.5)
}

/// Whether a step at `t` continues the one that ended at `last_end`: the same time to within
/// the rounding of times near `t` (a caller computing `t = i·dt` lands a few ulps away), and
/// never more than a quarter of a step away, so that a skipped or repeated step is never
/// taken for the next one however coarse the times are.
pub(crate) fn continues<T: Scalar>(last_end: T, t: T, dt: T) -> bool {
    let rounding = T::from_f64(16.0) * T::epsilon() * (t.abs() + dt.abs());
    (t - last_end).abs() <= rounding.min(dt.abs() * T::from_f64(0.25))
}

/// Whether a step of `dt` at `t` continues a run of equal steps, the last of length
/// `last_dt` ending at `last_end`: what a multistep method's history needs. Equal to within
/// the rounding of times near `t`: a caller stepping from `tᵢ = t₀ + i·dt` to `tᵢ₊₁` has
/// steps `tᵢ₊₁ − tᵢ` that differ in their last bits ([`Trajectory`](crate::Trajectory)
/// does), and the history must survive that.
pub(crate) fn continues_evenly<T: Scalar>(last: Option<(T, T)>, t: T, dt: T) -> bool {
    match last {
        Some((last_dt, last_end)) => {
            let rounding = T::from_f64(16.0) * T::epsilon() * (t.abs() + dt.abs());
            continues(last_end, t, dt)
                && (dt - last_dt).abs() <= rounding.min(dt.abs() * T::from_f64(1e-6))
        }
        None => false,
    }
}
