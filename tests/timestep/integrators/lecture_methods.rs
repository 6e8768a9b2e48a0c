//! The lecture's remaining methods, each checked against what it claims: leapfrog's single
//! evaluation and time-reversibility, Beeman's and Adams–Bashforth–Moulton's histories
//! (kept across steps, dropped when time does not continue), exponential Euler's exactness
//! on its linear part, the predictor–corrector's formula.

use std::cell::Cell;
use timestep::{
    AdamsBashforthMoulton, Beeman, Derivative, ExplicitEuler, ExponentialEuler, InPlace,
    Integrator, Leapfrog, NoVelocity, Particle, PredictorCorrector, Scheme, Stepper, Trajectory,
    WithLinearPart,
};

/// A spring that counts its evaluations.
fn counting_spring(count: &Cell<u32>) -> impl Fn(&Particle<f64>, f64) -> f64 + '_ {
    move |p: &Particle<f64>, _t: f64| {
        count.set(count.get() + 1);
        -10.0 * p.position()
    }
}

#[test]
fn leapfrog_evaluates_once_and_runs_backwards_to_its_start() {
    let count = Cell::new(0);
    let spring = counting_spring(&count);
    let start = Particle::new(1.0, 0.3, -0.7);
    let mut particle = start;
    for i in 0..100 {
        Leapfrog
            .step(&mut particle, &spring, i as f64 * 0.01, 0.01)
            .unwrap();
    }
    assert_eq!(count.get(), 100);
    assert_eq!(Leapfrog.properties().evaluations, 1);
    for i in (0..100).rev() {
        Leapfrog
            .step(&mut particle, &spring, (i + 1) as f64 * 0.01, -0.01)
            .unwrap();
    }
    assert!((particle.position() - start.position()).abs() < 1e-14);
    assert!((particle.velocity() - start.velocity()).abs() < 1e-14);
}

#[test]
fn beeman_evaluates_once_per_step_once_started_and_restarts_when_time_jumps() {
    let count = Cell::new(0);
    let spring = counting_spring(&count);
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let mut beeman = Beeman::new();
    beeman.step(&mut particle, &spring, 0.0, 0.01).unwrap();
    assert_eq!(count.get(), 2, "the bootstrap step evaluates at both ends");
    for i in 1..11 {
        beeman
            .step(&mut particle, &spring, i as f64 * 0.01, 0.01)
            .unwrap();
    }
    assert_eq!(count.get(), 12, "one evaluation per continuing step");
    // A step that does not start where the last ended bootstraps again...
    beeman.step(&mut particle, &spring, 5.0, 0.01).unwrap();
    assert_eq!(count.get(), 14);
    // ...and so does one of another length.
    beeman.step(&mut particle, &spring, 5.01, 0.02).unwrap();
    assert_eq!(count.get(), 16);
}

#[test]
fn adams_bashforth_moulton_starts_with_rk4_then_evaluates_twice_per_step() {
    let count = Cell::new(0);
    let spring = counting_spring(&count);
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    let mut abm = AdamsBashforthMoulton::new();
    for i in 0..3 {
        abm.step(&mut particle, &spring, i as f64 * 0.01, 0.01)
            .unwrap();
    }
    assert_eq!(count.get(), 12, "three RK4 steps");
    for i in 3..13 {
        abm.step(&mut particle, &spring, i as f64 * 0.01, 0.01)
            .unwrap();
    }
    assert_eq!(count.get(), 32, "then two evaluations per step (PECE)");
    // Time that does not continue, or a new step length, forgets the history.
    abm.step(&mut particle, &spring, 1.0, 0.01).unwrap();
    assert_eq!(count.get(), 36);
    abm.reset();
    abm.step(&mut particle, &spring, 1.01, 0.01).unwrap();
    assert_eq!(count.get(), 40);
}

