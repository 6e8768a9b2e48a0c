//! Stiff problems at matched final error: `timestep`'s Rosenbrock method against
//! differential-equations' Radau5 and BDF and diffsol's BDF, each at the tolerance that just
//! reaches the group's error, every side with its analytic Jacobian.
//!
//! Groups `stiff/<problem>-<error>`, errors 10⁻³ and 10⁻⁶, functions `timestep`,
//! `differential_equations_radau5`, `differential_equations_bdf` and `diffsol_bdf`:
//!
//! - `van-der-pol`: `x″ = μ (1 − x²) x′ − x`, μ = 1000, from x = 2, x′ = 0 to t = 3000, as
//!   `y = (x, x′)`. The end lies on a slow branch (x changes sign at t = 807, 1614, 2421,
//!   3229: the `van_der_pol` example's steps), where the solution is well conditioned; an
//!   end at two periods of the relaxation limit, 2 (3 − 2 ln 2) μ = 3227.4, falls 1.3
//!   before the fourth jump and would measure how well each side places a jump. Error: the
//!   largest relative error of the two components (x = −1.51, x′ = 1.2·10⁻³ at the end).
//!   Tolerances `rtol = atol`.
//! - `robertson`: `A → B` (k₁ = 0.04), `B + B → C + B` (k₂ = 3·10⁷), `B + C → A + C`
//!   (k₃ = 10⁴), from y = (1, 0, 0) to t = 4·10⁵, where y = (4.9·10⁻³, 2.0·10⁻⁸, 0.995):
//!   every species still far enough from 0 for a relative error of 10⁻⁶ to mean something
//!   (at 10¹¹, the `robertson` example's end, y₂ is near 10⁻¹³). Error: the largest relative
//!   error of the three species (an absolute norm would ignore y₂). Tolerances `rtol` and
//!   `atol = 10⁻¹⁰ rtol`.
//! - `heat`: `u_t = u_xx` on N = 10⁴ interior points of (0, 1), `u = 0` at the ends,
//!   `u(0) = sin(πx) + sin(3πx)` (as in the library's `benches/large.rs`), to t = 0.1.
//!   Error: the largest error over the grid relative to the largest |u|, against the exact
//!   solution of the *discrete* system `u′ = A u` (A = tridiag(1, −2, 1)/dx²): `sin(kπxᵢ)`
//!   is an eigenvector of A with eigenvalue `−4 sin²(kπ dx/2)/dx²`, so the semi-discrete
//!   solution is `e^(λ₁t) sin(πx) + e^(λ₃t) sin(3πx)` exactly, free of the grid's `O(dx²)`.
//!   Tolerances `rtol = atol`.
//!
//! Each side, and what it is given:
//!
//! - `timestep`: `Adaptive::new(Radau5::new().with_tolerance(1e-3))` (Newton stopped at
//!   10⁻³ of the error tolerance, see [`radau5`]) or `Adaptive::new(Rodas4.assume_autonomous())`,
//!   whichever the search found faster (banded, `lower = upper = 1`,
//!   for the heat equation), the forces in `WithJacobian` with the analytic Jacobian.
//! - `differential_equations_radau5` and `_bdf` (0.7): `ImplicitRungeKutta::radau5()` and
//!   `BackwardDifferentiationFormula::adaptive()` on `[f64; N]`, the `ODE` trait's
//!   `jacobian` written out, with an output callback that stores nothing. Its matrices are
//!   dense only (`Matrix::zeros(n, n)`; Radau5 also a `2n × 2n` one): at N = 10⁴ that is
//!   4.8 GB and a dense LU of 3·10¹¹ flops per factorisation, so it is not run on the heat
//!   equation.
//! - `diffsol_bdf` (0.18): `OdeBuilder::rhs_implicit` with the right-hand side and the
//!   analytic Jacobian-vector product, `problem.bdf()`, stepped with `step()` to a stop
//!   time. Dense `NalgebraMat`/`NalgebraLU` for Van der Pol and Robertson (it forms the
//!   Jacobian from one product per column); `FaerSparseMat`/`FaerSparseLU` for the heat
//!   equation (sparsity found from the product, columns coloured: three products per
//!   Jacobian). The problem is built once outside the timing (for the heat equation the
//!   sparsity detection is a one-time cost, printed); each timed run makes the solver
//!   (`problem.bdf()`: state, first Jacobian) and steps to the end.
//!
//! The tolerances come from a search (`STIFF_SEARCH= cargo bench -p timestep-peers --bench
//! stiff`): on the ladder 10^(−k/8), k = 0 … 104, the loosest at which the side and the next two tighter
//! rungs end within the error (a run that fails counts as outside; the search lists the
//! failures). Before timing, each side's error is measured, checked to be within the
//! target, and printed with its counts. differential-equations' BDF reaches 10⁻⁶ on
//! neither small problem, so it is not in those groups. (Its Radau5, like radau5.f, works
//! to `0.1 rtol^(2/3)` internally: its tolerances are not comparable with the others',
//! only its errors are.)
//!
//! The references for Van der Pol and Robertson are tight-tolerance runs of two different
//! solvers that agree (`STIFF_REFERENCE= cargo bench -p timestep-peers --bench stiff` prints
//! them and their difference); see [`VDP_REFERENCE`] and [`ROBERTSON_REFERENCE`]. `STIFF_PROFILE=` runs
//! one case for callgrind ([`profile`]).
//!
//! ```text
//! cargo bench -p timestep-peers --bench stiff -- --warm-up-time 1 --measurement-time 3
//! STIFF_SEARCH= cargo bench -p timestep-peers --bench stiff            # the tolerance search
//! STIFF_SEARCH=robertson cargo bench -p timestep-peers --bench stiff   # one problem
//! STIFF_REFERENCE= cargo bench -p timestep-peers --bench stiff         # the reference runs
//! ```

