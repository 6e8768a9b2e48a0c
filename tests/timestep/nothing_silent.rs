//! Nothing silent (issue 10): extreme and bad input gets a right answer or an error that
//! names the value, never garbage with `Ok`, a hang or a panic.
//!
//! Each instance the issue names has a regression test here, failing on the code before the
//! fix: `Trajectory`'s step lengths and sample times far from `t = 0`, its remainder rule
//! and its step count; `FixedTimestep`'s absurd `dt` and step counts; a rigid body whose
//! `|spin · dt|²` overflows; inertia tensors whose trace overflows; a particle whose `m·v`
//! overflows or underflows; orientation setters with tiny and huge quaternions; error
//! messages with huge numbers. Then property tests over random masses, inertias, states,
//! `dt` and `t` for every method: no panic, every `Err` leaves the state as it was, and
//! every `Ok` keeps the promises (finite state when nothing overflowed, unit quaternion,
//! exact sample times, step lengths of exactly `dt`).

use glam::{DQuat, DVec3, Quat, Vec3};
use proptest::prelude::*;
use std::cell::RefCell;
use timestep::rigid::{Body, BodyError, DRigidBody, Inertia, InertiaError, RigidBody, Splitting};
use timestep::{
    FixedTimestep, FixedTimestepError, Forces, Integrator, MassError, Method, MethodKind, Particle,
    SemiImplicitEuler, SmallVector, State, StepError, Trajectory,
};

/// An integrator that records the `t` and `dt` of every step it is asked for, and steps by
/// `inner`.
struct Recording<'a, I> {
    inner: I,
    steps: &'a RefCell<Vec<(f64, f64)>>,
}

impl<S: State, I: Integrator<S>> Integrator<S> for Recording<'_, I> {
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        use timestep::Scalar;
        self.steps.borrow_mut().push((t.to_f64(), dt.to_f64()));
        self.inner.step(state, forces, t, dt)
    }
}

/// The (t, dt) of every step of a run of `y' = 1` from `t0` to `t1` in steps of `dt`.
fn recorded_steps<S>(t0: S, t1: S, dt: S) -> Vec<(f64, f64)>
where
    S: timestep::Scalar + timestep::SmallVector<Scalar = S>,
{
    let steps = RefCell::new(Vec::new());
    let one = |_: &S, _t: S| S::one();
    let run = Trajectory::new(
        Recording {
            inner: SemiImplicitEuler,
            steps: &steps,
        },
        S::from_f64(0.0),
        &one,
        t0,
        t1,
        dt,
    )
    .unwrap();
    run.run_to_end().unwrap();
    steps.into_inner()
}

// ---------------------------------------------------------------------------------------
// Trajectory
// ---------------------------------------------------------------------------------------

/// f32, t0 = 10⁷, dt = 0.01: the sample times are 1 apart in f32 there (its spacing at
/// 10⁷ is 1), and stepping by their differences made 99 steps of 0 and one of 1. Every
/// step must be 0.01 long.
#[test]
fn trajectory_steps_by_dt_far_from_zero_in_f32() {
    let steps = recorded_steps(1e7_f32, 1e7_f32 + 1.0, 0.01);
    assert_eq!(steps.len(), 100);
    let dt = f64::from(0.01_f32);
    for &(_, step) in &steps[..99] {
        assert_eq!(step, dt);
    }
    // The last lands on t1: 1 − 99·dt, within rounding of dt.
    assert!((steps[99].1 - dt).abs() < 1e-6, "{}", steps[99].1);
}

/// f64, t0 = 10¹⁵ (spacing 0.125): 92 of 100 steps were of length 0.
#[test]
fn trajectory_steps_by_dt_far_from_zero_in_f64() {
    let steps = recorded_steps(1e15_f64, 1e15 + 1.0, 0.01);
    assert_eq!(steps.len(), 100);
    assert!(steps[..99].iter().all(|&(_, dt)| dt == 0.01));
    assert!((steps[99].1 - 0.01).abs() < 1e-12);
}

/// Sample `i` is at `t0 + i·dt` computed in f64 and rounded once to the state's scalar,
/// and the last is `t1` exactly.
#[test]
fn trajectory_sample_times_are_t0_plus_i_dt() {
    let one = |_: &f32, _t: f32| 1.0_f32;
    let (t0, t1, dt) = (8192.0_f32, 8193.0_f32, 0.01_f32);
    let times: Vec<f32> = Trajectory::new(SemiImplicitEuler, 0.0_f32, &one, t0, t1, dt)
        .unwrap()
        .map(|sample| sample.unwrap().0)
        .collect();
    assert_eq!(times.len(), 101);
    for (i, &t) in times[..100].iter().enumerate() {
        assert_eq!(
            t,
            (f64::from(t0) + i as f64 * f64::from(dt)) as f32,
            "sample {i}"
        );
    }
    assert_eq!(times[100], t1);
}

/// f32, t0 = 8192, semi-implicit Euler on k = 39 000 N/m, m = 1 kg, dt = 0.01 (inside its
/// bound k ≤ 4m/dt² = 40 000): a plain loop stays bounded (|x| < 10 from x₀ = 1); the
/// trajectory blew up to 5.8·10⁶ because its steps were not dt long. Now it is the plain
/// loop, bit for bit.
#[test]
fn trajectory_far_from_zero_is_the_plain_loop() {
    let spring = |p: &Particle<f32>, _t: f32| -39_000.0 * p.position();
    let start = Particle::new(1.0_f32, 1.0, 0.0);
    let (t0, dt, n) = (8192.0_f32, 0.01_f32, 2000);
    let mut plain = start;
    let mut largest = 0.0_f32;
    let run = Trajectory::new(SemiImplicitEuler, start, &spring, t0, t0 + 20.0, dt).unwrap();
    assert_eq!(run.steps(), n);
    for (i, sample) in run.enumerate().skip(1) {
        let (_, particle) = sample.unwrap();
        SemiImplicitEuler
            .step(&mut plain, &spring, 0.0, dt)
            .unwrap();
        if i < n {
            assert_eq!(particle, plain, "step {i}");
        }
        largest = largest.max(particle.position().abs());
    }
    assert!(largest < 10.0, "{largest}");
}

/// f32, 0 → 2000.4 with dt = 1: the remainder 0.4 is far above √ε·dt = 3.5·10⁻⁴, so it is a
/// step of its own, not absorbed into a last step of 1.4.
#[test]
fn trajectory_absorbs_only_a_remainder_below_sqrt_epsilon_dt() {
    let steps = recorded_steps(0.0_f32, 2000.4, 1.0);
    assert_eq!(steps.len(), 2001);
    assert!(steps[..2000].iter().all(|&(_, dt)| dt == 1.0));
    let last = steps[2000].1;
    assert!((last - 0.4).abs() < 1e-3, "{last}");
    // A remainder below √ε·dt is absorbed: 1 + 10⁻⁵ in steps of 0.5 is two steps.
    let steps = recorded_steps(0.0_f32, 1.00001, 0.5);
    assert_eq!(steps.len(), 2);
    assert!((steps[1].1 - 0.50001).abs() < 1e-6);
    // In f64 √ε = 1.5·10⁻⁸: 10⁻⁵ is a step of its own there.
    assert_eq!(recorded_steps(0.0_f64, 1.00001, 0.5).len(), 3);
}

/// A step count that saturates (≥ 1.8·10¹⁹) was accepted and streamed forever; dt = 10⁻³²⁰
/// was reported as pointing the wrong way. Both are refused as too many steps, and the
/// message says so.
#[test]
fn trajectory_refuses_absurd_step_counts() {
    let decay = |y: &f64, _t: f64| -y;
    for (t1, dt) in [
        (1e20, 1.0),
        (1.0, 1e-20),
        (10.0, 1e-300),
        (1.0, 1e-320),
        (f64::MAX, 1e-10),
    ] {
        let error = Trajectory::new(SemiImplicitEuler, 1.0, &decay, 0.0, t1, dt).unwrap_err();
        assert!(
            matches!(error, StepError::TooManySteps { .. }),
            "{t1} {dt}: {error:?}"
        );
        assert!(error.to_string().contains("too small"), "{error}");
    }
    let spanning = Trajectory::new(SemiImplicitEuler, 1.0, &decay, -f64::MAX, f64::MAX, 1.0);
    assert!(matches!(spanning, Err(StepError::TooManySteps { .. })));
    // The largest count allowed: 2⁵³ steps. size_hint does not overflow.
    let largest = Trajectory::new(SemiImplicitEuler, 1.0, &decay, 0.0, 2f64.powi(53), 1.0);
    let largest = largest.unwrap();
    assert_eq!(largest.steps() as u64, 1 << 53);
    assert_eq!(largest.size_hint(), (0, Some((1 << 53) + 1)));
    let too_many = Trajectory::new(SemiImplicitEuler, 1.0, &decay, 0.0, 2f64.powi(54), 1.0);
    assert!(too_many.is_err());
    // Wrong direction is still reported as such.
    let backwards = Trajectory::new(SemiImplicitEuler, 1.0, &decay, 0.0, 1.0, -1e-320);
    assert!(matches!(
        backwards,
        Err(StepError::TimeStepDirection { .. })
    ));
}

/// `run_to_end` gives the last sample without `.last().unwrap().unwrap()`, and the error
/// of a failing run.
#[test]
fn trajectory_runs_to_its_end() {
    let decay = |y: &f64, _t: f64| -y;
    let run = Trajectory::new(timestep::Rk4, 1.0, &decay, 0.0, 1.0, 0.01).unwrap();
    let last = run.clone().last().unwrap().unwrap();
    let (t, y) = run.run_to_end().unwrap();
    assert_eq!((t, y), last);
    assert_eq!(t, 1.0);
    assert!((y - (-1.0_f64).exp()).abs() < 1e-10);
    // A zero span: the start.
    let still = Trajectory::new(timestep::Rk4, 2.0, &decay, 3.0, 3.0, 0.1).unwrap();
    assert_eq!(still.run_to_end().unwrap(), (3.0, 2.0));
}

