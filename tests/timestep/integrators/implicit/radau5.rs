//! Radau IIA of order 5 ([`Radau5`]), at fixed steps and under error control, against the
//! numbers the literature and Hairer's own code give for it.
//!
//! - At a fixed step the global error of a smooth problem falls like `h⁵`: the 3-stage
//!   Radau IIA method has order `2s − 1 = 5` (Hairer–Wanner II, IV.5).
//! - Van der Pol's oscillator in Hairer's scaled form, `y₁' = y₂`,
//!   `y₂' = ((1 − y₁²) y₂ − y₁)/ε` with `ε = 10⁻⁶`, at the settings of radau5.f's driver
//!   dr1_radau5.f (rtol = atol = 10⁻⁴, h₀ = 10⁻⁶, analytic Jacobian). The counts radau5.f
//!   reports for it from y₀ = (2, −0.6) are those recorded from a run of the Fortran code
//!   in russell_ode (cpmech/russell, `russell_ode/data/fortran_radau5_van_der_pol.txt`):
//!   2248 evaluations, 162 Jacobians, 252 decompositions, 280 steps of which 242
//!   accepted, and y(2) = (1.706163410178080, −0.8927971289301173). From dr1_radau5.f's
//!   own y₀ = (2, −0.66), the end value is checked against the Test Set for IVP Solvers'
//!   reference solution (Hairer's `res_exact_pic`), y(2) = (1.706167732170456,
//!   −0.8928097010248257): the initial layer forgets y₂(0).
//! - Robertson's kinetics to t = 10¹¹: the rates sum to zero, so `y₁ + y₂ + y₃ = 1` at
//!   every step; at t = 40 the solution is (0.7158, 9.185·10⁻⁶, 0.2842) (Hairer–Wanner II,
//!   IV.10, and the Test Set's reference (0.7158270687194065, 9.185534764557796·10⁻⁶,
//!   0.2841637457458298)), and at t = 10¹¹ the Test Set's (2.083340149701255·10⁻⁸,
//!   8.333360770334713·10⁻¹⁴, 0.9999999791665050).
//! - The dense output, the collocation polynomial of degree 3, is of order 3: its error
//!   halfway through one step falls like `h⁴`.

// Reference values as their sources print them.
#![allow(clippy::excessive_precision)]

use crate::common;

use common::log_log_slope;
use timestep::adaptive::{Adaptive, Event};
use timestep::{ComponentTolerances, Tolerances};
use timestep::{
    Dopri5, Forces, InPlace, Integrator, Jacobian, Radau5, StepError, Stepper, Structure,
    WithJacobian,
};

/// Van der Pol in Hairer's scaled form, with its Jacobian (dr1_radau5.f's `FVPOL`,
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

/// `|a − b| ≤ share · b`.
fn within(a: u64, b: u64, share: f64) -> bool {
    (a as f64 - b as f64).abs() <= share * b as f64
}

#[test]
fn van_der_pol_takes_the_steps_radau5_f_takes() {
    let mut y = [2.0, -0.6];
    let mut solver = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-4, 1e-4))
        .with_initial_step(1e-6);
    let statistics = solver.solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0).unwrap();
    println!("{y:?} {statistics:?}");
    // radau5.f: fcn = 2248 jac = 162 dec = 252, 280 steps, 242 accepted. All five agree
    // exactly today; the bound leaves room for rounding to flip one decision. (Our
    // `evaluations` also count the rate `accept` takes at the very end, and `rejected`
    // counts the 30 retries after Newton failures that radau5.f's `NREJCT` leaves out:
    // 38 here against its 8.)
    for (what, ours, theirs) in [
        ("evaluations", statistics.evaluations, 2248),
        ("jacobians", statistics.jacobians, 162),
        ("decompositions", statistics.decompositions, 252),
        ("steps", statistics.steps(), 280),
        ("accepted", statistics.accepted, 242),
    ] {
        assert!(
            within(ours, theirs, 0.03),
            "{what}: {ours} vs radau5.f's {theirs}"
        );
    }
    // The same solution as radau5.f's, to rounding over 280 steps.
    assert!((y[0] - 1.706163410178080).abs() < 1e-10, "{}", y[0]);
    assert!((y[1] + 0.8927971289301173).abs() < 1e-10, "{}", y[1]);
}

