//! RATTLE (`Rattle`): velocity Verlet with holonomic constraints.
//!
//! The theory (Hairer–Lubich–Wanner, *Geometric Numerical Integration*, VII.1.4): RATTLE
//! is a symplectic, symmetric method of order 2 on the constraint manifold. So on a
//! conservative constrained system the positions stay on `g = 0` (to the solve's
//! tolerance) and the velocities on `G v = 0` (to rounding) at every step, the energy
//! error stays bounded by `O(dt²)` with no drift, a step by `−dt` undoes a step, and the
//! global error, the period of an oscillation included, falls like `dt²`.
//!
//! The cases: the pendulum in Cartesian coordinates (length 1, g = 9.81, from the
//! horizontal at rest), whose period is `4 √(L/g) K(sin²(π/4)) = 2.367842 s` and whose
//! rod tension is `λ = −3 g y / 2` for `g(q) = |q|² − 1`; and the double pendulum of two
//! unit masses on rods of 1 m, whose small oscillations are the normal modes
//! `ω² = (2 ∓ √2) g / L` with amplitude ratios `θ₂/θ₁ = ±√2`.

use crate::common;
use glam::DVec2;
use std::f64::consts::PI;
use timestep::{
    Constraints, InPlace, Integrator, Particles, Rattle, RattleSettingError, Rod, Rods, StepError,
};

const G: f64 = 9.81;

/// The pendulum's constraint as the task states it: `g(q) = |q|² − 1`, `G = 2 qᵀ`.
struct Circle;

impl Constraints<DVec2> for Circle {
    fn count(&self) -> usize {
        1
    }
    fn value(&self, q: &[DVec2], out: &mut [f64]) {
        out[0] = q[0].length_squared() - 1.0;
    }
    fn jacobian(&self, q: &[DVec2], out: &mut [DVec2]) {
        out[0] = 2.0 * q[0];
    }
}

/// Gravity, `−m g ŷ` on every body.
fn gravity() -> InPlace<impl Fn(&Particles<DVec2>, f64, &mut Vec<DVec2>)> {
    InPlace(|bodies: &Particles<DVec2>, _t: f64, f: &mut Vec<DVec2>| {
        for (f, &m) in f.iter_mut().zip(bodies.masses()) {
            *f = DVec2::new(0.0, -m * G);
        }
    })
}

/// The pendulum's bob, 1 kg at (1, 0) at rest.
fn bob() -> Particles<DVec2> {
    Particles::new(vec![1.0], vec![DVec2::new(1.0, 0.0)], vec![DVec2::ZERO])
}

/// Kinetic plus potential energy `Σ ½ m v² + m g y`.
fn energy(bodies: &Particles<DVec2>) -> f64 {
    bodies.kinetic_energy()
        + bodies
            .positions()
            .iter()
            .zip(bodies.masses())
            .map(|(q, m)| m * G * q.y)
            .sum::<f64>()
}

/// The complete elliptic integral of the first kind, `K(m) = π / (2 AGM(1, √(1 − m)))`.
fn elliptic_k(m: f64) -> f64 {
    let (mut a, mut b) = (1.0_f64, (1.0 - m).sqrt());
    // Quadratic convergence: five iterations reach rounding from m = ½; ten are safe.
    for _ in 0..10 {
        (a, b) = (0.5 * (a + b), (a * b).sqrt());
    }
    PI / (2.0 * a)
}

/// The exact period of the pendulum of length 1 from the horizontal.
fn exact_period() -> f64 {
    4.0 / G.sqrt() * elliptic_k(0.5)
}

