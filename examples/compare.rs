//! The second article's experiments, run with every method and printed as one CSV table:
//!
//! - `spring-damper`: k = 15, b = 0.1, a 1 kg mass released at rest from 1000 m, stepped at
//!   dt = 0.01 s for 10 s;
//! - `oscillator-0.1` and `oscillator-0.25`: the same spring undamped (b = 0), stepped at
//!   dt = 0.1 s and dt = 0.25 s for 90 s, where explicit Euler explodes, RK4 slowly loses
//!   energy and the symplectic methods keep it.
//!
//! Run with `cargo run --release --example compare`.
//!
//! Output: the header `experiment,method,dt,duration,final_x,exact_x,max_abs_error,energy_ratio`
//! and one row per experiment and method. `max_abs_error` is the largest `|x − exact_x|`
//! over every step, `energy_ratio` the final energy `½ m v² + ½ k x²` over the initial one.
//! Values that are not finite print as `inf`, `-inf` or `nan`; a run whose step fails prints
//! `nan` for what it could not compute and says why on stderr.
//!
//! It takes no flags: `--help` prints what it does, and any other argument is refused
//! with a one-line message and exit status 2.

mod cli;

use timestep::analytic::DampedOscillator;
use timestep::{Method, Particle, StepError, Trajectory};

struct Experiment {
    name: &'static str,
    stiffness: f64,
    damping: f64,
    dt: f64,
    duration: f64,
}

const MASS: f64 = 1.0;
const X0: f64 = 1000.0;
const V0: f64 = 0.0;

const EXPERIMENTS: [Experiment; 3] = [
    Experiment {
        name: "spring-damper",
        stiffness: 15.0,
        damping: 0.1,
        dt: 0.01,
        duration: 10.0,
    },
    Experiment {
        name: "oscillator-0.1",
        stiffness: 15.0,
        damping: 0.0,
        dt: 0.1,
        duration: 90.0,
    },
    Experiment {
        name: "oscillator-0.25",
        stiffness: 15.0,
        damping: 0.0,
        dt: 0.25,
        duration: 90.0,
    },
];

/// What one run measured.
struct Outcome {
    final_x: f64,
    max_abs_error: f64,
    energy_ratio: f64,
}

/// Runs `method` on `experiment` from t = 0 to its duration.
fn run(
    experiment: &Experiment,
    method: Method<Particle<f64>>,
    exact: &DampedOscillator,
) -> Result<Outcome, StepError> {
    let (k, b) = (experiment.stiffness, experiment.damping);
    let spring = move |p: &Particle<f64>, _t: f64| -k * p.position() - b * p.velocity();
    let start = Particle::new(MASS, X0, V0);
    let initial_energy = exact.energy(X0, V0);
    let mut outcome = Outcome {
        final_x: X0,
        max_abs_error: 0.0,
        energy_ratio: 1.0,
    };
    for sample in Trajectory::new(
        method,
        start,
        &spring,
        0.0,
        experiment.duration,
        experiment.dt,
    )? {
        let (t, particle) = sample?;
        let x = particle.position();
        outcome.final_x = x;
        outcome.max_abs_error = nan_aware_max(outcome.max_abs_error, (x - exact.position(t)).abs());
        outcome.energy_ratio = exact.energy(x, particle.velocity()) / initial_energy;
    }
    Ok(outcome)
}

/// The larger of two numbers, or NaN if either is NaN (`f64::max` would drop the NaN and
/// hide that the run broke down).
fn nan_aware_max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// A number for the CSV: the shortest form that reads back to the same value, in exponent
/// notation when tiny or huge, and `inf`, `-inf` or `nan` when not finite (Rust would print
/// `NaN`).
fn csv(value: f64) -> String {
    if value.is_nan() {
        "nan".to_string()
    } else if value == 0.0 || value.is_infinite() || (1e-4..1e16).contains(&value.abs()) {
        value.to_string()
    } else {
        format!("{value:e}")
    }
}

fn main() {
    cli::parse(
        "compare",
        "CSV of the second article's experiments (spring-damper, oscillator at dt = 0.1 and 0.25) for every method; takes no flags",
        &[],
    );
    println!("experiment,method,dt,duration,final_x,exact_x,max_abs_error,energy_ratio");
    for experiment in &EXPERIMENTS {
        let exact = DampedOscillator::new(MASS, experiment.stiffness, experiment.damping, X0, V0);
        // `all()` makes every method fresh: position Verlet's memory is per run.
        for method in Method::<Particle<f64>>::all() {
            let name = method.to_string();
            let outcome = run(experiment, method, &exact).unwrap_or_else(|error| {
                eprintln!("compare: {} with {name}: {error}", experiment.name);
                Outcome {
                    final_x: f64::NAN,
                    max_abs_error: f64::NAN,
                    energy_ratio: f64::NAN,
                }
            });
            println!(
                "{},{name},{},{},{},{},{},{}",
                experiment.name,
                csv(experiment.dt),
                csv(experiment.duration),
                csv(outcome.final_x),
                csv(exact.position(experiment.duration)),
                csv(outcome.max_abs_error),
                csv(outcome.energy_ratio),
            );
        }
    }
}
