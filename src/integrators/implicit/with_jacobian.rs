//! [`WithJacobian`]: a closure's forces paired with their analytic Jacobian.

use crate::{DerivativeOf, Forces, Jacobian, State};

/// Forces paired with their analytic Jacobian, for the implicit methods
/// ([`BackwardEuler`](crate::BackwardEuler), [`Trapezoid`](crate::Trapezoid),
/// [`ImplicitMidpoint`](crate::ImplicitMidpoint), [`Newmark`](crate::Newmark)), which then
/// need no finite differences.
///
/// `jacobian(state, t, J)` fills `J[(i, j)] = ∂fᵢ/∂yⱼ`; see [`Jacobian`] for the indexing.
///
/// # Example
///
/// A damped spring on a particle of mass `m`: position rate `p/m`, momentum rate
/// `−k x − b p/m`.
///
/// ```
/// use timestep::{BackwardEuler, Integrator, Jacobian, Particle, WithJacobian};
///
/// let (k, b, m) = (15.0, 0.1, 2.0);
/// let forces = WithJacobian::new(
///     move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity(),
///     move |_: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| {
///         j[(0, 1)] = 1.0 / m;
///         j[(1, 0)] = -k;
///         j[(1, 1)] = -b / m;
///     },
/// );
/// let mut particle = Particle::new(m, 1.0, 0.0);
/// BackwardEuler::new().step(&mut particle, &forces, 0.0, 0.1)?;
/// # use timestep::State;
/// // The linear solve, done by hand: (1 + b dt/m + k dt²/m) v = v₀ − k x₀ dt / m.
/// let v = (0.0 - k * 1.0 * 0.1 / m) / (1.0 + b * 0.1 / m + k * 0.01 / m);
/// assert!((particle.velocity() - v).abs() < 1e-12);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WithJacobian<F, J> {
    /// The forces.
    pub forces: F,
    /// Fills the Jacobian of the state's derivative.
    pub jacobian: J,
}

impl<F, J> WithJacobian<F, J> {
    /// Pairs `forces` with `jacobian`.
    #[must_use]
    pub const fn new(forces: F, jacobian: J) -> Self {
        WithJacobian { forces, jacobian }
    }
}

impl<S, F, J> Forces<S> for WithJacobian<F, J>
where
    S: State,
    F: Forces<S>,
    J: Fn(&S, S::Scalar, &mut Jacobian<'_, S::Scalar>),
{
    #[inline]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self.forces.force(state, t)
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        self.forces.force_into(state, t, out);
    }

    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        (self.jacobian)(state, t, jacobian);
        true
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
    fn mass_matrix(&self, mass: &mut Jacobian<'_, S::Scalar>) -> bool {
        self.forces.mass_matrix(mass)
    }

    /// The pattern of the wrapped forces, if they give one.
    #[cfg(feature = "sparse")]
    fn jacobian_pattern(&self, state: &S, pattern: &mut crate::Pattern) -> bool {
        self.forces.jacobian_pattern(state, pattern)
    }

    #[inline(always)]
    fn reads_momenta(&self) -> bool {
        self.forces.reads_momenta()
    }

    #[inline(always)]
    fn returns_forces(&self) -> bool {
        self.forces.returns_forces()
    }
}
