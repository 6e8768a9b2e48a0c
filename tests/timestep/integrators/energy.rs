//! Energy: who gains it, who loses it, who keeps it within a bound, and by exactly how much.
//!
//! Notation: a particle of mass m on a spring k with damping b, `ω = √(k/m)`, `θ = ω dt`.
//! In the scaled coordinates `X = √k x`, `V = √m v` the energy is `E = ½ (X² + V²)` and the
//! undamped flow is a rotation; each step of a linear method is a 2 × 2 matrix `M`.
//!
//! - A Runge–Kutta method (and backward Euler) applies its stability function `R` to the
//!   rotation generator: `M = R(θ J)` with `J² = −I`, which is `Re R(iθ) I + Im R(iθ) J`: a
//!   rotation scaled by `|R(iθ)|`. So the energy is multiplied by exactly `|R(iθ)|²` per
//!   step.
//! - With damping, `det M` is the factor by which phase-space areas shrink per step and
//!   the energy follows `det(M)^n` up to a bounded modulation.
//! - Semi-implicit Euler and velocity Verlet are symplectic: each conserves a modified
//!   quadratic energy `H̃` exactly, which pins the true energy within a band forever.

use crate::common;

use approx::assert_relative_eq;
use common::{C, energy, spring, stability_function};
use timestep::analytic::DampedOscillator;
use timestep::{
    ExplicitEuler, Integrator, Method, MethodKind, Particle, PositionVerlet, Rk4, Scheme,
    SemiImplicitEuler, Verlet,
};

/// Runs `steps` steps of `dt` from t = 0 and returns the energy after each, divided by the
/// initial energy.
fn energy_ratios<I: Integrator<Particle<f64>>>(
    mut integrator: I,
    (m, k, b): (f64, f64, f64),
    start: Particle<f64>,
    dt: f64,
    steps: usize,
) -> Vec<f64> {
    let forces = spring(k, b);
    let mut particle = start;
    let e0 = energy(&particle, k);
    (0..steps)
        .map(|i| {
            integrator
                .step(&mut particle, &forces, i as f64 * dt, dt)
                .expect("finite step");
            assert_eq!(particle.mass(), m);
            energy(&particle, k) / e0
        })
        .collect()
}

/// The article's spring-damper (k 15, b 0.1, 1 kg, x0 1000 m, dt 0.01 s, 10 s).
const SPRING_DAMPER: (f64, f64, f64) = (1.0, 15.0, 0.1);

/// Explicit Euler gains energy on the spring-damper, where the exact motion loses it.
///
/// Theory: explicit Euler's matrix is `[[1, dt/m], [−k dt, 1 − b dt/m]]` (on x, p) with
/// `det = 1 − b dt/m + k dt²/m = 1.0005 > 1`, so the energy grows like `1.0005^n`:
/// ×1.6485 after 1000 steps, while the exact energy decays like `e^(−b t/m)` = ×0.368.
/// Both are modulated within a period by at most `b/(2mω)` (damping acts through v²,
/// unevenly over a cycle) plus `θ/2` (the discrete map's ellipse is tilted from the
/// energy's by O(θ)).
#[test]
fn explicit_euler_gains_energy_on_the_spring_damper() {
    let (m, k, b) = SPRING_DAMPER;
    let dt = 0.01;
    let ratios = energy_ratios(
        ExplicitEuler,
        SPRING_DAMPER,
        Particle::new(m, 1000.0, 0.0),
        dt,
        1000,
    );

    let exact = DampedOscillator::new(m, k, b, 1000.0, 0.0);
    let exact_ratio = exact.energy(exact.position(10.0), exact.velocity(10.0)) / (0.5 * k * 1e6);
    assert!(
        exact_ratio < 0.4,
        "the exact motion loses energy: {exact_ratio}"
    );

    let det: f64 = 1.0 - b * dt / m + k * dt * dt / m;
    let omega = (k / m).sqrt();
    let modulation = b / (2.0 * m * omega) + omega * dt / 2.0;
    for (i, ratio) in ratios.iter().enumerate() {
        let expected = det.powi(i as i32 + 1);
        assert!(
            (ratio / expected - 1.0).abs() <= modulation,
            "step {}: E/E0 = {ratio}, det^n = {expected}",
            i + 1
        );
    }
    let last = ratios[999];
    assert!(
        last > 1.6,
        "explicit Euler gains energy: E(10 s)/E0 = {last}"
    );
    assert!(last > 4.0 * exact_ratio);
}

