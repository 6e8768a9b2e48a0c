//! The orientation stays a unit quaternion, with either orientation update, in either
//! precision, over a million steps.

use timestep::rigid::{Body, Inertia, OrientationUpdate, Precision, Quaternion, Vector3};
use timestep::{Integrator, SemiImplicitEuler};

/// The largest `| |q| − 1 |` over a million semi-implicit Euler steps at 60 Hz (4.6 hours)
/// of a body tumbling under a torque.
fn worst_norm_error<S: Precision>(update: OrientationUpdate) -> f64 {
    let mut body = Body::<S>::new(S::one(), Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_orientation_update(update);
    let c = |x: f64| S::from_f64(x);
    body.set_angular_velocity(S::Vec3::new(c(0.3), c(2.0), c(-1.1)));
    // A steady torque across the spin, damped: the spin axis keeps wandering.
    let wobble = |body: &Body<S>, _t: S| {
        let zero = S::Vec3::new(c(0.0), c(0.0), c(0.0));
        let torque = S::Vec3::new(c(0.5), c(0.0), c(-0.3)) - body.angular_velocity() * c(0.01);
        (zero, torque)
    };
    let dt = c(1.0 / 60.0);
    let mut worst = 0.0_f64;
    for i in 0..1_000_000 {
        SemiImplicitEuler
            .step(&mut body, &wobble, c(i as f64) * dt, dt)
            .unwrap();
        worst = worst.max((body.orientation().length().to_f64() - 1.0).abs());
    }
    worst
}

#[test]
fn unit_to_1e_minus_6_in_f32_additive() {
    let worst = worst_norm_error::<f32>(OrientationUpdate::Additive);
    println!("f32, additive: largest ||q| − 1| = {worst:e}");
    assert!(worst < 1e-6, "{worst:e}");
}

#[test]
fn unit_to_1e_minus_6_in_f32_exponential() {
    let worst = worst_norm_error::<f32>(OrientationUpdate::Exponential);
    println!("f32, exponential: largest ||q| − 1| = {worst:e}");
    assert!(worst < 1e-6, "{worst:e}");
}

#[test]
fn unit_to_1e_minus_12_in_f64_additive() {
    let worst = worst_norm_error::<f64>(OrientationUpdate::Additive);
    println!("f64, additive: largest ||q| − 1| = {worst:e}");
    assert!(worst < 1e-12, "{worst:e}");
}

#[test]
fn unit_to_1e_minus_12_in_f64_exponential() {
    let worst = worst_norm_error::<f64>(OrientationUpdate::Exponential);
    println!("f64, exponential: largest ||q| − 1| = {worst:e}");
    assert!(worst < 1e-12, "{worst:e}");
}
