//! The outer solar system of `examples/nbody.rs` (Hairer, Lubich and Wanner, *Geometric
//! Numerical Integration*, 2nd ed., Section I.2.4: the Sun with the inner planets, Jupiter,
//! Saturn, Uranus, Neptune, Pluto) as a first-order system on `[f64; 36]`: the six positions
//! (AU), then the six velocities (AU per day), over 10⁴ days.
//!
//! The reference end state is Hairer's dop853.f compiled with every `REAL*8` promoted to
//! quadruple precision (`gfortran -freal-8-real-16`), started from the exact binary values
//! of the `f64` data below, at `rtol = atol = 10⁻²⁷` (7 641 steps); at 10⁻²⁴ it ends within
//! 5·10⁻²³ of it (Euclidean). Rounded to `f64` here.

/// G in AU³ / (solar mass · day²).
pub const G: f64 = 2.95912208286e-4;

/// The masses relative to the Sun's (the Sun's includes the four inner planets; Pluto's is
/// 1/(1.3·10⁸)), in the order of the state.
pub const MASSES: [f64; 6] = [
    1.00000597682,
    0.000954786104043,
    0.000285583733151,
    0.0000437273164546,
    0.0000517759138449,
    1.0 / 1.3e8,
];

/// Newton's gravity between every pair: `y = (q₁, …, q₆, v₁, …, v₆)`, each a 3-vector.
pub fn outer_solar_system(y: &[f64; 36], t: f64) -> [f64; 36] {
    let mut f = [0.0; 36];
    outer_solar_system_into(y, t, &mut f);
    f
}

/// [`outer_solar_system`] written into `f`, as dop853.f's `FCN` writes its rates (the same
/// operations in the same order: the same bits).
pub fn outer_solar_system_into(y: &[f64; 36], _t: f64, f: &mut [f64; 36]) {
    let (velocities, accelerations) = f.split_at_mut(18);
    velocities.copy_from_slice(&y[18..]);
    accelerations_into(
        y[..18].try_into().expect("18 positions"),
        accelerations.try_into().expect("18 accelerations"),
    );
}

/// The accelerations of the six bodies at the positions `x` (the last 18 rates of
/// [`outer_solar_system`]): the second-order form `x'' = a(x)`.
pub fn accelerations_into(x: &[f64; 18], a: &mut [f64; 18]) {
    a.fill(0.0);
    for i in 0..6 {
        for j in i + 1..6 {
            let d = [
                x[3 * j] - x[3 * i],
                x[3 * j + 1] - x[3 * i + 1],
                x[3 * j + 2] - x[3 * i + 2],
            ];
            let r2 = d[0] * d[0] + d[1] * d[1] + d[2] * d[2];
            let s = 1.0 / (r2 * r2.sqrt());
            let (pull_i, pull_j) = (G * MASSES[j] * s, G * MASSES[i] * s);
            for k in 0..3 {
                a[3 * i + k] += pull_i * d[k];
                a[3 * j + k] -= pull_j * d[k];
            }
        }
    }
}

/// The start: the book's table of initial data (the Sun at the origin, at rest).
pub const OUTER_START: [f64; 36] = [
    0.0,
    0.0,
    0.0,
    -3.5023653,
    -3.8169847,
    -1.5507963,
    9.0755314,
    -3.0458353,
    -1.6483708,
    8.310142,
    -16.2901086,
    -7.2521278,
    11.4707666,
    -25.7294829,
    -10.8169456,
    -15.5387357,
    -25.2225594,
    -3.1902382,
    0.0,
    0.0,
    0.0,
    0.00565429,
    -0.0041249,
    -0.00190589,
    0.00168318,
    0.00483525,
    0.00192462,
    0.00354178,
    0.00137102,
    0.00055029,
    0.0028893,
    0.00114527,
    0.00039677,
    0.00276725,
    -0.00170702,
    -0.00136504,
];
/// The end time in days (about 2.3 of Jupiter's periods).
pub const OUTER_END: f64 = 1.0e4;
/// Where it ends (see the module's docs).
pub const OUTER_REFERENCE: [f64; 36] = [
    0.05330608817225533,
    -0.028052803944459505,
    -0.013636778775970183,
    4.761688621813368,
    -1.4985316562061382,
    -0.7585343234702528,
    7.084346639672765,
    -6.378413421412289,
    -2.9393716783127304,
    14.397421886207615,
    12.442139480455786,
    5.245009806812985,
    29.695174558793546,
    -3.4839995619102964,
    -2.1661666884938797,
    15.237592115586663,
    -27.948052013040144,
    -13.29942485020069,
    2.9490091986445347e-06,
    -1.033185970979759e-05,
    -4.491149684962434e-06,
    0.0024051270219586354,
    0.00689197000701384,
    0.0028955574706970738,
    0.003628798600955394,
    0.0037002672586948873,
    0.0013721335913607327,
    -0.0027227654649196265,
    0.0024352154342616164,
    0.0011049959747782426,
    0.00040788663009527873,
    0.002897907060654293,
    0.0011759029812950048,
    0.0028998963899034055,
    0.0010075184467679078,
    -0.000557905818451897,
];
