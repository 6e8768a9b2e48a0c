//! What the generic model costs: the crate's `step` against the same arithmetic written by
//! hand, for RK4 and semi-implicit Euler, on a 1-D spring in `f64` and a 3-D spring in `f32`.
//!
//! The hand-written code keeps the crate's state layout and operation order: position,
//! momentum, and a velocity recalculated as `p · (1/m)` after every change of momentum
//! (advanced as `v + F · (dt/m)` in a Runge–Kutta stage's temporary probe, as
//! `Particle::probe` does), so both sides do the same flops and any difference is the
//! abstraction's. Both are checked to agree bit for bit before measuring. Each iteration
//! runs [`STEPS`] steps, so a step's cost (a few nanoseconds) is well above the timer's
//! resolution.
//!
//! ```text
//! cargo bench --bench overhead
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use glam::Vec3;
use std::hint::black_box;
use std::time::Duration;
use timestep::{Integrator, Particle, Rk4, SemiImplicitEuler, State};

/// Steps per measured iteration.
const STEPS: usize = 1000;

/// Spring constant (N/m) of both springs.
const K: f64 = 15.0;

/// Time step (s).
const DT: f64 = 0.001;

/// A particle laid out as the crate's [`Particle`] is: position, momentum, velocity, mass and
/// inverse mass. The velocity is recalculated from the momentum after every kick.
#[derive(Clone, Copy)]
struct HandParticle<V: f32or64::HasScalar> {
    position: V,
    momentum: V,
    velocity: V,
    inverse_mass: f32or64::Scalar<V>,
}

/// The scalar of a hand-written vector type.
mod f32or64 {
    pub trait HasScalar {
        type Scalar: Copy;
    }
    impl HasScalar for f64 {
        type Scalar = f64;
    }
    impl HasScalar for glam::Vec3 {
        type Scalar = f32;
    }
    pub type Scalar<V> = <V as HasScalar>::Scalar;
}

/// Hand-written semi-implicit Euler and RK4 for one vector type, in the crate's operation
/// order: kick (momentum, then velocity = momentum · inverse mass), then drift; RK4 samples
/// probe states advanced by drift-then-kick and combines `k₁ + 2(k₂ + k₃) + k₄` before one
/// advance by `dt/6`.
macro_rules! handwritten {
    ($name_sie:ident, $name_rk4:ident, $v:ty, $s:ty) => {
        #[inline(never)]
        fn $name_sie(state: &mut HandParticle<$v>, k: $s, dt: $s, steps: usize) {
            for _ in 0..steps {
                let force = state.position * -k;
                state.momentum += force * dt;
                state.velocity = state.momentum * state.inverse_mass;
                state.position += state.velocity * dt;
            }
        }

        #[inline(never)]
        fn $name_rk4(state: &mut HandParticle<$v>, k: $s, dt: $s, steps: usize) {
            // The rate (velocity, force) at a state: the spring pulls on the position.
            let rate = |s: &HandParticle<$v>| (s.velocity, s.position * -k);
            // The probe state `start` advanced by `rate · h`, and the rate there. As the
            // crate's particle does, the probe's velocity is advanced by `f · (h/m)`; the
            // state itself is recalculated from its momentum.
            let sample = |start: &HandParticle<$v>, (v, f): ($v, $v), h: $s| {
                let mut probe = *start;
                probe.position += v * h;
                probe.momentum += f * h;
                probe.velocity += f * (h * probe.inverse_mass);
                rate(&probe)
            };
            let half = dt * 0.5;
            for _ in 0..steps {
                let k1 = rate(state);
                let k2 = sample(state, k1, half);
                let k3 = sample(state, k2, half);
                let k4 = sample(state, k3, dt);
                let v = k1.0 + (k2.0 + k3.0) * 2.0 + k4.0;
                let f = k1.1 + (k2.1 + k3.1) * 2.0 + k4.1;
                let sixth = dt / 6.0;
                state.position += v * sixth;
                state.momentum += f * sixth;
                state.velocity = state.momentum * state.inverse_mass;
            }
        }
    };
}
handwritten!(hand_sie_f64, hand_rk4_f64, f64, f64);
handwritten!(hand_sie_vec3, hand_rk4_vec3, Vec3, f32);

