//! The 2-D Brusselator with diffusion (Hairer–Wanner II, IV.10, problem BRUSS without its
//! inhomogeneity), the standard large stiff test of reaction–diffusion solvers:
//!
//! ```text
//! u' = A + u²v − (B + 1) u + α Δu,     v' = B u − u²v + α Δv,
//! ```
//!
//! A = 1, B = 3.4, α = 0.002 on the unit square with periodic boundaries, on an N × N grid
//! (spacing 1/N, the 5-point Laplacian): 2N² unknowns, `u` and `v` of each point stored
//! together. From u(x, y, 0) = 22·y(1 − y)^{3/2}, v(x, y, 0) = 27·x(1 − x)^{3/2} to
//! t = 11.5, by the BDF (CVODE's method) with matrix-free GMRES (preconditioned by the
//! 2 × 2 reaction blocks, a band of one diagonal each side factored by the banded LU) or
//! with the sparse LU.
//!
//! ```text
//! cargo run --release --example brusselator_2d
//! cargo run --release --features sparse --example brusselator_2d -- --solver sparse --n 64
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--n` (grid points
//! per side, 4 to 1024; default 32), `--solver` (`gmres` or `sparse`, which needs the crate
//! feature `sparse`; default `gmres`), `--rtol` (10⁻⁶) and `--atol` (10⁻⁸).
//!
//! Output: the header `t,u_mean,v_mean,u_max,v_max`, then a row every 0.5 time units
//! from 0 to 11.5, read from the BDF's dense output. The solution settles on the
//! Brusselator's limit cycle (B > 1 + A² makes its fixed point (A, B/A) = (1, 3.4)
//! unstable): the means oscillate. Statistics go to stderr, ending
//! with the line `evaluations=N accepted=A rejected=R jacobians=J decompositions=D`, after
//! GMRES's `linear_iterations=L jacobian_products=P`.

#[path = "problems/brusselator.rs"]
mod brusselator;
mod cli;

use brusselator::{Brusselator, END, bdf, start};
use cli::{Flag, csv};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{Adaptive, Bdf, Forces, Statistics, Tolerances};

const PROGRAM: &str = "brusselator_2d";

/// The spacing of the output rows.
const EVERY: f64 = 0.5;

impl Forces<Vec<f64>> for Brusselator {
    fn force(&self, y: &Vec<f64>, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; y.len()];
        self.force_into(y, t, &mut out);
        out
    }

    fn force_into(&self, y: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        self.rate(y, out);
    }

    #[cfg(feature = "sparse")]
    fn jacobian_pattern(&self, _y: &Vec<f64>, pattern: &mut timestep::Pattern) -> bool {
        pattern.extend(self.pattern());
        true
    }
}

fn row(out: &mut impl Write, t: f64, y: &[f64]) -> io::Result<()> {
    let points = (y.len() / 2) as f64;
    let (mut u_sum, mut v_sum, mut u_max, mut v_max) = (0.0, 0.0, f64::MIN, f64::MIN);
    for pair in y.chunks_exact(2) {
        u_sum += pair[0];
        v_sum += pair[1];
        u_max = u_max.max(pair[0]);
        v_max = v_max.max(pair[1]);
    }
    writeln!(
        out,
        "{},{},{},{},{}",
        csv(t),
        csv(u_sum / points),
        csv(v_sum / points),
        csv(u_max),
        csv(v_max)
    )
}

/// The run, a row every 0.5 to `out`; the statistics, or the solver's error as a message.
fn run(
    n: usize,
    bdf: Bdf,
    rtol: f64,
    atol: f64,
    out: &mut impl Write,
) -> Result<Statistics, String> {
    let mut y = start(n);
    let times: Vec<f64> = (1..=(END / EVERY) as usize)
        .map(|k| k as f64 * EVERY)
        .collect();
    let mut written = row(out, 0.0, &y);
    let statistics = Adaptive::new(bdf)
        .with_tolerances(Tolerances::new(rtol, atol))
        .solve_at(&mut y, &Brusselator { n }, 0.0, &times, |t, y| {
            if written.is_ok() {
                written = row(out, t, y);
            }
        })
        .map_err(|error| error.to_string())?;
    written.map_err(|error| error.to_string())?;
    Ok(statistics)
}

fn main() -> ExitCode {
    let flags = [
        Flag::new("--n", "N", "grid points per side, 4 to 1024", 32),
        Flag::new(
            "--solver",
            "NAME",
            "gmres or sparse (needs the feature sparse)",
            "gmres",
        ),
        Flag::new("--rtol", "TOL", "the relative tolerance, >= 0", "1e-6"),
        Flag::new("--atol", "TOL", "the absolute tolerance, >= 0", "1e-8"),
    ];
    let mut n = 32;
    let mut solver = String::from("gmres");
    let (mut rtol, mut atol) = (1e-6, 1e-8);
    for (flag, value) in cli::parse(
        PROGRAM,
        "the 2-D Brusselator (2 N^2 unknowns) to t = 11.5 by the BDF, CSV t,u_mean,v_mean,u_max,v_max",
        &flags,
    ) {
        match flag {
            "--n" => n = cli::whole(PROGRAM, flag, &value, 4) as usize,
            "--solver" => solver = value,
            "--rtol" => rtol = cli::not_negative(PROGRAM, flag, &value),
            _ => atol = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    if n > 1024 {
        cli::fail(PROGRAM, format!("--n must be at most 1024, got {n}"));
    }
    cli::tolerances(PROGRAM, rtol, atol);
    cli::known_method(PROGRAM, &solver, &["gmres", "sparse"]);
    if solver == "sparse" && !cfg!(feature = "sparse") {
        cli::fail(
            PROGRAM,
            "--solver sparse needs the crate feature sparse (cargo run --features sparse ...)",
        );
    }

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,u_mean,v_mean,u_max,v_max").is_err() {
        return ExitCode::FAILURE;
    }
    let result = run(n, bdf(&solver), rtol, atol, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    match result {
        Ok(statistics) => {
            eprintln!(
                "bdf with {solver}, N = {n} ({} unknowns), rtol {rtol:e}, atol {atol:e}: to t = {END}",
                2 * n * n
            );
            eprintln!(
                "linear_iterations={} jacobian_products={}",
                statistics.linear_iterations, statistics.jacobian_products
            );
            eprintln!("{}", cli::stiff_statistics(&statistics));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            ExitCode::FAILURE
        }
    }
}
