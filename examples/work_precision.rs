//! Work against precision, as SciMLBenchmarks draws it: every explicit method at a ladder of
//! fixed steps and every embedded pair under error control at tolerances 10⁻³ … 10⁻¹⁴, on
//! three problems, each run's final error against the cost it took.
//!
//! - `arenstorf`: the Arenstorf orbit over one period (Hairer–Nørsett–Wanner I, II.0),
//!   `y = (x, y, vx, vy)`, its velocity-dependent forces on a first-order system.
//! - `kepler`: Kepler's problem, `GM = 1`, eccentricity 0.9, from perihelion over ten
//!   periods (2π each), as a `Particle<DVec2>` so that the symplectic methods keep their
//!   orders.
//! - `lorenz`: the Lorenz system (σ = 10, ρ = 28, β = 8/3) from (1, 0, 0) to t = 10.
//!
//! The error is the Euclidean norm of the difference between the end state (positions
//! and velocities) and the reference end state of `examples/problems/mod.rs` (a Taylor
//! series integration in 50-digit decimals, exact to about 10⁻²² before rounding to `f64`).
//!
//! ```text
//! cargo run --release --example work_precision
//! cargo run --release --example work_precision -- --problems lorenz --methods rk4,dopri5
//! cargo run --release --example work_precision -- --svg docs/work_precision.svg
//! ```
//!
//! Output: the header `problem,method,setting,error,evaluations,seconds`, then a row per
//! run. `setting` is the step `dt` of a fixed-step method, or the tolerance
//! (`rtol = atol`, 10⁻³ … 10⁻¹⁴) of an embedded pair (`dopri5`, `tsit5`, `bs3`, `dop853`,
//! `vern6` … `vern9`, and on `kepler` alone the Nyström pairs `dprkn6` and `dprkn12`);
//! `evaluations` counts force evaluations; `seconds` is the best wall time of `--repeats` runs (one, for a run
//! longer than a quarter of a second). A fixed-step ladder starts at 500 steps (arenstorf
//! and lorenz) or 1000 (kepler) and doubles while a run needs at most `--budget` force
//! evaluations; a tolerance that needs more is skipped, with a line on stderr. Implicit
//! methods are not run. With `--svg PATH`, the rows are drawn there too: one panel per
//! problem, log₁₀ error across, log₁₀ force evaluations (upper row) and seconds (lower
//! row) up, one line per method (errors above 10 are left out of the drawing).

mod cli;
mod problems;

use cli::{Flag, csv};
use glam::DVec2;
use plotters::prelude::*;
use std::cell::Cell;
use std::io::{self, Write};
use std::process::ExitCode;
use std::time::Instant;
use timestep::{Adaptive, AdaptiveError, AdaptiveKind, Statistics, Tolerances};
use timestep::{Forces, Integrator, Method, MethodKind, Particle, Scheme, State};

const PROGRAM: &str = "work_precision";
const PROBLEMS: [&str; 3] = ["arenstorf", "kepler", "lorenz"];

/// The embedded pairs run under error control (by name, [`AdaptiveKind`]); the stiff
/// methods with error control are not for these non-stiff problems.
const ADAPTIVE: &[&str] = &[
    "dopri5", "tsit5", "bs3", "dop853", "vern6", "vern7", "vern8", "vern9", "dprkn6", "dprkn12",
];

/// Integrates `state` from 0 to `end` with the method named `name` under error control at
/// `rtol = atol = tolerance`, taking at most `max_steps` steps.
fn solve_adaptive<S: State<Scalar = f64>, F: Forces<S>>(
    name: &str,
    tolerance: f64,
    max_steps: u64,
    state: &mut S,
    forces: &F,
    end: f64,
) -> Result<Statistics, AdaptiveError> {
    let method: AdaptiveKind = name.parse().expect("a method with error control");
    Adaptive::new(method)
        .with_tolerances(Tolerances::new(tolerance, tolerance))
        .with_max_steps(max_steps)
        .solve(state, forces, 0.0, end)
}

