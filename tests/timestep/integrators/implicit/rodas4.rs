//! Rodas4 under error control takes the steps Hairer's rodas.f takes: the same accepted
//! and rejected steps, Jacobians, LU decompositions and force evaluations, and so the same
//! solution to rounding.
//!
//! rodas.f (Hairer–Wanner, "Solving ODEs II", 2nd ed., VI.4; the code as in
//! cpmech/hwode, `rodas.f` with `decsol.f` and `dc_decsol.f`) with its defaults
//! (`IWORK(1..20) = 0`, `WORK(1..20) = 0`: the coefficients `METH = 1`, Gustafsson's
//! predictive controller, safety 0.9, step ratios between 0.2 and 6), an analytic
//! Jacobian (`IJAC = 1`), autonomous (`IFCN = 0`), one tolerance pair (`ITOL = 0`) and a
//! first step `H = 10⁻⁶`, prints in `IWORK(14..20)`:
//!
//! ```text
//! Van der Pol, ε = 10⁻⁶, y₀ = (2, −0.6), x from 0 to 2, RTOL = ATOL:
//!   RTOL     fcn   jac  step  accpt rejct   dec   sol   y(2)
//!   1e-4    1938   308   326   308    16    326  1956   (1.7061494371352217, −0.89282890456056063)
//!   1e-5    3330   545   557   545    10    557  3342   (1.7061655299826692, −0.89281203711870660)
//!   1e-6    6337  1047  1058  1047     9   1058  6348   (1.7061672794298806, −0.89281018545123447)
//! the same from dr_rodas.f's y₀ = (2, −0.66), RTOL = ATOL = 1e-4:
//!           1906   306   320   306    14    320  1920
//! Robertson, y₀ = (1, 0, 0), x from 0 to 40, ATOL = 10⁻⁶ RTOL:
//!   1e-4     245    40    41    40     1     41   246
//!   1e-5     383    63    64    63     1     64   384
//!   1e-6     623   103   104   103     1    104   624
//!   1e-8    2729   454   455   454     1    455  2730
//! ```
//!
//! The conventions differ in one count: rodas.f's `NREJCT` leaves out the rejections
//! before the first accepted step (two on Van der Pol at 10⁻⁴, from h₀ = 10⁻⁶ across the
//! initial layer); [`Statistics::rejected`] counts every rejected attempt, so
//! `accepted + rejected` is rodas.f's `NSTEP`. rodas.f solves six times per step
//! (`sol = 6 step`); the crate does not count solves.
//!
//! rodas.f's rules that make these counts: the error `‖U₆‖` in the RMS norm with scales
//! `atol + rtol · max(|y₀|, |y₁|)`; the step after an accepted step is the shorter of
//! `h · clamp(0.9/err^(1/4), 0.2, 6)` and Gustafsson's prediction
//! ([`Controller::RODAS`]); the step after a rejected one may not grow; a rejected step is
//! retried from the same Jacobian (one Jacobian per accepted step, one decomposition per
//! attempt), and the rate at a step's start is evaluated with the step's Jacobian (five
//! evaluations per attempt and one per accepted step, none after the last).

// Reference values as rodas.f prints them.
#![allow(clippy::excessive_precision)]

use timestep::adaptive::Adaptive;
use timestep::control::Controller;
use timestep::{Forces, Jacobian, Rodas4, Statistics, Tolerances, WithJacobian};

/// Van der Pol in Hairer's scaled form, with its Jacobian (dr_rodas.f's `FVPOL`, `JVPOL`).
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

/// Robertson's kinetics with its Jacobian (Hairer–Wanner II, IV.1, (1.4)).
fn robertson() -> impl Forces<[f64; 3]> {
    WithJacobian::new(
        |y: &[f64; 3], _t: f64| {
            [
                -0.04 * y[0] + 1e4 * y[1] * y[2],
                0.04 * y[0] - 1e4 * y[1] * y[2] - 3e7 * y[1] * y[1],
                3e7 * y[1] * y[1],
            ]
        },
        |y: &[f64; 3], _t: f64, j: &mut Jacobian<'_, f64>| {
            j[(0, 0)] = -0.04;
            j[(0, 1)] = 1e4 * y[2];
            j[(0, 2)] = 1e4 * y[1];
            j[(1, 0)] = 0.04;
            j[(1, 1)] = -1e4 * y[2] - 6e7 * y[1];
            j[(1, 2)] = -1e4 * y[1];
            j[(2, 1)] = 6e7 * y[1];
        },
    )
}

/// rodas.f's `IWORK(14..19)`: fcn, jac, step, accpt, dec (and its `NREJCT`, which
/// leaves out the rejections before the first accepted step).
struct Counts {
    fcn: u64,
    jac: u64,
    step: u64,
    accpt: u64,
    dec: u64,
}

/// Asserts that `ours` are rodas.f's counts.
fn assert_counts(what: &str, ours: &Statistics, theirs: &Counts) {
    let pairs = [
        ("evaluations (fcn)", ours.evaluations, theirs.fcn),
        ("jacobians (jac)", ours.jacobians, theirs.jac),
        ("steps (step)", ours.steps(), theirs.step),
        ("accepted (accpt)", ours.accepted, theirs.accpt),
        ("decompositions (dec)", ours.decompositions, theirs.dec),
    ];
    for (name, ours, theirs) in pairs {
        assert_eq!(ours, theirs, "{what}: {name}, ours against rodas.f's");
    }
}