/// The times at which body `body`'s `x` crosses zero over `steps` steps of `dt`, each found
/// on the cubic Hermite interpolant of `x` and `vx` over its step (error `O(dt⁴)`, below
/// the method's `O(dt²)`).
fn crossings<C: Constraints<DVec2>>(
    rattle: &mut Rattle<DVec2, C>,
    bodies: &mut Particles<DVec2>,
    body: usize,
    dt: f64,
    steps: usize,
) -> Vec<f64> {
    let forces = gravity();
    let mut times = Vec::new();
    for i in 0..steps {
        let t = i as f64 * dt;
        let (x0, v0) = (bodies.positions()[body].x, bodies.velocities()[body].x);
        rattle.step(bodies, &forces, t, dt).unwrap();
        let (x1, v1) = (bodies.positions()[body].x, bodies.velocities()[body].x);
        if x0 != 0.0 && x0.signum() != x1.signum() {
            let hermite = |s: f64| {
                let (s2, s3) = (s * s, s * s * s);
                (2.0 * s3 - 3.0 * s2 + 1.0) * x0
                    + (s3 - 2.0 * s2 + s) * dt * v0
                    + (-2.0 * s3 + 3.0 * s2) * x1
                    + (s3 - s2) * dt * v1
            };
            let (mut lo, mut hi) = (0.0, 1.0);
            for _ in 0..60 {
                let mid = 0.5 * (lo + hi);
                if hermite(mid).signum() == x0.signum() {
                    lo = mid;
                } else {
                    hi = mid;
                }
            }
            times.push(t + 0.5 * (lo + hi) * dt);
        }
    }
    times
}

/// The pendulum's period at `dt`, from its first and third zero crossings of `x`.
fn pendulum_period(dt: f64) -> f64 {
    let mut rattle = Rattle::new(Circle).with_tolerance(1e-14);
    let steps = (2.0 * exact_period() / dt) as usize;
    let times = crossings(&mut rattle, &mut bob(), 0, dt, steps);
    times[2] - times[0]
}

#[test]
fn the_exact_period_is_the_published_one() {
    assert!(
        (exact_period() - 2.367842).abs() < 5e-7,
        "{}",
        exact_period()
    );
}

/// 10⁵ steps of 0.01 s (t = 1000 s, 422 periods; the long run of the note, 10⁶ steps, is
/// the example's): the constraint within the tolerance and the velocity constraint to
/// rounding at every step, the tension as theory says, and the energy error bounded
/// with no drift.
#[test]
fn pendulum_long_run_holds_its_constraints_and_energy() {
    let (dt, steps) = (0.01, 100_000);
    let mut rattle = Rattle::new(Circle);
    let mut bob = bob();
    let forces = gravity();
    let start = energy(&bob);
    let (mut first, mut last) = (0.0_f64, 0.0_f64);
    for i in 0..steps {
        rattle.step(&mut bob, &forces, i as f64 * dt, dt).unwrap();
        let (q, v) = (bob.positions()[0], bob.velocities()[0]);
        let g = q.length_squared() - 1.0;
        assert!(
            g.abs() <= Rattle::<DVec2, Circle>::DEFAULT_TOLERANCE,
            "step {i}: g = {g:e}"
        );
        assert!(
            (2.0 * q.dot(v)).abs() < 1e-13,
            "step {i}: G v = {:e}",
            2.0 * q.dot(v)
        );
        assert!(
            (rattle.multipliers()[0] + 1.5 * G * q.y).abs() < 0.2,
            "step {i}: λ = {}, theory {}",
            rattle.multipliers()[0],
            -1.5 * G * q.y
        );
        let error = (energy(&bob) - start).abs();
        if i < steps / 10 {
            first = first.max(error);
        } else if i >= steps - steps / 10 {
            last = last.max(error);
        }
    }
    // O(dt²) (measured: 3.61·10⁻³ = 3.7 g dt²) and as large at the end as in the first
    // tenth: bounded, not drifting.
    assert!(
        first < 5.0 * G * dt * dt && last < 5.0 * G * dt * dt,
        "{first:e} {last:e}"
    );
    assert!(
        last < 1.05 * first,
        "energy error grew from {first:e} to {last:e}"
    );
}

/// The velocity projection's multiplier `μ`, the tension `λ = −3 g y / 2` at the step's
/// end, converges like `dt`: it is the one-sided half of the kick `−dt/2 Gᵀ (μₙ + λₙ₊₁)`
/// whose mean multiplier is second order (Hairer–Lubich–Wanner VII.1.4).
#[test]
fn pendulum_tension_converges_at_order_one() {
    let errors: Vec<(f64, f64)> = [0.02, 0.01, 0.005]
        .into_iter()
        .map(|dt| {
            let mut rattle = Rattle::new(Circle).with_tolerance(1e-14);
            let mut bob = bob();
            let mut worst = 0.0_f64;
            for i in 0..(1.0 / dt) as usize {
                rattle
                    .step(&mut bob, &gravity(), i as f64 * dt, dt)
                    .unwrap();
                let y = bob.positions()[0].y;
                worst = worst.max((rattle.multipliers()[0] + 1.5 * G * y).abs());
            }
            (dt, worst)
        })
        .collect();
    let slope = common::log_log_slope(&errors);
    assert!((slope - 1.0).abs() < 0.1, "{slope} {errors:?}");
}

