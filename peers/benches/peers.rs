//! `timestep` against the crates a user would pick instead, on one problem: classic RK4 at
//! a fixed `dt = 0.01` for 10 s (1000 steps) on the damped spring `m x'' = −k x − b x'`
//! with k = 15 N/m, b = 0.1 kg/s, m = 1 kg, x₀ = 1000 m, v₀ = 0, in `f64`.
//!
//! Each crate is used the way its documentation shows for a fixed-step RK4 run:
//!
//! - `timestep`: a [`Particle<f64>`] stepped 1000 times by [`Rk4`] in a loop; only the
//!   final state is kept.
//! - `ode_solvers` 0.6: `Rk4::new(system, t0, y0, t1, dt)` then `integrate()`, on a
//!   `Vector2<f64>`; it stores every step's `(t, y)` in growing vectors (its only mode).
//! - `differential-equations` 0.7: `IVP::ode(&ode, t0, t1, y0).method(ExplicitRungeKutta::
//!   rk4(dt)).solve()`, on a `[f64; 2]`; its default output keeps every step too. It adds
//!   `dt` to `t` step by step, so after 1000 steps `t` is 10 − 1.7·10⁻¹³ and it takes a
//!   1001st step of that length to land on 10 s: its end position differs from the others'
//!   by `v · 1.7·10⁻¹³ ≈ 3.4·10⁻¹⁰` m.
//!
//! All three must end at the same position to 1e-9 m, checked once before measuring.
//!
//! `peers/adaptive-<problem>-<error>`: error control at matched final error, on the
//! Arenstorf orbit, Kepler (e = 0.9, ten periods) and Lorenz (to t = 10) of
//! `examples/problems/mod.rs`, at 10⁻⁶ and 10⁻¹⁰ from its reference end states: `timestep`'s
//! `Adaptive` with `Dop853` against `ode_solvers`' `Dop853` and `differential-equations`'
//! `dop853()` (the 5(4) pairs are in the search), each at the tolerance that just reaches
//! the error (see [`adaptive`] and [`search`]); each side's error is checked and printed
//! before measuring. A fourth function, `evaluations`, is the floor under them all: the
//! fewest evaluations a side makes, one after another ([`evaluation_chain`]).
//!
//! ```text
//! cargo bench -p timestep-peers --bench peers
//! cargo bench -p timestep-peers --bench peers -- adaptive                 # the adaptive groups only
//! PEERS_SEARCH= cargo bench -p timestep-peers --bench peers -- adaptive   # the tolerance search
//! ```

#[path = "../../examples/problems/mod.rs"]
mod problems;

#[path = "shared/mod.rs"]
mod shared;

use criterion::{Criterion, criterion_group, criterion_main};
use differential_equations::prelude::{ExplicitRungeKutta, IVP, ODE};
use ode_solvers::dop_shared::OutputType;
use ode_solvers::{SVector, System, Vector2};
use shared::{Last, OdeSolversIvp, Rhs, rung};
use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};
use timestep::Tolerances;
use timestep::adaptive::Adaptive;
use timestep::{Dopri5, Integrator, Particle, Rk4, Tsit5};

/// The problem's constants.
#[derive(Clone, Copy)]
struct DampedSpring {
    k: f64,
    b: f64,
    m: f64,
    x0: f64,
    v0: f64,
    dt: f64,
    duration: f64,
}

const SPRING: DampedSpring = DampedSpring {
    k: 15.0,
    b: 0.1,
    m: 1.0,
    x0: 1000.0,
    v0: 0.0,
    dt: 0.01,
    duration: 10.0,
};

/// The final position by `timestep`.
fn by_timestep(s: DampedSpring) -> f64 {
    let forces = move |p: &Particle<f64>, _t: f64| -s.k * p.position() - s.b * p.velocity();
    let mut particle = Particle::new(s.m, s.x0, s.v0);
    let steps = (s.duration / s.dt).round() as usize;
    for i in 0..steps {
        Rk4.step(&mut particle, &forces, i as f64 * s.dt, s.dt)
            .expect("finite time");
    }
    particle.position()
}

