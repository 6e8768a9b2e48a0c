//! Long runs: Kepler's problem with eccentricity 0.9 (GM = 1, a = 1, from perihelion) over
//! 1000 periods, at the cost each method needs to keep the largest relative energy error
//! over the run at or below 10⁻⁴ and 10⁻⁶.
//!
//! Each contestant runs at the step (or tolerance) found, by one run each on this
//! machine, to be the cheapest on a coarse ladder that meets the error; the error is
//! measured once before timing (every step's energy) and checked against the target. The
//! timed runs keep only the final state.
//!
//! - `timestep`: the crate's best method at each error, its DOP853 under error control
//!   (`Adaptive`) on a `Particle<DVec2>` at `rtol = atol` = 5·10⁻⁹ and 10⁻¹⁰ (4.8·10⁻⁵,
//!   6.9·10⁻⁷: the same steps as differential-equations' DOP853, both being dop853.f's).
//! - `timestep_symplectic`: its best fixed-step symplectic method: `blanes-moan4` at 700
//!   steps per period (10⁻⁴: 8.8·10⁻⁵), `kahan-li8` at 700 (10⁻⁶: 9.4·10⁻⁷), a
//!   `Particle<DVec2>` stepped by `Method` in a loop.
//! - `differential_equations_forest_ruth`: differential-equations 0.7's
//!   `SymplecticIntegrator::ruth_forest(h)` at 1700 and 5200 steps per period (8.2·10⁻⁵,
//!   9.6·10⁻⁷), on `[f64; 4]`.
//! - `differential_equations_verlet`: its `velocity_verlet(h)` at 32 000 steps per period
//!   (9.6·10⁻⁵); at 10⁻⁶ it would need about 320 000 (its error is `O(dt²)`): 3.2·10⁸ steps,
//!   some 7 s a run, left out of the 10⁻⁶ group.
//! - `differential_equations_dop853`: its adaptive `ExplicitRungeKutta::dop853()` with
//!   `rtol = atol` = 5·10⁻⁹ and 10⁻¹⁰ (4.8·10⁻⁵, 6.9·10⁻⁷).
//!
//! Its solvers' output is a callback (`Solout`) that keeps nothing, so that neither side
//! pays for storing a million states.
//!
//! ```text
//! cargo bench -p timestep-peers --bench long_run
//! ```

use criterion::{Criterion, criterion_group, criterion_main};
use differential_equations::control::ControlFlag;
use differential_equations::interpolate::Interpolation;
use differential_equations::methods::SymplecticIntegrator;
use differential_equations::prelude::{ExplicitRungeKutta, IVP, ODE};
use differential_equations::solout::Solout;
use differential_equations::solution::Solution;
use glam::DVec2;
use std::cell::Cell;
use std::f64::consts::TAU;
use std::hint::black_box;
use std::time::Duration;
use timestep::Tolerances;
use timestep::adaptive::Adaptive;
use timestep::{Dop853, Integrator, Method, Particle};

const ECCENTRICITY: f64 = 0.9;
const PERIODS: u64 = 1000;

/// Which solver, at which step or tolerance.
#[derive(Clone, Copy, Debug)]
enum Run {
    /// A `timestep` method by name, at this many steps per period.
    Timestep(&'static str, u64),
    /// `timestep`'s DOP853 under error control, `rtol = atol`.
    TimestepDop853(f64),
    /// differential-equations' Forest–Ruth, steps per period.
    ForestRuth(u64),
    /// differential-equations' velocity Verlet, steps per period.
    Verlet(u64),
    /// differential-equations' DOP853, `rtol = atol`.
    Dop853(f64),
}

fn start() -> (DVec2, DVec2) {
    let e = ECCENTRICITY;
    (
        DVec2::new(1.0 - e, 0.0),
        DVec2::new(0.0, ((1.0 + e) / (1.0 - e)).sqrt()),
    )
}

/// The relative error of the energy `½|v|² − 1/|x|` against its exact −½.
fn energy_error(x: DVec2, v: DVec2) -> f64 {
    ((0.5 * v.length_squared() - 1.0 / x.length()) + 0.5).abs() / 0.5
}

fn gravity(p: &Particle<DVec2>, _t: f64) -> DVec2 {
    let r = p.position();
    -r / r.length().powi(3)
}

/// `y = [x₁, x₂, v₁, v₂]`, positions first, as its symplectic integrators split it.
struct Kepler;

impl ODE<f64, [f64; 4]> for Kepler {
    fn diff(&self, _t: f64, y: &[f64; 4], dydt: &mut [f64; 4]) {
        let r = DVec2::new(y[0], y[1]);
        let a = -r / r.length().powi(3);
        *dydt = [y[2], y[3], a.x, a.y];
    }
}

/// Keeps the last state and, if given a cell, the largest energy error; stores nothing.
struct Watch<'a> {
    last: &'a Cell<[f64; 4]>,
    largest: Option<&'a Cell<f64>>,
}