#[test]
fn van_der_pol_of_dr1_radau5_f_meets_the_reference_solution() {
    let mut y = [2.0, -0.66];
    let mut solver = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-4, 1e-4))
        .with_initial_step(1e-6);
    let statistics = solver.solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0).unwrap();
    let reference = [1.706167732170456, -0.8928097010248257];
    let error = [y[0] - reference[0], y[1] - reference[1]];
    println!("{y:?} error {error:?} {statistics:?}");
    // radau5.f's error at this tolerance is 4·10⁻⁶ in y₁ (1.706163410 against 1.706167732).
    assert!(error[0].abs() < 2e-5 && error[1].abs() < 2e-5, "{error:?}");
    // As many steps as from (2, −0.6), within a few percent: the layer is resolved alike.
    assert!(within(statistics.accepted, 242, 0.05), "{statistics:?}");

    // Tighter, closer: the error falls with the tolerance.
    let mut y = [2.0, -0.66];
    let mut solver = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-8, 1e-8))
        .with_initial_step(1e-6);
    solver.solve(&mut y, &van_der_pol(1e-6), 0.0, 2.0).unwrap();
    let tight = [y[0] - reference[0], y[1] - reference[1]];
    println!("rtol 1e-8: error {tight:?}");
    // radau5.f's tightened tolerance here is rtol' = rtol^(2/3)/10 = 4.6·10⁻⁷.
    assert!(tight[0].abs() < 1e-6 && tight[1].abs() < 1e-6, "{tight:?}");
}

/// Robertson's kinetics (Hairer–Wanner II, IV.1, (1.4)).
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let r1 = 0.04 * y[0];
    let r2 = 1e4 * y[1] * y[2];
    let r3 = 3e7 * y[1] * y[1];
    [-r1 + r2, r1 - r2 - r3, r3]
}

#[test]
fn robertson_conserves_mass_to_ten_to_the_eleven() {
    let tolerances = || ComponentTolerances::new(vec![1e-8; 3], vec![1e-14, 1e-18, 1e-14]);
    let mut y = [1.0, 0.0, 0.0];
    let mut solver = Adaptive::new(Radau5::new())
        .with_component_tolerances(tolerances())
        .with_initial_step(1e-6);
    let mut worst: f64 = 0.0;
    let statistics = solver
        .solve_with(&mut y, &robertson, 0.0, 40.0, |step| {
            worst = worst.max((step.end().iter().sum::<f64>() - 1.0).abs());
        })
        .unwrap();
    let reference = [0.7158270687194065, 9.185534764557796e-6, 0.2841637457458298];
    println!("t = 40: {y:?} {statistics:?}");
    for i in 0..3 {
        assert!(
            ((y[i] - reference[i]) / reference[i]).abs() < 1e-6,
            "y{} = {} vs {}",
            i + 1,
            y[i],
            reference[i]
        );
    }
    // Four significant digits as printed in Hairer–Wanner.
    assert_eq!(
        format!("{:.4} {:.3e} {:.4}", y[0], y[1], y[2]),
        "0.7158 9.186e-6 0.2842"
    );
    let statistics = solver
        .solve_with(&mut y, &robertson, 40.0, 1e11, |step| {
            worst = worst.max((step.end().iter().sum::<f64>() - 1.0).abs());
        })
        .unwrap();
    let reference = [
        2.083340149701255e-8,
        8.333360770334713e-14,
        0.9999999791665050,
    ];
    println!("t = 1e11: {y:?} {statistics:?}, |Σy − 1| ≤ {worst:e}");
    assert!(worst < 1e-10, "mass drifts by {worst:e}");
    for i in 0..3 {
        assert!(
            ((y[i] - reference[i]) / reference[i]).abs() < 1e-3,
            "y{} = {} vs {}",
            i + 1,
            y[i],
            reference[i]
        );
    }
}

