//! The lecture's fixed-step implicit methods: the trapezoidal rule, the implicit midpoint
//! rule and Newmark-β, checked against what theory says of them.
//!
//! The theory, on the undamped oscillator `x'' = −ω² x` (Hairer–Wanner, *Solving ODEs II*,
//! IV.3; Hughes, *The Finite Element Method*, 9.1):
//!
//! - The trapezoidal and implicit midpoint rules both map a linear system by
//!   `R(z) = (1 + z/2) / (1 − z/2)`, with `|R(iθ)| = 1`: the amplitude and energy are kept
//!   exactly at every step, however far past the explicit stability limit, and the phase
//!   turns by `φ = 2 atan(θ/2)` per step, `θ = ω dt`. So `x_n = cos(n φ)` exactly.
//! - Newmark-β with `γ = ½` is second order; average acceleration (`β = ¼`) is the
//!   trapezoidal rule on `(x, p)`, so it keeps the energy at every step; with `β < ¼` it is
//!   stable only for `θ ≤ 1/√(¼ − β)`: `2√3` for linear acceleration (`β = ⅙`), where the
//!   one-step map's eigenvalues leave the unit circle at −1. With `β = 0` its positions are
//!   velocity Verlet's.
//! - On a first-order system Newmark is the θ-method with `θ = γ`.

use approx::assert_relative_eq;
use std::cell::Cell;
use timestep::{
    BackwardEuler, ImplicitMidpoint, InPlace, Integrator, Jacobian, Newmark, Particle, Scheme,
    Stepper, Structure, Trapezoid, Verlet, WithJacobian,
};

/// The energy of a unit mass on a spring of constant `k`.
fn energy(p: &Particle<f64>, k: f64) -> f64 {
    0.5 * p.velocity() * p.velocity() + 0.5 * k * p.position() * p.position()
}

/// Runs `steps` steps of `dt` on the spring `k` from x = 1 at rest; returns the particle and
/// the largest relative energy error on the way.
fn run_spring<I: Integrator<Particle<f64>>>(
    mut method: I,
    k: f64,
    dt: f64,
    steps: usize,
) -> (Particle<f64>, f64) {
    let spring = move |p: &Particle<f64>, _t: f64| -k * p.position();
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let start = energy(&particle, k);
    let mut worst = 0.0_f64;
    for i in 0..steps {
        method
            .step(&mut particle, &spring, i as f64 * dt, dt)
            .expect("a linear spring converges");
        worst = worst.max((energy(&particle, k) / start - 1.0).abs());
    }
    (particle, worst)
}

/// k = 10⁶ at 60 Hz (`ω dt = 16.7`, eight times explicit methods' limits), 10⁵ steps: the
/// energy is kept to rounding (within `10⁵ ε = 2.2·10⁻¹¹`: the Newton iteration stops when
/// the error it leaves is within a tenth of its tolerance, radau5.f's rule, which leaves
/// 1.3·10⁻¹² for the trapezoid and 1.7·10⁻¹¹ for the implicit midpoint rule), and the
/// position is the closed form of the discrete map,
/// `cos(n · 2 atan(ω dt / 2))`.
#[test]
fn trapezoid_and_implicit_midpoint_keep_a_stiff_oscillators_energy() {
    let (k, dt, steps): (f64, f64, usize) = (1.0e6, 1.0 / 60.0, 100_000);
    let phase = 2.0 * (k.sqrt() * dt / 2.0).atan();
    let expected = (steps as f64 * phase).cos();
    for (name, (particle, worst)) in [
        ("trapezoid", run_spring(Trapezoid::new(), k, dt, steps)),
        (
            "implicit-midpoint",
            run_spring(ImplicitMidpoint::new(), k, dt, steps),
        ),
        ("newmark", run_spring(Newmark::new(), k, dt, steps)),
    ] {
        println!(
            "{name}: largest energy error {worst:.2e}, x = {} vs {expected}",
            particle.position()
        );
        assert!(
            worst < steps as f64 * f64::EPSILON,
            "{name}: energy error {worst:e}"
        );
        assert!(
            (particle.position() - expected).abs() < 1e-9,
            "{name}: x = {}, discrete closed form {expected}",
            particle.position()
        );
    }
    // Backward Euler, for contrast, has lost all of it.
    let (_, lost) = run_spring(BackwardEuler::new(), k, dt, 100);
    assert!(lost > 0.999_999);
}

