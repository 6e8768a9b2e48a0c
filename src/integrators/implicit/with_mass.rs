//! [`WithMass`]: a closure's forces paired with a constant mass matrix, `M y' = f(t, y)`.

use crate::{DerivativeOf, Forces, Jacobian, State};

/// Forces `f` paired with a constant mass matrix `M`: the system `M y' = f(t, y)`, for
/// [`Radau5`](crate::Radau5), [`Bdf`](crate::Bdf) and the
/// [`Rosenbrock`](crate::Rosenbrock) methods (the other methods solve `y' = f(t, y)` and
/// ignore `M`).
///
/// `mass(M)` fills `M[(i, j)]` in the numbering and [`Structure`](crate::Structure) of the
/// [`Jacobian`] (every entry starts at 0); it is called once per workspace. A zero row
/// `i` makes equation `i` algebraic, `0 = fᵢ(t, y)`: an index-1 differential-algebraic
/// system (see [`Forces::mass_matrix`]).
///
/// # Example
///
/// `y₁' = −y₁ + y₂` with the algebraic equation `0 = y₂ − sin t` (`M = diag(1, 0)`), whose
/// solution from `y₁(0) = 0` is `y₂ = sin t`, `y₁ = (sin t − cos t + e⁻ᵗ)/2`:
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::{Jacobian, Radau5, Tolerances, WithMass};
///
/// let dae = WithMass::new(
///     |y: &[f64; 2], t: f64| [-y[0] + y[1], y[1] - t.sin()],
///     |m: &mut Jacobian<f64>| m[(0, 0)] = 1.0,
/// );
/// let mut y = [0.0, 0.0];
/// Adaptive::new(Radau5::new())
///     .with_tolerances(Tolerances::new(1e-8, 1e-10))
///     .solve(&mut y, &dae, 0.0, 2.0)?;
/// let exact = (2.0_f64.sin() - 2.0_f64.cos() + (-2.0_f64).exp()) / 2.0;
/// assert!((y[0] - exact).abs() < 1e-7 && (y[1] - 2.0_f64.sin()).abs() < 1e-7);
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug)]
pub struct WithMass<F, M> {
    /// The forces `f(t, y)`.
    pub forces: F,
    /// Fills the mass matrix `M`.
    pub mass: M,
}

impl<F, M> WithMass<F, M> {
    /// Pairs `forces` with the mass matrix `mass` fills in.
    #[must_use]
    pub const fn new(forces: F, mass: M) -> Self {
        WithMass { forces, mass }
    }
}

impl<S, F, M> Forces<S> for WithMass<F, M>
where
    S: State,
    F: Forces<S>,
    M: Fn(&mut Jacobian<'_, S::Scalar>),
{
    #[inline]
    fn force(&self, state: &S, t: S::Scalar) -> S::Force {
        self.forces.force(state, t)
    }

    #[inline(always)]
    fn force_into(&self, state: &S, t: S::Scalar, out: &mut S::Force) {
        self.forces.force_into(state, t, out);
    }

    /// The wrapped forces' Jacobian, if they give one.
    fn jacobian(&self, state: &S, t: S::Scalar, jacobian: &mut Jacobian<'_, S::Scalar>) -> bool {
        self.forces.jacobian(state, t, jacobian)
    }

    fn mass_matrix(&self, mass: &mut Jacobian<'_, S::Scalar>) -> bool {
        (self.mass)(mass);
        true
    }

    /// The pattern of the wrapped forces, if they give one.
    #[cfg(feature = "sparse")]
    fn jacobian_pattern(&self, state: &S, pattern: &mut crate::Pattern) -> bool {
        self.forces.jacobian_pattern(state, pattern)
    }

    fn linear_part(&self, state: &S, t: S::Scalar, diagonal: &mut DerivativeOf<S>) -> bool {
        self.forces.linear_part(state, t, diagonal)
    }

    #[inline(always)]
    fn reads_momenta(&self) -> bool {
        self.forces.reads_momenta()
    }
}