// ---------------------------------------------------------------------------------------
// FixedTimestep
// ---------------------------------------------------------------------------------------

/// dt = 5·10⁻³²⁴ was accepted, and every `advance` then looped 4.3·10⁹ times.
#[test]
fn fixed_timestep_refuses_a_dt_that_would_freeze_every_frame() {
    for dt in [5e-324, 1e-300, 1e-9] {
        let error = FixedTimestep::try_new(dt).unwrap_err();
        assert!(
            matches!(error, FixedTimestepError::TooManyStepsPerFrame { .. }),
            "{dt}: {error:?}"
        );
    }
    assert!(FixedTimestep::try_new(1e-6_f64).is_ok()); // 250 000 steps a frame at most
    // The caps are bounded the same way, and the message names the cap on steps.
    let clock = FixedTimestep::new(0.01_f64);
    assert!(clock.try_with_max_frame_time(1e300).is_err());
    let error = clock.try_with_max_steps(u32::MAX).unwrap_err();
    assert!(error.to_string().contains("steps"), "{error}");
    assert!(!error.to_string().contains("max frame time"), "{error}");
}

// ---------------------------------------------------------------------------------------
// Overflow in derived quantities
// ---------------------------------------------------------------------------------------

fn free<S: timestep::rigid::Precision>(_: &Body<S>, _t: S) -> (S::Vec3, S::Vec3) {
    use timestep::rigid::Vector3;
    let zero = S::Vec3::new(S::zero(), S::zero(), S::zero());
    (zero, zero)
}

/// f32, I = 1, L = 10²⁵: the spin ½ω is 5·10²⁴, `|spin · dt|²` overflows f32, and the
/// orientation came out (0, 0, 0, 0) with `Ok`. Every method must leave a unit quaternion.
#[test]
fn a_body_whose_spin_dt_squared_overflows_keeps_a_unit_orientation_f32() {
    // One method at a time (`MethodKind::all()`): an array of every `Method` holds room
    // for the largest workspace (Radau5's) in each, too much for a debug test thread.
    for kind in MethodKind::all() {
        let mut method = Method::<RigidBody>::new(kind);
        let mut body = RigidBody::new(1.0, Inertia::cube(6.0, 1.0));
        body.set_angular_momentum(Vec3::new(1e25, 2e24, 0.0));
        if method
            .step(&mut body, &free::<f32>, 0.0, 1.0 / 60.0)
            .is_ok()
        {
            let length = body.orientation().length();
            assert!((length - 1.0).abs() < 1e-6, "{method}: |q| = {length}");
        }
    }
}

/// f64, a tiny inertia (10⁻³⁰⁰): ω = 10³⁰⁰ rad/s, `|spin · dt|²` overflows f64.
#[test]
fn a_body_whose_spin_dt_squared_overflows_keeps_a_unit_orientation_f64() {
    let inertia = Inertia::diagonal(1e-300, 1e-300, 1e-300);
    for update in [
        timestep::rigid::OrientationUpdate::Additive,
        timestep::rigid::OrientationUpdate::Exponential,
    ] {
        for kind in MethodKind::all() {
            let mut method = Method::<DRigidBody>::new(kind);
            let mut body = DRigidBody::new(1.0, inertia);
            body.set_orientation_update(update);
            body.set_angular_momentum(DVec3::new(0.0, 1.0, 0.0));
            assert!((body.angular_velocity().y / 1e300 - 1.0).abs() < 1e-15);
            if method
                .step(&mut body, &free::<f64>, 0.0, 1.0 / 60.0)
                .is_ok()
            {
                let length = body.orientation().length();
                assert!(
                    (length - 1.0).abs() < 1e-12,
                    "{method} {update:?}: |q| = {length}"
                );
            }
        }
    }
}

/// A rotation angle `|L| dt / I` that overflows (ω = 10³⁰⁵ rad/s for 10¹⁰ s) names no
/// orientation: `Splitting` turned the body to `NaN` and returned `Ok`. It refuses the
/// step, naming the orientation, and leaves the body exactly as it was.
#[test]
fn splitting_refuses_a_rotation_that_overflows() {
    let mut body = DRigidBody::new(1.0, Inertia::diagonal(1e-300, 1e-300, 1e-300));
    body.set_angular_momentum(DVec3::new(1e5, 0.0, 0.0));
    let before = format!("{body:?}");
    let error = Splitting
        .step(&mut body, &free::<f64>, 0.0, 1e10)
        .unwrap_err();
    assert!(
        matches!(
            error,
            StepError::Overflow {
                quantity: "orientation",
                ..
            }
        ),
        "{error:?}"
    );
    assert!(error.to_string().contains("orientation"), "{error}");
    assert_eq!(format!("{body:?}"), before);
    // Its compositions refuse it the same way, the body left as it was.
    for mut composed in [Splitting::ORDER4, Splitting::ORDER6] {
        let error = composed
            .step(&mut body, &free::<f64>, 0.0, 1e10)
            .unwrap_err();
        assert!(
            matches!(
                error,
                StepError::Overflow {
                    quantity: "orientation",
                    ..
                }
            ),
            "{error:?}"
        );
        assert_eq!(format!("{body:?}"), before);
    }
    // The additive update of the other methods turns by its limit there, half a turn
    // about ω, and stays a unit quaternion.
    for kind in MethodKind::all() {
        let mut method = Method::<DRigidBody>::new(kind);
        let mut other = body;
        if method.step(&mut other, &free::<f64>, 0.0, 1e10).is_ok() {
            assert!(
                (other.orientation().length() - 1.0).abs() < 1e-12,
                "{method}"
            );
        }
    }
}

/// What is documented as not refused: a near-degenerate tensor, diag(10⁻¹², 1, 1), is a
/// valid one, and at 60 Hz no method follows its fast spin about the thin axis. The
/// numbers in `Inertia`'s docs: over one second at ω = (1, 1, 1) rad/s, torque-free, the
/// kinetic energy reaches about 3000 times the start with RK4 and about 3 times with
/// Splitting (3.4 with glibc's sine, 2.7 with libm's under `deterministic`: a turn of up to
/// 10¹⁰ rad a step keeps no digit of its angle, so the sine's last bits decide).
#[test]
fn near_degenerate_inertia_is_accepted_and_stiff_as_documented() {
    let free = |_: &DRigidBody, _t: f64| (DVec3::ZERO, DVec3::ZERO);
    let rod = Inertia::try_diagonal(1e-12, 1.0, 1.0).unwrap();
    let mut start = DRigidBody::new(1.0, rod);
    start.set_angular_velocity(DVec3::ONE);
    let energy = start.kinetic_energy();
    let (mut rk4, mut split) = (start, start);
    let (mut worst_rk4, mut worst_split) = (0.0_f64, 0.0_f64);
    for i in 0..60 {
        let t = f64::from(i) / 60.0;
        timestep::Rk4.step(&mut rk4, &free, t, 1.0 / 60.0).unwrap();
        Splitting.step(&mut split, &free, t, 1.0 / 60.0).unwrap();
        worst_rk4 = worst_rk4.max((rk4.kinetic_energy() / energy - 1.0).abs());
        worst_split = worst_split.max((split.kinetic_energy() / energy - 1.0).abs());
    }
    assert!((2000.0..4000.0).contains(&worst_rk4), "{worst_rk4}");
    assert!((1.5..3.0).contains(&worst_split), "{worst_split}");
}

/// Tensors whose trace (the sum of the principal moments) overflows were accepted.
#[test]
fn inertia_whose_trace_overflows_is_refused() {
    let error = Inertia::try_diagonal(1e308, 1e308, 1e308).unwrap_err();
    assert!(
        matches!(error, InertiaError::OutOfRange { .. }),
        "{error:?}"
    );
    assert_eq!(
        error.to_string(),
        "inertia tensor with principal moments 1e308, 1e308, 1e308 has a trace (the sum of the moments) too large for f64"
    );
    assert!(Inertia::try_symmetric(1.5e308, 1.0e308, 1.0e308, 0.0, 0.0, 0.0).is_err());
    // Fine in f64, but the f32 body's trace overflows f32.
    let large = Inertia::diagonal(2e38, 2e38, 2e38);
    assert!(DRigidBody::try_new(1.0, large).is_ok());
    assert!(matches!(
        RigidBody::try_new(1.0, large),
        Err(BodyError::Inertia(_))
    ));
}

/// A particle whose momentum m·v overflows or underflows was accepted: its velocity was
/// then lost at the first recalculation `v = p / m`.
#[test]
fn a_particle_whose_momentum_is_out_of_range_is_refused() {
    let overflow = Particle::try_new(1e300, 0.0, 1e10);
    assert_eq!(
        overflow,
        Err(MassError::MomentumOutOfRange {
            mass: 1e300,
            velocity: 1e10
        })
    );
    assert_eq!(
        overflow.unwrap_err().to_string(),
        "mass 1e300 times velocity 1e10 is out of range: the momentum m·v (or the velocity p/m) overflows or underflows"
    );
    // Underflow, to zero and to a subnormal.
    assert!(Particle::try_new(1e-300, 0.0, 1e-30).is_err());
    assert!(Particle::try_new(1e-300, 0.0, 1e-10).is_err());
    assert!(Particle::try_new(1e30_f32, 0.0_f32, 1e10).is_err());
    assert!(Particle::try_new(1e-20_f32, Vec3::ZERO, Vec3::new(0.0, 1e-20, 0.0)).is_err());
    // The setters refuse it too, and leave the particle alone.
    let mut particle = Particle::new(1e300, 1.0, 2.0);
    let before = particle;
    assert!(particle.try_set_velocity(1e10).is_err());
    assert_eq!(particle, before);
    let mut light = Particle::new(1e-300, 0.0, 0.0);
    assert!(light.try_set_momentum(1e10).is_err()); // v = 10³¹⁰
    // Zero and the ordinary range are fine.
    assert!(Particle::try_new(1e-300, 0.0, 0.0).is_ok());
    assert!(Particle::try_new(1e150, 0.0, 1e150).is_ok());
}

