//! The Rosenbrock methods on `M y' = f(t, y)` with a constant, singular mass matrix:
//! index-1 differential-algebraic systems, as rodas.f takes them with `IMAS = 1`
//! (Hairer–Wanner II, VI.4: the stages solve `(M/(hγ) − J) Uᵢ = f(Yᵢ) + M Σⱼ (cᵢⱼ/h) Uⱼ`),
//! on the problems of `dae.rs` with their closed forms and reference values.
//!
//! - Robertson's kinetics with the conservation law as its third equation: Rodas4 is
//!   stiffly accurate (its solution is its last stage's `Y₆ + U₆`, and the algebraic row
//!   of the last stage's system is `J₃ U₆ = −f₃(Y₆)` with `J₃ = (1, 1, 1)`), so the sum
//!   `y₁ + y₂ + y₃` is 1 to rounding at every step.
//! - `y₁' = −y₁ + y₂`, `0 = y₂ − sin t`: the closed form `y₁ = (sin t − cos t + e⁻ᵗ)/2`,
//!   the error falling with the tolerance.
//! - An inconsistent start and an index-2 system are refused.

use super::dae::{
    AT_40, assert_inconsistent_start_refused, assert_index_two_refused,
    assert_linear_dae_converges, first_differential, linear_dae, linear_exact, robertson_dae,
    robertson_jacobian, two_differential,
};
use crate::common::log_log_slope;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveKind, Bdf, Integrator, Rodas4, Ros3p, StepError, Stepper, Tolerances, WithJacobian,
    WithMass,
};

#[test]
fn robertson_as_a_dae_by_rodas4_has_the_ode_solution_and_keeps_the_sum_to_rounding() {
    let forces = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let mut y = [1.0, 0.0, 0.0];
    let mut worst = 0.0_f64;
    let statistics = Adaptive::new(Rodas4)
        .with_tolerances(Tolerances::new(1e-8, 1e-14))
        .solve_with(&mut y, &forces, 0.0, 40.0, |step| {
            worst = worst.max((step.end().iter().sum::<f64>() - 1.0).abs());
        })
        .unwrap();
    println!("Rodas4: t = 40 {y:?}, |Σy − 1| ≤ {worst:e}, {statistics:?}");
    for i in 0..3 {
        let relative = (y[i] - AT_40[i]) / AT_40[i];
        assert!(
            relative.abs() < 1e-6,
            "y{}(40) = {} ({relative:e})",
            i + 1,
            y[i]
        );
    }
    assert!(worst < 4.0 * f64::EPSILON, "|Σy − 1| = {worst:e}");
}

#[test]
fn a_linear_dae_follows_its_closed_form_and_converges_with_the_tolerance() {
    assert_linear_dae_converges(AdaptiveKind::Rodas4(Rodas4.rosenbrock()));
    assert_linear_dae_converges(AdaptiveKind::Ros3p(Ros3p.rosenbrock()));
}

#[test]
fn an_inconsistent_start_and_an_index_two_system_are_refused() {
    assert_inconsistent_start_refused(AdaptiveKind::Rodas4(Rodas4.rosenbrock()));
    assert_index_two_refused(AdaptiveKind::Rodas4(Rodas4.rosenbrock()));
}

#[test]
fn a_linear_dae_at_fixed_steps_converges_at_order_four() {
    let forces = WithMass::new(linear_dae, first_differential);
    let mut points = Vec::new();
    for n in [10, 20, 40] {
        let dt = 2.0 / f64::from(n);
        let mut y = [0.0, 0.0];
        let mut rodas = Stepper::new(Rodas4);
        for i in 0..n {
            rodas.step(&mut y, &forces, f64::from(i) * dt, dt).unwrap();
        }
        let exact = linear_exact(2.0);
        points.push((dt, (y[0] - exact[0]).abs()));
        assert!((y[1] - exact[1]).abs() <= 1e-12, "{y:?} vs {exact:?}");
    }
    let order = log_log_slope(&points);
    println!("y1: {points:?}, order {order:.2}");
    assert!((3.6..4.6).contains(&order), "y1: order {order}");
    // And a start off its algebraic equation by more than √ε is refused at a fixed step.
    let error = Stepper::new(Rodas4)
        .step(&mut [0.0, 1e-6], &forces, 0.0, 0.1)
        .unwrap_err();
    assert!(
        matches!(error, StepError::InconsistentStart { coordinate: 1, .. }),
        "{error:?}"
    );
}

/// The linear DAE through ten crossings of `y₂ = sin t = 0.5`, cut at each (a non-terminal
/// event): the state there is read from the dense output, whose algebraic unknown is off
/// its equation by the interpolant's error, and the run goes on from it without a second
/// start check (which would refuse it at a tight tolerance).
fn linear_with_events(method: AdaptiveKind) -> (usize, [f64; 2]) {
    use timestep::adaptive::Event;
    let forces = WithMass::new(linear_dae, first_differential);
    let mut crossings = 0;
    let mut y = [0.0, 0.0];
    Adaptive::new(method)
        .with_tolerances(Tolerances::new(1e-10, 1e-12))
        .solve_with_events(
            &mut y,
            &forces,
            0.0,
            60.0,
            &mut Event::new(|y: &[f64; 2], _t: f64| y[1] - 0.5),
            |_, _, _| crossings += 1,
        )
        .unwrap();
    (crossings, y)
}

#[test]
fn runs_cut_at_events_go_on_from_the_dense_output() {
    for method in [
        AdaptiveKind::Rodas4(Rodas4.rosenbrock()),
        AdaptiveKind::Bdf(Bdf::new()),
    ] {
        let (crossings, y) = linear_with_events(method);
        // sin t = 1/2 twice per period: 10 times in [0, 60].
        assert_eq!(crossings, 20, "{method:?}");
        let exact = linear_exact(60.0);
        assert!(
            (y[0] - exact[0]).abs() < 1e-7,
            "{method:?}: {y:?} vs {exact:?}"
        );
    }
}
