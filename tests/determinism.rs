//! Determinism: with the `deterministic` feature the same inputs give the same bits on every
//! build (see "Determinism" in the crate docs).
//!
//! Each scenario runs a fixed problem and hashes every `f64` (or `f32`) it ends with, bit for
//! bit (FNV-1a over `to_bits()`, written here so that no hasher's version can change it),
//! against a constant: the hash this file's author got on x86-64 (libm 0.2.16). `.ci/run`
//! runs it in debug and release, for `x86-64-v3`, with glibc's AVX2/FMA code masked, and
//! with rayon on 1 and 2 threads; on another architecture, a failure here means its bits
//! differ from x86-64's. Without the feature the platform's libm is used, and these hashes
//! change with the CPU glibc finds, which is why the file needs the feature.
//!
//! The forces are polynomials: a user's own `sin` would be the platform's, outside what the
//! crate can promise. The crate's own functions are all reached: `powf` (the step-size
//! controllers, Radau5's Newton iteration, the implicit methods' tolerance), `sin`/`cos`
//! (the splitting and the exponential map of a rigid body's rotation), `exp_m1`
//! (exponential Euler) and `cbrt` (Radau5's coefficients).
//!
//! When a scenario changes on purpose, run `cargo test --features deterministic --test
//! determinism -- --nocapture` and copy the hashes it prints.
#![cfg(feature = "deterministic")]

use glam::{DQuat, DVec3, Quat, Vec3};
use timestep::adaptive::{Direction, Event};
use timestep::rigid::{Body, DRigidBody, Inertia, OrientationUpdate, Precision, Splitting};
use timestep::{
    Adaptive, AdaptiveKind, Derivative, ExponentialEuler, Integrator, Method, MethodKind,
    NoVelocity, Particle, Radau5, Tolerances, WithLinearPart,
};

/// FNV-1a, 64 bits, over the little-endian bytes of each value's bits.
struct Fnv(u64);

impl Fnv {
    fn new() -> Self {
        Fnv(0xcbf2_9ce4_8422_2325)
    }

    fn bits(&mut self, bits: u64) {
        for byte in bits.to_le_bytes() {
            self.0 = (self.0 ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01b3);
        }
    }

    fn f64s(&mut self, values: &[f64]) {
        values.iter().for_each(|x| self.bits(x.to_bits()));
    }

    fn f32s(&mut self, values: &[f32]) {
        values
            .iter()
            .for_each(|x| self.bits(u64::from(x.to_bits())));
    }
}

/// Checks a scenario's hash, printing it so that a deliberate change is easy to copy.
fn check(scenario: &str, hash: Fnv, expected: u64) {
    println!("{scenario}: {:#018x}", hash.0);
    assert_eq!(
        hash.0, expected,
        "{scenario}: hash {:#018x}, expected {expected:#018x}: the bits differ from x86-64's",
        hash.0
    );
}

const STEPS: usize = 100;

/// A damped spring pulled sideways and down, in 3D.
fn spring_f64(p: &Particle<DVec3>, t: f64) -> DVec3 {
    -15.0 * p.position() - 0.3 * p.velocity() + DVec3::new(0.5 * t, 0.0, -9.81)
}

fn spring_f32(p: &Particle<Vec3>, t: f32) -> Vec3 {
    -15.0 * p.position() - 0.3 * p.velocity() + Vec3::new(0.5 * t, 0.0, -9.81)
}

#[test]
fn every_method_on_a_particle_f64() {
    let mut hash = Fnv::new();
    // One method at a time: an array of every `Method` is too large for a test thread.
    for kind in MethodKind::all() {
        let mut method = Method::<Particle<DVec3>>::new(kind);
        let mut p = Particle::new(2.0, DVec3::new(1.0, 0.5, 0.0), DVec3::new(0.0, 1.0, 3.0));
        for i in 0..STEPS {
            method
                .step(&mut p, &spring_f64, i as f64 * 0.01, 0.01)
                .unwrap();
        }
        hash.f64s(&p.position().to_array());
        hash.f64s(&p.momentum().to_array());
    }
    check("particle f64", hash, 0xc8ef_6031_47d6_ae7a);
}

#[test]
fn every_method_on_a_particle_f32() {
    let mut hash = Fnv::new();
    for kind in MethodKind::all() {
        let mut method = Method::<Particle<Vec3>>::new(kind);
        let mut p = Particle::new(2.0, Vec3::new(1.0, 0.5, 0.0), Vec3::new(0.0, 1.0, 3.0));
        for i in 0..STEPS {
            method
                .step(&mut p, &spring_f32, i as f32 * 0.01, 0.01)
                .unwrap();
        }
        hash.f32s(&p.position().to_array());
        hash.f32s(&p.momentum().to_array());
    }
    check("particle f32", hash, 0xfd93_9bc2_8a63_bd41);
}

