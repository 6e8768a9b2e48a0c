//! `timestep`'s stiff solvers (Radau5, Rodas4, Rodas5P, SEULEX, all under error control, analytic
//! Jacobians) on the problems of the comparison with the reference codes (Hairer's
//! radau5.f, rodas.f and seulex.f, Boost.Odeint's `rosenbrock4`, SUNDIALS CVODE): the
//! `timestep` side of BENCHMARKS.md's "Stiff solvers against the reference codes". The
//! reference codes' drivers are not in the repository; their command lines are in
//! BENCHMARKS.md.
//!
//! Problems (`f64`):
//!
//! - `vdp`: Van der Pol, `y₁′ = y₂`, `y₂′ = μ (1 − y₁²) y₂ − y₁`, μ = 1000, from (2, 0) to
//!   t = 3000 (on the slow branch after the third jump, as in the peers' `stiff` bench).
//!   `rtol = atol`.
//! - `rober`: Robertson (0.04, 3·10⁷, 10⁴) from (1, 0, 0) to t = 4·10⁵. `atol = 10⁻¹⁰ rtol`
//!   (y₂ is near 2·10⁻⁸ at the end).
//! - `bruss`: the 1-D Brusselator of Hairer–Wanner II (BRUSS, IV.10) with N = 40 grid
//!   points, 80 unknowns interleaved `(u₁, v₁, u₂, v₂, …)`, α = 1/50, `u = 1`, `v = 3` at the
//!   ends, `u(0) = 1 + sin(2πx)`, `v(0) = 3`, to t = 10; dense Jacobian. `rtol = atol`.
//!
//! The error of a run is the largest relative error of the components at the end, against
//! a reference: Radau5 at `rtol = 10⁻¹³` (`STIFF_REF_REFERENCE=` prints it, and how far
//! SEULEX at 10⁻¹³ ends from it). Every run starts with the step 10⁻⁶, as the Fortran
//! drivers do.
//!
//! ```text
//! cargo bench --bench stiff_reference                       # the criterion medians
//! STIFF_REF_REFERENCE= cargo bench --bench stiff_reference  # the references, printed
//! STIFF_REF_SEARCH= cargo bench --bench stiff_reference     # the tolerance search
//! STIFF_REF_SEARCH=rodas5p cargo bench --bench stiff_reference  # the search for one method
//! STIFF_REF_RUN=vdp/radau5/k63 cargo bench --bench stiff_reference  # one run (rtol, or k<rung>)
//! ```
//!
//! `STIFF_REF_TIME=<problem>/<method>/<rtol>/<repeats>` times `repeats` runs one after the
//! other and prints each (seconds), as the reference codes' drivers do, so that both sides
//! can be timed alternately on a busy machine.
//!
//! With `STIFF_REF_PROFILE=<problem>/<method>/<rtol>` (`rtol` as for `STIFF_REF_RUN`) the
//! binary runs that case once without criterion, for `valgrind --tool=callgrind
//! --toggle-collect='stiff_reference::solve*'` (only the run is counted: the reference is
//! not computed in this mode).
//!
//! Every method runs with its default settings (Radau5's Newton tolerance is radau5.f's,
//! not the 10⁻³ of the peers' `stiff` bench), as the reference codes do with theirs.

use criterion::{Criterion, criterion_group};
use std::hint::black_box;
use std::time::Duration;
use timestep::adaptive::Adaptive;
use timestep::{
    Bdf, InPlace, Jacobian, Radau5, Rodas4, Rodas5P, Seulex, Statistics, Tolerances, WithJacobian,
};

/// Van der Pol's stiffness and end.
const MU: f64 = 1000.0;
const VDP_END: f64 = 3000.0;
/// Robertson's end, and `atol / rtol`.
const ROBER_END: f64 = 4e5;
const ROBER_ATOL_SCALE: f64 = 1e-10;
/// The Brusselator's grid points (unknowns: twice as many), diffusion and end.
const BRUSS_N: usize = 40;
const BRUSS_DIM: usize = 2 * BRUSS_N;
const BRUSS_ALPHA: f64 = 1.0 / 50.0;
const BRUSS_END: f64 = 10.0;
/// The first step of every run (the Fortran drivers' `H`).
const FIRST_STEP: f64 = 1e-6;

