//! No allocation after the first step on states sized at run time: a global allocator that
//! counts the allocations of the thread that makes them shows zero over 20 steps that
//! follow a first step (which makes the [`Stepper`]'s workspace), for every method on a
//! `Vec<f64>`, a `Vec<DVec3>` and [`Particles<DVec3>`] with forces written in place, and for
//! the benchmarks' cases: a chain of masses stepped by RK4 and by Verlet, gravity between
//! bodies stepped by Verlet (both [`Particles<DVec3>`]), and the heat equation stepped by
//! banded backward Euler (finite differences, an analytic Jacobian, and [`WithJacobian`]);
//! and that an adaptive run of Rodas4, Radau5 or SEULEX on a `Vec<f64>` (finite-difference
//! and banded Jacobians, an observer reading the dense output, an event) allocates only when
//! its workspace is made, on the first run: a second run allocates nothing, whatever its
//! number of steps.
//!
//! The counter is per thread, so tests running side by side on other threads cannot add to
//! it. `unsafe` here is only the `GlobalAlloc` implementation, which forwards every call
//! unchanged to the system allocator.

use glam::DVec3;
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use timestep::Tolerances;
use timestep::adaptive::{Adaptive, Event};
use timestep::{
    BackwardEuler, Forces, InPlace, Integrator, Jacobian, Method, MethodKind, Particles, Rattle,
    Rk4, Rod, Rodas4, Rods, Rosenbrock, State, Stepper, Structure, Verlet, WithJacobian,
};

