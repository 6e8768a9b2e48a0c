//! The pendulum in Cartesian coordinates, a constrained system (a differential-algebraic
//! equation of index 3): a bob of 1 kg on a rod of 1 m, g = 9.81, released from the
//! horizontal at rest, to t = 10 s.
//!
//! ```text
//! x'' = −λ x,   y'' = −λ y − g,   0 = x² + y² − 1
//! ```
//!
//! `λ` is the rod's tension (per unit mass and length), `v² − g y`, which from this start is
//! `−3 g y`. The exact period is `4 √(L/g) K(sin²(π/4)) = 2.367842 s` (K the complete
//! elliptic integral of the first kind, computed here by the arithmetic-geometric mean).
//!
//! ```text
//! cargo run --release --example pendulum_dae
//! cargo run --release --example pendulum_dae -- --method radau5 --index 2 --rtol 1e-10
//! cargo run --release --example pendulum_dae -- --method bdf --index 2 --rtol 1e-10
//! cargo run --release --example pendulum_dae -- --dt 1e-2 --duration 1e4 --every 100
//! cargo run --release --example pendulum_dae -- --method backward-euler --index 3 --dt 1e-4
//! ```
//!
//! Four methods. `rattle` (the default) steps the second-order system at a fixed `--dt`,
//! holding the position and the velocity constraints whatever the index. `radau5` solves
//! `M y' = f(t, y)` for `y = (x, y, vx, vy, λ)`, `M = diag(1, 1, 1, 1, 0)`, under error
//! control (rtol = atol = `--rtol`), with the algebraic equation of `--index`: 3, the
//! position constraint `x² + y² − 1`; 2, its derivative, the velocity constraint
//! `x vx + y vy`; 1, its second derivative with the equations of motion put in,
//! `vx² + vy² − λ (x² + y²) − g y`, which gives `λ` (Hairer–Wanner II, VII.1). Radau5 is
//! told which unknowns are of index 2 and 3 (`Radau5::with_higher_index`: at index 3 the
//! velocities and `λ`, at index 2 `λ`), whose errors it weighs by `h` and `h²`. Only the
//! index-3 run holds `x² + y² = 1` (to the Newton tolerance); at index 2 and 1 the position
//! constraint is a consequence of the start, and drifts. The start is consistent at every
//! index: at index 1 `Radau5::consistent_start` solves `λ(0)` from the algebraic equation
//! (0 here); at index 2 and 3 that equation does not contain `λ` (`consistent_start`
//! refuses it, a singular Jacobian) and `λ(0) = 0` is the index-1 equation's value.
//! `bdf` solves the index-1 and index-2 forms the same way (the BDF with the mass matrix,
//! from the same starts; at index 2 told that `λ` is of index 2, `Bdf::with_index_two(4)`,
//! which leaves `λ` out of its error test); at index 3 it exits 2: with variable steps
//! the BDF need not converge at index 3 (Gear, Leimkuhler and Gupta 1985; see
//! `Bdf::with_index_two`). `backward-euler` solves the DAE of `--index` at the fixed `--dt`
//! (`BackwardEuler::with_higher_index`, told the unknowns' index as Radau5 is): order 1,
//! and it damps: at dt = 10⁻³ (10⁻⁴) at index 3 the period comes out 2.0·10⁻² (1.8·10⁻³)
//! short, the swing losing energy (1.7 of the `m g L` = 9.81 J it falls from over 10 s;
//! 0.19 at 10⁻⁴), while `x² + y² = 1` holds to 3.1·10⁻¹² (2.6·10⁻¹³) at every step.
//!
//! Side by side at rtol 10⁻⁸ (`--method M --index I --rtol 1e-8`, from stderr: the
//! period's relative error, the largest position and velocity constraint errors, the
//! accepted steps and force evaluations; measured 2026-11):
//!
//! ```text
//! method  index  period   |x²+y²−1|  |x vx+y vy|  steps  evaluations
//! radau5  3      9.6e-8   1.0e-8     4.2e-5        718   10874
//! radau5  2      1.3e-7   6.0e-7     4.9e-8        633    9494
//! radau5  1      1.2e-7   4.2e-7     9.3e-8        719   10723
//! bdf     2      2.3e-7   7.6e-7     3.2e-8       2185    5728
//! bdf     1      2.8e-7   1.8e-6     1.1e-6       1731    2845
//! ```
//!
//! Flags (each takes a value; `--help` lists them with their defaults): `--method NAME`
//! (`rattle`, `radau5`, `bdf`, `backward-euler`), `--index 1|2|3` (the DAE's), `--rtol`
//! (radau5, bdf: the relative and absolute tolerance; rattle: the tolerance of its
//! constraint solve, `|x² + y² − 1| / 2 ≤ rtol`), `--dt` (rattle's and backward-euler's
//! step; radau5 and bdf pick their own), `--duration`
//! and `--every` (the time between rows).
//!
//! Output: the header `t,x,y,vx,vy,lambda,constraint_error,energy_error`, then a row at
//! t = 0 and every `--every`: `constraint_error` is `x² + y² − 1`, `energy_error` is
//! `E − E(0)` with `E = ½ (vx² + vy²) + g y`, `lambda` rattle's multiplier of the step's
//! velocity projection, or the DAE's `λ` (radau5's and bdf's read, as the whole row, from
//! the dense output).
//! On stderr: the period measured from the run's zero crossings of `x` against the exact
//! one and its relative error (rattle, backward-euler: each crossing found on the cubic Hermite
//! interpolant of `x` and `vx` over its step; radau5: by the adaptive driver's event
//! locator on the dense output), the largest constraint, velocity-constraint and energy
//! errors of the run (over every step, not only the rows), and for radau5 its statistics.

