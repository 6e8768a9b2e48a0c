//! Large states: `timestep` stepping thousands of interacting bodies and a 10⁵-unknown PDE
//! in place, against the same methods written by hand over `Vec`s.
//!
//! - `large/chain-rk4`, `large/chain-verlet`: a chain of 10⁴ masses in 3-D joined by springs
//!   of rest length 1 (one square root per spring), both ends tied to fixed anchors. The
//!   crate's side is [`Particles<DVec3>`] with the forces written in place ([`InPlace`]) and
//!   declared [`Positional`] (so Verlet skips its prediction of the end-of-step momenta),
//!   stepped through a [`Stepper`]; the hand-written side keeps positions, momenta,
//!   velocities and inverse masses in `Vec`s and runs the method in the crate's operation
//!   order (RK4's probe velocity `v + F·(h/m)`, the weights `k₁/6 + k₂/3 + k₃/3 + k₄/6` term
//!   by term, a velocity recalculated as `p · (1/m)` after every kick), fusing the passes
//!   a hand-writer would fuse and skipping what the forces never read (a probe's momenta).
//!   Both call the same force function. Final states agree bit for bit.
//! - `large/nbody-verlet`: 1000 bodies under softened gravity, O(N²) pairwise forces, the
//!   same two sides.
//! - `large/heat-backward-euler-N` (N = 10³, 10⁴, 10⁵): `u_t = u_xx` on N interior points,
//!   backward Euler. `timestep`: a `Vec<f64>` through a [`Stepper`] of
//!   `BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 })`, the
//!   Jacobian by finite differences with column grouping (3 force evaluations per Newton
//!   iteration); `timestep-jacobian`: the same with the analytic tridiagonal Jacobian
//!   ([`WithJacobian`] around the in-place forces); `timestep-linear`: the same, declared
//!   linear (`with_linear_forces`: one Newton correction per step, no second residual to
//!   confirm it, as the hand-writer knows the problem is linear);
//!   `handwritten`: the Thomas algorithm on `(I − dt A) uⁿ⁺¹ = uⁿ`, one forward sweep and
//!   one back substitution per step. The two agree to the Newton tolerance (the crate
//!   solves by Newton iterations, the hand by a direct solve): 10⁻⁹ relative, or what
//!   rounding of the end-of-step state allows where `dt/dx²` is large (see the check).
//!
//! With `LARGE_PROFILE=<case>` in the environment the binary runs one case without
//! criterion, for `valgrind --tool=callgrind` (cases: see [`profile`]).
//!
//! ```text
//! cargo bench --bench large -- --warm-up-time 1 --measurement-time 3
//! ```

use criterion::measurement::WallTime;
use criterion::{BatchSize, BenchmarkGroup, Criterion, criterion_group};
use glam::DVec3;
use std::hint::black_box;
use std::time::Duration;
use timestep::{
    BackwardEuler, Forces, Gmres, InPlace, Integrator, Jacobian, LinearSolver, Particles,
    Positional, Preconditioner, Rk4, Side, Stepper, Structure, Verlet, WithJacobian,
};

/// Masses in the chain.
const CHAIN: usize = 10_000;
/// Chain steps per measured iteration.
const CHAIN_STEPS: usize = 10;
/// Spring stiffness and rest length of the chain.
const K: f64 = 50.0;
const REST: f64 = 1.0;
/// Time step of the chain and the bodies.
const DT: f64 = 0.01;

/// Bodies in the N-body group, and steps per iteration.
const BODIES: usize = 1000;
const NBODY_STEPS: usize = 2;
/// Gravitational constant and softening length² of the N-body group.
const G: f64 = 1.0;
const SOFTENING2: f64 = 1e-4;

/// Heat equation sizes, steps per iteration and time step.
const HEAT_SIZES: [usize; 3] = [1_000, 10_000, 100_000];
const HEAT_STEPS: usize = 10;
const HEAT_DT: f64 = 1e-3;

