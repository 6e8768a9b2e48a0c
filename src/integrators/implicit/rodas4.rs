//! [`Rodas4`]: Hairer and Wanner's stiffly accurate Rosenbrock method of order 4(3).
// The coefficients keep the digits their source prints (trailing zeros included), so
// that they can be compared with it digit by digit.
#![allow(clippy::excessive_precision)]

use super::rosenbrock::{RosenbrockDense, RosenbrockTableau, rosenbrock_method};

/// RODAS: Hairer and Wanner's six-stage Rosenbrock method of order 4 with an embedded
/// method of order 3, stiffly accurate, with a third-order continuous extension.
///
/// ```text
/// (I/(h γ) − J) Uᵢ = f(t + αᵢ h, y + Σⱼ aᵢⱼ Uⱼ) + Σⱼ (cᵢⱼ/h) Uⱼ + γᵢ h ∂f/∂t     γ = 1/4
/// ŷ = y + Σᵢ₌₁⁵ a₆ᵢ Uᵢ,   y(t + h) = ŷ + U₆,   error estimate U₆
/// ```
///
/// Its last two stages are evaluated at the embedded and the propagated solution (`α₅ = α₆
/// = 1`, rows 5 and 6 of `a` are `b̂` and `b` without their last entry): "stiffly
/// accurate", so on very stiff problems the solution is the end of an implicit stage and
/// the error estimate stays honest.
///
/// Coefficients: E. Hairer, G. Wanner, Solving Ordinary Differential Equations II, 2nd ed.
/// (Springer, 1996), VI.4 (Table 4.1 and the text around it), as the code rodas.f
/// prints them (its `ROCOE`, `METH = 1`: the coefficients, their 16 digits, and the dense
/// output's `D2ⱼ`, `D3ⱼ`). See [`Rosenbrock`](crate::Rosenbrock) for how a step takes the
/// Jacobian and `∂f/∂t`, and its settings (a banded Jacobian, autonomous forces).
///
/// - **Order** 4 (error estimate 3, dense output 3), also for non-autonomous forces (the
///   `γᵢ` terms).
/// - **Stability**: L-stable (`R(∞) = 0`): every decaying mode decays, however stiff, and
///   the stiffest are damped out in one step. Not symplectic: an oscillator loses energy.
/// - **Cost** per step: one Jacobian (`n` force evaluations by finite differences, or one
///   per diagonal of a band, or none when the forces give it), one LU factorisation of an
///   `n × n` (or banded) matrix, six linear solves, and six force evaluations (the first
///   at the start, five at the stages), plus two for `∂f/∂t` unless the forces are
///   declared autonomous. Under error control the start's evaluation serves every attempt
///   from there, and so does the Jacobian (a rejected step is retried with it, as rodas.f
///   does): an accepted step costs 6 + the Jacobian, a rejected one 5 and an LU.
///
/// Under error control it starts with rodas.f's controller, [`Controller::RODAS`]
/// (Gustafsson's predictive step-size control), and takes the steps rodas.f takes: the
/// same accepted and rejected steps, Jacobians, LU factorisations and evaluations, given
/// the same tolerances and first step (`tests/timestep/integrators/implicit/rodas4.rs`).
///
/// [`Controller::RODAS`]: crate::control::Controller::RODAS
///
/// Use it for stiff problems at moderate to tight tolerances (10⁻³ to 10⁻¹⁰): chemical
/// kinetics (Robertson), relaxation oscillations (Van der Pol with μ = 1000), method-of-lines
/// PDEs (with a banded Jacobian). For non-stiff problems an explicit pair
/// ([`Dopri5`](crate::Dopri5)) is cheaper per step.
///
/// # Example
///
/// Robertson's chemical kinetics (Hairer–Wanner II, IV.1), a classic stiff test, to
/// t = 40 under error control: the solution printed in Hairer–Wanner, `y₁ = 0.7158`,
/// `y₃ = 0.2842`, with mass conserved.
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::Tolerances;
/// use timestep::Rodas4;
///
/// let robertson = |y: &[f64; 3], _t: f64| {
///     let [a, b, c] = *y;
///     [
///         -0.04 * a + 1e4 * b * c,
///         0.04 * a - 1e4 * b * c - 3e7 * b * b,
///         3e7 * b * b,
///     ]
/// };
/// let mut y = [1.0, 0.0, 0.0];
/// let mut solver = Adaptive::new(Rodas4).with_tolerances(Tolerances::new(1e-8, 1e-12));
/// let statistics = solver.solve(&mut y, &robertson, 0.0, 40.0)?;
/// assert!((y[0] - 0.7158).abs() < 5e-5 && (y[2] - 0.2842).abs() < 5e-5);
/// assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// // One Jacobian per accepted step (a rejected step is retried with it), one
/// // factorisation per attempted step.
/// assert_eq!(statistics.jacobians, statistics.accepted);
/// assert_eq!(statistics.decompositions, statistics.steps());
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rodas4;

