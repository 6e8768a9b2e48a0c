//! The Arenstorf orbit (Hairer–Nørsett–Wanner I, II.0): a satellite in the rotating frame
//! of the Earth and the Moon (mass ratio μ = 0.012277471) on a periodic orbit, integrated
//! over one period under error control, as Hairer's dopri5.f test driver does.
//!
//! ```text
//! cargo run --release --example arenstorf
//! cargo run --release --example arenstorf -- --method tsit5 --rtol 1e-10 --atol 1e-10
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (`dopri5`, `tsit5`, `bs3`, `dop853` or `vern6` … `vern9`; default `dopri5`), `--rtol` and
//! `--atol` (10⁻⁷), `--h0`
//! (the first step, 10⁻⁴ as in dopri5.f; 0 lets the solver choose).
//!
//! Output: the header `t,x,y,vx,vy`, then a row at t = 0 and one per accepted step, the
//! last at the period. Statistics go to stderr, ending with the line
//! `evaluations=N accepted=A rejected=R error=E`, where `E` is the distance of the end state
//! from the start (the orbit is periodic). With the defaults: 217 accepted and 21 rejected
//! steps, dopri5.f's counts, and an error of 1.5·10⁻³.

mod cli;

use cli::{Flag, csv};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{Adaptive, AdaptiveKind, Statistics, Tolerances};

const PROGRAM: &str = "arenstorf";

/// The Moon's share of the mass.
const MU: f64 = 0.012277471;

/// The start of the orbit, (x, y, vx, vy), and its period (Hairer–Nørsett–Wanner I, II.0).
const START: [f64; 4] = [0.994, 0.0, 0.0, -2.001_585_106_379_082_5];
const PERIOD: f64 = 17.065_216_560_157_96;

/// The restricted three-body equations in the rotating frame.
fn arenstorf(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let [x, y, vx, vy] = *y;
    let d1 = ((x + MU).powi(2) + y * y).powf(1.5);
    let d2 = ((x - 1.0 + MU).powi(2) + y * y).powf(1.5);
    [
        vx,
        vy,
        x + 2.0 * vy - (1.0 - MU) * (x + MU) / d1 - MU * (x - 1.0 + MU) / d2,
        y - 2.0 * vx - (1.0 - MU) * y / d1 - MU * y / d2,
    ]
}

/// The settings the command line gives.
struct Settings {
    rtol: f64,
    atol: f64,
    h0: f64,
}

/// One period with `method`, a row per accepted step to `out`; the end state and the
/// statistics, or the solver's error as a message.
fn run(
    method: AdaptiveKind,
    settings: &Settings,
    out: &mut impl Write,
) -> Result<([f64; 4], Statistics), String> {
    let mut solver =
        Adaptive::new(method).with_tolerances(Tolerances::new(settings.rtol, settings.atol));
    if settings.h0 > 0.0 {
        solver = solver.with_initial_step(settings.h0);
    }
    let mut y = START;
    let mut written = writeln!(out, "0,{}", row(&START));
    let statistics = solver
        .solve_with(&mut y, &arenstorf, 0.0, PERIOD, |step| {
            if written.is_ok() {
                written = writeln!(out, "{},{}", csv(step.end_time()), row(step.end()));
            }
        })
        .map_err(|error| error.to_string())?;
    written.map_err(|error| error.to_string())?;
    Ok((y, statistics))
}

fn row(y: &[f64; 4]) -> String {
    y.map(csv).join(",")
}

fn main() -> ExitCode {
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "dopri5, tsit5, bs3, dop853 or vern6 … vern9",
            "dopri5",
        ),
        Flag::new("--rtol", "TOL", "the relative tolerance, >= 0", "1e-7"),
        Flag::new("--atol", "TOL", "the absolute tolerance, >= 0", "1e-7"),
        Flag::new(
            "--h0",
            "H",
            "the first step, > 0 (0: chosen by the solver)",
            "1e-4",
        ),
    ];
    let mut method = String::from("dopri5");
    let mut settings = Settings {
        rtol: 1e-7,
        atol: 1e-7,
        h0: 1e-4,
    };
    for (flag, value) in cli::parse(
        PROGRAM,
        "the Arenstorf orbit over one period under error control, CSV t,x,y,vx,vy per accepted step",
        &flags,
    ) {
        match flag {
            "--method" => method = value,
            "--rtol" => settings.rtol = cli::not_negative(PROGRAM, flag, &value),
            "--atol" => settings.atol = cli::not_negative(PROGRAM, flag, &value),
            _ => settings.h0 = cli::not_negative(PROGRAM, flag, &value),
        }
    }
    cli::tolerances(PROGRAM, settings.rtol, settings.atol);
    cli::known_method(
        PROGRAM,
        &method,
        &[
            "dopri5", "tsit5", "bs3", "dop853", "vern6", "vern7", "vern8", "vern9",
        ],
    );

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,x,y,vx,vy").is_err() {
        return ExitCode::FAILURE;
    }
    let kind: AdaptiveKind = method.parse().expect("a name checked above");
    let result = run(kind, &settings, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    match result {
        Ok((end, statistics)) => {
            let error = end
                .iter()
                .zip(START)
                .map(|(a, b)| (a - b).powi(2))
                .sum::<f64>()
                .sqrt();
            eprintln!(
                "{method}, rtol {:e}, atol {:e}: one period of the Arenstorf orbit",
                settings.rtol, settings.atol
            );
            eprintln!(
                "evaluations={} accepted={} rejected={} error={error:e}",
                statistics.evaluations, statistics.accepted, statistics.rejected
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            ExitCode::FAILURE
        }
    }
}
