//! Adams–Bashforth–Moulton of order 4 in PECE mode, started by RK4.

use crate::integrators::{Properties, RkWorkspace, Scheme, Stepper, continues_evenly};
use crate::{DerivativeOf, Forces, Rk4, Scalar, State, StepError, Vector};

/// The fourth-order Adams–Bashforth–Moulton predictor–corrector in PECE mode: predict
/// with the explicit four-step Adams–Bashforth formula, evaluate, correct with the
/// three-step Adams–Moulton formula, evaluate.
///
/// ```text
/// y*        = y + (55 fₙ − 59 fₙ₋₁ + 37 fₙ₋₂ − 9 fₙ₋₃) dt/24        (P)
/// f*        = f(t + dt, y*)                                          (E)
/// y(t + dt) = y + (9 f* + 19 fₙ − 5 fₙ₋₁ + fₙ₋₂) dt/24              (C)
/// fₙ₊₁      = f(t + dt, y(t + dt))                                    (E)
/// ```
///
/// Hairer–Nørsett–Wanner, *Solving Ordinary Differential Equations I*, 2nd ed. (1993),
/// III.1. The rates `f` are whole [`Derivative`](crate::Derivative)s (velocity and force),
/// so it steps every state. The last evaluation is made at the start of the next step.
///
/// **History.** It needs the rates of the three previous steps, held in the workspace.
/// With fewer (the first three steps, after [`Stepper::reset`], when `t` is not where the
/// last step ended, or when `dt` changes: the formulas are for equal steps) the step is a
/// classic [`Rk4`] step, whose first stage is the rate the history keeps.
///
/// - **Order** 4.
/// - **Not symplectic**, and on an undamped oscillator never quite stable: its
///   characteristic polynomial puts the growth per step at `0.16 (ω dt)⁶` for small
///   `ω dt` (1.6·10⁻⁷ at `ω dt = 0.1`), so the energy creeps up, and steeply faster past
///   `ω dt ≈ 0.23` (`examples/stability.rs` measures growth there; 12 % per step at
///   `ω dt = 1`). Damping of `b/m` above that growth makes it stable.
/// - **Cost**: two force evaluations per step (four on the RK4 starting steps), half of
///   RK4's.
///
/// **A method with a history**, so it is stepped through a [`Stepper`], which
/// [`AdamsBashforthMoulton::new`] makes.
///
/// # Example
///
/// ```
/// use timestep::{AdamsBashforthMoulton, Integrator};
///
/// // y' = −y, 100 steps of 0.01 from y = 1.
/// let decay = |y: &f64, _t: f64| -y;
/// let mut y = 1.0_f64;
/// let mut abm = AdamsBashforthMoulton::new();
/// for i in 0..100 {
///     abm.step(&mut y, &decay, i as f64 * 0.01, 0.01)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-10);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct AdamsBashforthMoulton;

impl AdamsBashforthMoulton {
    /// A stepper with no history yet: its first three steps are RK4 steps.
    // A method with a history is only ever stepped through a stepper, so `new` makes one.
    #[allow(clippy::new_ret_no_self)]
    #[must_use]
    pub const fn new<S: State>() -> Stepper<AdamsBashforthMoulton, S> {
        Stepper::new(AdamsBashforthMoulton)
    }
}

/// What Adams–Bashforth–Moulton remembers (the rates at the starts of the last steps, the
/// last step's length and end) and the buffers of the next step, including RK4's for the
/// starting steps.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct AdamsBashforthMoultonWorkspace<S: State> {
    memory: Option<(S::Scalar, S::Scalar)>,
    /// How many past rates `rates[1..]` hold (0 to 3).
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, 3>")
    )]
    known: usize,
    /// `fₙ, fₙ₋₁, fₙ₋₂, fₙ₋₃`.
    rates: [DerivativeOf<S>; 4],
    predicted_rate: DerivativeOf<S>,
    sum: DerivativeOf<S>,
    probe: S,
    start: RkWorkspace<S, 4>,
}

/// `Σ wᵢ fᵢ` into `sum`.
#[inline(always)]
fn combine<D: Vector>(sum: &mut D, terms: [(&D, f64); 4]) {
    let [(first, w0), rest @ ..] = terms;
    sum.assign(first);
    sum.scale_assign(D::Scalar::from_f64(w0));
    for (rate, w) in rest {
        sum.add_scaled_assign(rate, D::Scalar::from_f64(w));
    }
}

impl Scheme for AdamsBashforthMoulton {
    type Workspace<S: State> = AdamsBashforthMoultonWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let zero = state.zero_rate();
        AdamsBashforthMoultonWorkspace {
            memory: None,
            known: 0,
            rates: core::array::from_fn(|_| zero.clone()),
            predicted_rate: zero.clone(),
            sum: zero,
            probe: state.clone(),
            start: RkWorkspace::new(state),
        }
    }

    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        let AdamsBashforthMoultonWorkspace {
            memory,
            known,
            rates,
            predicted_rate,
            sum,
            probe,
            start,
        } = workspace;
        if !continues_evenly(*memory, t, dt) {
            *known = 0;
        }
        // The oldest rate's buffer becomes fₙ's.
        rates.rotate_right(1);
        if *known < 3 {
            Rk4::TABLEAU.step(start, state, forces, t, dt);
            rates[0].assign(start.first_rate());
            *known += 1;
        } else {
            state.derivative_into(forces, t, &mut rates[0]);
            let [f0, f1, f2, f3] = &*rates;
            let w = 1.0 / 24.0;
            combine(
                sum,
                [
                    (f0, 55.0 * w),
                    (f1, -59.0 * w),
                    (f2, 37.0 * w),
                    (f3, -9.0 * w),
                ],
            );
            state.probe_into(sum, dt, probe);
            probe.derivative_into(forces, t + dt, predicted_rate);
            combine(
                sum,
                [
                    (&*predicted_rate, 9.0 * w),
                    (f0, 19.0 * w),
                    (f1, -5.0 * w),
                    (f2, w),
                ],
            );
            state.advance(sum, dt);
        }
        *memory = Some((dt, t + dt));
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("adams-bashforth-moulton", 4, 2)
    }
}