/// The same for rigid bodies, and for their angular quantities: an `L` whose `ω = I⁻¹ L`
/// overflows (a tiny moment) was accepted, and the next drift turned the orientation to
/// `NaN`.
#[test]
fn a_body_refuses_velocities_and_angular_velocities_out_of_range() {
    let mut heavy = DRigidBody::new(1e300, Inertia::cube(1.0, 1.0));
    let before = format!("{heavy:?}");
    let error = heavy
        .try_set_velocity(DVec3::new(1e10, 0.0, 0.0))
        .unwrap_err();
    assert!(matches!(
        error,
        BodyError::Mass(MassError::MomentumOutOfRange { .. })
    ));
    assert_eq!(format!("{heavy:?}"), before);
    let mut speck = RigidBody::new(1e-30, Inertia::cube(1.0, 1.0));
    assert!(speck.try_set_momentum(Vec3::new(0.0, 1e10, 0.0)).is_err()); // v = 10⁴⁰ in f32
    assert!(speck.try_set_velocity(Vec3::new(0.0, 1e-20, 0.0)).is_err()); // p = 10⁻⁵⁰

    let mut needle = DRigidBody::new(1.0, Inertia::diagonal(1e-300, 1e-300, 1e-300));
    let before = format!("{needle:?}");
    let error = needle
        .try_set_angular_momentum(DVec3::new(0.0, 1e20, 0.0))
        .unwrap_err();
    assert!(matches!(error, BodyError::Overflow { .. }), "{error:?}");
    assert_eq!(format!("{needle:?}"), before);
    let mut planet = RigidBody::new(1.0, Inertia::diagonal(1e30, 1e30, 1e30));
    assert!(
        planet
            .try_set_angular_velocity(Vec3::new(0.0, 0.0, 1e10))
            .is_err()
    ); // L = 10⁴⁰
    // Non-finite values set on purpose are still kept as given.
    needle.set_angular_momentum(DVec3::new(f64::NAN, 0.0, 0.0));
    assert!(needle.angular_momentum().x.is_nan());
}

#[test]
#[should_panic(expected = "Particle::set_velocity: mass 1e300 times velocity 1e10 is out of range")]
fn set_velocity_panics_with_the_values() {
    Particle::new(1e300, 0.0, 0.0).set_velocity(1e10);
}

// ---------------------------------------------------------------------------------------
// Orientation setters
// ---------------------------------------------------------------------------------------

/// f32 (0, 0, 0, 10⁻²²) was stored with length 1.0097; (0, 0, 0, 10²⁰) was refused as
/// "not finite". Any finite non-zero quaternion is normalized.
#[test]
fn any_finite_non_zero_orientation_normalizes_to_unit_length() {
    let mut body = RigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    for w in [1e-22_f32, 1e20, 1e-45, f32::MAX, -3e38] {
        body.set_orientation(Quat::from_xyzw(0.0, 0.0, 0.0, w));
        assert!((body.orientation().length() - 1.0).abs() < 1e-6, "{w}");
        assert!((body.orientation().w.abs() - 1.0).abs() < 1e-6, "{w}");
    }
    body.set_orientation(Quat::from_xyzw(1e30, -1e30, 1e30, 1e30));
    assert!((body.orientation().length() - 1.0).abs() < 1e-6);
    let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    for q in [
        DQuat::from_xyzw(0.0, 3e-320, 0.0, 0.0),
        DQuat::from_xyzw(1e300, 1e300, 0.0, 0.0),
        DQuat::from_xyzw(f64::MAX, f64::MAX, f64::MAX, f64::MAX),
    ] {
        body.set_orientation(q);
        assert!((body.orientation().length() - 1.0).abs() < 1e-15, "{q:?}");
    }
}

/// Extrapolating far beyond α = 1 (the docs promise a normalized result for any finite
/// α) squared a blend of length 10²⁰ and gave the zero quaternion in f32.
#[test]
fn quaternion_blends_stay_unit_length_however_far_they_extrapolate() {
    use timestep::Interpolate;
    let (a, b) = (Quat::IDENTITY, Quat::from_rotation_z(0.5));
    for alpha in [1e20_f32, -1e20, 1e30, 3e38] {
        let blend = a.interpolate(&b, alpha);
        assert!((blend.length() - 1.0).abs() < 1e-6, "{alpha}: {blend:?}");
    }
    let (a, b) = (DQuat::IDENTITY, DQuat::from_rotation_z(0.5));
    let blend = a.interpolate(&b, 1e300);
    assert!((blend.length() - 1.0).abs() < 1e-12, "{blend:?}");
}

#[test]
#[should_panic(expected = "an orientation must be a finite, non-zero quaternion")]
fn a_zero_orientation_is_refused() {
    let mut body = RigidBody::new(1.0, Inertia::cube(1.0, 1.0));
    body.set_orientation(Quat::from_xyzw(0.0, 0.0, 0.0, 0.0));
}

// ---------------------------------------------------------------------------------------
// Messages
// ---------------------------------------------------------------------------------------

/// Numbers printed with `{}` spelled 10³⁰⁰ out in 301 digits.
#[test]
fn messages_print_huge_and_tiny_numbers_in_exponent_form() {
    assert_eq!(
        MassError::NotPositive(-1e300).to_string(),
        "mass must be positive, got -1e300"
    );
    assert_eq!(
        StepError::NonFiniteTime {
            t: 1e300,
            dt: f64::NAN
        }
        .to_string(),
        "time and time step must be finite (t = 1e300, dt = NaN)"
    );
    let error = FixedTimestepError::InvalidFrameTime(-1e-310);
    assert_eq!(
        error.to_string(),
        "frame time must be finite and not negative, got -1e-310 s"
    );
    let inertia = Inertia::try_diagonal(1e300, 1e300, 3e300)
        .unwrap_err()
        .to_string();
    assert!(inertia.len() < 200, "{inertia}");
    // Ordinary numbers read as before.
    assert_eq!(
        MassError::NotPositive(-2.5).to_string(),
        "mass must be positive, got -2.5"
    );
    // A NaN Jacobian is not called merely singular.
    assert!(
        StepError::SingularJacobian
            .to_string()
            .contains("non-finite")
    );
}

// ---------------------------------------------------------------------------------------
// Properties
// ---------------------------------------------------------------------------------------

/// Values from tiny to huge, both signs, zero, and (when `wild`) the non-finite ones.
/// Tame ones stay within 10⁻²⁰..10²⁰.
fn magnitude(wild: bool) -> BoxedStrategy<f64> {
    let ordinary = prop_oneof![
        4 => -1e3_f64..1e3,
        1 => Just(0.0),
        2 => (-20.0_f64..20.0, any::<bool>())
            .prop_map(|(e, negative)| if negative { -(10f64.powf(e)) } else { 10f64.powf(e) }),
    ];
    if wild {
        prop_oneof![
            6 => ordinary,
            1 => (-320.0_f64..308.0, any::<bool>())
                .prop_map(|(e, negative)| if negative { -(10f64.powf(e)) } else { 10f64.powf(e) }),
            1 => prop_oneof![
                Just(f64::NAN),
                Just(f64::INFINITY),
                Just(f64::NEG_INFINITY),
                Just(f64::MAX),
                Just(f64::MIN_POSITIVE),
                Just(5e-324),
            ],
        ]
        .boxed()
    } else {
        ordinary.boxed()
    }
}

/// The state as text, so that `NaN`s compare equal to themselves.
fn bits<T: std::fmt::Debug>(value: &T) -> String {
    format!("{value:?}")
}

fn check_particle_step<S>(mass: f64, x: f64, v: f64, force: f64, t: f64, dt: f64, tame: bool)
where
    S: timestep::Scalar + timestep::SmallVector<Scalar = S> + std::fmt::Debug,
{
    let (mass, x, v, force, t, dt) = (
        S::from_f64(mass),
        S::from_f64(x),
        S::from_f64(v),
        S::from_f64(force),
        S::from_f64(t),
        S::from_f64(dt),
    );
    let Ok(start) = Particle::try_new(mass, x, v) else {
        return;
    };
    let constant = move |_: &Particle<S>, _t: S| force;
    // One `Method` at a time: an array of all of them (`Method::all()`) holds every
    // method's inline workspace, too much for a debug test thread's stack.
    for mut method in MethodKind::all()
        .into_iter()
        .map(Method::<Particle<S>>::new)
    {
        let mut particle = start;
        match method.step(&mut particle, &constant, t, dt) {
            Err(_) => assert_eq!(bits(&particle), bits(&start), "{method}"),
            Ok(()) if tame => {
                assert!(
                    particle.position().is_finite()
                        && particle.momentum().is_finite()
                        && particle.velocity().is_finite(),
                    "{method}: {particle:?} from {start:?}, F = {force:?}, dt = {dt:?}"
                );
            }
            Ok(()) => {}
        }
    }
}

/// One method's step of a body, as a closure (`Method` and `Splitting` side by side).
type BodyStep<S> = Box<dyn FnMut(&mut Body<S>) -> Result<(), StepError>>;

