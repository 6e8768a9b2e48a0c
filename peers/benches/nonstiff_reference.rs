//! `timestep`'s explicit pairs and differential-equations' Verner 9(8) against the reference
//! codes (Hairer's dop853.f, Boost.Odeint's `runge_kutta_dopri5` and
//! `runge_kutta_fehlberg78`, whose drivers live outside the repository) at matched final
//! error: BENCHMARKS.md, "Non-stiff pairs against the reference codes". Three problems:
//! the Arenstorf orbit over one period, Lorenz to t = 10 (`examples/problems/mod.rs`) and
//! the outer solar system over 10⁴ days (`examples/problems/outer.rs`, 36 unknowns). The
//! error is the Euclidean distance of the end state from the reference end state; every
//! side runs at `rtol = atol` on the ladder 10^(−k/8).
//!
//! No criterion groups: the bench is driven by environment variables, so that callgrind
//! counts one thing.
//!
//! ```text
//! NSR_SEARCH= cargo bench -p timestep-peers --bench nonstiff_reference     # every side's rung
//! NSR_RUN=lorenz/vern9/80 cargo bench -p timestep-peers --bench nonstiff_reference   # one run
//! NSR_TIME=lorenz/vern9/80/200 target/release/deps/nonstiff_reference-*     # 200 runs, each timed
//! NSR_PROFILE=lorenz/vern9/80/20 valgrind --tool=callgrind \
//!     --toggle-collect='nonstiff_reference::solve_n*' target/release/deps/nonstiff_reference-*
//! ```

#[path = "../../examples/problems/mod.rs"]
mod problems;

#[path = "../../examples/problems/outer.rs"]
mod outer;

#[path = "shared/mod.rs"]
#[allow(dead_code)]
mod shared;

use differential_equations::prelude::{ExplicitRungeKutta, IVP, ODE};
use glam::DVec3;
use shared::{Last, Rhs, rung};
use std::cell::Cell;
use std::hint::black_box;
use std::time::Instant;
use timestep::adaptive::Adaptive;
use timestep::{
    Dop853, Dopri5, Dprkn6, Dprkn12, Forces, InPlace, Particle, Particles, State, Tolerances,
    Tsit5, Vern6, Vern7, Vern8, Vern9,
};

/// The sides, by the names the environment variables take.
const SIDES: [&str; 8] = [
    "dop853", "vern6", "vern7", "vern8", "vern9", "tsit5", "dopri5", "de-vern9",
];

/// The outer solar system's own sides: the second-order pairs, and `Dop853`, `Vern7` and
/// `Vern8` with the right-hand side written in place (`InPlace`), as dop853.f's `FCN`
/// writes it.
const SECOND_ORDER: [&str; 7] = [
    "dprkn12",
    "dprkn6",
    "dprkn12-flat",
    "dprkn6-flat",
    "dop853-inplace",
    "vern7-inplace",
    "vern8-inplace",
];

/// The targets on the final error.
const TARGETS: [f64; 4] = [1e-3, 1e-6, 1e-9, 1e-12];

/// An initial value problem `y' = f(y)` from 0 to `end`, with its reference end state.
struct Ivp<const N: usize, F> {
    start: [f64; N],
    end: f64,
    f: F,
    reference: [f64; N],
}

/// The counts of a run.
#[derive(Clone, Copy, Debug)]
struct Counts {
    accepted: u64,
    rejected: u64,
    evaluations: u64,
}

impl From<timestep::Statistics> for Counts {
    fn from(statistics: timestep::Statistics) -> Self {
        Counts {
            accepted: statistics.accepted,
            rejected: statistics.rejected,
            evaluations: statistics.evaluations,
        }
    }
}

/// The counts of a failed run.
const FAILED: Counts = Counts {
    accepted: 0,
    rejected: 0,
    evaluations: 0,
};

/// `differential-equations`' system.
struct DiffEqIvp<F>(F);