thread_local! {
    /// Allocations (including reallocations) made by this thread so far.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting every allocation and reallocation in [`ALLOCATIONS`].
struct Counting;

fn count() {
    // `try_with`: an allocation while the thread's locals are being torn down is not ours.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting touches only a thread-local `Cell<usize>` (constant
// initializer, no destructor), which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count();
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count();
        // SAFETY: forwarded as received.
        unsafe { System.realloc(ptr, layout, new_size) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        // SAFETY: forwarded as received.
        unsafe { System.dealloc(ptr, layout) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Steps measured after the first.
const STEPS: usize = 20;

/// Allocations made by [`STEPS`] steps of `integrator` on `state` after a first step (which
/// makes the workspace), asserting that the steps succeed and move the state.
fn allocations_after_first_step<S, I, F>(
    what: &str,
    integrator: &mut I,
    state: &mut S,
    forces: &F,
    dt: f64,
) -> usize
where
    S: State<Scalar = f64> + PartialEq,
    I: Integrator<S>,
    F: Forces<S>,
{
    integrator
        .step(state, forces, 0.0, dt)
        .unwrap_or_else(|e| panic!("{what}: {e}"));
    let before_steps = state.clone();
    let start = ALLOCATIONS.with(Cell::get);
    for i in 1..=STEPS {
        integrator
            .step(state, forces, i as f64 * dt, dt)
            .unwrap_or_else(|e| panic!("{what}: {e}"));
    }
    let count = ALLOCATIONS.with(Cell::get) - start;
    assert!(
        *state != before_steps,
        "{what}: the steps must move the state"
    );
    count
}

#[test]
fn the_counter_counts() {
    let start = ALLOCATIONS.with(Cell::get);
    let v = std::hint::black_box(vec![1.0_f64; 10]);
    assert!(ALLOCATIONS.with(Cell::get) > start);
    drop(v);
}

#[test]
fn every_method_on_vec_states_allocates_only_on_its_first_step() {
    let decay = InPlace(|y: &Vec<f64>, t: f64, out: &mut Vec<f64>| {
        for (i, (o, y)) in out.iter_mut().zip(y).enumerate() {
            *o = -(1.0 + i as f64 * 0.01) * y + t.sin();
        }
    });
    let oscillators = InPlace(|y: &Vec<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        for (i, o) in out.iter_mut().enumerate() {
            // Pairs (x, v): x′ = v, v′ = −x.
            *o = if i % 2 == 0 { y[i + 1] } else { -y[i - 1] };
        }
    });
    for kind in MethodKind::all() {
        let mut y = vec![1.0; 100];
        let count =
            allocations_after_first_step(kind.name(), &mut Method::new(kind), &mut y, &decay, 0.01);
        assert_eq!(
            count, 0,
            "{kind} on Vec<f64>: {count} allocations in {STEPS} steps"
        );

        let mut y = vec![DVec3::ONE; 40];
        let count = allocations_after_first_step(
            kind.name(),
            &mut Method::new(kind),
            &mut y,
            &oscillators,
            0.01,
        );
        assert_eq!(
            count, 0,
            "{kind} on Vec<DVec3>: {count} allocations in {STEPS} steps"
        );
    }
}

/// A chain of `n` masses joined by springs of rest length 1, ends tied to anchors.
fn chain(n: usize) -> (Particles<DVec3>, impl Forces<Particles<DVec3>>) {
    let positions = (0..n)
        .map(|i| DVec3::new(i as f64 + 1.1, 0.1, 0.0))
        .collect();
    let chain = Particles::new(vec![1.0; n], positions, vec![DVec3::ZERO; n]);
    let springs = InPlace(|c: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        let x = c.positions();
        let n = x.len();
        let pull = |a: DVec3, b: DVec3| {
            let d = b - a;
            d * (50.0 * (d.length() - 1.0) / d.length())
        };
        let mut left = pull(DVec3::ZERO, x[0]);
        for i in 0..n {
            let next = if i + 1 < n {
                x[i + 1]
            } else {
                DVec3::new((n + 1) as f64, 0.0, 0.0)
            };
            let right = pull(x[i], next);
            out[i] = right - left;
            left = right;
        }
    });
    (chain, springs)
}

#[test]
fn chain_by_rk4_allocates_only_on_its_first_step() {
    let (mut state, forces) = chain(1000);
    let count = allocations_after_first_step(
        "RK4 on a chain",
        &mut Stepper::new(Rk4),
        &mut state,
        &forces,
        0.01,
    );
    assert_eq!(
        count, 0,
        "RK4 on Particles: {count} allocations in {STEPS} steps"
    );
}

/// Every method on [`Particles`], velocity Verlet's end-of-step prediction and position
/// Verlet's probes included: they copy the state with `Clone::clone_from`, which `Particles`
/// implements by copying into its own buffers (a derived `Clone` made five new `Vec`s each
/// time: 5 allocations per Verlet step, 20 per position Verlet step).
#[test]
fn every_method_on_particles_allocates_only_on_its_first_step() {
    for kind in MethodKind::all() {
        // Small enough for backward Euler's dense solve (120 unknowns).
        let (mut state, forces) = chain(20);
        let count = allocations_after_first_step(
            kind.name(),
            &mut Method::new(kind),
            &mut state,
            &forces,
            0.01,
        );
        assert_eq!(
            count, 0,
            "{kind} on Particles: {count} allocations in {STEPS} steps"
        );
    }
}

#[test]
fn chain_by_verlet_allocates_only_on_its_first_step() {
    let (mut state, forces) = chain(1000);
    let count = allocations_after_first_step(
        "Verlet on a chain",
        &mut Stepper::new(Verlet),
        &mut state,
        &forces,
        0.01,
    );
    assert_eq!(
        count, 0,
        "Verlet on Particles: {count} allocations in {STEPS} steps"
    );
}

/// RATTLE on a chain of 20 bodies hanging by rods from the origin, under gravity: its
/// buffers (the trial state, the Jacobians, the multipliers' matrix) are made on the first
/// step and reused.
#[test]
fn rods_by_rattle_allocate_only_on_the_first_step() {
    let n = 20;
    let mut rods = vec![Rod::anchored(0, DVec3::ZERO, 1.0)];
    rods.extend((1..n).map(|i| Rod::between(i - 1, i, 1.0)));
    let positions = (0..n)
        .map(|i| DVec3::new(i as f64 + 1.0, 0.0, 0.0))
        .collect();
    let mut state = Particles::new(vec![1.0; n], positions, vec![DVec3::ZERO; n]);
    let gravity = InPlace(|_: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        out.fill(DVec3::new(0.0, -9.81, 0.0));
    });
    let count = allocations_after_first_step(
        "RATTLE on rods",
        &mut Rattle::new(Rods::new(rods)),
        &mut state,
        &gravity,
        0.001,
    );
    assert_eq!(count, 0, "RATTLE: {count} allocations in {STEPS} steps");
}

#[test]
fn gravity_by_verlet_allocates_only_on_its_first_step() {
    let n = 50;
    let positions = (0..n)
        .map(|i| DVec3::new((i as f64).cos(), (i as f64 * 0.7).sin(), i as f64 * 0.1))
        .collect();
    let mut bodies = Particles::new(vec![1.0 / n as f64; n], positions, vec![DVec3::ZERO; n]);
    let gravity = InPlace(|b: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        let (x, m) = (b.positions(), b.masses());
        out.fill(DVec3::ZERO);
        for i in 0..x.len() {
            for j in i + 1..x.len() {
                let d = x[j] - x[i];
                let r2 = d.length_squared() + 1e-3;
                let f = d * (m[i] * m[j] / (r2 * r2.sqrt()));
                out[i] += f;
                out[j] -= f;
            }
        }
    });
    let count = allocations_after_first_step(
        "Verlet on gravity",
        &mut Stepper::new(Verlet),
        &mut bodies,
        &gravity,
        0.01,
    );
    assert_eq!(
        count, 0,
        "Verlet on Particles: {count} allocations in {STEPS} steps"
    );
}