/// Average acceleration is the trapezoidal rule on a particle's `(x, p)`: the same states,
/// to rounding, with drag too.
#[test]
fn average_acceleration_is_the_trapezoidal_rule_on_a_particle() {
    let forces = |p: &Particle<f64>, t: f64| -10.0 * p.position() - 0.3 * p.velocity() + t.sin();
    let (mut a, mut b) = (Particle::new(2.0, 1.0, 0.5), Particle::new(2.0, 1.0, 0.5));
    for i in 0..1000 {
        let t = f64::from(i) * 0.05;
        Newmark::new().step(&mut a, &forces, t, 0.05).unwrap();
        Trapezoid::new().step(&mut b, &forces, t, 0.05).unwrap();
    }
    assert_relative_eq!(a.position(), b.position(), epsilon = 1e-12);
    assert_relative_eq!(a.velocity(), b.velocity(), epsilon = 1e-12);
}

/// The central difference method (`β = 0, γ = ½`) has velocity Verlet's positions and
/// velocities for forces of the positions.
#[test]
fn newmark_with_beta_zero_is_velocity_verlet() {
    let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position() - p.position().powi(3);
    let central = Newmark::with_parameters(0.0, 0.5);
    let (mut a, mut b) = (Particle::new(1.5, 1.0, 0.0), Particle::new(1.5, 1.0, 0.0));
    for i in 0..1000 {
        let t = f64::from(i) * 0.01;
        central.clone().step(&mut a, &spring, t, 0.01).unwrap();
        Verlet.step(&mut b, &spring, t, 0.01).unwrap();
    }
    assert_relative_eq!(a.position(), b.position(), epsilon = 1e-12);
    assert_relative_eq!(a.velocity(), b.velocity(), epsilon = 1e-12);
}

/// The one-step map of `method` on the unit spring at step `theta` (`ω = 1`), as a 2 × 2
/// matrix on `(x, v)`, and its spectral radius.
fn spectral_radius<I: Integrator<Particle<f64>> + Clone>(method: &I, theta: f64) -> f64 {
    let spring = |p: &Particle<f64>, _t: f64| -p.position();
    let column = |x: f64, v: f64| {
        let mut p = Particle::new(1.0, x, v);
        method.clone().step(&mut p, &spring, 0.0, theta).unwrap();
        (p.position(), p.velocity())
    };
    let ((a, c), (b, d)) = (column(1.0, 0.0), column(0.0, 1.0));
    // Eigenvalues of [[a, b], [c, d]]: (tr ± √(tr² − 4 det)) / 2.
    let (trace, det) = (a + d, a * d - b * c);
    let discriminant = trace * trace - 4.0 * det;
    if discriminant < 0.0 {
        det.sqrt()
    } else {
        (trace.abs() + discriminant.sqrt()) / 2.0
    }
}

/// Linear acceleration is stable up to `ω dt = 2√3` and unstable past it: the spectral
/// radius is 1 just below, and leaves 1 like `1 + √(2δ·3)`-ish just above; a run of 10⁴
/// steps keeps its energy below and blows up above. Average acceleration stays at 1 far
/// beyond.
#[test]
fn linear_acceleration_is_stable_up_to_two_root_three() {
    let limit = 2.0 * 3.0_f64.sqrt();
    let linear = Newmark::linear_acceleration();
    let below = spectral_radius(&linear, limit * (1.0 - 1e-6));
    let above = spectral_radius(&linear, limit * (1.0 + 1e-6));
    println!("linear acceleration: ρ = {below} below 2√3, {above} above");
    assert!((below - 1.0).abs() < 1e-12, "below: ρ = {below}");
    assert!(above > 1.0 + 1e-4, "above: ρ = {above}");
    for theta in [0.5, 3.0, 10.0, 1000.0] {
        let rho = spectral_radius(&Newmark::new(), theta);
        assert!(
            (rho - 1.0).abs() < 1e-12,
            "average acceleration at {theta}: {rho}"
        );
    }

    // As runs at ω dt 1% either side. Below, the energy is not kept exactly but
    // oscillates in a band (the method keeps a nearby quadratic form, which near the limit
    // differs much from the energy), and the band does not widen; above, the energy grows
    // by ρ² per step once the growing mode dominates.
    let energies = |theta: f64, steps: usize| -> Vec<f64> {
        let spring = |p: &Particle<f64>, _t: f64| -p.position();
        let mut particle = Particle::new(1.0, 1.0, 0.0);
        (0..steps)
            .map(|i| {
                linear
                    .clone()
                    .step(&mut particle, &spring, i as f64 * theta, theta)
                    .unwrap();
                energy(&particle, 1.0) / 0.5
            })
            .collect()
    };
    let below = energies(limit * 0.99, 10_000);
    let band = |part: &[f64]| part.iter().fold(0.0_f64, |m, e| m.max((e - 1.0).abs()));
    let (early, late) = (band(&below[..5000]), band(&below[5000..]));
    let above = energies(limit * 1.01, 100);
    let rho = spectral_radius(&linear, limit * 1.01);
    let growth = (above[99] / above[49]).powf(1.0 / 50.0).sqrt();
    println!(
        "linear acceleration at 0.99 · 2√3: energy band {early:.4} then {late:.4}; at 1.01 · 2√3: ρ = {rho:.5}, measured growth {growth:.5} per step"
    );
    assert!(
        late < 1.0 && late <= early * (1.0 + 1e-9),
        "below: band {early} then {late}"
    );
    assert_relative_eq!(growth, rho, max_relative = 1e-6);
    assert!(rho > 1.17);
}