/// The pull of a spring from `a` towards `b`.
#[inline(always)]
fn pull(a: DVec3, b: DVec3) -> DVec3 {
    let d = b - a;
    let length = d.length();
    d * (K * (length - REST) / length)
}

/// The chain's spring forces, both ends tied to anchors at x = 0 and x = n + 1.
#[inline(never)]
fn chain_forces(positions: &[DVec3], out: &mut [DVec3]) {
    let n = positions.len();
    let right_anchor = DVec3::new((n + 1) as f64 * REST, 0.0, 0.0);
    let mut left = pull(DVec3::ZERO, positions[0]);
    for i in 0..n {
        let next = if i + 1 < n {
            positions[i + 1]
        } else {
            right_anchor
        };
        let right = pull(positions[i], next);
        out[i] = right - left;
        left = right;
    }
}

/// Softened Newtonian gravity between every pair.
#[inline(never)]
fn gravity(positions: &[DVec3], masses: &[f64], out: &mut [DVec3]) {
    out.fill(DVec3::ZERO);
    for i in 0..positions.len() {
        let (xi, mi) = (positions[i], masses[i]);
        let mut fi = DVec3::ZERO;
        for j in i + 1..positions.len() {
            let d = positions[j] - xi;
            let r2 = d.length_squared() + SOFTENING2;
            let f = d * (G * mi * masses[j] / (r2 * r2.sqrt()));
            fi += f;
            out[j] -= f;
        }
        out[i] += fi;
    }
}

/// A deterministic pseudo-random number in [0, 1) (a 64-bit LCG), for initial conditions.
fn random(seed: &mut u64) -> f64 {
    *seed = seed
        .wrapping_mul(6_364_136_223_846_793_005)
        .wrapping_add(1_442_695_040_888_963_407);
    (*seed >> 11) as f64 / (1u64 << 53) as f64
}

/// A chain stretched along x and shaken a little in all three directions, masses 1 to 2.
fn chain() -> Particles<DVec3> {
    let mut seed = 1;
    let masses = (0..CHAIN).map(|_| 1.0 + random(&mut seed)).collect();
    let positions = (0..CHAIN)
        .map(|i| {
            let x = (i + 1) as f64 * REST;
            DVec3::new(
                x + 0.1 * random(&mut seed),
                random(&mut seed),
                random(&mut seed),
            )
        })
        .collect();
    let velocities = (0..CHAIN)
        .map(|_| DVec3::new(random(&mut seed), random(&mut seed), random(&mut seed)) - 0.5)
        .collect();
    Particles::new(masses, positions, velocities)
}

/// A ball of bodies with small random velocities, masses 1/N to 2/N.
fn cluster() -> Particles<DVec3> {
    let mut seed = 7;
    let masses = (0..BODIES)
        .map(|_| (1.0 + random(&mut seed)) / BODIES as f64)
        .collect();
    let positions = (0..BODIES)
        .map(|_| DVec3::new(random(&mut seed), random(&mut seed), random(&mut seed)) - 0.5)
        .collect();
    let velocities = (0..BODIES)
        .map(|_| (DVec3::new(random(&mut seed), random(&mut seed), random(&mut seed)) - 0.5) * 0.1)
        .collect();
    Particles::new(masses, positions, velocities)
}

/// Bodies by hand: the crate's layout in plain `Vec`s.
#[derive(Clone)]
struct Hand {
    positions: Vec<DVec3>,
    momenta: Vec<DVec3>,
    velocities: Vec<DVec3>,
    masses: Vec<f64>,
    inverse_masses: Vec<f64>,
}

impl Hand {
    fn from(bodies: &Particles<DVec3>) -> Self {
        Hand {
            positions: bodies.positions().to_vec(),
            momenta: bodies.momenta().to_vec(),
            velocities: bodies.velocities().to_vec(),
            masses: bodies.masses().to_vec(),
            inverse_masses: bodies.inverse_masses().to_vec(),
        }
    }