/// The stiff problem explicit methods are held to their stability limit on: Radau5 needs
/// a few hundred evaluations to t = 40 where Dormand–Prince needs hundreds of thousands.
#[test]
fn robertson_costs_radau5_a_fraction_of_what_it_costs_dopri5() {
    let tolerances = || ComponentTolerances::new(vec![1e-6; 3], vec![1e-8, 1e-14, 1e-8]);
    let mut y = [1.0, 0.0, 0.0];
    let radau = Adaptive::new(Radau5::new())
        .with_component_tolerances(tolerances())
        .with_initial_step(1e-6)
        .solve(&mut y, &robertson, 0.0, 40.0)
        .unwrap();
    let mut z = [1.0, 0.0, 0.0];
    let dopri = Adaptive::new(Dopri5)
        .with_component_tolerances(tolerances())
        .with_max_steps(1_000_000)
        .solve(&mut z, &robertson, 0.0, 40.0)
        .unwrap();
    println!("radau5 {radau:?}\ndopri5 {dopri:?}");
    assert!((y[0] - z[0]).abs() < 1e-5 && (y[2] - z[2]).abs() < 1e-5);
    // Dopri5 at its stability limit: |λ| h ≈ 3.3 with λ ≈ −10⁴ at the quasi-steady state.
    assert!(
        dopri.evaluations > 100 * radau.evaluations,
        "{dopri:?} vs {radau:?}"
    );
    // Radau5 with finite differences: each Jacobian costs 3 evaluations more.
    assert!(radau.evaluations < 1000 && radau.jacobians > 0 && radau.decompositions > 0);
}

/// `x'' = −x + cos(t)/10`, `x(0) = 1`, `x'(0) = 0`: `x = cos t + t sin(t)/20`.
fn forced_oscillator(y: &[f64; 2], t: f64) -> [f64; 2] {
    [y[1], -y[0] + 0.1 * t.cos()]
}

fn forced_oscillator_exact(t: f64) -> [f64; 2] {
    [
        t.cos() + 0.05 * t * t.sin(),
        -t.sin() + 0.05 * (t.sin() + t * t.cos()),
    ]
}

#[test]
fn fixed_step_order_is_five() {
    let points: Vec<(f64, f64)> = [10, 20, 40, 80]
        .into_iter()
        .map(|n| {
            let h = 2.0 / n as f64;
            let mut y = [1.0, 0.0];
            let mut radau = Radau5::new();
            for i in 0..n {
                radau
                    .step(&mut y, &forced_oscillator, i as f64 * h, h)
                    .unwrap();
            }
            let exact = forced_oscillator_exact(2.0);
            (h, (y[0] - exact[0]).hypot(y[1] - exact[1]))
        })
        .collect();
    let slope = log_log_slope(&points);
    println!("{points:?}: order {slope}");
    assert!((slope - 5.0).abs() < 0.15, "order {slope}");
}

