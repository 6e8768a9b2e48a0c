//! The `serde` feature: states and settings survive a JSON round trip bit for bit, and
//! deserializing refuses what the constructors refuse.
//!
//! Run with `cargo test --features serde`.
#![cfg(feature = "serde")]

mod snapshots;

use glam::{DQuat, DVec3, Quat, Vec2, Vec3};
use serde::de::value::MapDeserializer;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate, RigidBody, Splitting};
use timestep::{
    BackwardEuler, Derivative, ExplicitEuler, FixedTimestep, Integrator, Method, MethodKind,
    NoVelocity, Overrun, Particle, PositionVerlet, Rk4, SemiImplicitEuler, Stepper, Structure,
    Verlet,
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
    // Unknown fields are refused, as on every type.
    let extra = r#"{"velocity":1.0,"force":2.0,"torque":3.0}"#;
    assert!(serde_json::from_str::<Derivative<f64, f64>>(extra).is_err());
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
        r#"{"tolerance":1e-9,"max_iterations":7,"structure":"dense","linear_forces":false}"#
    );
    let banded = BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 2 });
    assert_eq!(round_trip(&banded), banded);
    assert_eq!(
        serde_json::to_string(&banded).unwrap(),
        r#"{"tolerance":null,"max_iterations":20,"structure":{"banded":{"lower":1,"upper":2}},"linear_forces":false}"#
    );
    // Sparse is saved by name, in builds with or without the feature `sparse`.
    let sparse = BackwardEuler::new().with_structure(Structure::Sparse);
    assert_eq!(round_trip(&sparse), sparse);
    assert_eq!(
        serde_json::to_string(&sparse).unwrap(),
        r#"{"tolerance":null,"max_iterations":20,"structure":"sparse","linear_forces":false}"#
    );
    let linear = BackwardEuler::new().with_linear_forces();
    assert_eq!(round_trip(&linear), linear);
    assert!(round_trip(&linear).linear_forces());
    // Saved before the structure and the linear declaration existed: dense, not linear.
    let old: BackwardEuler =
        serde_json::from_str(r#"{"tolerance":null,"max_iterations":20}"#).unwrap();
    assert_eq!(old, BackwardEuler::default());
    // The unknowns of index 2 and 3, written only when set.
    let index_three = BackwardEuler::new().with_higher_index(2, 4);
    assert_eq!(round_trip(&index_three), index_three);
    assert_eq!(
        serde_json::to_string(&index_three).unwrap(),
        r#"{"tolerance":null,"max_iterations":20,"structure":"dense","linear_forces":false,"higher_index":{"index2":2,"index3":4}}"#
    );
    assert_eq!(
        index_three.with_settings(solver.settings()).higher_index(),
        (2, 4),
        "settings leave the index alone"
    );

    for bad in [
        r#"{"tolerance":-1.0,"max_iterations":7}"#,
        r#"{"tolerance":0.0,"max_iterations":7}"#,
        r#"{"tolerance":null,"max_iterations":0}"#,
        r#"{"tolerance":null,"max_iterations":20,"higher_index":{"index2":3,"index3":2}}"#,
    ] {
        assert!(serde_json::from_str::<BackwardEuler>(bad).is_err(), "{bad}");
    }
}

