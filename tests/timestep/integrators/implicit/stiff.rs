//! Stiff springs: backward Euler against every explicit method, and the implicit solve's
//! own guarantees (Jacobians, errors, capacity).
//!
//! The test spring: k = 10⁶ N/m on 1 kg (ω = 1000 rad/s) stepped at 60 Hz, so
//! `θ = ω dt = 16.7`, far outside every explicit method's stability region (the widest,
//! RK4's, ends at θ = 2√2).

use crate::common;

use approx::assert_relative_eq;
use common::{C, energy, spring, stability_function};
use timestep::{
    BackwardEuler, Integrator, Jacobian, Method, MethodKind, Particle, Scheme, Sequence, StepError,
    Stepper, WithJacobian,
};

const K: f64 = 1.0e6;
const DT: f64 = 1.0 / 60.0;

/// One step of backward Euler on `m x'' + b x' + k x = 0`, solved by hand: the implicit
/// equations `x₁ = x₀ + dt v₁`, `m v₁ = m v₀ − dt (k x₁ + b v₁)` are linear, and
/// substituting the first into the second gives
/// `v₁ = (v₀ − dt k x₀ / m) / (1 + dt b / m + dt² k / m)`.
fn backward_euler_by_hand((m, k, b): (f64, f64, f64), (x0, v0): (f64, f64), dt: f64) -> (f64, f64) {
    let v1 = (v0 - dt * k * x0 / m) / (1.0 + dt * b / m + dt * dt * k / m);
    (x0 + dt * v1, v1)
}

/// Backward Euler on the stiff spring: stable, the energy falls at every step, and the
/// states are those of the recurrence solved by hand. Without damping the step is the
/// rotation scaled by `|R(iθ)| = 1/√(1 + θ²)` (see `integrators::energy`), so the energy falls
/// by exactly `1/(1 + θ²) = 1/278.8` per step.
#[test]
fn backward_euler_is_stable_and_dissipative_on_a_stiff_spring() {
    for system @ (m, k, b) in [(1.0, K, 0.0), (2.0, K, 30.0)] {
        let forces = spring(k, b);
        let mut particle = Particle::new(m, 1.0, 0.0);
        let mut by_hand = (1.0, 0.0);
        let mut integrator = BackwardEuler::new();
        let mut last_energy = energy(&particle, k);
        let per_step = 1.0 / (1.0 + k * DT * DT / m);
        for i in 0..60 {
            integrator
                .step(&mut particle, &forces, i as f64 * DT, DT)
                .expect("a linear implicit step converges");
            by_hand = backward_euler_by_hand(system, by_hand, DT);

            let e = energy(&particle, k);
            assert!(
                e < last_energy,
                "step {i}: energy rose from {last_energy} to {e}"
            );
            if b == 0.0 {
                assert_relative_eq!(e / last_energy, per_step, max_relative = 1e-8);
            }
            last_energy = e;

            // The same state as the recurrence, in the energy norm, relative to its size.
            let (x, v) = by_hand;
            let difference = 0.5 * k * (particle.position() - x).powi(2)
                + 0.5 * m * (particle.velocity() - v).powi(2);
            let size = 0.5 * k * x * x + 0.5 * m * v * v;
            assert!(
                (difference / size).sqrt() < 1e-9,
                "step {i}: ({}, {}) vs ({x}, {v})",
                particle.position(),
                particle.velocity()
            );
        }
        // 60 steps (1 s) later the spring has all but stopped: its energy is 10^−146 of
        // the start's without damping.
        assert!(last_energy < 1e-100 * 0.5 * k, "{last_energy}");
    }
}