/// `y' = −100 y` over one fixed step of 0.1 (`z = hλ = −10`), with the exact Jacobian and
/// with one of the wrong sign (+100). Exact, the step is Radau IIA's stability function,
/// the (2, 3) Padé approximation `R(z) = (1 + 2z/5 + z²/20)/(1 − 3z/5 + 3z²/20 − z³/60)`,
/// `R(−10) = 2/38.667`, reached once the control sees the contraction. Wrong, simplified
/// Newton multiplies its error each iteration by `hμ(λ − J̃)/(1 − hμJ̃)` for each eigenvalue
/// `μ` of the method's matrix `A`: 3.14 for the real one (`μ = 0.27489`, radau5.f's
/// `1/U1`) and 2.52 for the complex pair (`0.16256 ± 0.18495i`). The control measures
/// `θ ≥ 0.99`, no Jacobian taken again is better, and the step is refused as diverged,
/// the state unchanged.
#[test]
fn a_fixed_step_converges_to_the_stability_function_and_refuses_a_divergent_iteration() {
    let (lambda, h) = (-100.0, 0.1);
    let jacobian_of = |entry: f64| {
        WithJacobian::new(
            move |y: &f64, _t: f64| lambda * y,
            move |_: &f64, _t: f64, j: &mut Jacobian<'_, f64>| j[(0, 0)] = entry,
        )
    };
    let z: f64 = h * lambda;
    let padé = (1.0 + 2.0 * z / 5.0 + z * z / 20.0)
        / (1.0 - 3.0 * z / 5.0 + 3.0 * z * z / 20.0 - z * z * z / 60.0);
    let mut y = 1.0;
    Radau5::new()
        .step(&mut y, &jacobian_of(lambda), 0.0, h)
        .unwrap();
    assert!((y - padé).abs() < 1e-13, "{y} against R(−10) = {padé}");

    let mut y = 1.0;
    let refused = Radau5::new().step(&mut y, &jacobian_of(-lambda), 0.0, h);
    assert!(
        matches!(refused, Err(StepError::Diverged { contraction, .. }) if contraction > 2.0),
        "{refused:?}"
    );
    assert_eq!(y, 1.0, "a refused step leaves the state");
}

#[test]
fn dense_output_is_of_order_three() {
    // One step of h from the exact start, read halfway: the collocation polynomial's error
    // (O(h⁴)) against the exact solution. The Newton tolerance is tight so that the
    // stages are the collocation solution, and the error tolerance loose so that the one
    // step is accepted.
    let points: Vec<(f64, f64)> = [0.4, 0.2, 0.1, 0.05]
        .into_iter()
        .map(|h| {
            let mut y = [1.0, 0.0];
            let mut middle = [0.0; 2];
            let mut solver = Adaptive::new(Radau5::new().with_tolerance(1e-8))
                .with_tolerances(Tolerances::new(1.0, 1.0))
                .with_initial_step(h);
            let statistics = solver
                .solve_with(&mut y, &forced_oscillator, 0.0, h, |step| {
                    step.state_at(0.5 * h, &mut middle);
                })
                .unwrap();
            assert_eq!(statistics.steps(), 1);
            let exact = forced_oscillator_exact(0.5 * h);
            (h, (middle[0] - exact[0]).hypot(middle[1] - exact[1]))
        })
        .collect();
    let slope = log_log_slope(&points);
    println!("{points:?}: local order {slope}");
    // Local error O(h⁴): an interpolant of order 3.
    assert!((slope - 4.0).abs() < 0.2, "slope {slope}");
}

#[test]
fn events_are_located_on_the_collocation_polynomial() {
    // y' = −y from 1: y = ½ at t = ln 2, found on the dense output.
    let decay = |y: &f64, _t: f64| -y;
    let mut y = 1.0;
    let mut found = Vec::new();
    let mut events = Event::new(|y: &f64, _t: f64| y - 0.5).terminal();
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-8, 1e-8));
    solver
        .solve_with_events(&mut y, &decay, 0.0, 10.0, &mut events, |_, t, _| {
            found.push(t)
        })
        .unwrap();
    assert_eq!(found.len(), 1);
    // rtol = 10⁻⁸ is radau5.f's rtol' = rtol^(2/3)/10 = 4.6·10⁻⁷ per step.
    assert!((found[0] - 2f64.ln()).abs() < 1e-6, "{}", found[0]);
    assert!((y - 0.5).abs() < 1e-6);
}