/// `y = (x, v)`, `y' = (v, (−k x − b v) · (1/m))`, for `ode_solvers`, with `1/m` computed
/// once as `timestep`'s particle does, so no side pays for a division per stage.
struct OdeSolversSpring(DampedSpring, f64);

impl System<f64, Vector2<f64>> for OdeSolversSpring {
    fn system(&self, _t: f64, y: &Vector2<f64>, dy: &mut Vector2<f64>) {
        let s = &self.0;
        dy[0] = y[1];
        dy[1] = (-s.k * y[0] - s.b * y[1]) * self.1;
    }
}

/// The final position by `ode_solvers`.
fn by_ode_solvers(s: DampedSpring) -> f64 {
    let y0 = Vector2::new(s.x0, s.v0);
    let mut solver =
        ode_solvers::Rk4::new(OdeSolversSpring(s, 1.0 / s.m), 0.0, y0, s.duration, s.dt);
    solver.integrate().expect("fixed-step RK4 cannot fail");
    solver.y_out().last().expect("at least the initial state")[0]
}

/// `y = [x, v]`, `y' = [v, (−k x − b v) · (1/m)]`, for `differential-equations`.
struct DiffEqSpring(DampedSpring, f64);

impl ODE<f64, [f64; 2]> for DiffEqSpring {
    fn diff(&self, _t: f64, y: &[f64; 2], dydt: &mut [f64; 2]) {
        let s = &self.0;
        dydt[0] = y[1];
        dydt[1] = (-s.k * y[0] - s.b * y[1]) * self.1;
    }
}

/// The final position by `differential-equations`.
fn by_differential_equations(s: DampedSpring) -> f64 {
    let ode = DiffEqSpring(s, 1.0 / s.m);
    let solution = IVP::ode(&ode, 0.0, s.duration, [s.x0, s.v0])
        .method(ExplicitRungeKutta::rk4(s.dt))
        .solve()
        .expect("fixed-step RK4 cannot fail");
    let (_, y) = solution.last().expect("at least the initial state");
    y[0]
}

fn peers(c: &mut Criterion) {
    let x = by_timestep(SPRING);
    println!("peers/rk4-spring: timestep ends at x = {x:.12} m");
    for (name, other) in [
        ("ode_solvers", by_ode_solvers(SPRING)),
        ("differential_equations", by_differential_equations(SPRING)),
    ] {
        assert!(
            (x - other).abs() <= 1e-9,
            "{name} ends at x = {other}, timestep at {x}: not the same computation"
        );
        println!("peers/rk4-spring: {name} ends {:+.1e} m from it", other - x);
    }

    let mut group = c.benchmark_group("peers/rk4-spring");
    group.bench_function("timestep", |b| b.iter(|| by_timestep(black_box(SPRING))));
    group.bench_function("ode_solvers", |b| {
        b.iter(|| by_ode_solvers(black_box(SPRING)))
    });
    group.bench_function("differential_equations", |b| {
        b.iter(|| by_differential_equations(black_box(SPRING)))
    });
    group.finish();
}

// ------------------------------------------------------------------------------------------
// `peers/adaptive-<problem>-<error>`: the embedded pairs at matched final error.

/// An initial value problem `y' = f(y, t)` on `[f64; N]` from 0 to `end`, and where its
/// exact solution ends (`examples/problems/mod.rs`).
#[derive(Clone, Copy)]
struct Ivp<const N: usize, F> {
    start: [f64; N],
    end: f64,
    f: F,
    reference: [f64; N],
}

/// The peers' pairs.
#[derive(Clone, Copy, Debug)]
enum Pair {
    Dopri5,
    Dop853,
}