    /// `p += F h`, then `v = p / m`, in one pass.
    #[inline(always)]
    fn kick(&mut self, force: &[DVec3], h: f64) {
        for (((p, v), f), &inverse) in self
            .momenta
            .iter_mut()
            .zip(&mut self.velocities)
            .zip(force)
            .zip(&self.inverse_masses)
        {
            *p += *f * h;
            *v = *p * inverse;
        }
    }

    /// `x += v dt`.
    #[inline(always)]
    fn drift(&mut self, dt: f64) {
        for (x, v) in self.positions.iter_mut().zip(&self.velocities) {
            *x += *v * dt;
        }
    }
}

/// The buffers of hand-written RK4: four forces, the positions and velocities of a probe,
/// and the velocities of the probes kept for the final sum.
struct HandRk4 {
    forces: [Vec<DVec3>; 4],
    probe_positions: Vec<DVec3>,
    probe_velocities: [Vec<DVec3>; 3],
}

impl HandRk4 {
    fn new(n: usize) -> Self {
        HandRk4 {
            forces: core::array::from_fn(|_| vec![DVec3::ZERO; n]),
            probe_positions: vec![DVec3::ZERO; n],
            probe_velocities: core::array::from_fn(|_| vec![DVec3::ZERO; n]),
        }
    }
}

/// RK4 by hand: the probes' positions `x + v h` and velocities `v + F·(h/m)` in one pass
/// each (their momenta are never read), the forces there, and one final pass that sums
/// `k₁/6 + k₂/3 + k₃/3 + k₄/6` term by term and advances positions, momenta and velocities.
#[inline(never)]
fn hand_rk4(
    s: &mut Hand,
    w: &mut HandRk4,
    forces: impl Fn(&[DVec3], &[f64], &mut [DVec3]),
    dt: f64,
    steps: usize,
) {
    let (sixth, third) = (1.0 / 6.0, 1.0 / 3.0);
    let half = dt * 0.5;
    for _ in 0..steps {
        let [f1, f2, f3, f4] = &mut w.forces;
        let [v2, v3, v4] = &mut w.probe_velocities;
        let probe = &mut w.probe_positions;
        forces(&s.positions, &s.masses, f1);
        // Each probe: from the state along (velocity, force) of the previous stage.
        let stage = |along_v: &[DVec3],
                     along_f: &[DVec3],
                     h: f64,
                     probe: &mut [DVec3],
                     probe_v: &mut [DVec3]| {
            for i in 0..s.positions.len() {
                probe[i] = s.positions[i] + along_v[i] * h;
                probe_v[i] = s.velocities[i] + along_f[i] * (h * s.inverse_masses[i]);
            }
        };
        stage(&s.velocities, f1, half, probe, v2);
        forces(probe, &s.masses, f2);
        stage(v2, f2, half, probe, v3);
        forces(probe, &s.masses, f3);
        stage(v3, f3, dt, probe, v4);
        forces(probe, &s.masses, f4);
        for i in 0..s.positions.len() {
            let v = s.velocities[i] * sixth + v2[i] * third + v3[i] * third + v4[i] * sixth;
            let f = f1[i] * sixth + f2[i] * third + f3[i] * third + f4[i] * sixth;
            s.positions[i] += v * dt;
            s.momenta[i] += f * dt;
            s.velocities[i] = s.momenta[i] * s.inverse_masses[i];
        }
    }
}

/// Velocity Verlet by hand: kick, drift, kick, with the force evaluated twice per step as
/// the crate's (memoryless) Verlet does.
#[inline(never)]
fn hand_verlet(
    s: &mut Hand,
    force: &mut [DVec3],
    forces: impl Fn(&[DVec3], &[f64], &mut [DVec3]),
    dt: f64,
    steps: usize,
) {
    let half = dt * 0.5;
    for _ in 0..steps {
        forces(&s.positions, &s.masses, force);
        s.kick(force, half);
        s.drift(dt);
        forces(&s.positions, &s.masses, force);
        s.kick(force, half);
    }
}

