//! SEULEX, the extrapolated linearly implicit Euler method ([`Seulex`]), against Hairer's
//! own code and the literature's reference solutions.
//!
//! - The step counts of seulex.f (Hairer–Wanner II, IV.9; the code of September 1995 with
//!   the corrections of June 1999, as in cpmech/hwode), run with a driver of our own on
//!   its test problems, at the settings named in each test: the same steps, accepted
//!   steps, Jacobians and LU decompositions, exactly. (Our `evaluations` count the rate
//!   `begin` takes at the start, and the evaluations of finite-difference Jacobians,
//!   which seulex.f's `NFCN` leaves out; our `rejected` count the steps halved on an
//!   unstable Euler step, which its `NREJCT` leaves out: steps − accepted.)
//! - Van der Pol's oscillator in Hairer's scaled form (`ε = 10⁻⁶`, y₀ = (2, −0.66)) at
//!   t = 2 against seulex.f's solution at 10⁻¹², y(2) = (1.706167437543878,
//!   −0.8928100165503831): the error follows the tolerance.
//! - Robertson's kinetics to t = 4·10⁵ against seulex.f's own solution at rtol = 10⁻¹⁰
//!   (0.4938274521412226·10⁻², 0.1984994088129107·10⁻⁷, 0.9950617056285557), which
//!   Radau5 at 10⁻¹² confirms here; the rates sum to zero, so `y₁ + y₂ + y₃ = 1`.
//! - The error is proportional to the tolerance: on the stiff linear problem
//!   `y' = −1000 (y − cos t) − sin t`, whose solution from y(0) = 1 is `cos t`, the error
//!   at t = 2 falls like the tolerance from 10⁻⁴ to 10⁻¹⁰ (slope 1 on a log-log plot) and
//!   stays below it.
//! - The dense output (the polynomial with the extrapolated derivatives at the step's
//!   end) is accurate between steps to the tolerance's order, continuous at the steps,
//!   and a kept interpolant gives the same bits.

// Reference values as their sources print them.
#![allow(clippy::excessive_precision)]

use crate::common;

use approx::assert_relative_eq;
use common::log_log_slope;
use timestep::adaptive::{Adaptive, Direction, Event};
use timestep::{
    AdaptiveError, AdaptiveKind, Forces, InPlace, Jacobian, Radau5, Seulex, StepSequence,
    Structure, Tolerances, WithJacobian,
};

/// Van der Pol in Hairer's scaled form, with its Jacobian (seulex.f's driver's `FVPOL`,
/// `JVPOL`).
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

/// Van der Pol at t = 2 from y₀ = (2, −0.66): seulex.f's solution at rtol = atol = 10⁻¹²
/// (its solution at 10⁻¹⁰ agrees to 3·10⁻¹¹). The Test Set's reference,
/// (1.706167732170456, −0.8928097010248257), which `radau5.rs` checks to 10⁻⁶, is
/// 3·10⁻⁷ from it: seulex.f and this SEULEX agree on 1.7061674375… from 10⁻¹⁰ on.
const VAN_DER_POL_AT_2: [f64; 2] = [1.706167437543878, -0.8928100165503831];

/// Robertson's kinetics (Hairer–Wanner II, IV.1, (1.4)), as seulex.f's `FROBER`.
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let f1 = -0.04 * y[0] + 1.0e4 * y[1] * y[2];
    let f3 = 3.0e7 * y[1] * y[1];
    [f1, -f1 - f3, f3]
}

/// Its Jacobian (seulex.f's `JROBER`).
fn robertson_jacobian(y: &[f64; 3], _t: f64, j: &mut Jacobian<f64>) {
    let [_, b, c] = *y;
    j[(0, 0)] = -0.04;
    j[(0, 1)] = 1e4 * c;
    j[(0, 2)] = 1e4 * b;
    j[(1, 0)] = 0.04;
    j[(1, 1)] = -1e4 * c - 6e7 * b;
    j[(1, 2)] = -1e4 * b;
    j[(2, 1)] = 6e7 * b;
}

