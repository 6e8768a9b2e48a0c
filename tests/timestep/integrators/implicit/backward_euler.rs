//! Backward Euler away from the origin (issue 10, "Nothing silent"): the Newton iteration's
//! finite-difference step and its convergence test must scale with the size of what they
//! perturb (and with `dt`), so that a spring anchored at 10⁶ m steps exactly as the same
//! spring anchored at the origin.
//!
//! The theory: on a linear spring `F = −k (x − a)` (mass `m`, anchored at `a`) one backward
//! Euler step solves the linear system exactly,
//!
//! ```text
//! v₁ = (v₀ − k (x₀ − a) dt / m) / (1 + k dt² / m),     x₁ = x₀ + v₁ dt,
//! ```
//!
//! so `x₁ − a` depends on `x₀ − a` alone: moving the anchor changes nothing but rounding
//! (a few ulps of `a`). And however large `dt`, `|x₁ − a| ≤ |x₀ − a|`: backward Euler
//! never amplifies a spring.
//!
//! These failed on the solver before its difference steps and Newton test scaled with the
//! state's coordinates (`NotConverged` at 10⁴ m in f32 and at 10⁶ m in f64 with the
//! finite-difference Jacobian and with the exact one; `Ok` with the state grown
//! 10⁸–10¹² × at dt = 10⁴⁵ or 10³⁰, now refused as `StepTooLong` or solved).

use timestep::{BackwardEuler, Integrator, Jacobian, Particle, WithJacobian};

/// One exact backward Euler step of the anchored spring, as displacement from the anchor.
fn exact_step(k: f64, m: f64, displacement: f64, v0: f64, dt: f64) -> (f64, f64) {
    let v1 = (v0 - k * displacement * dt / m) / (1.0 + k * dt * dt / m);
    (displacement + v1 * dt, v1)
}

#[test]

fn a_stiff_spring_far_from_the_origin_steps_as_at_the_origin_f64() {
    let (k, m, dt) = (1e4, 1.0, 0.01);
    let (x1, v1) = exact_step(k, m, 0.1, 0.0, dt);
    for anchor in [0.0, 10.0, 1e6, 1e7, 1e9] {
        let spring = move |p: &Particle<f64>, _t: f64| -k * (p.position() - anchor);
        let mut particle = Particle::new(m, anchor + 0.1, 0.0);
        BackwardEuler::new()
            .step(&mut particle, &spring, 0.0, dt)
            .unwrap_or_else(|error| panic!("anchored at {anchor:e}: {error}"));
        let rounding = 16.0 * f64::EPSILON * anchor + 1e-12;
        assert!(
            (particle.position() - anchor - x1).abs() <= rounding,
            "anchored at {anchor:e}: {} against {x1}",
            particle.position() - anchor
        );
        assert!((particle.velocity() - v1).abs() <= 1e-9 * v1.abs().max(1.0) + rounding / dt);
    }
}

#[test]

fn a_stiff_spring_far_from_the_origin_steps_as_at_the_origin_f32() {
    let (k, m, dt) = (1e4_f32, 1.0_f32, 0.01_f32);
    let (x1, _) = exact_step(k.into(), m.into(), 1.0, 0.0, dt.into());
    for anchor in [0.0_f32, 10.0, 100.0, 1e4] {
        let spring = move |p: &Particle<f32>, _t: f32| -k * (p.position() - anchor);
        let mut particle = Particle::new(m, anchor + 1.0, 0.0);
        BackwardEuler::new()
            .step(&mut particle, &spring, 0.0, dt)
            .unwrap_or_else(|error| panic!("anchored at {anchor:e}: {error}"));
        let rounding = 64.0 * f64::from(f32::EPSILON) * f64::from(anchor) + 1e-5;
        let displacement = f64::from(particle.position()) - f64::from(anchor);
        assert!(
            (displacement - x1).abs() <= rounding,
            "anchored at {anchor:e}: {displacement} against {x1}"
        );
    }
}

/// With the exact Jacobian the Newton iteration converges in one step on a linear system;
/// only its convergence test, if it does not scale with the state, can fail far out.
#[test]

fn an_analytic_jacobian_converges_far_from_the_origin() {
    let (k, m, dt) = (1e4, 1.0, 0.01);
    let (x1, _) = exact_step(k, m, 0.1, 0.0, dt);
    for anchor in [0.0, 1e6, 1e9, 1e12] {
        let forces = WithJacobian::new(
            move |p: &Particle<f64>, _t: f64| -k * (p.position() - anchor),
            move |_: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| {
                j[(0, 1)] = 1.0 / m;
                j[(1, 0)] = -k;
            },
        );
        let mut particle = Particle::new(m, anchor + 0.1, 0.0);
        BackwardEuler::new()
            .step(&mut particle, &forces, 0.0, dt)
            .unwrap_or_else(|error| panic!("anchored at {anchor:e}: {error}"));
        let rounding = 16.0 * f64::EPSILON * anchor + 1e-12;
        assert!(
            (particle.position() - anchor - x1).abs() <= rounding,
            "{anchor:e}"
        );
    }
}

/// A huge step on a damped spring: backward Euler never adds energy (for a linear damped
/// spring `E₁ ≤ E₀` exactly: the step is a contraction in the energy norm), and as
/// `dt → ∞` it leaves the spring at rest at its anchor. The solver returned `Ok` with the
/// displacement grown to 1.9·10⁸ m (f64, dt = 10⁴⁵) and 6.9·10¹² m (f32, dt = 10³⁰).
#[test]

fn a_huge_step_never_adds_energy() {
    let k = 1e4;
    let energy = |x: f64, v: f64| 0.5 * v * v + 0.5 * k * x * x;
    for anchor in [0.0, 100.0, 1e6] {
        for dt in [1e10, 1e45, 1e100] {
            let spring =
                move |p: &Particle<f64>, _t: f64| -k * (p.position() - anchor) - p.velocity();
            let mut particle = Particle::new(1.0, anchor + 1.0, 1.0);
            let before = energy(1.0, 1.0);
            if BackwardEuler::new()
                .step(&mut particle, &spring, 0.0, dt)
                .is_ok()
            {
                let after = energy(particle.position() - anchor, particle.velocity());
                assert!(
                    after <= before * (1.0 + 1e-9),
                    "anchor {anchor}, dt {dt:e}: {after:e}"
                );
            }
        }
    }
    let spring = |p: &Particle<f32>, _t: f32| -1e4 * p.position() - 0.1 * p.velocity();
    let mut particle = Particle::new(1.0_f32, 1.0, 0.0);
    if BackwardEuler::new()
        .step(&mut particle, &spring, 0.0, 1e30)
        .is_ok()
    {
        let (x, v) = (
            f64::from(particle.position()),
            f64::from(particle.velocity()),
        );
        assert!(
            energy(x, v) <= energy(1.0, 0.0) * (1.0 + 1e-5),
            "{x:e}, {v:e}"
        );
    }
}