/// A stepper with a workspace is saved with it: position Verlet's memory of the last step
/// goes along, and the loaded stepper goes on bit for bit.
#[test]
fn a_loaded_position_verlet_goes_on_bit_for_bit() {
    let spring = |p: &Particle<f64>, _t: f64| -10.0 * p.position();
    let mut integrator = PositionVerlet::new();
    assert_eq!(serde_json::to_string(&integrator).unwrap(), "null");
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    for i in 0..10 {
        integrator
            .step(&mut particle, &spring, f64::from(i) * 0.01, 0.01)
            .unwrap();
    }
    let json = serde_json::to_string(&integrator).unwrap();
    assert!(
        json.starts_with(r#"{"method":null,"workspace":{"memory":[0.01,"#),
        "{json}"
    );
    let mut restored: Stepper<PositionVerlet, Particle<f64>> = round_trip(&integrator);
    assert!(restored.workspace().is_some());
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
    for method in MethodKind::all()
        .into_iter()
        .map(Method::<Particle<f64>>::new)
    {
        let json = serde_json::to_string(&method).unwrap();
        assert!(json.contains(&format!("\"{method}\"")), "{json}");
        assert_eq!(round_trip(&method), method);
    }
    assert_eq!(
        serde_json::to_string(&MethodKind::Rk4(Rk4)).unwrap(),
        r#""rk4""#
    );
    assert_eq!(
        serde_json::from_str::<MethodKind>(r#""rk4""#).unwrap(),
        MethodKind::Rk4(Rk4)
    );
    // Settings other than the defaults are kept.
    let tight = MethodKind::BackwardEuler(BackwardEuler::new().with_tolerance(1e-12));
    let json = serde_json::to_string(&tight).unwrap();
    assert!(
        json.starts_with(r#"{"backward-euler":{"tolerance":1e-12"#),
        "{json}"
    );
    assert_eq!(round_trip(&tight), tight);
    for bad in [r#""rk5""#, r#"{"rk4":null,"verlet":null}"#, "3"] {
        assert!(serde_json::from_str::<MethodKind>(bad).is_err(), "{bad}");
    }
}

#[test]
fn fixed_timestep_round_trips_mid_game_and_is_checked() {
    let mut clock = FixedTimestep::new(1.0 / 60.0).with_max_steps(5);
    for frame_time in [0.013, 0.021, 0.4, 0.007] {
        let _ = clock.advance(frame_time).unwrap();
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
    // Behind after a hitch, carrying time and counting what the budget cost.
    let mut carrying = FixedTimestep::new(1.0 / 64.0)
        .with_max_steps(4)
        .with_overrun(Overrun::Carry { limit: 0.25 });
    let _ = carrying.advance(1.0).unwrap();
    let mut restored = round_trip(&carrying);
    assert_eq!(restored, carrying);
    assert_eq!(
        restored.advance(0.01).unwrap(),
        carrying.advance(0.01).unwrap()
    );

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
        // more than a whole step left in the accumulator (exactly one, as a parser that
        // rounds the last digit reads dt − 1 ulp, is taken as dt − 1 ulp)
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"accumulator":0.3,"steps_taken":0}"#,
        // negative accumulator
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"accumulator":-0.1,"steps_taken":0}"#,
        // more carried than the limit allows
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"overrun":{"Carry":{"limit":0.5}},"accumulator":0.8,"steps_taken":0}"#,
        // a negative carry limit
        r#"{"dt":0.25,"max_frame_time":0.5,"max_steps":2,"overrun":{"Carry":{"limit":-0.5}},"accumulator":0.0,"steps_taken":0}"#,
    ] {
        assert!(serde_json::from_str::<FixedTimestep>(bad).is_err(), "{bad}");
    }
}

/// A double-precision body with a turned tensor, the exponential update, pushed at a corner
/// and spun for a while, so that no quantity is a round number.
fn pushed_body() -> DRigidBody {
    let mut body = DRigidBody::new(3.0, Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3));
    body.set_orientation_update(OrientationUpdate::Exponential);
    body.set_position(DVec3::new(1.0, -2.0, 0.5));
    body.set_orientation(DQuat::from_euler(glam::EulerRot::XYZ, 0.3, -1.1, 2.0));
    body.set_velocity(DVec3::new(0.5, 4.0, -1.0));
    body.set_angular_velocity(DVec3::new(0.4, 3.0, -0.7));
    for i in 0..30 {
        Rk4.step(&mut body, &push::<f64>, f64::from(i) / 60.0, 1.0 / 60.0)
            .unwrap();
    }
    body
}

/// A force at a corner of the body, changing with time, in either precision.
fn push<S: timestep::rigid::Precision>(
    body: &timestep::rigid::Body<S>,
    t: S,
) -> (S::Vec3, S::Vec3) {
    use timestep::rigid::Vector3;
    let c = |x: f64| S::from_f64(x);
    let corner = body.to_world_point(S::Vec3::new(c(0.5), c(0.5), c(0.5)));
    body.force_at_point(S::Vec3::new(t.sin(), c(-9.81), c(1.0)), corner)
}