/// The heat equation's `(uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx²` on `n` interior points.
fn heat_rate(u: &[f64], scale: f64, out: &mut [f64]) {
    let n = u.len();
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { 0.0 };
        let right = if i + 1 < n { u[i + 1] } else { 0.0 };
        out[i] = (left - 2.0 * u[i] + right) * scale;
    }
}

#[test]
fn banded_backward_euler_allocates_only_on_its_first_step() {
    let n = 1000;
    let scale = ((n + 1) * (n + 1)) as f64;
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    let tridiagonal = BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 });

    let finite_differences =
        InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| heat_rate(u, scale, out));
    let mut u = start.clone();
    let count = allocations_after_first_step(
        "banded backward Euler",
        &mut Stepper::new(tridiagonal),
        &mut u,
        &finite_differences,
        1e-3,
    );
    assert_eq!(
        count, 0,
        "banded backward Euler, finite differences: {count} allocations in {STEPS} steps"
    );

    /// The same forces with their analytic Jacobian, written in place.
    struct Analytic(f64);
    impl Forces<Vec<f64>> for Analytic {
        fn force(&self, u: &Vec<f64>, _t: f64) -> Vec<f64> {
            let mut out = vec![0.0; u.len()];
            heat_rate(u, self.0, &mut out);
            out
        }
        fn force_into(&self, u: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
            heat_rate(u, self.0, out);
        }
        fn jacobian(&self, u: &Vec<f64>, _t: f64, j: &mut Jacobian<'_, f64>) -> bool {
            for i in 0..u.len() {
                j[(i, i)] = -2.0 * self.0;
                if i > 0 {
                    j[(i, i - 1)] = self.0;
                }
                if i + 1 < u.len() {
                    j[(i, i + 1)] = self.0;
                }
            }
            true
        }
    }
    let mut u = start;
    let count = allocations_after_first_step(
        "banded backward Euler",
        &mut Stepper::new(tridiagonal),
        &mut u,
        &Analytic(scale),
        1e-3,
    );
    assert_eq!(
        count, 0,
        "banded backward Euler, analytic Jacobian: {count} allocations in {STEPS} steps"
    );
}

/// [`WithJacobian`] forwards `force_into`, so [`InPlace`] forces wrapped in it stay in place
/// (before it did, they were called by value: a new `Vec` per evaluation, 3 per step here).
#[test]
fn with_jacobian_keeps_forces_in_place() {
    let n = 100;
    let scale = ((n + 1) * (n + 1)) as f64;
    let forces = WithJacobian::new(
        InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| heat_rate(u, scale, out)),
        move |u: &Vec<f64>, _t: f64, j: &mut Jacobian<'_, f64>| {
            for i in 0..u.len() {
                j[(i, i)] = -2.0 * scale;
                if i > 0 {
                    j[(i, i - 1)] = scale;
                }
                if i + 1 < u.len() {
                    j[(i, i + 1)] = scale;
                }
            }
        },
    );
    let tridiagonal = BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    let mut u: Vec<f64> = (1..=n)
        .map(|i| (i as f64 / (n + 1) as f64 * 3.0).sin())
        .collect();
    let count = allocations_after_first_step(
        "WithJacobian",
        &mut Stepper::new(tridiagonal),
        &mut u,
        &forces,
        1e-3,
    );
    assert_eq!(
        count, 0,
        "banded backward Euler, WithJacobian: {count} allocations in {STEPS} steps"
    );
}