/// The energy's growth per step, ρ², of each explicit method on the stiff spring (m = 1,
/// θ = ω dt):
///
/// - the methods that are not symplectic: `|R(iθ)|²`, from their stability functions
///   (`common::stability_function`; on a particle they are Runge–Kutta methods on (x, p)):
///   explicit Euler 1 + θ² (279 per step), midpoint and improved Euler 1 + θ⁴/4
///   (1.9·10⁴), RK4 1 − θ⁶/72 + θ⁸/576 (5.9·10⁶), the predictor–corrector 1 − θ² + θ⁴;
///   `None` for the multistep methods, which have no one-step map;
/// - the kick–drift methods: ρ² of their one-step matrix, the product of their kicks'
///   `[[1, 0], [−c dt k, 1]]` and drifts' `[[1, c dt], [0, 1]]`. Its determinant is 1, so
///   ρ = |tr|/2 + √(tr²/4 − 1): for semi-implicit Euler, both Verlets and leapfrog the trace
///   is 2 − θ² (ρ² = 7.6·10⁴).
fn growth_per_step(kind: MethodKind, k: f64, dt: f64) -> Option<f64> {
    if !kind.properties().symplectic {
        let theta = k.sqrt() * dt;
        return stability_function(kind.name(), C(0.0, theta)).map(|r| r.abs().powi(2));
    }
    // (kick, drift) fractions of the step, in the order they are applied.
    let kick_drift = |sequence: Vec<(f64, f64)>| {
        let apply = |(mut x, mut v): (f64, f64)| {
            for &(kick, drift) in &sequence {
                v -= kick * dt * k * x;
                x += drift * dt * v;
            }
            (x, v)
        };
        let trace = apply((1.0, 0.0)).0 + apply((0.0, 1.0)).1;
        let half = trace.abs() / 2.0;
        (half + (half * half - 1.0).max(0.0).sqrt()).powi(2)
    };
    let verlet = |c: f64| [(c / 2.0, c), (c / 2.0, 0.0)];
    Some(match kind {
        MethodKind::SemiImplicitEuler(_) => kick_drift(vec![(1.0, 1.0)]),
        MethodKind::Verlet(_) => kick_drift(verlet(1.0).to_vec()),
        MethodKind::PositionVerlet(_) | MethodKind::Leapfrog(_) => {
            kick_drift(vec![(0.0, 0.5), (1.0, 0.5)])
        }
        MethodKind::ForestRuth(c)
        | MethodKind::Suzuki4(c)
        | MethodKind::Yoshida6(c)
        | MethodKind::Yoshida8(c)
        | MethodKind::BlanesMoan4(c)
        | MethodKind::KahanLi8(c) => kick_drift(match c.coefficients().sequence {
            Sequence::Composition(gamma) => gamma.iter().flat_map(|&g| verlet(g)).collect(),
            // D(a₁) K(b₁) D(a₂) … K(bₛ) D(aₛ₊₁).
            Sequence::DriftKick { drifts, kicks } => core::iter::once((0.0, drifts[0]))
                .chain(kicks.iter().zip(&drifts[1..]).map(|(&b, &a)| (b, a)))
                .collect(),
        }),
        other => panic!("{other}: add its kicks and drifts here"),
    })
}

/// Every explicit method of the registry explodes on the stiff spring, and at the rate its
/// one-step map's spectral radius ρ(θ) predicts ([`growth_per_step`]): the energy grows
/// like ρ^(2n).
///
/// For the Runge–Kutta methods the growth is exactly geometric; for the partitioned ones the
/// start (at rest) is a mix of the two eigenvectors, so the energy is `c ρ^(2n)` with `c`
/// of order one; allowing two decades either way covers both. The multistep methods' growth
/// is measured.
#[test]
fn every_explicit_method_explodes_on_a_stiff_spring() {
    let forces = spring(K, 0.0);
    let explicit = MethodKind::all()
        .into_iter()
        .filter(|kind| !kind.properties().implicit);
    for kind in explicit {
        let name = kind.name();
        let per_step = match growth_per_step(kind, K, DT) {
            Some(growth) => growth.log10(),
            // Measured: 10^118.2 and 10^120.9 over 24 steps.
            None => match name {
                "beeman" => 118.2 / 24.0,
                "adams-bashforth-moulton" => 120.9 / 24.0,
                other => panic!("{other}: no growth per step and no measured growth"),
            },
        };
        // 24 steps, or fewer where the energy would overflow: a composition's unstable
        // substeps grow it by up to 10^N per step.
        let steps = 24.min((250.0 / per_step) as usize);
        let mut method: Method<Particle<f64>> = Method::new(kind);
        let mut particle = Particle::new(1.0, 1.0, 0.0);
        let e0 = energy(&particle, K);
        for i in 0..steps {
            method
                .step(&mut particle, &forces, i as f64 * DT, DT)
                .expect("finite step");
        }
        let decades = (energy(&particle, K) / e0).log10();
        let theory = steps as f64 * per_step;
        println!("{name}: energy grew 10^{decades:.1} in {steps} steps (theory 10^{theory:.1})");
        assert!(decades > 50.0, "{name}: only 10^{decades}");
        assert!(
            (decades - theory).abs() < 2.0,
            "{name}: 10^{decades} vs 10^{theory}"
        );
    }
}

