//! Radau5 on `M y' = f(t, y)` with a constant, singular mass matrix: index-1
//! differential-algebraic systems (Hairer–Wanner II, VI.1 and VI.6; radau5.f's `IMAS = 1`).
//!
//! - Robertson's kinetics with the conservation law as its third equation
//!   (`y₁' = −0.04 y₁ + 10⁴ y₂ y₃`, `y₂' = 0.04 y₁ − 10⁴ y₂ y₃ − 3·10⁷ y₂²`,
//!   `0 = y₁ + y₂ + y₃ − 1`; Hairer–Wanner II, VI.1, (1.4')) has the solution of the
//!   ODE form: at t = 40 the Test Set's (0.7158270687194065, 9.185534764557796·10⁻⁶,
//!   0.2841637457458298), and y₁(4·10¹⁰) = 5.2083451767·10⁻⁸ (the value the BDF tests
//!   take from Radau5 at rtol 10⁻¹³ on the ODE, agreeing with the published
//!   5.208345·10⁻⁸). Radau IIA is stiffly accurate: each step ends on its last stage,
//!   where the algebraic equation holds, so `y₁ + y₂ + y₃ = 1` to rounding at every step.
//! - `y₁' = −y₁ + y₂`, `0 = y₂ − sin t` from `y₁(0) = 0`: `y₂ = sin t` and
//!   `y₁ = (sin t − cos t + e⁻ᵗ)/2`, both to the tolerance; at fixed steps both of order 5
//!   (an index-1 system keeps Radau IIA's order for both parts: Hairer–Wanner II, VI.1,
//!   Theorem 1.1 and VI.6).
//! - With `M = I` given, every number is the ODE path's, bit for bit.
//! - A start where the algebraic equation does not hold is refused before a step, and
//!   [`Radau5::consistent_start`] completes it (Newton on the algebraic equations: for a
//!   linear one, one iteration with the exact Jacobian).

#![allow(clippy::excessive_precision)]

use crate::common::log_log_slope;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveError, AdaptiveKind, ComponentTolerances, Integrator, Jacobian, Radau5, StepError,
    Tolerances, WithJacobian, WithMass,
};

/// Robertson's rates with the conservation law as the third equation.
pub(super) fn robertson_dae(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let r1 = 0.04 * y[0];
    let r2 = 1e4 * y[1] * y[2];
    let r3 = 3e7 * y[1] * y[1];
    [-r1 + r2, r1 - r2 - r3, y[0] + y[1] + y[2] - 1.0]
}

/// The Jacobian of [`robertson_dae`].
pub(super) fn robertson_jacobian(y: &[f64; 3], _t: f64, j: &mut Jacobian<f64>) {
    j[(0, 0)] = -0.04;
    j[(0, 1)] = 1e4 * y[2];
    j[(0, 2)] = 1e4 * y[1];
    j[(1, 0)] = 0.04;
    j[(1, 1)] = -1e4 * y[2] - 6e7 * y[1];
    j[(1, 2)] = -1e4 * y[1];
    j[(2, 0)] = 1.0;
    j[(2, 1)] = 1.0;
    j[(2, 2)] = 1.0;
}

/// `M = diag(1, 1, 0)`.
pub(super) fn two_differential(m: &mut Jacobian<f64>) {
    m[(0, 0)] = 1.0;
    m[(1, 1)] = 1.0;
}

pub(super) const AT_40: [f64; 3] = [0.7158270687194065, 9.185534764557796e-6, 0.2841637457458298];
pub(super) const Y1_AT_4E10: f64 = 5.2083451767199091e-8;

