//! The variable-order BDF ([`Bdf`]), CVODE's method, against CVODE's own counts and the
//! literature's reference solutions.
//!
//! - Robertson's kinetics as SUNDIALS' example `cvRoberts_dns` sets it up (y₀ = (1, 0, 0),
//!   rtol 10⁻⁴, atol (10⁻⁸, 10⁻¹⁴, 10⁻⁶), the analytic Jacobian, samples at 0.4·10ᵏ to
//!   4·10¹⁰): CVODE (its `cvRoberts_dns.out`, SUNDIALS 7.5) takes 542 steps, 754 force
//!   evaluations, 11 Jacobians and 107 factorisations and ends at y₁ = 6.934511·10⁻⁸. Like
//!   for like: CVODE's evaluations are its Newton iterations' plus the two of its first
//!   step's guess (`cvHin`) and the one at the start; ours are the Newton iterations' plus
//!   the one at the start (`begin`) and the one of the driver's first-step guess (Hairer's),
//!   and neither counts evaluations for an analytic Jacobian. CVODE's steps are its
//!   accepted steps (`nst`), our `accepted`.
//! - Robertson at rtol 10⁻¹⁰: y₁(4·10¹⁰) = 5.2083451767·10⁻⁸, Radau5 here at rtol 10⁻¹³
//!   (10⁻¹² gives 5.2083451763·10⁻⁸; the published 5.208345·10⁻⁸ agrees).
//! - Van der Pol (ε = 10⁻⁶) at t = 2 against seulex.f's solution at 10⁻¹².
//! - Orders 1 to 5 measured: at orders capped at `q`, the error on `y' = −y²` falls like
//!   `N^(−q)` in the number of steps `N` as the tolerance tightens.
//! - The dense output (the Nordsieck polynomial) between steps, its end at the step's end,
//!   a kept interpolant's bits; banded and dense Jacobians; backwards in time; an event;
//!   bad input.

// Reference values as their sources print them.
#![allow(clippy::excessive_precision)]

use crate::common::log_log_slope;
use approx::assert_relative_eq;
use timestep::adaptive::{Adaptive, Direction, Event};
use timestep::{
    AdaptiveError, Bdf, ComponentTolerances, Forces, InPlace, Jacobian, Structure, Tolerances,
    WithJacobian,
};

/// Robertson's kinetics with its Jacobian, as SUNDIALS' `cvRoberts_dns` (`f`, `Jac`).
fn robertson() -> impl Forces<[f64; 3]> {
    WithJacobian::new(
        |y: &[f64; 3], _t: f64| {
            let (a, b, c) = (0.04 * y[0], 1.0e4 * y[1] * y[2], 3.0e7 * y[1] * y[1]);
            [b - a, a - b - c, c]
        },
        |y: &[f64; 3], _t: f64, j: &mut Jacobian<'_, f64>| {
            j[(0, 0)] = -0.04;
            j[(0, 1)] = 1.0e4 * y[2];
            j[(0, 2)] = 1.0e4 * y[1];
            j[(1, 0)] = 0.04;
            j[(1, 1)] = -1.0e4 * y[2] - 6.0e7 * y[1];
            j[(1, 2)] = -1.0e4 * y[1];
            j[(2, 1)] = 6.0e7 * y[1];
        },
    )
}

/// y₁(4·10¹⁰): Radau5 here at rtol 10⁻¹³ (atol scaled as `cvRoberts_dns`'s).
const ROBERTSON_Y1_AT_4E10: f64 = 5.2083451767199091e-8;

/// CVODE's end on `cvRoberts_dns`, and its counts: steps, evaluations, Jacobians,
/// factorisations.
const CVODE_Y1_AT_4E10: f64 = 6.934511e-8;
const CVODE_COUNTS: [u64; 4] = [542, 754, 11, 107];

/// Robertson with `cvRoberts_dns`'s tolerances times `scale`, sampled at 0.4·10ᵏ,
/// k = 0 … 10, as it samples: the end and the statistics.
fn robertson_run(scale: f64) -> ([f64; 3], timestep::Statistics) {
    let times: Vec<f64> = (0..=11).map(|k| 0.4 * 10f64.powi(k)).collect();
    let tolerances = ComponentTolerances::new(
        vec![1e-4 * scale; 3],
        vec![1e-8 * scale, 1e-14 * scale, 1e-6 * scale],
    );
    let mut y = [1.0, 0.0, 0.0];
    let mut samples = Vec::new();
    let statistics = Adaptive::new(Bdf::new())
        .with_component_tolerances(tolerances)
        .solve_at(&mut y, &robertson(), 0.0, &times, |t, y| {
            samples.push((t, *y))
        })
        .unwrap();
    assert_eq!(samples.len(), times.len());
    for (t, y) in samples {
        // The rates sum to zero: mass is conserved to the tolerance.
        assert!(
            (y.iter().sum::<f64>() - 1.0).abs() < 1e-6 * scale.max(1e-4),
            "{t}: {y:?}"
        );
    }
    (y, statistics)
}

