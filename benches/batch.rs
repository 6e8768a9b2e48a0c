//! Many bodies at the speed of memory: one step of 10⁶ `Particle<Vec3>` under gravity, by
//! semi-implicit Euler and by RK4, serially ([`step_all`]) and on rayon's pool
//! (`par_step_all`), against a streaming copy of the same bytes (`copy_from_slice` of a
//! particle array of the same size into another): the memory bound.
//!
//! Throughput is in bytes of the particle array (10⁶ × 44 B), so criterion prints each
//! function's bandwidth and they compare directly.
//!
//! ```text
//! cargo bench --features rayon --bench batch
//! ```
//!
//! Without the `rayon` feature the `parallel` functions are left out.

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use std::hint::black_box;
use std::time::Duration;
#[cfg(feature = "rayon")]
use timestep::batch::par_step_all;
use timestep::batch::step_all;
use timestep::{Integrator, Particle, Rk4, SemiImplicitEuler};

/// Bodies per batch.
const N: usize = 1_000_000;

/// Frame time (s).
const DT: f32 = 1.0 / 60.0;

/// `n` particles of different masses spread over a cube, moving in different directions.
fn particles(n: usize) -> Vec<Particle<Vec3>> {
    (0..n)
        .map(|i| {
            let f = i as f32;
            Particle::new(
                1.0 + (i % 7) as f32,
                Vec3::new(f.sin(), f.cos(), (0.5 * f).sin()) * 100.0,
                Vec3::new((0.3 * f).cos(), 1.0, (0.7 * f).sin()),
            )
        })
        .collect()
}

fn gravity(p: &Particle<Vec3>, _t: f32) -> Vec3 {
    Vec3::new(0.0, -9.81, 0.0) * p.mass()
}

fn group<I: Integrator<Particle<Vec3>> + Clone + Sync>(
    c: &mut Criterion,
    name: &str,
    integrator: I,
) {
    let mut group = c.benchmark_group(name);
    group
        .sample_size(20)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(4))
        .throughput(Throughput::Bytes((N * size_of::<Particle<Vec3>>()) as u64));

    let mut states = particles(N);
    group.bench_function("serial", |b| {
        b.iter(|| step_all(&integrator, &mut states, &gravity, 0.0, black_box(DT)))
    });
    #[cfg(feature = "rayon")]
    group.bench_function("parallel", |b| {
        b.iter(|| par_step_all(&integrator, &mut states, &gravity, 0.0, black_box(DT)))
    });
    assert!(states.iter().all(|p| p.position().is_finite()));
    drop(states);

    let source = particles(N);
    let mut target = particles(N);
    group.bench_function("memcpy", |b| {
        b.iter(|| target.copy_from_slice(black_box(&source)))
    });
    black_box(&target);
    group.finish();
}

fn batch(c: &mut Criterion) {
    group(c, "batch/semi-implicit-euler", SemiImplicitEuler);
    group(c, "batch/rk4", Rk4);
}

criterion_group!(benches, batch);
criterion_main!(benches);
