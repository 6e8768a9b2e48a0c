//! The second article's graphs, redrawn from this crate's integrators as SVG files.
//!
//! - `spring_damper_explicit_euler.svg`: a 1 kg mass on a spring (k = 15 N/m) with a
//!   damper (b = 0.1 N·s/m), released at 1000 m, stepped at dt = 1/100 s. The exact motion
//!   dies away; explicit Euler's grows.
//! - `spring_damper_semi_implicit_euler.svg`: the same with semi-implicit Euler, which
//!   tracks the exact motion (the lower panel shows how closely).
//! - `oscillator_dt_0.1.svg`, `oscillator_dt_0.25.svg`: the same spring without the damper,
//!   run for 90 s at dt = 0.1 s and 0.25 s. The upper panel zooms on the last 10 s, where
//!   semi-implicit Euler has drifted out of phase while RK4 stays (nearly) in phase; the
//!   lower panel shows the energy, which RK4 steadily loses while semi-implicit Euler's
//!   swings within a fixed band around the start, with no trend. (The
//!   article does not give the oscillator's constants; these are the spring-damper's with
//!   b = 0.)
//!
//! - `free_rigid_body_energy.svg`: a torque-free body with `I = diag(1, 2, 3)`, spun at
//!   `ω₀ = (0.001, 2, 0.001)` rad/s, almost exactly about its intermediate axis, so that it
//!   turns over every 15 s; 60 Hz for 60 s. The upper panel shows the kinetic energy over
//!   its initial value (semi-implicit Euler gains 83 %; the others stay on 1), the lower
//!   one the relative error `|E/E₀ − 1|` on a log scale: midpoint's and RK4's ratchet up
//!   at every flip and keep what they gained, while the splitting method's rises to
//!   7.7·10⁻⁶ during each flip and falls back to rounding error in between: bounded.
//!
//! Run with `cargo run --example figures [-- --out DIR]`; files go to `docs/` by default.
//! The numbers the figures show (energy ratios, phase lags) are printed on stderr.
//!
//! Each figure is one function returning a [`Figure`]: simulate, collect the series, say
//! what they show. Adding one is one more such function and one more line in [`FIGURES`].

mod cli;

use plotters::coord::Shift;
use plotters::prelude::*;
use std::error::Error;
use std::path::{Path, PathBuf};
use timestep::analytic::DampedOscillator;
use timestep::rigid::{DRigidBody, Inertia, Splitting};
use timestep::{ExplicitEuler, Integrator, Midpoint, Particle, Rk4, SemiImplicitEuler, Trajectory};

/// Errors of any kind, as `main` reports them.
type Result<T> = std::result::Result<T, Box<dyn Error>>;
/// `(x, y)` points of a line.
type Points = Vec<(f64, f64)>;
/// `(t, state)`, as a [`Trajectory`] yields it.
type Sample = (f64, Particle<f64>);

/// Every figure, by the function that makes it.
const FIGURES: &[fn() -> Result<Figure>] = &[
    spring_damper_explicit_euler,
    spring_damper_semi_implicit_euler,
    oscillator_dt_0_1,
    oscillator_dt_0_25,
    free_rigid_body_energy,
];

// The article's colours: the exact solution, explicit Euler, semi-implicit Euler (orange)
// and RK4 (green).
const EXACT: RGBColor = RGBColor(40, 40, 40);
const EXPLICIT_EULER: RGBColor = RGBColor(214, 39, 40);
const SEMI_IMPLICIT_EULER: RGBColor = RGBColor(255, 127, 14);
const RK4: RGBColor = RGBColor(44, 160, 44);
// Methods the articles do not draw: midpoint (purple) and the rigid-body splitting (blue).
const MIDPOINT: RGBColor = RGBColor(148, 103, 189);
const SPLITTING: RGBColor = RGBColor(31, 119, 180);

const MASS: f64 = 1.0;
const STIFFNESS: f64 = 15.0;
const DAMPING: f64 = 0.1;
const X0: f64 = 1000.0;

/// One SVG file: a title and panels stacked top to bottom, sharing nothing but the width.
struct Figure {
    file: &'static str,
    title: String,
    panels: Vec<Panel>,
    /// What the figure shows, in numbers, printed when it is written.
    findings: Vec<String>,
}

