//! [`Ros3p`]: Lang and Verwer's third-order Rosenbrock method for parabolic problems.
// The coefficients keep the digits their source prints (trailing zeros included), so
// that they can be compared with it digit by digit.
#![allow(clippy::excessive_precision)]

use super::rosenbrock::{RosenbrockDense, RosenbrockTableau, rosenbrock_method};

/// ROS3P: Lang and Verwer's three-stage Rosenbrock method of order 3 with an embedded
/// method of order 2, designed so that its order does not drop on parabolic PDEs (its
/// order conditions for index-1 DAEs and the "Prothero–Robinson" conditions hold), with
/// `γ = 1/2 + √3/6`.
///
/// ```text
/// (I/(h γ) − J) Uᵢ = f(t + αᵢ h, y + Σⱼ aᵢⱼ Uⱼ) + Σⱼ (cᵢⱼ/h) Uⱼ + γᵢ h ∂f/∂t     γ = 0.7887
/// y(t + h) = y + Σᵢ bᵢ Uᵢ,   ŷ = y + Σᵢ b̂ᵢ Uᵢ
/// ```
///
/// Its third stage evaluates `f` where its second did (`a₃ = a₂`, `α₃ = α₂ = 1`), so a step
/// costs two force evaluations: the start's and one more.
///
/// Coefficients: J. Lang, J. Verwer, "ROS3P — an accurate third-order Rosenbrock solver
/// designed for parabolic problems", BIT 41 (2001) 731–738, Table 1 (the transformed
/// coefficients `aᵢⱼ`, `cᵢⱼ`, `αᵢ`, `γᵢ`, `mᵢ`, `m̂ᵢ`, which are Hairer–Wanner's form;
/// exactly `γ = 1/2 + √3/6`, `a₂₁ = a₃₁ = 1/γ`, `c₂₁ = −1/γ²`, `c₃₁ = −2√3`, `c₃₂ = −√3`,
/// `m = (2, 1/√3, 1 − 1/√3)`). The paper gives no continuous extension: the dense output
/// here is the cubic Hermite interpolant of the step's ends (third order), whose end slope
/// is the next step's first evaluation. See [`Rosenbrock`](crate::Rosenbrock) for how a
/// step takes the Jacobian and `∂f/∂t`, and its settings.
///
/// - **Order** 3 (error estimate 2, dense output 3), also for non-autonomous forces.
/// - **Stability**: A-stable, not L-stable: `R(∞) = 1 − √3 ≈ −0.732`, so very stiff
///   transients are damped slowly and with alternating sign (use [`Rodas4`](crate::Rodas4)
///   when that matters).
/// - **Cost** per step: one Jacobian (`n` force evaluations by finite differences, one per
///   diagonal of a band, none when the forces give it), one LU factorisation, three linear
///   solves, two force evaluations, and two more for `∂f/∂t` unless the forces are declared
///   autonomous.
///
/// **Its error estimate is blind to linear problems.** The embedded weights `m̂` of the
/// paper give a method with Ros3p's own stability function, so on `y' = A y + b` (constant
/// `A`, `b`) the estimate is zero however long the step, and under error control the steps
/// there grow by the controller's largest factor until the largest step allows: bound the
/// step ([`Adaptive::with_max_step`](crate::Adaptive::with_max_step)) or use
/// [`Rodas4`](crate::Rodas4) on linear and nearly linear problems. On nonlinear problems
/// the estimate is the paper's (tests/timestep/integrators/implicit/rosenbrock.rs measures
/// both).
///
/// Use it for semi-discretised parabolic PDEs (heat, reaction–diffusion) at engineering
/// tolerances (10⁻² to 10⁻⁵), where its low cost per step and its order under stiffness
/// pay; at tight tolerances Rodas4's fourth order takes fewer steps.
///
/// # Example
///
/// The stiff linear problem `y' = −10⁶ (y − cos t)` at a step a hundred thousand times its
/// stiff time scale: stable, and on the smooth solution `y ≈ cos t` to `O(dt³)`.
///
/// ```
/// use timestep::{Integrator, Ros3p};
///
/// let stiff = |y: &f64, t: f64| -1e6 * (y - t.cos());
/// let mut y = 1.0_f64;
/// for i in 0..100 {
///     Ros3p.step(&mut y, &stiff, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - 10.0_f64.cos()).abs() < 1e-5);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Ros3p;

impl Ros3p {
    /// `1/γ`, with `γ = 1/2 + √3/6`.
    const INVERSE_GAMMA: f64 = 1.267949192431123;

    /// The coefficients (Lang and Verwer, Table 1).
    pub const TABLEAU: RosenbrockTableau<3> = RosenbrockTableau {
        name: "ros3p",
        order: 3,
        embedded_order: 2,
        gamma: 7.886751345948129e-01,
        a: [
            [0.0; 3],
            [Self::INVERSE_GAMMA, 0.0, 0.0],
            [Self::INVERSE_GAMMA, 0.0, 0.0],
        ],
        c: [
            [0.0; 3],
            [-1.607695154586736, 0.0, 0.0],
            [-3.464101615137755, -1.732050807568877, 0.0],
        ],
        alpha: [0.0, 1.0, 1.0],
        gamma_sums: [
            7.886751345948129e-01,
            -2.113248654051871e-01,
            -1.077350269189626,
        ],
        b: [2.0, 5.773502691896258e-01, 4.226497308103742e-01],
        b_hat: [2.113248654051871, 1.0, 4.226497308103742e-01],
        dense: RosenbrockDense::Hermite,
    };
}
rosenbrock_method!(Ros3p, 3);
