//! Cost per body against the number of bodies: one serial semi-implicit Euler step
//! ([`step_all`]) of `n` `Particle<Vec3>` under gravity, for n = 10³ … 10⁷.
//!
//! Throughput is in bodies, so criterion prints bodies per second; per-body cost is its
//! inverse. The arrays are 44 kB, 440 kB, 4.4 MB, 44 MB and 440 MB: the first fit in L2
//! (2 MiB per core here), the middle one in L3, the last two only in main memory.
//!
//! ```text
//! cargo bench --bench scaling
//! ```

use criterion::{BenchmarkId, Criterion, Throughput, criterion_group, criterion_main};
use glam::Vec3;
use std::hint::black_box;
use std::time::Duration;
use timestep::batch::step_all;
use timestep::{Particle, SemiImplicitEuler};

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

fn scaling(c: &mut Criterion) {
    let mut group = c.benchmark_group("scaling/semi-implicit-euler");
    group
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    for n in [1_000, 10_000, 100_000, 1_000_000, 10_000_000] {
        let mut states = particles(n);
        group.throughput(Throughput::Elements(n as u64));
        group.bench_with_input(BenchmarkId::from_parameter(n), &n, |b, _| {
            b.iter(|| {
                step_all(
                    &SemiImplicitEuler,
                    &mut states,
                    &gravity,
                    0.0,
                    black_box(1.0 / 60.0),
                )
            })
        });
        assert!(states.iter().all(|p| p.position().is_finite()));
    }
    group.finish();
}

criterion_group!(benches, scaling);
criterion_main!(benches);
