//! The first article's experiment, reproduced digit for digit: a 1 kg mass at rest pushed by
//! a constant 10 N, integrated with explicit Euler in `f32`, time kept in `f64` and advanced
//! by `t += dt` in the article's loop `while t <= 10 { record; step; t += dt }`.
//!
//! The expected strings are the article's published tables (seed 001, "Integration
//! Basics", revised edition); the other numbers come from the explicit Euler recurrence
//! under a constant acceleration `a`, solved in closed form:
//! `v_n = n a dt` and `x_n = a dt² n (n − 1) / 2`.

use approx::assert_relative_eq;
use timestep::{ExplicitEuler, Integrator, Particle};

const FORCE: f32 = 10.0;
const MASS: f32 = 1.0;

/// The article's loop: one `(t, position, velocity)` row per pass, recorded before stepping.
fn article_rows(dt: f32) -> Vec<(f64, f32, f32)> {
    let push = |_: &Particle<f32>, _t: f32| FORCE;
    let mut car = Particle::new(MASS, 0.0_f32, 0.0);
    let mut t = 0.0_f64;
    let mut rows = Vec::new();
    while t <= 10.0 {
        rows.push((t, car.position(), car.velocity()));
        ExplicitEuler
            .step(&mut car, &push, t as f32, dt)
            .expect("finite time and step");
        t += f64::from(dt);
    }
    rows
}

fn format_row(&(t, position, velocity): &(f64, f32, f32)) -> String {
    format!("t={t:.2}: position = {position:.6} velocity = {velocity:.6}")
}

/// The article's dt = 1 table: positions 0, 0, 10, 30, … 450 and velocities 0, 10, … 100.
/// Every value is a small integer, exact in `f32`, so the comparison is exact.
#[test]
fn one_second_steps_match_the_article_table() {
    let rows = article_rows(1.0);
    let published_positions = [
        0.0, 0.0, 10.0, 30.0, 60.0, 100.0, 150.0, 210.0, 280.0, 360.0, 450.0,
    ];
    let published_velocities = [
        0.0, 10.0, 20.0, 30.0, 40.0, 50.0, 60.0, 70.0, 80.0, 90.0, 100.0,
    ];
    assert_eq!(rows.len(), 11, "t = 0, 1, …, 10");
    for (i, (t, position, velocity)) in rows.iter().enumerate() {
        assert_eq!(*t, i as f64);
        assert_eq!(*position, published_positions[i], "position at t={t}");
        assert_eq!(*velocity, published_velocities[i], "velocity at t={t}");
    }
    // The closed form of the recurrence agrees with the table, row by row.
    for (n, (_, position, velocity)) in rows.iter().enumerate() {
        let n = n as f32;
        assert_eq!(*velocity, n * FORCE / MASS);
        assert_eq!(*position, FORCE / MASS * n * (n - 1.0) / 2.0);
    }
    // The article's point: 450 m where s = ½ a t² says 500 m, 50 m short.
    let exact = 0.5 * f64::from(FORCE / MASS) * 10.0 * 10.0;
    assert_eq!(exact, 500.0);
    assert_eq!(f64::from(rows[10].1) - exact, -50.0);
}

/// The article's dt = 1/100 table, last 11 rows, compared as printed strings: the digits
/// are those of `f32` rounding, which only the same operations in the same order
/// reproduce.
#[test]
fn hundredth_second_steps_match_the_article_digits() {
    let published = [
        "t=9.90: position = 489.552155 velocity = 98.999062",
        "t=9.91: position = 490.542145 velocity = 99.099060",
        "t=9.92: position = 491.533142 velocity = 99.199059",
        "t=9.93: position = 492.525146 velocity = 99.299057",
        "t=9.94: position = 493.518127 velocity = 99.399055",
        "t=9.95: position = 494.512115 velocity = 99.499054",
        "t=9.96: position = 495.507111 velocity = 99.599052",
        "t=9.97: position = 496.503113 velocity = 99.699051",
        "t=9.98: position = 497.500092 velocity = 99.799049",
        "t=9.99: position = 498.498077 velocity = 99.899048",
        "t=10.00: position = 499.497070 velocity = 99.999046",
    ];
    let rows = article_rows(0.01);
    // 0.01 in f32 is slightly below 1/100, so the f64 clock reaches 9.9999998 after 1000
    // steps and the loop records 1001 rows, the last at "t=10.00".
    assert_eq!(rows.len(), 1001);
    let printed: Vec<String> = rows[rows.len() - 11..].iter().map(format_row).collect();
    assert_eq!(printed, published);
}

/// The f32 digits differ from the real-number answer of the same recurrence only by
/// rounding: in f64 the recurrence lands on `a dt² n (n − 1) / 2 = 499.5` m after 1000
/// steps of 1/100 s (the exact answer being 500 m, explicit Euler is `a t dt / 2` short).
#[test]
fn hundredth_second_steps_follow_the_euler_recurrence() {
    let push = |_: &Particle<f64>, _t: f64| 10.0;
    let mut car = Particle::new(1.0, 0.0_f64, 0.0);
    let dt = 0.01;
    for i in 0..1000 {
        ExplicitEuler
            .step(&mut car, &push, i as f64 * dt, dt)
            .unwrap();
    }
    let n = 1000.0;
    assert_relative_eq!(
        car.position(),
        10.0 * dt * dt * n * (n - 1.0) / 2.0,
        max_relative = 1e-12
    );
    assert_relative_eq!(car.position(), 499.5, max_relative = 1e-12);
    assert_relative_eq!(car.velocity(), 100.0, max_relative = 1e-12);
    // The error against s = ½ a t² is −a t dt / 2 = −0.5 m; the f32 run adds only rounding
    // (it ends at 499.497070, 3 mm further off).
    let f32_end = article_rows(0.01)[1000].1;
    assert_relative_eq!(car.position() - 500.0, -0.5, max_relative = 1e-9);
    assert!((f64::from(f32_end) - car.position()).abs() < 5e-3);
    assert!(
        f64::from(f32_end) != car.position(),
        "f32 must show rounding"
    );
}
