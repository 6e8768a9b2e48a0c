//! First-order systems `y' = f(t, y)` with every method: any `SmallVector` is a state whose
//! whole value is "momentum", so every method applies to it.
//!
//! What each method becomes on such a state (no positions, so every drift is a no-op):
//!
//! - semi-implicit Euler kicks with `f(t, y)` and has nothing to drift: it *is* explicit
//!   Euler, `R(z) = 1 + z`. Order 1 (as on a particle), but the symplectic structure that
//!   bounds its energy on a particle needs a position/momentum split and is gone.
//! - velocity Verlet (and position Verlet, which has no positions to remember) kicks half
//!   a step with `f(t, y)`, then half a step with `f(t + dt, y + dt f(t, y))` (the
//!   end-of-step force is taken at the predicted state): that is Heun's method, improved
//!   Euler, `R(z) = 1 + z + z²/2`. Order 2, but no longer symplectic nor time-reversible.
//! - the Runge–Kutta methods and backward Euler are themselves: midpoint and improved
//!   Euler `1 + z + z²/2`, RK4 `1 + z + z²/2 + z³/6 + z⁴/24`, backward Euler `1/(1 − z)`.
//!
//! - leapfrog (drift–kick–drift) kicks with `f(t + dt/2, y)`: explicit Euler with the
//!   rate sampled at the middle of the step, `R(z) = 1 + z`, order 1 (order 2 when `f`
//!   depends on `t` alone: the midpoint rule). Blanes–Moan's kicks are the same: order 1.
//! - the compositions of velocity Verlet compose improved Euler (with the half kicks where
//!   two steps meet merged, the force after each drift seen at the state predicted over
//!   half of it), which is not symmetric: their order on a first-order state is 2 (order p
//!   when `f` depends on `t` alone: they are then compositions of the trapezoid rule).
//!   Their orders above 2 are for position/momentum systems.
//! - exponential Euler given no linear part (a plain closure) is explicit Euler; the
//!   lecture's predictor–corrector is `R(z) = 1 + z + z²`, order 1.
//! - Beeman and Adams–Bashforth–Moulton are multistep methods: no one-step `R`, but their
//!   orders (2 and 4) hold.
//!
//! On a linear system `y' = λ y` one step multiplies `y` by `R(λ dt)`, so the tests compare
//! with `R(λ dt)^n`, then with the exact `e^(λ t)` at each method's order.

use crate::common;

use approx::assert_relative_eq;
use common::{C, is_composition, log_log_slope, stability_function};
use glam::DVec3;
use timestep::{Integrator, Method, MethodKind, SmallVector};

/// The order of each method on a first-order state whose rate depends on `y` (module
/// docs): leapfrog and Blanes–Moan 1, the compositions of Verlet 2, the rest their own.
fn first_order_order(name: &str) -> f64 {
    match name {
        "leapfrog" | "blanes-moan4" => 1.0,
        _ if is_composition(name) => 2.0,
        _ => common::order(name),
    }
}

/// Runs `method` on `y' = f(t, y)` from `y0` at t = 0 for `steps` steps of `dt`.
fn run<S: SmallVector<Scalar = f64>>(
    mut method: Method<S>,
    f: &impl Fn(&S, f64) -> S,
    y0: S,
    dt: f64,
    steps: usize,
) -> S {
    let mut y = y0;
    for i in 0..steps {
        method
            .step(&mut y, f, i as f64 * dt, dt)
            .unwrap_or_else(|e| panic!("{method}: {e}"));
    }
    y
}

/// `y' = −y`, y(0) = 1, to t = 1: each method lands on `R(−dt)^n` (to rounding, or to the
/// Newton tolerance for backward Euler), and its error against `e^(−1)` falls at its order
/// when dt halves.
#[test]
fn exponential_decay_with_every_method() {
    let decay = |y: &f64, _t: f64| -y;
    for method in MethodKind::all().into_iter().map(Method::<f64>::new) {
        let name = method.name();
        // Fifth-order pairs are still pre-asymptotic at dt = 0.1 (Tsitouras' by design);
        // the eighth-order pair reaches rounding there.
        let ladder = match (name, common::order(name)) {
            ("dop853", _) => [2, 4, 8],
            // Rodas5P's R(z) is eᶻ to z⁶ (`implicit::rodas5p`): of order 6 here.
            ("rodas5p", _) => [5, 10, 20],
            (_, 5.0) => [20, 40, 80],
            _ => [10, 20, 40],
        };
        let mut points = Vec::new();
        for steps in ladder {
            let dt = 1.0 / steps as f64;
            let y = run(method.clone(), &decay, 1.0, dt, steps);
            if let Some(r) = stability_function(name, C::from(-dt)) {
                assert_relative_eq!(y, r.0.powi(steps as i32), max_relative = 1e-12);
            }
            points.push((dt, (y - (-1.0_f64).exp()).abs()));
        }
        let slope = log_log_slope(&points);
        println!("{name}: y' = −y, order {slope:.3}");
        let theory = if name == "rodas5p" {
            6.0
        } else {
            first_order_order(name)
        };
        assert!(
            (slope - theory).abs() < tolerance(name),
            "{name}: order {slope}, theory {theory}"
        );
    }
}

