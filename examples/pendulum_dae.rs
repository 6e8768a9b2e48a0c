//! The pendulum in Cartesian coordinates, a constrained system (a differential-algebraic
//! equation of index 3): a bob of 1 kg on a rod of 1 m, g = 9.81, released from the
//! horizontal at rest, to t = 10 s.
//!
//! ```text
//! x'' = −λ x,   y'' = −λ y − g,   0 = (x² + y² − 1) / 2
//! ```
//!
//! `λ` is the rod's tension (per unit mass and length), `v² − g y`, which from this start is
//! `−3 g y`. The exact period is `4 √(L/g) K(sin²(π/4)) = 2.367842 s` (K the complete
//! elliptic integral of the first kind).
//!
//! ```text
//! cargo run --release --example pendulum_dae
//! cargo run --release --example pendulum_dae -- --dt 1e-2 --duration 1e4 --every 100
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (`rattle`; `radau5` and `bdf`, with mass matrices, are not available yet and exit 2),
//! `--index 1|2|3` (the DAE's index for radau5 and bdf; RATTLE holds the position and the
//! velocity constraints whatever it is), `--rtol` (for rattle, the tolerance of its
//! constraint solve, `|x² + y² − 1| / 2 ≤ rtol`), `--dt` (rattle's step), `--duration`
//! and `--every` (the time between rows).
//!
//! Output: the header `t,x,y,vx,vy,lambda,constraint_error,energy_error`, then a row at
//! t = 0 and every `--every`: `constraint_error` is `x² + y² − 1`, `energy_error` is
//! `E − E(0)` with `E = ½ (vx² + vy²) + g y`, `lambda` the multiplier of the step's
//! velocity projection. On stderr: the period measured from the run's zero crossings of
//! `x` (each found on the cubic Hermite interpolant of `x` and `vx` over its step) against
//! 2.367842 s, and the largest constraint, velocity-constraint and energy errors of the
//! run (over every step, not only the rows).

mod cli;

use cli::{Flag, Schedule, csv};
use glam::DVec2;
use std::f64::consts::PI;
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::{InPlace, Integrator, Particles, Rattle, Rod, Rods};

const PROGRAM: &str = "pendulum_dae";

/// Gravity.
const G: f64 = 9.81;

/// The complete elliptic integral of the first kind, `K(m) = π / (2 AGM(1, √(1 − m)))`.
fn elliptic_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    // Quadratic convergence: five iterations reach rounding from m = ½; ten are safe.
    for _ in 0..10 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// The time in `[t, t + dt]` where the cubic Hermite interpolant of `x` (values `x0`,
