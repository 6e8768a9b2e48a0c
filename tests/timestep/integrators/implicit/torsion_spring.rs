//! A stiff torsion spring at a game's frame rate (issue 24): the use the crate recommends
//! backward Euler for. A body turned by θ₀ about a principal axis, held by a torque
//! `−k θ` along that axis, stays on the axis, so one backward Euler step is a scalar
//! equation. With the body's default [additive orientation
//! update](timestep::rigid::OrientationUpdate::Additive), `q₁ = (q₀ + spin₁ dt)/|…|` with
//! the spin `½ ω₁ q₁` of the end, the turn is `2 asin(ω₁ dt / 2)` instead of `ω₁ dt`, so
//! the step solves
//!
//! ```text
//! θ₁ = θ₀ + 2 asin(ω₁ dt / 2),     I ω₁ = I ω₀ − dt k θ₁,
//! ```
//!
//! one increasing function of θ₁ with one root, found here by bisection. At `k = 10⁶`,
//! `I = 0.4` and 60 Hz the step turns the body through nearly all of θ₀ = 0.5 rad, and the
//! Jacobian at the start is far from the one at the end: simplified Newton, which keeps
//! the start's factorisation, diverges on it (it did so, with `Diverged` or
//! `NotConverged`, before full Newton was its fallback), and full Newton converges.

use glam::{DQuat, DVec3};
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{BackwardEuler, Integrator, Stepper};

/// The body's turn about z, from its orientation, without `acos` (whose rounding near
/// `w = 1` is `√ε`).
fn angle(q: DQuat) -> f64 {
    let q = if q.w < 0.0 { -q } else { q };
    2.0 * q.z.atan2(q.w)
}

/// The rotation vector of `q`: the torque law must be smooth for Newton to converge
/// quadratically, which `to_axis_angle` is not near the identity.
pub(super) fn rotation_vector(q: DQuat) -> DVec3 {
    let q = if q.w < 0.0 { -q } else { q };
    let v = DVec3::new(q.x, q.y, q.z);
    let s = v.length();
    if s == 0.0 {
        DVec3::ZERO
    } else {
        v * (2.0 * s.atan2(q.w) / s)
    }
}

/// One backward Euler step of the scalar equation above, by bisection on θ₁.
fn exact_step(k: f64, inertia: f64, theta0: f64, omega0: f64, dt: f64) -> (f64, f64) {
    let omega = |theta1: f64| omega0 - dt * k * theta1 / inertia;
    let g = |theta1: f64| theta1 - theta0 - 2.0 * (omega(theta1) * dt / 2.0).asin();
    // The asin's argument is within [−1, 1] between these: the root lies there.
    let reach = 2.0 * inertia / (dt * dt * k);
    let (mut low, mut high) = (
        (omega0 * dt - 2.0) * reach / 2.0,
        (omega0 * dt + 2.0) * reach / 2.0,
    );
    for _ in 0..200 {
        let middle = 0.5 * (low + high);
        if g(middle) > 0.0 {
            high = middle;
        } else {
            low = middle;
        }
    }
    let theta1 = 0.5 * (low + high);
    (theta1, omega(theta1))
}

#[test]
fn backward_euler_steps_a_stiff_torsion_spring_at_sixty_hertz() {
    let dt = 1.0 / 60.0;
    let inertia = Inertia::sphere(1.0, 1.0);
    let moment = 0.4;
    for (k, theta0) in [(1e6, 0.5), (1e5, 0.5), (3e5, 0.2), (1e4, 0.5)] {
        let spring = move |body: &DRigidBody, _t: f64| {
            (DVec3::ZERO, -k * rotation_vector(body.orientation()))
        };
        let mut body = DRigidBody::new(1.0, inertia);
        body.set_orientation(DQuat::from_rotation_z(theta0));
        let mut solver = Stepper::new(BackwardEuler::new());
        let (mut theta, mut omega) = (theta0, 0.0);
        for frame in 0..60 {
            solver
                .step(&mut body, &spring, f64::from(frame) * dt, dt)
                .unwrap_or_else(|error| panic!("k = {k:e}, θ₀ = {theta0}, frame {frame}: {error}"));
            (theta, omega) = exact_step(k, moment, theta, omega, dt);
            let scale = theta0 * (1.0 + (k / moment).sqrt() * dt);
            approx::assert_abs_diff_eq!(angle(body.orientation()), theta, epsilon = 1e-9 * scale);
            approx::assert_abs_diff_eq!(
                body.angular_velocity().z,
                omega,
                epsilon = 1e-9 * scale / dt
            );
            assert!(body.angular_velocity().truncate().length() < 1e-9 * scale / dt);
        }
        // Backward Euler damps: the spring's energy only falls.
        assert!(
            theta.abs() < theta0 * 1e-6,
            "k = {k:e}: θ = {theta:e} after a second"
        );
    }
}