#[path = "shared/mod.rs"]
#[allow(dead_code)] // each bench takes what it needs
mod shared;

use criterion::{Criterion, criterion_group, criterion_main};
use differential_equations::prelude::{
    BackwardDifferentiationFormula, IVP, ImplicitRungeKutta, Matrix as DeMatrix, ODE,
};
use diffsol::{FaerSparseLU, FaerSparseMat, NalgebraLU, NalgebraMat};
use shared::stiff::{
    Counts, DiffsolRun, diffsol_runner, loosest_rung, max_norm_error, timestep_counts,
};
use shared::{Last, rung};
use std::cell::Cell;
use std::hint::black_box;
use std::time::{Duration, Instant};
use timestep::Tolerances;
use timestep::adaptive::Adaptive;
use timestep::{InPlace, Jacobian, Rodas4, Ros3p, Structure, WithJacobian};

// ------------------------------------------------------------------------------------------
// The problems.

/// Van der Pol's stiffness.
const MU: f64 = 1000.0;
/// Its end: on the slow branch after the third jump (see the module docs).
const VDP_END: f64 = 3000.0;
const VDP_START: [f64; 2] = [2.0, 0.0];
/// Where Van der Pol ends: Rodas4 at `rtol = atol = 10⁻¹³` (at 10⁻¹² it ends 3.7·10⁻¹²
/// from it, relative). differential-equations' Radau5 (another method, another code)
/// converges to it: 4.2·10⁻⁷, 9.8·10⁻⁸ and 2.6·10⁻⁸ away (the largest relative difference
/// of the components, x′'s) at 10⁻¹², 10⁻¹³ and 10⁻¹⁴ (its tightest). So it is good to
/// 3·10⁻⁸ at worst, 30 times below the tightest error measured. `STIFF_REFERENCE= cargo bench -p timestep-peers --bench stiff` prints these runs.
const VDP_REFERENCE: [f64; 2] = [-1.510_606_936_743_863_3, 0.001_178_380_000_723_893_5];

/// Robertson's end.
const ROBERTSON_END: f64 = 4e5;
const ROBERTSON_START: [f64; 3] = [1.0, 0.0, 0.0];
/// Where Robertson ends: Rodas4 at `rtol = 10⁻¹³`, `atol = 10⁻²³` (at 10⁻¹² it ends
/// 10⁻¹⁴ from it); Radau5 at 10⁻¹², 10⁻¹³ and 10⁻¹⁴ ends 7.6·10⁻¹⁰, 3.5·10⁻¹⁰ and
/// 2.0·10⁻⁹ from it (the largest relative difference, y₁'s and y₂'s), as for
/// [`VDP_REFERENCE`].
const ROBERTSON_REFERENCE: [f64; 3] = [
    0.004_938_274_520_979_879,
    1.984_994_087_954_393e-8,
    0.995_061_705_629_083_4,
];
/// `atol / rtol` for Robertson.
const ROBERTSON_ATOL_SCALE: f64 = 1e-10;

