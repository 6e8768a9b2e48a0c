//! Verner's "most efficient" 6(5) pair with its sixth-order interpolant.
#![allow(clippy::excessive_precision)]

use super::pairs::{EmbeddedPair, padded};
use super::{Tableau, explicit_rk, leading, sparse};
use crate::control::Controller;

/// Verner's "most efficient" 6(5) pair: nine stages of a sixth-order method whose last
/// stage is the rate at the new state (first same as last: eight evaluations an accepted
/// step), an embedded fifth-order error estimate, and three more stages for a sixth-order
/// continuous extension, evaluated only for a step whose dense output is read
/// (`state_at`, events, a kept [`Solution`](crate::Solution)), at its first read.
///
/// Coefficients: J. H. Verner, "Numerically optimal Runge–Kutta pairs with interpolants",
/// Numer. Algorithms 53 (2010) 383–396, from the rational coefficients of Verner's file
/// `RKV65.IIIXb.Efficient.00000144617.081204.RATOnWeb` (his web page at SFU; read here
/// from the transcription in OrdinaryDiffEq.jl's `verner_tableaus.jl`), each written as
/// its correctly rounded `f64`. The order conditions are checked to rounding in
/// `tests/timestep/integrators/explicit_rk/tableaus.rs` and the orders measured in
/// `tests/timestep/integrators/explicit_rk/verner.rs`.
///
/// With a fixed `dt` (as an [`Integrator`](crate::Integrator)) it is the eight-stage
/// sixth-order method.
///
/// - **Order** 6 (error estimate 5, dense output 6).
/// - **Cost**: eight force evaluations per step, eleven when the dense output is read.
/// - **Use** it where Dormand–Prince 5(4) or Tsitouras 5(4) would take many steps:
///   tolerances from about 10⁻⁶ to 10⁻⁹ on smooth problems; below that the higher
///   orders ([`Dop853`](crate::Dop853)) take fewer evaluations.
///
/// ```
/// use timestep::{Adaptive, Integrator, Scheme, Tolerances, Vern6};
///
/// assert_eq!(Vern6.properties().evaluations, 8);
/// // y′ = −y², y(0) = 1: y = 1/(1 + t).
/// let mut y = 1.0_f64;
/// let statistics = Adaptive::new(Vern6)
///     .with_tolerances(Tolerances::new(1e-10, 1e-10))
///     .solve(&mut y, &|y: &f64, _t: f64| -y * y, 0.0, 9.0)?;
/// assert!((y - 0.1).abs() < 1e-10);
/// assert!(statistics.accepted < 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Vern6;

/// The propagated weights.
const B: [f64; 12] = sparse(&[
    (0, 0.03438957868357036),
    (3, 0.2582624555633503),
    (4, 0.4209371189673537),
    (5, 4.40539646966931),
    (6, -176.48311902429865),
    (7, 172.36413340141507),
]);

/// The stage coefficients; stage 9 is the rate at the new state (its row is `B`).
const A: [[f64; 12]; 12] = {
    let mut a = [[0.0; 12]; 12];
    a[1] = sparse(&[(0, 0.06)]);
    a[2] = sparse(&[(0, 0.019239962962962962), (1, 0.07669337037037037)]);
    a[3] = sparse(&[(0, 0.035975), (2, 0.107925)]);
    a[4] = sparse(&[
        (0, 1.3186834152331484),
        (2, -5.042058063628562),
        (3, 4.220674648395414),
    ]);
    a[5] = sparse(&[
        (0, -41.872591664327516),
        (2, 159.4325621631375),
        (3, -122.11921356501003),
        (4, 5.531743066200054),
    ]);
    a[6] = sparse(&[
        (0, -54.430156935316504),
        (2, 207.06725136501848),
        (3, -158.61081378459),
        (4, 6.991816585950242),
        (5, -0.018597231062203234),
    ]);
    a[7] = sparse(&[
        (0, -54.66374178728198),
        (2, 207.95280625538936),
        (3, -159.2889574744995),
        (4, 7.018743740796944),
        (5, -0.018338785905045722),
        (6, -0.0005119484997882099),
    ]);
    a[8] = B;
    a[9] = sparse(&[
        (0, 0.016524159013572806),
        (3, 0.3053128187514179),
        (4, 0.2071200938201979),
        (5, -1.293879140655123),
        (6, 57.11988411588149),
        (7, -55.87979207510932),
        (8, 0.024830028297766014),
    ]);
    a[10] = sparse(&[
        (0, 0.038150081818627744),
        (3, 0.2502358252513705),
        (4, 0.3249441447817608),
        (5, 1.8224606658327962),
        (6, -67.7137233269262),
        (7, 66.03587911808127),
        (8, -0.0363881087495127),
        (9, 0.106441599909888),
    ]);
    a[11] = sparse(&[
        (0, 0.11178168039666012),
        (3, 0.025757505109345213),
        (4, 3.785140856363646),
        (5, 92.34088993695727),
        (6, -3819.461508432344),
        (7, 3732.492711530704),
        (8, -1.0756940209963033),
        (9, -3.231539970732086),
        (10, -4.7075390854586345),
    ]);
    a
};