/// A contestant: a crate, its method, and its tolerance (`rtol = atol`).
#[derive(Clone, Copy, Debug)]
enum Side {
    /// `timestep`'s `Adaptive` with the pair named (see [`adaptive_timestep`]).
    Timestep(&'static str, f64),
    OdeSolvers(Pair, f64),
    DifferentialEquations(Pair, f64),
}

/// The end state and the force evaluations, by `timestep`.
fn adaptive_timestep<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    pair: &str,
    tolerance: f64,
) -> ([f64; N], u64) {
    let mut y = p.start;
    let tolerances = Tolerances::new(tolerance, tolerance);
    let statistics = match pair {
        "dopri5" => Adaptive::new(Dopri5)
            .with_tolerances(tolerances)
            .solve(&mut y, &p.f, 0.0, p.end),
        "tsit5" => Adaptive::new(Tsit5)
            .with_tolerances(tolerances)
            .solve(&mut y, &p.f, 0.0, p.end),
        "dop853" => Adaptive::new(timestep::Dop853)
            .with_tolerances(tolerances)
            .solve(&mut y, &p.f, 0.0, p.end),
        _ => unreachable!("no pair {pair}"),
    }
    .expect("an adaptive run within its step budget");
    (y, statistics.evaluations)
}

/// The end state and the force evaluations, by `ode_solvers`, with its default controller
/// settings but `OutputType::Sparse`, as [`shared::ode_solvers_dop853`] runs its DOP853.
fn adaptive_ode_solvers<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    pair: Pair,
    tolerance: f64,
) -> ([f64; N], u64) {
    let end = p.end;
    let (y, stats) = match pair {
        Pair::Dopri5 => {
            let mut solver = ode_solvers::Dopri5::from_param(
                OdeSolversIvp(p.f),
                0.0,
                end,
                end,
                SVector::from(p.start),
                tolerance,
                tolerance,
                0.9,
                0.04,
                0.2,
                10.0,
                end,
                0.0,
                1_000_000,
                1000,
                OutputType::Sparse,
            );
            let stats = solver.integrate().expect("Dopri5 within its step budget");
            let y = *solver.y_out().last().expect("the end state");
            (y.into(), stats)
        }
        Pair::Dop853 => shared::ode_solvers_dop853(p.f, p.start, end, tolerance),
    };
    (y, u64::from(stats.num_eval))
}

/// `differential-equations`' system.
struct DiffEqIvp<F>(F);

impl<const N: usize, F: Rhs<N>> ODE<f64, [f64; N]> for DiffEqIvp<F> {
    fn diff(&self, t: f64, y: &[f64; N], dydt: &mut [f64; N]) {
        *dydt = (self.0)(y, t);
    }
}

/// The end state and the force evaluations, by `differential-equations`, with an output
/// that stores nothing.
fn adaptive_differential_equations<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    pair: Pair,
    tolerance: f64,
) -> ([f64; N], u64) {
    let last = Cell::new(p.start);
    let ode = DiffEqIvp(p.f);
    let problem = IVP::ode(&ode, 0.0, p.end, p.start);
    let solution = match pair {
        Pair::Dopri5 => problem
            .method(
                ExplicitRungeKutta::dopri5()
                    .rtol(tolerance)
                    .atol(tolerance)
                    .max_steps(usize::MAX),
            )
            .solout(Last(&last))
            .solve(),
        Pair::Dop853 => problem
            .method(
                ExplicitRungeKutta::dop853()
                    .rtol(tolerance)
                    .atol(tolerance)
                    .max_steps(usize::MAX),
            )
            .solout(Last(&last))
            .solve(),
    }
    .expect("an adaptive run");
    (last.get(), solution.evals.function as u64)
}

/// The end state and the evaluations of `side` on `p`.
fn run_side<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, side: Side) -> ([f64; N], u64) {
    match side {
        Side::Timestep(pair, tolerance) => adaptive_timestep(p, pair, tolerance),
        Side::OdeSolvers(pair, tolerance) => adaptive_ode_solvers(p, pair, tolerance),
        Side::DifferentialEquations(pair, tolerance) => {
            adaptive_differential_equations(p, pair, tolerance)
        }
    }
}