/// `steps` steps of `stepper` from `t = 0`, as a user calls it.
#[inline(never)]
fn timestep_steps<I: Integrator<S>, S: timestep::State<Scalar = f64>, F: Forces<S>>(
    stepper: &mut I,
    state: &mut S,
    forces: &F,
    dt: f64,
    steps: usize,
) {
    for i in 0..steps {
        stepper
            .step(state, forces, i as f64 * dt, dt)
            .expect("the step succeeds");
    }
}

/// The chain's forces as a user writes them: in place, and declared [`Positional`], as the
/// hand-written side knows them to be.
fn chain_in_place() -> impl Forces<Particles<DVec3>> {
    Positional(InPlace(
        |s: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| chain_forces(s.positions(), out),
    ))
}

fn gravity_in_place() -> impl Forces<Particles<DVec3>> {
    Positional(InPlace(
        |s: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
            gravity(s.positions(), s.masses(), out);
        },
    ))
}

fn chain_hand(positions: &[DVec3], _masses: &[f64], out: &mut [DVec3]) {
    chain_forces(positions, out);
}

/// Both sides agree bit for bit: positions, momenta and velocities.
fn assert_same(bodies: &Particles<DVec3>, hand: &Hand, what: &str) {
    assert!(
        bodies.positions() == hand.positions.as_slice()
            && bodies.momenta() == hand.momenta.as_slice()
            && bodies.velocities() == hand.velocities.as_slice(),
        "{what}: the hand-written method must be the crate's, bit for bit"
    );
}

/// The heat equation's right-hand side `(uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx²`, `u = 0` beyond the ends.
#[inline(never)]
fn heat_rate(u: &[f64], scale: f64, out: &mut [f64]) {
    let n = u.len();
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { 0.0 };
        let right = if i + 1 < n { u[i + 1] } else { 0.0 };
        out[i] = (left - 2.0 * u[i] + right) * scale;
    }
}

/// The heat equation with its analytic tridiagonal Jacobian, as a user writes it:
/// [`WithJacobian`] around forces written in place.
fn heat_with_jacobian(scale: f64) -> impl Forces<Vec<f64>> {
    WithJacobian::new(
        InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| heat_rate(u, scale, out)),
        move |u: &Vec<f64>, _t: f64, j: &mut Jacobian<'_, f64>| {
            let n = u.len();
            for i in 0..n {
                j[(i, i)] = -2.0 * scale;
                if i > 0 {
                    j[(i, i - 1)] = scale;
                }
                if i + 1 < n {
                    j[(i, i + 1)] = scale;
                }
            }
        },
    )
}

/// The scratch of the Thomas algorithm.
struct Thomas {
    c: Vec<f64>,
    d: Vec<f64>,
}

/// Backward Euler by hand: `(I − dt A) uⁿ⁺¹ = uⁿ` with `A = tridiag(1, −2, 1)/dx²`, solved by
/// the Thomas algorithm (forward sweep, back substitution) every step.
#[inline(never)]
#[allow(clippy::needless_range_loop)] // the sweeps read entry i − 1 and i + 1
fn hand_heat(u: &mut [f64], w: &mut Thomas, scale: f64, dt: f64, steps: usize) {
    let n = u.len();
    let off = -dt * scale;
    let diagonal = 1.0 + 2.0 * dt * scale;
    for _ in 0..steps {
        w.c[0] = off / diagonal;
        w.d[0] = u[0] / diagonal;
        for i in 1..n {
            let m = diagonal - off * w.c[i - 1];
            w.c[i] = off / m;
            w.d[i] = (u[i] - off * w.d[i - 1]) / m;
        }
        u[n - 1] = w.d[n - 1];
        for i in (0..n - 1).rev() {
            u[i] = w.d[i] - w.c[i] * u[i + 1];
        }
    }
}