/// A tumbling body (three distinct moments), turned by its exponential map, pushed off
/// centre: gravity and a force at a point of the body.
fn tumbling_body<S: Precision>() -> Body<S> {
    let mut body = Body::<S>::new(S::from_f64(2.0), Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_orientation_update(OrientationUpdate::Exponential);
    body
}

fn pushed_f64(body: &DRigidBody, _t: f64) -> (DVec3, DVec3) {
    let force = DVec3::new(0.0, 1.0, -9.81);
    let arm = body.orientation() * DVec3::X;
    (force, arm.cross(force))
}

fn pushed_f32(body: &timestep::rigid::RigidBody, _t: f32) -> (Vec3, Vec3) {
    let force = Vec3::new(0.0, 1.0, -9.81);
    let arm = body.orientation() * Vec3::X;
    (force, arm.cross(force))
}

#[test]
fn every_method_on_a_rigid_body_f64() {
    let mut hash = Fnv::new();
    let start = || {
        let mut body = tumbling_body::<f64>();
        body.set_orientation(DQuat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize());
        body.set_angular_momentum(DVec3::new(3.0, 0.2, 1.0));
        body
    };
    let record = |hash: &mut Fnv, body: &DRigidBody| {
        hash.f64s(&body.position().to_array());
        hash.f64s(&body.momentum().to_array());
        hash.f64s(&body.orientation().to_array());
        hash.f64s(&body.angular_momentum().to_array());
    };
    for kind in MethodKind::all() {
        let mut method = Method::<DRigidBody>::new(kind);
        let mut body = start();
        for i in 0..STEPS {
            method
                .step(&mut body, &pushed_f64, i as f64 * 0.01, 0.01)
                .unwrap();
        }
        record(&mut hash, &body);
    }
    let mut body = start();
    for i in 0..STEPS {
        Splitting
            .step(&mut body, &pushed_f64, i as f64 * 0.01, 0.01)
            .unwrap();
    }
    record(&mut hash, &body);
    check("rigid body f64", hash, 0xde08_b681_044b_3e73);
}

#[test]
fn every_method_on_a_rigid_body_f32() {
    let mut hash = Fnv::new();
    let start = || {
        let mut body = tumbling_body::<f32>();
        body.set_orientation(Quat::from_xyzw(0.1, 0.2, 0.3, 0.9).normalize());
        body.set_angular_momentum(Vec3::new(3.0, 0.2, 1.0));
        body
    };
    let record = |hash: &mut Fnv, body: &timestep::rigid::RigidBody| {
        hash.f32s(&body.position().to_array());
        hash.f32s(&body.momentum().to_array());
        hash.f32s(&body.orientation().to_array());
        hash.f32s(&body.angular_momentum().to_array());
    };
    for kind in MethodKind::all() {
        let mut method = Method::<timestep::rigid::RigidBody>::new(kind);
        let mut body = start();
        for i in 0..STEPS {
            method
                .step(&mut body, &pushed_f32, i as f32 * 0.01, 0.01)
                .unwrap();
        }
        record(&mut hash, &body);
    }
    let mut body = start();
    for i in 0..STEPS {
        Splitting
            .step(&mut body, &pushed_f32, i as f32 * 0.01, 0.01)
            .unwrap();
    }
    record(&mut hash, &body);
    check("rigid body f32", hash, 0xa329_c972_0fc3_f2c4);
}

/// A chain of 8 unit masses on springs, `y = (x, v)`, the ends held, sized at run time.
#[test]
fn every_method_on_a_vec() {
    // A closure: the forces of a `Vec<f64>` state take `&Vec<f64>`.
    let chain = |y: &Vec<f64>, _t: f64| -> Vec<f64> {
        let n = y.len() / 2;
        let x = |i: usize| if i < n { y[i] } else { 0.0 };
        let mut rate = vec![0.0; 2 * n];
        for i in 0..n {
            let left = if i == 0 { 0.0 } else { x(i - 1) };
            rate[i] = y[n + i];
            rate[n + i] = 40.0 * (left - 2.0 * x(i) + x(i + 1)) - 0.1 * y[n + i];
        }
        rate
    };
    let mut hash = Fnv::new();
    for kind in MethodKind::all() {
        let mut method = Method::<Vec<f64>>::new(kind);
        let mut y: Vec<f64> = (0..16)
            .map(|i| if i < 8 { 0.1 * i as f64 } else { 0.0 })
            .collect();
        for i in 0..STEPS {
            method.step(&mut y, &chain, i as f64 * 0.01, 0.01).unwrap();
        }
        hash.f64s(&y);
    }
    check("vec", hash, 0x2c0b_21e4_41c7_c3ec);
}

/// Exponential Euler's `(e^z − 1)/z` on a stiff decay towards a moving target.
#[test]
fn exponential_euler_with_a_linear_part() {
    let forces = WithLinearPart::new(
        |y: &f64, t: f64| -1000.0 * (y - t * t),
        |_: &f64, _t: f64, diagonal: &mut Derivative<NoVelocity<f64>, f64>| {
            diagonal.force = -1000.0
        },
    );
    let mut hash = Fnv::new();
    let mut y = 0.0_f64;
    for i in 0..STEPS {
        ExponentialEuler
            .step(&mut y, &forces, i as f64 * 0.01, 0.01)
            .unwrap();
        hash.f64s(&[y]);
    }
    check("exponential euler", hash, 0x80e7_bdf0_264c_0630);
}

/// The Arenstorf orbit (examples/problems), Hairer–Nørsett–Wanner's test of step-size
/// control.
fn arenstorf(y: &[f64; 4], _t: f64) -> [f64; 4] {
    const MU: f64 = 0.012277471;
    let [y1, y2, v1, v2] = *y;
    let mu_hat = 1.0 - MU;
    // r³ as r² · √r² (IEEE 754 rounds `sqrt` correctly; the platform's `powf` may not).
    let cube = |r2: f64| r2 * r2.sqrt();
    let d1 = cube((y1 + MU) * (y1 + MU) + y2 * y2);
    let d2 = cube((y1 - mu_hat) * (y1 - mu_hat) + y2 * y2);
    [
        v1,
        v2,
        y1 + 2.0 * v2 - mu_hat * (y1 + MU) / d1 - MU * (y1 - mu_hat) / d2,
        y2 - 2.0 * v1 - mu_hat * y2 / d1 - MU * y2 / d2,
    ]
}

/// Every method with error control at its default tolerances over one Arenstorf period,
/// each crossing of `y₂ = 0` located as an event.
#[test]
fn adaptive_runs_with_events() {
    let mut hash = Fnv::new();
    // First order: the Nyström pairs refuse it.
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|kind| !kind.needs_second_order())
    {
        let mut y = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
        let mut crossing = Event::new(|y: &[f64; 4], _t: f64| y[1]).direction(Direction::Either);
        let mut times = Vec::new();
        let statistics = Adaptive::new(kind)
            .solve_with_events(
                &mut y,
                &arenstorf,
                0.0,
                17.065_216_560_157_96,
                &mut crossing,
                |_, t, _| times.push(t),
            )
            .unwrap();
        hash.f64s(&y);
        hash.f64s(&times);
        hash.bits(statistics.evaluations);
        hash.bits(statistics.accepted);
        hash.bits(statistics.rejected);
    }
    check("adaptive with events", hash, 0x3303_b520_b5c5_5086);
}

