//! The `serde` feature: states and settings survive a JSON round trip bit for bit, and
//! deserializing refuses what the constructors refuse.
//!
//! Run with `cargo test --features serde`.
#![cfg(feature = "serde")]

use glam::{DQuat, DVec3, Vec2};
use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use timestep::{
    BackwardEuler, Derivative, ExplicitEuler, FixedTimestep, Integrator, Method, NoVelocity,
    Particle, PositionVerlet, Rk4, SemiImplicitEuler, Verlet,
};

fn round_trip<T: Serialize + DeserializeOwned>(value: &T) -> T {
    let json = serde_json::to_string(value).expect("serializes");
    serde_json::from_str(&json).unwrap_or_else(|e| panic!("{json} does not deserialize: {e}"))
}

/// A particle moved by a few kicks, so that its velocity is `p / m` and its momentum is not
/// `m v` to the bit.
fn kicked_particle() -> Particle<DVec3> {
    let mut particle = Particle::new(3.0, DVec3::new(0.1, -0.2, 0.3), DVec3::new(0.7, 0.0, -1.1));
    let spring = |p: &Particle<DVec3>, _t: f64| -15.0 * p.position() + DVec3::new(0.0, -9.81, 0.0);
    for i in 0..7 {
        SemiImplicitEuler
            .step(&mut particle, &spring, f64::from(i) * 0.1, 0.1)
            .unwrap();
    }
    particle
}

#[test]
fn particles_round_trip_exactly_and_keep_stepping_the_same() {
    let particle = kicked_particle();
    let back = round_trip(&particle);
    assert_eq!(back, particle);

    // A freshly made one, whose velocity was given rather than computed from momentum.
    let fresh = Particle::new(0.3_f32, Vec2::new(1.0, 2.0), Vec2::new(0.1, 0.7));
    assert_eq!(round_trip(&fresh), fresh);
    let line = Particle::new(7.0_f64, 1.0 / 3.0, -2.0 / 3.0);
    assert_eq!(round_trip(&line), line);

    // What matters for a saved game: the future is the same too.
    let gravity = |_: &Particle<DVec3>, _t: f64| DVec3::new(0.0, -9.81, 0.0);
    let (mut a, mut b) = (particle, back);
    for i in 0..100 {
        let t = f64::from(i) * 0.01;
        ExplicitEuler.step(&mut a, &gravity, t, 0.01).unwrap();
        ExplicitEuler.step(&mut b, &gravity, t, 0.01).unwrap();
    }
    assert_eq!(a, b);
}

#[test]
fn particle_json_names_its_fields() {
    let json = serde_json::to_string(&Particle::new(2.0, 1.0, 0.5)).unwrap();
    assert_eq!(
        json,
        r#"{"mass":2.0,"position":1.0,"momentum":1.0,"velocity":0.5}"#
    );
}

