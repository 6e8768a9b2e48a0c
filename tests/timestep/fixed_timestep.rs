//! `FixedTimestep`: the physics is the same whatever the frame rate, the spiral of death is
//! capped, and `α` stays in `[0, 1)`.

use glam::{DQuat, DVec2, DVec3, Vec3};
use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate, Splitting};
use timestep::{
    FixedTimestep, FixedTimestepError, Forces, Integrator, Interpolate, Overrun, Particle, Rk4,
    Scalar, SemiImplicitEuler, State, Verlet,
};

/// A tiny xorshift64 generator: fixed, reproducible frame times without a crate.
struct XorShift(u64);

impl XorShift {
    fn next_unit(&mut self) -> f64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        (self.0 >> 11) as f64 / (1_u64 << 53) as f64
    }
}

/// Frame times of a few kinds: steady 60 Hz, steady 144 Hz, jittery 20–200 Hz with
/// occasional half-second hitches (beyond the 0.25 s cap), and a slow 7 Hz.
fn frame_sequences() -> Vec<(&'static str, Vec<f64>)> {
    let mut random = XorShift(0x9E37_79B9_7F4A_7C15);
    let jittery = (0..400)
        .map(|i| {
            if i % 97 == 13 {
                0.5
            } else {
                0.005 + 0.045 * random.next_unit()
            }
        })
        .collect();
    vec![
        ("60 Hz", vec![1.0 / 60.0; 600]),
        ("144 Hz", vec![1.0 / 144.0; 1500]),
        ("jittery", jittery),
        ("7 Hz", vec![1.0 / 7.0; 70]),
    ]
}

/// Runs `integrator` under `clock` through `frames`, recording the state after every step.
fn history<S, I, F>(
    mut clock: FixedTimestep<S::Scalar>,
    mut integrator: I,
    start: S,
    forces: &F,
    frames: &[f64],
) -> Vec<S>
where
    S: State,
    I: Integrator<S>,
    F: Forces<S>,
{
    let mut current = start;
    let mut states = Vec::new();
    for &frame_time in frames {
        let frame = clock.advance(frame_time).unwrap();
        for t in frame.times() {
            integrator
                .step(&mut current, forces, t, frame.dt())
                .unwrap();
            states.push(current.clone());
        }
    }
    assert_eq!(states.len() as u64, clock.steps_taken());
    states
}

/// The same integrator stepped `n` times in a plain loop, `t = k · dt`.
fn reference<S, I, F>(mut integrator: I, start: S, forces: &F, dt: S::Scalar, n: usize) -> Vec<S>
where
    S: State,
    I: Integrator<S>,
    F: Forces<S>,
{
    let mut current = start;
    (0..n)
        .map(|k| {
            let t = <S::Scalar as Scalar>::from_f64(k as f64 * <S::Scalar as Scalar>::to_f64(dt));
            integrator.step(&mut current, forces, t, dt).unwrap();
            current.clone()
        })
        .collect()
}

#[test]
fn a_driven_spring_lands_on_bit_identical_states_at_any_frame_rate() {
    // Time-dependent forces, so that a wrong `t` would show.
    let driven = |p: &Particle<f64>, t: f64| -15.0 * p.position() - 0.1 * p.velocity() + t.sin();
    let start = Particle::new(1.0, 1000.0, 0.0);
    let dt = 1.0 / 100.0;
    let plain = reference(Verlet, start, &driven, dt, 2000);
    for (name, frames) in frame_sequences() {
        let states = history(FixedTimestep::new(dt), Verlet, start, &driven, &frames);
        assert!(states.len() > 500, "{name}: only {} steps", states.len());
        for (k, (a, b)) in states.iter().zip(&plain).enumerate() {
            // Bit for bit: `==` on every field, and the same bits even for -0.0.
            assert_eq!(a, b, "{name}: step {k}");
            assert_eq!(a.position().to_bits(), b.position().to_bits());
        }
    }
}

#[test]
fn f32_vectors_too() {
    let gravity_and_drag =
        |p: &Particle<Vec3>, _t: f32| Vec3::new(0.0, -9.81, 0.0) * p.mass() - 0.3 * p.velocity();
    let start = Particle::new(2.0, Vec3::ZERO, Vec3::new(3.0, 12.0, -1.0));
    let dt = 1.0_f32 / 60.0;
    let plain = reference(Rk4, start, &gravity_and_drag, dt, 2000);
    for (name, frames) in frame_sequences() {
        let states = history(
            FixedTimestep::new(dt),
            Rk4,
            start,
            &gravity_and_drag,
            &frames,
        );
        assert_eq!(states[..], plain[..states.len()], "{name}");
    }
}

