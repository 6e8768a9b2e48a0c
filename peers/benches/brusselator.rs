//! The 2-D Brusselator (`examples/brusselator_2d.rs`, its model shared from
//! `examples/problems/brusselator.rs`) at N = 32 and N = 128 (2 048 and 32 768 unknowns),
//! from its start to t = 11.5, at a matched final error of 10⁻⁶: `timestep`'s BDF with the
//! sparse LU and with GMRES against diffsol's BDF with faer's sparse LU, each at the
//! tolerance that reaches the error. Issue 27, item 7; CVODE on the same problem is measured
//! outside the repository (BENCHMARKS.md, "The Brusselator against diffsol and CVODE").
//!
//! Groups `brusselator/n<N>-1e-6`, functions:
//!
//! - `timestep_sparse`: `Adaptive::new(Bdf::new().with_structure(Structure::Sparse))`, the
//!   Jacobian analytic (12 entries per grid point, [`Forces::jacobian_pattern`]), factored
//!   by faer's sparse LU (COLAMD, the symbolic analysis kept).
//! - `timestep_gmres`: the BDF with matrix-free GMRES (CVODE's defaults: Krylov dimension 5,
//!   no restart, `J v` by a directional difference), preconditioned on the left by the 2 × 2
//!   blocks of `I − γJ` at each point (`Preconditioner::Banded { lower: 1, upper: 1 }`; the
//!   band of the analytic Jacobian).
//! - `diffsol_bdf` (0.18): `FaerSparseMat`/`FaerSparseLU`, the right-hand side and the
//!   analytic `J v`; diffsol finds the sparsity from `J v` and colours the columns when the
//!   problem is built (once, outside the timing, printed); each timed run makes the solver
//!   and steps to the end, as in `benches/stiff.rs`. Under criterion at N = 32 only: at
//!   N = 128 building the problem takes 25 GB (see [`diffsol_runs`]).
//!
//! Tolerances `rtol = atol`, from the search (`BRUSS_SEARCH=`): on the ladder 10^(−k/8) from
//! k = 48 (10⁻⁶), the loosest at which the side and the next two tighter rungs end within 10⁻⁶.
//! The error: the largest difference over the 2N² unknowns from the reference end state,
//! relative to the reference's largest value. The reference: `timestep`'s BDF with GMRES
//! at `rtol = atol = 10⁻¹²` (at N = 32 Radau5, another method, ends 10⁻¹⁰ from it at
//! 10⁻¹⁰, printed when the reference is made; at N = 128 Radau5 takes too long).
//! `BRUSS_REFERENCES=<dir>` keeps it in `<dir>/brusselator-<N>.f64` (2N² little-endian
//! `f64`), which CVODE's driver reads too.
//!
//! ```text
//! cargo bench -p timestep-peers --bench brusselator
//! BRUSS_SEARCH= cargo bench -p timestep-peers --bench brusselator        # the tolerance search
//! BRUSS_RUN=n128/timestep_sparse BRUSS_REPEAT=5 target/release/deps/brusselator-<hash>
//! ```
//!
//! `BRUSS_RUN=n<N>/<function>[/k<rung>]` runs one side `BRUSS_REPEAT` times (default 1)
//! without criterion, at its searched tolerance or at `rtol = atol = 10^(−rung/8)`, printing
//! each run's wall time and its counts (and its error if
//! `BRUSS_REFERENCES` holds the reference; none is computed): for `/usr/bin/time`'s peak
//! memory, and for callgrind (`--toggle-collect='brusselator::run'`).

#[path = "../../examples/problems/brusselator.rs"]
mod brusselator;
#[path = "shared/mod.rs"]
#[allow(dead_code)] // each bench takes what it needs
mod shared;

