//! No allocation in `step`: a global allocator that counts the allocations of the thread
//! that makes them shows zero over 100 steps of every method (backward Euler's Newton solve
//! included, with finite differences and with an analytic Jacobian), called directly and
//! through [`Method`]'s dispatch, on particles in `f64` and in `f32` 3-D, on rigid bodies
//! in both precisions, and through the serial batch function [`step_all`], its error path
//! included. States sized at run time (`Vec<f64>`, `Vec<DVec3>`, `Box<[f64]>`,
//! [`Particles`]) allocate their workspace on a [`Stepper`]'s first step and nothing after,
//! with every method and with banded backward Euler.
//!
//! The counter is per thread, so tests running side by side on other threads (and the test
//! harness itself) cannot add to it; a first test checks that it does count.
//!
//! `unsafe` here is only the `GlobalAlloc` implementation, which the trait requires; it
//! forwards every call unchanged to the system allocator.

use glam::{DVec3, Vec3};
use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use timestep::batch::step_all;
use timestep::rigid::{Body, DRigidBody, Inertia, Precision, RigidBody, Splitting, Vector3};
use timestep::{
    BackwardEuler, ExplicitEuler, Forces, ImprovedEuler, Integrator, Jacobian, Method, Midpoint,
    Particle, PositionVerlet, Rk4, SemiImplicitEuler, State, StepError, Verlet, WithJacobian,
};
use timestep::{
    Compensated, Composition, InPlace, MethodKind, Particles, Scheme, Stepper, Structure, Vector,
};

thread_local! {
    /// Allocations (including reallocations) made by this thread so far.
    static ALLOCATIONS: Cell<usize> = const { Cell::new(0) };
    /// Bytes allocated (including reallocations' new sizes) by this thread so far.
    static BYTES: Cell<usize> = const { Cell::new(0) };
}

/// The system allocator, counting every allocation and reallocation in [`ALLOCATIONS`].
struct Counting;

fn count(bytes: usize) {
    // `try_with`: an allocation while the thread's locals are being torn down is not ours.
    let _ = ALLOCATIONS.try_with(|n| n.set(n.get() + 1));
    let _ = BYTES.try_with(|n| n.set(n.get() + bytes));
}

