//! Exponential Euler: exact for the linear part of `y' = A y + g(t, y)` it is given.

use super::{Memoryless, Properties, Scheme};
use crate::math;
use crate::{DerivativeOf, Forces, State, StepError, Vector};
use num_traits::Zero;

/// Exponential Euler: the linear part `A y` of `y' = A y + g(t, y)` integrated exactly, the
/// rest `g` held at its value at the start of the step.
///
/// ```text
/// y(t + dt) = e^(A dt) y + dt φ₁(A dt) g(t, y),    φ₁(z) = (eᶻ − 1)/z
///           = y + dt φ₁(A dt) f(t, y)             (f = A y + g, the whole rate)
/// ```
///
/// M. Hochbruck, A. Ostermann, "Exponential integrators", Acta Numerica 19 (2010)
/// 209–286, eq. (2.9).
///
/// **The linear part is part of the forces**, as a Jacobian is: `A` is diagonal,
/// `A = diag(λ)`, and the forces say what `λ` is through
/// [`Forces::linear_part`] (wrap a closure in [`WithLinearPart`]). The forces keep
/// returning the whole rate `A y + g`, so the same forces step with every other method
/// too. Each coordinate's rate is scaled by `φ₁(λᵢ dt)`, which makes the step exact for
/// `g = 0` (and for constant `g`) at any `dt`, however stiff `λ`.
///
/// Forces that give no linear part (`λ = 0`, as [`Method`](crate::Method)'s
/// `exponential-euler` sees any plain closure) make it explicit Euler.
///
/// - **Order** 1.
/// - **Stability**: exact, hence stable, for the linear part at every `dt`; the rest is
///   explicit Euler's (an undamped oscillator given without a linear part gains energy).
/// - **Cost**: one force evaluation and one linear-part evaluation per step, and one
///   `exp` per coordinate.
///
/// # Example
///
/// A stiff decay towards a moving target, `y' = −1000 (y − cos t)`: `λ = −1000`,
/// `g = 1000 cos t`. At `dt = 0.01`, where explicit Euler (`|1 + λ dt| = 9`) explodes,
/// exponential Euler follows the target.
///
/// ```
/// use timestep::{Derivative, ExponentialEuler, Integrator, NoVelocity, WithLinearPart};
///
/// let forces = WithLinearPart::new(
///     |y: &f64, t: f64| -1000.0 * (y - t.cos()),
///     |_: &f64, _t: f64, diagonal: &mut Derivative<NoVelocity<f64>, f64>| diagonal.force = -1000.0,
/// );
/// let mut y = 0.0_f64;
/// for i in 0..100 {
///     ExponentialEuler.step(&mut y, &forces, i as f64 * 0.01, 0.01)?;
/// }
/// assert!((y - 1.0_f64.cos()).abs() < 0.01);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct ExponentialEuler;

/// The buffers of an exponential Euler step: the rate and the linear part's diagonal.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct ExponentialEulerWorkspace<S: State> {
    rate: DerivativeOf<S>,
    diagonal: DerivativeOf<S>,
}

impl Scheme for ExponentialEuler {
    type Workspace<S: State> = ExponentialEulerWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        let rate = state.zero_rate();
        ExponentialEulerWorkspace {
            diagonal: rate.clone(),
            rate,
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
        let ExponentialEulerWorkspace { rate, diagonal } = workspace;
        state.derivative_into(forces, t, rate);
        if forces.linear_part(state, t, diagonal) {
            if diagonal.dim() != rate.dim() {
                wrong_diagonal_size(diagonal.dim(), rate.dim());
            }
            for i in 0..rate.dim() {
                let z = diagonal.component(i) * dt;
                if z != S::Scalar::zero() {
                    rate.set_component(i, rate.component(i) * (math::exp_m1(z) / z));
                }
            }
        }
        state.advance(rate, dt);
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("exponential-euler", 1, 1)
    }
}

impl Memoryless for ExponentialEuler {}

/// A linear part that resized its diagonal: a panic that names it (a shorter one panicked
/// with a bare "index out of bounds", a longer one had its extra entries ignored).
/// `Forces::linear_part` returns only whether there is one, so a panic is how it is said.
#[cold]
#[inline(never)]
#[track_caller]
fn wrong_diagonal_size(written: usize, expected: usize) -> ! {
    panic!(
        "the linear part returned a diagonal of {written} components for a state of {expected}: \
         it needs one per coordinate of the state's rate"
    )
}

/// Forces with a diagonal linear part: `forces` gives the whole rate `A y + g(t, y)`,
/// `linear_part` writes the diagonal of `A` into a [`Derivative`](crate::Derivative)
/// (velocity coordinates, then force coordinates) for [`ExponentialEuler`].
///
/// See [`ExponentialEuler`] for an example.
#[derive(Clone, Copy, Debug)]
pub struct WithLinearPart<F, L> {
    /// The forces: the whole rate.
    pub forces: F,
    /// Writes the diagonal of the linear part.
    pub linear_part: L,
}

impl<F, L> WithLinearPart<F, L> {
    /// Pairs `forces` with the diagonal of their linear part.
    #[must_use]
    pub const fn new(forces: F, linear_part: L) -> Self {
        WithLinearPart {
            forces,
            linear_part,
        }
    }
}

impl<S, F, L> Forces<S> for WithLinearPart<F, L>
where
    S: State,
    F: Forces<S>,
    L: Fn(&S, S::Scalar, &mut DerivativeOf<S>),
{
    #[inline]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self.forces.force(state, t)
    }

    #[inline]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        self.forces.force_into(state, t, out);
    }

    fn jacobian(
        &self,
        state: &S,
        t: S::Scalar,
        jacobian: &mut crate::Jacobian<'_, S::Scalar>,
    ) -> bool {
        self.forces.jacobian(state, t, jacobian)
    }

    #[inline]
    fn jacobian_times(
        &self,
        state: &S,
        t: S::Scalar,
        v: &DerivativeOf<S>,
        out: &mut DerivativeOf<S>,
    ) -> bool {
        self.forces.jacobian_times(state, t, v, out)
    }

    #[inline]
    fn precondition(
        &self,
        state: &S,
        t: S::Scalar,
        gamma: S::Scalar,
        r: &DerivativeOf<S>,
        z: &mut DerivativeOf<S>,
    ) -> bool {
        self.forces.precondition(state, t, gamma, r, z)
    }

    #[inline]
    fn mass_matrix(&self, mass: &mut crate::Jacobian<'_, S::Scalar>) -> bool {
        self.forces.mass_matrix(mass)
    }

    #[cfg(feature = "sparse")]
    fn jacobian_pattern(&self, state: &S, pattern: &mut crate::Pattern) -> bool {
        self.forces.jacobian_pattern(state, pattern)
    }

    fn linear_part(&self, state: &S, t: S::Scalar, diagonal: &mut DerivativeOf<S>) -> bool {
        (self.linear_part)(state, t, diagonal);
        true
    }

    #[inline(always)]
    fn reads_momenta(&self) -> bool {
        self.forces.reads_momenta()
    }
}