/// Semi-implicit Euler stays bounded and decays with the right rate on the same problem.
///
/// Theory: its matrix on (x, p) is `[[1 − k dt²/m, dt(1 − b dt/m)/m], [−k dt, 1 − b dt/m]]`,
/// `det = 1 − b dt/m`: the same area loss as the exact flow's `e^(−b dt/m)` to O(dt²).
/// So the energy follows `(1 − b dt/m)^n` within the same modulation as above, never
/// exceeds its start by more than the symplectic band `1/(1 − θ/2)`, and ends within a
/// few per cent of the exact answer.
#[test]
fn semi_implicit_euler_stays_bounded_and_decays_on_the_spring_damper() {
    let (m, k, b) = SPRING_DAMPER;
    let dt = 0.01;
    let ratios = energy_ratios(
        SemiImplicitEuler,
        SPRING_DAMPER,
        Particle::new(m, 1000.0, 0.0),
        dt,
        1000,
    );
    let det: f64 = 1.0 - b * dt / m;
    let omega = (k / m).sqrt();
    let theta = omega * dt;
    let modulation = b / (2.0 * m * omega) + theta / 2.0;
    for (i, ratio) in ratios.iter().enumerate() {
        let expected = det.powi(i as i32 + 1);
        assert!(
            (ratio / expected - 1.0).abs() <= modulation,
            "step {}: E/E0 = {ratio}, det^n = {expected}",
            i + 1
        );
        assert!(*ratio <= 1.0 / (1.0 - theta / 2.0));
    }
    let exact = DampedOscillator::new(m, k, b, 1000.0, 0.0);
    let exact_ratio = exact.energy(exact.position(10.0), exact.velocity(10.0)) / (0.5 * k * 1e6);
    assert_relative_eq!(ratios[999], exact_ratio, max_relative = modulation);
    assert!(ratios[999] < 0.4, "it decays: {}", ratios[999]);
}

/// `|R(iθ)|²` for a stability function given by its polynomial coefficients.
fn gain_per_step(coefficients: &[f64], theta: f64) -> f64 {
    // R(iθ) = Σ c_j (iθ)^j: real parts from even j, imaginary from odd j.
    let (mut re, mut im) = (0.0, 0.0);
    for (j, c) in coefficients.iter().enumerate() {
        let power = c * theta.powi(j as i32);
        match j % 4 {
            0 => re += power,
            1 => im += power,
            2 => re -= power,
            _ => im -= power,
        }
    }
    re * re + im * im
}

const RK4: [f64; 5] = [1.0, 1.0, 0.5, 1.0 / 6.0, 1.0 / 24.0];

/// The article's observation: RK4 keeps the phase but loses energy on the harmonic
/// oscillator at dt 0.25 (k 15, 90 s). Theory: the energy is multiplied by exactly
/// `|R(iθ)|² = 1 − θ⁶/72 + θ⁸/576` per step, `θ = √15 · 0.25 = 0.968`: 0.98991 per step,
/// 0.0259 after 360 steps. At dt 0.1 the same formula gives 0.9594 after 900 steps.
#[test]
fn rk4_loses_energy_on_the_oscillator_as_its_stability_function_says() {
    let (m, k) = (1.0_f64, 15.0);
    for (dt, steps) in [(0.25, 360), (0.1, 900)] {
        let theta = (k / m).sqrt() * dt;
        let per_step = gain_per_step(&RK4, theta);
        assert_relative_eq!(
            per_step,
            1.0 - theta.powi(6) / 72.0 + theta.powi(8) / 576.0,
            max_relative = 1e-14
        );
        let measured = *energy_ratios(Rk4, (m, k, 0.0), Particle::new(m, 1000.0, 0.0), dt, steps)
            .last()
            .unwrap();
        let theory = per_step.powi(steps as i32);
        println!("rk4, dt {dt}: E/E0 = {measured:.6} after {steps} steps, theory {theory:.6}");
        assert_relative_eq!(measured, theory, max_relative = 1e-9);
        if dt == 0.25 {
            assert!(measured < 0.03, "well below 1: {measured}");
        } else {
            assert!(measured < 0.96 && measured > 0.95, "{measured}");
        }
    }
}