#[test]
fn robertson_as_a_dae_has_the_ode_solution_and_keeps_the_sum_to_rounding() {
    let forces = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let tolerances = || ComponentTolerances::new(vec![1e-8; 3], vec![1e-14, 1e-18, 1e-14]);
    let mut solver = Adaptive::new(Radau5::new())
        .with_component_tolerances(tolerances())
        .with_initial_step(1e-6);
    let mut y = [1.0, 0.0, 0.0];
    let mut worst: f64 = 0.0;
    let mut sum_error = |y: &[f64; 3]| worst = worst.max((y.iter().sum::<f64>() - 1.0).abs());
    let statistics = solver
        .solve_with(&mut y, &forces, 0.0, 40.0, |step| sum_error(step.end()))
        .unwrap();
    println!("t = 40: {y:?} {statistics:?}");
    for i in 0..3 {
        let relative = (y[i] - AT_40[i]) / AT_40[i];
        assert!(
            relative.abs() < 1e-6,
            "y{} = {} ({relative:e})",
            i + 1,
            y[i]
        );
    }
    assert_eq!(format!("{:.10}", y[0]), "0.7158270687");
    let statistics = solver
        .solve_with(&mut y, &forces, 40.0, 4e10, |step| sum_error(step.end()))
        .unwrap();
    println!("t = 4e10: {y:?} {statistics:?}, |Σy − 1| ≤ {worst:e}");
    let relative = (y[0] - Y1_AT_4E10) / Y1_AT_4E10;
    assert!(
        relative.abs() < 1e-4,
        "y1(4e10) = {:e} ({relative:e})",
        y[0]
    );
    // Rounding of the sum of three numbers of size up to 1, a few ulps.
    assert!(worst <= 4.0 * f64::EPSILON, "the sum drifts by {worst:e}");
}

/// The same with the Jacobian by finite differences, by every method that takes a mass
/// matrix under error control: the algebraic row of the estimate is off by `√ε`, so each
/// Newton correction leaves `√ε` of the constraint's residual: the sum still holds far
/// below the tolerance. (The algebraic `y₃` starts at 0: differenced at its absolute
/// tolerance alone, its step vanished in `y₁ + y₂ + y₃ − 1`, and the BDF and Rodas4
/// refused the start as of index 2.)
#[test]
fn robertson_as_a_dae_with_a_finite_difference_jacobian() {
    let forces = WithMass::new(robertson_dae, two_differential);
    for name in ["radau5", "bdf", "rodas4"] {
        let method: AdaptiveKind = name.parse().unwrap();
        let mut y = [1.0, 0.0, 0.0];
        let mut worst: f64 = 0.0;
        Adaptive::new(method)
            .with_component_tolerances(ComponentTolerances::new(
                vec![1e-8; 3],
                vec![1e-14, 1e-18, 1e-14],
            ))
            .with_initial_step(1e-6)
            .solve_with(&mut y, &forces, 0.0, 40.0, |step| {
                worst = worst.max((step.end().iter().sum::<f64>() - 1.0).abs());
            })
            .unwrap_or_else(|error| panic!("{name}: {error}"));
        for i in 0..3 {
            let relative = (y[i] - AT_40[i]) / AT_40[i];
            assert!(
                relative.abs() < 1e-6,
                "{name}: y{} = {} ({relative:e})",
                i + 1,
                y[i]
            );
        }
        assert!(worst < 1e-12, "{name}: the sum drifts by {worst:e}");
    }
}

/// `y₁' = −y₁ + y₂`, `0 = y₂ − sin t`.
pub(super) fn linear_dae(y: &[f64; 2], t: f64) -> [f64; 2] {
    [-y[0] + y[1], y[1] - t.sin()]
}

pub(super) fn first_differential(m: &mut Jacobian<f64>) {
    m[(0, 0)] = 1.0;
}

pub(super) fn linear_exact(t: f64) -> [f64; 2] {
    [(t.sin() - t.cos() + (-t).exp()) / 2.0, t.sin()]
}