impl Solout<f64, [f64; 4]> for Watch<'_> {
    fn solout<I>(
        &mut self,
        _t: f64,
        _t_prev: f64,
        y: &[f64; 4],
        _y_prev: &[f64; 4],
        _interpolator: &mut I,
        _solution: &mut Solution<f64, [f64; 4]>,
    ) -> ControlFlag<f64, [f64; 4]>
    where
        I: Interpolation<f64, [f64; 4]> + ?Sized,
    {
        self.last.set(*y);
        if let Some(largest) = self.largest {
            let error = energy_error(DVec2::new(y[0], y[1]), DVec2::new(y[2], y[3]));
            largest.set(largest.get().max(error));
        }
        ControlFlag::Continue
    }
}

/// Runs `run` over the 1000 periods; with `largest`, also records the largest energy error
/// over every step. Returns the final position.
fn solve(run: Run, largest: Option<&Cell<f64>>) -> DVec2 {
    let (x0, v0) = start();
    let t1 = PERIODS as f64 * TAU;
    let y0 = [x0.x, x0.y, v0.x, v0.y];
    let last = Cell::new(y0);
    let watch = || Watch {
        last: &last,
        largest,
    };
    let end = || {
        let y = last.get();
        DVec2::new(y[0], y[1])
    };
    match run {
        Run::Timestep(name, per_period) => {
            let mut method: Method<Particle<DVec2>> = name.parse().expect("a method's name");
            let mut particle = Particle::new(1.0, x0, v0);
            let dt = TAU / per_period as f64;
            for i in 0..PERIODS * per_period {
                method
                    .step(&mut particle, &gravity, i as f64 * dt, dt)
                    .expect("a finite step");
                if let Some(largest) = largest {
                    let error = energy_error(particle.position(), particle.velocity());
                    largest.set(largest.get().max(error));
                }
            }
            particle.position()
        }
        Run::TimestepDop853(tolerance) => {
            let mut particle = Particle::new(1.0, x0, v0);
            let mut solver = Adaptive::new(Dop853)
                .with_tolerances(Tolerances::new(tolerance, tolerance))
                .with_max_steps(u64::MAX);
            match largest {
                Some(largest) => solver.solve_with(&mut particle, &gravity, 0.0, t1, |step| {
                    let error = energy_error(step.end().position(), step.end().velocity());
                    largest.set(largest.get().max(error));
                }),
                None => solver.solve(&mut particle, &gravity, 0.0, t1),
            }
            .expect("DOP853 within its step budget");
            particle.position()
        }
        Run::ForestRuth(per_period) => {
            let method =
                SymplecticIntegrator::ruth_forest(TAU / per_period as f64).max_steps(usize::MAX);
            IVP::ode(&Kepler, 0.0, t1, y0)
                .method(method)
                .solout(watch())
                .solve()
                .expect("a fixed-step run");
            end()
        }
        Run::Verlet(per_period) => {
            let method = SymplecticIntegrator::velocity_verlet(TAU / per_period as f64)
                .max_steps(usize::MAX);
            IVP::ode(&Kepler, 0.0, t1, y0)
                .method(method)
                .solout(watch())
                .solve()
                .expect("a fixed-step run");
            end()
        }
        Run::Dop853(tolerance) => {
            let method = ExplicitRungeKutta::dop853()
                .rtol(tolerance)
                .atol(tolerance)
                .max_steps(usize::MAX);
            IVP::ode(&Kepler, 0.0, t1, y0)
                .method(method)
                .solout(watch())
                .solve()
                .expect("DOP853 within its step budget");
            end()
        }
    }
}

/// A group: its name, its error target, and its contestants.
type Group = (&'static str, f64, Vec<(&'static str, Run)>);

fn long_run(c: &mut Criterion) {
    let groups: [Group; 2] = [
        (
            "long_run/kepler-1e-4",
            1e-4,
            vec![
                ("timestep", Run::TimestepDop853(5e-9)),
                ("timestep_symplectic", Run::Timestep("blanes-moan4", 700)),
                ("differential_equations_forest_ruth", Run::ForestRuth(1700)),
                ("differential_equations_verlet", Run::Verlet(32_000)),
                ("differential_equations_dop853", Run::Dop853(5e-9)),
            ],
        ),
        (
            "long_run/kepler-1e-6",
            1e-6,
            vec![
                ("timestep", Run::TimestepDop853(1e-10)),
                ("timestep_symplectic", Run::Timestep("kahan-li8", 700)),
                ("differential_equations_forest_ruth", Run::ForestRuth(5200)),
                ("differential_equations_dop853", Run::Dop853(1e-10)),
            ],
        ),
    ];
    for (group_name, target, runs) in groups {
        for (name, run) in &runs {
            let largest = Cell::new(0.0);
            solve(*run, Some(&largest));
            println!(
                "{group_name}: {name} ({run:?}) largest energy error {:.2e}",
                largest.get()
            );
            assert!(
                largest.get() <= target,
                "{group_name}: {name} misses the target: {:e}",
                largest.get()
            );
        }
        let mut group = c.benchmark_group(group_name);
        for (name, run) in runs {
            group.bench_function(name, |b| b.iter(|| solve(black_box(run), None)));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(5));
    targets = long_run
}
criterion_main!(benches);