// SAFETY: every method forwards its arguments unchanged to `System`, which upholds the
// `GlobalAlloc` contract; counting touches only a thread-local `Cell<usize>` (constant
// initializer, no destructor), which never allocates.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded as received.
        unsafe { System.alloc(layout) }
    }

    unsafe fn alloc_zeroed(&self, layout: Layout) -> *mut u8 {
        count(layout.size());
        // SAFETY: forwarded as received.
        unsafe { System.alloc_zeroed(layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        count(new_size);
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

/// How many allocations this thread makes while running `f`, and what `f` returned.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (ALLOCATIONS.with(Cell::get) - before, result)
}

/// Steps per measured run.
const STEPS: usize = 100;

/// Runs [`STEPS`] steps of `integrator` on `state` under `forces`, asserting that they
/// succeed, that they move the state, and that they allocate nothing.
fn assert_no_allocation<S, I, F>(what: &str, mut integrator: I, start: S, forces: &F, dt: S::Scalar)
where
    S: State + PartialEq + core::fmt::Debug,
    I: Integrator<S>,
    F: Forces<S>,
    S::Scalar: From<f32>,
{
    let mut state = start.clone();
    let (count, result) = allocations(|| {
        for i in 0..STEPS {
            let t = S::Scalar::from(i as f32) * dt;
            integrator.step(&mut state, forces, t, dt)?;
        }
        Ok::<(), StepError>(())
    });
    assert_eq!(result, Ok(()), "{what}: the steps must succeed");
    assert_ne!(state, start, "{what}: the steps must move the state");
    assert_eq!(count, 0, "{what}: {count} allocations in {STEPS} steps");
}

/// Every method on one state: each integrator type called directly, then each through
/// [`Method`], then each through [`step_all`] on four copies of the state.
fn every_method<S, F>(kind: &str, start: S, forces: &F, dt: S::Scalar)
where
    S: State + PartialEq + core::fmt::Debug,
    F: Forces<S>,
    S::Scalar: From<f32>,
{
    let check = |name: &str, run: &mut dyn FnMut()| {
        let (count, ()) = allocations(run);
        assert_eq!(count, 0, "{name} on {kind}: {count} allocations");
    };
    // Directly, by type: static dispatch, as a game would call it.
    assert_no_allocation(
        &format!("ExplicitEuler on {kind}"),
        ExplicitEuler,
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(
        &format!("SemiImplicitEuler on {kind}"),
        SemiImplicitEuler,
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(
        &format!("Midpoint on {kind}"),
        Midpoint,
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(
        &format!("ImprovedEuler on {kind}"),
        ImprovedEuler,
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(&format!("Rk4 on {kind}"), Rk4, start.clone(), forces, dt);
    assert_no_allocation(
        &format!("Verlet on {kind}"),
        Verlet,
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(
        &format!("PositionVerlet on {kind}"),
        PositionVerlet::new(),
        start.clone(),
        forces,
        dt,
    );
    assert_no_allocation(
        &format!("BackwardEuler on {kind}"),
        BackwardEuler::new(),
        start.clone(),
        forces,
        dt,
    );

    for method in MethodKind::all().into_iter().map(Method::<S>::new) {
        // By name, through the enum's dispatch.
        assert_no_allocation(
            &format!("Method::{method} on {kind}"),
            method.clone(),
            start.clone(),
            forces,
            dt,
        );

        // A batch, serially.
        let mut states = vec![start.clone(); 4];
        let mut result = Ok(());
        check(&format!("step_all({method}) on {kind}"), &mut || {
            for i in 0..STEPS {
                let t = S::Scalar::from(i as f32) * dt;
                result = result.and(step_all(&method, &mut states, forces, t, dt));
            }
        });
        assert_eq!(result, Ok(()), "step_all({method}) on {kind} must succeed");
        assert!(
            states.iter().all(|s| *s != start),
            "step_all({method}) on {kind} must move every state"
        );
    }
}

#[test]
fn the_counter_counts() {
    let (count, v) = allocations(|| Vec::<u64>::with_capacity(8));
    assert!(count >= 1, "a Vec's buffer must be counted");
    let (count, v) = allocations(move || {
        let mut v = v;
        v.extend(0..1000);
        v
    });
    assert!(count >= 1, "growing a Vec must be counted");
    let (count, ()) = allocations(|| drop(v));
    assert_eq!(count, 0, "freeing is not allocating");

    // Forces that allocate are seen through a step: the count is of everything a step does.
    let wasteful = |p: &Particle<f64>, _t: f64| {
        let copies: Vec<f64> = std::iter::repeat_n(p.position(), 3).collect();
        -std::hint::black_box(copies).iter().sum::<f64>()
    };
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let (count, result) = allocations(|| Rk4.step(&mut particle, &wasteful, 0.0, 0.01));
    assert_eq!(result, Ok(()));
    assert_eq!(count, 4, "RK4 evaluates the forces four times");
}

#[test]
fn particles_in_f64_step_without_allocating() {
    let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position() - 0.1 * p.velocity();
    every_method("Particle<f64>", Particle::new(1.0, 1.0, 0.0), &spring, 0.01);
    assert_no_allocation(
        "compensated Kahan–Li 8 on Particle<f64>",
        Composition::KAHAN_LI8.compensated(),
        Particle::new(1.0, 1.0, 0.0),
        &spring,
        0.01,
    );
}

#[test]
fn particles_in_f32_3d_step_without_allocating() {
    let forces = |p: &Particle<Vec3>, _t: f32| {
        Vec3::new(0.0, -9.81, 0.0) * p.mass() - 15.0 * p.position() - 0.1 * p.velocity()
    };
    let start = Particle::new(2.0, Vec3::new(1.0, 2.0, -1.0), Vec3::new(0.0, 0.5, 1.0));
    every_method("Particle<Vec3>", start, &forces, 0.01);
    assert_no_allocation(
        "compensated Verlet on Particle<Vec3>",
        Verlet.compensated(),
        start,
        &forces,
        0.01,
    );
}

/// A body on a spring, pushed at a corner, with angular drag: every primary quantity moves.
fn body_forces<S: Precision>(body: &Body<S>, _t: S) -> (S::Vec3, S::Vec3) {
    let one = S::from_f64(1.0);
    let half = S::from_f64(0.5);
    let corner = body.to_world_point(S::Vec3::new(half, half, S::from_f64(0.0)));
    let pull = body.position() * S::from_f64(-2.0) + S::Vec3::new(S::from_f64(0.0), one, one);
    let (force, torque) = body.force_at_point(pull, corner);
    (force, torque - body.angular_velocity() * S::from_f64(0.1))
}

fn spinning<S: Precision>() -> Body<S> {
    let mut body = Body::<S>::new(S::from_f64(2.0), Inertia::cuboid(2.0, 1.0, 2.0, 3.0));
    body.set_angular_velocity(S::Vec3::new(
        S::from_f64(0.1),
        S::from_f64(2.0),
        S::from_f64(0.1),
    ));
    body
}

#[test]
fn rigid_bodies_in_f32_step_without_allocating() {
    let _: RigidBody = spinning::<f32>();
    every_method(
        "RigidBody",
        spinning::<f32>(),
        &body_forces::<f32>,
        1.0 / 60.0,
    );
    assert_no_allocation(
        "Splitting on RigidBody",
        Splitting,
        spinning::<f32>(),
        &body_forces::<f32>,
        1.0 / 60.0,
    );
}

#[test]
fn rigid_bodies_in_f64_step_without_allocating() {
    let _: DRigidBody = spinning::<f64>();
    every_method(
        "DRigidBody",
        spinning::<f64>(),
        &body_forces::<f64>,
        1.0 / 60.0,
    );
    assert_no_allocation(
        "Splitting on DRigidBody",
        Splitting,
        spinning::<f64>(),
        &body_forces::<f64>,
        1.0 / 60.0,
    );
}

#[test]
fn backward_euler_with_an_analytic_jacobian_allocates_nothing() {
    let (k, b) = (15.0, 0.1);
    let forces = WithJacobian::new(
        move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity(),
        move |p: &Particle<f64>, _t: f64, j: &mut Jacobian<f64>| {
            j[(0, 1)] = p.inverse_mass();
            j[(1, 0)] = -k;
            j[(1, 1)] = -b * p.inverse_mass();
        },
    );
    assert_no_allocation(
        "BackwardEuler with a Jacobian",
        BackwardEuler::new(),
        Particle::new(1.0, 1.0, 0.0),
        &forces,
        0.01,
    );
    // And the stiff case it is there for, where each step takes Newton iterations.
    let stiff = |p: &Particle<DVec3>, _t: f64| -1.0e6 * p.position() - 10.0 * p.velocity();
    let start = Particle::new(1.0, DVec3::new(1.0, -1.0, 0.5), DVec3::ZERO);
    assert_no_allocation(
        "BackwardEuler on a stiff spring",
        BackwardEuler::new(),
        start,
        &stiff,
        1.0 / 60.0,
    );
}

#[test]
fn failing_steps_and_batches_allocate_nothing() {
    let spring = |p: &Particle<f64>, _t: f64| -15.0 * p.position();
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let mut states = vec![particle; 8];
    let (count, (one, many)) = allocations(|| {
        (
            Rk4.step(&mut particle, &spring, 0.0, f64::NAN),
            step_all(&Rk4, &mut states, &spring, f64::INFINITY, 0.01),
        )
    });
    assert!(matches!(one, Err(StepError::NonFiniteTime { .. })));
    let many = many.unwrap_err();
    assert_eq!((many.index, many.failed), (0, 8));
    assert_eq!(count, 0, "{count} allocations on the error paths");

    // Backward Euler refusing a NaN force in the middle of a batch.
    let poisoned = |p: &Particle<f64>, _t: f64| {
        if p.mass() > 1.5 {
            f64::NAN
        } else {
            -p.position()
        }
    };
    let mut states: Vec<Particle<f64>> = (0..8)
        .map(|i| Particle::new(1.0 + (i % 2) as f64, 1.0, 0.0))
        .collect();
    let (count, result) =
        allocations(|| step_all(&BackwardEuler::new(), &mut states, &poisoned, 0.0, 0.1));
    let error = result.unwrap_err();
    assert_eq!((error.index, error.failed), (1, 4));
    assert_eq!(
        count, 0,
        "{count} allocations on backward Euler's error path"
    );
}

/// [`STEPS`] steps of `stepper` after a first one that makes its workspace: the first may
/// allocate, the others must not, and they must move the state.
fn assert_no_allocation_after_the_first<S, I, F>(
    what: &str,
    mut stepper: I,
    start: S,
    forces: &F,
    dt: f64,
) where
    S: State<Scalar = f64> + PartialEq + core::fmt::Debug,
    I: Integrator<S>,
    F: Forces<S>,
{
    let mut state = start.clone();
    stepper.step(&mut state, forces, 0.0, dt).unwrap();
    let moved = state.clone();
    let (count, result) = allocations(|| {
        for i in 1..=STEPS {
            stepper.step(&mut state, forces, i as f64 * dt, dt)?;
        }
        Ok::<(), StepError>(())
    });
    assert_eq!(result, Ok(()), "{what}: the steps must succeed");
    assert_ne!(state, moved, "{what}: the steps must move the state");
    assert_eq!(
        count, 0,
        "{what}: {count} allocations in {STEPS} steps after the first"
    );
}

/// Every method, by name through [`Method`] (a stepper), on one large state.
fn every_method_on_a_large_state<S, F>(kind: &str, start: S, forces: &F, dt: f64)
where
    S: State<Scalar = f64> + PartialEq + core::fmt::Debug,
    F: Forces<S>,
{
    // One at a time, by name: an array of every `Method` (each with room for backward
    // Euler's workspace) next to this test's states overflowed a debug thread's stack.
    for name in MethodKind::NAMES {
        let method: Method<S> = name.parse().expect("a listed name");
        assert_no_allocation_after_the_first(
            &format!("{method} on {kind}"),
            method,
            start.clone(),
            forces,
            dt,
        );
    }
}

#[test]
fn large_states_allocate_only_on_the_first_step() {
    // A chain of 500 unknowns diffusing: u'ᵢ = uᵢ₋₁ − 2uᵢ + uᵢ₊₁, written in place.
    let diffusion = InPlace(|u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        let n = u.len();
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = left - 2.0 * u[i] + right;
        }
    });
    let start: Vec<f64> = (0..40).map(|i| (i as f64 * 0.1).sin()).collect();
    every_method_on_a_large_state("Vec<f64>", start.clone(), &diffusion, 0.01);
    assert_no_allocation_after_the_first(
        "compensated Forest–Ruth on Vec<f64>",
        Composition::FOREST_RUTH.compensated(),
        start,
        &diffusion,
        0.01,
    );
    let start: Vec<f64> = (0..2000).map(|i| (i as f64 * 0.1).sin()).collect();
    assert_no_allocation_after_the_first(
        "banded BackwardEuler on Vec<f64>",
        Stepper::new(BackwardEuler::new().with_structure(Structure::Banded { lower: 1, upper: 1 })),
        start,
        &diffusion,
        0.1,
    );

    #[allow(clippy::borrowed_box)] // the state is the box itself
    let boxed = InPlace(|u: &Box<[f64]>, _t: f64, du: &mut Box<[f64]>| {
        for (d, u) in du.iter_mut().zip(u.iter()) {
            *d = -u;
        }
    });
    let start: Box<[f64]> = (0..30).map(|i| i as f64).collect();
    every_method_on_a_large_state("Box<[f64]>", start, &boxed, 0.01);

    let swirl = InPlace(|u: &Vec<DVec3>, _t: f64, du: &mut Vec<DVec3>| {
        for (d, u) in du.iter_mut().zip(u) {
            *d = DVec3::Z.cross(*u) - 0.1 * *u;
        }
    });
    let start: Vec<DVec3> = (0..12).map(|i| DVec3::new(1.0, i as f64, 0.5)).collect();
    every_method_on_a_large_state("Vec<DVec3>", start, &swirl, 0.01);

    // Particles pulled to the origin and to each neighbour.
    let springs = InPlace(
        |bodies: &Particles<DVec3>, _t: f64, forces: &mut Vec<DVec3>| {
            let x = bodies.positions();
            forces.set_zero();
            for i in 0..x.len() {
                forces[i] -= x[i];
                if i + 1 < x.len() {
                    let pull = 2.0 * (x[i + 1] - x[i]);
                    forces[i] += pull;
                    forces[i + 1] -= pull;
                }
            }
        },
    );
    let n = 8;
    let start = Particles::new(
        (0..n).map(|i| 1.0 + i as f64 / 10.0).collect(),
        (0..n).map(|i| DVec3::new(i as f64, 0.0, 1.0)).collect(),
        vec![DVec3::Y; n],
    );
    every_method_on_a_large_state("Particles<DVec3>", start.clone(), &springs, 0.01);
    assert_no_allocation_after_the_first(
        "compensated Kahan–Li 8 on Particles<DVec3>",
        Composition::KAHAN_LI8.compensated(),
        start,
        &springs,
        0.01,
    );
}

/// Bytes this thread allocates while running `f`.
fn bytes_allocated<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = BYTES.with(Cell::get);
    let result = f();
    (BYTES.with(Cell::get) - before, result)
}

/// Bytes a stepper of `method` allocates for its workspace on `state`.
fn workspace_bytes<M: Scheme>(method: M, state: &Vec<f64>) -> usize {
    let (bytes, stepper) = bytes_allocated(|| Stepper::for_state(method, state));
    drop(stepper);
    bytes
}

/// The same for a method of the registry; the implicit methods with a tridiagonal Jacobian,
/// since their dense matrices would take 8 TB here.
fn registry_workspace_bytes(kind: MethodKind, state: &Vec<f64>) -> usize {
    let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
    match kind {
        MethodKind::BackwardEuler(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Trapezoid(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::ImplicitMidpoint(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Newmark(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Rodas4(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Rodas5P(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Ros3p(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        MethodKind::Radau5(m) => workspace_bytes(m.with_structure(tridiagonal), state),
        other if other.properties().implicit => {
            panic!("{other}: measure it with a tridiagonal Jacobian here")
        }
        other => workspace_bytes(other, state),
    }
}

/// The memory of each method's workspace on a state of 10⁶ unknowns, in copies of the
/// state's size (8 MB for `Vec<f64>`): what the crate docs' table says.
///
/// - Explicit Runge–Kutta methods, the pairs at a fixed step included, hold one rate per
///   stage plus a probe and a sum.
/// - Velocity Verlet holds the start force, and from its first step with forces that read
///   momenta the end force and a probe too (checked after the table); leapfrog a force.
/// - Beeman four forces (the last two step ends, this one's, a sum) and a probe;
///   Adams–Bashforth–Moulton four past rates, the predicted rate, a sum, a probe, and RK4's
///   workspace for its starting steps; exponential Euler the rate and the linear part's
///   diagonal; the predictor–corrector two stages, a probe and a sum.
/// - A composition of Verlet a force and the state its kicks' forces are seen at;
///   Blanes–Moan (drift first) the force alone. Compensated (checked after the table),
///   also the compensation, the step's increment and the probe it is seen at.
/// - The implicit methods, tridiagonal: backward Euler six rates, the end-of-step probe,
///   four numbers per unknown, pivots (one `usize` each) and the band's LU storage (four
///   diagonals, one for fill-in); the trapezoidal rule and Newmark one more rate, the
///   explicit part of their step. Rodas4 six stage increments, the start and end rates, a
///   stage rate, a sum, ∂f/∂t and the coordinates; a probe; the Jacobian (kept for the
///   retries of a rejected step) and the band's LU, each four diagonals and pivots, and
///   two numbers per unknown; Rodas5P the same with eight stage increments, Ros3p with three. Radau5 three
///   stage values, three increments and three stage rates, the start and end rates, its
///   collocation polynomial's three coefficients, a scratch rate, the coordinates and a
///   probe; the Jacobian and the real matrix, each four diagonals and pivots; the complex
///   matrix, four complex diagonals and pivots; a real and a complex right-hand side and the
///   scale of the Newton corrections.
#[test]
fn workspace_memory_on_a_million_unknowns() {
    let n = 1_000_000;
    let state = vec![0.5_f64; n];
    let size = n * std::mem::size_of::<f64>();
    let expected = [
        ("explicit-euler", 3),
        ("semi-implicit-euler", 1),
        ("midpoint", 4),
        ("improved-euler", 4),
        ("rk4", 6),
        ("verlet", 1),
        ("position-verlet", 3),
        ("backward-euler", 6 + 1 + 4 + 1 + 3),
        ("bs3", 6),
        ("dopri5", 9),
        ("tsit5", 9),
        ("dop853", 14),
        ("leapfrog", 1),
        ("beeman", 5),
        ("adams-bashforth-moulton", 4 + 1 + 1 + 1 + 6),
        ("exponential-euler", 2),
        ("predictor-corrector", 4),
        ("forest-ruth", 2),
        ("suzuki4", 2),
        ("yoshida6", 2),
        ("yoshida8", 2),
        ("blanes-moan4", 1),
        ("kahan-li8", 2),
        ("trapezoid", 7 + 1 + 4 + 1 + 3),
        ("implicit-midpoint", 6 + 1 + 4 + 1 + 3),
        ("newmark", 7 + 1 + 4 + 1 + 3),
        ("rodas4", 6 + 6 + 1 + 4 + 1 + 4 + 1 + 2),
        ("rodas5p", 8 + 6 + 1 + 4 + 1 + 4 + 1 + 2),
        ("ros3p", 3 + 6 + 1 + 4 + 1 + 4 + 1 + 2),
        ("radau5", 9 + 2 + 3 + 3 + 5 + 5 + 9 + 4),
    ];
    assert_eq!(
        expected.map(|(name, _)| name),
        MethodKind::NAMES,
        "one entry per method of the registry, in its order"
    );
    println!("| method | workspace | copies of the state |");
    println!("|---|---|---|");
    for (kind, (name, copies)) in MethodKind::all().into_iter().zip(expected) {
        let bytes = registry_workspace_bytes(kind, &state);
        let banded = if kind.properties().implicit {
            ", tridiagonal"
        } else {
            ""
        };
        println!(
            "| `{name}`{banded} | {} MB | {} |",
            bytes / 1_000_000,
            bytes as f64 / size as f64
        );
        assert_eq!(bytes, copies * size, "{name}");
    }
    // Forces that read momenta (as `InPlace` ones do, unlike `Positional` ones): velocity
    // Verlet's first step makes the workspace and then its end force and probe.
    let copy = InPlace(|y: &Vec<f64>, _t: f64, out: &mut Vec<f64>| out.copy_from_slice(y));
    let (mut stepper, mut y) = (Stepper::new(Verlet), state.clone());
    let (bytes, result) = bytes_allocated(|| stepper.step(&mut y, &copy, 0.0, 0.01));
    assert_eq!(result, Ok(()));
    assert_eq!(bytes, 3 * size, "verlet, first step");
    // A compensated composition: the composition's two copies, and three.
    let (bytes, compensated) =
        bytes_allocated(|| Compensated::for_state(Composition::KAHAN_LI8, &state));
    drop(compensated);
    println!(
        "| `kahan-li8`, compensated | {} MB | 5 |",
        bytes / 1_000_000
    );
    assert_eq!(bytes, 5 * size, "kahan-li8, compensated");
}