/// The implicit midpoint rule is time-reversible: a step back undoes a step, on a
/// nonlinear pendulum too (to the Newton tolerance).
#[test]
fn implicit_midpoint_runs_back_to_its_start() {
    let pendulum = |p: &Particle<f64>, _t: f64| -9.81 * p.position().sin();
    let start = Particle::new(1.0, 2.5, 0.0);
    let mut p = start;
    let dt = 0.05;
    for i in 0..200 {
        ImplicitMidpoint::new()
            .step(&mut p, &pendulum, f64::from(i) * dt, dt)
            .unwrap();
    }
    for i in (0..200).rev() {
        ImplicitMidpoint::new()
            .step(&mut p, &pendulum, f64::from(i + 1) * dt, -dt)
            .unwrap();
    }
    assert_relative_eq!(p.position(), start.position(), epsilon = 1e-9);
    assert_relative_eq!(p.velocity(), start.velocity(), epsilon = 1e-9);
}

/// On a first-order system Newmark is the θ-method with `θ = γ`: the trapezoidal rule at
/// `γ = ½` (whatever `β`), backward Euler at `γ = 1`.
#[test]
fn newmark_on_a_first_order_system_is_the_theta_method() {
    let rotation = |y: &[f64; 2], t: f64| [y[1], -y[0] - 0.1 * y[1] + t.cos()];
    let [mut a, mut b, mut c, mut d] = [[1.0_f64, 0.0]; 4];
    for i in 0..200 {
        let t = f64::from(i) * 0.1;
        Newmark::linear_acceleration()
            .step(&mut a, &rotation, t, 0.1)
            .unwrap();
        Trapezoid::new().step(&mut b, &rotation, t, 0.1).unwrap();
        Newmark::with_parameters(0.3, 1.0)
            .step(&mut c, &rotation, t, 0.1)
            .unwrap();
        BackwardEuler::new()
            .step(&mut d, &rotation, t, 0.1)
            .unwrap();
    }
    for i in 0..2 {
        assert_relative_eq!(a[i], b[i], epsilon = 1e-12);
        assert_relative_eq!(c[i], d[i], epsilon = 1e-12);
    }
    // And the θ-method's order: γ = ½ is second order, γ = 1 first.
    assert_eq!(Newmark::linear_acceleration().properties().order, 2);
    assert_eq!(Newmark::with_parameters(0.3, 1.0).properties().order, 1);
}

/// Out-of-range parameters are refused with the values given, never stepped.
#[test]
fn newmark_refuses_parameters_out_of_range() {
    for (beta, gamma) in [
        (0.25, 0.0),
        (0.25, 0.5 - 1e-12),
        (0.25, -0.5),
        (0.25, 1.0 + 1e-12),
        (-1e-300, 0.5),
        (1.5, 0.5),
        (f64::NAN, 0.5),
        (0.25, f64::NAN),
        (f64::INFINITY, 0.5),
        (0.25, f64::NEG_INFINITY),
    ] {
        let error = Newmark::try_with_parameters(beta, gamma).unwrap_err();
        assert!(error.beta.to_bits() == beta.to_bits() && error.gamma.to_bits() == gamma.to_bits());
        assert!(
            error
                .to_string()
                .contains("β must lie in [0, 1] and γ in [0.5, 1]")
        );
    }
    for (beta, gamma) in [(0.0, 0.5), (1.0, 1.0), (0.25, 0.5), (1e-300, 0.5)] {
        assert!(Newmark::try_with_parameters(beta, gamma).is_ok());
    }
}

#[test]
#[should_panic(expected = "Newmark parameters out of range (β = 0.25, γ = 0)")]
fn newmark_with_parameters_panics_with_the_values() {
    let _ = Newmark::with_parameters(0.25, 0.0);
}