/// The linear DAE to t = 10 by `method` at `rtol = atol`: the largest error of
/// `(y₁, y₂)` at the step ends.
fn linear_errors(method: AdaptiveKind, rtol: f64) -> [f64; 2] {
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

/// `method` on the linear DAE follows its closed form to the tolerance and converges
/// with it.
pub(super) fn assert_linear_dae_converges(method: AdaptiveKind) {
    let errors = [1e-4, 1e-6, 1e-8].map(|rtol| linear_errors(method, rtol));
    println!("{method}: worst errors at rtol 1e-4, 1e-6, 1e-8: {errors:?}");
    for (rtol, worst) in [1e-4, 1e-6, 1e-8].iter().zip(&errors) {
        assert!(worst[0] < 20.0 * rtol, "{method} rtol {rtol:e}: {worst:?}");
        // y₂ = sin t is linear in y₂, but the Jacobian by finite differences has its row
        // off by about √ε: each solve leaves that fraction of the residual, far below the
        // tolerance.
        assert!(worst[1] < 1e-6 * rtol, "{method} rtol {rtol:e}: {worst:?}");
    }
    // A hundredfold tighter tolerance, a much smaller error (tolerance proportionality:
    // between 100 and 100^(3/4) for orders 3 to 5).
    for pair in errors.windows(2) {
        let ratio = pair[0][0] / pair[1][0];
        assert!(ratio > 20.0, "{method}: error ratio {ratio} ({errors:?})");
    }
}

/// The coordinate and the correction (in tolerances) of the `InconsistentStart` that
/// `error` must be; `what` names the run in the panic otherwise.
pub(super) fn inconsistent_start(error: AdaptiveError, what: &str) -> (usize, f64) {
    match error {
        AdaptiveError::StepFailed {
            cause:
                StepError::InconsistentStart {
                    coordinate,
                    correction,
                },
            ..
        } => (coordinate, correction),
        error => panic!("{what}: {error:?}"),
    }
}

/// `method` refuses the linear DAE from `y₂ = 10⁻³` (it should be `sin 0 = 0`), naming
/// `y₂` and how many tolerances it is off, and leaves the state alone.
pub(super) fn assert_inconsistent_start_refused(method: AdaptiveKind) {
    let forces = WithMass::new(linear_dae, first_differential);
    let mut y = [0.0, 1e-3];
    let error = Adaptive::new(method)
        .with_tolerances(Tolerances::new(1e-6, 1e-10))
        .solve(&mut y, &forces, 0.0, 1.0)
        .unwrap_err();
    let (coordinate, correction) = inconsistent_start(error, &method.to_string());
    // Off by 10⁻³ where the tolerance is 10⁻¹⁰ + 10⁻⁶ · 10⁻³.
    assert_eq!(coordinate, 1);
    assert!((correction - 1e-3 / (1e-10 + 1e-9)).abs() < 1e-6 * correction);
    assert_eq!(y, [0.0, 1e-3], "a refused run leaves the state alone");
}

/// `method` refuses `y₁' = y₂`, `0 = y₁ − sin t`, whose algebraic equation does not involve
/// `y₂` (index 2), and leaves the state alone.
pub(super) fn assert_index_two_refused(method: AdaptiveKind) {
    let forces = WithMass::new(
        |y: &[f64; 2], t: f64| [y[1], y[0] - t.sin()],
        first_differential,
    );
    let mut y = [0.0, 1.0];
    let error = Adaptive::new(method)
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
        "{method}: {error:?}"
    );
    assert_eq!(y, [0.0, 1.0]);
}

/// `make()`'s integrator on the linear DAE to t = 2 at 10, 20, 40 and 80 fixed steps: `y₁`
/// converges at `order` (within ±0.3), and every step ends on the algebraic equation,
/// `y₂ = sin t` to `algebraic` (a stiffly accurate method's last stage is the step's end).
pub(super) fn assert_linear_dae_order_at_fixed_steps<I: Integrator<[f64; 2]>>(
    name: &str,
    make: impl Fn() -> I,
    order: f64,
    algebraic: f64,
) {
    let forces = WithMass::new(linear_dae, first_differential);
    let mut points = Vec::new();
    for n in [10, 20, 40, 80] {
        let dt = 2.0 / f64::from(n);
        let mut y = [0.0, 0.0];
        let mut integrator = make();
        for i in 0..n {
            let t = f64::from(i) * dt;
            integrator.step(&mut y, &forces, t, dt).unwrap();
            let off = (y[1] - (t + dt).sin()).abs();
            assert!(off <= algebraic, "{name}, {n} steps: y2 off by {off:e}");
        }
        points.push((dt, (y[0] - linear_exact(2.0)[0]).abs()));
    }
    let measured = log_log_slope(&points);
    println!("{name}: y1 errors {points:?}, order {measured:.2}");
    assert!(
        (measured - order).abs() < 0.3,
        "{name}: order {measured}, not {order}"
    );
}