/// `sin(πx) + sin(3πx)` on `n` interior points, and `1/dx²`.
fn heat_start(n: usize) -> (Vec<f64>, f64) {
    let dx = 1.0 / (n + 1) as f64;
    let pi = std::f64::consts::PI;
    let u = (1..=n)
        .map(|i| {
            let x = i as f64 * dx;
            (pi * x).sin() + (3.0 * pi * x).sin()
        })
        .collect();
    (u, 1.0 / (dx * dx))
}

fn tridiagonal() -> BackwardEuler {
    BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 })
}

fn large(c: &mut Criterion) {
    // Chain, RK4.
    {
        let start = chain();
        let forces = chain_in_place();
        let mut check = start.clone();
        timestep_steps(&mut Stepper::new(Rk4), &mut check, &forces, DT, CHAIN_STEPS);
        let mut hand = Hand::from(&start);
        hand_rk4(
            &mut hand,
            &mut HandRk4::new(CHAIN),
            chain_hand,
            DT,
            CHAIN_STEPS,
        );
        assert_same(&check, &hand, "chain RK4");

        let mut group = c.benchmark_group("large/chain-rk4");
        group.sample_size(20);
        let mut state = start.clone();
        let mut stepper = Stepper::new(Rk4);
        group.bench_function("timestep", |b| {
            b.iter(|| {
                timestep_steps(&mut stepper, &mut state, &forces, DT, CHAIN_STEPS);
                black_box(state.positions()[0])
            })
        });
        let mut hand = Hand::from(&start);
        let mut w = HandRk4::new(CHAIN);
        group.bench_function("handwritten", |b| {
            b.iter(|| {
                hand_rk4(&mut hand, &mut w, chain_hand, DT, CHAIN_STEPS);
                black_box(hand.positions[0])
            })
        });
        group.finish();
    }

    // Chain, Verlet.
    {
        let start = chain();
        let forces = chain_in_place();
        let mut check = start.clone();
        timestep_steps(
            &mut Stepper::new(Verlet),
            &mut check,
            &forces,
            DT,
            CHAIN_STEPS,
        );
        let mut hand = Hand::from(&start);
        hand_verlet(
            &mut hand,
            &mut vec![DVec3::ZERO; CHAIN],
            chain_hand,
            DT,
            CHAIN_STEPS,
        );
        assert_same(&check, &hand, "chain Verlet");
        let mut group = c.benchmark_group("large/chain-verlet");
        group.sample_size(20);
        let mut state = start.clone();
        let mut stepper = Stepper::new(Verlet);
        group.bench_function("timestep", |b| {
            b.iter(|| {
                timestep_steps(&mut stepper, &mut state, &forces, DT, CHAIN_STEPS);
                black_box(state.positions()[0])
            })
        });
        let mut hand = Hand::from(&start);
        let mut force = vec![DVec3::ZERO; CHAIN];
        group.bench_function("handwritten", |b| {
            b.iter(|| {
                hand_verlet(&mut hand, &mut force, chain_hand, DT, CHAIN_STEPS);
                black_box(hand.positions[0])
            })
        });
        group.finish();
    }

    // N-body, Verlet.
    {
        let start = cluster();
        let forces = gravity_in_place();
        let mut check = start.clone();
        timestep_steps(
            &mut Stepper::new(Verlet),
            &mut check,
            &forces,
            DT,
            NBODY_STEPS,
        );
        let mut hand = Hand::from(&start);
        hand_verlet(
            &mut hand,
            &mut vec![DVec3::ZERO; BODIES],
            gravity,
            DT,
            NBODY_STEPS,
        );
        assert_same(&check, &hand, "N-body Verlet");

        let mut group = c.benchmark_group("large/nbody-verlet");
        group.sample_size(10);
        let mut state = start.clone();
        let mut stepper = Stepper::new(Verlet);
        group.bench_function("timestep", |b| {
            b.iter(|| {
                timestep_steps(&mut stepper, &mut state, &forces, DT, NBODY_STEPS);
                black_box(state.positions()[0])
            })
        });
        let mut hand = Hand::from(&start);
        let mut force = vec![DVec3::ZERO; BODIES];
        group.bench_function("handwritten", |b| {
            b.iter(|| {
                hand_verlet(&mut hand, &mut force, gravity, DT, NBODY_STEPS);
                black_box(hand.positions[0])
            })
        });
        group.finish();
    }

    // Heat equation, backward Euler.
    for n in HEAT_SIZES {
        let (start, scale) = heat_start(n);
        let finite_differences = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
            heat_rate(u, scale, out);
        });
        let analytic = heat_with_jacobian(scale);
        let mut hand = start.clone();
        let mut thomas = Thomas {
            c: vec![0.0; n],
            d: vec![0.0; n],
        };
        hand_heat(&mut hand, &mut thomas, scale, HEAT_DT, HEAT_STEPS);
        // Each iteration starts from the initial condition (copied outside the timing):
        // stepped on and on, the solution would decay into subnormal numbers.
        let mut group = c.benchmark_group(format!("large/heat-backward-euler-{n}"));
        group.sample_size(10);
        let heat = Heat {
            start: &start,
            hand: &hand,
            scale,
        };
        heat.side(&mut group, "timestep", tridiagonal(), &finite_differences);
        heat.side(&mut group, "timestep-jacobian", tridiagonal(), &analytic);
        let linear = tridiagonal().with_linear_forces();
        heat.side(&mut group, "timestep-linear", linear, &analytic);
        group.bench_function("handwritten", |b| {
            b.iter_batched_ref(
                || start.clone(),
                |u| hand_heat(u, &mut thomas, scale, HEAT_DT, HEAT_STEPS),
                BatchSize::LargeInput,
            )
        });
        group.finish();
    }
}