fn check_body_step<S: timestep::rigid::Precision>(
    [mass, i1, i2, i3]: [f64; 4],
    [px, lx, ly, fz, tau]: [f64; 5],
    t: f64,
    dt: f64,
    tame: bool,
) where
    S::Vec3: timestep::rigid::Vector3,
{
    use timestep::rigid::{Quaternion, Vector3};
    let c = S::from_f64;
    let Ok(inertia) = Inertia::try_diagonal(i1.abs(), i2.abs(), i3.abs()) else {
        return;
    };
    let Ok(mut start) = Body::<S>::try_new(c(mass), inertia) else {
        return;
    };
    start.set_orientation(S::Quat::from_xyzw(c(0.1), c(0.2), c(0.3), c(0.9)));
    let momentum = S::Vec3::new(c(px), c(0.0), c(0.0));
    let angular_momentum = S::Vec3::new(c(lx), c(ly), c(0.0));
    let set = start
        .try_set_momentum(momentum)
        .and_then(|()| start.try_set_angular_momentum(angular_momentum));
    if set.is_err() {
        // Refused: a velocity that overflows or underflows, or an angular velocity that
        // overflows. Then it must have.
        let v = (momentum * start.inverse_mass()).to_array();
        let omega = start.inverse_inertia_world() * angular_momentum;
        let underflow = v[0] != S::zero() && !v[0].is_normal() || v[0] == S::zero() && px != 0.0;
        assert!(
            !tame && (!(v[0].is_finite() && omega.is_finite()) || underflow),
            "{set:?}"
        );
        return;
    }
    let (force, torque) = (
        S::Vec3::new(c(0.0), c(0.0), c(fz)),
        S::Vec3::new(c(tau), c(0.0), c(0.0)),
    );
    let pushed = move |_: &Body<S>, _t: S| (force, torque);
    let unit = |q: S::Quat| (q.length() - S::one()).abs() < c(1e3) * S::epsilon();
    let (t, dt) = (c(t), c(dt));
    // Each method boxed as it is made: an array of every `Method` (`Method::all()`) holds
    // room for the largest workspace (Radau5's) in each, too much for a debug test thread.
    let mut methods: Vec<(String, BodyStep<S>)> = MethodKind::all()
        .into_iter()
        .map(Method::<Body<S>>::new)
        .map(|mut method| {
            let name = method.to_string();
            let step: BodyStep<S> =
                Box::new(move |body: &mut Body<S>| method.step(body, &pushed, t, dt));
            (name, step)
        })
        .collect();
    methods.push((
        "splitting".to_string(),
        Box::new(move |body: &mut Body<S>| Splitting.step(body, &pushed, t, dt)),
    ));
    for (name, mut step) in methods {
        let mut body = start;
        match step(&mut body) {
            Err(_) => assert_eq!(bits(&body), bits(&start), "{name}"),
            Ok(()) => {
                // A finite orientation is always a unit quaternion.
                let q = body.orientation();
                if q.is_finite() || tame {
                    assert!(unit(q), "{name}: |q| = {:?}, {body:?}", q.length());
                }
                if tame {
                    assert!(
                        body.position().is_finite()
                            && body.momentum().is_finite()
                            && body.angular_momentum().is_finite()
                            && body.angular_velocity().is_finite(),
                        "{name}: {body:?}"
                    );
                }
            }
        }
    }
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(256))]

    /// Tame input (masses from 10⁻³ to 10³ kg, other magnitudes up to 10²⁰, steps up to
    /// 10³ s, so that no quantity can pass 10³² even in f32): every method on a particle in
    /// either precision, pushed by a constant force, keeps a finite state. Wild input
    /// (anything, non-finite included): no panic, and every error leaves the particle as
    /// it was.
    #[test]
    fn particles_step_without_surprises(
        mass in 1e-3_f64..1e3, x in magnitude(false), v in magnitude(false),
        force in magnitude(false), t in magnitude(false), dt in magnitude(false),
        wild in prop::array::uniform6(magnitude(true)),
    ) {
        let dt_tame = dt.clamp(-1e3, 1e3);
        check_particle_step::<f64>(mass.abs(), x, v, force, t, dt_tame, true);
        check_particle_step::<f32>(mass.abs(), x, v, force, t, dt_tame, true);
        let [m, x, v, f, t, dt] = wild;
        check_particle_step::<f64>(m, x, v, f, t, dt, false);
        check_particle_step::<f32>(m, x, v, f, t, dt, false);
    }

    /// The same for rigid bodies in either precision, with `Splitting` too: a tame step
    /// (moments from 10⁻¹⁰ to 10¹⁰, so that ω·dt reaches 10²³ and `|spin·dt|²` overflows
    /// f32) keeps every quantity finite and the orientation a unit quaternion; any step
    /// that returns `Ok` with a finite orientation leaves it unit length.
    #[test]
    fn rigid_bodies_step_without_surprises(
        mass in 1e-3_f64..1e3,
        moments in prop::array::uniform3(-10.0_f64..10.0),
        state in prop::array::uniform5(-10.0_f64..10.0),
        t in magnitude(false),
        dt in -3.0_f64..3.0,
        wild_body in prop::array::uniform4(magnitude(true)),
        wild_state in prop::array::uniform5(magnitude(true)),
        wild_time in prop::array::uniform2(magnitude(true)),
    ) {
        let [a, b, c] = moments.map(|e| 10f64.powf(e));
        // Sorted so that the largest is at most the sum of the others (a valid tensor).
        let mut sorted = [a, b, c];
        sorted.sort_by(f64::total_cmp);
        sorted[2] = sorted[2].min(sorted[0] + sorted[1]);
        let state = state.map(|e| e.signum() * 10f64.powf(e.abs()));
        let dt = dt.signum() * 10f64.powf(dt.abs()) * 1e-3;
        let body = [mass, sorted[0], sorted[1], sorted[2]];
        check_body_step::<f64>(body, state, t, dt, true);
        check_body_step::<f32>(body, state, t, dt, true);
        let [t, dt] = wild_time;
        check_body_step::<f64>(wild_body, wild_state, t, dt, false);
        check_body_step::<f32>(wild_body, wild_state, t, dt, false);
    }

    /// Random tensors, turned diagonal ones with moments from 10⁻²⁹⁰ to 10²⁹² (which must be
    /// accepted) and wild entries (non-finite, huge, tiny): a tensor is refused, or it is
    /// one a body can have
    /// (finite positive moments whose trace is finite, within the triangle inequality up
    /// to rounding), its principal axes rebuild it, and its inverse is finite.
    #[test]
    fn inertia_tensors_are_valid_or_refused(
        scale in -290.0_f64..290.0,
        exponents in prop::array::uniform3(0.0_f64..2.0),
        angles in prop::array::uniform3(-3.2_f64..3.2),
        wild in prop::array::uniform6(magnitude(true)),
    ) {
        let turn = glam::DMat3::from_euler(glam::EulerRot::XYZ, angles[0], angles[1], angles[2]);
        // Within a factor 100 of each other, sorted, the largest at most 0.99 of the sum
        // of the other two: clearly a tensor a body can have, at any scale.
        let mut sorted = exponents.map(|e| 10f64.powf(scale + e));
        sorted.sort_by(f64::total_cmp);
        sorted[2] = sorted[2].min(0.99 * (sorted[0] + sorted[1]));
        let moments = glam::DVec3::from_array(sorted);
        let tensor = turn * glam::DMat3::from_diagonal(moments) * turn.transpose();
        let [c0, c1, c2] = tensor.to_cols_array_2d();
        let turned = [c0[0], c1[1], c2[2], c1[0], c2[0], c2[1]];
        let accepted = Inertia::try_symmetric(turned[0], turned[1], turned[2], turned[3], turned[4], turned[5]);
        prop_assert!(accepted.is_ok(), "{sorted:?} turned: {accepted:?}");
        for [ixx, iyy, izz, ixy, ixz, iyz] in [turned, wild] {
            let Ok(inertia) = Inertia::try_symmetric(ixx, iyy, izz, ixy, ixz, iyz) else {
                continue;
            };
            let m = inertia.principal_moments().to_array();
            let trace = m[0] + m[1] + m[2];
            prop_assert!(m.iter().all(|&x| x.is_finite() && x > 0.0) && trace.is_finite(), "{m:?}");
            for x in m {
                prop_assert!(x <= trace - x + 16.0 * f64::EPSILON * trace, "{m:?}");
            }
            prop_assert!(inertia.inverse().is_finite());
            let p = inertia.principal_axes();
            let rebuilt = p * glam::DMat3::from_diagonal(inertia.principal_moments()) * p.transpose();
            let error = (rebuilt - inertia.tensor()).to_cols_array().iter().fold(0.0_f64, |a, &b| a.max(b.abs()));
            prop_assert!(error <= 1e-12 * trace, "{error:e} of {trace:e}");
        }
    }

    /// Any dt and any frame times: the clock is refused at once, or every frame returns
    /// at most `max_steps ≤ MAX_STEPS_PER_FRAME` steps (so `advance` is bounded), keeps
    /// 0 ≤ α < 1 and the accumulator in [0, dt), starts its steps where the last frame's
    /// ended, and a refused frame leaves the clock as it was.
    #[test]
    fn fixed_timesteps_stay_bounded(
        dt in magnitude(true),
        frames in prop::collection::vec(magnitude(true), 1..20),
    ) {
        let Ok(mut clock) = FixedTimestep::try_new(dt) else {
            return Ok(());
        };
        prop_assert!(clock.max_steps() <= FixedTimestep::<f64>::MAX_STEPS_PER_FRAME);
        let mut next = 0_u64;
        for frame_time in frames {
            let before = clock;
            match clock.advance(frame_time) {
                Err(_) => prop_assert_eq!(clock, before),
                Ok(frame) => {
                    prop_assert!(frame.steps() <= clock.max_steps());
                    prop_assert!((0.0..1.0).contains(&frame.alpha()), "{}", frame.alpha());
                    prop_assert!((0.0..clock.dt()).contains(&clock.accumulator()));
                    let starts: Vec<f64> = frame.times().collect();
                    for (k, t) in starts.iter().enumerate() {
                        prop_assert_eq!(*t, (next + k as u64) as f64 * dt);
                    }
                    next += u64::from(frame.steps());
                    prop_assert_eq!(clock.steps_taken(), next);
                }
            }
        }
    }

    /// Any t0, t1, dt: the run is refused at once, or every step but the last is exactly
    /// dt long, sample i is at t0 + i·dt (computed in f64, rounded once), the last sample is
    /// t1, and the last step is at most √ε·|dt| longer than dt.
    #[test]
    fn trajectory_samples_are_exact(
        t0 in magnitude(true), span in magnitude(true), dt in magnitude(true),
        f32_run in any::<bool>(),
    ) {
        if f32_run {
            check_trajectory::<f32>(t0, t0 + span, dt);
        } else {
            check_trajectory::<f64>(t0, t0 + span, dt);
        }
    }
}

