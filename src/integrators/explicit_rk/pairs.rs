//! Embedded Runge–Kutta pairs: a tableau with a second set of weights whose difference
//! estimates the local error, and a continuous extension for the state between steps.

use super::{Tableau, explicit_rk};
use crate::control::Controller;

/// An explicit Runge–Kutta method with an embedded error estimate and a continuous
/// extension (dense output).
///
/// - The [`tableau`](EmbeddedPair::tableau) advances the solution (its weights `b` give
///   the propagated, higher-order result: "local extrapolation").
/// - The **error weights** `eᵢ = bᵢ − b̂ᵢ` give the local error estimate
///   `err = dt Σ eᵢ kᵢ`, where `b̂` are the embedded formula's weights, of order
///   [`embedded_order`](EmbeddedPair::embedded_order).
/// - The **dense output** gives the state inside a step as
///   `y(t + θ dt) = y + dt Σᵢ wᵢ(θ) kᵢ` with polynomials
///   `wᵢ(θ) = Σₖ dense[i][k] θ^(k+1)`, exact at `θ = 0` and at `θ = 1` (`wᵢ(1) = bᵢ`).
///
/// A pair whose last stage is evaluated at the new state (its last row of `a` is `b`, its
/// last node 1) is "first same as last": that stage is the next step's first, so an
/// accepted step costs one evaluation fewer than it has stages.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct EmbeddedPair<const N: usize> {
    /// The stages and the propagated weights.
    pub tableau: Tableau<N>,
    /// `eᵢ = bᵢ − b̂ᵢ`.
    pub error: [f64; N],
    /// A second, lower-order error estimate `ê` that guards the first: when given, the
    /// error norm is `‖e‖² / √(‖e‖² + 0.01 ‖ê‖²)`, as in Hairer's DOP853, which stays
    /// honest when `‖e‖` happens to be small by cancellation (Hairer–Nørsett–Wanner I,
    /// II.10).
    pub error_guard: Option<[f64; N]>,
    /// The order of the embedded weights `b̂`.
    pub embedded_order: u32,
    /// The dense output's polynomial coefficients, by stage and power of `θ` (from `θ¹` to
    /// `θ⁹`, the degree of Verner's 9(8) interpolant).
    pub dense: [[f64; 9]; N],
    /// The order of the dense output.
    pub dense_order: u32,
    /// The step-size controller the pair's authors tuned it with (dopri5.f's, unless the
    /// pair says otherwise).
    pub controller: Controller,
}

impl<const N: usize> EmbeddedPair<N> {
    /// The stage that is the rate at the new state (node 1, its row of `a` equal to `b`):
    /// the next step's first stage ("first same as last"). Every pair has one, evaluated
    /// within the step when the error estimate needs it (Dormand–Prince 5(4)) and after
    /// the step is accepted otherwise (DOP853).
    ///
    /// # Panics
    ///
    /// At compile time, for a pair without one.
    #[must_use]
    pub const fn end_stage(&self) -> usize {
        let mut i = 0;
        while i < N {
            let mut same = self.tableau.c[i] == 1.0;
            let mut j = 0;
            while j < N {
                same = same && self.tableau.a[i][j] == self.tableau.b[j];
                j += 1;
            }
            if same {
                return i;
            }
            i += 1;
        }
        panic!("an embedded pair needs a stage that is the rate at the new state")
    }

    /// How many stages a step attempt evaluates: up to the last one with a weight in the
    /// propagated solution or in an error estimate. (The rest serve the next step or the
    /// dense output.)
    #[must_use]
    pub const fn attempt_stages(&self) -> usize {
        let mut count = 0;
        let mut i = 0;
        while i < N {
            let guard = match &self.error_guard {
                Some(guard) => guard[i],
                None => 0.0,
            };
            if self.tableau.b[i] != 0.0 || self.error[i] != 0.0 || guard != 0.0 {
                count = i + 1;
            }
            i += 1;
        }
        count
    }