mod cli;
#[path = "problems/pendulum.rs"]
mod pendulum;

use cli::{Flag, Schedule, csv};
use glam::DVec2;
use pendulum::{G, Index};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::adaptive::{Adaptive, Event};
use timestep::control::{AdaptiveMethod, IntoAdaptive};
use timestep::{
    BackwardEuler, InPlace, Integrator, Particles, Rattle, Rod, Rods, Statistics, Stepper,
    Tolerances,
};

const PROGRAM: &str = "pendulum_dae";

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

/// A row: `state` is `(x, y, vx, vy, λ)`.
fn row(out: &mut impl Write, t: f64, state: &[f64; 5]) -> io::Result<()> {
    let [x, y, vx, vy, lambda] = *state;
    writeln!(
        out,
        "{},{},{},{},{},{},{},{}",
        csv(t),
        csv(x),
        csv(y),
        csv(vx),
        csv(vy),
        csv(lambda),
        csv(pendulum::constraint_error(state)),
        csv(pendulum::energy(state) - pendulum::energy(&pendulum::START))
    )
}

/// What the run measured, for stderr.
#[derive(Default)]
struct Summary {
    crossings: Vec<f64>,
    constraint: f64,
    velocity_constraint: f64,
    energy: f64,
    steps: usize,
}

impl Summary {
    /// Takes the errors of one step's end `state` into the largest ones.
    fn track(&mut self, state: &[f64; 5]) {
        let [x, y, vx, vy, _] = *state;
        self.constraint = self.constraint.max(pendulum::constraint_error(state).abs());
        self.velocity_constraint = self.velocity_constraint.max((x * vx + y * vy).abs());
        self.energy = self
            .energy
            .max((pendulum::energy(state) - pendulum::energy(&pendulum::START)).abs());
        self.steps += 1;
    }
}

/// The bob as `(x, y, vx, vy, λ)`.
fn bob_state(bob: &Particles<DVec2>, lambda: f64) -> [f64; 5] {
    let (q, v) = (bob.positions()[0], bob.velocities()[0]);
    [q.x, q.y, v.x, v.y, lambda]
}

/// The fixed steps of `schedule` from `start`: `advance(t, dt)` takes one and returns the
/// state `(x, y, vx, vy, λ)` at its end; rows to `out`, each step's crossing of `x = 0`
/// found on its cubic Hermite interpolant.
fn fixed_steps(
    start: [f64; 5],
    mut schedule: Schedule,
    out: &mut impl Write,
    mut advance: impl FnMut(f64, f64) -> Result<[f64; 5], String>,
) -> Result<Summary, String> {
    let mut summary = Summary::default();
    row(out, 0.0, &start).map_err(|error| error.to_string())?;
    let mut state = start;
    for i in 0..schedule.steps {
        let (t, end) = (schedule.time(i), schedule.time(i + 1));
        let before = (state[0], state[2]);
        state = advance(t, end - t).map_err(|error| format!("step at t = {t}: {error}"))?;
        if before.0 != 0.0 && before.0.signum() != state[0].signum() {
            summary
                .crossings
                .push(crossing(t, end - t, before, (state[0], state[2])));
        }
        summary.track(&state);
        if schedule.is_row(i + 1) {
            row(out, end, &state).map_err(|error| error.to_string())?;
        }
    }
    Ok(summary)
}