fn check_trajectory<S>(t0: f64, t1: f64, dt: f64)
where
    S: timestep::Scalar + timestep::SmallVector<Scalar = S>,
{
    let (t0, t1, dt) = (S::from_f64(t0), S::from_f64(t1), S::from_f64(dt));
    let steps = RefCell::new(Vec::new());
    let one = |_: &S, _t: S| S::one();
    let recording = Recording {
        inner: SemiImplicitEuler,
        steps: &steps,
    };
    let Ok(run) = Trajectory::new(recording, S::from_f64(0.0), &one, t0, t1, dt) else {
        return;
    };
    if run.steps() > 10_000 {
        return;
    }
    let n = run.steps();
    let times: Vec<S> = run.map(|sample| sample.unwrap().0).collect();
    assert_eq!(times.len(), n + 1);
    assert_eq!(times[0], t0);
    assert_eq!(times[n], if n == 0 { t0 } else { t1 });
    let (t0, dt) = (t0.to_f64(), dt.to_f64());
    for (i, &t) in times.iter().enumerate().take(n).skip(1) {
        assert_eq!(t, S::from_f64(t0 + i as f64 * dt), "sample {i}");
    }
    let steps = steps.into_inner();
    for (i, &(t, step)) in steps.iter().enumerate() {
        assert_eq!(t, times[i].to_f64());
        if i + 1 < n {
            assert_eq!(step, dt, "step {i}");
        } else {
            let slack = S::epsilon().to_f64().sqrt() * dt.abs();
            assert!(
                step != 0.0 && step.signum() == dt.signum() && step.abs() <= dt.abs() + 2.0 * slack,
                "last {step} of {dt}"
            );
        }
    }
}

// ---------------------------------------------------------------------------------------
// Serde
// ---------------------------------------------------------------------------------------

#[cfg(feature = "serde")]
mod serde {
    use super::*;

    /// `1e39` reads as infinity in f32 where a parser narrows from f64 (serde_json's
    /// default one does): a particle at that position was accepted, at inf. Refused,
    /// whichever part refuses it (with `float_roundtrip`, serde_json itself does; other
    /// formats that carry infinities meet the particle's own check).
    #[test]
    fn a_number_out_of_range_for_the_precision_is_refused() {
        let json = r#"{"mass":1.0,"position":1e39,"momentum":0.0,"velocity":0.0}"#;
        let error = serde_json::from_str::<Particle<f32>>(json).unwrap_err();
        assert!(
            error.to_string().contains("position must be finite")
                || error.to_string().contains("out of range"),
            "{error}"
        );
        assert!(serde_json::from_str::<Particle<f64>>(json).is_ok());
        let body = serde_json::to_string(&RigidBody::new(1.0, Inertia::cube(1.0, 1.0)))
            .unwrap()
            .replace(
                r#""position":[0.0,0.0,0.0]"#,
                r#""position":[1e39,0.0,0.0]"#,
            );
        assert!(serde_json::from_str::<RigidBody>(&body).is_err());
    }

    /// A state that went non-finite was written as `null` and could not be read back:
    /// saving it is an error that says what is not finite.
    #[test]
    fn a_non_finite_state_is_not_saved() {
        let mut particle = Particle::new(1.0, 0.0, 0.0);
        particle.set_position(f64::NAN);
        let error = serde_json::to_string(&particle).unwrap_err();
        assert!(
            error.to_string().contains("position that is not finite"),
            "{error}"
        );
        let mut body = DRigidBody::new(1.0, Inertia::cube(1.0, 1.0));
        body.set_angular_momentum(DVec3::new(f64::INFINITY, 0.0, 0.0));
        let error = serde_json::to_string(&body).unwrap_err();
        assert!(error.to_string().contains("angular momentum"), "{error}");
    }

    fn clock_json(max_steps: u32, accumulator: f64, steps_taken: u64) -> String {
        format!(
            r#"{{"dt":0.25,"max_frame_time":0.5,"max_steps":{max_steps},"accumulator":{accumulator:?},"steps_taken":{steps_taken}}}"#
        )
    }

    /// `steps_taken = u64::MAX` was accepted, and the next `advance` overflowed (a panic in
    /// debug builds). It is refused; a count near the end refuses the frame instead.
    #[test]
    fn a_clock_at_the_end_of_its_count_is_refused_not_overflowed() {
        let error = serde_json::from_str::<FixedTimestep>(&clock_json(2, 0.0, u64::MAX));
        assert!(error.unwrap_err().to_string().contains("at most"));
        let last = FixedTimestep::<f64>::MAX_STEPS_TAKEN - 1;
        let mut clock: FixedTimestep = serde_json::from_str(&clock_json(2, 0.0, last)).unwrap();
        let before = clock;
        assert_eq!(
            clock.advance(1.0),
            Err(FixedTimestepError::ClockExhausted(last))
        );
        assert_eq!(clock, before);
    }

    /// A bad `max_steps` was reported as a bad "max frame time".
    #[test]
    fn a_bad_max_steps_is_named_as_such() {
        let error = serde_json::from_str::<FixedTimestep>(&clock_json(3, 0.0, 0)).unwrap_err();
        let message = error.to_string();
        assert!(message.contains("max steps per frame 3"), "{message}");
        assert!(message.contains("max frame time 0.5 s holds"), "{message}");
    }

    /// serde_json's default parser reads `dt − 1 ulp` back as `dt` about one time in ten;
    /// such a clock was refused. It loads, with α just below 1.
    #[test]
    fn an_accumulator_read_one_ulp_high_still_loads() {
        let clock: FixedTimestep = serde_json::from_str(&clock_json(2, 0.25, 7)).unwrap();
        assert_eq!(clock.accumulator(), f64::from_bits(0.25_f64.to_bits() - 1));
        assert!(clock.alpha() < 1.0);
        // More than rounding is still refused, as an accumulator.
        let error = serde_json::from_str::<FixedTimestep>(&clock_json(2, 0.2501, 7));
        assert!(error.unwrap_err().to_string().contains("accumulator"));
    }