impl<const N: usize, F: Rhs<N>> ODE<f64, [f64; N]> for DiffEqIvp<F> {
    fn diff(&self, t: f64, y: &[f64; N], dydt: &mut [f64; N]) {
        *dydt = (self.0)(y, t);
    }
}

/// One solve by `side` at `rtol = atol = tolerance`: the end state and the counts.
fn solve<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    side: &str,
    tolerance: f64,
) -> ([f64; N], Counts) {
    let mut y = p.start;
    let tolerances = Tolerances::new(tolerance, tolerance);
    macro_rules! timestep {
        ($pair:expr) => {
            Adaptive::new($pair)
                .with_tolerances(tolerances)
                .solve(&mut y, &p.f, 0.0, p.end)
        };
    }
    // The outer solar system's right-hand side written in place, as dop853.f's `FCN`.
    macro_rules! in_place {
        ($pair:expr) => {{
            let mut y36: [f64; 36] = p.start[..].try_into().expect("36 unknowns");
            assert!(
                p.end == outer::OUTER_END,
                "{side}: the outer solar system only"
            );
            let statistics = Adaptive::new($pair).with_tolerances(tolerances).solve(
                &mut y36,
                &InPlace(outer::outer_solar_system_into),
                0.0,
                p.end,
            );
            y.copy_from_slice(&y36);
            statistics
        }};
    }
    let statistics = match side {
        "dprkn12" | "dprkn6" | "dprkn12-flat" | "dprkn6-flat" => {
            assert!(
                N == 36 && p.end == outer::OUTER_END,
                "{side}: the outer solar system only"
            );
            let (end, counts) = if side.ends_with("-flat") {
                solve_flat(side, tolerance)
            } else {
                solve_particles(side, tolerance)
            };
            return (end[..].try_into().expect("36 unknowns"), counts);
        }
        "dop853-inplace" => in_place!(Dop853),
        "vern7-inplace" => in_place!(Vern7),
        "vern8-inplace" => in_place!(Vern8),
        "dop853" => timestep!(Dop853),
        "vern6" => timestep!(Vern6),
        "vern7" => timestep!(Vern7),
        "vern8" => timestep!(Vern8),
        "vern9" => timestep!(Vern9),
        "tsit5" => timestep!(Tsit5),
        "dopri5" => timestep!(Dopri5),
        "de-vern9" => {
            // Verner's 9(8) "most efficient" pair with its 9th-order interpolant
            // (differential-equations' `rkv989e`, the pair of timestep's `Vern9`).
            let last = Cell::new(p.start);
            let ode = DiffEqIvp(p.f);
            let solution = IVP::ode(&ode, 0.0, p.end, p.start)
                .method(
                    ExplicitRungeKutta::rkv989e()
                        .rtol(tolerance)
                        .atol(tolerance)
                        .max_steps(100_000),
                )
                .solout(Last(&last))
                .solve();
            let Ok(solution) = solution else {
                return ([f64::NAN; N], FAILED);
            };
            let counts = Counts {
                accepted: solution.steps.accepted as u64,
                rejected: solution.steps.rejected as u64,
                evaluations: solution.evals.function as u64,
            };
            return (last.get(), counts);
        }
        _ => panic!("no side {side}: one of {SIDES:?}"),
    };
    // A run that fails (the step budget, 10⁵ steps, at a tolerance too tight for the pair)
    // ends nowhere: its error is NaN, outside every target.
    let Ok(statistics) = statistics else {
        return ([f64::NAN; N], FAILED);
    };
    (y, statistics.into())
}