/// Heat equation: interior points and end.
const HEAT_N: usize = 10_000;
const HEAT_END: f64 = 0.1;

fn van_der_pol(y: &[f64; 2]) -> [f64; 2] {
    [y[1], MU * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

/// `∂f/∂y`, row by row.
fn van_der_pol_jacobian(y: &[f64; 2]) -> [[f64; 2]; 2] {
    [
        [0.0, 1.0],
        [-2.0 * MU * y[0] * y[1] - 1.0, MU * (1.0 - y[0] * y[0])],
    ]
}

fn robertson(y: &[f64; 3]) -> [f64; 3] {
    let [a, b, c] = *y;
    [
        -0.04 * a + 1e4 * b * c,
        0.04 * a - 1e4 * b * c - 3e7 * b * b,
        3e7 * b * b,
    ]
}

fn robertson_jacobian(y: &[f64; 3]) -> [[f64; 3]; 3] {
    let [_, b, c] = *y;
    [
        [-0.04, 1e4 * c, 1e4 * b],
        [0.04, -1e4 * c - 6e7 * b, -1e4 * b],
        [0.0, 6e7 * b, 0.0],
    ]
}

/// `(uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx²`, `u = 0` beyond the ends.
fn heat_rate(u: &[f64], scale: f64, out: &mut [f64]) {
    let n = u.len();
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { 0.0 };
        let right = if i + 1 < n { u[i + 1] } else { 0.0 };
        out[i] = (left - 2.0 * u[i] + right) * scale;
    }
}

/// `1/dx²` on [`HEAT_N`] points.
fn heat_scale() -> f64 {
    let dx = 1.0 / (HEAT_N + 1) as f64;
    1.0 / (dx * dx)
}

/// `e^(λ₁t) sin(πx) + e^(λ₃t) sin(3πx)` on the grid, `λₖ = −4 sin²(kπ dx/2)/dx²`: the exact
/// solution of the semi-discrete heat equation (at `t = 0`, the start).
fn heat_exact(t: f64) -> Vec<f64> {
    let dx = 1.0 / (HEAT_N + 1) as f64;
    let pi = std::f64::consts::PI;
    let decay = |k: f64| (-4.0 * (k * pi * dx / 2.0).sin().powi(2) / (dx * dx) * t).exp();
    let (d1, d3) = (decay(1.0), decay(3.0));
    (1..=HEAT_N)
        .map(|i| {
            let x = i as f64 * dx;
            d1 * (pi * x).sin() + d3 * (3.0 * pi * x).sin()
        })
        .collect()
}

/// The largest relative error of the components.
fn relative_error(y: &[f64], reference: &[f64]) -> f64 {
    y.iter()
        .zip(reference)
        .map(|(y, r)| ((y - r) / r).abs())
        .fold(0.0, f64::max)
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Problem {
    VanDerPol,
    Robertson,
    Heat,
}

impl Problem {
    fn name(self) -> &'static str {
        match self {
            Problem::VanDerPol => "van-der-pol",
            Problem::Robertson => "robertson",
            Problem::Heat => "heat",
        }
    }

    /// `(rtol, atol)` for the side's tolerance `tol`.
    fn tolerances(self, tol: f64) -> (f64, f64) {
        match self {
            Problem::Robertson => (tol, tol * ROBERTSON_ATOL_SCALE),
            _ => (tol, tol),
        }
    }

    /// The error of an end state.
    fn error(self, y: &[f64], heat_reference: &[f64]) -> f64 {
        match self {
            Problem::VanDerPol => relative_error(y, &VDP_REFERENCE),
            Problem::Robertson => relative_error(y, &ROBERTSON_REFERENCE),
            Problem::Heat => max_norm_error(y, heat_reference),
        }
    }
}

// ------------------------------------------------------------------------------------------
// The sides.

/// A contestant and its tolerance.
#[derive(Clone, Copy, Debug)]
enum Side {
    /// `timestep`'s method by name: `radau5`, `rodas4` or `ros3p`.
    Timestep(&'static str, f64),
    DeRadau5(f64),
    DeBdf(f64),
    DiffsolBdf(f64),
}

impl Side {
    fn tolerance(self) -> f64 {
        match self {
            Side::Timestep(_, t) | Side::DeRadau5(t) | Side::DeBdf(t) | Side::DiffsolBdf(t) => t,
        }
    }

    fn with(self, tol: f64) -> Side {
        match self {
            Side::Timestep(m, _) => Side::Timestep(m, tol),
            Side::DeRadau5(_) => Side::DeRadau5(tol),
            Side::DeBdf(_) => Side::DeBdf(tol),
            Side::DiffsolBdf(_) => Side::DiffsolBdf(tol),
        }
    }
}

/// `timestep`'s Radau5 as the bench runs it: Newton iterations stopped at 10⁻³ of the
/// error tolerance (differential-equations' default is 3.2·10⁻³; radau5.f's
/// `max(10ε/rtol', min(0.03, √rtol'))` lets Newton's error dominate on Robertson at loose
/// tolerances: its final error stays between 10⁻⁵ and 10⁻³ for every `rtol` from 1 to
/// 10⁻³, where with 10⁻³ it is near 10⁻⁶ from `rtol = 5.6·10⁻²` on).
fn radau5() -> timestep::Radau5 {
    timestep::Radau5::new().with_tolerance(1e-3)
}

/// `timestep` on a small problem: `f` with its Jacobian `jac` in `WithJacobian`.
fn timestep_small<const N: usize>(
    method: &str,
    f: fn(&[f64; N]) -> [f64; N],
    jac: fn(&[f64; N]) -> [[f64; N]; N],
    start: [f64; N],
    end: f64,
    (rtol, atol): (f64, f64),
) -> ([f64; N], Counts) {
    let forces = WithJacobian::new(
        move |y: &[f64; N], _t: f64| f(y),
        move |y: &[f64; N], _t: f64, j: &mut Jacobian<'_, f64>| {
            let m = jac(y);
            for (r, row) in m.iter().enumerate() {
                for (c, &v) in row.iter().enumerate() {
                    j[(r, c)] = v;
                }
            }
        },
    );
    let tolerances = Tolerances::new(rtol, atol);
    let mut y = start;
    let statistics = match method {
        "rodas4" => Adaptive::new(Rodas4.assume_autonomous())
            .with_tolerances(tolerances)
            .with_max_steps(10_000_000)
            .solve(&mut y, &forces, 0.0, end),
        "ros3p" => Adaptive::new(Ros3p.assume_autonomous())
            .with_tolerances(tolerances)
            .with_max_steps(10_000_000)
            .solve(&mut y, &forces, 0.0, end),
        "radau5" => Adaptive::new(radau5())
            .with_tolerances(tolerances)
            .with_max_steps(10_000_000)
            .solve(&mut y, &forces, 0.0, end),
        _ => unreachable!("no method {method}"),
    }
    .expect("an adaptive run within its step budget");
    (y, timestep_counts(statistics))
}

/// `timestep` on the heat equation: in place on a `Vec`, the tridiagonal Jacobian analytic.
fn timestep_heat(method: &str, start: &[f64], (rtol, atol): (f64, f64)) -> (Vec<f64>, Counts) {
    let scale = heat_scale();
    let forces = WithJacobian::new(
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
    );
    let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
    let tolerances = Tolerances::new(rtol, atol);
    let mut u = start.to_vec();
    let statistics = match method {
        "rodas4" => Adaptive::new(Rodas4.with_structure(tridiagonal).assume_autonomous())
            .with_tolerances(tolerances)
            .solve(&mut u, &forces, 0.0, HEAT_END),
        "ros3p" => Adaptive::new(Ros3p.with_structure(tridiagonal).assume_autonomous())
            .with_tolerances(tolerances)
            .solve(&mut u, &forces, 0.0, HEAT_END),
        "radau5" => Adaptive::new(radau5().with_structure(tridiagonal))
            .with_tolerances(tolerances)
            .solve(&mut u, &forces, 0.0, HEAT_END),
        _ => unreachable!("no method {method}"),
    }
    .expect("an adaptive run within its step budget");
    (u, timestep_counts(statistics))
}

/// differential-equations' system: `f` and its Jacobian.
struct DeSystem<const N: usize> {
    f: fn(&[f64; N]) -> [f64; N],
    jac: fn(&[f64; N]) -> [[f64; N]; N],
}

impl<const N: usize> ODE<f64, [f64; N]> for DeSystem<N> {
    fn diff(&self, _t: f64, y: &[f64; N], dydt: &mut [f64; N]) {
        *dydt = (self.f)(y);
    }

    fn jacobian(&self, _t: f64, y: &[f64; N], j: &mut DeMatrix<f64>) {
        let m = (self.jac)(y);
        for (r, row) in m.iter().enumerate() {
            for (c, &v) in row.iter().enumerate() {
                j[(r, c)] = v;
            }
        }
    }
}

/// differential-equations' Radau5 (`radau`) or BDF on a small problem.
fn differential_equations_small<const N: usize>(
    radau: bool,
    f: fn(&[f64; N]) -> [f64; N],
    jac: fn(&[f64; N]) -> [[f64; N]; N],
    start: [f64; N],
    end: f64,
    (rtol, atol): (f64, f64),
) -> ([f64; N], Counts) {
    let last = Cell::new(start);
    let ode = DeSystem { f, jac };
    let problem = IVP::ode(&ode, 0.0, end, start);
    let solution = if radau {
        problem
            .method(
                ImplicitRungeKutta::radau5()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(usize::MAX),
            )
            .solout(Last(&last))
            .solve()
    } else {
        problem
            .method(
                BackwardDifferentiationFormula::adaptive()
                    .rtol(rtol)
                    .atol(atol)
                    .max_steps(usize::MAX),
            )
            .solout(Last(&last))
            .solve()
    }
    .expect("an adaptive run");
    let counts = Counts {
        evaluations: solution.evals.function as u64,
        products: 0,
        linear_iterations: 0,
        jacobians: solution.evals.jacobian as u64,
        decompositions: solution.evals.decompositions as u64,
        steps: (solution.steps.accepted + solution.steps.rejected) as u64,
    };
    (last.get(), counts)
}

/// A group: the problem, the error to reach, and each function's side.
type Group = (Problem, f64, Vec<(&'static str, Side)>);

/// A problem with its diffsol runner, and for the heat equation its start and reference.
struct Contest<'a> {
    problem: Problem,
    diffsol: &'a DiffsolRun<'a>,
    heat_start: &'a [f64],
    heat_reference: &'a [f64],
}

impl Contest<'_> {
    /// The end state (copied into a `Vec` for every side alike, some 20 ns) and counts of
    /// `side`. Not inlined, so that callgrind can count it alone (`--toggle-collect`, see
    /// [`profile`]).
    #[inline(never)]
    fn run(&self, side: Side) -> (Vec<f64>, Counts) {
        let tol = self.problem.tolerances(side.tolerance());
        match (self.problem, side) {
            (_, Side::DiffsolBdf(_)) => (self.diffsol)(tol),
            (Problem::Heat, Side::Timestep(method, _)) => {
                timestep_heat(method, self.heat_start, tol)
            }
            (Problem::Heat, _) => unreachable!("differential-equations is dense only"),
            (Problem::VanDerPol, Side::Timestep(method, _)) => {
                let (y, c) = timestep_small(
                    method,
                    van_der_pol,
                    van_der_pol_jacobian,
                    VDP_START,
                    VDP_END,
                    tol,
                );
                (y.to_vec(), c)
            }
            (Problem::Robertson, Side::Timestep(method, _)) => {
                let (y, c) = timestep_small(
                    method,
                    robertson,
                    robertson_jacobian,
                    ROBERTSON_START,
                    ROBERTSON_END,
                    tol,
                );
                (y.to_vec(), c)
            }
            (Problem::VanDerPol, _) => {
                let radau = matches!(side, Side::DeRadau5(_));
                let (y, c) = differential_equations_small(
                    radau,
                    van_der_pol,
                    van_der_pol_jacobian,
                    VDP_START,
                    VDP_END,
                    tol,
                );
                (y.to_vec(), c)
            }
            (Problem::Robertson, _) => {
                let radau = matches!(side, Side::DeRadau5(_));
                let (y, c) = differential_equations_small(
                    radau,
                    robertson,
                    robertson_jacobian,
                    ROBERTSON_START,
                    ROBERTSON_END,
                    tol,
                );
                (y.to_vec(), c)
            }
        }
    }

    fn error(&self, y: &[f64]) -> f64 {
        self.problem.error(y, self.heat_reference)
    }
}

// ------------------------------------------------------------------------------------------
// Search, references, groups.

/// The loosest rung of 10^(−k/8), k = 0 … 104 (1 … 10⁻¹³), at which `side` and the next
/// two tighter rungs end within `target`: its k, error, counts and time (best of 5); or, if
/// none does, the smallest error on the ladder and its k.
fn search(
    contest: &Contest<'_>,
    side: Side,
    target: f64,
) -> Result<(u32, f64, Counts, f64), (u32, f64)> {
    // A run that fails (a solver's error, turned into a panic by `run`) counts as outside
    // the target.
    let ((k, error, counts), failed) = loosest_rung(0..=104, target, |k| {
        std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let (y, counts) = contest.run(side.with(rung(k)));
            (contest.error(&y), counts)
        }))
        .ok()
    })?;
    if !failed.is_empty() {
        println!("search: {side:?} failed at rungs {failed:?}");
    }
    let seconds = (0..5)
        .map(|_| {
            let start = Instant::now();
            black_box(contest.run(side.with(rung(k))));
            start.elapsed().as_secs_f64()
        })
        .fold(f64::INFINITY, f64::min);
    Ok((k, error, counts, seconds))
}