/// `make()`'s integrator refuses a fixed step of the linear DAE from `y₂ = 10⁻³` (it should
/// be `sin 0 = 0`) with [`StepError::InconsistentStart`] naming `y₂` off by `10⁻³ / scale`
/// (the method's start tolerance there), and leaves the state alone.
pub(super) fn assert_inconsistent_start_refused_at_a_fixed_step<I: Integrator<[f64; 2]>>(
    name: &str,
    mut integrator: I,
    scale: f64,
) {
    let forces = WithMass::new(linear_dae, first_differential);
    let mut y = [0.0, 1e-3];
    let error = integrator.step(&mut y, &forces, 0.0, 0.1).unwrap_err();
    let StepError::InconsistentStart {
        coordinate,
        correction,
    } = error
    else {
        panic!("{name}: {error:?}");
    };
    assert_eq!(coordinate, 1, "{name}");
    let expected = 1e-3 / scale;
    assert!(
        (correction - expected).abs() < 1e-6 * expected,
        "{name}: {correction:e} tolerances, not {expected:e}"
    );
    assert_eq!(
        y,
        [0.0, 1e-3],
        "{name}: a refused step leaves the state alone"
    );
}

/// `make()`'s integrator refuses a fixed step of `y₁' = y₂`, `0 = y₁ − sin t` (index 2)
/// with [`StepError::IndexAboveOne`], and leaves the state alone.
pub(super) fn assert_index_two_refused_at_a_fixed_step<I: Integrator<[f64; 2]>>(
    name: &str,
    mut integrator: I,
) {
    let forces = WithMass::new(
        |y: &[f64; 2], t: f64| [y[1], y[0] - t.sin()],
        first_differential,
    );
    let mut y = [0.0, 1.0];
    let error = integrator.step(&mut y, &forces, 0.0, 0.1).unwrap_err();
    assert_eq!(error, StepError::IndexAboveOne, "{name}");
    assert_eq!(y, [0.0, 1.0], "{name}");
}

#[test]
fn a_linear_dae_follows_its_closed_form_under_error_control() {
    let forces = WithMass::new(linear_dae, first_differential);
    for rtol in [1e-4, 1e-7, 1e-10] {
        let mut y = [0.0, 0.0];
        let mut worst = [0.0_f64; 2];
        Adaptive::new(Radau5::new())
            .with_tolerances(Tolerances::new(rtol, rtol))
            .solve_with(&mut y, &forces, 0.0, 10.0, |step| {
                let exact = linear_exact(step.end_time());
                for i in 0..2 {
                    worst[i] = worst[i].max((step.end()[i] - exact[i]).abs());
                }
            })
            .unwrap();
        println!("rtol {rtol:e}: worst errors {worst:?}");
        // Within the tolerance (radau5.f's tolerances are met to about their size).
        assert!(
            worst[0] < 10.0 * rtol && worst[1] < 10.0 * rtol,
            "{worst:?}"
        );
    }
}

/// At fixed steps: `y₁` of order 5, and `y₂`, which the last stage's algebraic equation
/// gives (`y₂ = sin t` is linear in `y₂`), to rounding.
#[test]
fn a_linear_dae_at_fixed_steps_converges_at_order_five() {
    let forces = WithMass::new(linear_dae, first_differential);
    let mut steps = Vec::new();
    let mut errors = Vec::new();
    for n in [10, 20, 40] {
        let dt = 2.0 / f64::from(n);
        let mut y = [0.0, 0.0];
        let mut radau = Radau5::new();
        for i in 0..n {
            radau.step(&mut y, &forces, f64::from(i) * dt, dt).unwrap();
        }
        let exact = linear_exact(2.0);
        steps.push(dt);
        errors.push((y[0] - exact[0]).abs());
        assert!(
            (y[1] - exact[1]).abs() <= 2.0 * f64::EPSILON,
            "{y:?} vs {exact:?}"
        );
    }
    let points: Vec<(f64, f64)> = steps.iter().copied().zip(errors.iter().copied()).collect();
    let order = log_log_slope(&points);
    println!("y1: errors {errors:?}, order {order:.2}");
    assert!((4.6..5.4).contains(&order), "y1: order {order}");
}