/// With an analytic Jacobian the Newton matrix is exact (`I − c dt W J`, weighted row by
/// row for Newmark), so a linear system converges in one iteration plus the check: three
/// evaluations per step, and the same states as finite differences give.
#[test]
fn analytic_jacobians_give_exact_newton_matrices() {
    let (k, b) = (400.0, 0.7);
    let evaluations = Cell::new(0_usize);
    let analytic = WithJacobian::new(
        |p: &Particle<f64>, _t: f64| {
            evaluations.set(evaluations.get() + 1);
            -k * p.position() - b * p.velocity()
        },
        move |_: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| {
            j[(0, 1)] = 1.0;
            j[(1, 0)] = -k;
            j[(1, 1)] = -b;
        },
    );
    let plain = move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity();
    fn compare<I: Integrator<Particle<f64>> + Clone, F: timestep::Forces<Particle<f64>>>(
        method: I,
        analytic: &F,
        plain: &dyn Fn(&Particle<f64>, f64) -> f64,
        evaluations: &Cell<usize>,
        name: &str,
    ) {
        let (mut a, mut b) = (Particle::new(1.0, 1.0, 0.0), Particle::new(1.0, 1.0, 0.0));
        evaluations.set(0);
        for i in 0..100 {
            let t = f64::from(i) * 0.1;
            method.clone().step(&mut a, analytic, t, 0.1).unwrap();
            method.clone().step(&mut b, &plain, t, 0.1).unwrap();
        }
        assert_eq!(evaluations.get(), 300, "{name}: evaluations in 100 steps");
        assert_relative_eq!(a.position(), b.position(), epsilon = 1e-12);
        assert_relative_eq!(a.velocity(), b.velocity(), epsilon = 1e-12);
    }
    compare(
        Trapezoid::new(),
        &analytic,
        &plain,
        &evaluations,
        "trapezoid",
    );
    compare(
        ImplicitMidpoint::new(),
        &analytic,
        &plain,
        &evaluations,
        "midpoint",
    );
    compare(
        Newmark::linear_acceleration(),
        &analytic,
        &plain,
        &evaluations,
        "newmark",
    );
    compare(
        Newmark::with_parameters(0.3025, 0.6),
        &analytic,
        &plain,
        &evaluations,
        "newmark damped",
    );
}

/// Crank–Nicolson on the heat equation with a tridiagonal Jacobian: the slowest mode of
/// the grid decays by the discrete map `R(λ dt)` per step, `λ = −(4/dx²) sin²(π dx/2)`
/// its eigenvalue, to the Newton tolerance.
#[test]
fn crank_nicolson_decays_the_heat_equations_mode_by_its_discrete_factor() {
    let n = 1000;
    let dx = 1.0 / (n + 1) as f64;
    let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = (left - 2.0 * u[i] + right) / (dx * dx);
        }
    });
    let pi = std::f64::consts::PI;
    let mode = |i: usize| (pi * (i + 1) as f64 * dx).sin();
    let mut u: Vec<f64> = (0..n).map(mode).collect();
    let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
    let mut solver = Stepper::new(Trapezoid::new().with_structure(tridiagonal));
    let (dt, steps) = (1e-3, 100);
    for i in 0..steps {
        solver.step(&mut u, &heat, f64::from(i) * dt, dt).unwrap();
    }
    let lambda = -4.0 / (dx * dx) * (pi * dx / 2.0).sin().powi(2);
    let factor = ((1.0 + lambda * dt / 2.0) / (1.0 - lambda * dt / 2.0)).powi(steps);
    for i in [0, n / 3, n / 2] {
        assert_relative_eq!(u[i], factor * mode(i), max_relative = 1e-9);
    }
    // Second order in time: within (π² dt)² / 12 · π² t of the exact e^(−π² t).
    assert!((factor - (-pi * pi * 0.1_f64).exp()).abs() < 1e-5);
}

/// Newmark's order, measured on the damped spring (k = 10, b = 1, 5 s) against the closed
/// form: 2 for linear acceleration (`γ = ½`), 1 with numerical damping (`γ = 0.6`).
#[test]
fn newmark_orders_follow_gamma() {
    use timestep::analytic::DampedOscillator;
    let (k, b) = (10.0, 1.0);
    let exact = DampedOscillator::new(1.0, k, b, 1.0, 0.0);
    let forces = move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity();
    let error = |method: Newmark, dt: f64| {
        let mut p = Particle::new(1.0, 1.0, 0.0);
        let steps = (5.0 / dt).round() as usize;
        let mut largest = 0.0_f64;
        for i in 0..steps {
            method
                .clone()
                .step(&mut p, &forces, i as f64 * dt, dt)
                .unwrap();
            let t = (i + 1) as f64 * dt;
            largest = largest.max((p.position() - exact.position(t)).abs());
        }
        largest
    };
    for (method, theory) in [
        (Newmark::linear_acceleration(), 2.0),
        (Newmark::with_parameters(0.3025, 0.6), 1.0),
    ] {
        let (coarse, fine) = (error(method, 0.004), error(method, 0.0005));
        let order = (coarse / fine).ln() / 8f64.ln();
        println!(
            "newmark β = {}, γ = {}: order {order:.4}",
            method.beta(),
            method.gamma()
        );
        assert!(
            (order - theory).abs() < 0.15,
            "measured {order}, theory {theory}"
        );
        assert_eq!(f64::from(method.properties().order), theory);
    }
}