/// seulex.f's solution of Robertson at t = 4·10⁵, rtol = 10⁻¹⁰, atol = 10⁻¹⁴.
const ROBERTSON_AT_4E5: [f64; 3] = [
    0.4938274521412226e-2,
    0.1984994088129107e-7,
    0.9950617056285557,
];

/// The stiff linear problem `y' = −1000 (y − cos t) − sin t`: `y = cos t` from y(0) = 1.
fn stiff_linear(y: &f64, t: f64) -> f64 {
    -1000.0 * (y - t.cos()) - t.sin()
}

/// Van der Pol (`ε = 10⁻⁶`, y₀ = (2, −0.66), t from 0 to 2, rtol = atol, h₀ = 10⁻⁶,
/// analytic Jacobian, `IFCN = 1`) and Robertson (y₀ = (1, 0, 0) to t = 4·10⁵, h₀ = 10⁻⁶,
/// analytic Jacobian, `IFCN = 1`): the counts seulex.f reports, `IWORK(14..=19)`
/// (evaluations, Jacobians, steps, accepted, rejected, decompositions), for each step
/// sequence (`IWORK(4)`).
#[test]
fn the_steps_seulex_f_takes() {
    // (sequence, rtol, atol, [fcn, jac, step, accpt, dec]) from seulex.f.
    let van_der_pol_runs = [
        (StepSequence::FromTwo, 1e-4, 1e-4, [3821, 87, 125, 99, 632]),
        (
            StepSequence::FromTwo,
            1e-8,
            1e-8,
            [11490, 134, 146, 136, 1059],
        ),
        (
            StepSequence::FromOne,
            1e-4,
            1e-4,
            [4132, 199, 335, 213, 1236],
        ),
    ];
    for (sequence, rtol, atol, [fcn, jac, step, accpt, dec]) in van_der_pol_runs {
        let mut y = [2.0, -0.66];
        let statistics = Adaptive::new(Seulex::new().with_sequence(sequence))
            .with_tolerances(Tolerances::new(rtol, atol))
            .with_initial_step(1e-6)
            .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
            .unwrap();
        println!("Van der Pol, {sequence:?} at {rtol:e}: y(2) = {y:?}, {statistics:?}");
        let ours = [
            statistics.evaluations,
            statistics.jacobians,
            statistics.steps(),
            statistics.accepted,
            statistics.decompositions,
        ];
        // Our evaluations count the rate at the start, which seulex.f does not take.
        assert_eq!(
            ours,
            [fcn + 1, jac, step, accpt, dec],
            "{sequence:?} at {rtol:e}"
        );
    }
    let robertson_runs = [
        (StepSequence::FromTwo, 1e-6, 1e-10, [1249, 36, 43, 42, 215]),
        (StepSequence::FromTwo, 1e-10, 1e-14, [4100, 70, 70, 70, 481]),
        (StepSequence::FromOne, 1e-6, 1e-10, [989, 41, 43, 43, 236]),
    ];
    for (sequence, rtol, atol, [fcn, jac, step, accpt, dec]) in robertson_runs {
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(Seulex::new().with_sequence(sequence))
            .with_tolerances(Tolerances::new(rtol, atol))
            .with_initial_step(1e-6)
            .solve(
                &mut y,
                &WithJacobian::new(robertson, robertson_jacobian),
                0.0,
                4e5,
            )
            .unwrap();
        println!("Robertson, {sequence:?} at {rtol:e}: y(4e5) = {y:?}, {statistics:?}");
        let ours = [
            statistics.evaluations,
            statistics.jacobians,
            statistics.steps(),
            statistics.accepted,
            statistics.decompositions,
        ];
        assert_eq!(
            ours,
            [fcn + 1, jac, step, accpt, dec],
            "{sequence:?} at {rtol:e}"
        );
    }
}

