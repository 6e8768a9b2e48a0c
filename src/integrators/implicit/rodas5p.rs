//! [`Rodas5P`]: Steinebach's stiffly accurate Rosenbrock method of order 5(4).
// The coefficients keep the digits their source prints, so that they can be compared
// with it digit by digit.
#![allow(clippy::excessive_precision)]

use super::rosenbrock::{RosenbrockDense, RosenbrockTableau, rosenbrock_method};

/// Rodas5P: Steinebach's eight-stage Rosenbrock method of order 5 with an embedded method
/// of order 4, stiffly accurate, with a fourth-order continuous extension.
///
/// ```text
/// (I/(h γ) − J) Uᵢ = f(t + αᵢ h, y + Σⱼ aᵢⱼ Uⱼ) + Σⱼ (cᵢⱼ/h) Uⱼ + γᵢ h ∂f/∂t     γ = 0.2119
/// ŷ = y + Σᵢ₌₁⁷ a₈ᵢ Uᵢ,   y(t + h) = ŷ + U₈,   error estimate U₈
/// ```
///
/// Its last three stages are evaluated at `t + h` (`α₆ = α₇ = α₈ = 1`), each at the point
/// the one before reached plus its own increment, as [`Rodas4`](crate::Rodas4)'s last
/// two: the embedded solution is where stage 8 evaluates `f` and the solution is that plus
/// `U₈`. "Stiffly accurate", so on very stiff problems the solution is the end of an
/// implicit stage and the error estimate stays honest.
///
/// Coefficients: G. Steinebach, "Construction of Rosenbrock–Wanner method Rodas5P and
/// numerical benchmarks within the Julia Differential Equations package", BIT Numer. Math.
/// 63 (2023) 27, in Hairer–Wanner's transformed form (the form of
/// [`RosenbrockTableau`]), to the 16–17 digits that OrdinaryDiffEq's `Rodas5PTableau`
/// prints them (its `a`, `C`, `c`, `d` and the dense output's `h₂ⱼ`, `h₃ⱼ`, `h₄ⱼ`). The
/// tests check them against the order conditions (every rooted tree up to order 5 for the
/// solution, 4 for the embedded one: `tests/timestep/integrators/implicit/rodas5p.rs`).
/// See [`Rosenbrock`](crate::Rosenbrock) for how a step takes the Jacobian and `∂f/∂t`,
/// and its settings (a banded Jacobian, autonomous forces, mass matrices).
///
/// - **Order** 5 (error estimate 4, dense output 4), also for non-autonomous forces (the
///   `γᵢ` terms).
/// - **Stability**: L-stable, and so is the embedded method: `|R(iy)| ≤ 1` on the
///   imaginary axis and `R(∞) = 0`; the stiffest modes are damped out in one step. Not
///   symplectic: an oscillator loses energy.
/// - **Cost** per step: one Jacobian (`n` force evaluations by finite differences, one per
///   diagonal of a band, or none when the forces give it), one LU factorisation, eight
///   linear solves and eight force evaluations (the first at the start, seven at the
///   stages), plus two for `∂f/∂t` unless the forces are declared autonomous. Under error
///   control the start's evaluation serves every attempt from there, and so does the
///   Jacobian: an accepted step costs 8 + the Jacobian, a rejected one 7 and an LU. Two
///   solves and two evaluations more than Rodas4 per step, for one order more.
///
/// Under error control it takes rodas.f's controller, [`Controller::RODAS`]
/// (Gustafsson's predictive step-size control), with the exponent of its fourth-order
/// estimate.
///
/// [`Controller::RODAS`]: crate::control::Controller::RODAS
///
/// Use it for stiff problems at tight tolerances (10⁻⁶ and below), where its fifth order
/// takes fewer steps than Rodas4 (BENCHMARKS.md, "Rodas5P (2026-11-28, callgrind)", says
/// where that pays for its two extra stages), and where a fourth-order dense output
/// matters (events, output between steps). At loose tolerances Rodas4 is cheaper.
///
/// # Example
///
/// Robertson's chemical kinetics (Hairer–Wanner II, IV.1), to t = 40 under error control:
/// the solution printed in Hairer–Wanner, `y₁ = 0.7158`, `y₃ = 0.2842`, with mass
/// conserved.
///
/// ```
/// use timestep::adaptive::Adaptive;
/// use timestep::{Rodas5P, Tolerances};
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
/// let mut solver = Adaptive::new(Rodas5P).with_tolerances(Tolerances::new(1e-8, 1e-12));
/// let statistics = solver.solve(&mut y, &robertson, 0.0, 40.0)?;
/// assert!((y[0] - 0.7158).abs() < 5e-5 && (y[2] - 0.2842).abs() < 5e-5);
/// assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-12);
/// // One Jacobian per accepted step, one factorisation per attempted step.
/// assert_eq!(statistics.jacobians, statistics.accepted);
/// assert_eq!(statistics.decompositions, statistics.steps());
/// # Ok::<(), timestep::AdaptiveError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Rodas5P;