use brusselator::{Brusselator, END, bdf, start};
use criterion::{Criterion, criterion_group, criterion_main};
use diffsol::{FaerSparseLU, FaerSparseMat};
use shared::rung;
use shared::stiff::{
    Counts, DiffsolRun, diffsol_runner, loosest_rung, max_norm_error, timestep_counts,
};
use std::hint::black_box;
use std::path::PathBuf;
use std::time::{Duration, Instant};
use timestep::{Adaptive, Forces, Jacobian, Pattern, Radau5, Structure, Tolerances};

/// The error every side reaches.
const TARGET: f64 = 1e-6;

/// The grids, points per side.
const SIZES: [usize; 2] = [32, 128];

impl Forces<Vec<f64>> for Brusselator {
    fn force(&self, y: &Vec<f64>, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; y.len()];
        self.force_into(y, t, &mut out);
        out
    }

    fn force_into(&self, y: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        self.rate(y, out);
    }

    fn jacobian(&self, y: &Vec<f64>, _t: f64, jacobian: &mut Jacobian<'_, f64>) -> bool {
        self.write_jacobian(y, jacobian);
        true
    }

    fn jacobian_pattern(&self, _y: &Vec<f64>, pattern: &mut Pattern) -> bool {
        pattern.extend(self.pattern());
        true
    }
}

/// A contestant and its tolerance (`rtol = atol`).
#[derive(Clone, Copy, Debug)]
enum Side {
    TimestepSparse(f64),
    TimestepGmres(f64),
    DiffsolBdf(f64),
}

impl Side {
    const ALL: [Side; 3] = [
        Side::TimestepSparse(0.0),
        Side::TimestepGmres(0.0),
        Side::DiffsolBdf(0.0),
    ];

    fn name(self) -> &'static str {
        match self {
            Side::TimestepSparse(_) => "timestep_sparse",
            Side::TimestepGmres(_) => "timestep_gmres",
            Side::DiffsolBdf(_) => "diffsol_bdf",
        }
    }

    fn tolerance(self) -> f64 {
        match self {
            Side::TimestepSparse(t) | Side::TimestepGmres(t) | Side::DiffsolBdf(t) => t,
        }
    }

    fn with(self, tol: f64) -> Side {
        match self {
            Side::TimestepSparse(_) => Side::TimestepSparse(tol),
            Side::TimestepGmres(_) => Side::TimestepGmres(tol),
            Side::DiffsolBdf(_) => Side::DiffsolBdf(tol),
        }
    }
}

/// `timestep`'s BDF with `solver` (`"sparse"` or `"gmres"`) on the `n × n` grid.
fn timestep_bdf(n: usize, solver: &str, tol: f64) -> (Vec<f64>, Counts) {
    let mut y = start(n);
    let statistics = Adaptive::new(bdf(solver))
        .with_tolerances(Tolerances::new(tol, tol))
        .with_max_steps(10_000_000)
        .solve(&mut y, &Brusselator { n }, 0.0, END)
        .expect("a BDF run to the end");
    (y, timestep_counts(statistics))
}

/// diffsol's BDF on the `n × n` grid, its problem built (sparsity found) here.
fn diffsol_bdf(n: usize) -> Box<DiffsolRun<'static>> {
    Box::new(diffsol_runner!(
        FaerSparseMat<f64>,
        FaerSparseLU<f64>,
        move |x: &[f64], y: &mut [f64]| Brusselator { n }.rate(x, y),
        move |x: &[f64], v: &[f64], y: &mut [f64]| Brusselator { n }.jacobian_times(x, v, y),
        start(n),
        END,
    ))
}

/// One grid: its size and diffsol's problem, if asked for (its sparsity detection
/// takes memory, which would hide the other sides' in a run of one).
struct Grid {
    n: usize,
    diffsol: Option<Box<DiffsolRun<'static>>>,
}

impl Grid {
    fn new(n: usize, with_diffsol: bool) -> Self {
        Grid {
            n,
            diffsol: with_diffsol.then(|| diffsol_bdf(n)),
        }
    }

