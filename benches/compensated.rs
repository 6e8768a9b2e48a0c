//! What compensated summation costs: Kahan–Li 8 on Kepler's problem (`GM = 1`, a = 1,
//! e = 0.9, from perihelion, 6283 steps per period), plain and compensated
//! ([`Composition::compensated`]), [`STEPS`] steps per measured iteration.
//!
//! With `COMPENSATED_PROFILE=plain` or `compensated` in the environment the binary runs
//! that case alone, without criterion, for `valgrind --tool=callgrind`
//! (`COMPENSATED_PROFILE_STEPS` steps, 10⁵ unless given).
//!
//! ```text
//! cargo bench --bench compensated
//! ```

use criterion::{Criterion, criterion_group};
use glam::DVec2;
use std::f64::consts::TAU;
use std::hint::black_box;
use timestep::{Composition, Integrator, Particle};

/// Steps per measured iteration.
const STEPS: usize = 10_000;

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

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("compensated");
    group.bench_function("plain", |b| {
        b.iter(|| black_box(run(Composition::KAHAN_LI8, STEPS)))
    });
    group.bench_function("compensated", |b| {
        b.iter(|| black_box(run(Composition::KAHAN_LI8.compensated(), STEPS)))
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
        let end = match case.as_str() {
            "plain" => run(Composition::KAHAN_LI8, steps),
            "compensated" => run(Composition::KAHAN_LI8.compensated(), steps),
            _ => panic!("COMPENSATED_PROFILE is plain or compensated, not {case:?}"),
        };
        black_box(end);
        return;
    }
    compensated();
    Criterion::default().configure_from_args().final_summary();
}