/// The tolerances of the embedded pairs: 10⁻³ … 10⁻¹⁴. (At 10⁻¹² none of them is yet
/// within 10⁻¹⁰ on any of the three problems: the end error is a hundred to a hundred
/// thousand times the tolerance.)
const TOLERANCES: [f64; 12] = [
    1e-3, 1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10, 1e-11, 1e-12, 1e-13, 1e-14,
];

/// The explicit methods run at fixed steps: every [`MethodKind`] that is not implicit and
/// not an embedded pair (those run under error control).
fn fixed_methods() -> Vec<&'static str> {
    MethodKind::all()
        .iter()
        .filter(|m| !m.properties().implicit && !ADAPTIVE.contains(&m.name()))
        .map(|m| m.name())
        .collect()
}

/// A problem: a start, its forces, how long, and where the exact solution ends.
struct Problem<S, F> {
    name: &'static str,
    start: S,
    forces: F,
    end: f64,
    reference: &'static [f64],
    /// The state as the reference lists it.
    coordinates: fn(&S) -> Vec<f64>,
    /// The fewest steps of the fixed-step ladder.
    first_steps: u64,
    /// Positions and velocities with forces of the positions: the Nyström pairs apply.
    second_order: bool,
}

/// One run, as a CSV row.
struct Row {
    problem: &'static str,
    method: &'static str,
    setting: f64,
    error: f64,
    evaluations: u64,
    seconds: f64,
}

/// What the command line asks for.
struct Settings {
    methods: Vec<&'static str>,
    budget: u64,
    repeats: u64,
}

/// Runs `run` up to `repeats` times (once if it takes over a quarter of a second) and
/// returns its result and the shortest wall time.
fn best_of<T>(repeats: u64, mut run: impl FnMut() -> T) -> (T, f64) {
    let mut best = f64::INFINITY;
    let mut result = None;
    for _ in 0..repeats.max(1) {
        let start = Instant::now();
        let value = run();
        best = best.min(start.elapsed().as_secs_f64());
        result = Some(value);
        if best > 0.25 {
            break;
        }
    }
    (result.expect("at least one run"), best)
}

/// Every run of every method asked for on `problem`, written to `out` as it is made.
fn study<S, F>(
    problem: &Problem<S, F>,
    settings: &Settings,
    out: &mut impl Write,
    rows: &mut Vec<Row>,
) -> io::Result<()>
where
    S: State<Scalar = f64>,
    F: Forces<S>,
{
    let evaluations = Cell::new(0_u64);
    // The forces, counted: the count is an increment off the arithmetic's critical path.
    let counted = |state: &S, t: f64| {
        evaluations.set(evaluations.get() + 1);
        problem.forces.force(state, t)
    };
    let error = |state: &S| problems::distance(&(problem.coordinates)(state), problem.reference);
    for &name in &settings.methods {
        let mut row = |setting: f64, end: Option<S>, seconds: f64| {
            let Some(end) = end else {
                eprintln!(
                    "{PROGRAM}: {} {name} at {setting:e}: skipped, more than {} evaluations",
                    problem.name, settings.budget
                );
                return Ok(());
            };
            let row = Row {
                problem: problem.name,
                method: name,
                setting,
                error: error(&end),
                evaluations: evaluations.get(),
                seconds,
            };
            writeln!(
                out,
                "{},{},{},{},{},{}",
                row.problem,
                row.method,
                csv(row.setting),
                csv(row.error),
                row.evaluations,
                csv(row.seconds)
            )?;
            rows.push(row);
            Ok::<(), io::Error>(())
        };
        let nystrom = name
            .parse::<AdaptiveKind>()
            .is_ok_and(|kind| kind.needs_second_order());
        if nystrom && !problem.second_order {
            continue;
        }
        if ADAPTIVE.contains(&name) {
            for tolerance in TOLERANCES {
                let (end, seconds) = best_of(settings.repeats, || {
                    evaluations.set(0);
                    let mut state = problem.start.clone();
                    let max_steps = settings.budget / 3; // bs3's evaluations per step
                    solve_adaptive(
                        name,
                        tolerance,
                        max_steps,
                        &mut state,
                        &counted,
                        problem.end,
                    )
                    .ok()
                    .filter(|_| evaluations.get() <= settings.budget)
                    .map(|_| state)
                });
                row(tolerance, end, seconds)?;
            }
        } else {
            let mut method: Method<S> = name.parse().expect("a method's name");
            let per_step = u64::from(method.method().properties().evaluations);
            let mut steps = problem.first_steps;
            while steps * per_step <= settings.budget {
                let dt = problem.end / steps as f64;
                let (end, seconds) = best_of(settings.repeats, || {
                    evaluations.set(0);
                    let mut state = problem.start.clone();
                    for i in 0..steps {
                        method
                            .step(&mut state, &counted, i as f64 * dt, dt)
                            .expect("an explicit step at a finite time");
                    }
                    state
                });
                row(dt, Some(end), seconds)?;
                steps *= 2;
            }
        }
    }
    out.flush()
}

fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    let r = p.position();
    -r / r.length().powi(3)
}

/// The comma-separated `list`, each checked against `known`, or exit 2 naming `flag`.
fn names(flag: &str, list: &str, known: &[&'static str]) -> Vec<&'static str> {
    list.split(',')
        .map(|name| {
            known
                .iter()
                .find(|k| **k == name.trim())
                .copied()
                .unwrap_or_else(|| {
                    let implicit = name
                        .parse::<MethodKind>()
                        .is_ok_and(|m| m.properties().implicit);
                    let why = if implicit {
                        "implicit, not run here"
                    } else {
                        "unknown"
                    };
                    cli::fail(
                        PROGRAM,
                        format!("{flag}: {name:?} is {why} (known: {})", known.join(",")),
                    )
                })
        })
        .collect()
}

fn main() -> ExitCode {
    let mut all_methods = fixed_methods();
    all_methods.extend_from_slice(ADAPTIVE);
    let flags = [
        Flag::new(
            "--problems",
            "LIST",
            "comma-separated problems",
            PROBLEMS.join(","),
        ),
        Flag::new(
            "--methods",
            "LIST",
            "comma-separated methods (explicit fixed-step ones and embedded pairs)",
            "all",
        ),
        Flag::new(
            "--budget",
            "N",
            "the most force evaluations of one run, >= 1000",
            5_000_000,
        ),
        Flag::new(
            "--repeats",
            "N",
            "runs timed per setting (the best kept), >= 1",
            3,
        ),
        Flag::new(
            "--svg",
            "PATH",
            "also draw the rows into this SVG file",
            "none",
        ),
    ];
    let about = format!(
        "final error against force evaluations and seconds for every explicit method and \
         embedded pair on the Arenstorf orbit, Kepler (e = 0.9) and Lorenz; CSV \
         problem,method,setting,error,evaluations,seconds; methods: {}",
        all_methods.join(",")
    );
    let mut chosen = PROBLEMS.to_vec();
    let mut settings = Settings {
        methods: all_methods.clone(),
        budget: 5_000_000,
        repeats: 3,
    };
    let mut svg = None;
    for (flag, value) in cli::parse(PROGRAM, &about, &flags) {
        match flag {
            "--problems" => chosen = names(flag, &value, &PROBLEMS),
            "--methods" if value == "all" => settings.methods = all_methods.clone(),
            "--methods" => settings.methods = names(flag, &value, &all_methods),
            "--budget" => settings.budget = cli::whole(PROGRAM, flag, &value, 1000),
            "--repeats" => settings.repeats = cli::whole(PROGRAM, flag, &value, 1),
            _ => svg = Some(value),
        }
    }

    let mut out = io::BufWriter::new(io::stdout().lock());
    let mut rows = Vec::new();
    let mut run = || -> io::Result<()> {
        writeln!(out, "problem,method,setting,error,evaluations,seconds")?;
        for name in &chosen {
            match *name {
                "arenstorf" => study(
                    &Problem {
                        name: "arenstorf",
                        start: problems::ARENSTORF_START,
                        forces: problems::arenstorf,
                        end: problems::ARENSTORF_END,
                        reference: &problems::ARENSTORF_REFERENCE,
                        coordinates: |y| y.to_vec(),
                        first_steps: 500,
                        second_order: false,
                    },
                    &settings,
                    &mut out,
                    &mut rows,
                )?,
                "kepler" => {
                    let [x, y, vx, vy] = problems::kepler_start();
                    study(
                        &Problem {
                            name: "kepler",
                            start: Particle::new(1.0, DVec2::new(x, y), DVec2::new(vx, vy)),
                            forces: gravity,
                            end: problems::KEPLER_END,
                            reference: &problems::KEPLER_REFERENCE,
                            coordinates: |p| {
                                let (x, v) = (p.position(), p.velocity());
                                vec![x.x, x.y, v.x, v.y]
                            },
                            first_steps: 1000,
                            second_order: true,
                        },
                        &settings,
                        &mut out,
                        &mut rows,
                    )?
                }
                _ => study(
                    &Problem {
                        name: "lorenz",
                        start: problems::LORENZ_START,
                        forces: problems::lorenz,
                        end: problems::LORENZ_END,
                        reference: &problems::LORENZ_REFERENCE,
                        coordinates: |y| y.to_vec(),
                        first_steps: 500,
                        second_order: false,
                    },
                    &settings,
                    &mut out,
                    &mut rows,
                )?,
            }
        }
        Ok(())
    };
    if run().is_err() {
        return ExitCode::SUCCESS; // stdout closed (e.g. `| head`)
    }
    if let Some(path) = svg {
        if let Err(error) = draw(&path, &chosen, &settings.methods, &rows) {
            eprintln!("{PROGRAM}: {path}: {error}");
            return ExitCode::FAILURE;
        }
    }
    ExitCode::SUCCESS
}

/// matplotlib's tab20.
const FIXED_COLORS: [RGBColor; 20] = [
    RGBColor(31, 119, 180),
    RGBColor(174, 199, 232),
    RGBColor(255, 127, 14),
    RGBColor(255, 187, 120),
    RGBColor(44, 160, 44),
    RGBColor(152, 223, 138),
    RGBColor(214, 39, 40),
    RGBColor(255, 152, 150),
    RGBColor(148, 103, 189),
    RGBColor(197, 176, 213),
    RGBColor(140, 86, 75),
    RGBColor(196, 156, 148),
    RGBColor(227, 119, 194),
    RGBColor(247, 182, 210),
    RGBColor(127, 127, 127),
    RGBColor(199, 199, 199),
    RGBColor(188, 189, 34),
    RGBColor(219, 219, 141),
    RGBColor(23, 190, 207),
    RGBColor(158, 218, 229),
];
/// Black, navy, dark red, dark green, dark purple, dark orange, teal, dark grey, olive,
/// dark pink.
const ADAPTIVE_COLORS: [RGBColor; 10] = [
    RGBColor(0, 0, 0),
    RGBColor(0, 0, 150),
    RGBColor(150, 0, 0),
    RGBColor(0, 110, 0),
    RGBColor(90, 0, 120),
    RGBColor(170, 85, 0),
    RGBColor(0, 120, 120),
    RGBColor(100, 100, 100),
    RGBColor(110, 110, 0),
    RGBColor(170, 0, 100),
];

/// Draws `rows` into an SVG at `path`: a column per problem, log₁₀ error across, log₁₀
/// evaluations (upper row) and seconds (lower row) up, a line per method, and the legend on
/// the right. The embedded pairs are thick lines with dots.
fn draw(
    path: &str,
    problems: &[&str],
    methods: &[&str],
    rows: &[Row],
) -> Result<(), Box<dyn std::error::Error>> {
    let root = SVGBackend::new(path, (1500, 900)).into_drawing_area();
    root.fill(&WHITE)?;
    let root = root.titled(
        "Work against precision: final error against force evaluations (top) and seconds (bottom)",
        ("sans-serif", 18),
    )?;
    let (charts, legend) = root.split_horizontally(1290);
    // The fixed-step methods in matplotlib's tab20 colours, the pairs in dark ones.
    let color = |method: &str| {
        let (list, colors) = if ADAPTIVE.contains(&method) {
            (ADAPTIVE.to_vec(), &ADAPTIVE_COLORS[..])
        } else {
            (fixed_methods(), &FIXED_COLORS[..])
        };
        let i = list.iter().position(|m| *m == method).unwrap_or(0);
        colors[i % colors.len()]
    };
    let areas = charts.split_evenly((2, problems.len()));
    for (cell, area) in areas.iter().enumerate() {
        let (measure, problem) = (cell / problems.len(), problems[cell % problems.len()]);
        let value = |row: &Row| {
            if measure == 0 {
                row.evaluations as f64
            } else {
                row.seconds
            }
        };
        let shown = |row: &&Row| {
            row.problem == problem && row.error.is_finite() && row.error <= 10.0 && row.error > 0.0
        };
        let points = |method: &str| -> Vec<(f64, f64)> {
            rows.iter()
                .filter(shown)
                .filter(|row| row.method == method)
                .map(|row| (row.error.log10(), value(row).max(1e-9).log10()))
                .collect()
        };
        let all: Vec<(f64, f64)> = methods.iter().flat_map(|m| points(m)).collect();
        let (x0, x1) = all
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.0), b.max(p.0))
            });
        let (y0, y1) = all
            .iter()
            .fold((f64::INFINITY, f64::NEG_INFINITY), |(a, b), p| {
                (a.min(p.1), b.max(p.1))
            });
        if all.is_empty() {
            continue;
        }
        let mut chart = ChartBuilder::on(area)
            .caption(problem, ("sans-serif", 16))
            .margin(10)
            .x_label_area_size(36)
            .y_label_area_size(56)
            .build_cartesian_2d(x0.floor()..x1.ceil(), y0.floor()..y1.ceil())?;
        chart
            .configure_mesh()
            .x_desc("log10 error")
            .y_desc(if measure == 0 {
                "log10 force evaluations"
            } else {
                "log10 seconds"
            })
            .label_style(("sans-serif", 12))
            .axis_desc_style(("sans-serif", 13))
            .light_line_style(BLACK.mix(0.05))
            .draw()?;
        for method in methods {
            let (points, color) = (points(method), color(method));
            if ADAPTIVE.contains(method) {
                chart.draw_series(LineSeries::new(points.clone(), color.stroke_width(3)))?;
                chart.draw_series(points.iter().map(|&p| Circle::new(p, 3, color.filled())))?;
            } else {
                chart.draw_series(LineSeries::new(points, color.stroke_width(2)))?;
            }
        }
    }
    for (i, method) in methods.iter().enumerate() {
        let y = 60 + 24 * i as i32;
        let width = if ADAPTIVE.contains(method) { 3 } else { 2 };
        legend.draw(&PathElement::new(
            vec![(8, y), (38, y)],
            color(method).stroke_width(width),
        ))?;
        let label = if ADAPTIVE.contains(method) {
            format!("{method} (adaptive)")
        } else {
            method.to_string()
        };
        legend.draw(&Text::new(label, (46, y - 7), ("sans-serif", 13)))?;
    }
    root.present()?;
    Ok(())
}