/// How many allocations this thread makes while running `f`, and what `f` returned.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (ALLOCATIONS.with(Cell::get) - before, result)
}

/// Forty unknowns of a heat equation with a nonlinear sink, written in place:
/// `u′ᵢ = (uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx² − uᵢ³` (tridiagonal Jacobian, stiff).
fn rosenbrock_heat() -> InPlace<impl Fn(&Vec<f64>, f64, &mut Vec<f64>)> {
    let n = 40;
    let dx = 1.0 / (n + 1) as f64;
    InPlace(move |u: &Vec<f64>, t: f64, du: &mut Vec<f64>| {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { t.sin() };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = (left - 2.0 * u[i] + right) / (dx * dx) - u[i].powi(3);
        }
    })
}

fn rosenbrock_start() -> Vec<f64> {
    (1..=40).map(|i| (0.1 * i as f64).sin()).collect()
}

/// An adaptive run allocates its workspace once; a second run of the same solver,
/// observed and with an event, allocates nothing.
#[test]
fn adaptive_runs_allocate_only_their_workspace() {
    let forces = rosenbrock_heat();
    let methods: [(&str, Rosenbrock<6>); 2] = [
        ("dense", Rodas4.rosenbrock()),
        (
            "banded",
            Rodas4.with_structure(Structure::Banded { lower: 1, upper: 1 }),
        ),
    ];
    for (what, method) in methods {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-6, 1e-8));
        let mut u = rosenbrock_start();
        let (first, result) = allocations(|| solver.solve(&mut u, &forces, 0.0, 0.5));
        let statistics = result.unwrap();
        assert!(statistics.accepted > 5, "{what}: {statistics:?}");
        assert!(first > 0, "{what}: the first run makes its workspace");

        let mut u = rosenbrock_start();
        let mut sample = rosenbrock_start();
        let mut middle = Event::new(|u: &Vec<f64>, _t: f64| u[20] - 0.5);
        let (count, result) = allocations(|| {
            let mut sampled = 0;
            let statistics = solver.solve_with(&mut u, &forces, 0.0, 0.5, |step| {
                let t = 0.5 * (step.start_time() + step.end_time());
                step.state_at(t, &mut sample);
                sampled += 1;
            });
            let events =
                solver.solve_with_events(&mut u, &forces, 0.5, 1.0, &mut middle, |_, _, _| {});
            (statistics, events, sampled)
        });
        let (statistics, events, sampled) = result;
        let statistics = statistics.unwrap();
        events.unwrap();
        assert!(
            sampled as u64 == statistics.accepted && sampled > 5,
            "{what}"
        );
        assert_eq!(count, 0, "{what}: {count} allocations in a second run");
    }
}

/// A compensated adaptive run (DOP853 on a `Vec` of 1000 rotating pairs) makes its
/// compensation with its workspace, in its first run; a second run allocates nothing.
#[test]
fn compensated_adaptive_runs_allocate_only_in_their_first_run() {
    let forces = timestep::InPlace(|y: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        for (pair, rate) in y.chunks_exact(2).zip(out.chunks_exact_mut(2)) {
            rate[0] = pair[1];
            rate[1] = -pair[0];
        }
    });
    let start = vec![1.0; 2000];
    let mut solver = Adaptive::new(timestep::Dop853)
        .with_tolerances(Tolerances::new(1e-10, 1e-10))
        .with_compensated_summation();
    let mut y = start.clone();
    let (first, result) = allocations(|| solver.solve(&mut y, &forces, 0.0, 10.0));
    assert!(result.unwrap().accepted > 5);
    assert!(first > 0, "the first run makes its workspace");
    let mut y = start.clone();
    let (count, result) = allocations(|| solver.solve(&mut y, &forces, 0.0, 10.0));
    result.unwrap();
    assert_eq!(count, 0, "{count} allocations in a second run");
    // (1, 1) turned by ten radians.
    assert!((y[0] - (10f64.cos() + 10f64.sin())).abs() < 1e-8);
}

