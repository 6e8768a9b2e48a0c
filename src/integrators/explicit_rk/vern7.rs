//! Verner's "most efficient" 7(6) pair with its interpolant.
#![allow(clippy::excessive_precision)]

use super::pairs::{EmbeddedPair, padded};
use super::{Tableau, explicit_rk, leading, sparse};
use crate::control::Controller;

/// Verner's "most efficient" 7(6) pair: ten stages of a seventh-order method and its
/// embedded sixth-order error estimate (the tenth stage serves the estimate alone), the rate
/// at the new state (the next step's first stage), and five more stages for a continuous
/// extension, evaluated only for a step whose dense output is read
/// (`state_at`, events, a kept [`Solution`](crate::Solution)), at its first read.
///
/// Coefficients: J. H. Verner, "Numerically optimal Runge–Kutta pairs with interpolants",
/// Numer. Algorithms 53 (2010) 383–396, from Verner's files
/// `RKV76.IIa.Efficient.00001675585.081206` on his web page at SFU (the step's rational
/// coefficients, the interpolant's stages and weights in 40 digits; read here from the
/// transcription in OrdinaryDiffEq.jl's `verner_tableaus.jl`, and the same digits in QuTiP's
/// `verner7efficient.py`), each written as its correctly rounded `f64`. The order
/// conditions are checked to rounding in `tests/timestep/integrators/explicit_rk/tableaus.rs`
/// and the orders measured in `tests/timestep/integrators/explicit_rk/verner.rs`.
///
/// The interpolant, of degree 7, meets every order condition of order 6 across the step
/// and those of order 7 at its end, where it is the step itself; inside the step it misses
/// the seventh-order conditions of the trees `[τ]` by 10⁻³ to 10⁻² of their size, so its
/// error falls like `h⁷` only for steps far shorter than any that matter, and like `h⁸`
/// over the steps a run takes (measured). Its [`dense_order`](EmbeddedPair::dense_order)
/// is the order it meets: 6.
///
/// With a fixed `dt` (as an [`Integrator`](crate::Integrator)) it is the nine-stage
/// seventh-order method.
///
/// - **Order** 7 (error estimate 6, dense output 6, see above).
/// - **Cost**: ten force evaluations per step (nine fixed), fifteen when the dense output
///   is read.
/// - **Use** it for tolerances from about 10⁻⁸ to 10⁻¹¹ on smooth problems, where it
///   takes fewer evaluations than the 5(4) pairs and its steps cost less than
///   [`Dop853`](crate::Dop853)'s.
///
/// ```
/// use timestep::{Adaptive, Integrator, Scheme, Tolerances, Vern7};
///
/// assert_eq!(Vern7.properties().evaluations, 9);
/// // y′ = −y², y(0) = 1: y = 1/(1 + t).
/// let mut y = 1.0_f64;
/// let statistics = Adaptive::new(Vern7)
///     .with_tolerances(Tolerances::new(1e-11, 1e-11))
///     .solve(&mut y, &|y: &f64, _t: f64| -y * y, 0.0, 9.0)?;
/// assert!((y - 0.1).abs() < 1e-11);
/// assert!(statistics.accepted < 60);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
#[cfg_attr(feature = "serde", derive(serde::Serialize, serde::Deserialize))]
pub struct Vern7;

/// The propagated weights.
const B: [f64; 16] = sparse(&[
    (0, 0.04715561848627222),
    (3, 0.25750564298434153),
    (4, 0.2621665397741262),
    (5, 0.15216092656738558),
    (6, 0.49399691700324844),
    (7, -0.29430311714032503),
    (8, 0.0813174723249511),
]);