#[test]
fn observers_see_a_continuous_solution() {
    // Samples every 0.1 from the dense output of a stiff linear system match the exact
    // solution: y₁' = −y₁ + y₂ on a slow manifold, y₂' = −1000 (y₂ − cos t).
    let stiff = |y: &[f64; 2], t: f64| [-y[0] + y[1], -1000.0 * (y[1] - t.cos())];
    let mut y = [0.0, 1.0];
    let mut samples = Vec::new();
    let mut next = 0.1;
    let mut probe = [0.0; 2];
    Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-7, 1e-7))
        .solve_with(&mut y, &stiff, 0.0, 3.0, |step| {
            while next <= step.end_time() {
                step.state_at(next, &mut probe);
                samples.push((next, probe[0]));
                next += 0.1;
            }
        })
        .unwrap();
    // To O(1/1000): y₂ ≈ cos t, so y₁ ≈ (cos t + sin t − e^(−t))/2.
    for (t, y1) in samples {
        let slow = 0.5 * (t.cos() + t.sin() - (-t).exp());
        assert!((y1 - slow).abs() < 2e-3, "t = {t}: {y1} vs {slow}");
    }
}

/// The heat equation `u_t = u_xx` on `n` interior points, written in place.
fn heat(n: usize) -> impl Fn(&Vec<f64>, f64, &mut Vec<f64>) {
    let scale = ((n + 1) * (n + 1)) as f64;
    move |u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            out[i] = (left - 2.0 * u[i] + right) * scale;
        }
    }
}

#[test]
fn banded_and_dense_jacobians_give_the_same_steps() {
    let n = 40;
    let start: Vec<f64> = (1..=n)
        .map(|i| (std::f64::consts::PI * i as f64 / (n + 1) as f64).sin())
        .collect();
    let forces = InPlace(heat(n));
    let run = |structure| {
        let mut u = start.clone();
        let statistics = Adaptive::new(Radau5::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-6, 1e-9))
            .solve(&mut u, &forces, 0.0, 0.1)
            .unwrap();
        (u, statistics)
    };
    let (dense, dense_statistics) = run(Structure::Dense);
    let (banded, banded_statistics) = run(Structure::Banded { lower: 1, upper: 1 });
    println!("dense {dense_statistics:?}\nbanded {banded_statistics:?}");
    // The slowest mode decays like e^(−π² t) (up to the grid's O(dx²)).
    let pi2 = std::f64::consts::PI.powi(2);
    let middle = banded[n / 2] / (std::f64::consts::PI * (n / 2 + 1) as f64 / (n + 1) as f64).sin();
    assert!((middle - (-pi2 * 0.1).exp()).abs() < 1e-3, "{middle}");
    for (d, b) in dense.iter().zip(&banded) {
        assert!((d - b).abs() < 1e-9, "{d} vs {b}");
    }
    // A linear problem: Newton converges in one iteration (contraction 0 ≤ radau5.f's
    // THET), so the one Jacobian of the start serves the whole run, and the
    // factorisations are redone only when the step changes by more than 20%.
    assert_eq!(banded_statistics.jacobians, 1);
    assert!(banded_statistics.decompositions < banded_statistics.accepted);
    // Same steps; a Jacobian by differences costs 3 evaluations banded, 40 dense, and the
    // first banded one a fourth, which checks the band against the forces.
    assert_eq!(dense_statistics.steps(), banded_statistics.steps());
    assert_eq!(dense_statistics.jacobians, banded_statistics.jacobians);
    assert_eq!(
        dense_statistics.evaluations - banded_statistics.evaluations,
        (n as u64 - 3) * dense_statistics.jacobians - 1
    );
}

