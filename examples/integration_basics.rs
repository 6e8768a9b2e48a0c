//! The first article's experiment: a 1 kg mass at rest pushed by a constant 10 N, integrated
//! with explicit Euler in `f32` (time kept in `f64`), first with `dt = 1` s and then with
//! `dt = 1/100` s, each compared with the exact distance `s = ½ a t²`.
//!
//! Run with `cargo run --release --example integration_basics`.
//!
//! It takes no flags: `--help` prints what it does, and any other argument is refused
//! with a one-line message and exit status 2.

mod cli;

use timestep::{ExplicitEuler, Integrator, Particle};

const FORCE: f32 = 10.0;
const MASS: f32 = 1.0;
const DURATION: f64 = 10.0;

/// Steps while `t <= DURATION`, as the article's loop does, and returns one row per step.
fn run(dt: f32) -> Result<Vec<(f64, f32, f32)>, timestep::StepError> {
    let push = |_: &Particle<f32>, _t: f32| FORCE;
    let mut car = Particle::new(MASS, 0.0, 0.0);
    let mut t = 0.0_f64;
    let mut rows = Vec::new();
    while t <= DURATION {
        rows.push((t, car.position(), car.velocity()));
        ExplicitEuler.step(&mut car, &push, t as f32, dt)?;
        t += f64::from(dt);
    }
    Ok(rows)
}

fn print_table(title: &str, rows: &[(f64, f32, f32)]) {
    println!("{title}");
    for (t, position, velocity) in rows {
        println!("t={t:.2}: position = {position:.6} velocity = {velocity:.6}");
    }
    let (_, position, _) = rows[rows.len() - 1];
    let exact = 0.5 * f64::from(FORCE / MASS) * DURATION * DURATION;
    println!("exact at t={DURATION:.2}: s = 0.5 * a * t^2 = {exact:.6}");
    println!("error: position - s = {:.6}", f64::from(position) - exact);
}

fn main() -> Result<(), timestep::StepError> {
    cli::parse(
        "integration_basics",
        "the first article's explicit Euler tables (1 kg pushed by 10 N, f32, dt = 1 and 1/100 s) against s = ½ a t²; takes no flags",
        &[],
    );
    print_table("explicit euler, dt = 1, f32", &run(1.0)?);
    println!();
    let rows = run(0.01)?;
    print_table(
        "explicit euler, dt = 1/100, f32 (last 11 rows)",
        &rows[rows.len() - 11..],
    );
    Ok(())
}
