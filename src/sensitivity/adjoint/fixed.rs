//! [`FixedAdjointMethod`] and [`Adjoint::gradient_fixed`]: the adjoint of a run of fixed
//! steps, by the one backward sweep of `mod.rs`.

use super::explicit::ExplicitBackward;
use super::linearised::Linearised;
use super::method::{BackwardStep, private::Sealed};
use super::one_stage::OneStageBackward;
use super::{Adjoint, Gradient, Rates, Recorded, sweep};
use crate::sensitivity::{Model, SensitivityError};
use crate::trajectory::plan;
use crate::{
    BackwardEuler, Bs3, Dop853, Dopri5, ExplicitEuler, ImplicitMidpoint, ImprovedEuler, Integrator,
    Midpoint, PredictorCorrector, Rk4, Scalar, Scheme, Statistics, Stepper, Tableau, Trapezoid,
    Tsit5, Vector, Vern6, Vern7, Vern8, Vern9,
};
use alloc::vec::Vec;
use core::cell::Cell;
use num_traits::{Float, Zero};

/// A fixed-step method whose discrete adjoint [`Adjoint::gradient_fixed`] knows: the
/// explicit Runge–Kutta methods that are a [`Tableau`] ([`Rk4`], [`ExplicitEuler`],
/// [`Midpoint`], [`ImprovedEuler`], [`PredictorCorrector`], [`Bs3`], [`Dopri5`],
/// [`Tsit5`], [`Dop853`], [`Vern6`] to [`Vern9`] at a fixed step, and any
/// `&'static Tableau<N>`), and the one-stage implicit methods [`BackwardEuler`],
/// [`Trapezoid`] and [`ImplicitMidpoint`].
///
/// [`Newmark`](crate::Newmark) is not one: it is a method for second-order states
/// (positions and velocities, its two weights `β` and `γ` apart), which a
/// [`Model`] (`y' = f(t, y, p)` on a plain vector) does not have; on such a vector it
/// is the θ-method with `θ = γ`, the [`Trapezoid`] at its default `γ = ½`.
///
/// Sealed: its items are the crate's own.
///
/// # Example
///
/// `y' = −k y` by backward Euler in `N` steps of `h`: `y_N = y₀ (1 + k h)^(−N)`, so
/// `L = y_N` has `∂L/∂k = −N h y_N / (1 + k h)`.
///
/// ```
/// use timestep::sensitivity::{Adjoint, Model};
/// use timestep::BackwardEuler;
///
/// struct Decay;
/// impl Model<f64> for Decay {
///     fn rate(&self, y: &f64, p: &[f64], _t: f64, out: &mut f64) {
///         *out = -p[0] * y;
///     }
///     fn cotangent(&self, y: &f64, p: &[f64], _t: f64, w: &f64, out_y: &mut f64, out_p: &mut [f64]) -> bool {
///         *out_y = -p[0] * w;
///         out_p[0] = -y * w;
///         true
///     }
/// }
///
/// let (k, h) = (3.0, 0.125);
/// let gradient = Adjoint::new(Decay, [k])?
///     .gradient_fixed(&BackwardEuler::new(), &1.0, 0.0, h, &[1.0], |_, _, _, out| *out = 1.0)?;
/// let end = (1.0 + k * h).powi(-8);
/// assert!((gradient.parameters[0] + 8.0 * h * end / (1.0 + k * h)).abs() < 1e-15);
/// assert!((gradient.initial_value - end).abs() < 1e-15);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
pub trait FixedAdjointMethod<V: Vector>: Scheme + Clone + Sealed {
    /// What takes a step again and back.
    #[doc(hidden)]
    type Backward: BackwardStep<V>;

    /// States kept per checkpoint: 1, the step's start; 2, its start and the forward
    /// run's state after it (the Newton start of a step taken again).
    #[doc(hidden)]
    const CHECKPOINT_STATES: usize;