    /// The dense output's weights `wᵢ(θ)`.
    #[must_use]
    pub fn dense_weights(&self, theta: f64) -> [f64; N] {
        core::array::from_fn(|i| {
            let mut power = theta;
            let mut weight = 0.0;
            for coefficient in self.dense[i] {
                weight += coefficient * power;
                power *= theta;
            }
            weight
        })
    }
}

/// The dense output of a first-same-as-last pair whose continuous extension is Hermite
/// interpolation of the two ends' states and rates, plus `θ²(1 − θ)² Σ dᵢ kᵢ`: Shampine's
/// form (Math. Comp. 46 (1986) 135–150), which dopri5.f's `CONTD5` evaluates. With `d = 0`
/// it is the cubic Hermite interpolant. Expanded in powers of `θ` it is
/// `wᵢ(θ) = δᵢ₁ θ + (3bᵢ − 2δᵢ₁ − δᵢₙ + dᵢ) θ² + (−2bᵢ + δᵢ₁ + δᵢₙ − 2dᵢ) θ³ + dᵢ θ⁴`.
const fn hermite_dense<const N: usize>(b: [f64; N], d: [f64; N]) -> [[f64; 9]; N] {
    let mut dense = [[0.0; 9]; N];
    let mut i = 0;
    while i < N {
        let first = if i == 0 { 1.0 } else { 0.0 };
        let last = if i == N - 1 { 1.0 } else { 0.0 };
        dense[i] = [
            first,
            3.0 * b[i] - 2.0 * first - last + d[i],
            -2.0 * b[i] + first + last - 2.0 * d[i],
            d[i],
            0.0,
            0.0,
            0.0,
            0.0,
            0.0,
        ];
        i += 1;
    }
    dense
}

/// A dense output's coefficients given to `θ^M`, with zeros for the higher powers.
pub(super) const fn padded<const M: usize, const N: usize>(rows: [[f64; M]; N]) -> [[f64; 9]; N] {
    let mut dense = [[0.0; 9]; N];
    let mut i = 0;
    while i < N {
        let mut k = 0;
        while k < M {
            dense[i][k] = rows[i][k];
            k += 1;
        }
        i += 1;
    }
    dense
}

/// Dormand and Prince's 5(4) pair: seven stages (first same as last, so six evaluations an
/// accepted step), fifth-order propagation, a fourth-order error estimate, and Shampine's
/// fourth-order continuous extension.
///
/// Coefficients: J. R. Dormand, P. J. Prince, "A family of embedded Runge–Kutta formulae",
/// J. Comput. Appl. Math. 6 (1980) 19–26 (the method RK5(4)7M); dense output: L. F.
/// Shampine, "Some practical Runge–Kutta formulas", Math. Comp. 46 (1986) 135–150, as in
/// Hairer–Nørsett–Wanner, Solving ODEs I, 2nd ed. (1993), II.6 and the code dopri5.f.
///
/// With a fixed `dt` (as an [`Integrator`](crate::Integrator)) it is a six-stage
/// fifth-order method: the seventh stage only estimates the error.
///
/// - **Order** 5 (error estimate 4, dense output 4).
/// - **Cost**: six force evaluations per step.
///
/// ```
/// use timestep::{Dopri5, Integrator, Scheme};
///
/// assert_eq!(Dopri5.properties().evaluations, 6);
/// let mut y = 1.0_f64;
/// for i in 0..10 {
///     Dopri5.step(&mut y, &|y: &f64, _t: f64| -y, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-8);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Dopri5;

impl Dopri5 {
    const B: [f64; 7] = [
        35.0 / 384.0,
        0.0,
        500.0 / 1113.0,
        125.0 / 192.0,
        -2187.0 / 6784.0,
        11.0 / 84.0,
        0.0,
    ];

    /// Shampine's dense output coefficients `d` (dopri5.f's `D1 … D7`).
    const D: [f64; 7] = [
        -12715105075.0 / 11282082432.0,
        0.0,
        87487479700.0 / 32700410799.0,
        -10690763975.0 / 1880347072.0,
        701980252875.0 / 199316789632.0,
        -1453857185.0 / 822651844.0,
        69997945.0 / 29380423.0,
    ];