fn vdp(y: &[f64; 2]) -> [f64; 2] {
    [y[1], MU * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

fn vdp_jacobian(y: &[f64; 2], j: &mut Jacobian<'_, f64>) {
    j[(0, 1)] = 1.0;
    j[(1, 0)] = -2.0 * MU * y[0] * y[1] - 1.0;
    j[(1, 1)] = MU * (1.0 - y[0] * y[0]);
}

fn rober(y: &[f64; 3]) -> [f64; 3] {
    let [a, b, c] = *y;
    [
        -0.04 * a + 1e4 * b * c,
        0.04 * a - 1e4 * b * c - 3e7 * b * b,
        3e7 * b * b,
    ]
}

fn rober_jacobian(y: &[f64; 3], j: &mut Jacobian<'_, f64>) {
    let [_, b, c] = *y;
    j[(0, 0)] = -0.04;
    j[(0, 1)] = 1e4 * c;
    j[(0, 2)] = 1e4 * b;
    j[(1, 0)] = 0.04;
    j[(1, 1)] = -1e4 * c - 6e7 * b;
    j[(1, 2)] = -1e4 * b;
    j[(2, 1)] = 6e7 * b;
}

/// `α (N + 1)²`.
fn bruss_c() -> f64 {
    let n1 = (BRUSS_N + 1) as f64;
    BRUSS_ALPHA * n1 * n1
}

fn bruss_start() -> [f64; BRUSS_DIM] {
    let mut y = [0.0; BRUSS_DIM];
    for i in 0..BRUSS_N {
        let x = (i + 1) as f64 / (BRUSS_N + 1) as f64;
        y[2 * i] = 1.0 + (2.0 * std::f64::consts::PI * x).sin();
        y[2 * i + 1] = 3.0;
    }
    y
}

fn bruss(y: &[f64; BRUSS_DIM], out: &mut [f64; BRUSS_DIM]) {
    let c = bruss_c();
    for i in 0..BRUSS_N {
        let (u, v) = (y[2 * i], y[2 * i + 1]);
        let (ul, vl) = if i > 0 {
            (y[2 * i - 2], y[2 * i - 1])
        } else {
            (1.0, 3.0)
        };
        let (ur, vr) = if i + 1 < BRUSS_N {
            (y[2 * i + 2], y[2 * i + 3])
        } else {
            (1.0, 3.0)
        };
        let uuv = u * u * v;
        out[2 * i] = 1.0 + uuv - 4.0 * u + c * (ul - 2.0 * u + ur);
        out[2 * i + 1] = 3.0 * u - uuv + c * (vl - 2.0 * v + vr);
    }
}

fn bruss_jacobian(y: &[f64; BRUSS_DIM], j: &mut Jacobian<'_, f64>) {
    let c = bruss_c();
    for i in 0..BRUSS_N {
        let (u, v) = (y[2 * i], y[2 * i + 1]);
        let (ru, rv) = (2 * i, 2 * i + 1);
        j[(ru, ru)] = 2.0 * u * v - 4.0 - 2.0 * c;
        j[(ru, rv)] = u * u;
        j[(rv, ru)] = 3.0 - 2.0 * u * v;
        j[(rv, rv)] = -u * u - 2.0 * c;
        if i > 0 {
            j[(ru, ru - 2)] = c;
            j[(rv, rv - 2)] = c;
        }
        if i + 1 < BRUSS_N {
            j[(ru, ru + 2)] = c;
            j[(rv, rv + 2)] = c;
        }
    }
}

/// One adaptive run of `method` from `y` over `[0, end]`. Not inlined, so that callgrind can
/// count it alone (`--toggle-collect='stiff_reference::solve*'`).
#[inline(never)]
fn solve<const N: usize, F: timestep::Forces<[f64; N]>>(
    method: &str,
    forces: &F,
    y: &mut [f64; N],
    end: f64,
    tolerances: Tolerances,
) -> Statistics {
    let run = |statistics: Result<Statistics, timestep::AdaptiveError>| {
        statistics.expect("an adaptive run within its step budget")
    };
    match method {
        "radau5" => run(Adaptive::new(Radau5::new())
            .with_tolerances(tolerances)
            .with_initial_step(FIRST_STEP)
            .with_max_steps(10_000_000)
            .solve(y, forces, 0.0, end)),
        "rodas4" => run(Adaptive::new(Rodas4.assume_autonomous())
            .with_tolerances(tolerances)
            .with_initial_step(FIRST_STEP)
            .with_max_steps(10_000_000)
            .solve(y, forces, 0.0, end)),
        "rodas5p" => run(Adaptive::new(Rodas5P.assume_autonomous())
            .with_tolerances(tolerances)
            .with_initial_step(FIRST_STEP)
            .with_max_steps(10_000_000)
            .solve(y, forces, 0.0, end)),
        "seulex" => run(Adaptive::new(Seulex::new().assume_autonomous())
            .with_tolerances(tolerances)
            .with_initial_step(FIRST_STEP)
            .with_max_steps(10_000_000)
            .solve(y, forces, 0.0, end)),
        // CVODE's method (not in the criterion groups: `STIFF_REF_RUN`/`_PROFILE` only).
        "bdf" => run(Adaptive::new(Bdf::new())
            .with_tolerances(tolerances)
            .with_initial_step(FIRST_STEP)
            .with_max_steps(10_000_000)
            .solve(y, forces, 0.0, end)),
        _ => panic!("no method {method:?} (radau5, rodas4, rodas5p, seulex, bdf)"),
    }
}

/// Runs `method` on `problem` at `rtol` (`atol` as the problem sets it): the end state and
/// the counts.
fn run(problem: &str, method: &str, rtol: f64) -> (Vec<f64>, Statistics) {
    match problem {
        "vdp" => {
            let forces = WithJacobian::new(
                |y: &[f64; 2], _t: f64| vdp(y),
                |y: &[f64; 2], _t: f64, j: &mut Jacobian<'_, f64>| vdp_jacobian(y, j),
            );
            let mut y = [2.0, 0.0];
            let s = solve(
                method,
                &forces,
                &mut y,
                VDP_END,
                Tolerances::new(rtol, rtol),
            );
            (y.to_vec(), s)
        }
        "rober" => {
            let forces = WithJacobian::new(
                |y: &[f64; 3], _t: f64| rober(y),
                |y: &[f64; 3], _t: f64, j: &mut Jacobian<'_, f64>| rober_jacobian(y, j),
            );
            let mut y = [1.0, 0.0, 0.0];
            let tolerances = Tolerances::new(rtol, rtol * ROBER_ATOL_SCALE);
            let s = solve(method, &forces, &mut y, ROBER_END, tolerances);
            (y.to_vec(), s)
        }
        "bruss" => {
            let forces = WithJacobian::new(
                InPlace(|y: &[f64; BRUSS_DIM], _t: f64, out: &mut [f64; BRUSS_DIM]| bruss(y, out)),
                |y: &[f64; BRUSS_DIM], _t: f64, j: &mut Jacobian<'_, f64>| bruss_jacobian(y, j),
            );
            let mut y = bruss_start();
            let s = solve(
                method,
                &forces,
                &mut y,
                BRUSS_END,
                Tolerances::new(rtol, rtol),
            );
            (y.to_vec(), s)
        }
        _ => panic!("no problem {problem:?} (vdp, rober, bruss)"),
    }
}

/// The reference end state of `problem`: Radau5 at `rtol = 10⁻¹³`.
fn reference(problem: &str) -> Vec<f64> {
    run(problem, "radau5", 1e-13).0
}

/// The largest relative error of the components of `y` against `reference`.
fn error(y: &[f64], reference: &[f64]) -> f64 {
    y.iter()
        .zip(reference)
        .map(|(a, r)| ((a - r) / r).abs())
        .fold(0.0, f64::max)
}

/// The tolerances the search found: for each problem, target error (10⁻³, 10⁻⁶, 10⁻⁹) and
/// method, the rung `k` of the ladder `rtol = 10^(−k/8)` ([`rung`]): the loosest at which the
/// run and the next two tighter rungs end within the target (`STIFF_REF_SEARCH=`). The
/// Fortran codes need the same rungs (BENCHMARKS.md).
const TOLERANCES: &[(&str, &str, &str, i32)] = &[
    ("vdp", "1e-3", "radau5", 33),
    ("vdp", "1e-3", "rodas4", 35),
    ("vdp", "1e-3", "rodas5p", 29),
    ("vdp", "1e-3", "seulex", 44),
    ("vdp", "1e-6", "radau5", 63),
    ("vdp", "1e-6", "rodas4", 58),
    ("vdp", "1e-6", "rodas5p", 54),
    ("vdp", "1e-6", "seulex", 67),
    ("vdp", "1e-9", "radau5", 92),
    ("vdp", "1e-9", "rodas4", 81),
    ("vdp", "1e-9", "rodas5p", 76),
    ("vdp", "1e-9", "seulex", 90),
    ("rober", "1e-3", "radau5", 0),
    ("rober", "1e-3", "rodas4", 16),
    ("rober", "1e-3", "rodas5p", 8),
    ("rober", "1e-3", "seulex", 26),
    ("rober", "1e-6", "radau5", 32),
    ("rober", "1e-6", "rodas4", 37),
    ("rober", "1e-6", "rodas5p", 42),
    ("rober", "1e-6", "seulex", 45),
    ("rober", "1e-9", "radau5", 55),
    ("rober", "1e-9", "rodas4", 61),
    ("rober", "1e-9", "rodas5p", 69),
    ("rober", "1e-9", "seulex", 68),
    ("bruss", "1e-3", "radau5", 14),
    ("bruss", "1e-3", "rodas4", 24),
    ("bruss", "1e-3", "rodas5p", 18),
    ("bruss", "1e-3", "seulex", 26),
    ("bruss", "1e-6", "radau5", 44),
    ("bruss", "1e-6", "rodas4", 47),
    ("bruss", "1e-6", "rodas5p", 51),
    ("bruss", "1e-6", "seulex", 47),
    ("bruss", "1e-9", "radau5", 70),
    ("bruss", "1e-9", "rodas4", 69),
    ("bruss", "1e-9", "rodas5p", 74),
    ("bruss", "1e-9", "seulex", 69),
];

const PROBLEMS: [&str; 3] = ["vdp", "rober", "bruss"];
const METHODS: [&str; 4] = ["radau5", "rodas4", "rodas5p", "seulex"];
const TARGETS: [&str; 3] = ["1e-3", "1e-6", "1e-9"];

fn counts(s: &Statistics) -> String {
    format!(
        "steps {} accepted {} rejected {} jacobians {} lu {} evaluations {}",
        s.steps(),
        s.accepted,
        s.rejected,
        s.jacobians,
        s.decompositions,
        s.evaluations
    )
}

/// `rtol` on the ladder: `10^(−k/8)`.
fn rung(k: i32) -> f64 {
    10f64.powf(-f64::from(k) / 8.0)
}

/// `rtol` from the command line: a number, or `k<N>` for the rung `N` ([`rung`]).
fn parse_rtol(rtol: &str) -> f64 {
    match rtol.strip_prefix('k') {
        Some(k) => rung(k.parse().expect("k<rung>")),
        None => rtol.parse().expect("rtol a number or k<rung>"),
    }
}

/// For each problem, method (of `methods`, or all when it is empty) and target, the loosest
/// rung whose run and the next two tighter ones end within the target.
fn search(methods: &str) {
    for problem in PROBLEMS {
        let reference = reference(problem);
        for method in METHODS {
            if !methods.is_empty() && !methods.split(',').any(|m| m == method) {
                continue;
            }
            let errors: Vec<f64> = (0..=112)
                .map(|k| {
                    let (rtol, caught) = (
                        rung(k),
                        std::panic::catch_unwind(|| run(problem, method, rung(k))),
                    );
                    match caught {
                        Ok((y, _)) => error(&y, &reference),
                        Err(_) => {
                            eprintln!("{problem}/{method}: fails at rtol {rtol:e}");
                            f64::INFINITY
                        }
                    }
                })
                .collect();
            for target in TARGETS {
                let goal: f64 = target.parse().expect("a number");
                let found =
                    (0..errors.len() - 2).find(|&k| errors[k..k + 3].iter().all(|&e| e <= goal));
                match found {
                    Some(k) => {
                        let (y, s) = run(problem, method, rung(k as i32));
                        println!(
                            "{problem} {target} {method}: k {k} rtol {:.3e} error {:.3e} {}",
                            rung(k as i32),
                            error(&y, &reference),
                            counts(&s)
                        );
                    }
                    None => println!("{problem} {target} {method}: none"),
                }
            }
        }
    }
}

fn stiff_reference(c: &mut Criterion) {
    for problem in PROBLEMS {
        let reference = reference(problem);
        for target in TARGETS {
            let mut group = c.benchmark_group(format!("stiff_reference/{problem}-{target}"));
            for &(p, t, method, k) in TOLERANCES {
                let rtol = rung(k);
                if p != problem || t != target {
                    continue;
                }
                let (y, s) = run(problem, method, rtol);
                let e = error(&y, &reference);
                let goal: f64 = target.parse().expect("a number");
                assert!(
                    e <= goal,
                    "{problem}/{method} at {rtol:e}: error {e:e} above {target}"
                );
                println!(
                    "{problem}-{target}/{method}: rtol {rtol:.3e} error {e:.3e} {}",
                    counts(&s)
                );
                group.bench_function(method, |b| {
                    b.iter(|| black_box(run(problem, method, black_box(rtol))))
                });
            }
            group.finish();
        }
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(500))
        .measurement_time(Duration::from_secs(2))
        .sample_size(20);
    targets = stiff_reference
}

fn main() {
    if let Ok(case) = std::env::var("STIFF_REF_PROFILE") {
        let [problem, method, rtol]: [&str; 3] = case
            .split('/')
            .collect::<Vec<_>>()
            .try_into()
            .expect("STIFF_REF_PROFILE=<problem>/<method>/<rtol>");
        let (y, s) = run(problem, method, parse_rtol(rtol));
        black_box((y, s));
        return;
    }
    if let Ok(case) = std::env::var("STIFF_REF_RUN") {
        let [problem, method, rtol]: [&str; 3] = case
            .split('/')
            .collect::<Vec<_>>()
            .try_into()
            .expect("STIFF_REF_RUN=<problem>/<method>/<rtol>");
        let (y, s) = run(problem, method, parse_rtol(rtol));
        let e = error(&y, &reference(problem));
        println!("{problem}/{method}/{rtol}: error {e:.3e} {}", counts(&s));
        return;
    }
    if let Ok(case) = std::env::var("STIFF_REF_TIME") {
        let [problem, method, rtol, repeats]: [&str; 4] = case
            .split('/')
            .collect::<Vec<_>>()
            .try_into()
            .expect("STIFF_REF_TIME=<problem>/<method>/<rtol>/<repeats>");
        let rtol = parse_rtol(rtol);
        for _ in 0..repeats.parse::<usize>().expect("repeats a number") {
            let start = std::time::Instant::now();
            black_box(run(problem, method, black_box(rtol)));
            println!("time {:.6e}", start.elapsed().as_secs_f64());
        }
        return;
    }
    if std::env::var("STIFF_REF_REFERENCE").is_ok() {
        for problem in PROBLEMS {
            let (y, s) = run(problem, "radau5", 1e-13);
            let (z, _) = run(problem, "seulex", 1e-13);
            println!(
                "{problem}: radau5 at 1e-13, {}; seulex at 1e-13 ends {:.3e} from it",
                counts(&s),
                error(&z, &y)
            );
            for v in &y {
                println!("{v:.17e}");
            }
        }
        return;
    }
    if let Ok(methods) = std::env::var("STIFF_REF_SEARCH") {
        search(&methods);
        return;
    }
    benches();
    Criterion::default().configure_from_args().final_summary();
}