/// One solve of the outer solar system by the Nyström pair the `side` starts with
/// (`dprkn12…` or `dprkn6…`), to its end: its counts, or `None` for a failed run.
fn solve_nystrom<S: State<Scalar = f64>, F: Forces<S>>(
    side: &str,
    state: &mut S,
    forces: &F,
    tolerance: f64,
) -> Option<Counts> {
    let tolerances = Tolerances::new(tolerance, tolerance);
    let statistics = if side.starts_with("dprkn12") {
        Adaptive::new(Dprkn12).with_tolerances(tolerances).solve(
            state,
            forces,
            0.0,
            outer::OUTER_END,
        )
    } else if side.starts_with("dprkn6") {
        Adaptive::new(Dprkn6).with_tolerances(tolerances).solve(
            state,
            forces,
            0.0,
            outer::OUTER_END,
        )
    } else {
        panic!("no second-order side {side}: {SECOND_ORDER:?}")
    };
    statistics.ok().map(Counts::from)
}

/// One solve of the outer solar system as one `Particle<[f64; 18]>` of unit mass (its
/// momentum is its velocity, its force the accelerations, written in place) by `dprkn12`
/// or `dprkn6`: a second-order state on flat arrays, as dop853.f's `Y`.
fn solve_flat(side: &str, tolerance: f64) -> ([f64; 36], Counts) {
    let (x, v) = outer::OUTER_START.split_at(18);
    let mut body = Particle::new(
        1.0,
        <[f64; 18]>::try_from(x).expect("18 positions"),
        <[f64; 18]>::try_from(v).expect("18 velocities"),
    );
    let forces = InPlace(|body: &Particle<[f64; 18]>, _t: f64, out: &mut [f64; 18]| {
        outer::accelerations_into(&body.position(), out);
    });
    let Some(counts) = solve_nystrom(side, &mut body, &forces, tolerance) else {
        return ([f64::NAN; 36], FAILED);
    };
    let mut y = [0.0; 36];
    y[..18].copy_from_slice(&body.position());
    y[18..].copy_from_slice(&body.velocity());
    (y, counts)
}

/// One solve of the outer solar system as a second-order state (`Particles`, the forces of
/// `examples/nbody.rs`) by `dprkn12` or `dprkn6`: the end state as `[positions, velocities]`.
fn solve_particles(side: &str, tolerance: f64) -> ([f64; 36], Counts) {
    let mut bodies = Particles::new(
        outer::MASSES.to_vec(),
        outer::OUTER_START[..18]
            .chunks(3)
            .map(DVec3::from_slice)
            .collect(),
        outer::OUTER_START[18..]
            .chunks(3)
            .map(DVec3::from_slice)
            .collect(),
    );
    let forces = InPlace(|bodies: &Particles<DVec3>, _t: f64, out: &mut Vec<DVec3>| {
        let (positions, masses) = (bodies.positions(), bodies.masses());
        out.fill(DVec3::ZERO);
        for i in 0..positions.len() {
            for j in i + 1..positions.len() {
                let d = positions[j] - positions[i];
                let r2 = d.length_squared();
                let pull = d * (outer::G * masses[i] * masses[j] / (r2 * r2.sqrt()));
                out[i] += pull;
                out[j] -= pull;
            }
        }
    });
    let Some(counts) = solve_nystrom(side, &mut bodies, &forces, tolerance) else {
        return ([f64::NAN; 36], FAILED);
    };
    let mut y = [0.0; 36];
    for (i, v) in bodies
        .positions()
        .iter()
        .chain(bodies.velocities())
        .enumerate()
    {
        v.write_to_slice(&mut y[3 * i..3 * i + 3]);
    }
    (y, counts)
}

/// `runs` solves, the function callgrind counts.
#[inline(never)]
fn solve_n<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, side: &str, tolerance: f64, runs: usize) {
    for _ in 0..runs {
        black_box(solve(black_box(p), side, tolerance));
    }
}