/// RATTLE from the horizontal for the `schedule`, rows to `out`.
fn rattle(tolerance: f64, schedule: Schedule, out: &mut impl Write) -> Result<Summary, String> {
    let gravity = InPlace(|_: &Particles<DVec2>, _t: f64, f: &mut Vec<DVec2>| {
        f[0] = DVec2::new(0.0, -G);
    });
    let [x, y, vx, vy, _] = pendulum::START;
    let mut bob = Particles::new(vec![1.0], vec![DVec2::new(x, y)], vec![DVec2::new(vx, vy)]);
    let mut method = Rattle::new(Rods::new(vec![Rod::anchored(0, DVec2::ZERO, 1.0)]))
        .try_with_tolerance(tolerance)
        .map_err(|error| error.to_string())?;
    fixed_steps(bob_state(&bob, 0.0), schedule, out, |t, dt| {
        method
            .step(&mut bob, &gravity, t, dt)
            .map_err(|error| error.to_string())?;
        Ok(bob_state(&bob, method.multipliers()[0]))
    })
}

/// Backward Euler on the DAE of `index` from the horizontal for the `schedule`, told which
/// unknowns are of index 2 and 3 as Radau5 is (`BackwardEuler::with_higher_index`), rows
/// to `out`.
fn backward_euler(
    index: Index,
    schedule: Schedule,
    out: &mut impl Write,
) -> Result<Summary, String> {
    let forces = pendulum::Pendulum(index);
    let start =
        pendulum::consistent_start(index).map_err(|error| format!("consistent start: {error}"))?;
    let (index2, index3) = pendulum::radau5(index).higher_index();
    let mut stepper = Stepper::new(BackwardEuler::new().with_higher_index(index2, index3));
    let mut state = start;
    fixed_steps(start, schedule, out, |t, dt| {
        stepper
            .step(&mut state, &forces, t, dt)
            .map_err(|error| error.to_string())?;
        Ok(state)
    })
}

/// `method` (Radau5 or the BDF) on the DAE of `index` from the horizontal, a row at each
/// of `times` (from 0 to the end) to `out`; the crossings of `x = 0` located as events.
fn dae<M: IntoAdaptive>(
    method: M,
    index: Index,
    rtol: f64,
    times: &[f64],
    out: &mut impl Write,
) -> Result<(Summary, Statistics), String>
where
    M::Method: AdaptiveMethod<[f64; 5]> + Clone,
{
    let forces = pendulum::Pendulum(index);
    let start =
        pendulum::consistent_start(index).map_err(|error| format!("consistent start: {error}"))?;
    let end = *times.last().ok_or("no output times")?;
    let mut summary = Summary::default();
    let mut solver = Adaptive::new(method)
        .with_tolerances(Tolerances::new(rtol, rtol))
        .with_max_steps(cli::MAX_STEPS as u64);
    let solution = solver
        .integrate(&forces, start, 0.0, end)
        .at(times)
        .events(Event::new(|state: &[f64; 5], _t: f64| state[0]))
        .observe(|step| summary.track(step.end()))
        .keep_dense(false)
        .solve()
        .map_err(|error| error.to_string())?;
    for (t, state) in solution.times.iter().zip(&solution.states) {
        row(out, *t, state).map_err(|error| error.to_string())?;
    }
    summary.crossings = solution.events.iter().map(|fired| fired.t).collect();
    Ok((summary, solution.statistics))
}