/// The position at t = 1 s against a run at 1/64 of the coarsest step: slope 2.
#[test]
fn pendulum_is_second_order() {
    let at_one = |dt: f64| {
        let mut rattle = Rattle::new(Circle).with_tolerance(1e-14);
        let mut bob = bob();
        let steps = (1.0 / dt).round() as usize;
        for i in 0..steps {
            rattle
                .step(&mut bob, &gravity(), i as f64 * dt, dt)
                .unwrap();
        }
        bob.positions()[0]
    };
    let reference = at_one(0.02 / 64.0);
    let errors: Vec<(f64, f64)> = [0.02, 0.01, 0.005, 0.0025]
        .into_iter()
        .map(|dt| (dt, (at_one(dt) - reference).length()))
        .collect();
    let slope = common::log_log_slope(&errors);
    assert!((slope - 2.0).abs() < 0.1, "{slope} {errors:?}");
}

/// 1000 steps forward, then 1000 by `−dt`: back at the start to rounding.
#[test]
fn pendulum_is_time_reversible() {
    let dt = 0.01;
    let mut rattle = Rattle::new(Circle).with_tolerance(1e-15);
    let mut bob = bob();
    for i in 0..1000 {
        rattle
            .step(&mut bob, &gravity(), i as f64 * dt, dt)
            .unwrap();
    }
    for i in (1..=1000).rev() {
        rattle
            .step(&mut bob, &gravity(), i as f64 * dt, -dt)
            .unwrap();
    }
    let (q, v) = (bob.positions()[0], bob.velocities()[0]);
    assert!((q - DVec2::new(1.0, 0.0)).length() < 1e-11, "{q}");
    assert!(v.length() < 1e-10, "{v}");
}

/// The period against `4 √(L/g) K(½) = 2.367842 s`: its error falls like `dt²`, and at
/// `dt = 10⁻³` it is within 2·10⁻⁶ relative (measured: 1.40·10⁻⁶).
#[test]
fn pendulum_period_converges_at_order_two() {
    let exact = exact_period();
    let errors: Vec<(f64, f64)> = [0.008, 0.004, 0.002, 0.001]
        .into_iter()
        .map(|dt| (dt, (pendulum_period(dt) - exact).abs()))
        .collect();
    let slope = common::log_log_slope(&errors);
    assert!((slope - 2.0).abs() < 0.1, "{slope} {errors:?}");
    assert!(errors[3].1 < 2e-6 * exact, "{errors:?}");
}

/// The double pendulum's normal modes at small amplitude: the periods `2π / ω` with
/// `ω² = (2 ∓ √2) g`, to the `O(ε²)` of the amplitude and the `O((ω dt)²)` of the method.
#[test]
fn double_pendulum_normal_modes() {
    for (sign, name) in [(1.0, "slow"), (-1.0, "fast")] {
        let omega = ((2.0 - sign * 2f64.sqrt()) * G).sqrt();
        let epsilon = 1e-3;
        let (t1, t2) = (epsilon, sign * 2f64.sqrt() * epsilon);
        let q1 = DVec2::new(t1.sin(), -t1.cos());
        let q2 = q1 + DVec2::new(t2.sin(), -t2.cos());
        let mut bodies = Particles::new(vec![1.0, 1.0], vec![q1, q2], vec![DVec2::ZERO; 2]);
        let rods = Rods::new(vec![
            Rod::anchored(0, DVec2::ZERO, 1.0),
            Rod::between(0, 1, 1.0),
        ]);
        let mut rattle = Rattle::new(rods);
        let dt = 1e-3;
        let period = 2.0 * PI / omega;
        let start = energy(&bodies);
        let times = crossings(
            &mut rattle,
            &mut bodies,
            0,
            dt,
            (2.2 * period / dt) as usize,
        );
        let measured = times[2] - times[0];
        assert!(
            (measured - period).abs() < 1e-5 * period,
            "{name}: {measured} against {period}"
        );
        let (q1, q2) = (bodies.positions()[0], bodies.positions()[1]);
        assert!((q1.length() - 1.0).abs() < 2e-10 && ((q2 - q1).length() - 1.0).abs() < 2e-10);
        // Energy error O(dt²) of an oscillation of energy ~ g ε².
        let error = (energy(&bodies) - start).abs();
        assert!(error < 1e-2 * G * epsilon * epsilon, "{name}: {error:e}");
    }
}