#[test]
fn rigid_bodies_round_trip_exactly_and_keep_stepping_the_same() {
    let body = pushed_body();
    let back = round_trip(&body);
    assert_eq!(back, body);
    let (mut a, mut b) = (body, back);
    for i in 30..130 {
        let t = f64::from(i) / 60.0;
        Splitting.step(&mut a, &push::<f64>, t, 1.0 / 60.0).unwrap();
        Splitting.step(&mut b, &push::<f64>, t, 1.0 / 60.0).unwrap();
    }
    assert_eq!(a, b);

    // Single precision: its constants are those of its f32 tensor, so they come back too.
    let mut body = RigidBody::new(0.7, Inertia::symmetric(1.0, 2.0, 2.5, 0.1, -0.2, 0.3));
    body.set_velocity(Vec3::new(0.1, 0.2, 0.3));
    body.set_angular_velocity(Vec3::new(1.0, -2.0, 0.5));
    for i in 0..30 {
        Rk4.step(&mut body, &push::<f32>, i as f32 / 60.0, 1.0 / 60.0)
            .unwrap();
    }
    let back = round_trip(&body);
    assert_eq!(back, body);
    let (mut a, mut b) = (body, back);
    for i in 30..130 {
        let t = i as f32 / 60.0;
        Rk4.step(&mut a, &push::<f32>, t, 1.0 / 60.0).unwrap();
        Rk4.step(&mut b, &push::<f32>, t, 1.0 / 60.0).unwrap();
    }
    assert_eq!(a, b);

    // Shapes whose f32 tensor is rounded: a cube (1/6) and a flat plate (0.1, 0.2, 0.3).
    for inertia in [Inertia::cube(1.0, 1.0), Inertia::diagonal(0.1, 0.2, 0.3)] {
        let body = RigidBody::new(1.0, inertia);
        assert_eq!(round_trip(&body), body);
    }
}

#[test]
fn rigid_body_json_names_its_fields() {
    let mut body = DRigidBody::new(2.0, Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_velocity(DVec3::new(0.5, 0.0, 0.0));
    let json = serde_json::to_string(&body).unwrap();
    assert_eq!(
        json,
        concat!(
            r#"{"mass":2.0,"#,
            r#""inertia":{"ixx":1.0,"iyy":2.0,"izz":3.0,"ixy":0.0,"ixz":0.0,"iyz":0.0},"#,
            r#""orientation_update":"additive","#,
            r#""position":[0.0,0.0,0.0],"momentum":[1.0,0.0,0.0],"#,
            r#""orientation":[0.0,0.0,0.0,1.0],"angular_momentum":[0.0,0.0,0.0]}"#
        )
    );
    // By hand: the off-diagonal entries and the orientation update may be left out.
    let by_hand = r#"{"mass":2.0,"inertia":{"ixx":1.0,"iyy":2.0,"izz":3.0},
        "position":[0.0,0.0,0.0],"momentum":[1.0,0.0,0.0],
        "orientation":[0.0,0.0,0.0,1.0],"angular_momentum":[0.0,0.0,0.0]}"#;
    assert_eq!(serde_json::from_str::<DRigidBody>(by_hand).unwrap(), body);
    let f32_body: RigidBody = serde_json::from_str(by_hand).unwrap();
    assert_eq!(f32_body.velocity(), Vec3::new(0.5, 0.0, 0.0));
    assert_eq!(f32_body.orientation(), Quat::IDENTITY);
}

