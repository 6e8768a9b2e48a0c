//! Robertson's chemical kinetics (H. H. Robertson 1966; Hairer–Wanner II, IV.1 and IV.10),
//! the classic stiff test: three species, `A → B` at k₁ = 0.04, `B + B → C + B` at
//! k₂ = 3·10⁷ and `B + C → A + C` at k₃ = 10⁴, from y = (1, 0, 0) to t = 10¹¹, under error
//! control with a stiff solver (Radau IIA, a Rosenbrock method, SEULEX or the BDF).
//!
//! ```text
//! cargo run --release --example robertson
//! cargo run --release --example robertson -- --method ros3p --rtol 1e-6 --atol 1e-12
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (`radau5`, `rodas4`, `ros3p`, `seulex` or `bdf`; default `radau5`), `--rtol` (10⁻⁸) and `--atol` (10⁻¹⁴:
//! y₂ lives near 10⁻⁵ and falls to 10⁻¹³).
//!
//! Output: the header `t,y1,y2,y3,sum`, then a row at t = 0 and rows at 1 and 4 per decade
//! from 10⁻⁶ to 10¹¹ (10⁻⁶, 4·10⁻⁶, 10⁻⁵, …, 4·10¹⁰, 10¹¹), read from the method's dense
//! output; `sum` is y₁ + y₂ + y₃, which stays 1. Statistics go to stderr, ending with the
//! line `evaluations=N accepted=A rejected=R jacobians=J decompositions=D`. With the
//! defaults: y(40) = (0.7158, 9.1855·10⁻⁶, 0.2842) as Hairer and Wanner print it, and
//! Radau5 takes 657 accepted steps to 10¹¹ (10 028 evaluations, 591 Jacobians), Rodas4
//! 1407 (12 669 evaluations), SEULEX 82 (4 225 evaluations), the BDF 2105 (2 738
//! evaluations, 38 Jacobians).

mod cli;

use cli::{Flag, csv};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{Adaptive, AdaptiveKind, Statistics, Tolerances};

const PROGRAM: &str = "robertson";

/// The end of the run.
const END: f64 = 1e11;

/// Robertson's rates.
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let [a, b, c] = *y;
    [
        -0.04 * a + 1e4 * b * c,
        0.04 * a - 1e4 * b * c - 3e7 * b * b,
        3e7 * b * b,
    ]
}

/// The output times: 1 and 4 per decade from 10⁻⁶ to 10¹¹.
fn output_times() -> Vec<f64> {
    let mut times = Vec::new();
    for exponent in -6..=11 {
        let decade = 10f64.powi(exponent);
        times.push(decade);
        if exponent < 11 {
            times.push(4.0 * decade);
        }
    }
    times
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

/// The run with `method`, a row per output time to `out` (sampled from the dense output,
/// the steps left as the tolerance chose them); the statistics, or the solver's error as
/// a message.
fn run(
    method: AdaptiveKind,
    rtol: f64,
    atol: f64,
    out: &mut impl Write,
) -> Result<Statistics, String> {
    let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(rtol, atol));
    let mut y = [1.0, 0.0, 0.0];
    let mut written = row(out, 0.0, &y);
    let statistics = solver
        .solve_at(&mut y, &robertson, 0.0, &output_times(), |t, y| {
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
        Flag::new(
            "--method",
            "NAME",
            "radau5, rodas4, ros3p, seulex or bdf",
            "radau5",
        ),
        Flag::new("--rtol", "TOL", "the relative tolerance, >= 0", "1e-8"),
        Flag::new("--atol", "TOL", "the absolute tolerance, >= 0", "1e-14"),
    ];
    let mut method = String::from("radau5");
    let (mut rtol, mut atol) = (1e-8, 1e-14);
    for (flag, value) in cli::parse(
        PROGRAM,
        "Robertson's stiff chemical kinetics to t = 1e11 under error control, CSV t,y1,y2,y3,sum",
        &flags,
    ) {
        match flag {
            "--method" => method = value,
            "--rtol" => rtol = cli::not_negative(PROGRAM, flag, &value),
            _ => atol = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    cli::tolerances(PROGRAM, rtol, atol);
    cli::known_method(
        PROGRAM,
        &method,
        &["radau5", "rodas4", "ros3p", "seulex", "bdf"],
    );

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,y1,y2,y3,sum").is_err() {
        return ExitCode::FAILURE;
    }
    // The rates do not depend on time: no ∂f/∂t to take.
    let kind: AdaptiveKind = method.parse().expect("a name checked above");
    let result = run(kind.assume_autonomous(), rtol, atol, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    match result {
        Ok(statistics) => {
            eprintln!("{method}, rtol {rtol:e}, atol {atol:e}: Robertson to t = {END:e}");
            eprintln!("{}", cli::stiff_statistics(&statistics));
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            ExitCode::FAILURE
        }
    }
}