fn main() -> ExitCode {
    let flags = [
        Flag::new(
            "--method",
            "NAME",
            "rattle, radau5, bdf (index 1 or 2) or backward-euler (at --dt)",
            "rattle",
        ),
        Flag::new(
            "--index",
            "1|2|3",
            "the DAE's index for radau5, bdf and backward-euler (rattle holds position and velocity constraints)",
            3,
        ),
        Flag::new(
            "--rtol",
            "TOL",
            "the tolerance, > 0 (radau5, bdf: rtol = atol; rattle: of its constraint solve, |x^2 + y^2 - 1| / 2)",
            "1e-8",
        ),
        Flag::new(
            "--dt",
            "DT",
            "rattle's and backward-euler's time step, > 0",
            "1e-3",
        ),
        Flag::new("--duration", "T", "the end of the run, > 0", 10),
        Flag::new("--every", "T", "the time between rows, > 0", "0.01"),
    ];
    let mut method = String::from("rattle");
    let mut index = Index::Three;
    let (mut rtol, mut dt, mut duration, mut every) = (1e-8, 1e-3, 10.0, 0.01);
    for (flag, value) in cli::parse(
        PROGRAM,
        "the pendulum in Cartesian coordinates (a DAE of index 1, 2 or 3) from the horizontal, CSV t,x,y,vx,vy,lambda,constraint_error,energy_error",
        &flags,
    ) {
        match flag {
            "--method" => method = value,
            "--index" => {
                index = value
                    .parse()
                    .ok()
                    .and_then(Index::from_number)
                    .unwrap_or_else(|| {
                        cli::fail(PROGRAM, format!("--index must be 1, 2 or 3, got {value:?}"))
                    });
            }
            "--rtol" => rtol = cli::positive(PROGRAM, flag, &value),
            "--dt" => dt = cli::positive(PROGRAM, flag, &value),
            "--duration" => duration = cli::positive(PROGRAM, flag, &value),
            _ => every = cli::positive(PROGRAM, flag, &value),
        }
    }
    cli::known_method(
        PROGRAM,
        &method,
        &["rattle", "radau5", "bdf", "backward-euler"],
    );
    let bdf = pendulum::bdf(index);
    if method == "bdf" && bdf.is_none() {
        cli::fail(
            PROGRAM,
            "--method bdf solves index 1 and 2, not 3 (with variable steps the BDF need not converge at index 3); use --index 2 or --method radau5",
        );
    }
    let schedule = Schedule::new(PROGRAM, duration, dt, every, cli::MAX_STEPS);
    // Radau5's rows: the same schedule with a step of `every`.
    let rows = Schedule::new(PROGRAM, duration, every, every, cli::MAX_STEPS);

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "t,x,y,vx,vy,lambda,constraint_error,energy_error").is_err() {
        return ExitCode::FAILURE;
    }
    let (label, result) = if method == "rattle" {
        (
            format!("rattle, dt {dt:e}"),
            rattle(rtol, schedule, &mut out).map(|summary| (summary, None)),
        )
    } else if method == "backward-euler" {
        (
            format!("backward-euler index {}, dt {dt:e}", index.number()),
            backward_euler(index, schedule, &mut out).map(|summary| (summary, None)),
        )
    } else {
        let times: Vec<f64> = (0..=rows.steps).map(|i| rows.time(i)).collect();
        let result = if let (true, Some(bdf)) = (method == "bdf", bdf) {
            dae(bdf, index, rtol, &times, &mut out)
        } else {
            dae(pendulum::radau5(index), index, rtol, &times, &mut out)
        };
        (
            format!("{method} index {}, rtol {rtol:e}", index.number()),
            result.map(|(summary, statistics)| (summary, Some(statistics))),
        )
    };
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    let (summary, statistics) = match result {
        Ok(measured) => measured,
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            return ExitCode::FAILURE;
        }
    };
    let exact = pendulum::exact_period();
    // Crossings 0, 2, 4, … are in the same direction: whole periods apart.
    let periods = (summary.crossings.len().saturating_sub(1)) / 2;
    if periods > 0 {
        let period = (summary.crossings[2 * periods] - summary.crossings[0]) / periods as f64;
        eprintln!(
            "{label}: period {period:.9} s over {periods} periods, exact {exact:.9} s, relative error {:.2e}",
            (period - exact).abs() / exact
        );
    } else {
        eprintln!("{label}: the run is too short for a period (exact {exact:.9} s)");
    }
    eprintln!(
        "{} steps: max |x^2 + y^2 - 1| = {:.2e}, max |x vx + y vy| = {:.2e}, max |energy error| = {:.2e}",
        summary.steps, summary.constraint, summary.velocity_constraint, summary.energy
    );
    if let Some(statistics) = statistics {
        eprintln!("{}", cli::stiff_statistics(&statistics));
    }
    ExitCode::SUCCESS
}