#[test]
fn an_identity_mass_matrix_changes_no_bit() {
    let identity = |m: &mut Jacobian<f64>| {
        for i in 0..3 {
            m[(i, i)] = 1.0;
        }
    };
    let ode = |y: &[f64; 3], _t: f64| {
        let r1 = 0.04 * y[0];
        let r2 = 1e4 * y[1] * y[2];
        let r3 = 3e7 * y[1] * y[1];
        [-r1 + r2, r1 - r2 - r3, r3]
    };
    let run = |with_mass: bool| {
        let mut y = [1.0, 0.0, 0.0];
        let mut solver = Adaptive::new(Radau5::new())
            .with_tolerances(Tolerances::new(1e-6, 1e-10))
            .with_initial_step(1e-6);
        let statistics = if with_mass {
            solver.solve(&mut y, &WithMass::new(ode, identity), 0.0, 1e5)
        } else {
            solver.solve(&mut y, &ode, 0.0, 1e5)
        }
        .unwrap();
        let mut fixed = [1.0, 0.0, 0.0];
        for i in 0..20 {
            let t = f64::from(i) * 1e-4;
            if with_mass {
                Radau5::new().step(&mut fixed, &WithMass::new(ode, identity), t, 1e-4)
            } else {
                Radau5::new().step(&mut fixed, &ode, t, 1e-4)
            }
            .unwrap();
        }
        (y.map(f64::to_bits), fixed.map(f64::to_bits), statistics)
    };
    let (with, without) = (run(true), run(false));
    assert!(with.2.accepted > 50, "{:?}", with.2);
    assert_eq!(with, without);
}

#[test]
fn an_inconsistent_start_is_refused_and_completed() {
    let forces = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    // y₃ should be 0.
    let mut y = [1.0, 0.0, 1e-3];
    let error = solver.solve(&mut y, &forces, 0.0, 1.0).unwrap_err();
    let (coordinate, correction) = inconsistent_start(error, "Radau5");
    // Off by 10⁻³ where the tolerance is 10⁻¹⁰ + 10⁻⁶ · 10⁻³.
    assert_eq!(coordinate, 2);
    assert!((correction - 1e-3 / (1e-10 + 1e-9)).abs() < 1e-6 * correction);
    assert_eq!(y, [1.0, 0.0, 1e-3], "a refused run leaves the state alone");
    // Within the tolerance: accepted.
    let mut close = [1.0, 0.0, 1e-10];
    solver.solve(&mut close, &forces, 0.0, 1.0).unwrap();

    let iterations = Radau5::new()
        .consistent_start(&mut y, &forces, 0.0)
        .unwrap();
    // A linear constraint with its exact Jacobian: one iteration solves it, a second
    // finds nothing left to correct.
    assert_eq!(iterations, 2);
    // 1 + 0 + 10⁻³ − 1 in rounding: 10⁻³ to an ulp of 1.
    assert_eq!((y[0], y[1]), (1.0, 0.0));
    assert!(y[2].abs() <= f64::EPSILON, "{y:?}");
    solver.solve(&mut y, &forces, 0.0, 1.0).unwrap();
}

/// `y₁' = −y₁`, `0 = y₂³ + y₂ − y₁`: from y₁ = 2 the algebraic unknown is y₂ = 1
/// (`1 + 1 = 2`), reached by Newton's method from 0.
#[test]
fn consistent_start_solves_a_nonlinear_constraint() {
    let forces = WithMass::new(
        |y: &[f64; 2], _t: f64| [-y[0], y[1] * y[1] * y[1] + y[1] - y[0]],
        first_differential,
    );
    let mut y = [2.0, 0.0];
    let iterations = Radau5::new()
        .consistent_start(&mut y, &forces, 0.0)
        .unwrap();
    println!("{iterations} iterations: {y:?}");
    assert_eq!(y[0], 2.0);
    assert!((y[1] - 1.0).abs() < 1e-12, "{y:?}");
    assert!((3..=8).contains(&iterations));
    // Without algebraic equations there is nothing to do.
    let mut ode = [2.0, 0.0];
    let plain = |y: &[f64; 2], _t: f64| [-y[0], -y[1]];
    assert_eq!(Radau5::new().consistent_start(&mut ode, &plain, 0.0), Ok(0));
    assert_eq!(ode, [2.0, 0.0]);
    // A constraint that does not involve its unknown (index 2) is refused, the state kept.
    let index_two = WithMass::new(
        |y: &[f64; 2], _t: f64| [y[1], y[0] - 1.0],
        first_differential,
    );
    let mut y = [2.0, 0.0];
    let refused = Radau5::new().consistent_start(&mut y, &index_two, 0.0);
    assert_eq!(refused, Err(StepError::SingularJacobian));
    assert_eq!(y, [2.0, 0.0]);
}