/// Every side's rung for every target: the loosest `k` on the ladder 10^(−k/8), k = 0 … 136,
/// at which the run and the next two tighter rungs end within the target; where no three
/// rungs in a row do, the loosest single rung that does (marked `single`).
fn search<const N: usize, F: Rhs<N>>(name: &str, p: &Ivp<N, F>, sides: &[&str]) {
    for &side in sides {
        let errors: Vec<f64> = (0..=136)
            .map(|k| {
                let (y, _) = solve(p, side, rung(k));
                problems::distance(&y, &p.reference)
            })
            .collect();
        for target in TARGETS {
            let within = |k: usize| {
                errors[k..(k + 3).min(errors.len())]
                    .iter()
                    .all(|&e| e <= target)
            };
            let (k, how) = match (0..errors.len()).find(|&k| within(k)) {
                Some(k) => (k, "three"),
                None => match errors.iter().position(|&e| e <= target) {
                    Some(k) => (k, "single"),
                    None => {
                        let best = errors.iter().copied().fold(f64::INFINITY, f64::min);
                        println!("{name} {side} {target:.0e}: none (best {best:.2e})");
                        continue;
                    }
                },
            };
            let (_, c) = solve(p, side, rung(k as u32));
            println!(
                "{name} {side} {target:.0e}: k {k} ({how}) rtol {:.3e} error {:.3e} steps {} accepted {} rejected {} evaluations {}",
                rung(k as u32),
                errors[k],
                c.accepted + c.rejected,
                c.accepted,
                c.rejected,
                c.evaluations
            );
        }
    }
}

/// What `NSR_RUN`, `NSR_TIME` and `NSR_PROFILE` do with `problem/side/k[/runs]`.
fn one<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, what: &str, side: &str, k: u32, runs: usize) {
    let tolerance = rung(k);
    match what {
        "NSR_RUN" => {
            let (y, c) = solve(p, side, tolerance);
            let error = problems::distance(&y, &p.reference);
            println!("{side} k {k} rtol {tolerance:.3e} error {error:.3e} {c:?}");
        }
        "NSR_TIME" => {
            let mut times: Vec<f64> = (0..runs)
                .map(|_| {
                    let start = Instant::now();
                    black_box(solve(black_box(p), side, tolerance));
                    start.elapsed().as_secs_f64()
                })
                .collect();
            times.sort_by(f64::total_cmp);
            println!("{side} k {k}: median {:.4e} s of {runs}", times[runs / 2]);
        }
        _ => solve_n(p, side, tolerance, runs),
    }
}

fn main() {
    let arenstorf = Ivp {
        start: problems::ARENSTORF_START,
        end: problems::ARENSTORF_END,
        f: problems::arenstorf,
        reference: problems::ARENSTORF_REFERENCE,
    };
    let lorenz = Ivp {
        start: problems::LORENZ_START,
        end: problems::LORENZ_END,
        f: problems::lorenz,
        reference: problems::LORENZ_REFERENCE,
    };
    let outer = Ivp {
        start: outer::OUTER_START,
        end: outer::OUTER_END,
        f: outer::outer_solar_system,
        reference: outer::OUTER_REFERENCE,
    };
    if std::env::var_os("NSR_SEARCH").is_some() {
        search("arenstorf", &arenstorf, &SIDES);
        search("lorenz", &lorenz, &SIDES);
        search("outer", &outer, &[&SIDES[..], &SECOND_ORDER[..]].concat());
        return;
    }
    for what in ["NSR_RUN", "NSR_TIME", "NSR_PROFILE"] {
        let Ok(spec) = std::env::var(what) else {
            continue;
        };
        let parts: Vec<&str> = spec.split('/').collect();
        let (problem, side) = (parts[0], parts[1]);
        let k: u32 = parts[2].parse().expect("problem/side/k[/runs]");
        let runs: usize = parts.get(3).map_or(1, |r| r.parse().expect("runs"));
        match problem {
            "arenstorf" => one(&arenstorf, what, side, k, runs),
            "lorenz" => one(&lorenz, what, side, k, runs),
            "outer" => one(&outer, what, side, k, runs),
            _ => panic!("no problem {problem}: arenstorf, lorenz, outer"),
        }
        return;
    }
    // Under `cargo bench` without a variable (and in CI's `--no-run` builds): one run each.
    let (_, c) = solve(&lorenz, "dop853", rung(64));
    println!("nonstiff_reference: lorenz dop853 k 64 {c:?}; see the module docs for the variables");
}