#[test]
fn fixed_steps_go_backwards_stop_at_zero_and_refuse_non_finite_forces() {
    let decay = |y: &f64, _t: f64| -y;
    let mut radau = Radau5::new();
    // Backwards: y' = −y from y(0) = 1 to t = −1 is e.
    let mut y = 1.0;
    for i in 0..10 {
        radau.step(&mut y, &decay, -0.1 * i as f64, -0.1).unwrap();
    }
    assert!((y - 1f64.exp()).abs() < 1e-8, "{y}");
    // dt = 0: nothing.
    let mut y = 1.0;
    radau.step(&mut y, &decay, 0.0, 0.0).unwrap();
    assert_eq!(y, 1.0);
    // Huge steps: L-stable, the stiff decay is damped, not amplified: R(z) → −3/z for
    // large |z| (the (2, 3) Padé approximation), 3·10⁻¹² at z = −10¹².
    let mut y = 1.0;
    radau.step(&mut y, &decay, 0.0, 1e12).unwrap();
    assert!((y - 3e-12).abs() < 1e-15, "{y}");
    // Extreme steps: 10³⁰⁰ (R = 3·10⁻³⁰⁰, which the step's increment Z₃ ≈ −1 resolves
    // only to rounding of the start, 10⁻¹⁶) and a subnormal 10⁻³¹⁰ (nothing moves): the
    // matrices are γ I − h J, finite for both.
    let mut y = 1.0;
    radau.step(&mut y, &decay, 0.0, 1e300).unwrap();
    assert!(y.abs() <= f64::EPSILON, "{y}");
    let mut y = 1.0;
    radau.step(&mut y, &decay, 0.0, 1e-310).unwrap();
    assert_eq!(y, 1.0);
    // Non-finite forces: refused, the state untouched.
    let broken = |_: &f64, _t: f64| f64::NAN;
    let mut y = 1.0;
    assert_eq!(
        radau.step(&mut y, &broken, 0.0, 0.1),
        Err(StepError::NonFiniteResidual)
    );
    assert_eq!(y, 1.0);
    // Forces that are finite at the start and not at the stages: refused too.
    let cliff = |y: &f64, _t: f64| if *y < 0.99 { f64::INFINITY } else { -y };
    let mut y = 1.0;
    assert!(radau.step(&mut y, &cliff, 0.0, 0.5).is_err());
    assert_eq!(y, 1.0);
    // Through a Stepper, in f32.
    let mut y = 1.0_f32;
    let mut stepper = Stepper::new(Radau5::new());
    for i in 0..10 {
        stepper
            .step(&mut y, &|y: &f32, _t: f32| -y, i as f32 * 0.1, 0.1)
            .unwrap();
    }
    assert!((y - (-1.0_f32).exp()).abs() < 1e-5, "{y}");
}

#[test]
fn adaptive_runs_report_non_finite_forces() {
    let broken = |_: &f64, _t: f64| f64::NAN;
    let mut y = 1.0;
    let error = Adaptive::new(Radau5::new())
        .solve(&mut y, &broken, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(error, timestep::AdaptiveError::NonFiniteError { .. }),
        "{error:?}"
    );
    // Finite at the start, infinite beyond a cliff the steps must not cross: the run
    // shrinks its steps until they are too small for t.
    let cliff = |y: &f64, t: f64| if t > 0.5 { f64::INFINITY } else { -y };
    let mut y = 1.0;
    let error = Adaptive::new(Radau5::new())
        .solve(&mut y, &cliff, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            timestep::AdaptiveError::StepTooSmall { .. }
                | timestep::AdaptiveError::NonFiniteError { .. }
        ),
        "{error:?}"
    );
}

#[test]
fn adaptive_runs_go_backwards() {
    // y' = −y from y(0) = 1 back to t = −2: e², growing backwards, to the tolerance.
    let decay = |y: &f64, _t: f64| -y;
    let mut y = 1.0;
    let statistics = Adaptive::new(Radau5::new())
        .with_tolerances(Tolerances::new(1e-8, 1e-8))
        .solve(&mut y, &decay, 0.0, -2.0)
        .unwrap();
    assert!(
        (y - 2f64.exp()).abs() < 1e-5 * 2f64.exp(),
        "{y} {statistics:?}"
    );
    assert!(statistics.accepted > 3);
}