#[test]
fn deserializing_a_particle_checks_the_mass() {
    for mass in ["0.0", "-1.0"] {
        let json = format!(r#"{{"mass":{mass},"position":1.0,"momentum":0.0,"velocity":0.0}}"#);
        let error = serde_json::from_str::<Particle<f64>>(&json).unwrap_err();
        assert!(
            error.to_string().contains("mass must be positive"),
            "{error}"
        );
    }
    // JSON has no infinity or NaN, so those come through serde's own map deserializer.
    for mass in [f64::INFINITY, f64::NAN] {
        let fields = [
            ("mass", mass),
            ("position", 1.0),
            ("momentum", 0.0),
            ("velocity", 0.0),
        ];
        let deserializer = MapDeserializer::<_, serde::de::value::Error>::new(fields.into_iter());
        let error = Particle::<f64>::deserialize(deserializer).unwrap_err();
        assert!(error.to_string().contains("mass must be finite"), "{error}");
    }
}

#[test]
fn deserializing_a_particle_checks_velocity_against_momentum() {
    let json = r#"{"mass":2.0,"position":1.0,"momentum":4.0,"velocity":2.0}"#;
    assert_eq!(
        serde_json::from_str::<Particle<f64>>(json)
            .unwrap()
            .momentum(),
        4.0
    );
    let stale = r#"{"mass":2.0,"position":1.0,"momentum":4.0,"velocity":2.5}"#;
    let error = serde_json::from_str::<Particle<f64>>(stale).unwrap_err();
    assert!(
        error.to_string().contains("velocity does not match"),
        "{error}"
    );
    let missing = r#"{"mass":2.0,"position":1.0,"momentum":4.0}"#;
    assert!(serde_json::from_str::<Particle<f64>>(missing).is_err());
}

#[test]
fn first_order_states_and_derivatives_round_trip() {
    let rate = Derivative::new(
        DVec3::new(1.0 / 3.0, 2.0, -0.1),
        DVec3::new(0.0, -9.81, 1e-300),
    );
    assert_eq!(round_trip(&rate), rate);
    let spin = Derivative::new(
        NoVelocity::<f64>::default(),
        DQuat::from_xyzw(0.1, 0.2, 0.3, 0.4),
    );
    assert_eq!(round_trip(&spin), spin);
    let y = [1.0 / 7.0, 2.0 / 7.0, 3.0 / 7.0];
    assert_eq!(round_trip(&y), y);
}

#[test]
fn unit_integrators_round_trip() {
    assert_eq!(round_trip(&ExplicitEuler), ExplicitEuler);
    assert_eq!(round_trip(&Rk4), Rk4);
    assert_eq!(round_trip(&Verlet), Verlet);
}

#[test]
fn backward_euler_settings_round_trip_and_are_checked() {
    let solver: BackwardEuler = BackwardEuler::new()
        .with_tolerance(1e-9)
        .with_max_iterations(7);
    assert_eq!(round_trip(&solver), solver);
    assert_eq!(
        serde_json::to_string(&solver).unwrap(),
        r#"{"tolerance":1e-9,"max_iterations":7}"#
    );
    let default: BackwardEuler<4> = BackwardEuler::default();
    assert_eq!(round_trip(&default), default);

    for bad in [
        r#"{"tolerance":-1.0,"max_iterations":7}"#,
        r#"{"tolerance":0.0,"max_iterations":7}"#,
        r#"{"tolerance":null,"max_iterations":0}"#,
    ] {
        assert!(serde_json::from_str::<BackwardEuler>(bad).is_err(), "{bad}");
    }
}

#[test]
fn position_verlet_keeps_its_memory_through_a_round_trip() {
    let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
    let mut integrator = PositionVerlet::new();
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    for i in 0..10 {
        integrator
            .step(&mut particle, &spring, f64::from(i) * 0.01, 0.01)
            .unwrap();
    }
    let mut restored = round_trip(&integrator);
    assert_eq!(restored, integrator);
    let mut copy = round_trip(&particle);
    for i in 10..100 {
        let t = f64::from(i) * 0.01;
        integrator.step(&mut particle, &spring, t, 0.01).unwrap();
        restored.step(&mut copy, &spring, t, 0.01).unwrap();
    }
    assert_eq!(copy, particle);
}

#[test]
fn methods_round_trip_by_kebab_case_name() {
    for method in Method::<Particle<f64>>::all() {
        let json = serde_json::to_string(&method).unwrap();
        assert!(json.contains(&format!("\"{method}\"")), "{json}");
        assert_eq!(round_trip(&method), method);
    }
    assert_eq!(
        serde_json::to_string(&Method::<f64>::Rk4(Rk4)).unwrap(),
        r#"{"rk4":null}"#
    );
}

#[test]
fn fixed_timestep_round_trips_mid_game_and_is_checked() {
    let mut clock = FixedTimestep::new(1.0 / 60.0).with_max_steps(5);
    for frame_time in [0.013, 0.021, 0.4, 0.007] {
        clock.advance(frame_time).unwrap();
    }
    let mut restored = round_trip(&clock);
    assert_eq!(restored, clock);
    // It goes on exactly as the original does.
    for frame_time in [0.016, 0.05, 0.001] {
        assert_eq!(
            restored.advance(frame_time).unwrap(),
            clock.advance(frame_time).unwrap()
        );
    }
    let f32_clock = FixedTimestep::new(0.01_f32);
    assert_eq!(round_trip(&f32_clock), f32_clock);

    let good =
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"accumulator":0.125,"steps_taken":3}"#;
    let clock: FixedTimestep = serde_json::from_str(good).unwrap();
    assert_eq!((clock.steps_taken(), clock.alpha()), (3, 0.5));
    for bad in [
        // dt not positive
        r#"{"dt":0.0,"max_frame_time":0.5,"max_steps":2,"accumulator":0.0,"steps_taken":0}"#,
        // cap not positive
        r#"{"dt":0.25,"max_frame_time":-0.5,"max_steps":2,"accumulator":0.0,"steps_taken":0}"#,
        // no step allowed
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":0,"accumulator":0.0,"steps_taken":0}"#,
        // more steps than the cap holds
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":3,"accumulator":0.0,"steps_taken":0}"#,
        // a whole step or more left in the accumulator
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"accumulator":0.25,"steps_taken":0}"#,
        // negative accumulator
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"accumulator":-0.1,"steps_taken":0}"#,
    ] {
        assert!(serde_json::from_str::<FixedTimestep>(bad).is_err(), "{bad}");
    }
}