/// The candidates of the search: every method of every crate.
fn candidates(problem: Problem) -> Vec<Side> {
    let mut sides = vec![
        Side::Timestep("rodas4", 0.0),
        Side::Timestep("ros3p", 0.0),
        Side::Timestep("radau5", 0.0),
    ];
    if problem != Problem::Heat {
        sides.extend([Side::DeRadau5(0.0), Side::DeBdf(0.0)]);
    }
    sides.push(Side::DiffsolBdf(0.0));
    sides
}

fn search_all(contest: &Contest<'_>) {
    for target in [1e-3, 1e-6] {
        for side in candidates(contest.problem) {
            let name = contest.problem.name();
            match search(contest, side, target) {
                Ok((k, error, counts, seconds)) => println!(
                    "search {name}-{target:e} {side:?}: rung({k}) = {:.3e}, error {error:.2e}, {counts}, {:.3} ms",
                    rung(k),
                    seconds * 1e3
                ),
                Err((k, error)) => println!(
                    "search {name}-{target:e} {side:?}: not reached; smallest error {error:.2e} at rung({k})"
                ),
            }
        }
    }
}

/// Prints the reference runs for Van der Pol and Robertson: Rodas4 and
/// differential-equations' Radau5 at tight tolerances (Radau5 tighter: like radau5.f it
/// works to `0.1 rtol^(2/3)`), and how far apart they end.
fn reference() {
    for k in [12, 13] {
        let tol = 10f64.powi(-k);
        let (y, counts) = timestep_small(
            "rodas4",
            van_der_pol,
            van_der_pol_jacobian,
            VDP_START,
            VDP_END,
            (tol, tol),
        );
        println!("van-der-pol rodas4 {tol:e}: {y:?} ({counts})");
        let (y, counts) = timestep_small(
            "rodas4",
            robertson,
            robertson_jacobian,
            ROBERTSON_START,
            ROBERTSON_END,
            (tol, tol * 1e-10),
        );
        println!(
            "robertson rodas4 {tol:e}/{:e}: {y:?} ({counts})",
            tol * 1e-10
        );
    }
    for k in [12, 13, 14] {
        let tol = 10f64.powi(-k);
        let (y, counts) = differential_equations_small(
            true,
            van_der_pol,
            van_der_pol_jacobian,
            VDP_START,
            VDP_END,
            (tol, tol),
        );
        println!(
            "van-der-pol radau5 {tol:e}: {y:?} ({counts}), from the reference {:.2e}",
            relative_error(&y, &VDP_REFERENCE)
        );
        let (y, counts) = differential_equations_small(
            true,
            robertson,
            robertson_jacobian,
            ROBERTSON_START,
            ROBERTSON_END,
            (tol, tol * 1e-10),
        );
        println!(
            "robertson radau5 {tol:e}/{:e}: {y:?} ({counts}), from the reference {:.2e}",
            tol * 1e-10,
            relative_error(&y, &ROBERTSON_REFERENCE)
        );
    }
}