/// Every non-symplectic method's energy on the undamped oscillator is `|R(iθ)|^(2n)` to
/// rounding (see the module docs): explicit Euler `1 + θ²` per step, midpoint and improved
/// Euler `1 + θ⁴/4`, RK4 as above, backward Euler `1/(1 + θ²)`, and each of the others by
/// its stability function (`common::stability_function`: on a particle these methods are
/// the same Runge–Kutta, Rosenbrock or collocation methods on (x, p), exponential Euler with
/// no linear part is explicit Euler, Newmark the trapezoidal rule, which with `|R(iθ)| = 1`
/// keeps the energy). The implicit methods agree to their Newton tolerance. Beeman and
/// Adams–Bashforth–Moulton have no one-step map: their energies are measured (+0.46% and
/// +11% after 900 steps).
/// k 15, m 2, dt 0.1 (θ = 0.274), 900 steps: explicit Euler ends at 1.85·10²⁸ times its
/// initial energy, midpoint and improved Euler at 3.54, RK4 at 0.9948, backward Euler at
/// 5.4·10⁻²⁹.
#[test]
fn energy_of_every_non_symplectic_method_follows_its_stability_function() {
    let (m, k, dt, steps) = (2.0_f64, 15.0, 0.1, 900);
    let theta = (k / m).sqrt() * dt;
    let start = Particle::new(m, 1000.0, 3.0);
    let not_symplectic = MethodKind::all()
        .into_iter()
        .filter(|kind| !kind.properties().symplectic);
    for kind in not_symplectic {
        let name = kind.name();
        let measured = energy_ratios(Method::new(kind), (m, k, 0.0), start, dt, steps);
        let last = *measured.last().unwrap();
        let Some(r) = stability_function(name, C(0.0, theta)) else {
            // Measured E/E0 after 900 steps, within a factor 2 of its distance from 1.
            let (low, high) = match name {
                "beeman" => (2.3e-3, 9e-3),
                "adams-bashforth-moulton" => (0.056, 0.23),
                other => panic!("{other}: no stability function and no measured energy"),
            };
            println!("{name}: E/E0 = {last:.6e} after {steps} steps (measured)");
            assert!((low..high).contains(&(last - 1.0)), "{name}: {last}");
            continue;
        };
        let per_step = r.abs().powi(2);
        let theory = per_step.powi(steps as i32);
        let tolerance = if kind.properties().implicit {
            1e-8
        } else {
            1e-9
        };
        assert_relative_eq!(last, theory, max_relative = tolerance);
        // and every step on the way: the ratio is exactly geometric.
        for (i, ratio) in measured.iter().enumerate() {
            assert_relative_eq!(
                *ratio,
                per_step.powi(i as i32 + 1),
                max_relative = tolerance
            );
        }
        println!("{name}: E/E0 = {last:.6e} after {steps} steps, theory {theory:.6e}");
    }
}

/// Long-run behaviour of a symplectic method: its energy band, and no drift.
struct LongRun {
    /// Largest `|E/E0 − 1|` over the run.
    max_error: f64,
    /// Smallest and largest `E/E0`.
    range: (f64, f64),
    /// Largest `|H̃/H̃0 − 1|`: the modified energy's drift.
    modified_drift: f64,
    /// Largest `|E/E0 − 1|` over the first and over the last `WINDOW` steps.
    first_window: f64,
    last_window: f64,
}

const STEPS: usize = 1_000_000;
const WINDOW: usize = 10_000;

/// Steps the oscillator (m 1, k 15, x0 1, v0 0, dt 0.01) a million times, tracking the
/// energy and the modified energy `modified(X, V)`.
fn long_run<I: Integrator<Particle<f64>>>(
    mut integrator: I,
    modified: impl Fn(f64, f64) -> f64,
) -> LongRun {
    let (m, k, dt) = (1.0_f64, 15.0_f64, 0.01);
    let forces = spring(k, 0.0);
    let mut particle = Particle::new(m, 1.0, 0.0);
    let scaled = |p: &Particle<f64>| (k.sqrt() * p.position(), m.sqrt() * p.velocity());
    let e0 = energy(&particle, k);
    let (x0, v0) = scaled(&particle);
    let h0 = modified(x0, v0);
    let mut run = LongRun {
        max_error: 0.0,
        range: (f64::INFINITY, 0.0),
        modified_drift: 0.0,
        first_window: 0.0,
        last_window: 0.0,
    };
    for i in 0..STEPS {
        integrator
            .step(&mut particle, &forces, i as f64 * dt, dt)
            .expect("finite step");
        let ratio = energy(&particle, k) / e0;
        let error = (ratio - 1.0).abs();
        run.max_error = run.max_error.max(error);
        run.range = (run.range.0.min(ratio), run.range.1.max(ratio));
        let (x, v) = scaled(&particle);
        run.modified_drift = run.modified_drift.max((modified(x, v) / h0 - 1.0).abs());
        if i < WINDOW {
            run.first_window = run.first_window.max(error);
        }
        if i >= STEPS - WINDOW {
            run.last_window = run.last_window.max(error);
        }
    }
    run
}

