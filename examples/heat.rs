//! The heat equation `u_t = u_xx` on [0, 1] with `u = 0` at both ends, from
//! `u(x, 0) = sin(πx) + sin(3πx)`, by the method of lines: `N` interior points `xᵢ = i·dx`
//! (`dx = 1/(N+1)`), `u′ᵢ = (uᵢ₋₁ − 2uᵢ + uᵢ₊₁)/dx²`, a `Vec<f64>` state stepped by backward
//! Euler through a [`Stepper`], its tridiagonal Jacobian estimated by finite differences
//! with column grouping (three force evaluations per Newton iteration, whatever `N`) and
//! factored as a band.
//!
//! ```text
//! cargo run --release --example heat
//! cargo run --release --example heat -- --n 100 --dt 1e-4
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--n N` (interior
//! points, default 1000), `--dt DT` (10⁻³), `--duration T` (0.1).
//!
//! Output: the header `t,max_error`, then a row at t = 0, every 0.01 and at the end.
//! `max_error` is `maxᵢ |uᵢ − u(xᵢ, t)|` against the exact solution
//! `u(x, t) = e^(−π²t) sin(πx) + e^(−9π²t) sin(3πx)` on the grid: the scheme's error,
//! `O(dt + dx²)`. With the defaults it ends at 1.75·10⁻³, nearly all of it the `O(dt)` of
//! backward Euler (the slow mode decays as `(1 + π² dt)^(−t/dt)` instead of `e^(−π²t)`):
//! `--dt 1e-4` ends at 1.76·10⁻⁴ and `--dt 1e-5` at 1.79·10⁻⁵. At `--dt 1e-6` the `O(dx²)`
//! of the grid shows instead: 2.39·10⁻³ at `--n 10`, 6.64·10⁻⁴ at `--n 20`, 1.76·10⁻⁴ at
//! `--n 40`, 3.6 and 3.8 times less per halving of `dx` (`(dx/dx′)²` is 3.64 and 3.81).

mod cli;

use cli::{Flag, Schedule, csv};
use std::f64::consts::PI;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{BackwardEuler, InPlace, Integrator, Stepper, Structure};

/// Time between rows.
const ROW_EVERY: f64 = 0.01;

const PROGRAM: &str = "heat";

/// The most interior points.
const MAX_POINTS: u64 = 10_000_000;

/// The exact solution at `x` and `t`.
fn exact(x: f64, t: f64) -> f64 {
    (-PI * PI * t).exp() * (PI * x).sin() + (-9.0 * PI * PI * t).exp() * (3.0 * PI * x).sin()
}

/// `u_xx` by central differences, with `u = 0` beyond both ends.
fn second_difference(u: &[f64], dx: f64, out: &mut [f64]) {
    let n = u.len();
    let scale = 1.0 / (dx * dx);
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { 0.0 };
        let right = if i + 1 < n { u[i + 1] } else { 0.0 };
        out[i] = (left - 2.0 * u[i] + right) * scale;
    }
}

fn main() -> ExitCode {
    let flags = [
        Flag::new("--n", "N", "interior grid points, 1 to 10^7", 1000),
        Flag::new("--dt", "DT", "the time step, > 0", "1e-3"),
        Flag::new("--duration", "T", "how long to run, >= 0", 0.1),
    ];
    let (mut n, mut dt, mut duration) = (1000, 1e-3, 0.1);
    for (flag, value) in cli::parse(
        PROGRAM,
        "the heat equation u_t = u_xx on [0, 1], backward Euler with a banded Jacobian, CSV \
         t,max_error against the exact solution, a row every 0.01",
        &flags,
    ) {
        match flag {
            "--n" => {
                let points = cli::whole(PROGRAM, flag, &value, 1);
                if points > MAX_POINTS {
                    cli::fail(
                        PROGRAM,
                        format!("--n must be at most {MAX_POINTS}, got {value:?}"),
                    );
                }
                n = points as usize;
            }
            "--dt" => dt = cli::positive(PROGRAM, flag, &value),
            _ => duration = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    let mut schedule = Schedule::new(PROGRAM, duration, dt, ROW_EVERY, cli::MAX_STEPS);

    let dx = 1.0 / (n + 1) as f64;
    let grid: Vec<f64> = (1..=n).map(|i| i as f64 * dx).collect();
    let mut u: Vec<f64> = grid.iter().map(|&x| exact(x, 0.0)).collect();
    let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        second_difference(u, dx, du);
    });
    let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
    let mut solver = Stepper::new(BackwardEuler::new().with_structure(tridiagonal));
    let max_error = |u: &[f64], t: f64| {
        u.iter()
            .zip(&grid)
            .map(|(u, &x)| (u - exact(x, t)).abs())
            .fold(0.0, f64::max)
    };

    let mut out = BufWriter::new(io::stdout().lock());
    let mut result =
        writeln!(out, "t,max_error").and_then(|()| writeln!(out, "0,{}", csv(max_error(&u, 0.0))));
    for i in 0..schedule.steps {
        if result.is_err() {
            break;
        }
        let (t, t_next) = (schedule.time(i), schedule.time(i + 1));
        if let Err(error) = solver.step(&mut u, &heat, t, t_next - t) {
            let _ = out.flush();
            eprintln!("heat: backward Euler stopped at t = {t}: {error}");
            return ExitCode::FAILURE;
        }
        if schedule.is_row(i + 1) {
            result = writeln!(out, "{},{}", csv(t_next), csv(max_error(&u, t_next)));
        }
    }
    match result.and_then(|()| out.flush()) {
        Err(error) if error.kind() != io::ErrorKind::BrokenPipe => {
            eprintln!("heat: cannot write the output: {error}");
            ExitCode::FAILURE
        }
        _ => ExitCode::SUCCESS,
    }
}