/// The rotation `y' = (−y₁, y₀)`: its exact flow keeps `|y|`. Each step of a one-step
/// method multiplies `y` by `R(dt A)`, and since `A² = −I` that is a rotation scaled by
/// `|R(i dt)|`, so after n steps `|y| = |R(i dt)|^n` exactly. Explicit and semi-implicit
/// Euler grow the norm by `√(1 + dt²)` per step, the second-order methods by
/// `(1 + dt⁴/4)^(1/2)`, RK4 shrinks it by `(1 − dt⁶/72 + dt⁸/576)^(1/2)` and backward Euler
/// by `1/√(1 + dt²)`; the trapezoidal rule, implicit midpoint and Newmark
/// (`R = (1 + z/2)/(1 − z/2)`, `|R(i dt)| = 1`) keep it, to their Newton tolerance. The
/// multistep methods have no one-step map: their norms are measured.
#[test]
fn rotation_norm_follows_each_method_s_stability_function() {
    let rotation = |y: &[f64; 2], _t: f64| [-y[1], y[0]];
    let (dt, steps): (f64, usize) = (0.1, 100);
    for method in MethodKind::all().into_iter().map(Method::<[f64; 2]>::new) {
        let name = method.name();
        let y = run(method, &rotation, [1.0, 0.0], dt, steps);
        let norm = y[0].hypot(y[1]);
        match stability_function(name, C(0.0, dt)) {
            Some(r) => {
                let theory = r.abs().powi(steps as i32);
                println!("{name}: |y(10)| = {norm:.12} (theory {theory:.12})");
                assert_relative_eq!(norm, theory, max_relative = 1e-10);
            }
            None => {
                // |y(10)| − 1 measured (Beeman −2.4·10⁻³, Adams–Bashforth–Moulton
                // +1.5·10⁻⁵), within a factor 2 either way.
                let (low, high) = match name {
                    "beeman" => (-4.8e-3, -1.2e-3),
                    "adams-bashforth-moulton" => (7.5e-6, 3e-5),
                    other => panic!("{other}: no stability function and no measured norm"),
                };
                println!("{name}: |y(10)| = {norm:.12} (measured)");
                assert!(
                    (low..high).contains(&(norm - 1.0)),
                    "{name}: |y(10)| = {norm}"
                );
            }
        }
        // The phase: every method turns by close to t = 10 rad (error O(dt^p · t)).
        let angle = y[1].atan2(y[0]);
        let expected = 10.0 - 4.0 * std::f64::consts::PI; // wrapped into (−π, π]
        assert!((angle - expected).abs() < 0.1, "{name}: angle {angle}");
    }
}

/// On a first-order state the partitioned methods are explicit Runge–Kutta methods: semi-
/// implicit Euler is explicit Euler, and both Verlets are improved Euler, step for step (up
/// to the rounding of `(y + a/2) + b/2` against `y + (a + b)/2`).
#[test]
fn partitioned_methods_reduce_to_runge_kutta_methods_on_first_order_states() {
    let rotation = |y: &[f64; 2], _t: f64| [-y[1], y[0]];
    let by = |name: &str| run(name.parse().unwrap(), &rotation, [0.6, -0.8], 0.05, 400);
    assert_eq!(by("semi-implicit-euler"), by("explicit-euler"));
    let heun = by("improved-euler");
    for name in ["verlet", "position-verlet"] {
        let y = by(name);
        assert_relative_eq!(y[0], heun[0], epsilon = 1e-13);
        assert_relative_eq!(y[1], heun[1], epsilon = 1e-13);
    }
}