/// A nonlinear stiff force: a hardening spring with drag, `F = −k x − c x³ − b v`.
const HARD: (f64, f64, f64, f64) = (1.0e4, 1.0e4, 2.0, 1.5); // k, c, b, m

fn hard_spring(p: &Particle<f64>, _t: f64) -> f64 {
    let (k, c, b, _) = HARD;
    let x = p.position();
    -k * x - c * x * x * x - b * p.velocity()
}

/// Its Jacobian in the coordinates of the derivative: (position rate, momentum rate) by
/// (position, momentum). `∂(p/m)/∂p = 1/m`, `∂F/∂x = −k − 3cx²`, `∂F/∂p = −b/m`.
fn hard_spring_jacobian(p: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>) {
    let (k, c, b, m) = HARD;
    let x = p.position();
    j[(0, 1)] = 1.0 / m;
    j[(1, 0)] = -k - 3.0 * c * x * x;
    j[(1, 1)] = -b / m;
}

/// Checks that (x₁, v₁) solves backward Euler's implicit equations from (x₀, v₀):
/// `x₁ = x₀ + dt v₁` and `m v₁ = m v₀ + dt F(x₁, v₁)`.
fn assert_solves_backward_euler(before: &Particle<f64>, after: &Particle<f64>, dt: f64) {
    let (_, _, _, m) = HARD;
    let scale_x = before.position().abs() + dt * after.velocity().abs() + 1e-300;
    let position_residual = after.position() - before.position() - dt * after.velocity();
    assert!(
        position_residual.abs() <= 1e-12 * scale_x,
        "{position_residual}"
    );
    let force = hard_spring(after, 0.0);
    let scale_p = (m * before.velocity()).abs() + (dt * force).abs() + 1e-300;
    let momentum_residual = m * after.velocity() - m * before.velocity() - dt * force;
    assert!(
        momentum_residual.abs() <= 1e-9 * scale_p,
        "{momentum_residual}"
    );
}

/// The analytic Jacobian and finite differences solve the same equations, so they give the
/// same states to within the Newton tolerance; and each state solves the implicit equations.
#[test]
fn analytic_and_finite_difference_jacobians_agree() {
    let (_, _, _, m) = HARD;
    let with_jacobian = WithJacobian::new(hard_spring, hard_spring_jacobian);
    let mut analytic = Particle::new(m, 1.0, 0.0);
    let mut differenced = analytic;
    let mut solver = BackwardEuler::new().with_tolerance(1e-13);
    for i in 0..60 {
        let t = i as f64 * DT;
        let before = analytic;
        solver.step(&mut analytic, &with_jacobian, t, DT).unwrap();
        solver.step(&mut differenced, &hard_spring, t, DT).unwrap();
        assert_solves_backward_euler(&before, &analytic, DT);
        let scale = analytic.position().abs() + analytic.velocity().abs() * DT;
        assert!((analytic.position() - differenced.position()).abs() <= 1e-9 * scale);
        assert_relative_eq!(
            analytic.velocity(),
            differenced.velocity(),
            max_relative = 1e-8,
            epsilon = 1e-9 * scale / DT
        );
    }
}

/// The analytic Jacobian is really used: one with the wrong sign makes Newton's iteration
/// diverge on this stiff force, so the step fails (with the right one, the previous test
/// converges). Theory: solving with `I + dt J` instead of `I − dt J` multiplies the error
/// of each iterate by `(I + dt J)⁻¹ · 2 dt J`, whose eigenvalues `2μ/(1 + μ)` (μ those of
/// `dt J`, here `±i dt √((k + 3cx²)/m) ≈ ±2.7i` at x = 1) have modulus ≈ 1.9 > 1.
#[test]
fn a_wrong_analytic_jacobian_is_not_silently_replaced() {
    let (_, _, _, m) = HARD;
    let wrong = WithJacobian::new(
        hard_spring,
        |p: &Particle<f64>, t: f64, j: &mut Jacobian<f64>| {
            hard_spring_jacobian(p, t, j);
            for r in 0..2 {
                for c in 0..2 {
                    j[(r, c)] = -j[(r, c)];
                }
            }
        },
    );
    let start = Particle::new(m, 1.0, 0.0);
    let mut particle = start;
    let result = BackwardEuler::new().step(&mut particle, &wrong, 0.0, DT);
    println!("wrong Jacobian: {result:?}");
    assert!(result.is_err(), "{result:?}");
    assert_eq!(particle, start);
}