    /// Every type with fields refuses unknown ones.
    #[test]
    fn unknown_fields_are_refused() {
        let particle = r#"{"mass":1.0,"position":0.0,"momentum":0.0,"velocity":0.0,"spin":1}"#;
        assert!(serde_json::from_str::<Particle<f64>>(particle).is_err());
        let clock = clock_json(2, 0.0, 0).replace('}', r#","extra":1}"#);
        assert!(serde_json::from_str::<FixedTimestep>(&clock).is_err());
        let inertia = r#"{"ixx":1.0,"iyy":1.0,"izz":1.0,"mass":2}"#;
        assert!(serde_json::from_str::<Inertia>(inertia).is_err());
        let body = serde_json::to_string(&DRigidBody::new(1.0, Inertia::cube(1.0, 1.0)))
            .unwrap()
            .replace('{', r#"{"colour":"red","#);
        assert!(serde_json::from_str::<DRigidBody>(&body).is_err());
    }
}

// ---------------------------------------------------------------------------------------
// Round two: Newton that cannot converge, end times that overflow
// ---------------------------------------------------------------------------------------

/// `y' = −10⁶ sign(y)` from `y = 10⁻³`, `dt = 0.01`: backward Euler's equation
/// `y₁ = y₀ − 10⁴ sign(y₁)` has no solution, and the Newton iterates jump between
/// `±10⁴`. With `usize::MAX` iterations allowed this ran forever; the contraction rate
/// (each correction as large as the last, `θ = 1`) says it diverges.
#[test]
fn a_newton_iteration_that_cannot_converge_stops_whatever_its_limit() {
    use timestep::{BackwardEuler, ImplicitMidpoint, Radau5, Trapezoid};
    let jump = |y: &f64, _t: f64| -1e6 * y.signum();
    let diverged = |result: Result<(), StepError>, y: f64, name: &str| {
        let error = result.unwrap_err();
        assert!(
            matches!(error, StepError::Diverged { contraction, .. } if contraction >= 0.99),
            "{name}: {error:?}"
        );
        assert!(error.to_string().contains("diverged"), "{name}: {error}");
        assert_eq!(y, 1e-3, "{name}: the state must be left as it was");
    };
    let mut y = 1e-3;
    let result = BackwardEuler::new()
        .with_max_iterations(usize::MAX)
        .step(&mut y, &jump, 0.0, 0.01);
    diverged(result, y, "backward Euler");
    let mut y = 1e-3;
    let result = Trapezoid::new()
        .with_max_iterations(usize::MAX)
        .step(&mut y, &jump, 0.0, 0.01);
    diverged(result, y, "trapezoid");
    let mut y = 1e-3;
    let result = ImplicitMidpoint::new()
        .with_max_iterations(usize::MAX)
        .step(&mut y, &jump, 0.0, 0.01);
    diverged(result, y, "implicit midpoint");
    let mut y = 1e-3;
    let result = Radau5::new()
        .with_max_iterations(usize::MAX)
        .step(&mut y, &jump, 0.0, 0.01);
    diverged(result, y, "radau5");
}

/// A limit of `usize::MAX` iterations still converges where the default does: backward
/// Euler on `y' = −y` gives `y₀ / (1 + dt)`; Radau5 under error control gives `e^(−t)`
/// (its prediction of the iterations left wrapped `usize::MAX − 3` to `−4`, so that the
/// predicted correction grew with the iterations left instead of shrinking).
#[test]
fn a_huge_iteration_limit_still_converges() {
    use approx::assert_relative_eq;
    use timestep::{Adaptive, BackwardEuler, Radau5, Tolerances};
    let decay = |y: &f64, _t: f64| -y;
    let mut y = 1.0;
    BackwardEuler::new()
        .with_max_iterations(usize::MAX)
        .step(&mut y, &decay, 0.0, 0.5)
        .unwrap();
    assert_relative_eq!(y, 1.0 / 1.5, max_relative = 1e-12);
    let mut y = 1.0;
    Adaptive::new(Radau5::new().with_max_iterations(usize::MAX))
        .with_tolerances(Tolerances::new(1e-8, 1e-10))
        .solve(&mut y, &decay, 0.0, 2.0)
        .unwrap();
    assert_relative_eq!(y, (-2.0_f64).exp(), max_relative = 1e-6);
}

/// `t = 3·10³⁸`, `dt = 10³⁸` in f32: both finite, their sum is not, and RK4's forces were
/// evaluated at `t = inf`. Every scheme refuses the step, naming the end time, and leaves
/// the state as it was; a step that ends at `f32::MAX` is still taken.
#[test]
fn a_step_whose_end_time_overflows_is_refused() {
    let seen = std::cell::Cell::new(0.0_f32);
    let watch = |_: &f32, t: f32| {
        seen.set(seen.get().max(t));
        1.0_f32
    };
    for mut method in Method::<f32>::all() {
        let mut y = 1.0_f32;
        let error = method.step(&mut y, &watch, 3e38, 1e38).unwrap_err();
        assert_eq!(
            error,
            StepError::EndTimeOverflow {
                t: f64::from(3e38_f32),
                dt: f64::from(1e38_f32)
            },
            "{method}"
        );
        assert!(error.to_string().contains("overflows"), "{error}");
        assert_eq!(y, 1.0, "{method}");
        assert_eq!(
            seen.get(),
            0.0,
            "{method}: the forces saw t = {}",
            seen.get()
        );
    }
    let mut y = 1.0_f32;
    timestep::Rk4
        .step(&mut y, &watch, 3e38, f32::MAX - 3e38)
        .unwrap();
    assert!(seen.get().is_finite());
    assert_eq!(y, 1.0 + (f32::MAX - 3e38));
}

#[cfg(feature = "serde")]
mod serde_round_two {
    use timestep::{
        MassError, MethodKind, Particle, Rodas4, Rodas5P, Ros3p, Rosenbrock, Structure,
    };

    /// `{"rk4": {"garbage": 1}}` loaded as RK4, its field dropped: a method without
    /// settings takes `{}` or `null` only, and a method with settings refuses unknown ones.
    #[test]
    fn a_method_refuses_settings_it_does_not_have() {
        let error = serde_json::from_str::<MethodKind>(r#"{"rk4":{"garbage":1}}"#).unwrap_err();
        assert!(error.to_string().contains("no settings"), "{error}");
        for bad in [r#"{"rk4":1}"#, r#"{"rk4":"x"}"#, r#"{"rk4":[1]}"#] {
            assert!(serde_json::from_str::<MethodKind>(bad).is_err(), "{bad}");
        }
        for good in [r#"{"rk4":{}}"#, r#"{"rk4":null}"#, r#""rk4""#] {
            let method: MethodKind = serde_json::from_str(good).unwrap();
            assert_eq!(method.name(), "rk4", "{good}");
        }
        let settings = r#"{"backward-euler":{"tolerance":null,"max_iterations":20,"garbage":1}}"#;
        assert!(serde_json::from_str::<MethodKind>(settings).is_err());
    }

    /// An f32 particle of 10³⁰ kg with a momentum of 10⁻¹⁰: its velocity `p/m` = 10⁻⁴⁰ is
    /// subnormal, and `try_set_momentum` refuses it, but the same values loaded. Loading
    /// goes through the setter, with its error.
    #[test]
    fn loading_a_particle_checks_what_its_setters_check() {
        let mut particle = Particle::new(1e30_f32, 0.0_f32, 0.0);
        let refused = particle.try_set_momentum(1e-10).unwrap_err();
        assert!(matches!(refused, MassError::MomentumOutOfRange { .. }));
        let json = r#"{"mass":1e30,"position":0.0,"momentum":1e-10,"velocity":1e-40}"#;
        let error = serde_json::from_str::<Particle<f32>>(json).unwrap_err();
        assert!(
            error.to_string().starts_with(&refused.to_string()),
            "{error} vs {refused}"
        );
        // Overflow too: 10⁻³⁰ kg with a momentum of 10¹⁰ would move at 10⁴⁰ m/s.
        let json = r#"{"mass":1e-30,"position":0.0,"momentum":1e10,"velocity":3e38}"#;
        let error = serde_json::from_str::<Particle<f32>>(json).unwrap_err();
        assert!(error.to_string().contains("out of range"), "{error}");
        // What the setters accept still loads, to the bit.
        let mut fine = Particle::new(2.0_f32, 1.0_f32, 0.0);
        fine.set_momentum(3.0);
        let json = serde_json::to_string(&fine).unwrap();
        assert_eq!(serde_json::from_str::<Particle<f32>>(&json).unwrap(), fine);
    }

    /// The iteration limit of a loaded method is the builder's: `usize::MAX` from JSON
    /// diverges and stops as it does when built (it ran forever).
    #[test]
    fn a_loaded_newton_that_cannot_converge_stops() {
        use timestep::{Integrator, Method, StepError};
        let json = format!(
            r#"{{"backward-euler":{{"tolerance":null,"max_iterations":{},"structure":"dense","linear_forces":false}}}}"#,
            usize::MAX
        );
        let mut method: Method<f64> = serde_json::from_str(&json).unwrap();
        let mut y = 1e-3;
        let jump = |y: &f64, _t: f64| -1e6 * y.signum();
        let error = method.step(&mut y, &jump, 0.0, 0.01).unwrap_err();
        assert!(matches!(error, StepError::Diverged { .. }), "{error:?}");
        assert_eq!(y, 1e-3);
    }

    /// A Rosenbrock method could not be saved with its band (or its autonomy) at all: it
    /// is saved with its settings and loads with the same, its stage count checked.
    #[test]
    fn a_rosenbrock_method_round_trips_with_every_setting() {
        let banded = Rodas4
            .with_structure(Structure::Banded { lower: 1, upper: 2 })
            .assume_autonomous();
        let json = serde_json::to_string(&banded).unwrap();
        assert_eq!(
            json,
            r#"{"method":"rodas4","structure":{"banded":{"lower":1,"upper":2}},"autonomous":true}"#
        );
        let loaded: Rosenbrock<6> = serde_json::from_str(&json).unwrap();
        assert_eq!(loaded, banded);
        assert_eq!(loaded.structure(), Structure::Banded { lower: 1, upper: 2 });
        let ros3p = Ros3p.with_structure(Structure::Banded { lower: 0, upper: 3 });
        let loaded: Rosenbrock<3> =
            serde_json::from_str(&serde_json::to_string(&ros3p).unwrap()).unwrap();
        assert_eq!(loaded, ros3p);
        let rodas5p = Rodas5P.with_structure(Structure::Banded { lower: 2, upper: 1 });
        let saved = serde_json::to_string(&rodas5p).unwrap();
        assert!(saved.starts_with(r#"{"method":"rodas5p","#), "{saved}");
        let loaded: Rosenbrock<8> = serde_json::from_str(&saved).unwrap();
        assert_eq!(loaded, rodas5p);
        // Rodas4 has 6 stages, not 3 nor 8; unknown fields; a tableau not the crate's own.
        assert!(serde_json::from_str::<Rosenbrock<3>>(&json).is_err());
        assert!(serde_json::from_str::<Rosenbrock<8>>(&json).is_err());
        assert!(serde_json::from_str::<Rosenbrock<6>>(&saved).is_err());
        let extra = json.replace('}', r#","colour":1}"#);
        assert!(serde_json::from_str::<Rosenbrock<6>>(&extra).is_err());
        static OTHER: timestep::RosenbrockTableau<6> = timestep::RosenbrockTableau {
            gamma: 0.3,
            ..Rodas4::TABLEAU
        };
        assert!(serde_json::to_string(&Rosenbrock::new(&OTHER)).is_err());
    }
}

// ---------------------------------------------------------------------------------------
// Round two: Particles check what Particle checks
// ---------------------------------------------------------------------------------------

/// A body of `f64::MAX` kg at 2 m/s: its momentum overflows, and `Particle::try_new`
/// refuses it; `Particles` accepted it and one step sent it to infinity. Every body is
/// checked as a `Particle` is, by the constructor and by the velocity setter, with the
/// same error and the body's index.
#[test]
fn particles_refuse_what_a_particle_refuses() {
    use timestep::{Particles, ParticlesError};
    let heavy = Particle::try_new(f64::MAX, 0.0, 2.0).unwrap_err();
    assert_eq!(
        heavy,
        MassError::MomentumOutOfRange {
            mass: f64::MAX,
            velocity: 2.0
        }
    );
    let refused = Particles::try_new(vec![1.0, f64::MAX], vec![0.0, 0.0], vec![1.0, 2.0]);
    assert_eq!(
        refused,
        Err(ParticlesError::Mass {
            index: 1,
            error: heavy
        })
    );
    // Underflow: 10⁻³⁰⁰ kg at 10⁻³⁰ m/s has a momentum of 10⁻³³⁰, which is 0 in f64.
    let light = Particle::try_new(1e-300, 0.0, 1e-30).unwrap_err();
    let refused = Particles::try_new(vec![1e-300], vec![0.0], vec![1e-30]);
    assert_eq!(
        refused,
        Err(ParticlesError::Mass {
            index: 0,
            error: light
        })
    );
    let mut bodies = Particles::new(vec![1.0, f64::MAX], vec![0.0, 0.0], vec![0.0, 0.0]);
    let before = bodies.clone();
    assert_eq!(
        bodies.try_set_velocity(1, 2.0),
        Err(ParticlesError::Mass {
            index: 1,
            error: heavy
        })
    );
    assert_eq!(bodies, before);
    bodies.try_set_velocity(1, 0.5).unwrap();
    assert_eq!(bodies.momenta()[1], 0.5 * f64::MAX);
    let panic = std::panic::catch_unwind(move || bodies.set_velocity(1, 2.0)).unwrap_err();
    let message = panic.downcast_ref::<String>().unwrap();
    assert!(
        message.contains("body 1") && message.contains("momentum"),
        "{message}"
    );
}

// ---------------------------------------------------------------------------------------
// Round two: forces of the wrong size
// ---------------------------------------------------------------------------------------

/// The message of the panic `run` makes.
fn panic_message(run: impl FnOnce() + std::panic::UnwindSafe) -> String {
    let payload = std::panic::catch_unwind(run).expect_err("expected a panic");
    match payload.downcast::<String>() {
        Ok(message) => *message,
        Err(payload) => payload.downcast_ref::<&str>().unwrap().to_string(),
    }
}

/// Forces that return 3 components for a state of 2 panicked in every method blaming a
/// resized state ("call `reset` on the stepper") or with a bare "index out of bounds".
/// Every method, at a fixed step and under error control, names the forces and both
/// sizes; a closure returning a `Vec` and an `InPlace` closure that resizes its buffer
/// alike. (`Forces::force_into` returns nothing, so a panic is how it is said.)
#[test]
fn forces_of_the_wrong_size_are_named_as_the_cause() {
    use timestep::{Adaptive, AdaptiveKind, InPlace, Particles};
    let expected = "the forces returned 3 components for a state of 2";
    let three = |_: &Vec<f64>, _t: f64| vec![0.0; 3];
    let resizing = InPlace(|_: &Vec<f64>, _t: f64, out: &mut Vec<f64>| out.push(0.0));
    for name in MethodKind::NAMES {
        let message = panic_message(|| {
            let mut method: Method<Vec<f64>> = name.parse().unwrap();
            let _ = method.step(&mut vec![1.0, 2.0], &three, 0.0, 0.1);
        });
        assert!(message.contains(expected), "{name}: {message}");
        let message = panic_message(|| {
            let mut method: Method<Vec<f64>> = name.parse().unwrap();
            let _ = method.step(&mut vec![1.0, 2.0], &resizing, 0.0, 0.1);
        });
        assert!(message.contains(expected), "{name} in place: {message}");
    }
    for kind in AdaptiveKind::all() {
        let message = panic_message(|| {
            let _ = Adaptive::new(kind).solve(&mut vec![1.0, 2.0], &three, 0.0, 1.0);
        });
        assert!(message.contains(expected), "{kind}: {message}");
    }
    // A linear part (exponential Euler) whose diagonal is resized.
    let message = panic_message(|| {
        use timestep::{Derivative, ExponentialEuler, Integrator, NoVelocity, WithLinearPart};
        let forces = WithLinearPart::new(
            |y: &Vec<f64>, _t: f64| y.iter().map(|y| -y).collect::<Vec<f64>>(),
            |_: &Vec<f64>, _t: f64, diagonal: &mut Derivative<NoVelocity<f64>, Vec<f64>>| {
                diagonal.force = vec![-1.0; 3];
            },
        );
        let _ = ExponentialEuler.step(&mut vec![1.0, 2.0], &forces, 0.0, 0.1);
    });
    assert!(
        message.contains("the linear part returned a diagonal of 3 components for a state of 2"),
        "{message}"
    );
    // Particles: one force per body.
    let message = panic_message(|| {
        let mut bodies = Particles::new(vec![1.0, 1.0], vec![0.0, 1.0], vec![0.0, 0.0]);
        let forces = |_: &Particles<f64>, _t: f64| vec![0.0; 3];
        let mut verlet: Method<Particles<f64>> = "verlet".parse().unwrap();
        let _ = verlet.step(&mut bodies, &forces, 0.0, 0.1);
    });
    assert!(message.contains(expected), "{message}");
}

/// Loading fuzzed documents: every serializable type, from a valid document with random
/// mutations (a value replaced by a hostile one: zero, negative, huge, tiny, out of `f32`'s
/// range, the wrong type; a field removed; an unknown field added). Each loads either
/// `Err`, or `Ok` with a value that saves and loads back to itself (so it passed every
/// check loading makes, and saving refuses nothing it holds); never a panic.
///
/// The case count is small for CI (32 per type); `TIMESTEP_FUZZ_CASES=100000 cargo test
/// --features serde --test timestep nothing_silent::serde_fuzz` runs longer.
#[cfg(feature = "serde")]
mod serde_fuzz {
    use glam::{DVec3, Vec3};
    use proptest::prelude::*;
    use serde::Serialize;
    use serde::de::DeserializeOwned;
    use serde_json::{Value, json};
    use std::fmt::Debug;
    use timestep::control::Controller;
    use timestep::rigid::{DRigidBody, Inertia, OrientationUpdate, RigidBody, Splitting};
    use timestep::{
        BackwardEuler, Derivative, FixedTimestep, ImplicitMidpoint, Method, MethodKind, Newmark,
        NoVelocity, Particle, Radau5, Rk4, Rodas4, Ros3p, Rosenbrock, Structure, Trapezoid,
    };

    fn cases() -> u32 {
        std::env::var("TIMESTEP_FUZZ_CASES")
            .ok()
            .and_then(|cases| cases.parse().ok())
            .unwrap_or(32)
    }

    /// Values a hostile document puts anywhere.
    fn hostile(seed: u64) -> Value {
        let values = [
            json!(0.0),
            json!(-0.0),
            json!(-1.0),
            json!(1),
            json!(0),
            json!(1e-310),
            json!(1e-45),
            json!(1e308),
            json!(-1e308),
            json!(1e39),
            json!(3.4e38),
            json!(u64::MAX),
            json!(i64::MIN),
            json!(0.5),
            json!("rk4"),
            json!("banded"),
            json!(""),
            Value::Null,
            json!(true),
            json!([]),
            json!({}),
            json!([1.0, 2.0, 3.0]),
            json!([1.0, 0.0, 0.0, 0.0]),
            json!({"lower": 1, "upper": 1}),
            json!({"banded": {"lower": 0, "upper": u64::MAX}}),
            json!({"rk4": {"unknown": 1}}),
            json!({"backward-euler": {}}),
            json!({"radau5": {"tolerance": 0.0, "max_iterations": 7}}),
        ];
        values[(seed % values.len() as u64) as usize].clone()
    }

    /// Every place in `value`, as the path of keys and indices to it.
    fn places(value: &Value, path: &mut Vec<Value>, out: &mut Vec<Vec<Value>>) {
        out.push(path.clone());
        match value {
            Value::Object(map) => {
                for (key, inner) in map {
                    path.push(json!(key));
                    places(inner, path, out);
                    path.pop();
                }
            }
            Value::Array(items) => {
                for (index, inner) in items.iter().enumerate() {
                    path.push(json!(index));
                    places(inner, path, out);
                    path.pop();
                }
            }
            _ => {}
        }
    }

    fn at<'v>(value: &'v mut Value, path: &[Value]) -> &'v mut Value {
        path.iter().fold(value, |value, key| match key {
            Value::String(key) => &mut value[key.as_str()],
            Value::Number(index) => &mut value[index.as_u64().unwrap() as usize],
            _ => unreachable!(),
        })
    }

    /// Applies one mutation, chosen by `what`, at the place chosen by `where_`.
    fn mutate(document: &mut Value, where_: u64, what: u64) {
        let mut all = Vec::new();
        places(document, &mut Vec::new(), &mut all);
        let path = &all[(where_ % all.len() as u64) as usize];
        match what % 4 {
            // Remove a field (or an array item), or the value itself.
            0 => match path.split_last() {
                Some((Value::String(key), parent)) => {
                    at(document, parent).as_object_mut().unwrap().remove(key);
                }
                Some((Value::Number(index), parent)) => {
                    at(document, parent)
                        .as_array_mut()
                        .unwrap()
                        .remove(index.as_u64().unwrap() as usize);
                }
                _ => *document = hostile(what / 4),
            },
            // Add an unknown field to an object.
            1 => {
                if let Value::Object(map) = at(document, path) {
                    map.insert("unknown".into(), hostile(what / 4));
                } else {
                    *at(document, path) = hostile(what / 4);
                }
            }
            // Scale a number by a hostile factor, or replace the value.
            2 => {
                let place = at(document, path);
                match place.as_f64() {
                    Some(x) => {
                        let factors = [0.0, -1.0, 1e300, 1e-300, 1e30, 1e-30, 1.0 + 1e-7];
                        let factor = factors[(what / 4 % factors.len() as u64) as usize];
                        *place = json!(x * factor);
                    }
                    None => *place = hostile(what / 4),
                }
            }
            _ => *at(document, path) = hostile(what / 4),
        }
    }

    fn check<T>(valid: &T, mutations: &[(u64, u64)]) -> Result<(), TestCaseError>
    where
        T: Serialize + DeserializeOwned + PartialEq + Debug,
    {
        let mut document = serde_json::to_value(valid).unwrap();
        for &(where_, what) in mutations {
            mutate(&mut document, where_, what);
        }
        let text = serde_json::to_string(&document).unwrap();
        if let Ok(loaded) = serde_json::from_str::<T>(&text) {
            let saved = serde_json::to_string(&loaded);
            prop_assert!(
                saved.is_ok(),
                "{text} loaded as {loaded:?}, which does not save"
            );
            let again = serde_json::from_str::<T>(&saved.unwrap());
            prop_assert!(
                again.is_ok(),
                "{text} loaded as {loaded:?}, which does not load back"
            );
            prop_assert_eq!(again.unwrap(), loaded, "{}", text);
        }
        Ok(())
    }

    fn mutations() -> impl Strategy<Value = Vec<(u64, u64)>> {
        prop::collection::vec((any::<u64>(), any::<u64>()), 1..4)
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(cases()))]

        #[test]
        fn states_load_valid_or_refused(mutations in mutations()) {
            let mut particle = Particle::new(2.0, 1.0, 3.0);
            particle.set_momentum(5.0);
            check(&particle, &mutations)?;
            check(&Particle::new(1e20_f32, 1.0_f32, 1e-10), &mutations)?;
            check(&Particle::new(3.0, DVec3::new(1.0, 2.0, 3.0), DVec3::X), &mutations)?;
            check(&Particle::new(3.0_f32, Vec3::ONE, Vec3::Y), &mutations)?;
            check(&Derivative::new(1.0_f64, 2.0_f64), &mutations)?;
            check(&NoVelocity::<f64>::default(), &mutations)?;
            let mut body = DRigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 2.0, 3.0));
            body.set_angular_momentum(DVec3::new(1.0, -2.0, 0.5));
            body.set_momentum(DVec3::new(0.0, 4.0, 0.0));
            check(&body, &mutations)?;
            check(&RigidBody::new(1.0, Inertia::cube(1.0, 1.0)), &mutations)?;
            check(&Inertia::cuboid(2.0, 1.0, 2.0, 3.0), &mutations)?;
            check(&OrientationUpdate::Exponential, &mutations)?;
        }

        #[test]
        fn methods_and_settings_load_valid_or_refused(mutations in mutations()) {
            for method in MethodKind::all() {
                check(&method, &mutations)?;
            }
            let banded = Structure::Banded { lower: 1, upper: 2 };
            check(&MethodKind::BackwardEuler(BackwardEuler::new().with_tolerance(1e-9)), &mutations)?;
            check(&MethodKind::Newmark(Newmark::linear_acceleration()), &mutations)?;
            check(&MethodKind::Radau5(Radau5::new().with_structure(banded)), &mutations)?;
            check(&"rk4".parse::<Method<f64>>().unwrap(), &mutations)?;
            check(&BackwardEuler::new().with_structure(banded).with_max_iterations(3), &mutations)?;
            check(&Trapezoid::new().with_linear_forces(), &mutations)?;
            check(&ImplicitMidpoint::new().with_tolerance(1e-6), &mutations)?;
            check(&Newmark::new(), &mutations)?;
            check(&Radau5::new().with_tolerance(1e-4), &mutations)?;
            check(&Rodas4.with_structure(banded).assume_autonomous(), &mutations)?;
            check(&Ros3p.with_structure(banded), &mutations)?;
            check(&Rosenbrock::new(&Rodas4::TABLEAU), &mutations)?;
            check(&Rk4, &mutations)?;
            check(&Splitting, &mutations)?;
            check(&banded, &mutations)?;
            check(&Controller::default(), &mutations)?;
            let mut clock = FixedTimestep::new(0.25);
            assert_eq!(clock.advance(0.1).unwrap().steps(), 0);
            check(&clock, &mutations)?;
        }
    }
}

