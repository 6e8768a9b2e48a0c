//! Points on a body: the torque of a force at a point, the velocity of a point, and body ↔
//! world conversions.

use approx::assert_abs_diff_eq;
use glam::{DQuat, DVec3};
use proptest::prelude::*;
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{Integrator, Rk4, SemiImplicitEuler, SmallVector};

#[test]
fn force_plus_y_at_plus_x_turns_the_body_about_plus_z() {
    let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    body.set_position(DVec3::new(3.0, -1.0, 2.0));
    let point = body.position() + DVec3::X;
    let (force, torque) = body.force_at_point(DVec3::Y, point);
    assert_eq!(force, DVec3::Y);
    // r × F = x̂ × ŷ = ẑ (the article's F × r would give −ẑ).
    assert_eq!(torque, DVec3::Z);

    // And the body, pushed there from rest, starts turning counter-clockwise about +z while
    // its centre moves along +y.
    let push = move |b: &DRigidBody, _t: f64| b.force_at_point(DVec3::Y, point);
    SemiImplicitEuler.step(&mut body, &push, 0.0, 0.01).unwrap();
    let w = body.angular_velocity();
    assert!(w.z > 0.0 && w.x == 0.0 && w.y == 0.0, "{w}");
    assert!(body.velocity().y > 0.0);
    assert_abs_diff_eq!(w.z, 6.0 * 0.01, epsilon = 1e-15); // τ dt / I, I = ⅙
}

#[test]
fn a_couple_is_a_pure_torque_wherever_the_body_is() {
    for position in [DVec3::ZERO, DVec3::new(5.0, -7.0, 1.0)] {
        let mut body = DRigidBody::new(2.0, Inertia::sphere(2.0, 1.0));
        body.set_position(position);
        let a = body.force_at_point(DVec3::Z, position + DVec3::Y);
        let b = body.force_at_point(-DVec3::Z, position - DVec3::Y);
        let (force, torque) = a.add(b);
        assert_eq!(force, DVec3::ZERO);
        assert_eq!(torque, 2.0 * DVec3::X);
    }
}

fn vector(range: f64) -> impl Strategy<Value = DVec3> {
    prop::array::uniform3(-range..range).prop_map(DVec3::from)
}

fn rotation() -> impl Strategy<Value = DQuat> {
    prop::array::uniform4(-1.0..1.0_f64)
        .prop_filter("a quaternion far from zero", |q| {
            q.iter().map(|c| c * c).sum::<f64>() > 0.01
        })
        .prop_map(|q| DQuat::from_array(q).normalize())
}

/// A body with a tensor that is not diagonal, so that its ω changes as it turns.
fn body(position: DVec3, velocity: DVec3, orientation: DQuat, omega: DVec3) -> DRigidBody {
    let mut body = DRigidBody::new(3.0, Inertia::symmetric(2.0, 3.0, 4.0, 0.5, -0.3, 0.2));
    body.set_position(position);
    body.set_velocity(velocity);
    body.set_orientation(orientation);
    body.set_angular_velocity(omega);
    body
}

proptest! {
    #[test]
    fn velocity_at_a_point_is_the_rate_of_the_body_point(
        position in vector(10.0),
        velocity in vector(5.0),
        orientation in rotation(),
        omega in vector(3.0),
        point in vector(2.0),
    ) {
        // Follow the body point `point` (body coordinates) a moment forward and back in time
        // (free motion, integrated by RK4, whose error over h is O(h⁵)), and compare the
        // central difference of its world positions with v + ω × (p − x).
        let start = body(position, velocity, orientation, omega);
        let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
        let h = 1e-4;
        let at = |dt: f64| {
            let mut b = start;
            Rk4.step(&mut b, &free, 0.0, dt).unwrap();
            b.to_world_point(point)
        };
        let difference = (at(h) - at(-h)) / (2.0 * h);
        let velocity_at_point = start.velocity_at_point(start.to_world_point(point));
        // Central difference: O(h² |d³p/dt³|) ≈ 10⁻⁸ · ω³ r, plus rounding ε |p| / h.
        prop_assert!(
            difference.abs_diff_eq(velocity_at_point, 1e-6),
            "finite difference {difference}, velocity at point {velocity_at_point}"
        );
    }

    #[test]
    fn body_and_world_coordinates_convert_back_and_forth(
        position in vector(100.0),
        orientation in rotation(),
        point in vector(10.0),
    ) {
        let b = body(position, DVec3::ZERO, orientation, DVec3::ZERO);
        let world = b.to_world_point(point);
        prop_assert!(b.to_body_point(world).abs_diff_eq(point, 1e-12));
        prop_assert!(b.body_to_world().transform_point3(point).abs_diff_eq(world, 1e-12));
        prop_assert!(b.world_to_body().transform_point3(world).abs_diff_eq(point, 1e-12));
        // Directions ignore the position, and turn as the quaternion turns them.
        let direction = b.to_world_direction(point);
        prop_assert!(direction.abs_diff_eq(orientation * point, 1e-12));
        prop_assert!(b.to_body_direction(direction).abs_diff_eq(point, 1e-12));
        // Distances between points are kept (rigidity).
        let other = point + DVec3::new(0.3, -0.2, 0.1);
        let distance = (b.to_world_point(other) - world).length();
        prop_assert!((distance - (other - point).length()).abs() < 1e-12);
    }

    #[test]
    fn torque_of_a_force_at_a_point_is_r_cross_f(
        position in vector(10.0),
        arm in vector(3.0),
        force in vector(10.0),
    ) {
        let b = body(position, DVec3::ZERO, DQuat::IDENTITY, DVec3::ZERO);
        let (f, torque) = b.force_at_point(force, position + arm);
        prop_assert_eq!(f, force);
        prop_assert!(torque.abs_diff_eq(arm.cross(force), 1e-12));
        // The torque is perpendicular to both the arm and the force.
        prop_assert!(torque.dot(force).abs() < 1e-9 && torque.dot(arm).abs() < 1e-9);
    }
}