/// One heat group's start, the Thomas algorithm's end state, and `1/dx²`.
struct Heat<'a> {
    start: &'a [f64],
    hand: &'a [f64],
    scale: f64,
}

impl Heat<'_> {
    /// A `timestep` side of the group: `method` on `forces`, checked against the Thomas
    /// algorithm's end state, then measured as `function`.
    fn side<F: Forces<Vec<f64>>>(
        &self,
        group: &mut BenchmarkGroup<'_, WallTime>,
        function: &str,
        method: BackwardEuler,
        forces: &F,
    ) {
        let mut u = self.start.to_vec();
        timestep_steps(
            &mut Stepper::new(method),
            &mut u,
            forces,
            HEAT_DT,
            HEAT_STEPS,
        );
        let largest = self.hand.iter().fold(0.0_f64, |m, u| m.max(u.abs()));
        let difference = u
            .iter()
            .zip(self.hand)
            .fold(0.0_f64, |m, (a, b)| m.max((a - b).abs()));
        // Backward Euler accepts a Newton correction of up to 64 ε Σⱼ |∂fᵢ/∂uⱼ| |uⱼ| (what
        // rounding of the end-of-step state leaves unresolved): with |∂f/∂u| = 4/dx²,
        // 64 ε · 4 dt/dx² relative per step, 6·10⁻⁷ at N = 10⁵.
        let allowed = (64.0 * f64::EPSILON * 4.0 * HEAT_DT * self.scale).max(1e-9)
            * HEAT_STEPS as f64
            * largest;
        assert!(
            difference <= allowed,
            "heat N = {} ({function}): backward Euler differs from the Thomas algorithm by \
             {difference:e}",
            self.start.len()
        );
        let mut stepper = Stepper::new(method);
        group.bench_function(function, |b| {
            b.iter_batched_ref(
                || self.start.to_vec(),
                |u| timestep_steps(&mut stepper, u, forces, HEAT_DT, HEAT_STEPS),
                BatchSize::LargeInput,
            )
        });
    }
}

