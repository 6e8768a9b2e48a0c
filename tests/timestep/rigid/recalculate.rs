//! After every step of every integrator, a body's secondary quantities are exactly what a
//! fresh recalculation from its primary ones gives: nothing is ever stale.

use timestep::MethodKind;
use timestep::rigid::{Body, Inertia, OrientationUpdate, Precision, Splitting, Vector3};
use timestep::{Integrator, Method};

/// Gravity, linear and angular drag, a spring from a body corner to a fixed anchor, and a
/// torque that changes with time: forces that read every secondary quantity.
fn forces<S: Precision>(body: &Body<S>, t: S) -> (S::Vec3, S::Vec3) {
    let c = |x: f64| S::from_f64(x);
    let gravity = S::Vec3::new(c(0.0), c(-9.81), c(0.0)) * body.mass();
    let corner = body.to_world_point(S::Vec3::new(c(0.5), c(0.5), c(0.5)));
    let anchor = S::Vec3::new(c(0.0), c(2.0), c(0.0));
    let spring = (anchor - corner) * c(20.0) - body.velocity_at_point(corner) * c(0.5);
    let (force, torque) = body.force_at_point(spring, corner);
    let twist = S::Vec3::new(t.sin(), c(0.0), t.cos()) - body.angular_velocity() * c(0.05);
    (force + gravity - body.velocity() * c(0.1), torque + twist)
}

fn start<S: Precision>(update: OrientationUpdate) -> Body<S> {
    let c = |x: f64| S::from_f64(x);
    let mut body = Body::<S>::new(c(2.0), Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3));
    body.set_orientation_update(update);
    body.set_velocity(S::Vec3::new(c(1.0), c(2.0), c(-0.5)));
    body.set_angular_velocity(S::Vec3::new(c(0.5), c(3.0), c(-1.0)));
    body
}

fn check<S: Precision, I: Integrator<Body<S>>>(
    name: &str,
    mut integrator: I,
    update: OrientationUpdate,
) {
    let mut body = start::<S>(update);
    let dt = S::from_f64(1.0 / 60.0);
    for i in 0..300 {
        integrator
            .step(&mut body, &forces::<S>, S::from_f64(i as f64) * dt, dt)
            .unwrap();
        let mut fresh = body;
        fresh.recalculate();
        assert_eq!(
            fresh, body,
            "{name}, {update:?}, step {i}: stale secondaries"
        );
    }
    // The run went somewhere: the body fell and turned.
    assert!(body.position() != start::<S>(update).position(), "{name}");
}

fn check_all<S: Precision>() {
    for update in [OrientationUpdate::Additive, OrientationUpdate::Exponential] {
        for method in MethodKind::all().into_iter().map(Method::<Body<S>>::new) {
            check::<S, _>(method.name(), method, update);
        }
        check::<S, _>("splitting", Splitting, update);
    }
}

#[test]
fn secondaries_are_fresh_after_every_step_f64() {
    check_all::<f64>();
}

#[test]
fn secondaries_are_fresh_after_every_step_f32() {
    check_all::<f32>();
}

#[test]
fn setters_leave_fresh_secondaries() {
    let mut body = start::<f64>(OrientationUpdate::Additive);
    let expect_fresh = |body: &Body<f64>| {
        let mut fresh = *body;
        fresh.recalculate();
        assert_eq!(&fresh, body);
    };
    body.set_position(glam::DVec3::new(1.0, 2.0, 3.0));
    expect_fresh(&body);
    body.set_momentum(glam::DVec3::new(-1.0, 0.5, 2.0));
    expect_fresh(&body);
    body.set_orientation(glam::DQuat::from_rotation_y(1.0));
    expect_fresh(&body);
    body.set_angular_momentum(glam::DVec3::new(0.0, 1.0, 0.0));
    expect_fresh(&body);
    body.set_angular_velocity(glam::DVec3::new(2.0, 1.0, 0.0));
    expect_fresh(&body);
    body.set_velocity(glam::DVec3::new(0.0, 0.0, 3.0));
    expect_fresh(&body);
}