/// A step that cannot converge in the iterations allowed reports `NotConverged` and leaves
/// the state exactly as it was, bit for bit.
#[test]
fn not_converging_returns_an_error_and_leaves_the_state_untouched() {
    let (_, _, _, m) = HARD;
    let start = Particle::new(m, 1.0, -3.0);
    let mut particle = start;
    let error = BackwardEuler::new()
        .with_max_iterations(1)
        .step(&mut particle, &hard_spring, 0.0, DT)
        .unwrap_err();
    assert!(
        matches!(error, StepError::NotConverged { iterations: 1, correction } if correction > 1e-6),
        "{error:?}"
    );
    assert_eq!(particle.position().to_bits(), start.position().to_bits());
    assert_eq!(particle.velocity().to_bits(), start.velocity().to_bits());
    assert_eq!(particle.momentum().to_bits(), start.momentum().to_bits());
    // With the default limit the same step converges: the error was the limit's.
    BackwardEuler::new()
        .step(&mut particle, &hard_spring, 0.0, DT)
        .unwrap();
    assert_solves_backward_euler(&start, &particle, DT);
}

/// Forty unknowns, more than fit on the stack (16): the solve moves to the heap and
/// integrates the diagonal stiff system `y'ᵢ = −λᵢ yᵢ` (λ from 1 to 10⁶) exactly as the
/// recurrence `yᵢ ← yᵢ / (1 + λᵢ dt)` says, called directly or through a stepper.
#[test]
fn forty_unknowns_solve_on_the_heap() {
    let rates: [f64; 40] = core::array::from_fn(|i| 10f64.powf(i as f64 * 6.0 / 39.0));
    let decay =
        move |y: &[f64; 40], _t: f64| -> [f64; 40] { core::array::from_fn(|i| -rates[i] * y[i]) };
    let start = [1.0; 40];
    let solver = BackwardEuler::new().with_tolerance(1e-13);
    let mut direct = start;
    let mut stepped = start;
    let mut stepper = Stepper::new(solver);
    let mut by_hand = start;
    for i in 0..10 {
        solver
            .clone()
            .step(&mut direct, &decay, i as f64 * DT, DT)
            .unwrap();
        stepper
            .step(&mut stepped, &decay, i as f64 * DT, DT)
            .unwrap();
        for (j, value) in by_hand.iter_mut().enumerate() {
            *value /= 1.0 + rates[j] * DT;
        }
    }
    // The stepper keeps its factored matrix from step to step, so its answer may differ
    // from the direct calls' within the Newton tolerance, not beyond. That tolerance is
    // relative to `1 + |D| + |y|/dt`: for the stiffest components, near 10⁻⁴³ after ten
    // steps, it is the absolute 10⁻¹³ (times `dt`, ten steps), which the iteration may
    // leave unspent (since radau5.f's stopping rule, it stops when the error it leaves is
    // within the tolerance, not its last correction).
    for solution in [direct, stepped] {
        for (j, (got, want)) in solution.iter().zip(&by_hand).enumerate() {
            assert_relative_eq!(
                *got,
                *want,
                max_relative = 1e-8,
                epsilon = 1e-13 * DT * 10.0
            );
            assert!(
                j == 0 || got < &solution[j - 1],
                "stiffer components decay faster"
            );
        }
    }
}

/// A Jacobian that makes `I − dt J` singular is reported, and a force that returns NaN is
/// refused; both leave the state unchanged.
#[test]
fn singular_jacobians_and_non_finite_forces_are_refused() {
    let decay = WithJacobian::new(
        |y: &f64, _t: f64| -y,
        |_: &f64, _t: f64, j: &mut Jacobian<f64>| j[(0, 0)] = 1.0 / DT,
    );
    let mut y = 1.0_f64;
    assert_eq!(
        BackwardEuler::new().step(&mut y, &decay, 0.0, DT),
        Err(StepError::SingularJacobian)
    );
    assert_eq!(y, 1.0);

    let broken = |y: &f64, _t: f64| (-y).sqrt();
    assert_eq!(
        BackwardEuler::new().step(&mut y, &broken, 0.0, DT),
        Err(StepError::NonFiniteResidual)
    );
    assert_eq!(y, 1.0);
}

