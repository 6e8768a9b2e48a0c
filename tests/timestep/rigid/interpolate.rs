//! `Interpolate` for rigid bodies: the ends are the two states, the orientation stays a unit
//! quaternion on the arc between the two, and the blend's secondary quantities are those a
//! fresh recalculation gives. Both precisions.

use glam::{DQuat, DVec3, Quat};
use timestep::rigid::{Body, DRigidBody, Inertia, OrientationUpdate, RigidBody};
use timestep::{Integrator, Interpolate, Rk4};

/// A body with an off-diagonal tensor, moving and spinning, pushed by a force and a torque
/// that change with time; `(before, after)` are its states 0.4 s apart, turned by about
/// 1.2 rad, so every quantity differs between the two.
fn pair() -> (DRigidBody, DRigidBody) {
    let mut before = DRigidBody::new(3.0, Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3));
    before.set_orientation_update(OrientationUpdate::Exponential);
    before.set_position(DVec3::new(1.0, -2.0, 0.5));
    before.set_orientation(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
    before.set_velocity(DVec3::new(0.5, 4.0, -1.0));
    before.set_angular_velocity(DVec3::new(0.4, 3.0, -0.7));
    let push = |body: &DRigidBody, t: f64| {
        let corner = body.to_world_point(DVec3::new(0.5, 0.5, 0.5));
        body.force_at_point(DVec3::new(t.sin(), -9.81, 1.0), corner)
    };
    let mut after = before;
    for i in 0..24 {
        Rk4.step(&mut after, &push, f64::from(i) / 60.0, 1.0 / 60.0)
            .unwrap();
    }
    (before, after)
}

/// The same two states in `f32`, made the same way.
fn pair_f32() -> (RigidBody, RigidBody) {
    let (before, after) = pair();
    let narrow = |body: &DRigidBody| {
        let mut b = RigidBody::new(3.0, Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3));
        b.set_orientation_update(body.orientation_update());
        b.set_position(body.position().as_vec3());
        b.set_orientation(body.orientation().as_quat());
        b.set_momentum(body.momentum().as_vec3());
        b.set_angular_momentum(body.angular_momentum().as_vec3());
        b
    };
    (narrow(&before), narrow(&after))
}

/// A copy of `body` recalculated: equal to it, bit for bit, when nothing is stale.
fn recalculated<S: timestep::rigid::Precision>(body: &Body<S>) -> Body<S> {
    let mut fresh = *body;
    fresh.recalculate();
    fresh
}

#[test]
fn the_ends_are_the_two_states() {
    let (a, b) = pair();
    assert!(a.orientation().angle_between(b.orientation()) > 1.0);
    for (alpha, end) in [(0.0, a), (1.0, b)] {
        let blend = a.interpolate(&b, alpha);
        // Linear parts exactly.
        assert_eq!(blend.position(), end.position());
        assert_eq!(blend.momentum(), end.momentum());
        assert_eq!(blend.angular_momentum(), end.angular_momentum());
        assert_eq!(blend.velocity(), end.velocity());
        // The orientation to rounding, and so everything that follows from it.
        assert!(blend.orientation().abs_diff_eq(end.orientation(), 1e-15));
        assert!(blend.rotation().abs_diff_eq(end.rotation(), 1e-15));
        assert!(
            blend
                .angular_velocity()
                .abs_diff_eq(end.angular_velocity(), 1e-14)
        );
    }

    let (a, b) = pair_f32();
    for (alpha, end) in [(0.0, a), (1.0, b)] {
        let blend = a.interpolate(&b, alpha);
        assert_eq!(blend.position(), end.position());
        assert_eq!(blend.momentum(), end.momentum());
        assert_eq!(blend.angular_momentum(), end.angular_momentum());
        assert!(blend.orientation().abs_diff_eq(end.orientation(), 1e-6));
        assert!(
            blend
                .angular_velocity()
                .abs_diff_eq(end.angular_velocity(), 1e-5)
        );
    }
}

#[test]
fn position_and_momenta_are_blended_linearly_constants_come_from_the_first() {
    let (a, mut b) = pair();
    b.set_orientation_update(OrientationUpdate::Additive);
    let blend = a.interpolate(&b, 0.25);
    let lerp = |x: DVec3, y: DVec3| x * 0.75 + y * 0.25;
    assert_eq!(blend.position(), lerp(a.position(), b.position()));
    assert_eq!(blend.momentum(), lerp(a.momentum(), b.momentum()));
    assert_eq!(
        blend.angular_momentum(),
        lerp(a.angular_momentum(), b.angular_momentum())
    );
    assert_eq!(blend.mass(), a.mass());
    assert_eq!(blend.inertia(), a.inertia());
    assert_eq!(blend.orientation_update(), OrientationUpdate::Exponential);
}

#[test]
fn the_blended_orientation_is_unit_and_on_the_arc_between_the_two() {
    let (a, b) = pair();
    let (qa, qb) = (a.orientation(), b.orientation());
    let turn = qa.angle_between(qb);
    let mut last = 0.0;
    for i in 0..=20 {
        let alpha = f64::from(i) / 20.0;
        // The same whichever sign the other orientation is written with.
        let mut negated = b;
        negated.set_orientation(-qb);
        for other in [b, negated] {
            let q = a.interpolate(&other, alpha).orientation();
            assert!((q.length() - 1.0).abs() < 1e-15, "|q| = {}", q.length());
            let (from_a, to_b) = (q.angle_between(qa), q.angle_between(qb));
            assert!(
                (from_a + to_b - turn).abs() < 1e-7,
                "α = {alpha}: off the arc"
            );
            assert!(from_a >= last - 1e-7, "α = {alpha}: turned back");
            // Normalized lerp: within turn³/200 of slerp.
            assert!(q.angle_between(qa.slerp(qb, alpha)) < turn.powi(3) / 200.0);
        }
        last = a.interpolate(&b, alpha).orientation().angle_between(qa);
    }

    let (a, b) = pair_f32();
    let (qa, qb): (Quat, Quat) = (a.orientation(), b.orientation());
    let turn = qa.angle_between(qb);
    for i in 0..=20 {
        let q = a.interpolate(&b, i as f32 / 20.0).orientation();
        assert!((q.length() - 1.0).abs() < 1e-6);
        assert!((q.angle_between(qa) + q.angle_between(qb) - turn).abs() < 1e-3);
    }
}

#[test]
fn the_blend_has_no_stale_secondaries() {
    let (a, b) = pair();
    let (c, d) = pair_f32();
    for i in -2..=12 {
        // Extrapolation too: α outside [0, 1] is still a state with fresh secondaries.
        let alpha = f64::from(i) / 10.0;
        let blend = a.interpolate(&b, alpha);
        assert_eq!(recalculated(&blend), blend, "α = {alpha}");
        let blend = c.interpolate(&d, alpha as f32);
        assert_eq!(recalculated(&blend), blend, "α = {alpha}, f32");
    }
    // The angular velocity is that of the blended L and orientation, not a blend of ω.
    let blend = a.interpolate(&b, 0.5);
    let omega_lerp = (a.angular_velocity() + b.angular_velocity()) * 0.5;
    assert!(!blend.angular_velocity().abs_diff_eq(omega_lerp, 1e-6));
    let world_inverse = blend.rotation() * a.inverse_inertia() * blend.rotation().transpose();
    assert!(
        blend
            .angular_velocity()
            .abs_diff_eq(world_inverse * blend.angular_momentum(), 1e-12)
    );
}