/// The stiff linear problem, with the Jacobian by finite differences: seulex.f's steps and
/// decompositions (its Jacobians differ: its difference steps are not ours, and the
/// Jacobian is kept while the stability check finds it accurate).
#[test]
fn the_steps_seulex_f_takes_on_the_stiff_linear_problem() {
    // (sequence, tol, [step, accpt, dec]) from seulex.f, h₀ = 10⁻⁶, to t = 2.
    for (sequence, tol, [step, accpt, dec]) in [
        (StepSequence::FromTwo, 1e-4, [9, 9, 18]),
        (StepSequence::FromTwo, 1e-6, [11, 11, 29]),
        (StepSequence::FromTwo, 1e-8, [78, 78, 301]),
        (StepSequence::FromTwo, 1e-10, [26, 26, 140]),
        (StepSequence::FromOne, 1e-10, [360, 358, 2138]),
    ] {
        let mut y = 1.0;
        let statistics = Adaptive::new(Seulex::new().with_sequence(sequence))
            .with_tolerances(Tolerances::new(tol, tol))
            .with_initial_step(1e-6)
            .solve(&mut y, &stiff_linear, 0.0, 2.0)
            .unwrap();
        println!("{sequence:?} at {tol:e}: {statistics:?}");
        assert_eq!(
            [
                statistics.steps(),
                statistics.accepted,
                statistics.decompositions
            ],
            [step, accpt, dec],
            "{sequence:?} at {tol:e}"
        );
    }
}

/// Van der Pol at `ε = 10⁻⁶` meets the reference solution to about the tolerance (the
/// error accumulates through the fast transitions, each of which the steps resolve to the
/// tolerance), and the error falls with the tolerance.
#[test]
fn van_der_pol_meets_the_reference_solution() {
    let mut errors = Vec::new();
    for tol in [1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10] {
        let mut y = [2.0, -0.66];
        let statistics = Adaptive::new(Seulex::new())
            .with_tolerances(Tolerances::new(tol, tol))
            .with_initial_step(1e-6)
            .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
            .unwrap();
        let error = (y[0] - VAN_DER_POL_AT_2[0]).abs();
        println!("{tol:e}: y(2) = {y:?}, error {error:e}, {statistics:?}");
        errors.push((tol, error));
    }
    let slope = log_log_slope(&errors);
    println!("error against tolerance: slope {slope:.2}");
    for (tol, error) in &errors {
        assert!(*error < 100.0 * tol, "{tol:e}: error {error:e}");
    }
    assert!(slope > 0.8, "slope {slope}");
}

/// Van der Pol unscaled at μ = 1000 (`x'' = μ(1 − x²)x' − x`, Hairer–Wanner II, IV.1),
/// from (2, 0) over two periods' worth, t = 2(3 − 2 ln 2) μ ≈ 3227: SEULEX at 10⁻⁶ and
/// 10⁻⁹ meets Radau5's solution at 10⁻¹⁰ (which the relaxation's fast jumps make
/// sensitive: a shift δ in the time of a jump moves x' by about μ δ), in fewer steps
/// than Radau5 at the same tolerance.
#[test]
fn van_der_pol_at_mu_1000() {
    let mu = 1000.0;
    let end = 2.0 * (3.0 - 2.0 * 2.0_f64.ln()) * mu;
    let van_der_pol = move |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
    let run = |method: AdaptiveKind, tol: f64| {
        let mut y = [2.0, 0.0];
        let statistics = Adaptive::new(method.assume_autonomous())
            .with_tolerances(Tolerances::new(tol, tol))
            .solve(&mut y, &van_der_pol, 0.0, end)
            .unwrap();
        println!("{method} at {tol:e}: y = {y:?}, {statistics:?}");
        (y, statistics)
    };
    let (reference, _) = run(AdaptiveKind::Radau5(Radau5::new()), 1e-10);
    for (tol, agreement) in [(1e-6, 1e-3), (1e-9, 1e-6)] {
        let (y, statistics) = run(AdaptiveKind::Seulex(Seulex::new()), tol);
        let (_, radau5) = run(AdaptiveKind::Radau5(Radau5::new()), tol);
        assert!(
            (y[0] - reference[0]).abs() < agreement,
            "{y:?} vs {reference:?}"
        );
        assert!(
            (y[1] - reference[1]).abs() < agreement * mu,
            "{y:?} vs {reference:?}"
        );
        assert!(
            statistics.steps() < radau5.steps(),
            "{statistics:?} vs {radau5:?}"
        );
    }
}