/// A stiff spring (k = 10⁴, m = 1, dt = 1/60) anchored far from the origin steps as well
/// as one anchored near it: the finite differences and the Newton test scale with the
/// state's coordinates. The linear solve gives `v = −k x₀ dt / (1 + k dt²)` for a release
/// 1 m from the anchor, to within what rounding of the position allows.
#[test]
fn a_stiff_spring_far_from_the_origin_converges() {
    let dt = 1.0 / 60.0;
    let exact = -1e4 * dt / (1.0 + 1e4 * dt * dt);
    for anchor in [10.0, 1e6, 1e7, 1e10] {
        let spring = move |p: &Particle<f64>, _t: f64| -1e4 * (p.position() - anchor);
        let mut particle = Particle::new(1.0, anchor + 1.0, 0.0);
        BackwardEuler::new()
            .step(&mut particle, &spring, 0.0, dt)
            .unwrap_or_else(|e| panic!("anchor {anchor:e}: {e}"));
        let resolution = 1e4 * dt * anchor * f64::EPSILON * 64.0;
        assert!(
            (particle.velocity() - exact).abs() <= 1e-9 * exact.abs() + resolution,
            "anchor {anchor:e}: v = {}, exact {exact}",
            particle.velocity()
        );
    }
    for anchor in [10.0_f32, 100.0, 1e4] {
        let spring = move |p: &Particle<f32>, _t: f32| -1e4 * (p.position() - anchor);
        let mut particle = Particle::new(1.0_f32, anchor + 1.0, 0.0);
        BackwardEuler::new()
            .step(&mut particle, &spring, 0.0, dt as f32)
            .unwrap_or_else(|e| panic!("f32 anchor {anchor:e}: {e}"));
        let resolution = 1e4 * (dt as f32) * anchor * f32::EPSILON * 64.0;
        assert!(
            (particle.velocity() - exact as f32).abs() <= 1e-4 * exact.abs() as f32 + resolution,
            "f32 anchor {anchor:e}: v = {}",
            particle.velocity()
        );
    }
}

/// A step so long that rounding of the end state decides the answer (dt = 10⁴⁵ in f64,
/// 10³⁰ in f32, on that spring) is refused, the state unchanged, where it used to return
/// `Ok` with a momentum of 10²⁶.
#[test]
fn a_step_too_long_for_the_precision_is_refused() {
    let spring = |p: &Particle<f64>, _t: f64| -1e4 * (p.position() - 1e6);
    let start = Particle::new(1.0, 1e6 + 1.0, 0.0);
    let mut particle = start;
    let error = BackwardEuler::new()
        .step(&mut particle, &spring, 0.0, 1e45)
        .unwrap_err();
    assert!(matches!(error, StepError::StepTooLong { .. }), "{error}");
    assert_eq!(particle, start);

    let spring = |p: &Particle<f32>, _t: f32| -1e4 * p.position();
    let start = Particle::new(1.0_f32, 1.0, 0.0);
    let mut particle = start;
    let error = BackwardEuler::new()
        .step(&mut particle, &spring, 0.0, 1e30)
        .unwrap_err();
    assert!(matches!(error, StepError::StepTooLong { .. }), "{error}");
    assert_eq!(particle, start);
}

/// A Jacobian with a NaN entry is reported as non-finite, not as singular.
#[test]
fn a_nan_analytic_jacobian_is_not_called_singular() {
    let broken = WithJacobian::new(
        |p: &Particle<f64>, _t: f64| -p.position(),
        |_: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| j[(1, 0)] = f64::NAN,
    );
    let start = Particle::new(1.0, 1.0, 0.0);
    let mut particle = start;
    let error = BackwardEuler::new()
        .step(&mut particle, &broken, 0.0, 0.1)
        .unwrap_err();
    assert_eq!(error, StepError::NonFiniteJacobian);
    assert_eq!(particle, start);
}