/// An index-2 system: `y' = z`, `0 = y − sin t`, so `z = cos t` (the constraint's
/// derivative). Radau IIA gives `y` at order 5 and `z` at order 3 (Hairer–Wanner II,
/// VI.7); with radau5.f's scaling of the index-2 unknown's error by `h`
/// ([`Radau5::with_higher_index`]) the run meets the tolerance in `y` and a
/// correspondingly looser one in `z`.
#[test]
fn an_index_two_system_with_its_error_scaled_by_the_step() {
    let forces = WithMass::new(
        |y: &[f64; 2], t: f64| [y[1], y[0] - t.sin()],
        first_differential,
    );
    let run = |radau: Radau5| {
        let mut y = [0.0, 1.0];
        let mut worst = [0.0_f64; 2];
        let result = Adaptive::new(radau)
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .solve_with(&mut y, &forces, 0.0, 3.0, |step| {
                let t = step.end_time();
                worst[0] = worst[0].max((step.end()[0] - t.sin()).abs());
                worst[1] = worst[1].max((step.end()[1] - t.cos()).abs());
            });
        (result, worst)
    };
    let (scaled, worst) = run(Radau5::new().with_higher_index(1, 2));
    let statistics = scaled.unwrap();
    println!("index 2 scaled: {statistics:?}, worst errors {worst:?}");
    // y from the constraint, to the Newton iteration's tolerance, far below the error
    // tolerance; z, of order 3, within 10³ tolerances.
    assert!(worst[0] < 1e-10, "{worst:?}");
    assert!(worst[1] < 1e-3, "{worst:?}");
    let (unscaled, worst) = run(Radau5::new());
    println!("index 2 unscaled: {unscaled:?}, worst errors {worst:?}");
    // Unscaled, the index-2 unknown's error estimate does not shrink with the step as the
    // order assumes: it succeeds here, at 42 steps against the scaled run's 26.
    let unscaled = unscaled.expect("the unscaled run ends");
    assert!(
        statistics.steps() < unscaled.steps(),
        "{statistics:?} vs {unscaled:?}"
    );
}

/// radau5.f (Hairer's code, `IMAS = 1` with the banded mass `diag(1, 1, 0)`, analytic
/// Jacobian, scalar rtol 10⁻⁶ and atol 10⁻¹⁰, h₀ = 10⁻⁶, to 4·10¹⁰; built with gfortran
/// -O2 and run outside the crate) reports fcn = 1472, jac = 199, 208 steps of which 206
/// accepted, dec = 208, and y₁ = 5.20827112710018597·10⁻⁸. (At rtol 10⁻⁸, atol 10⁻¹⁴:
/// 3970, 386, 526 accepted, 2 rejected, 406; the example `robertson_dae` takes 3974, 387,
/// 525, 2, 407 there.) `Radau5` here: 1473, 199, 206 and 2, 208.
#[test]
fn robertson_dae_costs_what_radau5_f_reports() {
    let forces = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let mut y = [1.0, 0.0, 0.0];
    let statistics = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-6, 1e-10))
        .with_initial_step(1e-6)
        .solve(&mut y, &forces, 0.0, 4e10)
        .unwrap();
    println!("{y:?} {statistics:?}");
    for (name, ours, theirs) in [
        ("evaluations", statistics.evaluations, 1472),
        ("jacobians", statistics.jacobians, 199),
        ("decompositions", statistics.decompositions, 208),
        ("accepted", statistics.accepted, 206),
    ] {
        let relative = (ours as f64 - theirs as f64) / theirs as f64;
        // 1473 evaluations here (one more), the rest to the count.
        assert!(
            relative.abs() <= 0.01,
            "{name}: {ours} vs radau5.f's {theirs}"
        );
    }
    assert!(statistics.rejected <= 3, "{statistics:?}");
    // The same steps give the same end, to 10⁻⁹ relative here.
    let relative = (y[0] - 5.20827112710018597e-8) / 5.20827112710018597e-8;
    assert!(relative.abs() < 1e-7, "y1 = {:e} ({relative:e})", y[0]);
}