/// `cvRoberts_dns`: each count within 25% of CVODE's, and an end at least as close to the
/// true y₁ as CVODE's (which is 33% off; ours is 1–2%).
#[test]
fn robertson_counts_match_cvode() {
    let (y, statistics) = robertson_run(1.0);
    let ours = [
        statistics.accepted,
        statistics.evaluations,
        statistics.jacobians,
        statistics.decompositions,
    ];
    println!(
        "ours {ours:?} (rejected {}), CVODE {CVODE_COUNTS:?}; y₁ = {:e}",
        statistics.rejected, y[0]
    );
    for (name, (ours, cvode)) in ["steps", "evaluations", "Jacobians", "factorisations"]
        .iter()
        .zip(ours.into_iter().zip(CVODE_COUNTS))
    {
        let ratio = ours as f64 / cvode as f64;
        assert!(
            (0.75..=1.25).contains(&ratio),
            "{name}: {ours} against CVODE's {cvode}"
        );
    }
    assert!(
        (y[0] - ROBERTSON_Y1_AT_4E10).abs() <= (CVODE_Y1_AT_4E10 - ROBERTSON_Y1_AT_4E10).abs(),
        "y₁ = {:e}",
        y[0]
    );
}

/// At rtol 10⁻¹⁰ (every absolute tolerance scaled by 10⁻⁶ too) the end is within 10⁻⁶
/// relative of the true value.
#[test]
fn robertson_at_tight_tolerance() {
    let (y, statistics) = robertson_run(1e-6);
    println!("y₁ = {:.12e}: {statistics:?}", y[0]);
    assert_relative_eq!(y[0], ROBERTSON_Y1_AT_4E10, max_relative = 1e-6);
}

/// Van der Pol in Hairer's scaled form, with its Jacobian.
fn van_der_pol(epsilon: f64) -> impl Forces<[f64; 2]> {
    WithJacobian::new(
        move |y: &[f64; 2], _t: f64| [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / epsilon],
        move |y: &[f64; 2], _t: f64, j: &mut Jacobian<'_, f64>| {
            j[(0, 1)] = 1.0;
            j[(1, 0)] = (-2.0 * y[0] * y[1] - 1.0) / epsilon;
            j[(1, 1)] = (1.0 - y[0] * y[0]) / epsilon;
        },
    )
}

/// Van der Pol with ε = 10⁻⁶ from (2, −0.66) to t = 2, against seulex.f's solution at
/// 10⁻¹² (`integrators::implicit::seulex`): the error follows the tolerance, at 30 to 120
/// times it (the global error of a multistep method on the relaxation's sharp turns grows
/// with the steps taken, as CVODE's does).
#[test]
fn van_der_pol_follows_the_tolerance() {
    const AT_2: [f64; 2] = [1.706167437543878, -0.8928100165503831];
    for tol in [1e-6, 1e-8, 1e-10] {
        let bound = 300.0 * tol;
        for jacobian in [true, false] {
            let mut y = [2.0, -0.66];
            let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(tol, tol));
            let statistics = if jacobian {
                solver.solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
            } else {
                let plain =
                    |y: &[f64; 2], _t: f64| [y[1], ((1.0 - y[0] * y[0]) * y[1] - y[0]) / 1e-6];
                solver.solve(&mut y, &plain, 0.0, 2.0)
            }
            .unwrap();
            let error = (y[0] - AT_2[0]).abs().max((y[1] - AT_2[1]).abs());
            println!("{tol:e} (Jacobian given: {jacobian}): error {error:e}, {statistics:?}");
            assert!(error < bound, "{tol:e}: {error:e}");
        }
    }
}