/// A chain of 8 rods hanging from the origin, released from the horizontal: every rod
/// held, the energy bounded, and the run reversible.
#[test]
fn chain_is_held_and_reversible() {
    let n = 8;
    let mut rods = vec![Rod::anchored(0, DVec2::ZERO, 0.5)];
    rods.extend((1..n).map(|i| Rod::between(i - 1, i, 0.5)));
    let positions: Vec<DVec2> = (0..n)
        .map(|i| DVec2::new(0.5 * (i + 1) as f64, 0.0))
        .collect();
    let mut chain = Particles::new(vec![0.1; n], positions.clone(), vec![DVec2::ZERO; n]);
    let mut rattle = Rattle::new(Rods::new(rods)).with_tolerance(1e-14);
    let (dt, steps) = (1e-3, 2000);
    let start = energy(&chain);
    let mut values = vec![0.0; n];
    for i in 0..steps {
        rattle
            .step(&mut chain, &gravity(), i as f64 * dt, dt)
            .unwrap();
        rattle.constraints().value(chain.positions(), &mut values);
        assert!(
            values.iter().all(|g| g.abs() <= 1e-14),
            "step {i}: {values:?}"
        );
    }
    assert!((energy(&chain) - start).abs() < 1e-3 * start.abs().max(1.0));
    for i in (1..=steps).rev() {
        rattle
            .step(&mut chain, &gravity(), i as f64 * dt, -dt)
            .unwrap();
    }
    for (q, q0) in chain.positions().iter().zip(&positions) {
        assert!((*q - *q0).length() < 1e-9, "{q} against {q0}");
    }
}

/// A solve that cannot converge reports it and leaves the state alone; bad settings and
/// times are refused.
#[test]
fn failures_are_reported_and_leave_the_state() {
    let mut bob = bob();
    let before = bob.clone();
    let mut rattle = Rattle::new(Circle).with_max_iterations(1);
    let error = rattle.step(&mut bob, &gravity(), 0.0, 0.3).unwrap_err();
    assert!(
        matches!(error, StepError::ConstraintNotConverged { iterations: 1, residual } if residual > 1e-10),
        "{error:?}"
    );
    assert_eq!(bob, before);
    assert!(matches!(
        rattle.step(&mut bob, &gravity(), 0.0, f64::NAN),
        Err(StepError::NonFiniteTime { .. })
    ));
    rattle.step(&mut bob, &gravity(), 0.0, 0.0).unwrap();
    assert_eq!(bob, before);
    assert!(matches!(
        Rattle::new(Circle).try_with_tolerance(f64::NAN),
        Err(RattleSettingError::Tolerance(t)) if t.is_nan()
    ));
    assert!(Rattle::new(Circle).try_with_tolerance(-1.0).is_err());
    assert!(Rod::<DVec2>::try_between(0, 1, 0.0).is_err());
    assert!(Rod::<DVec2>::try_anchored(0, DVec2::ZERO, f64::INFINITY).is_err());
    // Two rods of one body to one anchor: G M⁻¹ Gᵀ is singular.
    let twice = Rods::new(vec![
        Rod::anchored(0, DVec2::ZERO, 1.0),
        Rod::anchored(0, DVec2::ZERO, 1.0),
    ]);
    let error = Rattle::new(twice)
        .step(&mut bob, &gravity(), 0.0, 0.01)
        .unwrap_err();
    assert_eq!(error, StepError::SingularJacobian);
    assert_eq!(bob, before);
}