/// The JSON of a body at rest, with `field` replaced by `value`.
fn body_json(field: &str, value: &str) -> String {
    let mut fields = vec![
        ("mass", "2.0"),
        ("inertia", r#"{"ixx":1.0,"iyy":2.0,"izz":3.0}"#),
        ("orientation_update", r#""additive""#),
        ("position", "[0.0,0.0,0.0]"),
        ("momentum", "[0.0,0.0,0.0]"),
        ("orientation", "[0.0,0.0,0.0,1.0]"),
        ("angular_momentum", "[0.0,0.0,0.0]"),
    ];
    for (name, v) in &mut fields {
        if *name == field {
            *v = value;
        }
    }
    let body: Vec<String> = fields
        .iter()
        .map(|(name, v)| format!(r#""{name}":{v}"#))
        .collect();
    format!("{{{}}}", body.join(","))
}

#[test]
fn deserializing_a_rigid_body_checks_mass_inertia_and_orientation() {
    assert!(serde_json::from_str::<DRigidBody>(&body_json("mass", "2.0")).is_ok());
    let refused = [
        ("mass", "0.0", "mass must be positive"),
        ("mass", "-1.0", "mass must be positive"),
        (
            "inertia",
            r#"{"ixx":1.0,"iyy":1.0,"izz":3.0}"#,
            "physically impossible",
        ),
        (
            "inertia",
            r#"{"ixx":1.0,"iyy":1.0,"izz":1.0,"ixy":2.0}"#,
            "positive definite",
        ),
        ("inertia", r#"{"ixx":1.0,"iyy":2.0}"#, "missing field `izz`"),
        (
            "inertia",
            r#"{"ixx":1.0,"iyy":2.0,"izz":3.0,"iyx":0.5}"#,
            "unknown field `iyx`",
        ),
        ("orientation", "[0.0,0.0,0.0,2.0]", "unit quaternion"),
        ("orientation", "[0.0,0.0,0.0,0.0]", "unit quaternion"),
        ("orientation", "[0.0,0.0,0.7071,0.7071]", "unit quaternion"),
        (
            "orientation_update",
            r#""sideways""#,
            "unknown variant `sideways`",
        ),
    ];
    for (field, value, message) in refused {
        let json = body_json(field, value);
        for error in [
            serde_json::from_str::<DRigidBody>(&json).unwrap_err(),
            serde_json::from_str::<RigidBody>(&json).unwrap_err(),
        ] {
            assert!(error.to_string().contains(message), "{json}: {error}");
        }
    }
    // An inertia tensor that fits f64 but whose inverse does not fit f32.
    let tiny = body_json("inertia", r#"{"ixx":1e-39,"iyy":1e-39,"izz":1e-39}"#);
    assert!(serde_json::from_str::<DRigidBody>(&tiny).is_ok());
    let error = serde_json::from_str::<RigidBody>(&tiny).unwrap_err();
    assert!(
        error.to_string().contains("cannot be inverted in f32"),
        "{error}"
    );
    // A field the body does not have.
    let extra = body_json("mass", r#"2.0,"velocity":[1.0,0.0,0.0]"#);
    assert!(serde_json::from_str::<DRigidBody>(&extra).is_err());
}

#[test]
fn inertia_round_trips_exactly_and_is_checked() {
    for inertia in [
        Inertia::cube(1.0, 1.0),
        Inertia::cylinder(3.0, 0.2, 1.5),
        Inertia::symmetric(2.0, 3.0, 4.0, 0.5, -0.25, 0.1),
    ] {
        assert_eq!(round_trip(&inertia), inertia);
    }
    assert_eq!(
        serde_json::from_str::<Inertia>(r#"{"ixx":1.0,"iyy":2.0,"izz":3.0}"#).unwrap(),
        Inertia::diagonal(1.0, 2.0, 3.0)
    );
    let error = serde_json::from_str::<Inertia>(r#"{"ixx":1.0,"iyy":1.0,"izz":3.0}"#)
        .unwrap_err()
        .to_string();
    assert!(
        error.starts_with("inertia tensor is physically impossible: principal moment 3"),
        "{error}"
    );
    // JSON has no infinity or NaN; serde's own map deserializer does.
    let fields = [("ixx", 1.0), ("iyy", f64::NAN), ("izz", 1.0)];
    let deserializer = MapDeserializer::<_, serde::de::value::Error>::new(fields.into_iter());
    let error = Inertia::deserialize(deserializer).unwrap_err();
    assert!(
        error.to_string().contains("entry iyy must be finite"),
        "{error}"
    );
}

#[test]
fn rigid_settings_round_trip() {
    assert_eq!(round_trip(&Splitting), Splitting);
    for update in [OrientationUpdate::Additive, OrientationUpdate::Exponential] {
        assert_eq!(round_trip(&update), update);
    }
    assert_eq!(
        serde_json::to_string(&OrientationUpdate::Exponential).unwrap(),
        r#""exponential""#
    );
}

/// The other implicit methods save their Newton settings as backward Euler does, and
/// Newmark its parameters too; what the constructors refuse does not load.
#[test]
fn implicit_method_settings_round_trip_and_are_checked() {
    let trapezoid = timestep::Trapezoid::new().with_tolerance(1e-10);
    assert_eq!(round_trip(&trapezoid), trapezoid);
    assert_eq!(
        serde_json::to_string(&trapezoid).unwrap(),
        r#"{"tolerance":1e-10,"max_iterations":20,"structure":"dense","linear_forces":false}"#
    );
    let midpoint = timestep::ImplicitMidpoint::new().with_max_iterations(4);
    assert_eq!(round_trip(&midpoint), midpoint);
    let newmark = timestep::Newmark::linear_acceleration()
        .with_structure(Structure::Banded { lower: 1, upper: 1 })
        .with_linear_forces();
    assert_eq!(round_trip(&newmark), newmark);
    let json = serde_json::to_string(&timestep::Newmark::new()).unwrap();
    assert_eq!(
        json,
        r#"{"beta":0.25,"gamma":0.5,"tolerance":null,"max_iterations":20,"structure":"dense","linear_forces":false}"#
    );
    for bad in [
        r#"{"beta":0.25,"gamma":0.0,"tolerance":null,"max_iterations":20}"#,
        r#"{"beta":-0.1,"gamma":0.5,"tolerance":null,"max_iterations":20}"#,
        r#"{"beta":0.25,"gamma":0.5,"tolerance":-1.0,"max_iterations":20}"#,
        r#"{"beta":0.25,"gamma":0.5,"tolerance":null,"max_iterations":0}"#,
        r#"{"beta":0.25,"gamma":0.5,"tolerance":null,"max_iterations":20,"alpha":0.1}"#,
    ] {
        assert!(
            serde_json::from_str::<timestep::Newmark>(bad).is_err(),
            "{bad}"
        );
    }
    assert!(
        serde_json::from_str::<timestep::Trapezoid>(r#"{"tolerance":0.0,"max_iterations":3}"#)
            .is_err()
    );

    // As a `MethodKind`: the name alone at the defaults, a map otherwise.
    let linear = MethodKind::Newmark(timestep::Newmark::linear_acceleration());
    let json = serde_json::to_string(&linear).unwrap();
    assert!(
        json.starts_with(r#"{"newmark":{"beta":0.16666666666666666"#),
        "{json}"
    );
    assert_eq!(round_trip(&linear), linear);
    for name in ["trapezoid", "implicit-midpoint", "newmark"] {
        let kind: MethodKind = name.parse().unwrap();
        assert_eq!(serde_json::to_string(&kind).unwrap(), format!("\"{name}\""));
    }
}

/// Radau5's settings round trip, alone and as a `MethodKind` (a map from its name when
/// they are not the defaults), and settings its builders refuse are refused on loading.
#[test]
fn radau5_settings_round_trip_and_are_checked() {
    let banded = timestep::Radau5::new()
        .with_structure(timestep::Structure::Banded { lower: 1, upper: 2 })
        .with_tolerance(0.01)
        .with_max_iterations(10);
    assert_eq!(round_trip(&banded), banded);
    let index_three = timestep::Radau5::new().with_higher_index(2, 4);
    assert_eq!(round_trip(&index_three), index_three);
    let json = serde_json::to_string(&timestep::Radau5::new()).unwrap();
    assert_eq!(
        json,
        r#"{"tolerance":null,"max_iterations":7,"structure":"dense"}"#
    );
    for bad in [
        r#"{"tolerance":0.0,"max_iterations":7}"#,
        r#"{"tolerance":null,"max_iterations":0}"#,
        r#"{"tolerance":null,"max_iterations":7,"nit":7}"#,
        r#"{"tolerance":null,"max_iterations":7,"higher_index":{"index2":3,"index3":2}}"#,
    ] {
        assert!(
            serde_json::from_str::<timestep::Radau5>(bad).is_err(),
            "{bad}"
        );
    }
    let kind = MethodKind::Radau5(banded);
    let json = serde_json::to_string(&kind).unwrap();
    assert!(json.starts_with(r#"{"radau5":{"tolerance":0.01"#), "{json}");
    assert_eq!(round_trip(&kind), kind);
    let default: MethodKind = "radau5".parse().unwrap();
    assert_eq!(serde_json::to_string(&default).unwrap(), "\"radau5\"");
}

/// A controller round-trips with its predictive term, and one saved before the term
/// existed (no `predictive` field) loads without it: the classical controller it was.
#[test]
fn controllers_round_trip_and_load_without_the_prediction() {
    use timestep::control::Controller;
    for controller in [Controller::DOPRI5, Controller::DOP853, Controller::RODAS] {
        assert_eq!(round_trip(&controller), controller);
    }
    let saved = r#"{"safety":0.9,"min_factor":0.2,"max_factor":6.0,"beta":0.0}"#;
    let loaded: Controller = serde_json::from_str(saved).unwrap();
    assert_eq!(
        loaded,
        Controller {
            predictive: false,
            ..Controller::RODAS
        }
    );
    let json = serde_json::to_string(&Controller::RODAS).unwrap();
    assert!(json.contains(r#""predictive":true"#), "{json}");
}
