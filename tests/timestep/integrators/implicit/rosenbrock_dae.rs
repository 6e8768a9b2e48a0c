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
    AT_40, first_differential, linear_dae, linear_exact, robertson_dae, robertson_jacobian,
    two_differential,
};
use crate::common::log_log_slope;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveError, Integrator, Rodas4, Ros3p, StepError, Stepper, Tolerances, WithJacobian,
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

/// The largest error of the linear DAE's two unknowns over `[0, 10]` by `method`.
fn linear_errors<M>(method: M, rtol: f64) -> [f64; 2]
where
    M: timestep::control::IntoAdaptive,
    M::Method: timestep::control::AdaptiveMethod<[f64; 2]>,
{
    let forces = WithMass::new(linear_dae, first_differential);
    let mut y = [0.0, 0.0];
    let mut worst = [0.0_f64; 2];
    Adaptive::new(method)
        .with_tolerances(Tolerances::new(rtol, rtol))
        .solve_with(&mut y, &forces, 0.0, 10.0, |step| {
            let exact = linear_exact(step.end_time());
            for (worst, (y, exact)) in worst.iter_mut().zip(step.end().iter().zip(exact)) {
                *worst = worst.max((y - exact).abs());
            }
        })
        .unwrap();
    worst
}

#[test]
fn a_linear_dae_follows_its_closed_form_and_converges_with_the_tolerance() {
    for (name, errors) in [
        (
            "rodas4",
            [1e-4, 1e-6, 1e-8].map(|rtol| linear_errors(Rodas4, rtol)),
        ),
        (
            "ros3p",
            [1e-4, 1e-6, 1e-8].map(|rtol| linear_errors(Ros3p, rtol)),
        ),
    ] {
        println!("{name}: worst errors at rtol 1e-4, 1e-6, 1e-8: {errors:?}");
        for (rtol, worst) in [1e-4, 1e-6, 1e-8].iter().zip(&errors) {
            assert!(worst[0] < 20.0 * rtol, "{name} rtol {rtol:e}: {worst:?}");
            // The algebraic unknown: its equation is linear, and each stage solves its
            // row, up to the √ε error of a Jacobian by differences.
            assert!(worst[1] < 1e-6 * rtol, "{name} rtol {rtol:e}: {worst:?}");
        }
        // A hundredfold tighter tolerance, a much smaller error.
        for pair in errors.windows(2) {
            let ratio = pair[0][0] / pair[1][0];
            assert!(ratio > 20.0, "{name}: error ratio {ratio} ({errors:?})");
        }
    }
}

#[test]
fn an_inconsistent_start_is_refused_by_rodas4() {
    let forces = WithMass::new(linear_dae, first_differential);
    // y₂ should be sin 0 = 0.
    let mut y = [0.0, 1e-3];
    let error = Adaptive::new(Rodas4)
        .with_tolerances(Tolerances::new(1e-6, 1e-10))
        .solve(&mut y, &forces, 0.0, 1.0)
        .unwrap_err();
    let AdaptiveError::StepFailed {
        cause:
            StepError::InconsistentStart {
                coordinate,
                correction,
            },
        ..
    } = error
    else {
        panic!("{error:?}");
    };
    // Off by 10⁻³ where the tolerance is 10⁻¹⁰ + 10⁻⁶ · 10⁻³.
    assert_eq!(coordinate, 1);
    assert!((correction - 1e-3 / (1e-10 + 1e-9)).abs() < 1e-6 * correction);
    assert_eq!(y, [0.0, 1e-3], "a refused run leaves the state alone");
}

/// `y₁' = y₂`, `0 = y₁ − sin t`: the algebraic equation does not involve `y₂` (index 2).
#[test]
fn an_index_two_system_is_refused_by_rodas4() {
    let forces = WithMass::new(
        |y: &[f64; 2], t: f64| [y[1], y[0] - t.sin()],
        first_differential,
    );
    let mut y = [0.0, 1.0];
    let error = Adaptive::new(Rodas4)
        .solve(&mut y, &forces, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::IndexAboveOne,
                ..
            }
        ),
        "{error:?}"
    );
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
fn linear_with_events(method: timestep::AdaptiveKind) -> (usize, [f64; 2]) {
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
    use timestep::{AdaptiveKind, Bdf};
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