    /// The end state and counts of `side`. Not inlined, so that callgrind can count it
    /// alone.
    #[inline(never)]
    fn run(&self, side: Side) -> (Vec<f64>, Counts) {
        match side {
            Side::TimestepSparse(tol) => timestep_bdf(self.n, "sparse", tol),
            Side::TimestepGmres(tol) => timestep_bdf(self.n, "gmres", tol),
            Side::DiffsolBdf(tol) => {
                (self.diffsol.as_ref().expect("diffsol's problem"))((tol, tol))
            }
        }
    }
}

/// Radau5 with the sparse LU at `rtol = atol = tol`.
fn radau5(n: usize, tol: f64) -> Vec<f64> {
    let mut y = start(n);
    Adaptive::new(Radau5::new().with_structure(Structure::Sparse))
        .with_tolerances(Tolerances::new(tol, tol))
        .with_max_steps(10_000_000)
        .solve(&mut y, &Brusselator { n }, 0.0, END)
        .expect("a Radau5 run to the end");
    y
}

/// Where the reference of the `n × n` grid is kept, if `BRUSS_REFERENCES` names a folder.
fn reference_file(n: usize) -> Option<PathBuf> {
    let folder = std::env::var_os("BRUSS_REFERENCES")?;
    Some(PathBuf::from(folder).join(format!("brusselator-{n}.f64")))
}