/// A stepper allocates on its first step and never after.
#[test]
fn fixed_steps_allocate_only_on_the_first() {
    let forces = rosenbrock_heat();
    let mut stepper = Stepper::new(Rodas4.with_structure(Structure::Banded { lower: 1, upper: 1 }));
    let mut u = rosenbrock_start();
    let (first, result) = allocations(|| stepper.step(&mut u, &forces, 0.0, 0.01));
    result.unwrap();
    assert!(first > 0);
    let (count, result) = allocations(|| {
        for i in 1..100 {
            stepper.step(&mut u, &forces, i as f64 * 0.01, 0.01)?;
        }
        Ok::<(), timestep::StepError>(())
    });
    result.unwrap();
    assert_eq!(count, 0, "{count} allocations in 99 steps");
}

/// Radau5 under error control on a `Vec<f64>`: the first run makes the workspace (the
/// stage buffers, the Jacobian and both factorisations, dense and then banded), and a
/// second run of the same size, with an observer reading the dense output, allocates
/// nothing, through dozens of steps with Jacobian reuse, refactorisations and rejections.
#[test]
fn adaptive_radau5_allocates_only_in_its_first_run() {
    use timestep::Radau5;
    use timestep::Tolerances;
    use timestep::adaptive::Adaptive;
    let n = 40;
    let scale = ((n + 1) * (n + 1)) as f64;
    let forces = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        heat_rate(u, scale, out);
        // A nonlinear source, so that Newton iterates.
        for (o, u) in out.iter_mut().zip(u) {
            *o += u * u;
        }
    });
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
        let mut solver = Adaptive::new(Radau5::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-6, 1e-9));
        let mut u = start.clone();
        solver.solve(&mut u, &forces, 0.0, 0.5).unwrap();
        let mut u = start.clone();
        let mut probe = start.clone();
        let mut observed = 0;
        let before = ALLOCATIONS.with(Cell::get);
        let statistics = solver
            .solve_with(&mut u, &forces, 0.0, 0.5, |step| {
                let middle = 0.5 * (step.start_time() + step.end_time());
                step.state_at(middle, &mut probe);
                observed += 1;
            })
            .unwrap();
        let count = ALLOCATIONS.with(Cell::get) - before;
        assert!(statistics.accepted > 5 && statistics.jacobians > 0 && observed > 5);
        assert_eq!(
            count, 0,
            "Radau5 ({structure:?}): {count} allocations in a run of {statistics:?}"
        );
    }
}

/// SEULEX under error control on a `Vec<f64>`: the first run makes the workspace (the
/// extrapolation table, the increments kept for the dense output, the Jacobian and the
/// factorisation, dense and then banded), and a second run of the same size, with an
/// observer reading the dense output, allocates nothing, through steps of every order the
/// controller picks, Jacobian reuse and refactorisations.
#[test]
fn adaptive_seulex_allocates_only_in_its_first_run() {
    use timestep::{AdaptiveKind, Seulex};
    stiff_run_allocates_only_in_its_first_run("SEULEX", |structure| {
        AdaptiveKind::Seulex(Seulex::new().with_structure(structure))
    });
}

/// The BDF likewise (the Nordsieck array and its prediction, the saved correction, the
/// Jacobian and the factorisation), through its order changes, rescalings, Jacobian and
/// factorisation reuse.
#[test]
fn adaptive_bdf_allocates_only_in_its_first_run() {
    use timestep::{AdaptiveKind, Bdf};
    stiff_run_allocates_only_in_its_first_run("BDF", |structure| {
        AdaptiveKind::Bdf(Bdf::new().with_structure(structure))
    });
}

/// `u' = Δu + u²` on `n` points with the last tied to its neighbour, `0 = uₙ − c uₙ₋₁`
/// (`M` the identity but for a zero last row), from a start consistent with the tie:
/// the start, `c` and the forces.
fn tied_heat_dae(n: usize) -> (Vec<f64>, f64, impl Forces<Vec<f64>>) {
    let scale = ((n + 1) * (n + 1)) as f64;
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    let tie = start[n - 1] / start[n - 2];
    let rates = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        heat_rate(u, scale, out);
        for (o, u) in out.iter_mut().zip(u) {
            *o += u * u;
        }
        out[n - 1] = u[n - 1] - tie * u[n - 2];
    });
    let forces = timestep::WithMass::new(rates, move |m: &mut Jacobian<f64>| {
        for i in 0..n - 1 {
            m[(i, i)] = 1.0;
        }
    });
    (start, tie, forces)
}

