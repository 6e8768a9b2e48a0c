//! No allocation per step in Rosenbrock methods after the first: a global allocator that
//! counts this thread's allocations shows that an [`Adaptive`] run of Rodas4 on a
//! `Vec<f64>` state (finite-difference and banded Jacobians, an observer reading the dense
//! output, an event) allocates only when its workspace is made, on the first run, and a
//! second run allocates nothing, whatever its number of steps; and that a [`Stepper`]
//! allocates nothing after its first step. (Small states never allocate: their matrices
//! live inline; tests/no_allocation.rs checks every method by name.)
//!
//! `unsafe` here is only the `GlobalAlloc` implementation, which the trait requires; it
//! forwards every call unchanged to the system allocator.

use std::alloc::{GlobalAlloc, Layout, System};
use std::cell::Cell;
use timestep::adaptive::{Adaptive, Event, Tolerances};
use timestep::{InPlace, Integrator, Rodas4, Rosenbrock, Stepper, Structure};

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

/// How many allocations this thread makes while running `f`, and what `f` returned.
fn allocations<R>(f: impl FnOnce() -> R) -> (usize, R) {
    let before = ALLOCATIONS.with(Cell::get);
    let result = f();
    (ALLOCATIONS.with(Cell::get) - before, result)
}

#[test]
fn the_counter_counts() {
    let (count, v) = allocations(|| Vec::<u64>::with_capacity(8));
    assert!(count >= 1, "a Vec's buffer must be counted");
    drop(v);
}

/// Forty unknowns of a heat equation with a nonlinear sink, written in place:
/// `u′ᵢ = (uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx² − uᵢ³` (tridiagonal Jacobian, stiff).
fn heat() -> InPlace<impl Fn(&Vec<f64>, f64, &mut Vec<f64>)> {
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

fn start() -> Vec<f64> {
    (1..=40).map(|i| (0.1 * i as f64).sin()).collect()
}

/// An adaptive run allocates its workspace once; a second run of the same solver,
/// observed and with an event, allocates nothing.
#[test]
fn adaptive_runs_allocate_only_their_workspace() {
    let forces = heat();
    let methods: [(&str, Rosenbrock<6>); 2] = [
        ("dense", Rodas4.rosenbrock()),
        (
            "banded",
            Rodas4.with_structure(Structure::Banded { lower: 1, upper: 1 }),
        ),
    ];
    for (what, method) in methods {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-6, 1e-8));
        let mut u = start();
        let (first, result) = allocations(|| solver.solve(&mut u, &forces, 0.0, 0.5));
        let statistics = result.unwrap();
        assert!(statistics.accepted > 5, "{what}: {statistics:?}");
        assert!(first > 0, "{what}: the first run makes its workspace");

        let mut u = start();
        let mut sample = start();
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

/// A stepper allocates on its first step and never after.
#[test]
fn fixed_steps_allocate_only_on_the_first() {
    let forces = heat();
    let mut stepper = Stepper::new(Rodas4.with_structure(Structure::Banded { lower: 1, upper: 1 }));
    let mut u = start();
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