/// One group: each side's error checked (within `target`) and printed, then each side
/// measured.
fn group(c: &mut Criterion, contest: &Contest<'_>, target: f64, sides: &[(&str, Side)]) {
    let group_name = format!("stiff/{}-{target:e}", contest.problem.name());
    for &(function, side) in sides {
        let (y, counts) = contest.run(side);
        let error = contest.error(&y);
        println!(
            "{group_name}: {function} {side:?} (tolerance {:.2e}): error {error:.2e}, {counts}",
            side.tolerance()
        );
        assert!(
            error <= target,
            "{group_name}: {function} ends {error:e} from the reference, not within {target:e}"
        );
    }
    let mut group = c.benchmark_group(group_name);
    group.sample_size(10);
    for &(function, side) in sides {
        group.bench_function(function, |b| b.iter(|| contest.run(black_box(side))));
    }
    group.finish();
}

fn stiff(c: &mut Criterion) {
    if std::env::var("STIFF_REFERENCE").is_ok() {
        reference();
        return;
    }
    let scale = heat_scale();
    let heat_start = heat_exact(0.0);
    let heat_reference = heat_exact(HEAT_END);
    let vdp_diffsol = diffsol_runner!(
        NalgebraMat<f64>,
        NalgebraLU<f64>,
        |x: &[f64], y: &mut [f64]| y.copy_from_slice(&van_der_pol(&[x[0], x[1]])),
        |x: &[f64], v: &[f64], y: &mut [f64]| {
            let j = van_der_pol_jacobian(&[x[0], x[1]]);
            y[0] = j[0][1] * v[1];
            y[1] = j[1][0] * v[0] + j[1][1] * v[1];
        },
        VDP_START.to_vec(),
        VDP_END,
    );
    let robertson_diffsol = diffsol_runner!(
        NalgebraMat<f64>,
        NalgebraLU<f64>,
        |x: &[f64], y: &mut [f64]| y.copy_from_slice(&robertson(&[x[0], x[1], x[2]])),
        |x: &[f64], v: &[f64], y: &mut [f64]| {
            let j = robertson_jacobian(&[x[0], x[1], x[2]]);
            for (r, row) in j.iter().enumerate() {
                y[r] = row[0] * v[0] + row[1] * v[1] + row[2] * v[2];
            }
        },
        ROBERTSON_START.to_vec(),
        ROBERTSON_END,
    );
    // Its sparsity detection takes seconds (minutes under valgrind): skipped when a search
    // or a profile asks for another problem.
    let wants_heat = ["STIFF_SEARCH", "STIFF_PROFILE"]
        .iter()
        .all(|name| std::env::var(name).map_or(true, |v| v.is_empty() || v.contains("heat")));
    let heat_diffsol: Box<DiffsolRun<'_>> = if !wants_heat {
        Box::new(|_| unreachable!("the heat equation was not asked for"))
    } else {
        Box::new(diffsol_runner!(
            FaerSparseMat<f64>,
            FaerSparseLU<f64>,
            move |x: &[f64], y: &mut [f64]| heat_rate(x, scale, y),
            // J v = A v: the same stencil on v.
            move |_x: &[f64], v: &[f64], y: &mut [f64]| heat_rate(v, scale, y),
            heat_start.clone(),
            HEAT_END,
        ))
    };
    let contest = |problem: Problem| Contest {
        problem,
        diffsol: match problem {
            Problem::VanDerPol => &vdp_diffsol,
            Problem::Robertson => &robertson_diffsol,
            Problem::Heat => &*heat_diffsol,
        },
        heat_start: &heat_start,
        heat_reference: &heat_reference,
    };
    if let Ok(which) = std::env::var("STIFF_SEARCH") {
        // Failed runs are reported by the search, without a panic message each.
        std::panic::set_hook(Box::new(|_| {}));
        for problem in [Problem::VanDerPol, Problem::Robertson, Problem::Heat] {
            if which.is_empty() || which.contains(problem.name()) {
                search_all(&contest(problem));
            }
        }
        return;
    }
    use Side::{DeBdf, DeRadau5, DiffsolBdf, Timestep as Ts};
    // Tolerances from the search (STIFF_SEARCH=, ladder 10^(−k/8), 2026-11-23); the comment
    // gives them as numbers, timestep / Radau5 / BDF / diffsol. timestep runs the fastest of
    // its methods in the search: Radau5, except Rodas4 on the heat equation at 1e-3.
    // differential-equations' BDF reaches neither 10⁻⁶ (Van der Pol: at best 1.3·10⁻⁶;
    // Robertson: 1.3·10⁻⁴), so it is left out there; its Radau5 reaches 10⁻³ on Robertson
    // at any tolerance (1.5·10⁻⁵ at 1), so it runs at the ladder's loosest.
    #[rustfmt::skip]
    let groups: [Group; 6] = [
        // 1.3e-2, 2.4e-3, 1.8e-6, 1e-5
        (Problem::VanDerPol, 1e-3, vec![
            ("timestep", Ts("radau5", rung(15))),
            ("differential_equations_radau5", DeRadau5(rung(21))),
            ("differential_equations_bdf", DeBdf(rung(46))),
            ("diffsol_bdf", DiffsolBdf(rung(40))),
        ]),
        // 3.2e-8, 1.8e-12, -, 1.3e-9
        (Problem::VanDerPol, 1e-6, vec![
            ("timestep", Ts("radau5", rung(60))),
            ("differential_equations_radau5", DeRadau5(rung(94))),
            ("diffsol_bdf", DiffsolBdf(rung(71))),
        ]),
        // 1, 1, 1e-3, 5.6e-4 (atol = 1e-10 rtol)
        (Problem::Robertson, 1e-3, vec![
            ("timestep", Ts("radau5", rung(0))),
            ("differential_equations_radau5", DeRadau5(rung(0))),
            ("differential_equations_bdf", DeBdf(rung(24))),
            ("diffsol_bdf", DiffsolBdf(rung(26))),
        ]),
        // 1e-2, 7.5e-2, -, 3.2e-7
        (Problem::Robertson, 1e-6, vec![
            ("timestep", Ts("radau5", rung(16))),
            ("differential_equations_radau5", DeRadau5(rung(9))),
            ("diffsol_bdf", DiffsolBdf(rung(52))),
        ]),
        // 2.4e-2, -, -, 1.8e-2
        (Problem::Heat, 1e-3, vec![
            ("timestep", Ts("rodas4", rung(13))),
            ("diffsol_bdf", DiffsolBdf(rung(14))),
        ]),
        // 5.6e-6, -, -, 1e-6
        (Problem::Heat, 1e-6, vec![
            ("timestep", Ts("radau5", rung(42))),
            ("diffsol_bdf", DiffsolBdf(rung(48))),
        ]),
    ];
    if let Ok(case) = std::env::var("STIFF_PROFILE") {
        profile(&case, &groups, &contest);
        return;
    }
    for (problem, target, sides) in &groups {
        group(c, &contest(*problem), *target, sides);
    }
}

/// One run of one side of one group, without criterion, for callgrind: `case` is
/// `<group>/<function>`, e.g. `heat-1e-6/timestep`. Count only the run (not the set-up,
/// e.g. diffsol's sparsity detection) with
///
/// ```text
/// CARGO_PROFILE_BENCH_DEBUG=line-tables-only cargo bench -p timestep-peers --bench stiff --no-run
/// STIFF_PROFILE=heat-1e-6/timestep valgrind --tool=callgrind \
///     --toggle-collect='stiff::Contest::run' target/release/deps/stiff-<hash>
/// ```
fn profile<'a>(case: &str, groups: &[Group], contest: &dyn Fn(Problem) -> Contest<'a>) {
    for (problem, target, sides) in groups {
        for &(function, side) in sides {
            if case == format!("{}-{target:e}/{function}", problem.name()) {
                let contest = contest(*problem);
                let (y, counts) = contest.run(side);
                println!("{case}: error {:.2e}, {counts}", contest.error(&y));
                return;
            }
        }
    }
    panic!("no case {case}");
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = stiff
}
criterion_main!(benches);