/// The BDF and Rodas4 on a differential-algebraic system (`M` the identity but for a zero
/// last row: `u' = Δu + u²` on 39 points, the last tied to its neighbour by
/// `0 = u₄₀ − c u₃₉`): the mass matrix is read in the first run, and the second, through
/// the BDF's residual `γ f − M (z₁/l₁ + Δ)` and factorisations of `M − γJ`, and Rodas4's
/// `M Σ (cᵢⱼ/h) Uⱼ` and `M/(hγ) − J`, allocates nothing.
#[test]
fn adaptive_methods_with_a_mass_matrix_allocate_only_in_their_first_run() {
    use timestep::{AdaptiveKind, Bdf, Rodas4};
    let n = 40;
    let (start, tie, forces) = tied_heat_dae(n);
    let methods = [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }]
        .into_iter()
        .flat_map(|structure| {
            [
                AdaptiveKind::Bdf(Bdf::new().with_structure(structure)),
                AdaptiveKind::Rodas4(Rodas4.with_structure(structure)),
            ]
        });
    for method in methods {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-8, 1e-10));
        let mut u = start.clone();
        solver.solve(&mut u, &forces, 0.0, 0.5).unwrap();
        let mut u = start.clone();
        let mut probe = start.clone();
        let before = ALLOCATIONS.with(Cell::get);
        let statistics = solver
            .solve_with(&mut u, &forces, 0.0, 0.5, |step| {
                let middle = 0.5 * (step.start_time() + step.end_time());
                step.state_at(middle, &mut probe);
            })
            .unwrap();
        let count = ALLOCATIONS.with(Cell::get) - before;
        assert!(statistics.accepted > 5 && statistics.jacobians > 0);
        // The algebraic equation holds at the end.
        assert!(
            (u[n - 1] - tie * u[n - 2]).abs() < 1e-12,
            "{:?}",
            &u[n - 2..]
        );
        assert_eq!(
            count, 0,
            "{method:?} with a mass matrix: {count} allocations in a run of {statistics:?}"
        );
    }
}

/// Backward Euler through a [`Stepper`] on the same differential-algebraic system, dense
/// and banded: the mass matrix is read and the start checked on the first step, and the
/// steps after, through the residual `M D − f` and factorisations of `M − dt J`, allocate
/// nothing.
#[test]
fn backward_euler_with_a_mass_matrix_allocates_only_on_the_first_step() {
    let n = 40;
    let (start, tie, forces) = tied_heat_dae(n);
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
        let mut u = start.clone();
        let what = format!("backward Euler with a mass matrix, {structure:?}");
        let count = allocations_after_first_step(
            &what,
            &mut Stepper::new(BackwardEuler::new().with_structure(structure)),
            &mut u,
            &forces,
            1e-3,
        );
        assert_eq!(count, 0, "{what}: {count} allocations");
        // The algebraic equation holds at the end of every step.
        assert!(
            (u[n - 1] - tie * u[n - 2]).abs() < 1e-12,
            "{:?}",
            &u[n - 2..]
        );
    }
}

/// `u' = Δu + u²` on 40 points to t = 0.5, dense and banded: a second run of `method`,
/// with an observer reading the dense output, allocates nothing.
fn stiff_run_allocates_only_in_its_first_run(
    name: &str,
    method: impl Fn(Structure) -> timestep::AdaptiveKind,
) {
    let n = 40;
    let scale = ((n + 1) * (n + 1)) as f64;
    let forces = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        heat_rate(u, scale, out);
        for (o, u) in out.iter_mut().zip(u) {
            *o += u * u;
        }
    });
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
        let mut solver =
            Adaptive::new(method(structure)).with_tolerances(Tolerances::new(1e-8, 1e-10));
        let mut u = start.clone();
        solver.solve(&mut u, &forces, 0.0, 0.5).unwrap();
        let mut u = start.clone();
        let mut probe = start.clone();
        let mut observed = 0;
        let before = ALLOCATIONS.with(Cell::get);
        let statistics = solver
            .solve_with(&mut u, &forces, 0.0, 0.5, |step| {
                let middle = 0.5 * (step.start_time() + step.end_time());
                step.state_at(middle, &mut probe);
                observed += 1;
            })
            .unwrap();
        let count = ALLOCATIONS.with(Cell::get) - before;
        assert!(statistics.accepted > 5 && statistics.jacobians > 0 && observed > 5);
        assert_eq!(
            count, 0,
            "{name} ({structure:?}): {count} allocations in a run of {statistics:?}"
        );
    }
}