/// Robertson to t = 4·10⁵: seulex.f's solution at rtol = 10⁻¹⁰, and Radau5's at 10⁻¹²,
/// met to the tolerance; mass conserved.
#[test]
fn robertson_to_4e5() {
    let mut reference = [1.0, 0.0, 0.0];
    Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-12, 1e-18))
        .solve(&mut reference, &robertson, 0.0, 4e5)
        .unwrap();
    println!("Radau5 at 10⁻¹²: {reference:?}");
    for (value, seulex_f) in reference.iter().zip(ROBERTSON_AT_4E5) {
        assert_relative_eq!(*value, seulex_f, max_relative = 1e-9);
    }
    for (rtol, atol, agreement) in [(1e-6, 1e-10, 1e-5), (1e-10, 1e-14, 1e-9)] {
        // Finite-difference Jacobian this time.
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(Seulex::new())
            .with_tolerances(Tolerances::new(rtol, atol))
            .solve(&mut y, &robertson, 0.0, 4e5)
            .unwrap();
        println!("{rtol:e}: y(4e5) = {y:?}, {statistics:?}");
        for (value, reference) in y.iter().zip(reference) {
            assert_relative_eq!(*value, reference, max_relative = agreement);
        }
        assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-12, "mass: {y:?}");
        // From the driver's first step (2.4·10⁻⁴ here) the order stays low through
        // t ∈ [0.01, 2] and the run takes 176 steps at 10⁻¹⁰, as seulex.f does from there
        // (177); from h₀ = 10⁻⁶, 70.
        assert!(statistics.accepted < 200, "{statistics:?}");
    }
}

/// The error at t = 2 of the stiff linear problem follows the tolerance, from 10⁻⁴ to
/// 10⁻¹⁰: a slope near 1 on a log-log plot, and at most about the tolerance.
#[test]
fn error_is_proportional_to_the_tolerance() {
    let mut errors = Vec::new();
    for tol in [1e-4, 1e-5, 1e-6, 1e-7, 1e-8, 1e-9, 1e-10] {
        let mut y = 1.0_f64;
        let statistics = Adaptive::new(Seulex::new())
            .with_tolerances(Tolerances::new(tol, tol))
            .solve(&mut y, &stiff_linear, 0.0, 2.0)
            .unwrap();
        let error = (y - 2.0_f64.cos()).abs();
        println!("{tol:e}: error {error:e}, {statistics:?}");
        assert!(error < 2.0 * tol, "{tol:e}: error {error:e}");
        errors.push((tol, error));
    }
    // 2.1·10⁻⁵ at 10⁻⁴, … 1.0·10⁻¹⁰ at 10⁻¹⁰: slope 0.78 (seulex.f's errors at 10⁻⁴
    // and 10⁻⁸ from h₀ = 10⁻⁶ are ours too: 4.5·10⁻⁵ and 2.8·10⁻⁹).
    let slope = log_log_slope(&errors);
    println!("slope {slope:.3}");
    assert!((0.65..1.3).contains(&slope), "slope {slope}");
}

