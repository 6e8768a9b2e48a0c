//! What the generic model costs: the crate's `step` against the same arithmetic written by
//! hand, for RK4 and semi-implicit Euler, on a 1-D spring in `f64`, a 3-D spring in `f32`,
//! and a tumbling [`RigidBody`] (`f32`) under gravity, a spring and angular drag.
//!
//! The hand-written code keeps the crate's state layout and operation order: position,
//! momentum, and a velocity recalculated as `p · (1/m)` after every change of momentum
//! (advanced as `v + F · (dt/m)` in a Runge–Kutta stage's temporary probe, as
//! `Particle::probe` does), so both sides do the same flops and any difference is the
//! abstraction's. Both are checked to agree bit for bit before measuring. Each iteration
//! runs [`STEPS`] steps, so a step's cost (a few nanoseconds) is well above the timer's
//! resolution. The crate's side is called as a game calls it, with `t = i·dt` and
//! `.expect()` on the result.
//!
//! ```text
//! cargo bench --bench overhead
//! ```
//!
//! With `OVERHEAD_PROFILE=<case>` in the environment the binary runs one case once without
//! criterion, for `valgrind --tool=callgrind --toggle-collect='overhead::run_case'` (cases:
//! see [`run_case`]): how the `deterministic` feature's functions compare in instructions.

use criterion::{Criterion, criterion_group};
use glam::{Mat3, Quat, Vec3};
use std::hint::black_box;
use std::time::Duration;
use timestep::rigid::{Inertia, OrientationUpdate, RigidBody};
use timestep::{
    Adaptive, Dopri5, Integrator, Particle, Radau5, Rk4, SemiImplicitEuler, Tolerances,
};

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
/// probe states advanced by drift-then-kick and combines `k₁/6 + k₂/3 + k₃/3 + k₄/6` (the
/// tableau's weights, term by term) before one advance by `dt`.
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
                // The tableau's weights, b = (1/6, 1/3, 1/3, 1/6), each term scaled.
                let (sixth, third) = ((1.0_f64 / 6.0) as $s, (1.0_f64 / 3.0) as $s);
                let v = k1.0 * sixth + k2.0 * third + k3.0 * third + k4.0 * sixth;
                let f = k1.1 * sixth + k2.1 * third + k3.1 * third + k4.1 * sixth;
                state.position += v * dt;
                state.momentum += f * dt;
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

/// A rigid body laid out as the crate's [`RigidBody`] is (primary, secondary, constant), with
/// its update written out: the same glam operations in the same order, with the additive
/// orientation update only (the crate's body chooses its update at run time). Everything is
/// inlined into the stepping loop (`#[inline(always)]`), the fastest way found to write it.
#[derive(Clone, Copy)]
struct HandBody {
    // Primary.
    position: Vec3,
    momentum: Vec3,
    orientation: Quat,
    angular_momentum: Vec3,
    // Secondary.
    velocity: Vec3,
    rotation: Mat3,
    inverse_inertia_world: Mat3,
    angular_velocity: Vec3,
    spin: Quat,
    // Constant (the unused ones keep the size, which RK4's probes copy).
    mass: f32,
    inverse_mass: f32,
    _inertia: Mat3,
    inverse_inertia: Mat3,
    _principal_moments: Vec3,
    _principal_rotation: Quat,
}

impl HandBody {
    /// `v = p/m`, `R` from `q`, `I_world⁻¹ = R I⁻¹ Rᵀ`, `ω = I_world⁻¹ L`, spin `½ ω q`.
    #[inline(always)]
    fn recalculate(&mut self) {
        self.rotation = Mat3::from_quat(self.orientation);
        self.inverse_inertia_world =
            self.rotation * self.inverse_inertia * self.rotation.transpose();
        self.recalculate_rates();
    }

    /// `v`, `ω` and the spin only: after a kick, which leaves `q` (so `R`) alone.
    #[inline(always)]
    fn recalculate_rates(&mut self) {
        self.velocity = self.momentum * self.inverse_mass;
        self.angular_velocity = self.inverse_inertia_world * self.angular_momentum;
        let w = self.angular_velocity;
        self.spin = (Quat::from_xyzw(w.x, w.y, w.z, 0.0) * self.orientation) * 0.5;
    }

    /// Positions along `velocity`, orientation by `spin` (renormalized): no recalculation.
    #[inline]
    fn move_along(&mut self, velocity: Vec3, spin: Quat, dt: f32) {
        self.position += velocity * dt;
        self.orientation = (self.orientation + spin * dt).normalize();
    }

    /// Momenta along force and torque: no recalculation.
    #[inline]
    fn push(&mut self, force: Vec3, torque: Vec3, dt: f32) {
        self.momentum += force * dt;
        self.angular_momentum += torque * dt;
    }
}

