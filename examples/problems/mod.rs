//! The three test problems of the `work_precision` example and `benches/peers.rs`, as
//! first-order systems on arrays, with reference end states.
//!
//! The references are the exact solutions, to about 10⁻²², of the problems exactly as given
//! here (the `f64` start and end time taken as exact binary numbers), from a Taylor series
//! integration in 50-digit decimals: `python3 examples/problems/reference.py` (its output
//! gives them to 30 digits, and how closely runs at two orders and precisions agree). Here
//! they are rounded to `f64`, so an error is known to about 10⁻¹⁶ of the state's size.
#![allow(dead_code)] // each user takes the problems it needs

use std::f64::consts::TAU;

/// The Arenstorf orbit (Hairer–Nørsett–Wanner I, II.0): a satellite in the rotating frame of
/// the Earth and the Moon, whose share of the mass is [`MU`]. `y = (x, y, vx, vy)`.
pub fn arenstorf(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let [x, y, vx, vy] = *y;
    let d1 = ((x + MU).powi(2) + y * y).powf(1.5);
    let d2 = ((x - 1.0 + MU).powi(2) + y * y).powf(1.5);
    [
        vx,
        vy,
        x + 2.0 * vy - (1.0 - MU) * (x + MU) / d1 - MU * (x - 1.0 + MU) / d2,
        y - 2.0 * vx - (1.0 - MU) * y / d1 - MU * y / d2,
    ]
}

/// The Moon's share of the mass.
pub const MU: f64 = 0.012277471;
/// The start of the periodic orbit, (x, y, vx, vy).
pub const ARENSTORF_START: [f64; 4] = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
/// Its period: the run is one period.
pub const ARENSTORF_END: f64 = 17.065_216_560_157_96;
/// Where the `f64` problem ends: 1.3·10⁻¹¹ from the start (the start and the period are
/// rounded to `f64`; the exact orbit from the 30-digit values is periodic).
pub const ARENSTORF_REFERENCE: [f64; 4] = [
    0.993_999_999_999_974_2,
    -8.075_677_532_932_07e-14,
    -1.315_583_285_825_151_7e-11,
    -2.001_585_106_383_090_7,
];

/// Kepler's problem, `GM = 1`, `y = (x, y, vx, vy)`: `x'' = −x / |x|³`.
pub fn kepler(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let [x, y, vx, vy] = *y;
    let r3 = (x * x + y * y).powf(1.5);
    [vx, vy, -x / r3, -y / r3]
}

/// The eccentricity of the Kepler orbit.
pub const ECCENTRICITY: f64 = 0.9;
/// Perihelion of the orbit with semi-major axis 1: `x = (1 − e, 0)`,
/// `v = (0, √((1 + e)/(1 − e)))`.
pub fn kepler_start() -> [f64; 4] {
    let e = ECCENTRICITY;
    [1.0 - e, 0.0, 0.0, ((1.0 + e) / (1.0 - e)).sqrt()]
}
/// Ten periods.
pub const KEPLER_END: f64 = 10.0 * TAU;
/// Where the `f64` problem ends: 6.8·10⁻¹² from the start, because `10.0 * TAU` is not
/// exactly ten periods of the orbit from the rounded start (at perihelion the speed changes
/// at 100 per unit time).
pub const KEPLER_REFERENCE: [f64; 4] = [
    0.099_999_999_999_999_98,
    2.965_438_477_616_55e-13,
    -6.803_182_445_904_025e-12,
    4.358_898_943_540_674,
];

/// The Lorenz system, σ = 10, ρ = 28, β = 8/3.
pub fn lorenz(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let [x, y, z] = *y;
    [10.0 * (y - x), x * (28.0 - z) - y, x * y - 8.0 / 3.0 * z]
}

/// Its start.
pub const LORENZ_START: [f64; 3] = [1.0, 0.0, 0.0];
/// Its end time.
pub const LORENZ_END: f64 = 10.0;
/// Where it ends (30 digits: −5.857685382424090795103182311618, −5.831082486426097941025536675733,
/// 23.93213298702756914160751863727).
pub const LORENZ_REFERENCE: [f64; 3] = [
    -5.857_685_382_424_091,
    -5.831_082_486_426_098,
    23.932_132_987_027_57,
];

/// The Euclidean norm of the difference of two states.
pub fn distance(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).powi(2))
        .sum::<f64>()
        .sqrt()
}