/// The contrast: the same rotation written as a particle, `x' = v`, `v' = −x` (a unit
/// oscillator), gives semi-implicit Euler its position/momentum split back, and with it the
/// symplectic band of `super::energy`: `|(x, v)|²` stays within `[1/(1 + dt/2), 1/(1 − dt/2)]`
/// of its start, where the first-order form above grew by `(1 + dt²)^(n/2)` (×1.64 at
/// dt 0.1 over 10 s).
#[test]
fn the_rotation_as_a_particle_keeps_semi_implicit_euler_bounded() {
    use timestep::{Particle, SemiImplicitEuler};
    let unit_spring = |p: &Particle<f64>, _t: f64| -p.position();
    let dt = 0.1_f64;
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let mut as_first_order = [1.0, 0.0];
    let rotation = |y: &[f64; 2], _t: f64| [-y[1], y[0]];
    for i in 0..10_000 {
        let t = i as f64 * dt;
        SemiImplicitEuler
            .step(&mut particle, &unit_spring, t, dt)
            .unwrap();
        let squared = particle.position().powi(2) + particle.velocity().powi(2);
        assert!(
            squared <= 1.0 / (1.0 - dt / 2.0) + 1e-12,
            "step {i}: {squared}"
        );
        assert!(
            squared >= 1.0 / (1.0 + dt / 2.0) - 1e-12,
            "step {i}: {squared}"
        );
        if i < 100 {
            SemiImplicitEuler
                .step(&mut as_first_order, &rotation, t, dt)
                .unwrap();
        }
    }
    let grown = as_first_order[0].hypot(as_first_order[1]);
    assert_relative_eq!(grown, (1.0 + dt * dt).powf(50.0), max_relative = 1e-12);
}

const SIGMA: f64 = 10.0;
const RHO: f64 = 28.0;
const BETA: f64 = 8.0 / 3.0;

fn lorenz(y: &DVec3, _t: f64) -> DVec3 {
    DVec3::new(
        SIGMA * (y.y - y.x),
        y.x * (RHO - y.z) - y.y,
        y.x * y.y - BETA * y.z,
    )
}

fn lorenz_array(y: &[f64; 3], _t: f64) -> [f64; 3] {
    [
        SIGMA * (y[1] - y[0]),
        y[0] * (RHO - y[2]) - y[1],
        y[0] * y[1] - BETA * y[2],
    ]
}

/// The states at t = 0.1, 0.2, …, 1.0 of a run with `steps_per_tenth` steps per 0.1 s.
fn lorenz_checkpoints<S: SmallVector<Scalar = f64>>(
    mut method: Method<S>,
    f: &impl Fn(&S, f64) -> S,
    y0: S,
    steps_per_tenth: usize,
) -> Vec<S> {
    let dt = 0.1 / steps_per_tenth as f64;
    let mut y = y0;
    let mut checkpoints = Vec::new();
    for i in 0..10 * steps_per_tenth {
        method.step(&mut y, f, i as f64 * dt, dt).unwrap();
        if (i + 1) % steps_per_tenth == 0 {
            checkpoints.push(y);
        }
    }
    checkpoints
}

/// The Lorenz system (σ 10, ρ 28, β 8/3) from (1, 1, 1) for 1 s, with every method, against
/// an RK4 reference at dt = 10⁻⁴ (its own error ~10⁻¹⁴, far below every error measured).
/// The error of a run is the largest relative distance to the reference at t = 0.1, 0.2,
/// …, 1 (a single end point can hide the error in a chance cancellation). Each method's
/// error falls at its order when dt halves (steps chosen per order so the error is
/// asymptotic and above the reference's), and the glam `DVec3` and the `[f64; 3]` state
/// give the same trajectory.
#[test]
fn lorenz_system_with_every_method() {
    let y0 = DVec3::ONE;
    let reference = lorenz_checkpoints("rk4".parse().unwrap(), &lorenz, y0, 1000);
    for method in MethodKind::all().into_iter().map(Method::<DVec3>::new) {
        let name = method.name();
        let theory = first_order_order(name);
        // Steps per 0.1 s: dt from 10⁻³ (first order), 4·10⁻³ (up to sixth) or 5·10⁻²
        // (eighth: at 4·10⁻³ its error is already the reference's), halved twice.
        let coarse = match theory {
            1.0 => 100,
            8.0 => 2,
            _ => 25,
        };
        let mut points = Vec::new();
        for steps_per_tenth in [coarse, 2 * coarse, 4 * coarse] {
            let dt = 0.1 / steps_per_tenth as f64;
            let run = lorenz_checkpoints(method.clone(), &lorenz, y0, steps_per_tenth);
            let error = run
                .iter()
                .zip(&reference)
                .map(|(y, r)| (*y - *r).length() / r.length())
                .fold(0.0, f64::max);
            points.push((dt, error));

            let array_method: Method<[f64; 3]> = name.parse().unwrap();
            let array_run =
                lorenz_checkpoints(array_method, &lorenz_array, y0.to_array(), steps_per_tenth);
            for (a, y) in array_run.iter().zip(&run) {
                for i in 0..3 {
                    assert_relative_eq!(a[i], y[i], max_relative = 1e-12);
                }
            }
        }
        let slope = log_log_slope(&points);
        println!("{name}: Lorenz errors {points:?}, order {slope:.3}");
        assert!(
            (slope - theory).abs() < tolerance(name),
            "{name}: order {slope}, theory {theory}"
        );
        assert!(points[2].1 < 1e-2, "{name}: {points:?}");
    }
}

