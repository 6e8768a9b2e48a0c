//! Orders of convergence measured against the closed-form damped oscillator.
//!
//! The theory: a method of order p has a global error `C dt^p` on a fixed time span, so
//! halving `dt` divides the error by `2^p` and the slope of `ln error` against `ln dt` is p.
//! Explicit, semi-implicit and backward Euler are order 1; midpoint, improved Euler
//! (Heun), velocity Verlet and position Verlet order 2; classic RK4 order 4. Every method
//! is checked at the order its `properties()` state; with drag, at the order
//! `damped_order` gives (compositions rest on a symmetric base, which drag breaks).
//! Exponential Euler is given no linear part here (a plain closure), so it is measured as
//! the explicit Euler it then is; `integrators::lecture_methods` checks its linear part.

use crate::common;

use approx::assert_relative_eq;
use common::{log_log_slope, methods, order, spring};
use timestep::analytic::DampedOscillator;
use timestep::{Integrator, Method, MethodKind, Particle, Scheme};

const STIFFNESS: f64 = 10.0;
const DURATION: f64 = 5.0;

/// The largest phase-space distance `√((x − x*)² + (v − v*)²/ω²)` from the exact solution
/// over a run of `method` from t = 0 to `DURATION` (m 1, x0 1, v0 0).
fn max_error(mut method: Method<Particle<f64>>, damping: f64, dt: f64) -> f64 {
    let exact = DampedOscillator::new(1.0, STIFFNESS, damping, 1.0, 0.0);
    let forces = spring(STIFFNESS, damping);
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let steps = (DURATION / dt).round() as usize;
    let mut largest = 0.0_f64;
    for i in 0..steps {
        method
            .step(&mut particle, &forces, i as f64 * dt, dt)
            .expect("a finite step of a linear spring");
        let t = (i + 1) as f64 * dt;
        let dx = particle.position() - exact.position(t);
        let dv = particle.velocity() - exact.velocity(t);
        largest = largest.max((dx * dx + dv * dv / STIFFNESS).sqrt());
    }
    largest
}

/// The step ladder for a method of order p: four halvings starting where the error is
/// already asymptotic (`ω dt · span` small for the first-order methods) and ending well
/// above rounding (RK4's error at its finest step is ~1e-9, n ε ~ 1e-13).
///
/// The 8th-order methods fall from 10⁻⁵ to rounding within three halvings, so their
/// ladder steps by √2: from 0.1 for Kahan–Li (down to 0.035, where its error is still
/// 10⁻¹¹), from 0.05 for Yoshida's 8th order, whose steps of ±1.96 keep its error out of
/// the asymptotic regime at coarser steps. With drag the compositions are of order 2, led
/// by a term that overtakes their 8th-order one only below dt ≈ 0.005.
fn ladder(name: &str, order: f64) -> [f64; 4] {
    let root2 = 2f64.sqrt();
    match (order as u32, name) {
        (1, _) => halvings(0.004),
        (2, _) if order < f64::from(self::order_of(name)) => halvings(0.0025),
        (2, _) => halvings(0.01),
        (3 | 4, _) => halvings(0.04),
        // Tsitouras' pair makes its fifth-order error small by design, so at 0.04 the
        // sixth-order term still shows; errors at 0.0025 stay well above rounding.
        (5, _) => halvings(0.02),
        // Rodas5P (sixth order on a spring) reaches rounding by 0.0125: by √2 from 0.1.
        (6, "rodas5p") => [0.1, 0.1 / root2, 0.05, 0.05 / root2],
        (6, _) => halvings(0.1),
        (_, "yoshida8") => [0.05, 0.05 / root2, 0.025, 0.025 / root2],
        _ => [0.1, 0.1 / root2, 0.05, 0.05 / root2],
    }
}

fn order_of(name: &str) -> u32 {
    let kind: MethodKind = name.parse().expect("a method's name");
    kind.properties().order
}

fn halvings(coarsest: f64) -> [f64; 4] {
    [coarsest, coarsest / 2.0, coarsest / 4.0, coarsest / 8.0]
}

/// The order a method has with a velocity-dependent force (the damped spring).
///
/// Compositions rest on a base step that is symmetric only for forces of the positions:
/// with drag, their kicks see a velocity predicted as [`Verlet`](timestep::Verlet)'s does,
/// and they are of order 2. Leapfrog and Blanes–Moan kick with the velocity at the start
/// of the kick, and are of order 1 (their docs say so). Every other method keeps its
/// order.
fn damped_order(name: &str) -> f64 {
    let kind: MethodKind = name.parse().expect("a method's name");
    let properties = kind.properties();
    match name {
        "leapfrog" | "blanes-moan4" => 1.0,
        _ if properties.symplectic && properties.order > 2 => 2.0,
        _ => f64::from(properties.order),
    }
}