/// One chart: lines over a common x axis.
struct Panel {
    y_label: &'static str,
    x_label: &'static str,
    series: Vec<Series>,
}

/// One line.
struct Series {
    label: String,
    color: RGBColor,
    points: Vec<(f64, f64)>,
}

impl Series {
    fn new(label: impl Into<String>, color: RGBColor, points: Vec<(f64, f64)>) -> Self {
        Series {
            label: label.into(),
            color,
            points,
        }
    }

    /// The points with `from <= x <= to`.
    fn window(&self, from: f64, to: f64) -> Series {
        let points = self
            .points
            .iter()
            .copied()
            .filter(|&(x, _)| (from..=to).contains(&x))
            .collect();
        Series::new(self.label.clone(), self.color, points)
    }
}

/// A mass on the article's spring (and damper, if `damping > 0`).
fn spring(damping: f64) -> impl Fn(&Particle<f64>, f64) -> f64 {
    move |p: &Particle<f64>, _t: f64| -STIFFNESS * p.position() - damping * p.velocity()
}

/// Runs `integrator` from the article's start for `duration` seconds at `dt`: every
/// sample `(t, state)`, one per step and the start.
fn run<I: Integrator<Particle<f64>>>(
    integrator: I,
    damping: f64,
    duration: f64,
    dt: f64,
) -> Result<Vec<Sample>> {
    let forces = spring(damping);
    let start = Particle::new(MASS, X0, 0.0);
    Ok(
        Trajectory::new(integrator, start, &forces, 0.0, duration, dt)?
            .collect::<std::result::Result<_, _>>()?,
    )
}

/// The `(t, position)` and `(t, energy / initial energy)` series of a run.
fn series(samples: &[Sample]) -> (Points, Points) {
    let energy = |p: &Particle<f64>| p.kinetic_energy() + 0.5 * STIFFNESS * p.position().powi(2);
    let e0 = energy(&samples[0].1);
    samples
        .iter()
        .map(|(t, p)| ((*t, p.position()), (*t, energy(p) / e0)))
        .unzip()
}

/// [`run`], then [`series`].
fn simulate<I: Integrator<Particle<f64>>>(
    integrator: I,
    damping: f64,
    duration: f64,
    dt: f64,
) -> Result<(Points, Points)> {
    Ok(series(&run(integrator, damping, duration, dt)?))
}

/// The exact motion sampled every `dt`, as `(t, position)` and `(t, energy / E₀)`.
fn exact(damping: f64, duration: f64, dt: f64) -> (Points, Points) {
    let solution = DampedOscillator::new(MASS, STIFFNESS, damping, X0, 0.0);
    let e0 = solution.energy(X0, 0.0);
    let n = (duration / dt).round() as usize;
    (0..=n)
        .map(|i| {
            let t = i as f64 * dt;
            let (x, v) = (solution.position(t), solution.velocity(t));
            ((t, x), (t, solution.energy(x, v) / e0))
        })
        .unzip()
}

/// The last value of a series.
fn last(points: &[(f64, f64)]) -> f64 {
    points.last().map_or(f64::NAN, |&(_, y)| y)
}

/// The phase φ of an undamped oscillation, `atan2(−v/ω, x)`, followed continuously from
/// `t = 0` through every sample (each step turns it by less than half a turn), minus the
/// exact phase `ω t`: how far ahead (+) or behind (−) the numerical motion is, in radians.
fn phase_drift(samples: &[Sample]) -> f64 {
    let omega = (STIFFNESS / MASS).sqrt();
    let angle = |p: &Particle<f64>| (-p.velocity() / omega).atan2(p.position());
    let mut phase = 0.0;
    let mut previous = angle(&samples[0].1);
    for (_, p) in &samples[1..] {
        let current = angle(p);
        let mut turn = current - previous;
        // atan2 jumps by 2π where the angle wraps; the true turn is the short way.
        turn -= std::f64::consts::TAU * (turn / std::f64::consts::TAU).round();
        phase += turn;
        previous = current;
    }
    let (t_end, _) = samples[samples.len() - 1];
    // x = A cos φ and v = −Aω sin φ, so atan2(−v/ω, x) is φ itself.
    phase - omega * t_end
}