const THETA: f64 = 0.038_729_833_462_074_17; // √15 · 0.01

/// Semi-implicit Euler over 10⁶ steps (10⁴ s, ~6000 periods).
///
/// Derivation: in scaled coordinates a step is `V' = V − θX`, `X' = X + θV'`, which
/// conserves `H̃ = ½(X² + V² − θXV)` exactly (substitute and expand). Since
/// `|XV| ≤ ½(X² + V²) = E`, `H̃ = E(1 − θs/2)` with `s ∈ [−1, 1]`, so
/// `E/E0 ∈ [1/(1 + θ/2), 1/(1 − θ/2)]` when starting at rest (`H̃0 = E0`): a relative
/// error of at most `(θ/2)/(1 − θ/2) = 0.01974` (≈ ω dt / 2), reached every period when
/// `X = ±V`.
#[test]
fn semi_implicit_euler_energy_stays_in_its_band_for_a_million_steps() {
    let run = long_run(SemiImplicitEuler, |x, v| {
        0.5 * (x * x + v * v - THETA * x * v)
    });
    let bound = (THETA / 2.0) / (1.0 - THETA / 2.0);
    println!(
        "semi-implicit Euler: max |E/E0 − 1| = {:.6} (bound {bound:.6}), H̃ drift {:.2e}, windows {:.6} / {:.6}",
        run.max_error, run.modified_drift, run.first_window, run.last_window
    );
    assert!(run.range.0 >= 1.0 / (1.0 + THETA / 2.0) - 1e-9);
    assert!(run.range.1 <= 1.0 / (1.0 - THETA / 2.0) + 1e-9);
    assert!(run.max_error <= bound + 1e-9);
    // The band is not just an upper bound: it is reached (within (θ/2)² of its edge).
    assert!(run.max_error >= 0.99 * bound, "{}", run.max_error);
    // The modified energy is conserved to rounding, and there is no secular drift.
    assert!(run.modified_drift < 1e-9, "{}", run.modified_drift);
    assert_relative_eq!(run.first_window, run.last_window, max_relative = 1e-3);
}

/// Velocity Verlet over 10⁶ steps.
///
/// Derivation: in scaled coordinates the step matrix is `[[c, θ], [−θ(1 − θ²/4), c]]`,
/// `c = 1 − θ²/2`, with determinant 1; a matrix `[[c, a], [−b, c]]` of determinant 1
/// conserves `bX² + aV²`, here `H̃ = ½(V² + (1 − θ²/4) X²) = E − θ²X²/8`. Starting at rest,
/// `H̃0 = E0 (1 − θ²/4)`, so `E/E0` swings between `1 − θ²/4` (at `X = 0`) and 1 (at `V = 0`):
/// a band of width `θ²/4 = 3.75·10⁻⁴`, i.e. ±θ²/8 around its middle. That is the bound.
#[test]
fn verlet_energy_stays_in_its_band_for_a_million_steps() {
    let modified = |x: f64, v: f64| 0.5 * (v * v + (1.0 - THETA * THETA / 4.0) * x * x);
    let band = THETA * THETA / 4.0;
    for (name, run) in [
        ("verlet", long_run(Verlet, modified)),
        ("position-verlet", long_run(PositionVerlet::new(), modified)),
    ] {
        println!(
            "{name}: E/E0 in [{:.8}, {:.8}] (theory [{:.8}, 1]), H̃ drift {:.2e}",
            run.range.0,
            run.range.1,
            1.0 - band,
            run.modified_drift
        );
        assert!(run.range.0 >= 1.0 - band - 1e-9, "{name}: {}", run.range.0);
        assert!(run.range.1 <= 1.0 + 1e-9, "{name}: {}", run.range.1);
        assert!(run.max_error >= 0.99 * band, "{name}: the band is reached");
        assert!(run.modified_drift < 1e-9, "{name}: {}", run.modified_drift);
        assert_relative_eq!(run.first_window, run.last_window, max_relative = 1e-3);
    }
}
