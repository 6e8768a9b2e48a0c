//! Helpers shared by the integration tests: the damped spring and its energy, and the
//! theory each test compares with.
#![allow(dead_code)]

use timestep::{Method, Particle, State};

/// The force of a damped spring, `F = −k x − b v`, on a particle on a line.
pub fn spring(k: f64, b: f64) -> impl Fn(&Particle<f64>, f64) -> f64 + Copy {
    move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity()
}

/// The mechanical energy `½ m v² + ½ k x²` of a particle on a spring of constant `k`.
pub fn energy(p: &Particle<f64>, k: f64) -> f64 {
    0.5 * p.mass() * p.velocity() * p.velocity() + 0.5 * k * p.position() * p.position()
}

/// Every method, by name, freshly made, for a particle on a line.
pub fn methods() -> [Method<Particle<f64>>; 8] {
    Method::all()
}

/// The theoretical order of accuracy of each method on a second-order system
/// (positions and momenta).
pub fn order(method: &str) -> f64 {
    match method {
        "explicit-euler" | "semi-implicit-euler" | "backward-euler" => 1.0,
        "midpoint" | "improved-euler" | "verlet" | "position-verlet" => 2.0,
        "rk4" => 4.0,
        other => panic!("no theory for {other}"),
    }
}

/// The least-squares slope of `ln y` against `ln x`.
pub fn log_log_slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let (lx, ly): (Vec<f64>, Vec<f64>) = points.iter().map(|(x, y)| (x.ln(), y.ln())).unzip();
    let mx = lx.iter().sum::<f64>() / n;
    let my = ly.iter().sum::<f64>() / n;
    let sxy: f64 = lx.iter().zip(&ly).map(|(x, y)| (x - mx) * (y - my)).sum();
    let sxx: f64 = lx.iter().map(|x| (x - mx).powi(2)).sum();
    sxy / sxx
}