/// `u' = Δu + u²` on an `n × n` grid (5-point stencil, `u = 0` on the boundary), with its
/// sparsity pattern.
#[cfg(feature = "sparse")]
struct Grid(usize);

#[cfg(feature = "sparse")]
impl Forces<Vec<f64>> for Grid {
    fn force(&self, u: &Vec<f64>, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; u.len()];
        self.force_into(u, t, &mut out);
        out
    }

    fn force_into(&self, u: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        let n = self.0;
        let scale = ((n + 1) * (n + 1)) as f64;
        for k in 0..n * n {
            let (i, j) = (k / n, k % n);
            let at = |near: bool, a: usize| if near { u[a] } else { 0.0 };
            let sum = at(i > 0, k.wrapping_sub(n))
                + at(i + 1 < n, k + n)
                + at(j > 0, k.wrapping_sub(1))
                + at(j + 1 < n, k + 1);
            out[k] = scale * (sum - 4.0 * u[k]) + u[k] * u[k];
        }
    }

    fn jacobian_pattern(&self, u: &Vec<f64>, pattern: &mut timestep::Pattern) -> bool {
        let n = self.0;
        for k in 0..u.len() {
            let (i, j) = (k / n, k % n);
            pattern.insert(k, k);
            for (near, column) in [
                (i > 0, k.wrapping_sub(n)),
                (i + 1 < n, k + n),
                (j > 0, k.wrapping_sub(1)),
                (j + 1 < n, k + 1),
            ] {
                if near {
                    pattern.insert(k, column);
                }
            }
        }
        true
    }
}

/// Sparse Jacobians allocate only when the workspace is made: the pattern, its layout
/// and colouring, the LU's symbolic analysis and buffers. Backward Euler and Rodas4 then
/// step 20 times (Rodas4 makes and factors a Jacobian every step), and a second adaptive
/// run of Radau5 (real and complex factorisations) allocates nothing.
#[cfg(feature = "sparse")]
#[test]
fn sparse_jacobians_allocate_only_on_the_first_step() {
    use timestep::Radau5;
    use timestep::adaptive::Adaptive;
    let n = 20;
    let start: Vec<f64> = (0..n * n).map(|k| (k as f64 * 0.37).sin()).collect();
    let mut u = start.clone();
    let count = allocations_after_first_step(
        "sparse backward Euler",
        &mut Stepper::new(BackwardEuler::new().with_structure(Structure::Sparse)),
        &mut u,
        &Grid(n),
        1e-3,
    );
    assert_eq!(count, 0, "sparse backward Euler: {count} allocations");
    let mut u = start.clone();
    let count = allocations_after_first_step(
        "sparse Rodas4",
        &mut Stepper::new(Rodas4.with_structure(Structure::Sparse)),
        &mut u,
        &Grid(n),
        1e-3,
    );
    assert_eq!(count, 0, "sparse Rodas4: {count} allocations");

    let mut solver = Adaptive::new(Radau5::new().with_structure(Structure::Sparse))
        .with_tolerances(Tolerances::new(1e-6, 1e-9));
    let mut u = start.clone();
    solver.solve(&mut u, &Grid(n), 0.0, 0.05).unwrap();
    let mut u = start.clone();
    let before = ALLOCATIONS.with(Cell::get);
    let statistics = solver.solve(&mut u, &Grid(n), 0.0, 0.05).unwrap();
    let count = ALLOCATIONS.with(Cell::get) - before;
    assert!(statistics.accepted > 5 && statistics.jacobians > 0);
    assert_eq!(
        count, 0,
        "sparse Radau5: {count} allocations in a run of {statistics:?}"
    );
}

