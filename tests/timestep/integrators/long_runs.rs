//! Energy over long runs on the undamped oscillator (m = 1, k = 1, dt = 0.1: ten steps per
//! radian), for every symplectic method and, for contrast, two that are not.
//!
//! The theory (Hairer–Lubich–Wanner, *Geometric Numerical Integration*, IX.8): a symplectic
//! method keeps a modified energy `H̃ = H + O(dtᵖ)` exactly on this linear problem (and
//! up to exponentially small terms for exponentially long times in general), so `H`
//! oscillates within a band of width `O(dtᵖ)` and never drifts. A method that is not
//! symplectic drifts: RK4 loses energy, `(ω dt)⁶/72` per step, and Adams–Bashforth–
//! Moulton gains it, `0.32 (ω dt)⁶` per step.
//!
//! 10⁶ steps each (t = 10⁵, 16 000 periods): about 5 s for all of them in a debug build.

use timestep::{Integrator, Method, MethodKind, Particle, Scheme};

const STEPS: usize = 1_000_000;
const DT: f64 = 0.1;

fn energy(p: &Particle<f64>) -> f64 {
    0.5 * p.velocity().powi(2) + 0.5 * p.position().powi(2)
}

/// The largest relative energy error over the first and the last tenth of the run, and the
/// relative error at the end.
fn run(name: &str) -> (f64, f64, f64) {
    let mut method: Method<Particle<f64>> = name.parse().unwrap();
    let spring = |p: &Particle<f64>, _t: f64| -p.position();
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let e0 = energy(&particle);
    let (mut first, mut last) = (0.0_f64, 0.0_f64);
    for i in 0..STEPS {
        method
            .step(&mut particle, &spring, i as f64 * DT, DT)
            .unwrap();
        let error = (energy(&particle) - e0).abs() / e0;
        if i < STEPS / 10 {
            first = first.max(error);
        } else if i >= STEPS - STEPS / 10 {
            last = last.max(error);
        }
    }
    (first, last, (energy(&particle) - e0) / e0)
}

#[test]
fn symplectic_methods_keep_the_energy_in_a_band() {
    for kind in MethodKind::all() {
        let properties = kind.properties();
        if !properties.symplectic {
            continue;
        }
        let (first, last, end) = run(properties.name);
        println!(
            "{}: first tenth {first:.2e}, last tenth {last:.2e}, end {end:+.2e}",
            properties.name
        );
        // The band is the same at the end as at the start: no drift. Rounding adds a random
        // walk of about √(n s) ε (s stages per step): up to 4·10⁻¹³ here, which shows only in
        // the 8th-order methods' bands of 10⁻¹³–10⁻¹².
        assert!(
            last <= 1.01 * first + 2e-12,
            "{}: energy error grew from {first:e} to {last:e}",
            properties.name
        );
        // And the band is the method's O(dtᵖ): below 10⁻² for the second-order methods at
        // ω dt = 0.1, far below for the higher orders.
        let bound = match properties.order {
            1 => 0.06,
            2 => 3e-3,
            _ => 1e-4,
        };
        assert!(first < bound, "{}: band {first:e}", properties.name);
    }
}

#[test]
fn methods_that_are_not_symplectic_drift() {
    let steps = STEPS as f64;
    // RK4 loses (ω dt)⁶/72 per step, compounded.
    let (_, _, end) = run("rk4");
    let expected = (-steps * 0.1_f64.powi(6) / 72.0).exp_m1();
    println!("rk4: end {end:+.3e}, expected {expected:+.3e}");
    assert!((end / expected - 1.0).abs() < 0.01, "rk4: {end:e}");
    // Adams–Bashforth–Moulton gains: the growth of its principal root, twice over for the
    // energy, 2 · 0.1614 (ω dt)⁶ per step, compounded.
    let (_, _, end) = run("adams-bashforth-moulton");
    let expected = (steps * 2.0 * 0.1614 * 0.1_f64.powi(6)).exp_m1();
    println!("adams-bashforth-moulton: end {end:+.3e}, expected {expected:+.3e}");
    assert!(
        end > 0.0 && (end / expected).ln().abs() < 0.1,
        "abm: {end:e}"
    );
}

/// Beeman's algorithm is not symplectic, but its positions are Störmer–Verlet's and its
/// velocity a fixed combination of them and the forces, so its energy error stays in a
/// band too, without drift: 8.2·10⁻⁴, a third of Verlet's, its velocities being more
/// accurate.
#[test]
fn beeman_keeps_the_energy_in_a_band() {
    let (first, last, end) = run("beeman");
    println!("beeman: first tenth {first:.2e}, last tenth {last:.2e}, end {end:+.2e}");
    assert!(last <= 1.01 * first + 2e-12, "{first:e} → {last:e}");
    assert!(first < 1e-3, "{first:e}");
}
