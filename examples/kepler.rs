//! Kepler's problem: a unit mass around a fixed centre, `GM = 1`, semi-major axis 1 (period
//! 2π), started at perihelion with eccentricity `e`: `x = (1 − e, 0)`,
//! `v = (0, √((1 + e)/(1 − e)))`. The exact orbit returns to its start every period.
//!
//! Prints CSV: `t,energy_error,angular_momentum_error,x,y` once per period (after the
//! step that completes it): the relative errors of the energy `E = ½|v|² − 1/|x|` (exact
//! −½) and of the angular momentum `L = x × v` (exact `√(1 − e²)`), and the position,
//! which the exact orbit has back at `(1 − e, 0)`.
//!
//! ```text
//! cargo run --release --example kepler -- [--method NAME] [--dt DT] [--e E] [--periods N]
//! ```
//!
//! NAME is any of `timestep::Method`'s names (default `kahan-li8`); DT the step (default
//! 0.001), rounded so that a period is a whole number of steps (`2π / round(2π / DT)`);
//! E in [0, 1) (default 0.9); N periods (default 1000).

mod cli;

use cli::Flag;
use glam::DVec2;
use std::f64::consts::TAU;
use std::io::{BufWriter, Write};
use std::process::ExitCode;
use timestep::{Integrator, Method, Particle};

const PROGRAM: &str = "kepler";

fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    let r = p.position();
    -r / r.length().powi(3)
}

fn main() -> ExitCode {
    let names = Method::<Particle<DVec2>>::NAMES.join(", ");
    let flags = [
        Flag::new("--method", "NAME", "the integrator", "kahan-li8"),
        Flag::new(
            "--dt",
            "DT",
            "the time step, > 0, rounded to a whole number of steps per period",
            0.001,
        ),
        Flag::new("--e", "E", "the eccentricity, 0 <= E < 1", 0.9),
        Flag::new("--periods", "N", "how many periods, >= 1", 1000),
    ];
    let about = format!(
        "relative energy and angular momentum errors of a Kepler orbit (GM = 1, a = 1) once \
         per period; NAME: {names}"
    );
    let mut method: Method<Particle<DVec2>> = "kahan-li8".parse().expect("a method's name");
    let (mut dt, mut e, mut periods) = (0.001, 0.9, 1000);
    for (flag, value) in cli::parse(PROGRAM, &about, &flags) {
        match flag {
            "--method" => {
                method = value.parse().unwrap_or_else(|_| {
                    cli::fail(
                        PROGRAM,
                        format!("unknown method {value:?} (methods: {names})"),
                    )
                })
            }
            "--dt" => dt = cli::positive(PROGRAM, flag, &value),
            "--e" => {
                e = cli::not_negative(PROGRAM, flag, &value);
                if e >= 1.0 {
                    cli::fail(
                        PROGRAM,
                        format!("--e must be below 1 (a closed orbit), got {value:?}"),
                    );
                }
            }
            "--periods" => periods = cli::whole(PROGRAM, flag, &value, 1),
            _ => unreachable!("cli::parse returns only the flags it was given"),
        }
    }
    cli::check_steps(PROGRAM, periods as f64 * TAU, dt);
    let per_period = (TAU / dt).round().max(1.0) as u64;
    let dt = TAU / per_period as f64;

    let mut particle = Particle::new(
        1.0,
        DVec2::new(1.0 - e, 0.0),
        DVec2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()),
    );
    let energy =
        |p: &Particle<DVec2>| 0.5 * p.velocity().length_squared() - 1.0 / p.position().length();
    let momentum = |p: &Particle<DVec2>| p.position().perp_dot(p.velocity());
    let (e0, l0) = (-0.5, (1.0 - e * e).sqrt());
    let mut out = BufWriter::new(std::io::stdout().lock());
    let mut write = |line: String| writeln!(out, "{line}").is_ok();
    if !write("t,energy_error,angular_momentum_error,x,y".into()) {
        return ExitCode::SUCCESS;
    }
    for period in 0..periods {
        for i in 0..per_period {
            let t = (period * per_period + i) as f64 * dt;
            if let Err(error) = method.step(&mut particle, &gravity, t, dt) {
                eprintln!("{PROGRAM}: {error}");
                return ExitCode::FAILURE;
            }
        }
        let x = particle.position();
        let row = format!(
            "{},{:e},{:e},{},{}",
            (period + 1) as f64 * TAU,
            (energy(&particle) - e0) / e0.abs(),
            (momentum(&particle) - l0) / l0,
            x.x,
            x.y
        );
        if !write(row) {
            return ExitCode::SUCCESS; // stdout closed (e.g. `| head`)
        }
    }
    ExitCode::SUCCESS
}
