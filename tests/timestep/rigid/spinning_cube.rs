//! The article's cube (1 kg, 1 m sides, `I = ⅙ m s² = ⅙`), at rest, spun up about x by the
//! torque `(1, 0, 0) − 0.1 ω`: `⅙ ω' = 1 − 0.1 ω`, so
//!
//! ```text
//! ω_x(t) = 10 (1 − e^(−0.6 t))
//! θ(t)   = ∫ω_x = 10 t − (10 / 0.6)(1 − e^(−0.6 t))
//! ```
//!
//! with θ the angle the cube has turned about x.

use glam::DVec3;
use timestep::MethodKind;
use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate, RigidBody};
use timestep::{Integrator, Method, Rk4};

fn omega(t: f64) -> f64 {
    10.0 * (1.0 - (-0.6 * t).exp())
}

fn angle(t: f64) -> f64 {
    10.0 * t + (10.0 / 0.6) * (-0.6 * t).exp_m1()
}

fn spin_up(body: &DRigidBody, _t: f64) -> (DVec3, DVec3) {
    (DVec3::ZERO, DVec3::X - 0.1 * body.angular_velocity())
}

fn cube() -> DRigidBody {
    DRigidBody::new(1.0, Inertia::cube(1.0, 1.0))
}

/// Steps `body` for 10 s at `hz`; returns the largest errors of ω_x and of the turned angle
/// (unwrapped from the quaternion) over the run.
fn run_at<I: Integrator<DRigidBody>>(
    mut integrator: I,
    mut body: DRigidBody,
    hz: usize,
) -> (f64, f64) {
    let dt = 1.0 / hz as f64;
    let (mut turned, mut last) = (0.0, 0.0);
    let mut worst = (0.0_f64, 0.0_f64);
    for i in 0..10 * hz {
        integrator
            .step(&mut body, &spin_up, i as f64 * dt, dt)
            .unwrap();
        let t = (i + 1) as f64 * dt;
        let q = body.orientation();
        // θ/2 = atan2(q_x, q_w), unwrapped: the cube turns less than π per step.
        let now = 2.0 * q.x.atan2(q.w);
        let mut delta = now - last;
        delta -= std::f64::consts::TAU * (delta / std::f64::consts::TAU).round();
        turned += delta;
        last = now;
        worst.0 = worst.0.max((body.angular_velocity().x - omega(t)).abs());
        worst.1 = worst.1.max((turned - angle(t)).abs());
        // Nothing but the x axis is involved.
        let w = body.angular_velocity();
        assert_eq!((w.y, w.z, q.y, q.z), (0.0, 0.0, 0.0, 0.0));
        assert_eq!(body.position(), DVec3::ZERO);
    }
    (worst.0, worst.1)
}

fn run<I: Integrator<DRigidBody>>(integrator: I, body: DRigidBody) -> (f64, f64) {
    run_at(integrator, body, 60)
}

#[test]
fn rk4_follows_the_closed_form() {
    let (omega_error, angle_error) = run(Rk4, cube());
    println!("rk4: ω error {omega_error:.1e} rad/s, angle error {angle_error:.1e} rad");
    // The torque is linear in ω, so RK4's error is its fourth-order truncation of e^(−0.6 dt).
    assert!(omega_error < 4e-10, "{omega_error:e}");
    // After 10 s the cube has turned 83.4 rad; RK4 with the additive update is 10⁻⁵ off.
    assert!(angle_error < 1.2e-5, "{angle_error:e}");
    // ...and fourth order: half the step, a sixteenth of the error.
    let (_, finer) = run_at(Rk4, cube(), 120);
    assert!(
        (14.0..18.0).contains(&(angle_error / finer)),
        "{}",
        angle_error / finer
    );
}

#[test]
fn the_exponential_update_makes_rk4_second_order_in_the_angle() {
    // RK4's stage spins are taken at the stages' orientations; read back at the start
    // orientation, each implies ω shortened by cos(α/2), α the stage's rotation from the
    // start, so the rate is off by O(dt²) even about this fixed axis.
    let exponential = || {
        let mut body = cube();
        body.set_orientation_update(OrientationUpdate::Exponential);
        body
    };
    let (omega_error, angle_error) = run(Rk4, exponential());
    assert!(omega_error < 4e-10, "{omega_error:e}");
    assert!((0.06..0.1).contains(&angle_error), "{angle_error:e}");
    let (_, finer) = run_at(Rk4, exponential(), 120);
    assert!(
        (3.6..4.4).contains(&(angle_error / finer)),
        "{}",
        angle_error / finer
    );
}