/// The solver at rodas.f's settings: autonomous (`IFCN = 0`), `RTOL`, `ATOL`, `H = 10⁻⁶`.
fn rodas(rtol: f64, atol: f64) -> Adaptive<[f64; 2], timestep::Rosenbrock<6>> {
    Adaptive::new(Rodas4.assume_autonomous())
        .with_tolerances(Tolerances::new(rtol, atol))
        .with_initial_step(1e-6)
}

#[test]
fn van_der_pol_takes_the_steps_rodas_f_takes() {
    let cases = [
        (
            1e-4,
            Counts {
                fcn: 1938,
                jac: 308,
                step: 326,
                accpt: 308,
                dec: 326,
            },
            16,
            [1.7061494371352217, -0.89282890456056063],
        ),
        (
            1e-5,
            Counts {
                fcn: 3330,
                jac: 545,
                step: 557,
                accpt: 545,
                dec: 557,
            },
            10,
            [1.7061655299826692, -0.89281203711870660],
        ),
        (
            1e-6,
            Counts {
                fcn: 6337,
                jac: 1047,
                step: 1058,
                accpt: 1047,
                dec: 1058,
            },
            9,
            [1.7061672794298806, -0.89281018545123447],
        ),
    ];
    for (tolerance, counts, nrejct, end) in cases {
        let mut y = [2.0, -0.6];
        let statistics = rodas(tolerance, tolerance)
            .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
            .unwrap();
        println!("rtol = atol = {tolerance:e}: y(2) = {y:?}, {statistics:?}");
        assert_counts(
            &format!("Van der Pol at {tolerance:e}"),
            &statistics,
            &counts,
        );
        // rodas.f's NREJCT leaves out the rejections before the first accepted step.
        assert!(statistics.rejected >= nrejct, "{statistics:?}");
        // The same steps, so the same solution, to rounding over a thousand steps.
        for (ours, theirs) in y.iter().zip(end) {
            assert!(
                (ours - theirs).abs() < 1e-11,
                "{y:?} against rodas.f's {end:?}"
            );
        }
    }
}

#[test]
fn van_der_pol_of_dr_rodas_f_takes_the_steps_rodas_f_takes() {
    let mut y = [2.0, -0.66];
    let statistics = rodas(1e-4, 1e-4)
        .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
        .unwrap();
    println!("y(2) = {y:?}, {statistics:?}");
    let counts = Counts {
        fcn: 1906,
        jac: 306,
        step: 320,
        accpt: 306,
        dec: 320,
    };
    assert_counts("dr_rodas.f's Van der Pol", &statistics, &counts);
    // rodas.f: NREJCT = 14, all after the first accepted step.
    assert_eq!(statistics.rejected, 14);
}

#[test]
fn robertson_takes_the_steps_rodas_f_takes() {
    let cases = [
        (
            1e-4,
            Counts {
                fcn: 245,
                jac: 40,
                step: 41,
                accpt: 40,
                dec: 41,
            },
        ),
        (
            1e-5,
            Counts {
                fcn: 383,
                jac: 63,
                step: 64,
                accpt: 63,
                dec: 64,
            },
        ),
        (
            1e-6,
            Counts {
                fcn: 623,
                jac: 103,
                step: 104,
                accpt: 103,
                dec: 104,
            },
        ),
        (
            1e-8,
            Counts {
                fcn: 2729,
                jac: 454,
                step: 455,
                accpt: 454,
                dec: 455,
            },
        ),
    ];
    for (rtol, counts) in cases {
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(Rodas4.assume_autonomous())
            .with_tolerances(Tolerances::new(rtol, 1e-6 * rtol))
            .with_initial_step(1e-6)
            .solve(&mut y, &robertson(), 0.0, 40.0)
            .unwrap();
        println!("rtol = {rtol:e}: y(40) = {y:?}, {statistics:?}");
        assert_counts(&format!("Robertson at {rtol:e}"), &statistics, &counts);
        assert_eq!(statistics.rejected, 1);
    }
}

/// Without Gustafsson's prediction (rodas.f's `IWORK(3) = 2`, the classical controller)
/// the steps that grow across Van der Pol's fast jumps overshoot and are rejected: at
/// 10⁻⁴, about ten times as many rejections, and more steps in all.
#[test]
fn the_prediction_saves_rejected_steps() {
    let classical = Controller {
        predictive: false,
        ..Controller::RODAS
    };
    let mut y = [2.0, -0.6];
    let plain = rodas(1e-4, 1e-4)
        .with_controller(classical)
        .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
        .unwrap();
    let mut y = [2.0, -0.6];
    let predictive = rodas(1e-4, 1e-4)
        .solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0)
        .unwrap();
    println!("classical: {plain:?}\npredictive: {predictive:?}");
    assert!(plain.rejected > 5 * predictive.rejected, "{plain:?}");
    assert!(plain.steps() > predictive.steps(), "{plain:?}");
}