/// A [`Trajectory`] steps from `t₀ + i·dt` to `t₀ + (i + 1)·dt`, so its steps differ in
/// their last bits: the multistep histories must survive that, or every step would be a
/// starting step (RK4 for Adams–Bashforth–Moulton, 4 evaluations instead of 2).
#[test]
fn histories_survive_the_rounding_of_trajectory_times() {
    for (method, expected) in [
        ("adams-bashforth-moulton", 3 * 4 + 997 * 2),
        ("beeman", 2 + 999),
    ] {
        let count = Cell::new(0);
        let spring = counting_spring(&count);
        let stepper: timestep::Method<Particle<f64>> = method.parse().unwrap();
        let run = Trajectory::new(
            stepper,
            Particle::new(1.0, 1.0, 0.0),
            &spring,
            3.7,
            13.7,
            0.01,
        )
        .unwrap();
        assert_eq!(run.count(), 1001);
        assert_eq!(count.get(), expected, "{method}");
    }
}

/// `y' = λ y` with `λ = −1000` given as the linear part: exact, `y = e^(λ t)`, at a step
/// where explicit Euler's factor is `1 + λ dt = −99`.
#[test]
fn exponential_euler_is_exact_for_its_linear_part() {
    let lambda = -1000.0;
    let forces = WithLinearPart::new(
        move |y: &f64, _t: f64| lambda * y,
        move |_: &f64, _t: f64, diagonal: &mut Derivative<NoVelocity<f64>, f64>| {
            diagonal.force = lambda;
        },
    );
    let mut y = 1.0_f64;
    for i in 0..10 {
        ExponentialEuler
            .step(&mut y, &forces, i as f64 * 0.1, 0.1)
            .unwrap();
    }
    let exact = (lambda * 1.0_f64).exp();
    assert!(
        (y - exact).abs() <= 1e-15 * exact.abs() + f64::MIN_POSITIVE,
        "{y} vs {exact}"
    );
    // The same forces, other methods: the linear part is extra information only.
    let mut euler = 1.0_f64;
    ExplicitEuler.step(&mut euler, &forces, 0.0, 0.1).unwrap();
    assert_eq!(euler, -99.0);
}

/// A large state in place: 1000 decays `y'ᵢ = −i yᵢ + 1`, each exact for its own rate, from a
/// stepper whose first step made its buffers.
#[test]
fn exponential_euler_on_a_large_state() {
    let n = 1000;
    let forces = WithLinearPart::new(
        InPlace(|y: &Vec<f64>, _t: f64, dy: &mut Vec<f64>| {
            for (i, (d, y)) in dy.iter_mut().zip(y).enumerate() {
                *d = -(i as f64) * y + 1.0;
            }
        }),
        |_: &Vec<f64>, _t: f64, diagonal: &mut Derivative<NoVelocity<f64>, Vec<f64>>| {
            for (i, d) in diagonal.force.iter_mut().enumerate() {
                *d = -(i as f64);
            }
        },
    );
    let mut y = vec![0.0; n];
    let mut stepper = Stepper::new(ExponentialEuler);
    for i in 0..20 {
        stepper.step(&mut y, &forces, i as f64 * 0.5, 0.5).unwrap();
    }
    // With g = 1 constant, exponential Euler is exact: y = (1 − e^(−i t))/i, and t for y₀.
    assert!((y[0] - 10.0).abs() < 1e-12);
    for (i, y) in y.iter().enumerate().skip(1) {
        let rate = i as f64;
        let exact = -(-rate * 10.0).exp_m1() / rate;
        assert!((y - exact).abs() < 1e-14, "{i}: {y} vs {exact}");
    }
}

/// The lecture's form, written out: predict with explicit Euler, then take the whole step
/// with the velocity and force at the prediction.
#[test]
fn predictor_corrector_is_the_lecture_s_formula() {
    let (k, b, dt) = (15.0, 0.3, 0.05);
    let force = move |x: f64, v: f64| -k * x - b * v;
    let spring = move |p: &Particle<f64>, _t: f64| force(p.position(), p.velocity());
    let (mut x, mut v) = (1.0, 0.5);
    let mut particle = Particle::new(1.0, x, v);
    for i in 0..50 {
        let (x_predicted, v_predicted) = (x + v * dt, v + force(x, v) * dt);
        (x, v) = (
            x + v_predicted * dt,
            v + force(x_predicted, v_predicted) * dt,
        );
        PredictorCorrector
            .step(&mut particle, &spring, i as f64 * dt, dt)
            .unwrap();
        assert!((particle.position() - x).abs() < 1e-14);
        assert!((particle.velocity() - v).abs() < 1e-14);
    }
    assert_eq!(PredictorCorrector.properties().evaluations, 2);
}