/// Time-dependent rates, where each stage must be evaluated at its own time: `y' = cos t`
/// from y(0) = 0 is pure quadrature, `y(t) = sin t`, and each method is a quadrature rule:
/// explicit (and semi-implicit) Euler the left Riemann sum, backward Euler the right one
/// (order 1), midpoint the midpoint rule, improved Euler and both Verlets (a half kick at
/// each end of the step) the trapezoid rule (order 2), RK4 Simpson's rule (order 4).
/// A stage evaluated at the wrong time drops the order.
#[test]
fn time_dependent_rates_are_sampled_at_the_right_times() {
    let rate = |_: &f64, t: f64| t.cos();
    for method in MethodKind::all().into_iter().map(Method::<f64>::new) {
        let name = method.name();
        // Rodas4's nodes and weights integrate quartics exactly (Σ bᵢ αᵢ⁴ = 1/5 in its
        // original form; `implicit::rosenbrock`), so as a quadrature rule it is of order 5.
        let theory = if name == "rodas4" {
            5.0
        } else {
            common::order(name)
        };
        if theory >= 6.0 {
            // Orders 6 and 8 integrate cos t over 2 s to within 10⁻¹⁰ at 20 steps, and to
            // rounding soon after: no slope to measure.
            let y = run(method.clone(), &rate, 0.0, 0.1, 20);
            assert!((y - 2.0_f64.sin()).abs() < 1e-10, "{name}: {y}");
            continue;
        }
        let points: Vec<(f64, f64)> = ladder(name)
            .iter()
            .map(|&steps| {
                let dt = 2.0 / steps as f64;
                let y = run(method.clone(), &rate, 0.0, dt, steps);
                (dt, (y - 2.0_f64.sin()).abs())
            })
            .collect();
        let slope = log_log_slope(&points);
        println!("{name}: y' = cos t, order {slope:.3}");
        assert!(
            (slope - theory).abs() < 0.15,
            "{name}: order {slope}, theory {theory}"
        );
    }
}

/// The same for a particle pushed by a time-dependent force `F = m cos t` from rest at the
/// origin: `v = sin t`, `x = 1 − cos t`. The error (in x and v) falls at each method's
/// order on second-order systems (`integrators::convergence`).
#[test]
fn time_dependent_forces_on_a_particle_converge_at_each_method_s_order() {
    use timestep::Particle;
    let push = |p: &Particle<f64>, t: f64| p.mass() * t.cos();
    for method in MethodKind::all()
        .into_iter()
        .map(Method::<Particle<f64>>::new)
    {
        let name = method.name();
        let theory = common::order(name);
        let points: Vec<(f64, f64)> = ladder(name)
            .iter()
            .map(|&steps| {
                let dt = 2.0 / steps as f64;
                let mut integrator = method.clone();
                let mut particle = Particle::new(0.5, 0.0, 0.0);
                for i in 0..steps {
                    integrator
                        .step(&mut particle, &push, i as f64 * dt, dt)
                        .unwrap();
                }
                let dx = particle.position() - (1.0 - 2.0_f64.cos());
                let dv = particle.velocity() - 2.0_f64.sin();
                (dt, dx.hypot(dv))
            })
            .collect();
        if theory >= 6.0 {
            // As for y' = cos t: within 10⁻¹⁰ from the coarsest step on.
            assert!(points[0].1 < 1e-10, "{name}: {points:?}");
            continue;
        }
        let slope = log_log_slope(&points);
        println!("{name}: F = m cos t, order {slope:.3}");
        assert!(
            (slope - theory).abs() < 0.15,
            "{name}: order {slope}, theory {theory}"
        );
    }
}

/// Steps over 2 s: 20, 40, 80; Adams–Bashforth–Moulton, whose error at 20 steps is not yet
/// asymptotic (its three RK4 starting steps are a seventh of the run), from 40.
fn ladder(name: &str) -> [usize; 3] {
    match name {
        "adams-bashforth-moulton" => [40, 80, 160],
        _ => [20, 40, 80],
    }
}

/// ±0.15 about the order on a first-order state, except for Yoshida's 8th order: its
/// order there is 2, but its steps of ±1.96 leave large higher-order terms that keep the
/// measured slope between 2.1 and 2.8 on these ladders (and down to dt = 10⁻³).
fn tolerance(name: &str) -> f64 {
    match name {
        "yoshida8" => 0.8,
        // Eighth order leaves a window of one or two halvings between pre-asymptotic
        // steps and rounding; its order conditions are checked exactly in tableaus.rs.
        "dop853" => 0.3,
        _ => 0.15,
    }
}