// ---------------------------------------------------------------------------------------
// Round two: events inside a step
// ---------------------------------------------------------------------------------------

/// The `Event` docs' ball (dropped from 10 m, restitution 0.9) run to t = 10 instead of 3:
/// it fell through the floor, `Ok` with one bounce of four found and the ball 252 m below.
/// After the first bounce the step grew tenfold and spanned a whole flight, up and back
/// down through the floor: the event function was negative (or zero) at both of the
/// step's ends and its sign change went unseen. The closed form: the first bounce at
/// `t₁ = √(2h/g)` with speed `v₁ = g t₁`, each flight after bounce `k` lasting
/// `2 eᵏ v₁ / g`; four bounces before t = 10. Every method with error control finds all
/// four, and no state the run passes through is below the floor.
#[test]
fn a_bouncing_ball_bounces_every_time_and_never_falls_through() {
    use timestep::adaptive::{Direction, Event};
    use timestep::{Adaptive, AdaptiveKind, Tolerances};
    let (g, height, restitution): (f64, f64, f64) = (9.81, 10.0, 0.9);
    let first = (2.0 * height / g).sqrt();
    let mut exact = vec![first];
    let mut speed = g * first;
    while exact.len() < 5 {
        speed *= restitution;
        exact.push(exact.last().unwrap() + 2.0 * speed / g);
    }
    assert!(exact[3] < 10.0 && exact[4] > 10.0);
    let gravity = |y: &[f64; 2], _t: f64| [y[1], -g];
    // The Nyström pairs bounce a `Particle` in `integrators::nystrom`.
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        let ground = Event::new(|y: &[f64; 2], _t: f64| y[0])
            .direction(Direction::Falling)
            .action(move |y: &mut [f64; 2], _t: f64| y[1] *= -restitution);
        let solution = Adaptive::new(kind)
            .with_tolerances(Tolerances::new(1e-10, 1e-10))
            .integrate(&gravity, [height, 0.0], 0.0, 10.0)
            .events(ground)
            .solve()
            .unwrap_or_else(|error| panic!("{kind}: {error}"));
        let bounces: Vec<f64> = solution.events.iter().map(|fired| fired.t).collect();
        assert_eq!(bounces.len(), 4, "{kind}: bounces at {bounces:?}");
        for (found, expected) in bounces.iter().zip(&exact) {
            assert!((found - expected).abs() < 1e-6, "{kind}: {bounces:?}");
        }
        for (t, state) in solution.times.iter().zip(&solution.states) {
            assert!(state[0] > -1e-6, "{kind}: at t = {t}, y = {}", state[0]);
        }
    }
}