/// The largest errors of each method at 60 Hz over 10 s: ω (either update), and the angle
/// with the additive and with the exponential update (the angle reaches 83.4 rad). The
/// bounds are the measured errors (printed by the test) with a margin of 1.5–2; a method of
/// the registry without bounds fails the test.
///
/// ω obeys the linear `⅙ ω' = 1 − 0.1 ω` whatever the orientation, so its error is each
/// method's error on a linear decay: about 2·10⁻² at first order, 6·10⁻⁵ at second (half
/// that for the trapezoidal rule, implicit midpoint and Newmark, whose error constant is
/// 1/12, not 1/6), and the compositions, which are of order 2 (Blanes–Moan and leapfrog 1)
/// on a rate that depends on ω alone (`integrators::first_order`). With the exponential
/// update every Runge–Kutta method of more than two stages is second order in the angle,
/// 0.08 rad (`the_exponential_update_makes_rk4_second_order_in_the_angle`).
fn bounds(name: &str) -> (f64, f64, f64) {
    match name {
        // Exponential Euler, with no linear part given, is explicit Euler.
        "explicit-euler" | "exponential-euler" => (0.03, 0.3, 0.05),
        "semi-implicit-euler" => (0.03, 0.2, 0.3),
        "midpoint" => (1e-4, 0.04, 0.1),
        "improved-euler" => (1e-4, 0.07, 0.2),
        "rk4" => (5e-10, 1.5e-5, 0.13),
        // Verlet and position Verlet take the end-of-step torque at the predicted ω, so they
        // are second order in the drag, as midpoint is.
        "verlet" => (1e-4, 0.3, 1.8e-4),
        "position-verlet" => (1e-4, 0.02, 0.05),
        "backward-euler" => (0.03, 0.15, 0.4),
        "bs3" => (2.5e-7, 8e-6, 0.13),
        "dopri5" => (2e-13, 2e-9, 0.13),
        "tsit5" => (4e-14, 2e-9, 0.13),
        // At rounding (ω 5·10⁻¹⁵ of 10 rad/s, the angle 7·10⁻¹⁴ of 83 rad).
        "dop853" => (1e-14, 2e-13, 0.13),
        "leapfrog" => (0.03, 0.1, 0.15),
        "beeman" => (5e-5, 0.3, 2.5e-4),
        "adams-bashforth-moulton" => (1.5e-9, 1.5e-4, 0.13),
        "predictor-corrector" => (0.03, 0.15, 0.4),
        "forest-ruth" => (1.2e-4, 6e-3, 6e-4),
        "suzuki4" => (3e-5, 2.5e-4, 1.5e-4),
        "yoshida6" => (4e-5, 1.5e-4, 1.5e-4),
        "yoshida8" => (1e-4, 3e-4, 3e-4),
        "blanes-moan4" => (0.015, 0.05, 0.07),
        "kahan-li8" => (4e-5, 2e-4, 2e-4),
        "trapezoid" | "newmark" => (5e-5, 0.07, 0.2),
        "implicit-midpoint" => (5e-5, 0.04, 0.1),
        "rodas4" => (4e-11, 1.2e-5, 0.13),
        // ω at rounding (3·10⁻¹⁴): its R(z) is eᶻ to z⁶.
        "rodas5p" => (1e-13, 5e-8, 0.13),
        "ros3p" => (5e-7, 1e-4, 0.13),
        "radau5" => (1e-13, 1.5e-9, 0.13),
        other => {
            panic!("{other}: no bounds for the spinning cube; measure its errors and add them")
        }
    }
}

#[test]
fn every_method_spins_the_cube_up() {
    for method in MethodKind::all().into_iter().map(Method::<DRigidBody>::new) {
        let name = method.name();
        let (omega_bound, additive, exponential) = bounds(name);
        let mut errors = Vec::new();
        for (update, angle_bound) in [
            (OrientationUpdate::Additive, additive),
            (OrientationUpdate::Exponential, exponential),
        ] {
            let mut body = cube();
            body.set_orientation_update(update);
            let (omega_error, angle_error) = run(method.clone(), body);
            errors.push((omega_error, angle_error));
            assert!(
                omega_error < omega_bound,
                "{name}, {update:?}: ω error {omega_error:e}"
            );
            assert!(
                angle_error < angle_bound,
                "{name}, {update:?}: angle error {angle_error:e}"
            );
        }
        println!(
            "{name}: ω error {:.2e} / {:.2e}, angle error {:.2e} (additive), {:.2e} (exponential)",
            errors[0].0, errors[1].0, errors[0].1, errors[1].1
        );
    }
}

#[test]
fn the_f32_cube_agrees() {
    let spin_up = |body: &RigidBody, _t: f32| {
        (
            glam::Vec3::ZERO,
            glam::Vec3::X - 0.1 * body.angular_velocity(),
        )
    };
    let mut body = RigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    let dt = 1.0 / 60.0;
    for i in 0..600 {
        Rk4.step(&mut body, &spin_up, i as f32 * dt, dt).unwrap();
    }
    assert!((f64::from(body.angular_velocity().x) - omega(10.0)).abs() < 1e-5);
}