/// The stage coefficients; stage 11 is the rate at the new state (its row is `B`).
const A: [[f64; 16]; 16] = {
    let mut a = [[0.0; 16]; 16];
    a[1] = sparse(&[(0, 0.005)]);
    a[2] = sparse(&[(0, -1.07679012345679), (1, 1.185679012345679)]);
    a[3] = sparse(&[(0, 0.04083333333333333), (2, 0.1225)]);
    a[4] = sparse(&[
        (0, 0.6389139236255726),
        (2, -2.455672638223657),
        (3, 2.272258714598084),
    ]);
    a[5] = sparse(&[
        (0, -2.6615773750187572),
        (2, 10.804513886456137),
        (3, -8.3539146573962),
        (4, 0.820487594956657),
    ]);
    a[6] = sparse(&[
        (0, 6.067741434696771),
        (2, -24.711273635911084),
        (3, 20.427517930788895),
        (4, -1.9061579788166472),
        (5, 1.006172249242068),
    ]);
    a[7] = sparse(&[
        (0, 12.054670076253203),
        (2, -49.75478495046899),
        (3, 41.142888638604674),
        (4, -4.461760149974004),
        (5, 2.042334822239175),
        (6, -0.09834843665406108),
    ]);
    a[8] = sparse(&[
        (0, 10.138146522881808),
        (2, -42.6411360317175),
        (3, 35.76384003992257),
        (4, -4.3480228403929075),
        (5, 2.0098622683770357),
        (6, 0.3487490460338272),
        (7, -0.27143900510483127),
    ]);
    a[9] = sparse(&[
        (0, -45.030072034298676),
        (2, 187.3272437654589),
        (3, -154.02882369350186),
        (4, 18.56465306347536),
        (5, -7.141809679295079),
        (6, 1.3088085781613785),
    ]);
    a[10] = B;
    a[11] = sparse(&[
        (0, 0.0523222769159969),
        (3, 0.22495861826705715),
        (4, 0.017443709248776376),
        (5, -0.007669379876829393),
        (6, 0.03435896044073285),
        (7, -0.0410209723009395),
        (8, 0.025651133005205617),
        (10, -0.0160443457),
    ]);
    a[12] = sparse(&[
        (0, 0.053053341257859085),
        (3, 0.12195301011401886),
        (4, 0.017746840737602496),
        (5, -0.0005928372667681495),
        (6, 0.008381833970853752),
        (7, -0.01293369259698612),
        (8, 0.009412056815253861),
        (10, -0.005353253107275676),
        (11, -0.06666729992455811),
    ]);
    a[13] = sparse(&[
        (0, 0.03887903257436304),
        (3, -0.0024403203308301317),
        (4, -0.0013928917214672623),
        (5, -0.00047446291558680135),
        (6, 0.00039207932413159514),
        (7, -0.00040554733285128004),
        (8, 0.00019897093147716726),
        (10, -0.00010278198793179169),
        (11, 0.03385661513870267),
        (12, 0.1814893063199928),
    ]);
    a[14] = sparse(&[
        (0, 0.05723681204690013),
        (3, 0.22265948066761182),
        (4, 0.12344864200186899),
        (5, 0.04006332526666491),
        (6, -0.05269894848581452),
        (7, 0.04765971214244523),
        (8, -0.02138895885042213),
        (10, 0.015193891064036402),
        (11, 0.12060546716289655),
        (12, -0.022779423016187374),
    ]);
    a[15] = sparse(&[
        (0, 0.051372038802756814),
        (3, 0.5414214473439406),
        (4, 0.350399806692184),
        (5, 0.14193112269692182),
        (6, 0.10527377478429423),
        (7, -0.031081847805874016),
        (8, -0.007401883149519145),
        (10, -0.006377932504865363),
        (11, -0.17325495908361865),
        (12, -0.18228156777622026),
    ]);
    a
};

/// The nodes, `cᵢ = Σⱼ aᵢⱼ`.
const C: [f64; 16] = [
    0.0,
    0.005,
    0.10888888888888888,
    0.16333333333333333,
    0.4555,
    0.6095094489978381,
    0.884,
    0.925,
    1.0,
    1.0,
    1.0,
    0.29,
    0.125,
    0.25,
    0.53,
    0.79,
];