// ---------------------------------------------------------------------------------------
// Round two: well-conditioned stiff steps are taken
// ---------------------------------------------------------------------------------------

/// Backward Euler on `y' = −k (y − cos t)`, `k = 10¹⁶`, `dt = 0.01`: each step's answer
/// `y₁ = (y₀ + dt k cos t₁) / (1 + dt k)` is perfectly conditioned, but the second step was
/// refused as "too long for the state's precision": the rounding bound took each residual
/// row's rounding (`64 ε k |y|` ≈ 10³) as the rate's, ignoring the damping of
/// `(1 + dt k)⁻¹` = 10⁻¹⁴. Ten steps, each the closed form to the Newton tolerance, for
/// backward Euler, the trapezoidal rule (whose answer is
/// `(y₀ (1 − dt k/2) + dt k (cos t₀ + cos t₁)/2) / (1 + dt k/2)`) and a 3-unknown system
/// of such rows coupled weakly (still diagonally dominant).
#[test]
fn a_well_conditioned_stiff_step_is_taken() {
    use approx::assert_relative_eq;
    use timestep::{BackwardEuler, Stepper, Trapezoid};
    let k = 1e16;
    let forces = move |y: &f64, t: f64| -k * (y - t.cos());
    let dt = 0.01;
    let (mut euler, mut trapezoid) = (0.5, 0.5);
    let mut euler_stepper = Stepper::new(BackwardEuler::new());
    let mut trapezoid_stepper = Stepper::new(Trapezoid::new());
    for i in 0..10 {
        let t = i as f64 * dt;
        let exact = (euler + dt * k * (t + dt).cos()) / (1.0 + dt * k);
        euler_stepper
            .step(&mut euler, &forces, t, dt)
            .unwrap_or_else(|error| panic!("backward Euler, step {i}: {error}"));
        // To the Newton tolerance, ε^(2/3) relative to the rate (about 50 here).
        assert_relative_eq!(euler, exact, max_relative = 1e-9);
        let h = 0.5 * dt * k;
        let exact = (trapezoid * (1.0 - h) + h * (t.cos() + (t + dt).cos())) / (1.0 + h);
        trapezoid_stepper
            .step(&mut trapezoid, &forces, t, dt)
            .unwrap_or_else(|error| panic!("trapezoid, step {i}: {error}"));
        assert_relative_eq!(trapezoid, exact, max_relative = 1e-9, epsilon = 1e-9);
    }
    assert_relative_eq!(euler, 0.1_f64.cos(), max_relative = 1e-9);
    // Three such rows, each pulled a thousandth as hard towards its neighbours.
    let coupled = move |y: &Vec<f64>, t: f64| {
        (0..3)
            .map(|i| -k * (y[i] - t.cos()) + 1e-3 * k * (y[(i + 1) % 3] - y[i]))
            .collect::<Vec<f64>>()
    };
    let mut y = vec![0.5, 0.0, -0.5];
    let mut stepper = Stepper::new(BackwardEuler::new());
    for i in 0..10 {
        stepper
            .step(&mut y, &coupled, i as f64 * dt, dt)
            .unwrap_or_else(|error| panic!("coupled, step {i}: {error}"));
    }
    // Pulled to cos t within 10⁻¹⁴ after the first step; the Newton tolerance remains.
    for y in y {
        assert_relative_eq!(y, 0.1_f64.cos(), max_relative = 1e-9);
    }
}