    /// The pair.
    pub const PAIR: EmbeddedPair<7> = EmbeddedPair {
        tableau: Tableau {
            name: "dopri5",
            order: 5,
            a: [
                [0.0; 7],
                [1.0 / 5.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [3.0 / 40.0, 9.0 / 40.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [44.0 / 45.0, -56.0 / 15.0, 32.0 / 9.0, 0.0, 0.0, 0.0, 0.0],
                [
                    19372.0 / 6561.0,
                    -25360.0 / 2187.0,
                    64448.0 / 6561.0,
                    -212.0 / 729.0,
                    0.0,
                    0.0,
                    0.0,
                ],
                [
                    9017.0 / 3168.0,
                    -355.0 / 33.0,
                    46732.0 / 5247.0,
                    49.0 / 176.0,
                    -5103.0 / 18656.0,
                    0.0,
                    0.0,
                ],
                Self::B,
            ],
            b: Self::B,
            c: [0.0, 1.0 / 5.0, 3.0 / 10.0, 4.0 / 5.0, 8.0 / 9.0, 1.0, 1.0],
        },
        error: [
            71.0 / 57600.0,
            0.0,
            -71.0 / 16695.0,
            71.0 / 1920.0,
            -17253.0 / 339200.0,
            22.0 / 525.0,
            -1.0 / 40.0,
        ],
        error_guard: None,
        embedded_order: 4,
        dense: hermite_dense(Self::B, Self::D),
        dense_order: 4,
        controller: Controller::DOPRI5,
    };

    /// The tableau, for fixed steps.
    pub const TABLEAU: Tableau<7> = Self::PAIR.tableau;
}
explicit_rk!(Dopri5, 7);

/// Bogacki and Shampine's 3(2) pair: four stages (first same as last: three evaluations an
/// accepted step), third-order propagation, a second-order error estimate, and cubic
/// Hermite dense output (third order).
///
/// Coefficients: P. Bogacki, L. F. Shampine, "A 3(2) pair of Runge–Kutta formulas", Appl.
/// Math. Lett. 2 (1989) 321–325.
///
/// - **Order** 3 (error estimate 2, dense output 3).
/// - **Cost**: three force evaluations per step.
///
/// ```
/// use timestep::{Bs3, Integrator, Scheme};
///
/// assert_eq!(Bs3.properties().evaluations, 3);
/// let mut y = 1.0_f64;
/// for i in 0..10 {
///     Bs3.step(&mut y, &|y: &f64, _t: f64| -y, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-4);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Bs3;

impl Bs3 {
    const B: [f64; 4] = [2.0 / 9.0, 1.0 / 3.0, 4.0 / 9.0, 0.0];

    /// The pair.
    pub const PAIR: EmbeddedPair<4> = EmbeddedPair {
        tableau: Tableau {
            name: "bs3",
            order: 3,
            a: [
                [0.0; 4],
                [1.0 / 2.0, 0.0, 0.0, 0.0],
                [0.0, 3.0 / 4.0, 0.0, 0.0],
                Self::B,
            ],
            b: Self::B,
            c: [0.0, 1.0 / 2.0, 3.0 / 4.0, 1.0],
        },
        // b − b̂, with b̂ = (7/24, 1/4, 1/3, 1/8).
        error: [
            2.0 / 9.0 - 7.0 / 24.0,
            1.0 / 3.0 - 1.0 / 4.0,
            4.0 / 9.0 - 1.0 / 3.0,
            -1.0 / 8.0,
        ],
        error_guard: None,
        embedded_order: 2,
        dense: hermite_dense(Self::B, [0.0; 4]),
        dense_order: 3,
        controller: Controller::DOPRI5,
    };

    /// The tableau, for fixed steps.
    pub const TABLEAU: Tableau<4> = Self::PAIR.tableau;
}
explicit_rk!(Bs3, 4);

impl From<Dopri5> for &'static EmbeddedPair<7> {
    fn from(_: Dopri5) -> Self {
        &Dopri5::PAIR
    }
}

impl From<Bs3> for &'static EmbeddedPair<4> {
    fn from(_: Bs3) -> Self {
        &Bs3::PAIR
    }
}