/// The rate of a body: (velocity, spin) and (force, torque).
type HandRate = ((Vec3, Quat), (Vec3, Vec3));

/// Gravity, a spring to the origin and angular drag: every primary quantity moves.
const GRAVITY: Vec3 = Vec3::new(0.0, -9.81, 0.0);
const BODY_K: f32 = 2.0;
const ANGULAR_DRAG: f32 = 0.1;

#[inline]
fn hand_body_forces(b: &HandBody) -> (Vec3, Vec3) {
    (
        GRAVITY * b.mass - b.position * BODY_K,
        b.angular_velocity * -ANGULAR_DRAG,
    )
}

#[inline]
fn body_forces(b: &RigidBody, _t: f32) -> (Vec3, Vec3) {
    (
        GRAVITY * b.mass() - b.position() * BODY_K,
        b.angular_velocity() * -ANGULAR_DRAG,
    )
}

/// Semi-implicit Euler on a body by hand: kick (then recalculate the rates), drift (then
/// recalculate).
#[inline(never)]
fn hand_sie_body(b: &mut HandBody, dt: f32, steps: usize) {
    for _ in 0..steps {
        let (force, torque) = hand_body_forces(b);
        b.push(force, torque, dt);
        b.recalculate_rates();
        let (velocity, spin) = (b.velocity, b.spin);
        b.move_along(velocity, spin, dt);
        b.recalculate();
    }
}

/// RK4 on a body by hand: probes are copies advanced (drift and kick, one recalculation),
/// `k₁/6 + k₂/3 + k₃/3 + k₄/6` combined part by part, one advance by `dt`.
#[inline(never)]
fn hand_rk4_body(b: &mut HandBody, dt: f32, steps: usize) {
    #[inline(always)]
    fn rate(s: &HandBody) -> HandRate {
        ((s.velocity, s.spin), hand_body_forces(s))
    }
    #[inline(always)]
    fn advance(s: &mut HandBody, ((v, q), (f, t)): HandRate, h: f32) {
        s.move_along(v, q, h);
        s.push(f, t, h);
        s.recalculate();
    }
    #[inline(always)]
    fn sample(start: &HandBody, r: HandRate, h: f32) -> HandRate {
        let mut probe = *start;
        advance(&mut probe, r, h);
        rate(&probe)
    }
    let add = |((a, b), (c, d)): HandRate, ((e, f), (g, h)): HandRate| -> HandRate {
        ((a + e, b + f), (c + g, d + h))
    };
    let scale =
        |((a, b), (c, d)): HandRate, s: f32| -> HandRate { ((a * s, b * s), (c * s, d * s)) };
    let (sixth, third) = ((1.0_f64 / 6.0) as f32, (1.0_f64 / 3.0) as f32);
    for _ in 0..steps {
        let half = dt * 0.5;
        let k1 = rate(b);
        let k2 = sample(b, k1, half);
        let k3 = sample(b, k2, half);
        let k4 = sample(b, k3, dt);
        let weighted = add(
            add(add(scale(k1, sixth), scale(k2, third)), scale(k3, third)),
            scale(k4, sixth),
        );
        advance(b, weighted, dt);
    }
}

/// `steps` steps of `integrator` on a body from `t = 0`, through the crate's public API.
#[inline(never)]
fn timestep_body<I: Integrator<RigidBody>>(
    integrator: &mut I,
    b: &mut RigidBody,
    dt: f32,
    steps: usize,
) {
    for i in 0..steps {
        integrator
            .step(b, &body_forces, i as f32 * dt, dt)
            .expect("finite time");
    }
}

/// A 2 kg box of sides 1, 2, 3 m, off the origin, moving and tumbling.
fn tumbling_box() -> (RigidBody, HandBody) {
    let mut body = RigidBody::new(2.0, Inertia::cuboid(2.0, 1.0, 2.0, 3.0));
    body.set_position(Vec3::new(1.0, 2.0, -1.0));
    body.set_velocity(Vec3::new(0.5, 0.0, 1.0));
    body.set_angular_velocity(Vec3::new(0.1, 2.0, 0.1));
    let hand = HandBody {
        position: body.position(),
        momentum: body.momentum(),
        orientation: body.orientation(),
        angular_momentum: body.angular_momentum(),
        velocity: body.velocity(),
        rotation: body.rotation(),
        inverse_inertia_world: body.inverse_inertia_world(),
        angular_velocity: body.angular_velocity(),
        spin: body.spin(),
        mass: body.mass(),
        inverse_mass: body.inverse_mass(),
        _inertia: body.inertia(),
        inverse_inertia: body.inverse_inertia(),
        _principal_moments: body.principal_moments(),
        _principal_rotation: body.principal_rotation(),
    };
    (body, hand)
}

