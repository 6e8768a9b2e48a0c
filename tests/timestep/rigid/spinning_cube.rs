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

#[test]
fn every_method_spins_the_cube_up() {
    // The largest errors at 60 Hz over 10 s, with a margin: ω (either update), and the angle
    // with the additive and with the exponential update. The angle reaches 83.4 rad.
    let bounds = [
        ("explicit-euler", 0.02, 0.2, 0.04),
        ("semi-implicit-euler", 0.02, 0.13, 0.2),
        ("midpoint", 7e-5, 0.025, 0.075),
        ("improved-euler", 7e-5, 0.05, 0.15),
        ("rk4", 4e-10, 1.2e-5, 0.1),
        // Verlet and position Verlet take the end-of-step torque at the predicted ω, so they
        // are second order in the drag, as midpoint is.
        ("verlet", 7e-5, 0.17, 2e-4),
        ("position-verlet", 7e-5, 0.015, 0.035),
        ("backward-euler", 0.02, 0.1, 0.3),
    ];
    let methods = MethodKind::all().into_iter().map(Method::<DRigidBody>::new);
    for (method, (name, omega_bound, additive, exponential)) in methods.into_iter().zip(bounds) {
        assert_eq!(method.name(), name);
        for (update, angle_bound) in [
            (OrientationUpdate::Additive, additive),
            (OrientationUpdate::Exponential, exponential),
        ] {
            let mut body = cube();
            body.set_orientation_update(update);
            let (omega_error, angle_error) = run(method.clone(), body);
            println!(
                "{name}, {update:?}: ω error {omega_error:.2e}, angle error {angle_error:.2e}"
            );
            assert!(
                omega_error < omega_bound,
                "{name}, {update:?}: ω error {omega_error:e}"
            );
            assert!(
                angle_error < angle_bound,
                "{name}, {update:?}: angle error {angle_error:e}"
            );
        }
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