/// Tsitouras' 5(4) pair: seven stages (first same as last: six evaluations an accepted
/// step), fifth-order propagation, a fourth-order error estimate, and Tsitouras' own
/// fourth-order continuous extension. Its coefficients were optimised with only the first
/// column simplifying assumption, which leaves its fifth-order error constants smaller
/// than Dormand–Prince's.
///
/// Coefficients: Ch. Tsitouras, "Runge–Kutta pairs of order 5(4) satisfying only the first
/// column simplifying assumption", Comput. Math. Appl. 62 (2011) 770–775 (the table of the
/// paper, in 16 significant digits, and its interpolant).
///
/// - **Order** 5 (error estimate 4, dense output 4).
/// - **Cost**: six force evaluations per step.
///
/// ```
/// use timestep::{Integrator, Scheme, Tsit5};
///
/// assert_eq!(Tsit5.properties().evaluations, 6);
/// let mut y = 1.0_f64;
/// for i in 0..10 {
///     Tsit5.step(&mut y, &|y: &f64, _t: f64| -y, i as f64 * 0.1, 0.1)?;
/// }
/// assert!((y - (-1.0_f64).exp()).abs() < 1e-8);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Tsit5;

impl Tsit5 {
    const B: [f64; 7] = [
        0.09646076681806523,
        0.01,
        0.4798896504144996,
        1.379008574103742,
        -3.290069515436081,
        2.324710524099774,
        0.0,
    ];

    /// The pair.
    pub const PAIR: EmbeddedPair<7> = EmbeddedPair {
        tableau: Tableau {
            name: "tsit5",
            order: 5,
            a: [
                [0.0; 7],
                [0.161, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0],
                [
                    -0.008480655492356989,
                    0.335480655492357,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ],
                [
                    2.897153057105493,
                    -6.359448489975075,
                    4.3622954328695815,
                    0.0,
                    0.0,
                    0.0,
                    0.0,
                ],
                [
                    5.325864828439257,
                    -11.748883564062828,
                    7.4955393428898365,
                    -0.09249506636175525,
                    0.0,
                    0.0,
                    0.0,
                ],
                [
                    5.86145544294642,
                    -12.92096931784711,
                    8.159367898576159,
                    -0.071584973281401,
                    -0.028269050394068383,
                    0.0,
                    0.0,
                ],
                Self::B,
            ],
            b: Self::B,
            c: [0.0, 0.161, 0.327, 0.9, 0.9800255409045097, 1.0, 1.0],
        },
        error: [
            0.001780011052225777,
            0.0008164344596567469,
            -0.007880878010261995,
            0.1447110071732629,
            -0.5823571654525552,
            0.45808210592918697,
            -1.0 / 66.0,
        ],
        error_guard: None,
        embedded_order: 4,
        // bᵢ(θ) = rᵢ₁θ + rᵢ₂θ² + rᵢ₃θ³ + rᵢ₄θ⁴, the paper's interpolant.
        dense: padded([
            [
                1.0,
                -2.763706197274826,
                2.9132554618219126,
                -1.0530884977290216,
            ],
            [0.0, 0.1317, -0.2234, 0.1017],
            [
                0.0,
                3.9302962368947516,
                -5.941033872131505,
                2.490627285651253,
            ],
            [
                0.0,
                -12.411077166933676,
                30.33818863028232,
                -16.548102889244902,
            ],
            [0.0, 37.50931341651104, -88.1789048947664, 47.37952196281928],
            [
                0.0,
                -27.896526289197286,
                65.09189467479366,
                -34.8706578614966,
            ],
            [0.0, 1.5, -4.0, 2.5],
        ]),
        dense_order: 4,
        controller: Controller::DOPRI5,
    };

    /// The tableau, for fixed steps.
    pub const TABLEAU: Tableau<7> = Self::PAIR.tableau;
}
explicit_rk!(Tsit5, 7);

impl From<Tsit5> for &'static EmbeddedPair<7> {
    fn from(_: Tsit5) -> Self {
        &Tsit5::PAIR
    }
}

super::embedded::pair_source!(Bs3: 4, Dopri5: 7, Tsit5: 7);