    /// Whether the forward run's states are only near the method's (a Newton iteration
    /// stopped at a tolerance): then the steps are all taken again from the start.
    #[doc(hidden)]
    const TAKES_STEPS_AGAIN: bool;

    /// Buffers for stretches of up to `interval` steps of states like `like`, with
    /// `parameters` parameters.
    #[doc(hidden)]
    fn backward(&self, like: &V, interval: usize, parameters: usize) -> Self::Backward;
}

impl<const N: usize> Sealed for &'static Tableau<N> {}

impl<V: Vector, const N: usize> FixedAdjointMethod<V> for &'static Tableau<N> {
    type Backward = ExplicitBackward<V, N>;
    const CHECKPOINT_STATES: usize = 1;
    const TAKES_STEPS_AGAIN: bool = false;

    fn backward(&self, like: &V, _interval: usize, parameters: usize) -> Self::Backward {
        ExplicitBackward::new(self, like, parameters)
    }
}

/// The explicit methods that are their `TABLEAU` (of `N` stages): the tableau's adjoint.
macro_rules! tableau_adjoint {
    ($($method:ident, $stages:literal;)*) => {$(
        impl Sealed for $method {}

        impl<V: Vector> FixedAdjointMethod<V> for $method {
            type Backward = ExplicitBackward<V, $stages>;
            const CHECKPOINT_STATES: usize = 1;
            const TAKES_STEPS_AGAIN: bool = false;

            fn backward(&self, like: &V, _interval: usize, parameters: usize) -> Self::Backward {
                ExplicitBackward::new(&$method::TABLEAU, like, parameters)
            }
        }
    )*};
}

tableau_adjoint! {
    ExplicitEuler, 1;
    Midpoint, 2;
    ImprovedEuler, 2;
    Rk4, 4;
    PredictorCorrector, 2;
    Bs3, 4;
    Dopri5, 7;
    Tsit5, 7;
    Dop853, 12;
    Vern6, 9;
    Vern7, 10;
    Vern8, 13;
    Vern9, 16;
}

/// The one-stage implicit methods: their rule's adjoint (`one_stage.rs`).
macro_rules! one_stage_adjoint {
    ($($method:ident),*) => {$(
        impl Sealed for $method {}

        impl<V: Vector> FixedAdjointMethod<V> for $method {
            type Backward = OneStageBackward<V>;
            const CHECKPOINT_STATES: usize = 2;
            const TAKES_STEPS_AGAIN: bool = true;

            fn backward(&self, like: &V, interval: usize, parameters: usize) -> Self::Backward {
                OneStageBackward::new($method::STAGE_AND_WEIGHT, like, interval, parameters)
            }
        }
    )*};
}

one_stage_adjoint!(BackwardEuler, Trapezoid, ImplicitMidpoint);

impl<M, P> Adjoint<M, P> {
    /// Refuses a fixed-step run ([`gradient_fixed`](Adjoint::gradient_fixed)) of more than
    /// `steps` steps, with [`SensitivityError::TooManySteps`] before any step is taken
    /// (default 10⁷: memory for the steps' times and `10⁷/K` checkpoints). 0 refuses every
    /// run that takes a step. An adaptive solve's limit is its solver's
    /// ([`Adaptive::with_max_steps`](crate::Adaptive::with_max_steps)).
    #[must_use]
    pub fn with_max_steps(mut self, steps: u64) -> Self {
        self.max_steps = steps;
        self
    }