/// The dense output between steps, on the stiff linear problem at ten points inside every
/// step: the polynomial's degree is the number of lines of the step, and the step size
/// is controlled for the extrapolated end value only (seulex.f has no error estimate for
/// its dense output), so the error between steps is above the tolerance on the long steps
/// of low order that loose tolerances allow (the last step at 10⁻⁵, from 0.71 to 2 with
/// three lines, errs by 0.04 at its 0.3, as seulex.f's `CONTEX` does), and falls fast as
/// the tolerance tightens and the orders rise. At each step's end it is the step's end;
/// and a kept interpolant ([`Solution::at`](timestep::adaptive::Solution)) gives the same
/// bits as the step's own dense output.
#[test]
fn dense_output_between_steps() {
    let mut worst_errors = Vec::new();
    for tol in [1e-6, 1e-8, 1e-10, 1e-12] {
        let mut solver = Adaptive::new(Seulex::new()).with_tolerances(Tolerances::new(tol, tol));
        let mut y = 1.0_f64;
        let mut worst = 0.0_f64;
        let mut samples = Vec::new();
        let mut out = 0.0;
        solver
            .solve_with(&mut y, &stiff_linear, 0.0, 2.0, |step| {
                let (t0, t1) = (step.start_time(), step.end_time());
                for i in 1..10 {
                    let t = t0 + (t1 - t0) * i as f64 / 10.0;
                    step.state_at(t, &mut out);
                    worst = worst.max((out - t.cos()).abs());
                    samples.push((t, out));
                }
                step.state_at(t1, &mut out);
                let end = *step.end();
                assert!((out - end).abs() <= 1e-14, "{out} vs {end}");
            })
            .unwrap();
        println!("{tol:e}: largest error between steps {worst:e}");
        worst_errors.push((tol, worst));

        let solution = solver
            .integrate(&stiff_linear, 1.0, 0.0, 2.0)
            .keep_dense(true)
            .solve()
            .unwrap();
        for (t, value) in samples {
            assert_eq!(solution.at(t).unwrap().to_bits(), value.to_bits(), "at {t}");
        }
    }
    // 7.5·10⁻⁵, 2.5·10⁻⁷, 5.2·10⁻⁷, 8.3·10⁻⁹: the dense output improves with the
    // tolerance, not in proportion to it.
    let first = worst_errors[0].1;
    let last = worst_errors[worst_errors.len() - 1].1;
    assert!(
        first < 1e-4 && last < 1e-8 && last < first / 1000.0,
        "{worst_errors:?}"
    );
}

/// The dense output is seulex.f's: the stiff linear problem at rtol = atol = 10⁻⁵,
/// h₀ = 10⁻⁶, its Jacobian given, read at 0.3 of each step, against seulex.f's `CONTEX`
/// at the same points (`IOUT = 2`, `IWORK(4) = 2`).
#[test]
fn dense_output_is_seulex_f_s() {
    // (step start, step end, seulex.f's dense output at 0.3 of the step).
    let seulex_f = [
        (0.0, 0.1e-5, 0.9999999999999548),
        (0.1e-5, 0.7957010852370433e-5, 0.9999999999952277),
        (
            0.7957010852370433e-5,
            0.5635701085237042e-4,
            0.9999999997450976,
        ),
        (
            0.5635701085237042e-4,
            0.3930763361070994e-3,
            0.9999999870474976,
        ),
        (
            0.3930763361070994e-3,
            0.2735636336107098e-2,
            0.9999993578395119,
        ),
        (
            0.2735636336107098e-2,
            0.1903285167843598e-1,
            0.9999706498638991,
        ),
        (
            0.1903285167843598e-1,
            0.9012724162752035e-1,
            0.9991848236838662,
        ),
        (
            0.9012724162752035e-1,
            0.2368387528455718,
            0.9910169670434160,
        ),
        (0.2368387528455718, 0.7109593066383295, 0.9290674139209549),
        (0.7109593066383295, 2.0, 0.4174584481592538),
    ];
    let forces = WithJacobian::new(stiff_linear, |_: &f64, _t: f64, j: &mut Jacobian<f64>| {
        j[(0, 0)] = -1000.0;
    });
    let mut steps = Vec::new();
    let mut out = 0.0;
    Adaptive::new(Seulex::new())
        .with_tolerances(Tolerances::new(1e-5, 1e-5))
        .with_initial_step(1e-6)
        .solve_with(&mut 1.0, &forces, 0.0, 2.0, |step| {
            let (t0, t1) = (step.start_time(), step.end_time());
            step.state_at(t0 + 0.3 * (t1 - t0), &mut out);
            steps.push((t0, t1, out));
        })
        .unwrap();
    assert_eq!(steps.len(), seulex_f.len());
    for (ours, theirs) in steps.iter().zip(seulex_f) {
        println!("{ours:?} seulex.f {theirs:?}");
        // The same steps and values, to rounding (the table extrapolates increments here,
        // states in seulex.f, and the last bits move the step sizes' last bits).
        assert_relative_eq!(ours.0, theirs.0, max_relative = 1e-10);
        assert_relative_eq!(ours.1, theirs.1, max_relative = 1e-10);
        assert_relative_eq!(ours.2, theirs.2, max_relative = 1e-10);
    }
}

