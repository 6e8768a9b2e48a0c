//! What compensated summation costs: Kahan–Li 8 on Kepler's problem (`GM = 1`, a = 1,
//! e = 0.9, from perihelion, 6283 steps per period), plain and compensated
//! ([`Composition::compensated`]), [`STEPS`] steps per measured iteration; and DOP853
//! under error control (10⁻¹², [`PERIODS`] periods of the same orbit as `[f64; 4]`),
//! plain and with [`Adaptive::with_compensated_summation`].
//!
//! With `COMPENSATED_PROFILE=plain`, `compensated`, `dop853` or `dop853-compensated` in
//! the environment the binary runs that case alone, without criterion, for `valgrind
//! --tool=callgrind` (`COMPENSATED_PROFILE_STEPS` steps, 10⁵ unless given; for DOP853,
//! periods, [`PERIODS`] unless given).
//!
//! ```text
//! cargo bench --bench compensated
//! ```

use criterion::{Criterion, criterion_group};
use glam::DVec2;
use std::f64::consts::TAU;
use std::hint::black_box;
use timestep::{Adaptive, Composition, Dop853, Integrator, Particle, Statistics, Tolerances};

/// Steps per measured iteration.
const STEPS: usize = 10_000;

/// Periods of DOP853's runs per measured iteration.
const PERIODS: usize = 10;

fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    let r = p.position();
    -r / r.length().powi(3)
}

fn start() -> Particle<DVec2> {
    let e = 0.9;
    Particle::new(
        1.0,
        DVec2::new(1.0 - e, 0.0),
        DVec2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()),
    )
}

/// `steps` steps of `method` from the start, at `t = k·dt`.
#[inline(never)]
fn run<I: Integrator<Particle<DVec2>>>(mut method: I, steps: usize) -> Particle<DVec2> {
    let dt = TAU / 6283.0;
    let mut particle = start();
    for k in 0..steps {
        method
            .step(&mut particle, &gravity, k as f64 * dt, dt)
            .expect("a finite step");
    }
    particle
}

/// DOP853 at 10⁻¹² over `periods` periods of the orbit of [`start`], compensated or not.
#[inline(never)]
fn adaptive(compensated: bool, periods: usize) -> ([f64; 4], Statistics) {
    let kepler = |y: &[f64; 4], _t: f64| {
        let r = DVec2::new(y[0], y[1]);
        let a = -r / r.length().powi(3);
        [y[2], y[3], a.x, a.y]
    };
    let p = start();
    let mut y = [
        p.position().x,
        p.position().y,
        p.velocity().x,
        p.velocity().y,
    ];
    let solver = Adaptive::new(Dop853).with_tolerances(Tolerances::new(1e-12, 1e-12));
    let mut solver = if compensated {
        solver.with_compensated_summation()
    } else {
        solver
    };
    let statistics = solver
        .solve(&mut y, &kepler, 0.0, periods as f64 * TAU)
        .expect("an adaptive run within its step budget");
    (y, statistics)
}

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("compensated");
    group.bench_function("plain", |b| {
        b.iter(|| black_box(run(Composition::KAHAN_LI8, STEPS)))
    });
    group.bench_function("compensated", |b| {
        b.iter(|| black_box(run(Composition::KAHAN_LI8.compensated(), STEPS)))
    });
    group.bench_function("dop853", |b| b.iter(|| black_box(adaptive(false, PERIODS))));
    group.bench_function("dop853-compensated", |b| {
        b.iter(|| black_box(adaptive(true, PERIODS)))
    });
    group.finish();
}

criterion_group!(compensated, benches);

fn main() {
    if let Ok(case) = std::env::var("COMPENSATED_PROFILE") {
        let steps = std::env::var("COMPENSATED_PROFILE_STEPS").map_or(100_000, |steps| {
            steps
                .parse()
                .expect("COMPENSATED_PROFILE_STEPS is a number of steps")
        });
        match case.as_str() {
            "plain" => black_box(run(Composition::KAHAN_LI8, steps)),
            "compensated" => black_box(run(Composition::KAHAN_LI8.compensated(), steps)),
            "dop853" | "dop853-compensated" => {
                let periods = std::env::var("COMPENSATED_PROFILE_STEPS")
                    .map_or(PERIODS, |p| p.parse().expect("a number of periods"));
                let (y, statistics) = black_box(adaptive(case != "dop853", periods));
                let energy = 0.5 * (y[2] * y[2] + y[3] * y[3]) - 1.0 / y[0].hypot(y[1]);
                println!(
                    "{case}: relative energy error {:e}, {statistics:?}",
                    (energy + 0.5) / 0.5
                );
                return;
            }
            _ => panic!(
                "COMPENSATED_PROFILE is plain, compensated, dop853 or dop853-compensated, not {case:?}"
            ),
        };
        return;
    }
    compensated();
    Criterion::default().configure_from_args().final_summary();
}