/// Time beyond the budget carried to later frames: on every frame sequence, with steps
/// of 1/64 s (exact in binary) and at most 4 a frame, each frame runs at most its budget,
/// real time is accounted for to the last bit (simulated + carried + drawn fraction +
/// dropped = counted), and the simulation is never more than the limit behind.
#[test]
fn carried_time_is_caught_up_within_the_budget() {
    let dt = 1.0 / 64.0;
    for limit in [0.0, 0.25, 10.0] {
        for (name, frames) in frame_sequences() {
            let mut clock = FixedTimestep::new(dt)
                .with_max_steps(4)
                .with_overrun(Overrun::Carry { limit });
            let (mut real, mut dropped, mut over) = (0.0, 0.0, 0);
            for &frame_time in &frames {
                let frame = clock.advance(frame_time).unwrap();
                assert!(frame.steps() <= 4, "{name}");
                assert!(frame.behind() <= limit, "{name}: {}", frame.behind());
                assert_eq!(frame.behind(), clock.behind());
                real += frame_time;
                dropped += frame.dropped_time();
                over += u64::from(frame.dropped_time() > 0.0 || frame.behind() > 0.0);
                let accounted = clock.time() + clock.accumulator() + clock.dropped_time();
                assert!(
                    (accounted - real).abs() < 1e-9,
                    "{name}: {accounted} vs {real}"
                );
            }
            assert_eq!(clock.dropped_time(), dropped, "{name}");
            assert_eq!(clock.frames_over_budget(), over, "{name}");
            // 4 steps of 1/64 s a frame keep up with any frame up to 1/16 s: only the
            // slow 7 Hz frames and the jittery ones fall behind.
            assert_eq!(
                over > 0,
                matches!(name, "7 Hz" | "jittery"),
                "{name}: {over}"
            );
            if limit == 10.0 {
                assert_eq!(
                    clock.dropped_time(),
                    0.0,
                    "{name}: nothing beyond the limit"
                );
            }
        }
    }
}

/// A hitch beyond the carry limit: a second-long frame at 4 steps of 1/64 s a frame with
/// 0.25 s carried at most runs 4 steps, carries 0.25 s (16 steps) and drops the other
/// 0.6875 s; the next 16/3 frames catch up.
#[test]
fn a_hitch_beyond_the_carry_limit_is_dropped_in_whole_steps() {
    let dt = 1.0 / 64.0;
    let mut clock = FixedTimestep::new(dt)
        .with_max_steps(4)
        .with_overrun(Overrun::Carry { limit: 0.25 });
    let frame = clock.advance(1.0).unwrap();
    assert_eq!(
        (frame.steps(), frame.behind(), frame.dropped_time()),
        (4, 0.25, 0.6875)
    );
    let mut catching_up = 0;
    while clock.behind() > 0.0 {
        let _ = clock.advance(dt).unwrap();
        catching_up += 1;
    }
    assert_eq!(catching_up, 6); // 16 steps behind, 3 caught up a frame
    assert_eq!(clock.frames_over_budget(), 6);
    clock.reset();
    assert_eq!(
        (
            clock.dropped_time(),
            clock.frames_over_budget(),
            clock.behind()
        ),
        (0.0, 0, 0.0)
    );
    assert_eq!(clock.overrun(), Overrun::Carry { limit: 0.25 });
    for bad in [-1.0, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            clock.try_with_overrun(Overrun::Carry { limit: bad }),
            Err(FixedTimestepError::InvalidCarryLimit(_))
        ));
    }
}

#[test]
fn steps_are_capped_and_alpha_stays_below_one() {
    for (name, frames) in frame_sequences() {
        let dt = 1.0 / 60.0;
        let mut clock = FixedTimestep::new(dt);
        let (mut counted, mut dropped) = (0.0, 0.0);
        for &frame_time in &frames {
            let frame = clock.advance(frame_time).unwrap();
            assert!(frame.steps() <= 15, "{name}: {} steps", frame.steps());
            assert!((0.0..1.0).contains(&frame.alpha()), "{name}");
            assert_eq!(frame.alpha(), clock.alpha());
            counted += frame_time - frame.dropped_time();
            dropped += frame.dropped_time();
            // Real time counted = simulated time + what is waiting in the accumulator.
            let waiting = clock.alpha() * dt;
            assert!((clock.time() + waiting - counted).abs() < 1e-9, "{name}");
        }
        if name == "jittery" {
            // Four hitches of 0.5 s (frames 13, 110, 207, 304), each capped at 0.25 s.
            assert!((dropped - 4.0 * 0.25).abs() < 1e-12, "{dropped}");
        } else {
            assert_eq!(dropped, 0.0, "{name}");
        }
    }
}

#[test]
fn f32_alpha_never_rounds_up_to_one() {
    let dt = 0.1_f32;
    let mut clock = FixedTimestep::new(dt);
    // Just short of one whole step, closer to it than f32 can tell apart.
    let frame = clock.advance(f64::from(dt) * (1.0 - 1e-12)).unwrap();
    assert_eq!(frame.steps(), 0);
    assert!(frame.alpha() < 1.0);
    assert_eq!(frame.alpha(), 1.0 - f32::EPSILON / 2.0);
}

#[test]
fn a_frame_of_exactly_dt_runs_exactly_one_step() {
    let mut clock = FixedTimestep::new(1.0 / 60.0);
    for _ in 0..10_000 {
        let frame = clock.advance(1.0 / 60.0).unwrap();
        assert_eq!((frame.steps(), frame.alpha()), (1, 0.0));
    }
}