/// Radau5 on the van der Pol oscillator at μ = 1000 (stiff), tight tolerances.
#[test]
fn radau5_on_a_stiff_problem() {
    let van_der_pol = |y: &[f64; 2], _t: f64| [y[1], 1000.0 * (1.0 - y[0] * y[0]) * y[1] - y[0]];
    let mut y = [2.0, 0.0];
    let statistics = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-8, 1e-8))
        .solve(&mut y, &van_der_pol, 0.0, 3000.0)
        .unwrap();
    let mut hash = Fnv::new();
    hash.f64s(&y);
    hash.bits(statistics.evaluations);
    hash.bits(statistics.accepted);
    hash.bits(statistics.rejected);
    hash.bits(statistics.jacobians);
    hash.bits(statistics.decompositions);
    check("radau5", hash, 0x432b_0d19_d64c_20a1);
}

/// A batch of particles over several of `par_step_all`'s chunks, on however many threads
/// rayon has (`RAYON_NUM_THREADS`): each state's step depends on that state alone.
#[cfg(feature = "rayon")]
#[test]
fn parallel_batch() {
    let n = 3 * timestep::batch::CHUNK + 17;
    let mut states: Vec<Particle<DVec3>> = (0..n)
        .map(|i| {
            let s = i as f64 / n as f64;
            Particle::new(
                1.0 + s,
                DVec3::new(s, 1.0 - s, 0.5),
                DVec3::new(0.0, s, 1.0),
            )
        })
        .collect();
    for i in 0..10 {
        timestep::batch::par_step_all(
            &timestep::Rk4,
            &mut states,
            &spring_f64,
            i as f64 * 0.01,
            0.01,
        )
        .unwrap();
    }
    let mut hash = Fnv::new();
    for p in &states {
        hash.f64s(&p.position().to_array());
        hash.f64s(&p.momentum().to_array());
    }
    check("parallel batch", hash, 0x4eb5_7830_f435_aaef);
}