/// Explicit Euler on the spring-damper: the exact motion decays, explicit Euler's grows.
fn spring_damper_explicit_euler() -> Result<Figure> {
    let (duration, dt) = (30.0, 0.01);
    let (exact_x, exact_e) = exact(DAMPING, duration, dt);
    let (euler_x, euler_e) = simulate(ExplicitEuler, DAMPING, duration, dt)?;
    let findings = vec![format!(
        "after {duration} s: energy / E0 = {:.3} exact, {:.3} explicit Euler",
        last(&exact_e),
        last(&euler_e)
    )];
    Ok(Figure {
        file: "spring_damper_explicit_euler.svg",
        title:
            "Spring-damper (k = 15, b = 0.1, x0 = 1000), dt = 1/100: explicit Euler gains energy"
                .into(),
        panels: vec![
            Panel {
                y_label: "position (m)",
                x_label: "t (s)",
                series: vec![
                    Series::new("exact", EXACT, exact_x),
                    Series::new("explicit Euler", EXPLICIT_EULER, euler_x),
                ],
            },
            Panel {
                y_label: "energy / initial energy",
                x_label: "t (s)",
                series: vec![
                    Series::new("exact", EXACT, exact_e),
                    Series::new("explicit Euler", EXPLICIT_EULER, euler_e),
                ],
            },
        ],
        findings,
    })
}

/// Semi-implicit Euler on the spring-damper: on top of the exact motion.
fn spring_damper_semi_implicit_euler() -> Result<Figure> {
    let (duration, dt) = (30.0, 0.01);
    let (exact_x, exact_e) = exact(DAMPING, duration, dt);
    let (euler_x, euler_e) = simulate(SemiImplicitEuler, DAMPING, duration, dt)?;
    let difference: Vec<(f64, f64)> = euler_x
        .iter()
        .zip(&exact_x)
        .map(|(&(t, x), &(_, exact))| (t, x - exact))
        .collect();
    let largest = difference.iter().fold(0.0_f64, |m, &(_, d)| m.max(d.abs()));
    let findings = vec![
        format!(
            "after {duration} s: energy / E0 = {:.4} exact, {:.4} semi-implicit Euler",
            last(&exact_e),
            last(&euler_e)
        ),
        format!(
            "largest |x - exact| over {duration} s: {largest:.2} m ({:.2}% of x0)",
            100.0 * largest / X0
        ),
    ];
    Ok(Figure {
        file: "spring_damper_semi_implicit_euler.svg",
        title: "Spring-damper (k = 15, b = 0.1, x0 = 1000), dt = 1/100: semi-implicit Euler tracks the exact motion"
            .into(),
        panels: vec![
            Panel {
                y_label: "position (m)",
                x_label: "t (s)",
                series: vec![
                    Series::new("exact", EXACT, exact_x),
                    Series::new("semi-implicit Euler", SEMI_IMPLICIT_EULER, euler_x),
                ],
            },
            Panel {
                y_label: "semi-implicit Euler - exact (m)",
                x_label: "t (s)",
                series: vec![Series::new(
                    "semi-implicit Euler - exact",
                    SEMI_IMPLICIT_EULER,
                    difference,
                )],
            },
        ],
        findings,
    })
}