/// The kept reference of the `n × n` grid, if there is one.
fn kept_reference(n: usize) -> Option<Vec<f64>> {
    let bytes = std::fs::read(reference_file(n)?).ok()?;
    let values: Vec<f64> = bytes
        .chunks_exact(8)
        .map(|b| f64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    (values.len() == 2 * n * n).then_some(values)
}

/// The reference end state of the `n × n` grid: kept, or made (the BDF with GMRES at
/// 10⁻¹², checked against Radau5 with the sparse LU at 10⁻¹⁰ up to N = 32: at N = 128 that
/// takes many minutes) and kept if `BRUSS_REFERENCES` is set.
fn reference(n: usize) -> Vec<f64> {
    if let Some(kept) = kept_reference(n) {
        return kept;
    }
    let made = Instant::now();
    let reference = timestep_bdf(n, "gmres", 1e-12).0;
    print!(
        "reference N = {n}: the BDF (GMRES) at 1e-12 in {:.1} s",
        made.elapsed().as_secs_f64()
    );
    if n <= 32 {
        print!(
            "; Radau5 (sparse) at 1e-10 ends {:.2e} from it",
            max_norm_error(&radau5(n, 1e-10), &reference)
        );
    }
    println!();
    if let Some(file) = reference_file(n) {
        let bytes: Vec<u8> = reference.iter().flat_map(|r| r.to_le_bytes()).collect();
        std::fs::write(&file, bytes).expect("the reference written");
    }
    reference
}

/// Whether criterion runs diffsol on the `n × n` grid: building its problem (the sparsity
/// found from `J v`, the columns coloured) at N = 128 (32 768 unknowns) takes 25 GB of
/// resident memory (measured on a 125 GB machine; killed on a 23 GB one). `BRUSS_RUN`
/// runs it at any size.
fn diffsol_runs(n: usize) -> bool {
    n <= 32
}

/// Each side's tolerance on each grid, from the search (`BRUSS_SEARCH=`).
fn sides(n: usize) -> [Side; 3] {
    match n {
        // 2.4e-8, 1.3e-8, 2.4e-8
        32 => [
            Side::TimestepSparse(rung(61)),
            Side::TimestepGmres(rung(63)),
            Side::DiffsolBdf(rung(61)),
        ],
        // N = 128, searched on a 16-core machine with 125 GB (BENCHMARKS.md): 1.8e-8 for
        // each side (diffsol ends 1.01e-6 from the reference at rung 61).
        _ => [
            Side::TimestepSparse(rung(62)),
            Side::TimestepGmres(rung(62)),
            Side::DiffsolBdf(rung(62)),
        ],
    }
}

/// The search: each side's loosest rung from k = 48 (10⁻⁶) that reaches [`TARGET`] there and at
/// the next two tighter rungs, with its error, counts and time.
fn search(grid: &Grid, reference: &[f64]) {
    for side in Side::ALL {
        if matches!(side, Side::DiffsolBdf(_)) && grid.diffsol.is_none() {
            continue;
        }
        let found = loosest_rung(48..=104, TARGET, |k| {
            let (y, counts) = grid.run(side.with(rung(k)));
            Some((max_norm_error(&y, reference), counts))
        });
        let name = format!("search N = {} {}", grid.n, side.name());
        match found {
            Ok(((k, error, counts), _)) => {
                let started = Instant::now();
                black_box(grid.run(side.with(rung(k))));
                println!(
                    "{name}: rung({k}) = {:.3e}, error {error:.2e}, {counts}, {:.3} s{}",
                    rung(k),
                    started.elapsed().as_secs_f64(),
                    if k == 48 {
                        " (the first rung: start looser)"
                    } else {
                        ""
                    }
                );
            }
            Err((k, error)) => {
                println!("{name}: not reached; smallest error {error:.2e} at rung({k})");
            }
        }
    }
}

/// `BRUSS_RUN=n<N>/<function>`: one side, `BRUSS_REPEAT` times.
fn run_one(case: &str) {
    let mut parts = case.split('/');
    let (Some(size), Some(function)) = (parts.next(), parts.next()) else {
        panic!("BRUSS_RUN=n<N>/<function>[/k<rung>]");
    };
    let n: usize = size
        .trim_start_matches('n')
        .parse()
        .expect("BRUSS_RUN=n<N>/<function>: N a number");
    let mut side = sides(n)
        .into_iter()
        .find(|side| side.name() == function)
        .unwrap_or_else(|| panic!("no function {function}"));
    if let Some(k) = parts.next() {
        let k = k
            .trim_start_matches('k')
            .parse()
            .expect("BRUSS_RUN=…/k<rung>");
        side = side.with(rung(k));
    }
    let repeat: usize = std::env::var("BRUSS_REPEAT").map_or(1, |r| r.parse().expect("a count"));
    let grid = Grid::new(n, matches!(side, Side::DiffsolBdf(_)));
    let mut times = Vec::new();
    let mut last = None;
    for _ in 0..repeat {
        let started = Instant::now();
        last = Some(grid.run(side));
        times.push(started.elapsed().as_secs_f64());
    }
    let (y, counts) = last.expect("a run");
    println!("{case} {side:?}: {counts}");
    println!("times (s): {times:.3?}");
    times.sort_by(f64::total_cmp);
    println!("median {:.3} s", times[times.len() / 2]);
    if let Some(reference) = kept_reference(n) {
        println!("error {:.2e}", max_norm_error(&y, &reference));
    }
}

fn brusselator(c: &mut Criterion) {
    if let Ok(case) = std::env::var("BRUSS_RUN") {
        run_one(&case);
        return;
    }
    for n in SIZES {
        let reference = reference(n);
        let grid = Grid::new(n, diffsol_runs(n));
        let sides: Vec<Side> = sides(n)
            .into_iter()
            .filter(|side| diffsol_runs(n) || !matches!(side, Side::DiffsolBdf(_)))
            .collect();
        if std::env::var("BRUSS_SEARCH").is_ok() {
            search(&grid, &reference);
            continue;
        }
        let group_name = format!("brusselator/n{n}-{TARGET:e}");
        for &side in &sides {
            let (y, counts) = grid.run(side);
            let error = max_norm_error(&y, &reference);
            println!(
                "{group_name}: {} (tolerance {:.2e}): error {error:.2e}, {counts}",
                side.name(),
                side.tolerance()
            );
            assert!(
                error <= TARGET,
                "{group_name}: {} ends {error:e} from the reference, not within {TARGET:e}",
                side.name()
            );
        }
        let mut group = c.benchmark_group(group_name);
        group.sample_size(10);
        for &side in &sides {
            group.bench_function(side.name(), |b| b.iter(|| grid.run(black_box(side))));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = brusselator
}
criterion_main!(benches);