    /// As [`gradient`](Adjoint::gradient), for a run of fixed steps of `dt` by `method`
    /// (see [`FixedAdjointMethod`]): steps from `y0` at `t0` through `times`, calls
    /// `loss_gradient(k, tₖ, y(tₖ), out)` for each sample time, in order, after the
    /// forward run, to have `∂gₖ/∂y` written into `out` (zero on entry), and returns the
    /// gradient of `L = Σₖ gₖ(y(tₖ))`: the exact derivative of the run's discrete map.
    ///
    /// Each stretch between sample times is run as a [`Trajectory`](crate::Trajectory)
    /// runs it: steps of exactly `dt` from the stretch's start (the `i`-th at
    /// `tₛ + i·dt`, in `f64`), the last shortened to land on the sample, or stretched by a
    /// remainder below `√ε·dt`; a `dt` longer than a stretch takes it in one step; a time
    /// equal to the one before, or to `t0`, adds a sample without steps.
    ///
    /// An implicit method's Newton iteration stops at its tolerance: every step is then
    /// taken again with its stage equation solved to round-off, and the samples (what
    /// `loss_gradient` sees) are those states (`src/sensitivity/adjoint/one_stage.rs`).
    /// The method's own settings (tolerance, Jacobian, linear solver) serve the forward
    /// run only. Checkpoints and memory are as for [`gradient`](Adjoint::gradient)
    /// (for an implicit method two states per checkpoint, the rates of a stretch, `K`
    /// states, and `2 n²` numbers); nothing is allocated per step.
    /// [`Gradient::statistics`] counts the steps taken (`accepted`) and nothing else.
    ///
    /// # Example
    ///
    /// `y' = −y` by the trapezoid in steps of 0.1 through the samples 0.25 and 1: steps of
    /// 0.1, 0.1, 0.05, then seven of 0.1 and one of 0.05. Each multiplies the state by
    /// `R(−h) = (1 − h/2) / (1 + h/2)`, so `L = y(1)` has `∂L/∂y₀ = Πᵢ R(−hᵢ)`.
    ///
    /// ```
    /// use timestep::sensitivity::Adjoint;
    /// use timestep::Trapezoid;
    ///
    /// let decay = |y: &f64, _p: &[f64], _t: f64, out: &mut f64| *out = -y;
    /// let gradient = Adjoint::new(decay, [0.0; 0])?.gradient_fixed(
    ///     &Trapezoid::new(),
    ///     &1.0,
    ///     0.0,
    ///     0.1,
    ///     &[0.25, 1.0],
    ///     |k, _, _, out| *out = if k == 1 { 1.0 } else { 0.0 },
    /// )?;
    /// assert_eq!(gradient.statistics.accepted, 11);
    /// let r = |h: f64| (1.0 - h / 2.0) / (1.0 + h / 2.0);
    /// let map = r(0.1).powi(9) * r(0.05).powi(2);
    /// assert!((gradient.initial_value - map).abs() < 1e-14);
    /// assert!((gradient.end - map).abs() < 1e-9); // the forward run, to its Newton tolerance
    /// # Ok::<(), timestep::sensitivity::SensitivityError>(())
    /// ```
    ///
    /// # Errors
    ///
    /// [`SensitivityError::InvalidTimes`] when `t0` or a time is not finite, or `times` is
    /// empty or not ordered forward from `t0`; [`SensitivityError::InvalidStep`] when `dt`
    /// is zero, negative, infinite or `NaN`; [`SensitivityError::TooManySteps`] when the
    /// run would take more steps than [`with_max_steps`](Adjoint::with_max_steps) allows
    /// (a tiny `dt`), refused before any step; [`SensitivityError::Step`] when a forward
    /// step fails (a Newton iteration that does not converge, a non-finite Jacobian);
    /// [`SensitivityError::NonFiniteState`] when a step leaves the state infinite or
    /// `NaN`;
    /// [`SensitivityError::StagesNotSolved`] when an implicit step's stage equation
    /// cannot be solved again to round-off (a singular `I − w c h J`, non-finite values);
    /// [`SensitivityError::MassMatrix`] when the model gives a mass matrix to an implicit
    /// method (the explicit tableaus solve `y' = f` and do not ask).
    pub fn gradient_fixed<V, I, G>(
        &self,
        method: &I,
        y0: &V,
        t0: V::Scalar,
        dt: V::Scalar,
        times: &[V::Scalar],
        loss_gradient: G,
    ) -> Result<Gradient<V>, SensitivityError>
    where
        V: Vector,
        M: Model<V>,
        P: AsRef<[V::Scalar]>,
        I: FixedAdjointMethod<V>,
        G: FnMut(usize, V::Scalar, &V, &mut V),
    {
        super::check_times(t0, times)?;
        if !(dt.is_finite() && dt > V::Scalar::zero()) {
            return Err(SensitivityError::InvalidStep { dt: dt.to_f64() });
        }
        let parameters = self.parameters.as_ref();
        let interval = self.checkpoint_interval.get();
        let forces = Rates {
            model: &self.model,
            parameters,
            mass: Cell::new(false),
            jacobian: None,
        };
        let too_many = SensitivityError::TooManySteps {
            limit: self.max_steps,
        };

        // Every stretch planned first (its steps, and the last one's length), so that too
        // long a run is refused before it starts.
        let mut plans: Vec<(usize, f64)> = Vec::with_capacity(times.len());
        let mut t = t0;
        for &sample_time in times {
            let plan = if sample_time > t {
                let stretch = plan(
                    t.to_f64(),
                    sample_time.to_f64(),
                    dt.to_f64(),
                    V::Scalar::epsilon(),
                );
                t = sample_time;
                stretch.map_err(|_| too_many)?
            } else {
                (0, 0.0)
            };
            plans.push(plan);
        }
        let total = plans.iter().fold(0_u64, |total, &(count, _)| {
            total.saturating_add(count as u64)
        });
        if total > self.max_steps {
            return Err(too_many);
        }

        // Forward: the steps' times, a checkpoint every `interval` steps, the state at
        // each sample.
        let mut steps: Vec<(V::Scalar, V::Scalar)> = Vec::with_capacity(total as usize);
        let mut checkpoints: Vec<V> = Vec::new();
        let mut samples: Vec<(usize, V)> = Vec::with_capacity(times.len());
        let mut stepper = Stepper::for_state(method.clone(), y0);
        let mut y = y0.clone();
        let mut t = t0;
        for (&sample_time, &(count, last)) in times.iter().zip(&plans) {
            if sample_time > t {
                for i in 0..count {
                    let start = V::Scalar::from_f64(t.to_f64() + dt.to_f64() * i as f64);
                    let h = if i + 1 == count {
                        V::Scalar::from_f64(last)
                    } else {
                        dt
                    };
                    let checkpoint = steps.len() % interval == 0;
                    if checkpoint {
                        checkpoints.push(y.clone());
                    }
                    let stepped = stepper.step(&mut y, &forces, start, h);
                    if forces.mass.get() {
                        return Err(SensitivityError::MassMatrix);
                    }
                    stepped.map_err(SensitivityError::Step)?;
                    // An explicit step does not look at its rates: garbage stops here.
                    if !y.is_finite() {
                        return Err(SensitivityError::NonFiniteState {
                            time: start.to_f64(),
                        });
                    }
                    if checkpoint && I::CHECKPOINT_STATES == 2 {
                        checkpoints.push(y.clone());
                    }
                    steps.push((start, h));
                }
                t = sample_time;
            }
            samples.push((steps.len(), y.clone()));
        }

        let stretch = interval.min(steps.len()).max(1);
        let backward = method.backward(y0, stretch, parameters.len());
        let mut model = Linearised::new(&self.model, parameters, y0);
        let recorded = Recorded {
            steps: &steps,
            records: &[],
            record_size: 0,
            checkpoints: &mut checkpoints,
            samples: &mut samples,
            interval,
            checkpoint_states: I::CHECKPOINT_STATES,
            takes_steps_again: I::TAKES_STEPS_AGAIN,
        };
        let (parameter_gradient, lambda, end) =
            sweep(&mut model, backward, recorded, y0, times, loss_gradient)?;
        let statistics = Statistics {
            accepted: steps.len() as u64,
            ..Statistics::default()
        };
        Ok(Gradient {
            parameters: parameter_gradient,
            initial_value: lambda,
            end,
            statistics,
            adjoint_evaluations: model.evaluations,
            cotangents: model.cotangents,
        })
    }
}