/// `y′ᵢ = −k (1 + i/100) yᵢ + c`, parameters `[k, c]`, with its exact tangent or, when
/// `exact` is false, none (finite differences).
struct Decay {
    exact: bool,
}

impl timestep::sensitivity::Model<Vec<f64>> for Decay {
    fn rate(&self, y: &Vec<f64>, p: &[f64], _t: f64, out: &mut Vec<f64>) {
        for (i, (o, y)) in out.iter_mut().zip(y).enumerate() {
            *o = -p[0] * (1.0 + i as f64 * 0.01) * y + p[1];
        }
    }

    fn tangent(
        &self,
        y: &Vec<f64>,
        p: &[f64],
        _t: f64,
        dy: &Vec<f64>,
        dp: &[f64],
        out: &mut Vec<f64>,
    ) -> bool {
        for (i, ((o, y), dy)) in out.iter_mut().zip(y).zip(dy).enumerate() {
            let a = 1.0 + i as f64 * 0.01;
            *o = -p[0] * a * dy - dp[0] * a * y + dp[1];
        }
        self.exact
    }
}

/// Forward sensitivities on a state sized at run time ([`Stacked`]`<Vec<f64>>`, two
/// sensitivities): every method allocates only on its first step, with the exact tangent
/// and (explicit methods, whose fixed steps have no Newton tolerance for the differences'
/// `√ε` noise to exceed) with finite differences, whose buffers are made on the first
/// evaluation.
#[test]
fn every_method_on_stacked_sensitivities_allocates_only_on_its_first_step() {
    use timestep::Scheme;
    use timestep::sensitivity::{Forward, Stacked, WithRespectTo};
    for exact in [true, false] {
        let wrt = vec![WithRespectTo::Parameter(0), WithRespectTo::InitialValue(3)];
        let forward = Forward::new(Decay { exact }, vec![1.0, 0.5], wrt).expect("valid parameters");
        for kind in MethodKind::all() {
            if !exact && kind.properties().implicit {
                continue;
            }
            let mut y: Stacked<Vec<f64>> = forward.initial(vec![1.0; 20]).expect("a start");
            let count = allocations_after_first_step(
                kind.name(),
                &mut Method::new(kind),
                &mut y,
                &forward,
                0.01,
            );
            assert_eq!(
                count, 0,
                "{kind} on Stacked<Vec<f64>> (exact tangent: {exact}): {count} allocations in {STEPS} steps"
            );
        }
    }
}

/// The BDF with GMRES (the Krylov basis, the Hessenberg matrix, the rotations, a banded
/// preconditioner's band and factors) likewise, unpreconditioned and preconditioned:
/// `u' = Δu + u²` on 40 points to t = 0.5, a second run allocates nothing.
#[test]
fn adaptive_bdf_gmres_allocates_only_in_its_first_run() {
    use timestep::{Bdf, Gmres, LinearSolver, Preconditioner, Side};
    let n = 40;
    let scale = ((n + 1) * (n + 1)) as f64;
    let forces = InPlace(move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        heat_rate(u, scale, out);
        for (o, u) in out.iter_mut().zip(u) {
            *o += u * u;
        }
    });
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    for preconditioner in [
        Preconditioner::None,
        Preconditioner::Banded { lower: 1, upper: 1 },
    ] {
        let gmres = Gmres::new()
            .with_restarts(1)
            .with_preconditioner(preconditioner, Side::Right);
        let bdf = Bdf::new().with_linear_solver(LinearSolver::Gmres(gmres));
        let mut solver = Adaptive::new(bdf).with_tolerances(Tolerances::new(1e-8, 1e-10));
        let mut u = start.clone();
        solver.solve(&mut u, &forces, 0.0, 0.5).unwrap();
        let mut u = start.clone();
        let before = ALLOCATIONS.with(Cell::get);
        let statistics = solver.solve(&mut u, &forces, 0.0, 0.5).unwrap();
        let count = ALLOCATIONS.with(Cell::get) - before;
        assert!(statistics.accepted > 5 && statistics.linear_iterations > statistics.accepted);
        assert_eq!(
            count, 0,
            "BDF with GMRES ({preconditioner:?}): {count} allocations in a run of {statistics:?}"
        );
    }
}
