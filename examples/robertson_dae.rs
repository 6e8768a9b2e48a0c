//! Robertson's chemical kinetics as a differential-algebraic system (Hairer–Wanner II,
//! VI.1, (1.4')): the third rate equation replaced by the conservation law it implies,
//!
//! ```text
//! y₁' = −0.04 y₁ + 10⁴ y₂ y₃
//! y₂' =  0.04 y₁ − 10⁴ y₂ y₃ − 3·10⁷ y₂²
//!  0  =  y₁ + y₂ + y₃ − 1
//! ```
//!
//! `M y' = f(t, y)` with the singular mass matrix `M = diag(1, 1, 0)`, an index-1 system,
//! from y = (1, 0, 0) to t = 4·10¹⁰ under error control with Radau5, the BDF or Rodas4
//! (the methods that take a mass matrix), with the analytic Jacobian.
//!
//! ```text
//! cargo run --release --example robertson_dae
//! cargo run --release --example robertson_dae -- --rtol 1e-6 --atol 1e-12
//! cargo run --release --example robertson_dae -- --method bdf
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (`radau5`, `bdf` or `rodas4`), `--rtol` (10⁻⁸) and `--atol` (10⁻¹⁴).
//!
//! Output: the header `t,y1,y2,y3,sum`, then a row at t = 0 and rows at the `robertson`
//! example's times up to 4·10¹⁰ (1 and 4 per decade from 10⁻⁶: 10⁻⁶, 4·10⁻⁶, 10⁻⁵, …,
//! 10¹⁰, 4·10¹⁰), read from the dense output; `sum` is y₁ + y₂ + y₃, which the algebraic
//! equation holds at 1 to rounding. Statistics go to stderr, ending with the line
//! `evaluations=N accepted=A rejected=R jacobians=J decompositions=D`. With the defaults
//! y(40) = (0.7158, 9.1855·10⁻⁶, 0.2842), the ODE form's, and y₁(4·10¹⁰) = 5.2083·10⁻⁸.

mod cli;

use cli::{Flag, csv};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{
    Adaptive, AdaptiveKind, Jacobian, Radau5, Statistics, Tolerances, WithJacobian, WithMass,
};

const PROGRAM: &str = "robertson_dae";

/// The end of the run.
const END: f64 = 4e10;

/// Robertson's two rate equations and the conservation law.
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let [a, b, c] = *y;
    [
        -0.04 * a + 1e4 * b * c,
        0.04 * a - 1e4 * b * c - 3e7 * b * b,
        a + b + c - 1.0,
    ]
}

/// The Jacobian of [`robertson`].
fn jacobian(y: &[f64; 3], _t: f64, j: &mut Jacobian<f64>) {
    let [_, b, c] = *y;
    j[(0, 0)] = -0.04;
    j[(0, 1)] = 1e4 * c;
    j[(0, 2)] = 1e4 * b;
    j[(1, 0)] = 0.04;
    j[(1, 1)] = -1e4 * c - 6e7 * b;
    j[(1, 2)] = -1e4 * b;
    (j[(2, 0)], j[(2, 1)], j[(2, 2)]) = (1.0, 1.0, 1.0);
}

/// `M = diag(1, 1, 0)`: the third equation is algebraic.
fn mass(m: &mut Jacobian<f64>) {
    (m[(0, 0)], m[(1, 1)]) = (1.0, 1.0);
}

/// The `robertson` example's output times up to [`END`]: 1 and 4 per decade from 10⁻⁶.
fn output_times() -> Vec<f64> {
    (-6..=10)
        .flat_map(|exponent| {
            let decade = 10f64.powi(exponent);
            [decade, 4.0 * decade]
        })
        .collect()
}

fn row(out: &mut impl Write, t: f64, y: &[f64; 3]) -> io::Result<()> {
    let sum = y[0] + y[1] + y[2];
    writeln!(
        out,
        "{},{},{},{},{}",
        csv(t),
        csv(y[0]),
        csv(y[1]),
        csv(y[2]),
        csv(sum)
    )
}

/// The run, a row per output time to `out`; the statistics, or the solver's error as a
/// message.
fn run(method: &str, rtol: f64, atol: f64, out: &mut impl Write) -> Result<Statistics, String> {
    let forces = WithMass::new(WithJacobian::new(robertson, jacobian), mass);
    let mut y = [1.0, 0.0, 0.0];
    // Consistent already (1 + 0 + 0 = 1): a start with y₃ unknown would be completed here
    // (Radau5's helper, whichever method runs).
    Radau5::new()
        .consistent_start(&mut y, &forces, 0.0)
        .map_err(|error| error.to_string())?;
    let kind: AdaptiveKind = method
        .parse()
        .map_err(|_| format!("unknown method {method}"))?;
    let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(rtol, atol));
    let mut written = row(out, 0.0, &y);
    let statistics = solver
        .solve_at(&mut y, &forces, 0.0, &output_times(), |t, y| {
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
        Flag::new("--method", "NAME", "radau5, bdf or rodas4", "radau5"),
        Flag::new("--rtol", "TOL", "the relative tolerance, >= 0", "1e-8"),
        Flag::new("--atol", "TOL", "the absolute tolerance, >= 0", "1e-14"),
    ];
    let mut method = String::from("radau5");
    let (mut rtol, mut atol) = (1e-8, 1e-14);
    for (flag, value) in cli::parse(
        PROGRAM,
        "Robertson's kinetics as an index-1 DAE (y1 + y2 + y3 = 1 as its third equation) to t = 4e10, CSV t,y1,y2,y3,sum",
        &flags,
    ) {
        match flag {
            "--method" => method = value,
            "--rtol" => rtol = cli::not_negative(PROGRAM, flag, &value),
            _ => atol = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    cli::tolerances(PROGRAM, rtol, atol);
    cli::known_method(PROGRAM, &method, &["radau5", "bdf", "rodas4"]);

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,y1,y2,y3,sum").is_err() {
        return ExitCode::FAILURE;
    }
    let result = run(&method, rtol, atol, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    match result {
        Ok(statistics) => {
            eprintln!("{method}, rtol {rtol:e}, atol {atol:e}: Robertson DAE to t = {END:e}");
            eprintln!("{}", cli::stiff_statistics(&statistics));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            ExitCode::FAILURE
        }
    }
}