/// `steps` steps of `integrator` from `t = 0`, through the crate's public API.
macro_rules! with_timestep {
    ($name:ident, $v:ty, $s:ty) => {
        #[inline(never)]
        fn $name<I: Integrator<Particle<$v>>>(
            integrator: &mut I,
            state: &mut Particle<$v>,
            k: $s,
            dt: $s,
            steps: usize,
        ) {
            let spring = move |p: &Particle<$v>, _t: $s| p.position() * -k;
            for i in 0..steps {
                integrator
                    .step(state, &spring, i as $s * dt, dt)
                    .expect("finite time");
            }
        }
    };
}
with_timestep!(timestep_f64, f64, f64);
with_timestep!(timestep_vec3, Vec3, f32);

fn spring_f64() -> (Particle<f64>, HandParticle<f64>) {
    let particle = Particle::new(2.0, 1.0, 0.5);
    let hand = HandParticle {
        position: particle.position(),
        momentum: particle.momentum(),
        velocity: particle.velocity(),
        inverse_mass: particle.inverse_mass(),
    };
    (particle, hand)
}

fn spring_vec3() -> (Particle<Vec3>, HandParticle<Vec3>) {
    let particle = Particle::new(2.0, Vec3::new(1.0, -0.5, 0.25), Vec3::new(0.0, 0.5, 1.0));
    let hand = HandParticle {
        position: particle.position(),
        momentum: particle.momentum(),
        velocity: particle.velocity(),
        inverse_mass: particle.inverse_mass(),
    };
    (particle, hand)
}

/// Checks once that both sides compute the same numbers, bit for bit, so the comparison is
/// of the same work.
fn assert_same_arithmetic() {
    let (mut p, mut h) = spring_f64();
    timestep_f64(&mut SemiImplicitEuler, &mut p, K, DT, STEPS);
    hand_sie_f64(&mut h, K, DT, STEPS);
    assert_eq!((p.position(), p.velocity()), (h.position, h.velocity));

    let (mut p, mut h) = spring_f64();
    timestep_f64(&mut Rk4, &mut p, K, DT, STEPS);
    hand_rk4_f64(&mut h, K, DT, STEPS);
    assert_eq!((p.position(), p.velocity()), (h.position, h.velocity));

    let (mut p, mut h) = spring_vec3();
    timestep_vec3(&mut SemiImplicitEuler, &mut p, K as f32, DT as f32, STEPS);
    hand_sie_vec3(&mut h, K as f32, DT as f32, STEPS);
    assert_eq!((p.position(), p.velocity()), (h.position, h.velocity));

    let (mut p, mut h) = spring_vec3();
    timestep_vec3(&mut Rk4, &mut p, K as f32, DT as f32, STEPS);
    hand_rk4_vec3(&mut h, K as f32, DT as f32, STEPS);
    assert_eq!((p.position(), p.velocity()), (h.position, h.velocity));
}

fn overhead(c: &mut Criterion) {
    assert_same_arithmetic();

    macro_rules! group {
        ($name:expr, $setup:ident, $hand:ident, $crate_fn:ident, $integrator:expr, $s:ty) => {{
            let mut group = c.benchmark_group($name);
            let (particle, hand) = $setup();
            let (k, dt) = (K as $s, DT as $s);
            group.bench_function("handwritten", |b| {
                b.iter(|| {
                    let mut state = black_box(hand);
                    $hand(&mut state, black_box(k), black_box(dt), STEPS);
                    black_box(state.position)
                })
            });
            group.bench_function("timestep", |b| {
                b.iter(|| {
                    let mut state = black_box(particle);
                    $crate_fn(
                        &mut $integrator,
                        &mut state,
                        black_box(k),
                        black_box(dt),
                        STEPS,
                    );
                    black_box(state.position())
                })
            });
            group.finish();
        }};
    }

    group!(
        "overhead/semi-implicit-euler-spring-f64",
        spring_f64,
        hand_sie_f64,
        timestep_f64,
        SemiImplicitEuler,
        f64
    );
    group!(
        "overhead/rk4-spring-f64",
        spring_f64,
        hand_rk4_f64,
        timestep_f64,
        Rk4,
        f64
    );
    group!(
        "overhead/semi-implicit-euler-vec3-f32",
        spring_vec3,
        hand_sie_vec3,
        timestep_vec3,
        SemiImplicitEuler,
        f32
    );
    group!(
        "overhead/rk4-vec3-f32",
        spring_vec3,
        hand_rk4_vec3,
        timestep_vec3,
        Rk4,
        f32
    );
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = overhead
}
criterion_main!(benches);