/// The tolerance of `side` (its tolerance field is ignored) that just reaches `target`: the
/// loosest on the ladder 10^(−k/8), k = 16 … 128 (10⁻² … 10⁻¹⁶), at which it and the next
/// two tighter rungs end within `target` of the reference. With its error, evaluations and
/// time (best of 20); or, if none does, the smallest error on the ladder and its tolerance.
fn search<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    side: Side,
    target: f64,
) -> Result<(f64, f64, u64, f64), (f64, f64)> {
    let with = |tolerance| match side {
        Side::Timestep(pair, _) => Side::Timestep(pair, tolerance),
        Side::OdeSolvers(pair, _) => Side::OdeSolvers(pair, tolerance),
        Side::DifferentialEquations(pair, _) => Side::DifferentialEquations(pair, tolerance),
    };
    let ladder: Vec<(f64, f64, u64)> = (16..=128)
        .map(|k| {
            let tolerance = rung(k);
            let (end, evaluations) = run_side(p, with(tolerance));
            (
                tolerance,
                problems::distance(&end, &p.reference),
                evaluations,
            )
        })
        .collect();
    let found = (0..ladder.len()).find(|&i| {
        ladder[i..(i + 3).min(ladder.len())]
            .iter()
            .all(|r| r.1 <= target)
    });
    let Some(i) = found else {
        let best = ladder
            .iter()
            .min_by(|a, b| a.1.total_cmp(&b.1))
            .expect("a ladder");
        if let Some(first) = ladder.iter().find(|r| r.1 <= target) {
            println!(
                "search: loosest single rung within {target:e}: tolerance {:.3e}, error {:.2e}, {} evaluations",
                first.0, first.1, first.2
            );
        }
        return Err((best.0, best.1));
    };
    let (tolerance, error, evaluations) = ladder[i];
    let seconds = (0..20)
        .map(|_| {
            let start = Instant::now();
            black_box(run_side(p, with(tolerance)));
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    Ok((tolerance, error, evaluations, seconds))
}

/// Prints, for each problem and target, every candidate's tolerance found by [`search`]:
/// how the constants in [`adaptive`] were found (`PEERS_SEARCH= cargo bench -p timestep-peers
/// --bench peers -- adaptive` for all problems, `PEERS_SEARCH=lorenz` for one).
fn search_all<const N: usize, F: Rhs<N>>(name: &str, p: &Ivp<N, F>) {
    let candidates = [
        Side::Timestep("dopri5", 0.0),
        Side::Timestep("tsit5", 0.0),
        Side::Timestep("dop853", 0.0),
        Side::OdeSolvers(Pair::Dopri5, 0.0),
        Side::OdeSolvers(Pair::Dop853, 0.0),
        Side::DifferentialEquations(Pair::Dopri5, 0.0),
        Side::DifferentialEquations(Pair::Dop853, 0.0),
    ];
    for target in [1e-6, 1e-10] {
        for side in candidates {
            match search(p, side, target) {
                Ok((tolerance, error, evaluations, seconds)) => println!(
                    "search {name}-{target:e} {side:?}: tolerance {tolerance:.3e}, error {error:.2e}, {evaluations} evaluations, {:.1} µs",
                    seconds * 1e6
                ),
                Err((tolerance, error)) => println!(
                    "search {name}-{target:e} {side:?}: not reached; smallest error {error:.2e} at tolerance {tolerance:.3e}"
                ),
            }
        }
    }
}

/// One group: each side's error checked (within `target`, and not a hundred times below it:
/// at 10⁻¹⁰ the error of a 5(4) pair jumps by tens around its tolerance), printed, then each
/// side measured.
fn adaptive_group<const N: usize, F: Rhs<N>>(
    c: &mut Criterion,
    name: &str,
    p: &Ivp<N, F>,
    target: f64,
    sides: [(&str, Side); 3],
) {
    let group_name = format!("peers/adaptive-{name}-{target:e}");
    let mut fewest = u64::MAX;
    for (function, side) in sides {
        let (end, evaluations) = run_side(p, side);
        fewest = fewest.min(evaluations);
        let error = problems::distance(&end, &p.reference);
        println!("{group_name}: {function} {side:?}: error {error:.2e}, {evaluations} evaluations");
        assert!(
            error <= target && error >= target / 100.0,
            "{group_name}: {function} ends {error:e} from the reference, not just within {target:e}"
        );
    }
    let mut group = c.benchmark_group(group_name);
    for (function, side) in sides {
        group.bench_function(function, |b| b.iter(|| run_side(black_box(p), side)));
    }
    group.bench_function("evaluations", |b| {
        b.iter(|| evaluation_chain(black_box(p), fewest))
    });
    group.finish();
}

/// `n` evaluations of the right-hand side one after another, each probing along the last
/// (`y ← y + h f(y)`, `h` small enough to stay where the problem starts): the floor under
/// any method that makes `n` evaluations, since a Runge–Kutta stage cannot start before
/// the one it probes along has ended. The `evaluations` function of the adaptive groups,
/// at the fewest evaluations a side makes there.
fn evaluation_chain<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, n: u64) -> [f64; N] {
    let mut y = p.start;
    for _ in 0..n {
        let k = (p.f)(&y, 0.0);
        for (y, k) in y.iter_mut().zip(k) {
            *y += 1e-12 * k;
        }
    }
    y
}

/// The `peers/adaptive-*` groups. Each side runs at the tolerance that just reaches the
/// group's error, found by [`search`] (run with `PEERS_SEARCH=1`) and written here, with
/// each crate's faster pair there.
fn adaptive(c: &mut Criterion) {
    let arenstorf = Ivp {
        start: problems::ARENSTORF_START,
        end: problems::ARENSTORF_END,
        f: problems::arenstorf,
        reference: problems::ARENSTORF_REFERENCE,
    };
    let kepler = Ivp {
        start: problems::kepler_start(),
        end: problems::KEPLER_END,
        f: problems::kepler,
        reference: problems::KEPLER_REFERENCE,
    };
    let lorenz = Ivp {
        start: problems::LORENZ_START,
        end: problems::LORENZ_END,
        f: problems::lorenz,
        reference: problems::LORENZ_REFERENCE,
    };
    if let Ok(which) = std::env::var("PEERS_SEARCH") {
        let wanted = |name: &str| which.is_empty() || which.contains(name);
        if wanted("arenstorf") {
            search_all("arenstorf", &arenstorf);
        }
        if wanted("kepler") {
            search_all("kepler", &kepler);
        }
        if wanted("lorenz") {
            search_all("lorenz", &lorenz);
        }
        return;
    }
    use Pair::Dop853;
    use Side::{DifferentialEquations as De, OdeSolvers as Os, Timestep as Ts};
    // Tolerances from the search (PEERS_SEARCH=, 10^(−k/8) ladder), 2026-11-23. Each crate
    // runs its DOP853 (timestep's takes the steps of ode_solvers' port of dop853.f, one
    // evaluation fewer). At 1e-10 on arenstorf and kepler the error against the tolerance
    // jumps around (f64's floor), so where a side has no three rungs in a row within the
    // error, its entry is the loosest single rung that is.
    #[rustfmt::skip]
    let groups = [
        // tolerances: 1e-10, 1e-10, 7.5e-11
        ("arenstorf", 1e-6, [Ts("dop853", rung(80)), Os(Dop853, rung(80)), De(Dop853, rung(81))]),
        // 1.8e-14, 4.2e-14, 4.2e-15
        ("arenstorf", 1e-10, [Ts("dop853", rung(110)), Os(Dop853, rung(107)), De(Dop853, rung(115))]),
        // 4.2e-12, 4.2e-12, 4.2e-12
        ("kepler", 1e-6, [Ts("dop853", rung(91)), Os(Dop853, rung(91)), De(Dop853, rung(91))]),
        // 1e-14, 1e-16, 5.6e-16
        ("kepler", 1e-10, [Ts("dop853", rung(112)), Os(Dop853, rung(128)), De(Dop853, rung(122))]),
        // 1e-8, 1e-8, 1e-8
        ("lorenz", 1e-6, [Ts("dop853", rung(64)), Os(Dop853, rung(64)), De(Dop853, rung(64))]),
        // 1.8e-12, 1.8e-12, 1.8e-12
        ("lorenz", 1e-10, [Ts("dop853", rung(94)), Os(Dop853, rung(94)), De(Dop853, rung(94))]),
    ];
    for (name, target, [ts, os, de]) in groups {
        let sides = [
            ("timestep", ts),
            ("ode_solvers", os),
            ("differential_equations", de),
        ];
        match name {
            "arenstorf" => adaptive_group(c, name, &arenstorf, target, sides),
            "kepler" => adaptive_group(c, name, &kepler, target, sides),
            _ => adaptive_group(c, name, &lorenz, target, sides),
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = peers, adaptive
}
criterion_main!(benches);