/// Orders 1 to 5: capped at order `q`, the largest error at the steps' ends on the
/// quadrature `y' = cos t`, y(0) = 0 (y = sin t) to t = 30 falls like `N^(−q)` in the
/// steps `N` taken as the tolerance tightens: with nothing to damp them, the local errors
/// (each `~ tol`, `N ~ tol^(−1/(q+1))` of them) add up to `N · tol ~ N^(−q)` (over a span
/// long enough that the first steps, at the orders below `q`, are few among them).
#[test]
fn orders_one_to_five() {
    let forced = |_: &f64, t: f64| t.cos();
    for q in 1..=5 {
        let tolerances = if q == 1 { 4..=6 } else { 5..=10 };
        let points: Vec<(f64, f64)> = tolerances
            .map(|k| {
                let tol = 10f64.powi(-k);
                let mut y = 0.0;
                let mut worst = 0.0_f64;
                let statistics = Adaptive::new(Bdf::new().with_max_order(q))
                    .with_tolerances(Tolerances::new(tol, tol))
                    .solve_with(&mut y, &forced, 0.0, 30.0, |step| {
                        worst = worst.max((step.end() - step.end_time().sin()).abs());
                    })
                    .unwrap();
                (statistics.accepted as f64, worst)
            })
            .collect();
        let slope = log_log_slope(&points);
        println!("order {q}: {points:?}, slope {slope:.2}");
        assert!(
            (slope + q as f64).abs() < 0.4,
            "order {q}: slope {slope:.2}"
        );
    }
}

/// The stiff linear problem `y' = −1000 (y − cos t) − sin t`, y(0) = 1: y = cos t.
fn stiff_linear(y: &f64, t: f64) -> f64 {
    -1000.0 * (y - t.cos()) - t.sin()
}

/// The dense output between steps follows the solution to about the tolerance, is the
/// step's end at its end, and a kept interpolant gives the same bits.
#[test]
fn dense_output_between_steps() {
    for tol in [1e-6, 1e-9] {
        let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(tol, tol));
        let (mut y, mut out, mut worst) = (1.0_f64, 0.0, 0.0_f64);
        let mut samples = Vec::new();
        solver
            .solve_with(&mut y, &stiff_linear, 0.0, 2.0, |step| {
                let (t0, t1) = (step.start_time(), step.end_time());
                for i in 1..10 {
                    let t = t0 + (t1 - t0) * i as f64 / 10.0;
                    step.state_at(t, &mut out);
                    worst = worst.max((out - t.cos()).abs());
                    samples.push((t, out));
                }
                // θ = (t₁ − t₀)/h is 1 up to rounding.
                step.state_at(t1, &mut out);
                assert!((out - step.end()).abs() <= 1e-14, "{out} vs {}", step.end());
            })
            .unwrap();
        println!("{tol:e}: largest error between steps {worst:e}");
        assert!(worst < 20.0 * tol, "{tol:e}: {worst:e}");
        let solution = solver
            .integrate(&stiff_linear, 1.0, 0.0, 2.0)
            .keep_dense(true)
            .solve()
            .unwrap();
        for (t, value) in samples {
            assert_eq!(solution.at(t).unwrap().to_bits(), value.to_bits(), "at {t}");
        }
    }
}

/// A chain (the heat equation on 40 points): a banded Jacobian by finite differences gives
/// the steps of a dense one, at one evaluation per diagonal instead of one per column, and
/// the solution decays as its slowest mode.
#[test]
fn banded_and_dense_jacobians_on_a_chain() {
    let n = 40;
    let dx = 1.0 / (n + 1) as f64;
    let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = (left - 2.0 * u[i] + right) / (dx * dx);
        }
    });
    let pi = std::f64::consts::PI;
    let start: Vec<f64> = (1..=n).map(|i| (pi * i as f64 * dx).sin()).collect();
    let lambda = 4.0 * (pi * dx / 2.0).sin().powi(2) / (dx * dx);
    let decay = (-lambda * 0.1_f64).exp();
    let mut runs = Vec::new();
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
        let mut u = start.clone();
        let statistics = Adaptive::new(Bdf::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-8, 1e-10))
            .solve(&mut u, &heat, 0.0, 0.1)
            .unwrap();
        println!("{structure:?}: {statistics:?}");
        for (value, start) in u.iter().zip(&start) {
            assert!(
                (value - start * decay).abs() < 1e-6,
                "{value} vs {}",
                start * decay
            );
        }
        runs.push((u, statistics));
    }
    let (dense, banded) = (&runs[0].1, &runs[1].1);
    assert_eq!(
        (dense.accepted, dense.jacobians),
        (banded.accepted, banded.jacobians)
    );
    // A dense Jacobian costs 40 evaluations, a banded one 3 (and one to check the band).
    assert!(banded.evaluations + 30 * banded.jacobians < dense.evaluations);
    for (a, b) in runs[0].0.iter().zip(&runs[1].0) {
        assert_relative_eq!(*a, *b, max_relative = 1e-9);
    }
}