/// RK4 against semi-implicit Euler on the undamped oscillator over 90 s at `dt`.
fn oscillator(file: &'static str, dt: f64) -> Result<Figure> {
    let duration = 90.0;
    let zoom = duration - 10.0;
    let (exact_x, exact_e) = exact(0.0, duration, 0.01);
    let euler = run(SemiImplicitEuler, 0.0, duration, dt)?;
    let rk4 = run(Rk4, 0.0, duration, dt)?;
    let ((euler_x, euler_e), (rk4_x, rk4_e)) = (series(&euler), series(&rk4));
    let (euler_min, euler_max) = euler_e
        .iter()
        .fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), &(_, e)| {
            (lo.min(e), hi.max(e))
        });
    let findings = vec![
        format!(
            "after {duration} s: energy / E0 = {:.4} RK4; semi-implicit Euler stays between {euler_min:.4} and {euler_max:.4} (last {:.4})",
            last(&rk4_e),
            last(&euler_e)
        ),
        format!(
            "phase drift after {duration} s: RK4 {:+.3} rad, semi-implicit Euler {:+.3} rad ({:+.2} periods)",
            phase_drift(&rk4),
            phase_drift(&euler),
            phase_drift(&euler) / std::f64::consts::TAU
        ),
    ];
    let window = |s: Series| s.window(zoom, duration);
    Ok(Figure {
        file,
        title: format!(
            "Oscillator (k = 15, x0 = 1000), dt = {dt}, 90 s: RK4 loses energy, semi-implicit Euler drifts in phase"
        ),
        panels: vec![
            Panel {
                y_label: "position (m), last 10 s",
                x_label: "t (s)",
                series: vec![
                    window(Series::new("exact", EXACT, exact_x.clone())),
                    window(Series::new(
                        "semi-implicit Euler",
                        SEMI_IMPLICIT_EULER,
                        euler_x,
                    )),
                    window(Series::new("RK4", RK4, rk4_x)),
                ],
            },
            Panel {
                y_label: "energy / initial energy",
                x_label: "t (s)",
                series: vec![
                    Series::new("exact", EXACT, exact_e),
                    Series::new("semi-implicit Euler", SEMI_IMPLICIT_EULER, euler_e),
                    Series::new("RK4", RK4, rk4_e),
                ],
            },
        ],
        findings,
    })
}

fn oscillator_dt_0_1() -> Result<Figure> {
    oscillator("oscillator_dt_0.1.svg", 0.1)
}

fn oscillator_dt_0_25() -> Result<Figure> {
    oscillator("oscillator_dt_0.25.svg", 0.25)
}

/// The relative error of the kinetic energy `E/E₀ − 1` of a torque-free body with
/// `I = diag(1, 2, 3)`, spun at `ω₀ = (0.001, 2, 0.001)`, at every step of `integrator` at
/// 60 Hz for 60 s.
fn free_body_energy_error<I: Integrator<DRigidBody>>(integrator: I) -> Result<Points> {
    let free = |_: &DRigidBody, _t: f64| (glam::DVec3::ZERO, glam::DVec3::ZERO);
    let mut body = DRigidBody::new(1.0, Inertia::diagonal(1.0, 2.0, 3.0));
    body.set_angular_velocity(glam::DVec3::new(0.001, 2.0, 0.001));
    let e0 = body.kinetic_energy();
    Trajectory::new(integrator, body, &free, 0.0, 60.0, 1.0 / 60.0)?
        .map(|sample| {
            let (t, body) = sample?;
            Ok((t, body.kinetic_energy() / e0 - 1.0))
        })
        .collect()
}

/// The free rigid body's energy by method: semi-implicit Euler gains 83 %, midpoint and
/// RK4 drift slowly, the splitting method's error stays bounded.
fn free_rigid_body_energy() -> Result<Figure> {
    let runs = [
        ("splitting", SPLITTING, free_body_energy_error(Splitting)?),
        ("midpoint", MIDPOINT, free_body_energy_error(Midpoint)?),
        ("RK4", RK4, free_body_energy_error(Rk4)?),
        (
            "semi-implicit Euler",
            SEMI_IMPLICIT_EULER,
            free_body_energy_error(SemiImplicitEuler)?,
        ),
    ];
    let largest = |errors: &Points| errors.iter().fold(0.0_f64, |m, &(_, e)| m.max(e.abs()));
    let findings = runs
        .iter()
        .map(|(name, _, errors)| {
            format!(
                "{name}: largest |E/E0 - 1| over 60 s {:.2e}, at the end {:+.2e}",
                largest(errors),
                last(errors)
            )
        })
        .collect();
    let ratio = runs
        .iter()
        .map(|(name, color, errors)| {
            let points = errors.iter().map(|&(t, e)| (t, 1.0 + e)).collect();
            Series::new(*name, *color, points)
        })
        .collect();
    // log₁₀ |E/E₀ − 1|, leaving out t = 0, where it is exactly 0.
    let log_error = runs
        .iter()
        .map(|(name, color, errors)| {
            let points = errors
                .iter()
                .filter(|&&(_, e)| e != 0.0)
                .map(|&(t, e)| (t, e.abs().log10()))
                .collect();
            Series::new(*name, *color, points)
        })
        .collect();
    Ok(Figure {
        file: "free_rigid_body_energy.svg",
        title: "Free rigid body, I = diag(1, 2, 3), ω0 = (0.001, 2, 0.001), dt = 1/60: energy by method (lower panel: log scale)"
            .into(),
        panels: vec![
            Panel {
                y_label: "energy / initial energy",
                x_label: "t (s)",
                series: ratio,
            },
            Panel {
                y_label: "log10 |energy / initial energy - 1|",
                x_label: "t (s)",
                series: log_error,
            },
        ],
        findings,
    })
}