/// The error weights `e = b − b̂`.
const ERROR: [f64; 16] = sparse(&[
    (0, 0.0025470118799310456),
    (3, -0.00965839487279575),
    (4, 0.0420647097563969),
    (5, -0.0666822437469301),
    (6, 0.26500974646212816),
    (7, -0.29430311714032503),
    (8, 0.0813174723249511),
    (9, -0.020295184663356284),
]);

/// The interpolant `wᵢ(θ) = Σₖ rᵢₖ θᵏ`, `k = 1 … 7`, by stage.
const DENSE: [[f64; 9]; 16] = padded([
    [
        1.0,
        -8.413387198332767,
        33.675508884490895,
        -70.80159089484886,
        80.64695108301298,
        -47.19413969837522,
        11.133813442539243,
    ],
    [0.0; 7],
    [0.0; 7],
    [
        0.0,
        8.754921980674396,
        -88.4596828699771,
        346.9017638429916,
        -629.2580030059837,
        529.6773755604193,
        -167.35886986514018,
    ],
    [
        0.0,
        8.913387586637922,
        -90.06081846893218,
        353.1807459217058,
        -640.6476819744374,
        539.2646279047156,
        -170.38809442991547,
    ],
    [
        0.0,
        5.1733120298478,
        -52.271115900055385,
        204.9853867374073,
        -371.8306118563603,
        312.9880934374529,
        -98.89290352172495,
    ],
    [
        0.0,
        16.79537744079696,
        -169.70040000059728,
        665.4937727009246,
        -1207.1638892336007,
        1016.1291515818546,
        -321.06001557237494,
    ],
    [
        0.0,
        -10.005997536098665,
        101.1005433052275,
        -396.47391512378437,
        719.1787707014183,
        -605.3681033918824,
        191.27439892797935,
    ],
    [
        0.0,
        2.764708833638599,
        -27.934602637390462,
        109.54779186137893,
        -198.7128113064482,
        167.26633571640318,
        -52.85010499525706,
    ],
    [0.0; 7],
    [
        0.0,
        -2.1696320280163506,
        22.016696037569876,
        -86.90152427798948,
        159.22388973861476,
        -135.9618306534588,
        43.792401183280006,
    ],
    [
        0.0,
        -4.890070188793804,
        22.75407737425176,
        -30.78034218537731,
        -2.797194317207249,
        31.369456637508403,
        -15.655927320381801,
    ],
    [
        0.0,
        10.862170929551967,
        -50.542971417827104,
        68.37148040407511,
        6.213326521632409,
        -69.68006323194157,
        34.776056794509195,
    ],
    [
        0.0,
        -11.37286691922923,
        130.79058078246717,
        -488.65113677785604,
        832.2148793276441,
        -664.7743368554426,
        201.79288044241662,
    ],
    [
        0.0,
        -5.919778732715007,
        63.27679965889219,
        -265.432682088738,
        520.1009254140611,
        -467.412109533902,
        155.3868452824017,
    ],
    [
        0.0,
        -10.492146197961823,
        105.35538525188011,
        -409.43975011988937,
        732.831448907654,
        -606.3044574733512,
        188.0495196316683,
    ],
]);

impl Vern7 {
    /// The pair: the ten stages of a step, the rate at its end, then the five of the
    /// interpolant.
    pub const PAIR: EmbeddedPair<16> = EmbeddedPair {
        tableau: Tableau {
            name: "vern7",
            order: 7,
            a: A,
            b: B,
            c: C,
        },
        error: ERROR,
        error_guard: None,
        embedded_order: 6,
        dense: DENSE,
        dense_order: 6,
        // Verner's pairs come without a controller: the crate's default.
        controller: Controller::DOPRI5,
    };

    /// The tableau, for fixed steps: the ten stages of a step (the tenth only serves the
    /// error estimate, so a fixed step skips it).
    pub const TABLEAU: Tableau<10> = leading(&Self::PAIR.tableau);
}
explicit_rk!(Vern7, 10);

impl From<Vern7> for &'static EmbeddedPair<16> {
    fn from(_: Vern7) -> Self {
        &Vern7::PAIR
    }
}

super::embedded::pair_source!(Vern7: 16);