/// The nodes, `cᵢ = Σⱼ aᵢⱼ`.
const C: [f64; 12] = [
    0.0,
    0.06,
    0.09593333333333333,
    0.1439,
    0.4973,
    0.9725,
    0.9995,
    1.0,
    1.0,
    0.5,
    0.828,
    0.28,
];

/// The error weights `e = b − b̂`.
const ERROR: [f64; 12] = sparse(&[
    (0, -0.008623404282200852),
    (3, 0.019434029953152708),
    (4, -0.028450072588037983),
    (5, 2.109711061065291),
    (6, -103.45854289996399),
    (7, 101.39980461914911),
    (8, -0.03333333333333333),
]);

/// The interpolant `wᵢ(θ) = Σₖ rᵢₖ θᵏ`, `k = 1 … 6`, by stage.
const DENSE: [[f64; 9]; 12] = padded([
    [
        1.0,
        -7.778593856495575,
        27.0524385722671,
        -45.780190114576975,
        36.72377741043638,
        -11.183042432947357,
    ],
    [0.0; 6],
    [0.0; 6],
    [
        0.0,
        16.632102138279762,
        -86.25583404770623,
        171.7330546182696,
        -149.67744091315947,
        47.826380659879696,
    ],
    [
        0.0,
        27.10835046149758,
        -140.58676162962996,
        279.9044757968917,
        -243.95644583707966,
        77.95131832728772,
    ],
    [
        0.0,
        283.70753264670356,
        -1471.3371557366656,
        2929.3928569314394,
        -2553.17199842168,
        815.8141610498723,
    ],
    [
        0.0,
        -11365.512865164834,
        58942.74718938947,
        -117353.43045697975,
        102281.77209230464,
        -32682.059078573824,
    ],
    [
        0.0,
        11100.250191051131,
        -57567.067013355576,
        114614.48808378985,
        -99894.591091309,
        31919.283963225014,
    ],
    [
        0.0,
        -3.0022825150732126,
        14.946122435958785,
        -27.826954732510288,
        21.824672217437076,
        -5.941557405812358,
    ],
    [
        0.0,
        -19.610347376201034,
        93.13370014508226,
        -165.3493635542416,
        129.73901617804057,
        -37.91300539268019,
    ],
    [
        0.0,
        -18.23029074639409,
        96.74593449012313,
        -199.08634973839895,
        180.85605899200485,
        -60.285352997334954,
    ],
    [
        0.0,
        -13.563796638614157,
        90.62137973668116,
        -204.04515601697273,
        190.48135937835858,
        -63.493786459452856,
    ],
]);

impl Vern6 {
    /// The pair: the nine stages of a step, then the three of the interpolant.
    pub const PAIR: EmbeddedPair<12> = EmbeddedPair {
        tableau: Tableau {
            name: "vern6",
            order: 6,
            a: A,
            b: B,
            c: C,
        },
        error: ERROR,
        error_guard: None,
        embedded_order: 5,
        dense: DENSE,
        dense_order: 6,
        // Verner's pairs come without a controller: the crate's default.
        controller: Controller::DOPRI5,
    };

    /// The tableau, for fixed steps: the nine stages of a step (the ninth, the rate at the
    /// new state, only serves the error estimate, so a fixed step skips it).
    pub const TABLEAU: Tableau<9> = leading(&Self::PAIR.tableau);
}
explicit_rk!(Vern6, 9);

impl From<Vern6> for &'static EmbeddedPair<12> {
    fn from(_: Vern6) -> Self {
        &Vern6::PAIR
    }
}

super::embedded::pair_source!(Vern6: 12);
