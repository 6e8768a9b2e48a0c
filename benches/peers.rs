//! `timestep` against the crates a user would pick instead, on one problem: classic RK4 at
//! a fixed `dt = 0.01` for 10 s (1000 steps) on the damped spring `m x'' = −k x − b x'`
//! with k = 15 N/m, b = 0.1 kg/s, m = 1 kg, x₀ = 1000 m, v₀ = 0, in `f64`.
//!
//! Each crate is used the way its documentation shows for a fixed-step RK4 run:
//!
//! - `timestep`: a [`Particle<f64>`] stepped 1000 times by [`Rk4`] in a loop; only the
//!   final state is kept.
//! - `ode_solvers` 0.6: `Rk4::new(system, t0, y0, t1, dt)` then `integrate()`, on a
//!   `Vector2<f64>`; it stores every step's `(t, y)` in growing vectors (its only mode).
//! - `differential-equations` 0.7: `IVP::ode(&ode, t0, t1, y0).method(ExplicitRungeKutta::
//!   rk4(dt)).solve()`, on a `[f64; 2]`; its default output keeps every step too. It adds
//!   `dt` to `t` step by step, so after 1000 steps `t` is 10 − 1.7·10⁻¹³ and it takes a
//!   1001st step of that length to land on 10 s: its end position differs from the others'
//!   by `v · 1.7·10⁻¹³ ≈ 3.4·10⁻¹⁰` m.
//!
//! All three must end at the same position to 1e-9 m, checked once before measuring.
//!
//! ```text
//! cargo bench --bench peers
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use differential_equations::prelude::{ExplicitRungeKutta, IVP, ODE};
use ode_solvers::{System, Vector2};
use std::hint::black_box;
use std::time::Duration;
use timestep::{Integrator, Particle, Rk4};

/// The problem's constants.
#[derive(Clone, Copy)]
struct DampedSpring {
    k: f64,
    b: f64,
    m: f64,
    x0: f64,
    v0: f64,
    dt: f64,
    duration: f64,
}

const SPRING: DampedSpring = DampedSpring {
    k: 15.0,
    b: 0.1,
    m: 1.0,
    x0: 1000.0,
    v0: 0.0,
    dt: 0.01,
    duration: 10.0,
};

/// The final position by `timestep`.
fn by_timestep(s: DampedSpring) -> f64 {
    let forces = move |p: &Particle<f64>, _t: f64| -s.k * p.position() - s.b * p.velocity();
    let mut particle = Particle::new(s.m, s.x0, s.v0);
    let steps = (s.duration / s.dt).round() as usize;
    for i in 0..steps {
        Rk4.step(&mut particle, &forces, i as f64 * s.dt, s.dt)
            .expect("finite time");
    }
    particle.position()
}

/// `y = (x, v)`, `y' = (v, (−k x − b v) · (1/m))`, for `ode_solvers`, with `1/m` computed
/// once as `timestep`'s particle does, so no side pays for a division per stage.
struct OdeSolversSpring(DampedSpring, f64);

impl System<f64, Vector2<f64>> for OdeSolversSpring {
    fn system(&self, _t: f64, y: &Vector2<f64>, dy: &mut Vector2<f64>) {
        let s = &self.0;
        dy[0] = y[1];
        dy[1] = (-s.k * y[0] - s.b * y[1]) * self.1;
    }
}

/// The final position by `ode_solvers`.
fn by_ode_solvers(s: DampedSpring) -> f64 {
    let y0 = Vector2::new(s.x0, s.v0);
    let mut solver =
        ode_solvers::Rk4::new(OdeSolversSpring(s, 1.0 / s.m), 0.0, y0, s.duration, s.dt);
    solver.integrate().expect("fixed-step RK4 cannot fail");
    solver.y_out().last().expect("at least the initial state")[0]
}

/// `y = [x, v]`, `y' = [v, (−k x − b v) · (1/m)]`, for `differential-equations`.
struct DiffEqSpring(DampedSpring, f64);

impl ODE<f64, [f64; 2]> for DiffEqSpring {
    fn diff(&self, _t: f64, y: &[f64; 2], dydt: &mut [f64; 2]) {
        let s = &self.0;
        dydt[0] = y[1];
        dydt[1] = (-s.k * y[0] - s.b * y[1]) * self.1;
    }
}

/// The final position by `differential-equations`.
fn by_differential_equations(s: DampedSpring) -> f64 {
    let ode = DiffEqSpring(s, 1.0 / s.m);
    let solution = IVP::ode(&ode, 0.0, s.duration, [s.x0, s.v0])
        .method(ExplicitRungeKutta::rk4(s.dt))
        .solve()
        .expect("fixed-step RK4 cannot fail");
    let (_, y) = solution.last().expect("at least the initial state");
    y[0]
}

fn peers(c: &mut Criterion) {
    let x = by_timestep(SPRING);
    println!("peers/rk4-spring: timestep ends at x = {x:.12} m");
    for (name, other) in [
        ("ode_solvers", by_ode_solvers(SPRING)),
        ("differential_equations", by_differential_equations(SPRING)),
    ] {
        assert!(
            (x - other).abs() <= 1e-9,
            "{name} ends at x = {other}, timestep at {x}: not the same computation"
        );
        println!("peers/rk4-spring: {name} ends {:+.1e} m from it", other - x);
    }

    let mut group = c.benchmark_group("peers/rk4-spring");
    group.bench_function("timestep", |b| b.iter(|| by_timestep(black_box(SPRING))));
    group.bench_function("ode_solvers", |b| {
        b.iter(|| by_ode_solvers(black_box(SPRING)))
    });
    group.bench_function("differential_equations", |b| {
        b.iter(|| by_differential_equations(black_box(SPRING)))
    });
    group.finish();
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = peers
}
criterion_main!(benches);
