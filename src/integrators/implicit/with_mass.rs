//! [`WithMass`]: a closure's forces paired with a constant mass matrix, `M y' = f(t, y)`.

use crate::{DerivativeOf, Forces, Jacobian, State};

/// Forces `f` paired with a constant mass matrix `M`: the system `M y' = f(t, y)`, for
/// [`Radau5`](crate::Radau5), [`Bdf`](crate::Bdf), the
/// [`Rosenbrock`](crate::Rosenbrock) methods and [`BackwardEuler`](crate::BackwardEuler)
/// (the trapezoidal and implicit midpoint rules and Newmark-β refuse it with
/// [`StepError::MassUnsupported`](crate::StepError::MassUnsupported); the explicit
/// methods solve `y' = f(t, y)` and ignore `M`).
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
///
/// # A mass that depends on the time or the state: `M(t, y) y' = f(t, y)`
///
/// The methods read one constant `M`. A mass `M(t, y)` is solved through the standard
/// rewrite as a constant-mass index-1 system (Hairer–Wanner II, VI.1; DASSL's and
/// radau5.f's documentation suggest the same): with the rates as new unknowns `z = y'`,
/// the state `(y, z)` satisfies
///
/// ```text
/// y' = z
/// 0  = M(t, y) z − f(t, y)
/// ```
///
/// whose mass matrix `diag(I, 0)` is constant. Its algebraic equations determine `z`
/// wherever `M(t, y)` is regular (their Jacobian in `z` is `M(t, y)`: index 1), so
/// [`Radau5`](crate::Radau5), [`Bdf`](crate::Bdf), the Rosenbrock methods and
/// [`BackwardEuler`](crate::BackwardEuler) all solve it. Start `z` consistent,
/// `z₀ = M(t₀, y₀)⁻¹ f(t₀, y₀)`, or let
/// [`Radau5::consistent_start`](crate::Radau5::consistent_start) solve for it; a start
/// whose `z` is off is refused ([`StepError::InconsistentStart`](crate::StepError::InconsistentStart)).
/// The price is twice the unknowns, and error control over `z = y'` as well as `y`
/// (give `z` a looser tolerance with [`ComponentTolerances`](crate::ComponentTolerances)
/// if its accuracy does not matter). A singular `M(t, y)` at some point is a higher
/// index there, which the methods refuse or fail on.
///
/// `M(t, y) = [[e^y₁, 0], [y₂, 1]]` and `f = (1, 0)`: `e^y₁ y₁' = 1` and
/// `y₂ y₁' + y₂' = 0`, solved from `y = (0, 1)` by `y₁ = ln(1 + t)`, `y₂ = 1/(1 + t)`;
/// with `z = y'`, `z₀ = M⁻¹ f = (1, −1)`:
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::{Jacobian, Radau5, Tolerances, WithMass};
///
/// // Unknowns (y₁, y₂, z₁, z₂): y' = z, 0 = M(t, y) z − f(t, y).
/// let rewritten = WithMass::new(
///     |u: &[f64; 4], _t: f64| {
///         let ([y1, y2], [z1, z2]) = ([u[0], u[1]], [u[2], u[3]]);
///         [z1, z2, y1.exp() * z1 - 1.0, y2 * z1 + z2]
///     },
///     |m: &mut Jacobian<f64>| {
///         m[(0, 0)] = 1.0;
///         m[(1, 1)] = 1.0;
///     },
/// );
/// let mut u = [0.0, 1.0, 1.0, -1.0];
/// Adaptive::new(Radau5::new())
///     .with_tolerances(Tolerances::new(1e-8, 1e-10))
///     .solve(&mut u, &rewritten, 0.0, 3.0)?;
/// assert!((u[0] - 4.0_f64.ln()).abs() < 1e-7 && (u[1] - 0.25).abs() < 1e-7);
/// // And the rates: y' = (1/(1 + t), −1/(1 + t)²).
/// assert!((u[2] - 0.25).abs() < 1e-6 && (u[3] + 0.0625).abs() < 1e-6);
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

    #[inline(always)]
    fn returns_forces(&self) -> bool {
        self.forces.returns_forces()
    }
}