/// One case, stepped without criterion, for counting instructions with callgrind:
/// `chain-rk4-timestep`, `chain-rk4-handwritten`, `chain-verlet-timestep`,
/// `chain-verlet-handwritten`, `nbody-verlet-timestep`,
/// `nbody-verlet-handwritten` ([`NBODY_STEPS`] steps), `heat-timestep`,
/// `heat-timestep-jacobian`, `heat-timestep-linear`, `heat-handwritten`,
/// `heat-timestep-gmres` (GMRES, no preconditioner), `heat-timestep-gmres-banded` (GMRES
/// with the tridiagonal band on the left) (the heat cases at N = 10⁴). 20 steps, or `LARGE_PROFILE_STEPS`: two runs of different
/// lengths under cachegrind, which cannot count one function alone, give the cost per step
/// as their difference.
fn profile(case: &str) {
    let steps = std::env::var("LARGE_PROFILE_STEPS").map_or(20, |steps| {
        steps
            .parse()
            .expect("LARGE_PROFILE_STEPS is a number of steps")
    });
    let (u, scale) = heat_start(10_000);
    let mut u = u;
    match case {
        "chain-rk4-timestep" | "chain-verlet-timestep" => {
            let mut state = chain();
            let forces = chain_in_place();
            if case == "chain-rk4-timestep" {
                timestep_steps(&mut Stepper::new(Rk4), &mut state, &forces, DT, steps);
            } else {
                timestep_steps(&mut Stepper::new(Verlet), &mut state, &forces, DT, steps);
            }
            black_box(state.positions()[0]);
        }
        "nbody-verlet-timestep" => {
            let mut state = cluster();
            let forces = gravity_in_place();
            timestep_steps(
                &mut Stepper::new(Verlet),
                &mut state,
                &forces,
                DT,
                NBODY_STEPS,
            );
            black_box(state.positions()[0]);
        }
        "nbody-verlet-handwritten" => {
            let mut hand = Hand::from(&cluster());
            let mut force = vec![DVec3::ZERO; BODIES];
            hand_verlet(&mut hand, &mut force, gravity, DT, NBODY_STEPS);
            black_box(hand.positions[0]);
        }
        "chain-rk4-handwritten" => {
            let mut hand = Hand::from(&chain());
            hand_rk4(&mut hand, &mut HandRk4::new(CHAIN), chain_hand, DT, steps);
            black_box(hand.positions[0]);
        }
        "chain-verlet-handwritten" => {
            let mut hand = Hand::from(&chain());
            let mut force = vec![DVec3::ZERO; CHAIN];
            hand_verlet(&mut hand, &mut force, chain_hand, DT, steps);
            black_box(hand.positions[0]);
        }
        "heat-timestep" => {
            let forces = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
                heat_rate(u, scale, out);
            });
            timestep_steps(
                &mut Stepper::new(tridiagonal()),
                &mut u,
                &forces,
                HEAT_DT,
                steps,
            );
        }
        "heat-timestep-jacobian" | "heat-timestep-linear" => {
            let forces = heat_with_jacobian(scale);
            let method = if case == "heat-timestep-linear" {
                tridiagonal().with_linear_forces()
            } else {
                tridiagonal()
            };
            timestep_steps(&mut Stepper::new(method), &mut u, &forces, HEAT_DT, steps);
        }
        "heat-timestep-gmres" | "heat-timestep-gmres-banded" => {
            let forces = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
                heat_rate(u, scale, out);
            });
            let gmres = if case == "heat-timestep-gmres" {
                Gmres::new()
            } else {
                let band = Preconditioner::Banded { lower: 1, upper: 1 };
                Gmres::new().with_preconditioner(band, Side::Left)
            };
            let method = BackwardEuler::new().with_linear_solver(LinearSolver::Gmres(gmres));
            timestep_steps(&mut Stepper::new(method), &mut u, &forces, HEAT_DT, steps);
        }
        "heat-handwritten" => {
            let mut thomas = Thomas {
                c: vec![0.0; u.len()],
                d: vec![0.0; u.len()],
            };
            hand_heat(&mut u, &mut thomas, scale, HEAT_DT, steps);
        }
        other => panic!("no case {other:?}"),
    }
    black_box(u[0]);
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = large
}

fn main() {
    if let Ok(case) = std::env::var("LARGE_PROFILE") {
        profile(&case);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