/// `a₆₁ … a₆₅`: where stage 6 evaluates `f`; stages 7 and 8, the embedded solution and
/// the solution add `U₆`, `U₇` and `U₈` to it with weight 1.
const A6: [f64; 5] = [
    -7.502846399306121,
    2.561846144803919,
    -11.627539656261098,
    -0.18268767659942256,
    0.030198172008377946,
];

/// The dense output's `h₂ⱼ`, `h₃ⱼ`, `h₄ⱼ`: with `Kₖ = Σⱼ hₖⱼ Uⱼ`,
/// `y(t + θh) = (1 − θ) y₀ + θ (y₁ + (1 − θ)(K₂ + θ K₃ + θ² K₄))`, rodas.f's form with
/// one power of `θ` more.
const H: [[f64; 8]; 3] = [
    [
        25.948786856663858,
        -2.5579724845846235,
        10.433815404888879,
        -2.3679251022685204,
        0.524948541321073,
        1.1241088310450404,
        0.4272876194431874,
        -0.17202221070155493,
    ],
    [
        -9.91568850695171,
        -0.9689944594115154,
        3.0438037242978453,
        -24.495224566215796,
        20.176138334709044,
        15.98066361424651,
        -6.789040303419874,
        -6.710236069923372,
    ],
    [
        11.419903575922262,
        2.8879645146136994,
        72.92137995996029,
        80.12511834622643,
        -52.072871366152654,
        -59.78993625266729,
        -0.15582684282751913,
        4.883087185713722,
    ],
];

/// The interpolant in the crate's form
/// `wⱼ(θ) = θ(bⱼ + h₂ⱼ) + θ²(h₃ⱼ − h₂ⱼ) + θ³(h₄ⱼ − h₃ⱼ) − θ⁴ h₄ⱼ`.
const fn dense_weights(b: [f64; 8]) -> [[f64; 4]; 8] {
    let mut weights = [[0.0; 4]; 8];
    let mut j = 0;
    while j < 8 {
        let [h2, h3, h4] = [H[0][j], H[1][j], H[2][j]];
        weights[j] = [b[j] + h2, h3 - h2, h4 - h3, -h4];
        j += 1;
    }
    weights
}

/// A row of `a` that starts with `A6` and goes on with `tail`.
const fn after_stage_six(tail: [f64; 3]) -> [f64; 8] {
    [A6[0], A6[1], A6[2], A6[3], A6[4], tail[0], tail[1], tail[2]]
}

impl Rodas5P {
    const B: [f64; 8] = after_stage_six([1.0, 1.0, 1.0]);

    /// The coefficients (Steinebach 2023, in the transformed form).
    pub const TABLEAU: RosenbrockTableau<8> = RosenbrockTableau {
        name: "rodas5p",
        order: 5,
        embedded_order: 4,
        gamma: 0.21193756319429014,
        a: [
            [0.0; 8],
            [3.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                2.849394379747939,
                0.45842242204463923,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                -6.954028509809101,
                2.489845061869568,
                -10.358996098473584,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                2.8029986275628964,
                0.5072464736228206,
                -0.3988312541770524,
                -0.04721187230404641,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            after_stage_six([0.0, 0.0, 0.0]),
            after_stage_six([1.0, 0.0, 0.0]),
            after_stage_six([1.0, 1.0, 0.0]),
        ],
        c: [
            [0.0; 8],
            [-14.155112264123755, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
            [
                -17.97296035885952,
                -2.859693295451294,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                147.12150275711716,
                -1.41221402718213,
                71.68940251302358,
                0.0,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                165.43517024871676,
                -0.4592823456491126,
                42.90938336958603,
                -5.961986721573306,
                0.0,
                0.0,
                0.0,
                0.0,
            ],
            [
                24.854864614690072,
                -3.0009227002832186,
                47.4931110020768,
                5.5814197821558125,
                -0.6610691825249471,
                0.0,
                0.0,
                0.0,
            ],
            [
                30.91273214028599,
                -3.1208243349937974,
                77.79954646070892,
                34.28646028294783,
                -19.097331116725623,
                -28.087943162872662,
                0.0,
                0.0,
            ],
            [
                37.80277123390563,
                -3.2571969029072276,
                112.26918849496327,
                66.9347231244047,
                -40.06618937091002,
                -54.66780262877968,
                -9.48861652309627,
                0.0,
            ],
        ],
        alpha: [
            0.0,
            0.6358126895828704,
            0.4095798393397535,
            0.9769306725060716,
            0.4288403609558664,
            1.0,
            1.0,
            1.0,
        ],
        gamma_sums: [
            0.21193756319429014,
            -0.42387512638858027,
            -0.3384627126235924,
            1.8046452872882734,
            2.325825639765069,
            0.0,
            0.0,
            0.0,
        ],
        b: Self::B,
        b_hat: after_stage_six([1.0, 1.0, 0.0]),
        dense: RosenbrockDense::Stages {
            weights: dense_weights(Self::B),
            order: 4,
        },
    };
}
rosenbrock_method!(Rodas5P, 8);