/// Both sides of a body's update, compared bit for bit after [`STEPS`] steps.
fn assert_same_body(body: &RigidBody, hand: &HandBody, method: &str) {
    assert_eq!(
        (
            body.position(),
            body.orientation(),
            body.momentum(),
            body.angular_momentum()
        ),
        (
            hand.position,
            hand.orientation,
            hand.momentum,
            hand.angular_momentum
        ),
        "rigid {method}: the hand-written update must be the crate's, bit for bit"
    );
}

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

    let (mut b, mut h) = tumbling_box();
    timestep_body(&mut SemiImplicitEuler, &mut b, DT as f32, STEPS);
    hand_sie_body(&mut h, DT as f32, STEPS);
    assert_same_body(&b, &h, "semi-implicit Euler");

    let (mut b, mut h) = tumbling_box();
    timestep_body(&mut Rk4, &mut b, DT as f32, STEPS);
    hand_rk4_body(&mut h, DT as f32, STEPS);
    assert_same_body(&b, &h, "RK4");
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

    macro_rules! rigid_group {
        ($name:expr, $hand:ident, $integrator:expr) => {{
            let mut group = c.benchmark_group($name);
            let (body, hand) = tumbling_box();
            let dt = DT as f32;
            group.bench_function("handwritten", |b| {
                b.iter(|| {
                    let mut state = black_box(hand);
                    $hand(&mut state, black_box(dt), STEPS);
                    black_box(state.position)
                })
            });
            group.bench_function("timestep", |b| {
                b.iter(|| {
                    let mut state = black_box(body);
                    timestep_body(&mut $integrator, &mut state, black_box(dt), STEPS);
                    black_box(state.position())
                })
            });
            group.finish();
        }};
    }
    rigid_group!(
        "overhead/rigid-semi-implicit-euler",
        hand_sie_body,
        SemiImplicitEuler
    );
    rigid_group!("overhead/rigid-rk4", hand_rk4_body, Rk4);
}

/// The Arenstorf orbit (examples/problems), `r³` as `r² √r²` so that the forces call no
/// function of the platform's libm.
fn arenstorf(y: &[f64; 4], _t: f64) -> [f64; 4] {
    const MU: f64 = 0.012277471;
    let [y1, y2, v1, v2] = *y;
    let mu_hat = 1.0 - MU;
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

/// One case, for callgrind (only this function is counted, not the set-up):
/// `rigid-rk4/handwritten` and `rigid-rk4/timestep` (the `overhead/rigid-rk4` group, whose
/// additive orientation update calls no transcendental function), `rigid-rk4-exponential`
/// (the same body turned by the exponential map: a sine and a cosine a stage),
/// `dopri5-arenstorf` (Dormand–Prince 5(4) at the default tolerances over one Arenstorf
/// orbit: the controller's `powf` every step) and `radau5-van-der-pol` (μ = 1000 to
/// t = 3000 at 10⁻⁶: `powf` in the Newton iteration and the step control).
#[inline(never)]
fn run_case(case: &str) {
    let dt = DT as f32;
    match case {
        "rigid-rk4/handwritten" => {
            let (_, mut hand) = tumbling_box();
            hand_rk4_body(&mut hand, dt, STEPS);
            black_box(hand.position);
        }
        "rigid-rk4/timestep" | "rigid-rk4-exponential" => {
            let (mut body, _) = tumbling_box();
            if case == "rigid-rk4-exponential" {
                body.set_orientation_update(OrientationUpdate::Exponential);
            }
            timestep_body(&mut Rk4, &mut body, dt, STEPS);
            black_box(body.position());
        }
        "dopri5-arenstorf" => {
            let mut y = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
            let statistics = Adaptive::new(Dopri5)
                .solve(&mut y, &arenstorf, 0.0, 17.065_216_560_157_96)
                .expect("solves");
            black_box((y, statistics));
        }
        "radau5-van-der-pol" => {
            let van_der_pol =
                |y: &[f64; 2], _t: f64| [y[1], 1000.0 * (1.0 - y[0] * y[0]) * y[1] - y[0]];
            let mut y = [2.0, 0.0];
            let statistics = Adaptive::new(Radau5::new())
                .with_tolerances(Tolerances::new(1e-6, 1e-6))
                .solve(&mut y, &van_der_pol, 0.0, 3000.0)
                .expect("solves");
            black_box((y, statistics));
        }
        _ => panic!("OVERHEAD_PROFILE: no case {case:?}"),
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = overhead
}

fn main() {
    if let Ok(case) = std::env::var("OVERHEAD_PROFILE") {
        run_case(&case);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