/// rodas.f's `A51 … A54`: the embedded solution's weights, and the propagated solution's.
const A5: [f64; 4] = [
    0.1221224509226641e+01,
    0.6019134481288629e+01,
    0.1253708332932087e+02,
    -0.6878860361058950e+00,
];

/// rodas.f's dense output coefficients `D21 … D25` and `D31 … D35`: with them
/// `y(t + θh) = (1 − θ) y₀ + θ (y₁ + (1 − θ)(Σ D2ⱼ Uⱼ + θ Σ D3ⱼ Uⱼ))` (its `CONTRO`).
const D2: [f64; 5] = [
    0.1012623508344586e+02,
    -0.7487995877610167e+01,
    -0.3480091861555747e+02,
    -0.7992771707568823e+01,
    0.1025137723295662e+01,
];
const D3: [f64; 5] = [
    -0.6762803392801253e+00,
    0.6087714651680015e+01,
    0.1643084320892478e+02,
    0.2476722511418386e+02,
    -0.6594389125716872e+01,
];

/// rodas.f's interpolant in the crate's form `wⱼ(θ) = θ(bⱼ + D2ⱼ) + θ²(D3ⱼ − D2ⱼ) − θ³ D3ⱼ`
/// (a cubic: no `θ⁴`).
const fn dense_weights(b: [f64; 6]) -> [[f64; 4]; 6] {
    let mut weights = [[0.0; 4]; 6];
    let mut j = 0;
    while j < 6 {
        let (d2, d3) = if j < 5 { (D2[j], D3[j]) } else { (0.0, 0.0) };
        weights[j] = [b[j] + d2, d3 - d2, -d3, 0.0];
        j += 1;
    }
    weights
}

impl Rodas4 {
    const B: [f64; 6] = [A5[0], A5[1], A5[2], A5[3], 1.0, 1.0];

    /// The coefficients (rodas.f, `METH = 1`).
    pub const TABLEAU: RosenbrockTableau<6> = RosenbrockTableau {
        name: "rodas4",
        order: 4,
        embedded_order: 3,
        gamma: 0.25,
        a: [
            [0.0; 6],
            [0.1544000000000000e+01, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                0.9466785280815826e+00,
                0.2557011698983284e+00,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                0.3314825187068521e+01,
                0.2896124015972201e+01,
                0.9986419139977817e+00,
                0.0,
                0.0,
                0.0,
            ],
            [A5[0], A5[1], A5[2], A5[3], 0.0, 0.0],
            [A5[0], A5[1], A5[2], A5[3], 1.0, 0.0],
        ],
        c: [
            [0.0; 6],
            [-0.5668800000000000e+01, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                -0.2430093356833875e+01,
                -0.2063599157091915e+00,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                -0.1073529058151375e+00,
                -0.9594562251023355e+01,
                -0.2047028614809616e+02,
                0.0,
                0.0,
                0.0,
            ],
            [
                0.7496443313967647e+01,
                -0.1024680431464352e+02,
                -0.3399990352819905e+02,
                0.1170890893206160e+02,
                0.0,
                0.0,
            ],
            [
                0.8083246795921522e+01,
                -0.7981132988064893e+01,
                -0.3152159432874371e+02,
                0.1631930543123136e+02,
                -0.6058818238834054e+01,
                0.0,
            ],
        ],
        alpha: [0.0, 0.386, 0.21, 0.63, 1.0, 1.0],
        gamma_sums: [
            0.2500000000000000e+00,
            -0.1043000000000000e+00,
            0.1035000000000000e+00,
            -0.3620000000000023e-01,
            0.0,
            0.0,
        ],
        b: Self::B,
        b_hat: [A5[0], A5[1], A5[2], A5[3], 1.0, 0.0],
        dense: RosenbrockDense::Stages {
            weights: dense_weights(Self::B),
            order: 3,
        },
    };
}
rosenbrock_method!(Rodas4, 6);
