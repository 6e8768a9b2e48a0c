//! [`Model`]: a first-order system whose rate depends on parameters.

use crate::Vector;

/// A first-order system `y' = f(t, y, p)` whose rate depends on parameters `p`: what
/// forward sensitivities differentiate.
///
/// Only [`rate`](Model::rate) is required. [`tangent`](Model::tangent), the rate's
/// directional derivative, is optional: without it [`Forward`](super::Forward) takes a
/// one-sided finite difference of `rate` (one extra evaluation per sensitivity, accurate
/// to about `√ε` relative, 10⁻⁸ in `f64`); with it the sensitivities are as accurate as
/// the solve, and implicit methods get an accurate Jacobian of the whole system. The
/// trait names the state and the parameters apart so that the [`Adjoint`](super::Adjoint) gradient
/// differentiates the same model, through [`cotangent`](Model::cotangent).
///
/// Closures `|y, p, t, out|` implement it (with `rate` alone).
///
/// # Example
///
/// Exponential decay `y' = −k y` with its tangent `−k dy − y dk`:
///
/// ```
/// use timestep::sensitivity::Model;
///
/// struct Decay;
/// impl Model<f64> for Decay {
///     fn rate(&self, y: &f64, p: &[f64], _t: f64, out: &mut f64) {
///         *out = -p[0] * y;
///     }
///     fn tangent(&self, y: &f64, p: &[f64], _t: f64, dy: &f64, dp: &[f64], out: &mut f64) -> bool {
///         *out = -p[0] * dy - y * dp[0];
///         true
///     }
/// }
///
/// let mut d = 0.0;
/// assert!(Decay.tangent(&2.0, &[3.0], 0.0, &1.0, &[1.0], &mut d));
/// assert_eq!(d, -5.0); // −3 · 1 − 2 · 1
/// ```
pub trait Model<V: Vector> {
    /// Writes the rate `f(t, y, p)` into `out`, a buffer of `y`'s size that still holds an
    /// earlier rate: every coordinate must be written.
    fn rate(&self, y: &V, parameters: &[V::Scalar], t: V::Scalar, out: &mut V);

    /// Writes the directional derivative `J_y · dy + J_p · dp` of the rate (with
    /// `J_y = ∂f/∂y`, `J_p = ∂f/∂p`) into `out` and returns `true`, or returns `false`
    /// (the default) to have it estimated by a finite difference of
    /// [`rate`](Model::rate). `dp` has one entry per parameter.
    ///
    /// A sensitivity `sᵢ = ∂y/∂θᵢ` moves at `sᵢ' = J_y sᵢ + ∂f/∂θᵢ`: this with `dy = sᵢ`
    /// and `dp` the unit vector of parameter `θᵢ` (zero for an initial value).
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn tangent(
        &self,
        y: &V,
        parameters: &[V::Scalar],
        t: V::Scalar,
        dy: &V,
        dp: &[V::Scalar],
        out: &mut V,
    ) -> bool {
        let _ = (y, parameters, t, dy, dp, out);
        false
    }

    /// Writes the transposed products `J_yᵀ · w` into `out_y` and `J_pᵀ · w` into `out_p`
    /// (one entry per parameter) and returns `true`, or returns `false` (the default) to
    /// have them built a column at a time from [`tangent`](Model::tangent) or from finite
    /// differences of [`rate`](Model::rate): `n + p` evaluations each time, where this
    /// costs about one. The [`Adjoint`](super::Adjoint) gradient takes one per stage of
    /// every step, so a model with many parameters should give it.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn cotangent(
        &self,
        y: &V,
        parameters: &[V::Scalar],
        t: V::Scalar,
        w: &V,
        out_y: &mut V,
        out_p: &mut [V::Scalar],
    ) -> bool {
        let _ = (y, parameters, t, w, out_y, out_p);
        false
    }

    /// Writes `z ≈ (I − γ J_y)⁻¹ r` into `z` and returns `true`, or returns `false` (the
    /// default: none known): the preconditioner of the state's Newton matrix, as
    /// [`Forces::precondition`](crate::Forces::precondition) is for forces.
    /// [`Forward`](super::Forward) applies it to every block of the augmented system, whose
    /// Newton matrix it approximates by `diag(I − γ J_y, …)` (CVODES's simultaneous
    /// corrector), so that the [BDF with GMRES](crate::LinearSolver::Gmres) takes the
    /// model's preconditioner told [`Preconditioner::User`](crate::Preconditioner::User).
    /// `z` must be written entirely.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn precondition(
        &self,
        y: &V,
        parameters: &[V::Scalar],
        t: V::Scalar,
        gamma: V::Scalar,
        r: &V,
        z: &mut V,
    ) -> bool {
        let _ = (y, parameters, t, gamma, r, z);
        false
    }

    /// Writes the constant mass matrix `M` of `M y' = f(t, y, p)` into rows and columns
    /// `0..n` of `mass` (`n` the state's size) and returns `true`, or returns `false` (the
    /// default: `M = I`). As [`Forces::mass_matrix`](crate::Forces::mass_matrix): every
    /// entry starts at 0, `M` may be singular (a zero row makes its equation algebraic),
    /// and only the methods that take a mass matrix read it (Radau5, the BDF, the
    /// Rosenbrock methods, backward Euler). `M` must not depend on the parameters.
    ///
    /// [`Forward`](super::Forward) gives each sensitivity the same `M`, `M sᵢ' = J_y sᵢ +
    /// ∂f/∂θᵢ`: the sensitivities of a differential-algebraic system obey its algebraic
    /// equations differentiated, so their start must too. A sensitivity to a parameter
    /// starts at 0, consistent when the algebraic equations do not involve the parameter;
    /// otherwise (or for an initial value that the algebraic equations tie to others) the
    /// first step refuses the start with
    /// [`StepError::InconsistentStart`](crate::StepError::InconsistentStart).
    /// [`Adjoint`](super::Adjoint) does not take a mass matrix: under a method that reads one
    /// it refuses the model ([`SensitivityError::MassMatrix`](super::SensitivityError::MassMatrix)).
    #[inline]
    fn mass_matrix(&self, mass: &mut crate::Jacobian<'_, V::Scalar>) -> bool {
        let _ = mass;
        false
    }
}

impl<V: Vector, F: Fn(&V, &[V::Scalar], V::Scalar, &mut V)> Model<V> for F {
    #[inline(always)]
    fn rate(&self, y: &V, parameters: &[V::Scalar], t: V::Scalar, out: &mut V) {
        self(y, parameters, t, out);
    }
}
