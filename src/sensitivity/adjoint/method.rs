//! [`AdjointMethod`]: what a method gives the one backward sweep of [`Adjoint`](super::Adjoint).

use super::linearised::Linearised;
use crate::adaptive::Step;
use crate::control::AdaptiveMethod;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Forces, Vector};
use alloc::vec::Vec;

/// A method with error control whose discrete adjoint [`Adjoint`](super::Adjoint) knows:
/// every explicit pair ([`Pair`](crate::Pair): Dopri5, Tsit5, Vern9 …),
/// [`Radau5`](crate::Radau5), the [`Rosenbrock`](crate::Rosenbrock) methods
/// ([`Rodas4`](crate::Rodas4), [`Rodas5P`](crate::Rodas5P), [`Ros3p`](crate::Ros3p), as `Adaptive::new(Rodas4)` builds
/// them), [`Seulex`](crate::Seulex) and the [`Bdf`](crate::Bdf) (whose linear solver and
/// structure the adjoint does not use: its steps are taken again and back with dense
/// LU). The forward solve and the backward sweep, with its
/// checkpoints, are one driver for all; the method says what a checkpoint keeps and how
/// one step is taken again and taken back.
///
/// Sealed: its items are the crate's own.
///
/// # Example
///
/// A stiff decay `y' = −k y`, `k = 1000`, to `t = 10⁻²` by Radau5, by Rodas4, by SEULEX
/// and by the BDF:
/// `L = y(t)` has `∂L/∂k = −t y(t)`.
///
/// ```
/// use timestep::sensitivity::{Adjoint, Model};
/// use timestep::{Adaptive, Bdf, Radau5, Rodas4, Seulex, Tolerances};
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
/// let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-10, 1e-12));
/// let gradient = Adjoint::new(Decay, [1000.0])?.gradient(&mut solver, &1.0, 0.0, &[1e-2], |_, _, _, out| *out = 1.0)?;
/// let end = (-10.0_f64).exp();
/// assert!((gradient.parameters[0] + 1e-2 * end).abs() < 1e-6 * 1e-2 * end);
/// assert!((gradient.initial_value - end).abs() < 1e-6 * end);
///
/// let mut solver = Adaptive::new(Rodas4).with_tolerances(Tolerances::new(1e-10, 1e-12));
/// let gradient = Adjoint::new(Decay, [1000.0])?.gradient(&mut solver, &1.0, 0.0, &[1e-2], |_, _, _, out| *out = 1.0)?;
/// assert!((gradient.parameters[0] + 1e-2 * end).abs() < 1e-6 * 1e-2 * end);
/// assert!((gradient.initial_value - end).abs() < 1e-6 * end);
///
/// let mut solver = Adaptive::new(Seulex::new()).with_tolerances(Tolerances::new(1e-10, 1e-12));
/// let gradient = Adjoint::new(Decay, [1000.0])?.gradient(&mut solver, &1.0, 0.0, &[1e-2], |_, _, _, out| *out = 1.0)?;
/// assert!((gradient.parameters[0] + 1e-2 * end).abs() < 1e-6 * 1e-2 * end);
/// assert!((gradient.initial_value - end).abs() < 1e-6 * end);
///
/// let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-10, 1e-12));
/// let gradient = Adjoint::new(Decay, [1000.0])?.gradient(&mut solver, &1.0, 0.0, &[1e-2], |_, _, _, out| *out = 1.0)?;
/// assert!((gradient.parameters[0] + 1e-2 * end).abs() < 1e-6 * 1e-2 * end);
/// assert!((gradient.initial_value - end).abs() < 1e-6 * end);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
pub trait AdjointMethod<V: Vector>: AdaptiveMethod<V> + Sized + private::Sealed {
    /// What takes a step again and back.
    #[doc(hidden)]
    type Backward: BackwardStep<V>;

    /// States kept per checkpoint.
    #[doc(hidden)]
    const CHECKPOINT_STATES: usize;

    /// Whether the forward solve's states are only near the method's (an implicit
    /// method's Newton iteration stops at a tolerance): then the steps are all taken
    /// again from the start before the backward sweep, and the checkpoints and samples
    /// replaced by the states of the steps solved exactly.
    #[doc(hidden)]
    const TAKES_STEPS_AGAIN: bool;

    /// Whether the forward solve takes the Jacobian from the model's products (as the
    /// steps taken again do): a Rosenbrock step is built on it, so the forward solve's
    /// steps are then those the adjoint differentiates.
    #[doc(hidden)]
    const MODEL_JACOBIAN: bool = false;

    /// Pushes the checkpoint of the forward solve's `step` (its start first) onto `out`.
    #[doc(hidden)]
    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>);

    /// Numbers kept of every step besides its time and length: none by default; SEULEX
    /// the lines of its extrapolation table, the BDF its order, formula and the linear map
    /// between its Nordsieck arrays.
    #[doc(hidden)]
    const RECORD: usize = 0;

    /// Pushes the [`RECORD`](AdjointMethod::RECORD) numbers of what the backward sweep
    /// must know of the forward solve's accepted `step` onto `out`.
    #[doc(hidden)]
    fn record<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<f64>) {
        let _ = (step, out);
    }

    /// Buffers for stretches of up to `interval` steps of states like `like`, with
    /// `parameters` parameters.
    #[doc(hidden)]
    fn backward(&self, like: &V, interval: usize, parameters: usize) -> Self::Backward;
}

/// One step taken again (to recover the states of a stretch) and taken back.
pub trait BackwardStep<V: Vector> {
    /// Takes again step `index` of the stretch, `(t, h)` from `y`, whose checkpoint is
    /// `checkpoint` (this step's when `index` is 0), and writes the state after it into
    /// `next` (`None` on the stretch's last step, which needs no state after it).
    #[allow(clippy::too_many_arguments)]
    fn advance<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        index: usize,
        checkpoint: &[V],
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        next: Option<&mut V>,
    ) -> Result<(), SensitivityError>;

    /// The next step taken again or back is one whose
    /// [`record`](AdjointMethod::record) was `record`. Nothing to do by default.
    fn select(&mut self, record: &[f64]) {
        let _ = record;
    }

    /// Writes what the method carries from step to step besides the state, as the steps
    /// taken again from the start left it, into a stretch's checkpoint after its state
    /// (`checkpoint[0]`, already written). Nothing to do by default.
    fn carry(&self, checkpoint: &mut [V]) {
        let _ = checkpoint;
    }

    /// Takes `λ = ∂L/∂y₊` back over step `index` of the stretch, `(t, h)` from `y` (taken
    /// again by [`advance`](BackwardStep::advance) first), to `∂L/∂y`, adding the step's
    /// part of `∂L/∂p` to `gradient`.
    #[allow(clippy::too_many_arguments)]
    fn adjoint<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        index: usize,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        lambda: &mut V,
        gradient: &mut [V::Scalar],
    ) -> Result<(), SensitivityError>;
}

pub(super) mod private {
    /// Keeps [`AdjointMethod`](super::AdjointMethod) the crate's.
    pub trait Sealed {}
}