/// The smallest and largest of `values`.
fn range(values: impl Iterator<Item = f64>) -> (f64, f64) {
    values.fold((f64::INFINITY, f64::NEG_INFINITY), |(lo, hi), v| {
        (lo.min(v), hi.max(v))
    })
}

fn draw_panel(area: &DrawingArea<SVGBackend<'_>, Shift>, panel: &Panel) -> Result<()> {
    let points = || panel.series.iter().flat_map(|s| s.points.iter());
    let (x0, x1) = range(points().map(|&(x, _)| x));
    let (lo, hi) = range(points().map(|&(_, y)| y));
    let span = if hi > lo { hi - lo } else { 1.0 };
    // 5% below, and room for the legend above.
    let (y0, y1) = (
        lo - 0.05 * span,
        hi + 0.08 * span * (2 + panel.series.len()) as f64,
    );
    let mut chart = ChartBuilder::on(area)
        .margin(12)
        .x_label_area_size(36)
        .y_label_area_size(70)
        .build_cartesian_2d(x0..x1, y0..y1)?;
    chart
        .configure_mesh()
        .x_desc(panel.x_label)
        .y_desc(panel.y_label)
        .light_line_style(WHITE.mix(0.0))
        .label_style(("sans-serif", 13))
        .axis_desc_style(("sans-serif", 14))
        .draw()?;
    for series in &panel.series {
        let color = series.color;
        chart
            .draw_series(LineSeries::new(
                series.points.iter().copied(),
                color.stroke_width(2),
            ))?
            .label(series.label.as_str())
            .legend(move |(x, y)| {
                PathElement::new(vec![(x, y), (x + 20, y)], color.stroke_width(3))
            });
    }
    // The reference (the first line, the exact solution where there is one) once more, thin
    // and on top, so that a method lying on it does not hide it.
    if let [reference, _, ..] = &panel.series[..] {
        let points = reference.points.iter().copied();
        chart.draw_series(LineSeries::new(points, reference.color.stroke_width(1)))?;
    }
    chart
        .configure_series_labels()
        .position(SeriesLabelPosition::UpperRight)
        .background_style(WHITE.mix(0.85))
        .border_style(BLACK.mix(0.4))
        .label_font(("sans-serif", 13))
        .draw()?;
    Ok(())
}

fn write(figure: &Figure, dir: &Path) -> Result<PathBuf> {
    let path = dir.join(figure.file);
    let height = 40 + 330 * figure.panels.len() as u32;
    {
        let root = SVGBackend::new(&path, (960, height)).into_drawing_area();
        root.fill(&WHITE)?;
        let root = root.titled(&figure.title, ("sans-serif", 17))?;
        let rows = root.split_evenly((figure.panels.len(), 1));
        for (area, panel) in rows.iter().zip(&figure.panels) {
            draw_panel(area, panel)?;
        }
        root.present()?;
    }
    Ok(path)
}

fn main() -> Result<()> {
    let flags = [cli::Flag::new(
        "--out",
        "DIR",
        "the directory the SVG files are written to",
        "docs",
    )];
    let about = "draws the figures of the README and the docs as SVG";
    let mut dir = PathBuf::from("docs");
    for (_, value) in cli::parse("figures", about, &flags) {
        dir = PathBuf::from(value);
    }
    std::fs::create_dir_all(&dir)?;
    for make in FIGURES {
        let figure = make()?;
        let path = write(&figure, &dir)?;
        eprintln!("{}", path.display());
        for finding in &figure.findings {
            eprintln!("    {finding}");
        }
    }
    Ok(())
}