/// `"seulex"` names SEULEX in the registry of adaptive methods, both ways.
#[test]
fn the_name_round_trips() {
    let kind: AdaptiveKind = "seulex".parse().unwrap();
    assert_eq!(kind, AdaptiveKind::Seulex(Seulex::new()));
    assert_eq!(kind.to_string(), "seulex");
    assert!(AdaptiveKind::NAMES.contains(&"seulex"));
    assert_eq!(
        kind.assume_autonomous(),
        AdaptiveKind::Seulex(Seulex::new().assume_autonomous())
    );
    // By name, the same run as by type.
    let run = |method: AdaptiveKind| {
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(method)
            .with_tolerances(Tolerances::new(1e-8, 1e-12))
            .solve(&mut y, &robertson, 0.0, 40.0)
            .unwrap();
        (y, statistics)
    };
    let mut y = [1.0, 0.0, 0.0];
    let statistics = Adaptive::new(Seulex::new())
        .with_tolerances(Tolerances::new(1e-8, 1e-12))
        .solve(&mut y, &robertson, 0.0, 40.0)
        .unwrap();
    assert_eq!(run(kind), (y, statistics));
}

/// Told that the forces are autonomous, SEULEX takes the same steps on an autonomous
/// problem (every rate it evaluates has the same value) for fewer evaluations.
#[test]
fn autonomous_forces_take_fewer_evaluations() {
    let run = |method: Seulex| {
        let mut y = [2.0, -0.66];
        let statistics = Adaptive::new(method)
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .with_initial_step(1e-6)
            .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
            .unwrap();
        (y, statistics)
    };
    let (y, general) = run(Seulex::new());
    let (z, autonomous) = run(Seulex::new().assume_autonomous());
    println!("{general:?}\n{autonomous:?}");
    assert_eq!(y, z);
    assert_eq!(
        (general.accepted, general.rejected, general.decompositions),
        (
            autonomous.accepted,
            autonomous.rejected,
            autonomous.decompositions
        )
    );
    assert!(autonomous.evaluations < general.evaluations * 9 / 10);
}

/// The heat equation on 40 points, with a tridiagonal Jacobian by finite differences
/// (three evaluations each): the banded and the dense factorisations take the same steps,
/// and the solution decays as its slowest mode.
#[test]
fn banded_and_dense_jacobians_give_the_same_steps() {
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
    let mut ends = Vec::new();
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 1 }] {
        let mut u = start.clone();
        let statistics = Adaptive::new(Seulex::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-8, 1e-10))
            .solve(&mut u, &heat, 0.0, 0.1)
            .unwrap();
        println!("{structure:?}: {statistics:?}");
        // The slowest mode decays like e^(−λ t), λ = 4 sin²(π dx/2)/dx².
        let lambda = 4.0 * (pi * dx / 2.0).sin().powi(2) / (dx * dx);
        let decay = (-lambda * 0.1_f64).exp();
        for (value, start) in u.iter().zip(&start) {
            assert!(
                (value - start * decay).abs() < 1e-7,
                "{value} vs {}",
                start * decay
            );
        }
        ends.push((u, statistics.steps(), statistics.jacobians));
    }
    // The same steps. On a linear problem the stability check's ratio is rounding, so
    // whether it keeps a Jacobian (below seulex.f's THET) may differ by one decision between
    // the two factorisations (it does under the `deterministic` feature's libm).
    assert_eq!(ends[0].1, ends[1].1);
    assert!(
        ends[0].2.abs_diff(ends[1].2) <= 1,
        "{} vs {} Jacobians",
        ends[0].2,
        ends[1].2
    );
    for (dense, banded) in ends[0].0.iter().zip(&ends[1].0) {
        assert_relative_eq!(*dense, *banded, max_relative = 1e-10);
    }
}