/// Measures the slope for every method on one problem and checks it against theory.
///
/// Bound ±0.15: the next term of the error expansion is smaller than the leading one by a
/// factor ~ `ω dt` (≤ 0.13 on these ladders) or `ω² dt T` for the Euler methods' growth
/// (≤ 0.1), which bends the log–log line by less than that.
fn check_orders(damping: f64) {
    for method in methods() {
        let name = method.name();
        // On a spring (linear) a step is R(J dt): Rodas5P's R is eᶻ to z⁶
        // (`implicit::rodas5p`), one order above its own.
        let theory = if name == "rodas5p" {
            6.0
        } else if damping == 0.0 {
            order(name)
        } else {
            damped_order(name)
        };
        let points: Vec<(f64, f64)> = ladder(name, theory)
            .iter()
            .map(|&dt| (dt, max_error(method.clone(), damping, dt)))
            .collect();
        let slope = log_log_slope(&points);
        println!("{name} (b = {damping}): order {slope:.4} (theory {theory})");
        assert!(
            (slope - theory).abs() <= 0.15,
            "{name} (b = {damping}): measured order {slope:.3}, theory {theory}; errors {points:?}"
        );
        // Each single refinement, too, divides the error by about (dt ratio)^p.
        for pair in points.windows(2) {
            let local = (pair[0].1 / pair[1].1).ln() / (pair[0].0 / pair[1].0).ln();
            assert!(
                (local - theory).abs() <= 0.2,
                "{name} (b = {damping}): halving {} → {} gives order {local:.3}",
                pair[0].0,
                pair[1].0
            );
        }
    }
}

#[test]
fn each_method_converges_at_its_order_on_the_undamped_oscillator() {
    check_orders(0.0);
}

/// With drag the force depends on velocity; Verlet's end-of-step force must see a velocity
/// accurate to O(dt²) for the method to stay second order.
#[test]
fn each_method_converges_at_its_order_on_the_damped_oscillator() {
    check_orders(1.0);
}

/// At the same step, the higher the order the smaller the error: at dt = 0.01 on the
/// damped oscillator, RK4 beats every second-order method, which beat every first-order
/// method, each by more than an order of magnitude (the ratio is ~ (ω dt)^(p − q)).
#[test]
fn higher_order_means_smaller_error_at_the_same_step() {
    let errors: Vec<(f64, f64)> = methods()
        .filter(|m| damped_order(m.name()) == order(m.name()))
        .map(|m| (order(m.name()), max_error(m, 1.0, 0.01)))
        .collect();
    for &(p, ep) in &errors {
        for &(q, eq) in &errors {
            if p > q {
                assert!(
                    ep * 10.0 < eq,
                    "order {p} error {ep} vs order {q} error {eq}"
                );
            }
        }
    }
}

/// The reference itself: the closed form satisfies `m x'' + b x' + k x = 0`, its initial
/// conditions, and `v = dx/dt`, checked by central differences (error O(h²) ≈ 1e-8 of the
/// scale) for under-, critically and over-damped springs.
#[test]
fn the_closed_form_solves_the_equation_of_motion() {
    // (mass, k, b): b² < 4mk, b² = 4mk, b² > 4mk.
    for (m, k, b) in [(1.0, 10.0, 1.0), (2.0, 8.0, 8.0), (0.5, 3.0, 5.0)] {
        let exact = DampedOscillator::new(m, k, b, 1.5, -0.7);
        assert_eq!(exact.position(0.0), 1.5);
        assert_relative_eq!(exact.velocity(0.0), -0.7, max_relative = 1e-14);
        let h = 1e-4;
        for t in [0.3, 1.0, 2.7] {
            let x = exact.position(t);
            let v = (exact.position(t + h) - exact.position(t - h)) / (2.0 * h);
            let a = (exact.position(t + h) - 2.0 * x + exact.position(t - h)) / (h * h);
            assert_relative_eq!(exact.velocity(t), v, epsilon = 1e-7, max_relative = 1e-7);
            let residual = m * a + b * exact.velocity(t) + k * x;
            assert!(
                residual.abs() < 1e-5 * (k * x.abs() + 1.0),
                "m {m} k {k} b {b} t {t}: residual {residual}"
            );
        }
    }
}
