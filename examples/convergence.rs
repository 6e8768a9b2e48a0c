//! The measured order of convergence of every method, on an undamped and a damped spring.
//!
//! Each method runs each problem from t = 0 to 10 s at four steps chosen by its order
//! (`Scheme::properties`), so that the error is asymptotic and above rounding: dt = 0.01,
//! 0.005, 0.0025 and 0.00125 for orders 1 and 2; from 0.04 halving for orders 3 and 4, from
//! 0.02 for order 5, from 0.1 for order 6; for order 8, by factors of √2 from 0.1 (Kahan–Li) or 0.05 (Yoshida, whose
//! steps of ±1.96 keep it off its asymptote longer). The error of a run is the largest phase-space distance to the exact solution
//! over all its samples, `√((x − x*)² + (v − v*)²/k)` (velocity scaled by `1/ω` with
//! m = 1, so that position and velocity errors weigh alike). The order is the
//! least-squares slope of `log(error)` against `log(dt)`: a method of order p has
//! `error ≈ C·dtᵖ`.
//!
//! Problems (mass 1 kg, released at rest from x0 = 1 m):
//!
//! - `oscillator`: k = 10, b = 0;
//! - `damped`: k = 10, b = 1.
//!
//! Run with `cargo run --release --example convergence`.
//!
//! Output: the header `method,problem,order` and one row per method and problem, the
//! order with three decimals (`nan` if a run failed).
//!
//! With drag (`damped`) the compositions measure 2 (on dt = 0.0025 … 0.0003125, where that
//! term leads) and leapfrog and Blanes–Moan 1: their orders rest on forces of the
//! positions alone (see `timestep::Composition`).
//!
//! It takes no flags: `--help` prints what it does, and any other argument is refused
//! with a one-line message and exit status 2.

mod cli;

use timestep::analytic::DampedOscillator;
use timestep::{Method, MethodKind, Particle, Scheme, StepError, Trajectory};

struct Problem {
    name: &'static str,
    stiffness: f64,
    damping: f64,
}

const PROBLEMS: [Problem; 2] = [
    Problem {
        name: "oscillator",
        stiffness: 10.0,
        damping: 0.0,
    },
    Problem {
        name: "damped",
        stiffness: 10.0,
        damping: 1.0,
    },
];

const MASS: f64 = 1.0;
const X0: f64 = 1.0;
const V0: f64 = 0.0;
const DURATION: f64 = 10.0;
/// The steps for a method of order `order` named `name` (module docs).
fn time_steps(name: &str, order: u32) -> [f64; 4] {
    let halvings = |coarsest: f64| [coarsest, coarsest / 2.0, coarsest / 4.0, coarsest / 8.0];
    let root2 = 2f64.sqrt();
    match (order, name) {
        (0..=2, _) => halvings(0.01),
        (3..=4, _) => halvings(0.04),
        // Tsitouras' pair makes its fifth-order error small by design: from 0.02.
        (5, _) => halvings(0.02),
        (6, _) => halvings(0.1),
        (_, "yoshida8") => [0.05, 0.05 / root2, 0.025, 0.025 / root2],
        _ => [0.1, 0.1 / root2, 0.05, 0.05 / root2],
    }
}

/// The largest phase-space distance to the exact solution over a run of `method`.
fn run_error(problem: &Problem, method: Method<Particle<f64>>, dt: f64) -> Result<f64, StepError> {
    let (k, b) = (problem.stiffness, problem.damping);
    let exact = DampedOscillator::new(MASS, k, b, X0, V0);
    let spring = move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity();
    let start = Particle::new(MASS, X0, V0);
    let mut largest: f64 = 0.0;
    for sample in Trajectory::new(method, start, &spring, 0.0, DURATION, dt)? {
        let (t, particle) = sample?;
        let dx = particle.position() - exact.position(t);
        let dv = particle.velocity() - exact.velocity(t);
        let distance = (dx * dx + dv * dv / k).sqrt();
        // A NaN distance (the run broke down) must make the error NaN; `f64::max` would
        // skip it.
        largest = if distance.is_nan() || largest.is_nan() {
            f64::NAN
        } else {
            largest.max(distance)
        };
    }
    Ok(largest)
}

/// The least-squares slope of `y` against `x`.
fn slope(points: &[(f64, f64)]) -> f64 {
    let n = points.len() as f64;
    let mean_x = points.iter().map(|(x, _)| x).sum::<f64>() / n;
    let mean_y = points.iter().map(|(_, y)| y).sum::<f64>() / n;
    let covariance: f64 = points
        .iter()
        .map(|(x, y)| (x - mean_x) * (y - mean_y))
        .sum();
    let variance: f64 = points.iter().map(|(x, _)| (x - mean_x).powi(2)).sum();
    covariance / variance
}

/// The measured order of `name` on `problem`.
fn order(problem: &Problem, name: &str) -> Result<f64, StepError> {
    let kind: MethodKind = name.parse().expect("a name from Method::NAMES");
    let properties = kind.properties();
    // With drag the compositions are second order (module docs), and their 2nd-order term
    // overtakes the higher ones only below dt ≈ 0.005.
    let steps = if problem.damping > 0.0 && properties.symplectic && properties.order > 2 {
        [0.0025, 0.00125, 0.000625, 0.0003125]
    } else {
        time_steps(name, properties.order)
    };
    let mut points = Vec::with_capacity(4);
    for dt in steps {
        // A fresh method for every run: position Verlet remembers its last step.
        let method = name.parse().expect("a name from Method::NAMES");
        let error = run_error(problem, method, dt)?;
        points.push((dt.ln(), error.ln()));
    }
    Ok(slope(&points))
}

fn main() {
    cli::parse(
        "convergence",
        "CSV method,problem,order: each method's measured order of convergence on the spring k = 10, undamped and damped; takes no flags",
        &[],
    );
    println!("method,problem,order");
    for name in Method::<Particle<f64>>::NAMES {
        for problem in &PROBLEMS {
            let order = order(problem, name).unwrap_or_else(|error| {
                eprintln!("convergence: {name} on {}: {error}", problem.name);
                f64::NAN
            });
            if order.is_nan() {
                println!("{name},{},nan", problem.name);
            } else {
                println!("{name},{},{order:.3}", problem.name);
            }
        }
    }
}