/// Backwards in time, events on the dense output, and bad input: a run of `y' = −y` from
/// 0 back to −2 ends at `e²`; an event at `y = 1/2` on Robertson's first
/// component is found where a tighter run finds it; forces that are not finite stop the
/// run with the last good state; a solution that blows up (`y' = y²`) stops near its
/// singularity.
#[test]
fn backwards_events_and_bad_input() {
    // y' = −y from y(0) = 1 back to t = −2: e², growing backwards.
    let mut y = 1.0_f64;
    let statistics = Adaptive::new(Seulex::new())
        .with_tolerances(Tolerances::new(1e-9, 1e-9))
        .solve(&mut y, &|y: &f64, _t: f64| -y, 0.0, -2.0)
        .unwrap();
    assert!((y - 2f64.exp()).abs() < 1e-7, "{y} {statistics:?}");

    let located = |rtol: f64| {
        let mut y = [1.0, 0.0, 0.0];
        let mut half = Event::new(|y: &[f64; 3], _t: f64| y[0] - 0.5)
            .direction(Direction::Falling)
            .terminal();
        let mut at = f64::NAN;
        Adaptive::new(Seulex::new())
            .with_tolerances(Tolerances::new(rtol, 1e-14))
            .solve_with_events(&mut y, &robertson, 0.0, 1e3, &mut half, |_, t, _| at = t)
            .unwrap();
        (at, y)
    };
    let (loose, y) = located(1e-6);
    let (tight, _) = located(1e-10);
    println!("y₁ = 1/2 at t = {loose} (tight: {tight})");
    assert!((y[0] - 0.5).abs() < 1e-6, "{y:?}");
    assert_relative_eq!(loose, tight, max_relative = 1e-5);

    let mut y = 1.0_f64;
    let poisoned = |y: &f64, t: f64| if t > 0.5 { f64::NAN } else { -y };
    let error = Adaptive::new(Seulex::new())
        .solve(&mut y, &poisoned, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(error, AdaptiveError::NonFiniteError { .. }),
        "{error:?}"
    );
    assert!(y.is_finite());

    let mut y = 1.0_f64;
    let error = Adaptive::new(Seulex::new())
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
    assert!(y.is_finite() && y > 1e3, "y = {y} at {t}");

    let mut y = 1.0_f64;
    let error = Adaptive::new(Seulex::new())
        .solve(&mut y, &stiff_linear, 0.0, f64::NAN)
        .unwrap_err();
    assert!(matches!(error, AdaptiveError::NonFiniteTime { .. }));
    assert_eq!(y, 1.0);
}

/// With `serde`, SEULEX's settings round trip, and unknown fields are refused.
#[cfg(feature = "serde")]
#[test]
fn settings_round_trip_through_serde() {
    let seulex = Seulex::new()
        .with_structure(Structure::Banded { lower: 1, upper: 2 })
        .with_sequence(StepSequence::FromOne)
        .assume_autonomous();
    let json = serde_json::to_string(&seulex).unwrap();
    assert_eq!(
        json,
        r#"{"structure":{"banded":{"lower":1,"upper":2}},"sequence":"from-one","autonomous":true}"#
    );
    assert_eq!(serde_json::from_str::<Seulex>(&json).unwrap(), seulex);
    let default = r#"{"structure":"dense","sequence":"from-two","autonomous":false}"#;
    assert_eq!(
        serde_json::from_str::<Seulex>(default).unwrap(),
        Seulex::new()
    );
    let unknown = r#"{"structure":"dense","sequence":"from-two","autonomous":false,"k":3}"#;
    assert!(serde_json::from_str::<Seulex>(unknown).is_err());
}

/// SEULEX solves `y' = f` only: forces with a mass matrix are refused at the first step,
/// not solved as if `M = I` (here `0 = y₂ − 1` would become `y₂' = y₂ − 1`, which grows).
#[test]
fn a_mass_matrix_is_refused() {
    let dae = timestep::WithMass::new(
        |y: &[f64; 2], _t: f64| [-y[0] + y[1], y[1] - 1.0],
        |m: &mut timestep::Jacobian<f64>| m[(0, 0)] = 1.0,
    );
    let mut y = [0.0, 1.0];
    let error = Adaptive::new(timestep::Seulex::new())
        .solve(&mut y, &dae, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            timestep::AdaptiveError::StepFailed {
                cause: timestep::StepError::MassUnsupported,
                ..
            }
        ),
        "{error:?}"
    );
    assert_eq!(y, [0.0, 1.0]);
}