#[test]
fn bad_frame_times_are_refused_and_change_nothing() {
    let mut clock = FixedTimestep::new(0.01_f64);
    let _ = clock.advance(0.015).unwrap();
    let before = clock;
    for bad in [-1e-9, -1.0, f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let error = clock.advance(bad).unwrap_err();
        assert!(matches!(error, FixedTimestepError::InvalidFrameTime(_)));
        assert_eq!(clock, before);
    }
    for bad in [0.0, -0.01, f64::NAN, f64::INFINITY] {
        assert!(matches!(
            FixedTimestep::try_new(bad),
            Err(FixedTimestepError::InvalidTimeStep(_))
        ));
    }
}

#[test]
#[should_panic(expected = "FixedTimestep::new: time step must be finite and positive, got dt = 0")]
fn new_panics_with_the_reason() {
    let _ = FixedTimestep::new(0.0_f64);
}

#[test]
#[should_panic(expected = "max frame time must be finite and positive, got NaN s")]
fn a_nan_cap_is_refused() {
    let _ = FixedTimestep::new(0.01_f64).with_max_frame_time(f64::NAN);
}

#[test]
fn the_rendered_state_moves_smoothly_between_physics_states() {
    // A ball flying at constant velocity: the drawn position should advance by exactly
    // frame_time · v each frame, however the steps fall (up to rounding).
    let free = |_: &Particle<DVec2>, _t: f64| DVec2::ZERO;
    let velocity = DVec2::new(3.0, -1.0);
    let mut clock = FixedTimestep::new(1.0 / 30.0);
    let mut previous = Particle::new(1.0, DVec2::ZERO, velocity);
    let mut current = previous;
    let mut elapsed = 0.0;
    let mut random = XorShift(42);
    for _ in 0..500 {
        let frame_time = 0.002 + 0.05 * random.next_unit();
        elapsed += frame_time;
        let frame = clock.advance(frame_time).unwrap();
        frame
            .run(&mut SemiImplicitEuler, &mut previous, &mut current, &free)
            .unwrap();
        let shown = previous.interpolate(&current, frame.alpha());
        // One step behind real time: the blend lags by exactly dt.
        let expected = velocity * (elapsed - 1.0 / 30.0).max(0.0);
        if elapsed > 1.0 / 30.0 {
            assert!((shown.position() - expected).length() < 1e-9);
        }
    }
}

#[test]
fn a_tumbling_rigid_body_lands_on_bit_identical_states_at_any_frame_rate() {
    // The intermediate-axis flip, with a time-dependent push so that a wrong `t` would show.
    let pushed = |body: &DRigidBody, t: f64| {
        let corner = body.to_world_point(DVec3::new(0.5, 0.0, 0.0));
        body.force_at_point(DVec3::new(0.0, 0.1 * t.cos(), 0.0), corner)
    };
    let mut start = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    start.set_angular_velocity(DVec3::new(0.001, 2.0, 0.001));
    let dt = 1.0 / 60.0;
    let plain = reference(Splitting, start, &pushed, dt, 2000);
    for (name, frames) in frame_sequences() {
        let states = history(FixedTimestep::new(dt), Splitting, start, &pushed, &frames);
        assert!(states.len() > 500, "{name}: only {} steps", states.len());
        assert_eq!(states[..], plain[..states.len()], "{name}");
    }
}

#[test]
fn a_spinning_body_is_drawn_turning_smoothly_between_physics_states() {
    // A cube spinning about z at 3 rad/s, at 30 Hz: 0.1 rad a step. With the exponential
    // update every step is the exact turn, and the drawn orientation should have turned by
    // ω · (elapsed − dt) each frame, however the steps fall: to within the normalized lerp's
    // departure from a uniform turn, below (0.1 rad)³/200 = 5·10⁻⁶ rad.
    let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
    let omega = 3.0;
    let dt = 1.0 / 30.0;
    let mut clock = FixedTimestep::new(dt);
    let mut previous = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    previous.set_orientation_update(OrientationUpdate::Exponential);
    previous.set_angular_velocity(DVec3::new(0.0, 0.0, omega));
    let mut current = previous;
    let mut elapsed = 0.0;
    let mut random = XorShift(7);
    let mut worst = 0.0_f64;
    for _ in 0..500 {
        let frame_time = 0.002 + 0.05 * random.next_unit();
        elapsed += frame_time;
        let frame = clock.advance(frame_time).unwrap();
        frame
            .run(&mut SemiImplicitEuler, &mut previous, &mut current, &free)
            .unwrap();
        let shown = previous.interpolate(&current, frame.alpha());
        if elapsed > dt {
            let expected = DQuat::from_rotation_z(omega * (elapsed - dt));
            worst = worst.max(shown.orientation().angle_between(expected));
        }
    }
    assert!(elapsed > 10.0);
    assert!(worst < 5e-6, "{worst:e}");
}