/// `x1`, slopes `v0`, `v1`) crosses zero, by bisection: `x0` and `x1` have opposite signs.
fn crossing(t: f64, dt: f64, (x0, v0): (f64, f64), (x1, v1): (f64, f64)) -> f64 {
    let hermite = |s: f64| {
        let (s2, s3) = (s * s, s * s * s);
        (2.0 * s3 - 3.0 * s2 + 1.0) * x0
            + (s3 - 2.0 * s2 + s) * dt * v0
            + (-2.0 * s3 + 3.0 * s2) * x1
            + (s3 - s2) * dt * v1
    };
    let (mut lo, mut hi) = (0.0, 1.0);
    for _ in 0..60 {
        let mid = 0.5 * (lo + hi);
        if hermite(mid).signum() == x0.signum() {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    t + 0.5 * (lo + hi) * dt
}

/// Energy `½ |v|² + g y` of the bob.
fn energy(bob: &Particles<DVec2>) -> f64 {
    bob.kinetic_energy() + G * bob.positions()[0].y
}

fn row(
    out: &mut impl Write,
    t: f64,
    bob: &Particles<DVec2>,
    lambda: f64,
    e0: f64,
) -> io::Result<()> {
    let (q, v) = (bob.positions()[0], bob.velocities()[0]);
    writeln!(
        out,
        "{},{},{},{},{},{},{},{}",
        csv(t),
        csv(q.x),
        csv(q.y),
        csv(v.x),
        csv(v.y),
        csv(lambda),
        csv(q.length_squared() - 1.0),
        csv(energy(bob) - e0)
    )
}

/// What the run measured, for stderr.
struct Summary {
    crossings: Vec<f64>,
    constraint: f64,
    velocity_constraint: f64,
    energy: f64,
    steps: usize,
}

/// RATTLE from the horizontal for the `schedule`, rows to `out`.
fn rattle(tolerance: f64, mut schedule: Schedule, out: &mut impl Write) -> Result<Summary, String> {
    let gravity = InPlace(|_: &Particles<DVec2>, _t: f64, f: &mut Vec<DVec2>| {
        f[0] = DVec2::new(0.0, -G);
    });
    let mut bob = Particles::new(vec![1.0], vec![DVec2::new(1.0, 0.0)], vec![DVec2::ZERO]);
    let mut method = Rattle::new(Rods::new(vec![Rod::anchored(0, DVec2::ZERO, 1.0)]))
        .try_with_tolerance(tolerance)
        .map_err(|error| error.to_string())?;
    let e0 = energy(&bob);
    let mut summary = Summary {
        crossings: Vec::new(),
        constraint: 0.0,
        velocity_constraint: 0.0,
        energy: 0.0,
        steps: schedule.steps,
    };
    row(out, 0.0, &bob, 0.0, e0).map_err(|error| error.to_string())?;
    for i in 0..schedule.steps {
        let (t, end) = (schedule.time(i), schedule.time(i + 1));
        let before = (bob.positions()[0].x, bob.velocities()[0].x);
        method
            .step(&mut bob, &gravity, t, end - t)
            .map_err(|error| format!("step at t = {t}: {error}"))?;
        let (q, v) = (bob.positions()[0], bob.velocities()[0]);
        if before.0 != 0.0 && before.0.signum() != q.x.signum() {
            summary
                .crossings
                .push(crossing(t, end - t, before, (q.x, v.x)));
        }
        summary.constraint = summary.constraint.max((q.length_squared() - 1.0).abs());
        summary.velocity_constraint = summary.velocity_constraint.max(q.dot(v).abs());
        summary.energy = summary.energy.max((energy(&bob) - e0).abs());
        if schedule.is_row(i + 1) {
            row(out, end, &bob, method.multipliers()[0], e0).map_err(|error| error.to_string())?;
        }
    }
    Ok(summary)
}

fn main() -> ExitCode {
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "rattle (radau5 and bdf are not available yet)",
            "rattle",
        ),
        Flag::new(
            "--index",
            "1|2|3",
            "the DAE's index for radau5 and bdf (rattle holds position and velocity constraints)",
            3,
        ),
        Flag::new(
            "--rtol",
            "TOL",
            "the tolerance, > 0 (rattle: of its constraint solve, |x^2 + y^2 - 1| / 2)",
            "1e-8",
        ),
        Flag::new("--dt", "DT", "rattle's time step, > 0", "1e-3"),
        Flag::new("--duration", "T", "the end of the run, > 0", 10),
        Flag::new("--every", "T", "the time between rows, > 0", "0.01"),
    ];
    let mut method = String::from("rattle");
    let (mut rtol, mut dt, mut duration, mut every) = (1e-8, 1e-3, 10.0, 0.01);
    for (flag, value) in cli::parse(
        PROGRAM,
        "the pendulum in Cartesian coordinates (an index-3 DAE) from the horizontal, CSV t,x,y,vx,vy,lambda,constraint_error,energy_error",
        &flags,
    ) {
        match flag {
            "--method" => method = value,
            "--index" => {
                if !["1", "2", "3"].contains(&value.as_str()) {
                    cli::fail(PROGRAM, format!("--index must be 1, 2 or 3, got {value:?}"));
                }
            }
            "--rtol" => rtol = cli::positive(PROGRAM, flag, &value),
            "--dt" => dt = cli::positive(PROGRAM, flag, &value),
            "--duration" => duration = cli::positive(PROGRAM, flag, &value),
            _ => every = cli::positive(PROGRAM, flag, &value),
        }
    }
    cli::known_method(PROGRAM, &method, &["rattle", "radau5", "bdf"]);
    if method != "rattle" {
        cli::fail(
            PROGRAM,
            format!(
                "--method {method} is not available yet: it needs mass matrices (issue 27); use --method rattle"
            ),
        );
    }
    let schedule = Schedule::new(PROGRAM, duration, dt, every, cli::MAX_STEPS);

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,x,y,vx,vy,lambda,constraint_error,energy_error").is_err() {
        return ExitCode::FAILURE;
    }
    let result = rattle(rtol, schedule, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    let summary = match result {
        Ok(summary) => summary,
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            return ExitCode::FAILURE;
        }
    };
    let exact = 4.0 / G.sqrt() * elliptic_k(0.5);
    // Crossings 0, 2, 4, … are in the same direction: whole periods apart.
    let periods = (summary.crossings.len().saturating_sub(1)) / 2;
    if periods > 0 {
        let period = (summary.crossings[2 * periods] - summary.crossings[0]) / periods as f64;
        eprintln!(
            "rattle, dt {dt:e}: period {period:.9} s over {periods} periods, exact {exact:.9} s, relative error {:.2e}",
            (period - exact).abs() / exact
        );
    } else {
        eprintln!("rattle, dt {dt:e}: the run is too short for a period (exact {exact:.9} s)");
    }
    eprintln!(
        "{} steps: max |x^2 + y^2 - 1| = {:.2e}, max |x vx + y vy| = {:.2e}, max |energy error| = {:.2e}",
        summary.steps, summary.constraint, summary.velocity_constraint, summary.energy
    );
    ExitCode::SUCCESS
}
