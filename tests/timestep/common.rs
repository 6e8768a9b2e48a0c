//! Helpers shared by the integration tests: the damped spring and its energy, and the
//! theory each test compares with.
#![allow(dead_code)]

use timestep::{Method, MethodKind, Particle, Scheme, Tableau};

/// The force of a damped spring, `F = −k x − b v`, on a particle on a line.
pub fn spring(k: f64, b: f64) -> impl Fn(&Particle<f64>, f64) -> f64 + Copy {
    move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity()
}

/// The mechanical energy `½ m v² + ½ k x²` of a particle on a spring of constant `k`.
pub fn energy(p: &Particle<f64>, k: f64) -> f64 {
    0.5 * p.mass() * p.velocity() * p.velocity() + 0.5 * k * p.position() * p.position()
}

/// Every method, freshly made, for a particle on a line: one at a time, since an array of
/// every `Method` (each with room for backward Euler's workspace, 12.6 kB) overflows a
/// debug test thread's stack next to a test's own values.
pub fn methods() -> impl Iterator<Item = Method<Particle<f64>>> {
    MethodKind::all().into_iter().map(Method::new)
}

/// The theoretical order of accuracy of a method, as the method states it
/// ([`Scheme::properties`]): the same on first- and second-order systems.
pub fn order(method: &str) -> f64 {
    let kind: MethodKind = method.parse().expect("a method's name");
    f64::from(kind.properties().order)
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

/// The coefficients of an explicit Runge–Kutta method's stability polynomial,
/// `R(z) = 1 + Σₖ (bᵀ Aᵏ⁻¹ 𝟙) zᵏ`, read from its tableau.
pub fn rk_polynomial<const N: usize>(tableau: &Tableau<N>) -> Vec<f64> {
    let mut coefficients = vec![1.0];
    let mut power = [1.0; N]; // Aᵏ⁻¹ 𝟙
    for _ in 0..N {
        coefficients.push((0..N).map(|i| tableau.b[i] * power[i]).sum());
        power = core::array::from_fn(|i| (0..N).map(|j| tableau.a[i][j] * power[j]).sum());
    }
    coefficients
}

/// `|Σₖ cₖ (i h)ᵏ|`.
pub fn modulus_on_imaginary_axis(coefficients: &[f64], h: f64) -> f64 {
    let (mut re, mut im) = (0.0, 0.0);
    for (k, c) in coefficients.iter().enumerate() {
        let magnitude = c * h.powi(k as i32);
        match k % 4 {
            0 => re += magnitude,
            1 => im += magnitude,
            2 => re -= magnitude,
            _ => im -= magnitude,
        }
    }
    re.hypot(im)
}