/// Backwards in time, an event on the dense output, and bad input.
#[test]
fn backwards_events_and_bad_input() {
    // y' = −y from y(0) = 1 back to t = −2: e².
    let mut y = 1.0_f64;
    Adaptive::new(Bdf::new())
        .with_tolerances(Tolerances::new(1e-9, 1e-9))
        .solve(&mut y, &|y: &f64, _t: f64| -y, 0.0, -2.0)
        .unwrap();
    assert_relative_eq!(y, 2f64.exp(), max_relative = 1e-6);

    // y = 1/2 at t = ln 2.
    let mut y = 1.0_f64;
    let mut half = Event::new(|y: &f64, _t: f64| y - 0.5)
        .direction(Direction::Falling)
        .terminal();
    let mut at = f64::NAN;
    Adaptive::new(Bdf::new())
        .with_tolerances(Tolerances::new(1e-9, 1e-9))
        .solve_with_events(
            &mut y,
            &|y: &f64, _t: f64| -y,
            0.0,
            5.0,
            &mut half,
            |_, t, _| at = t,
        )
        .unwrap();
    assert_relative_eq!(at, 2f64.ln(), max_relative = 1e-6);

    // Forces that turn NaN stop the run at the last good state.
    let mut y = 1.0_f64;
    let poisoned = |y: &f64, t: f64| if t > 0.5 { f64::NAN } else { -y };
    let error = Adaptive::new(Bdf::new())
        .solve(&mut y, &poisoned, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(error, AdaptiveError::NonFiniteError { .. }),
        "{error:?}"
    );
    assert!(y.is_finite());

    // A solution that blows up at t = 1 (y' = y²) stops near its singularity.
    let mut y = 1.0_f64;
    let error = Adaptive::new(Bdf::new())
        .solve(&mut y, &|y: &f64, _t: f64| y * y, 0.0, 2.0)
        .unwrap_err();
    let t = match error {
        AdaptiveError::StepTooSmall { t, .. }
        | AdaptiveError::NonFiniteError { t, .. }
        | AdaptiveError::StepFailed { t, .. }
        | AdaptiveError::TooManySteps { t, .. } => t,
        other => panic!("{other:?}"),
    };
    assert!((t - 1.0).abs() < 1e-3, "{t}");
}

/// Orders outside 1 to 5 are refused.
#[test]
#[should_panic(expected = "a BDF's order must be between 1 and 5")]
fn order_six_is_refused() {
    let _ = Bdf::new().with_max_order(6);
}

/// With `serde`, the settings round trip; unknown fields and orders out of range are
/// refused.
#[cfg(feature = "serde")]
#[test]
fn settings_round_trip_through_serde() {
    let bdf = Bdf::new()
        .with_structure(Structure::Banded { lower: 1, upper: 2 })
        .with_max_order(3);
    let json = serde_json::to_string(&bdf).unwrap();
    assert_eq!(
        json,
        r#"{"structure":{"banded":{"lower":1,"upper":2}},"max_order":3}"#
    );
    assert_eq!(serde_json::from_str::<Bdf>(&json).unwrap(), bdf);
    let default = r#"{"structure":"dense","max_order":5}"#;
    assert_eq!(serde_json::from_str::<Bdf>(default).unwrap(), Bdf::new());
    assert!(serde_json::from_str::<Bdf>(r#"{"structure":"dense","max_order":0}"#).is_err());
    assert!(serde_json::from_str::<Bdf>(r#"{"structure":"dense","max_order":6}"#).is_err());
    assert!(serde_json::from_str::<Bdf>(r#"{"structure":"dense","max_order":5,"k":1}"#).is_err());
    // The index-2 unknowns' start is written only when set, and 0 is refused.
    let index_two = Bdf::new().with_index_two(4);
    let json = serde_json::to_string(&index_two).unwrap();
    assert_eq!(json, r#"{"structure":"dense","max_order":5,"index_two":4}"#);
    assert_eq!(serde_json::from_str::<Bdf>(&json).unwrap(), index_two);
    let zero = r#"{"structure":"dense","max_order":5,"index_two":0}"#;
    assert!(serde_json::from_str::<Bdf>(zero).is_err());
}

/// `with_index_two(0)` would leave no unknown in the error test: refused.
#[test]
#[should_panic(expected = "at least one unknown of its error test")]
fn index_two_at_zero_is_refused() {
    let _ = Bdf::new().with_index_two(0);
}
