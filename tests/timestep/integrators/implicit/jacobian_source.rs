//! The crate's one finite-difference Jacobian source (`src/integrators/implicit/jacobian.rs`)
//! as each implicit method uses it, checked against the closed-form Jacobian.
//!
//! - Van der Pol at μ = 10 (`y₁' = y₂`, `y₂' = μ (1 − y₁²) y₂ − y₁`, `J = [[0, 1],
//!   [−2μ y₁ y₂ − 1, μ (1 − y₁²)]]`) from (2, 0): one step of backward Euler, Rodas4 and
//!   Radau5 with differences lands within 10⁻⁶ (relative) of the same step with the
//!   closed-form Jacobian, and the differences cost `n = 2` evaluations per Jacobian: the
//!   runs differ by exactly that many. The BDF and SEULEX, adaptive only, take the same
//!   steps either way, and their differenced runs cost `n` more evaluations per Jacobian
//!   (SEULEX one more per Jacobian when the rate at the step's start was not yet
//!   evaluated: it evaluates it for the differences).
//! - A tridiagonal chain of 8 unknowns (`yᵢ' = (yᵢ₋₁ − 2yᵢ + yᵢ₊₁) − yᵢ³`, ends held at 0)
//!   with a `Banded { lower: 1, upper: 1 }` structure: the differences cost
//!   `lower + upper + 1 = 3` evaluations, and the first banded Jacobian of a workspace one
//!   more, its check against the forces.
//! - Robertson's kinetics as a DAE (the conservation law as the third, algebraic,
//!   equation) with a differenced Jacobian starts under Radau5, the BDF, Rodas4 and
//!   backward Euler, and keeps `y₁ + y₂ + y₃ = 1`: its algebraic unknown `y₃ = 0` is
//!   differenced with a step of at least `√ε`, not on its own (zero) scale.

use super::dae::{robertson_dae, robertson_jacobian, two_differential};
use std::cell::Cell;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveKind, BackwardEuler, Bdf, Integrator, Jacobian, Radau5, Rodas4, Seulex, Statistics,
    Structure, Tolerances, WithJacobian, WithMass,
};

const MU: f64 = 10.0;

/// A step's end with differences, with the closed-form Jacobian, and how many more
/// evaluations the differences made.
type Compared<const N: usize> = ([f64; N], [f64; N], u64);

/// An adaptive method, made anew for each run.
type Kind = fn() -> AdaptiveKind;

fn van_der_pol(y: &[f64; 2]) -> [f64; 2] {
    [y[1], MU * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

fn van_der_pol_jacobian(y: &[f64; 2], j: &mut Jacobian<f64>) {
    j[(0, 0)] = 0.0;
    j[(0, 1)] = 1.0;
    j[(1, 0)] = -2.0 * MU * y[0] * y[1] - 1.0;
    j[(1, 1)] = MU * (1.0 - y[0] * y[0]);
}

const CHAIN: usize = 8;

fn chain(y: &[f64; CHAIN]) -> [f64; CHAIN] {
    core::array::from_fn(|i| {
        let left = if i > 0 { y[i - 1] } else { 0.0 };
        let right = if i + 1 < CHAIN { y[i + 1] } else { 0.0 };
        left - 2.0 * y[i] + right - y[i] * y[i] * y[i]
    })
}

fn chain_jacobian(y: &[f64; CHAIN], j: &mut Jacobian<f64>) {
    for i in 0..CHAIN {
        j[(i, i)] = -2.0 - 3.0 * y[i] * y[i];
        if i > 0 {
            j[(i, i - 1)] = 1.0;
        }
        if i + 1 < CHAIN {
            j[(i, i + 1)] = 1.0;
        }
    }
}

fn chain_start() -> [f64; CHAIN] {
    core::array::from_fn(|i| (1.0 + i as f64).sin())
}

/// The largest difference of `a` and `b` relative to the largest `|bᵢ|`.
fn relative<const N: usize>(a: &[f64; N], b: &[f64; N]) -> f64 {
    let scale = b.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    a.iter()
        .zip(b)
        .fold(0.0_f64, |m, (x, y)| m.max((x - y).abs()))
        / scale
}

/// One step of `method` from `y0` by `dt`, with the forces' differences and with the
/// closed-form Jacobian: the two ends and how many more evaluations the first made.
fn one_step<const N: usize, I: Integrator<[f64; N]>>(
    mut method: impl FnMut() -> I,
    f: fn(&[f64; N]) -> [f64; N],
    jacobian: fn(&[f64; N], &mut Jacobian<f64>),
    y0: [f64; N],
    dt: f64,
) -> Compared<N> {
    let count = Cell::new(0_u64);
    let counted = |y: &[f64; N], _t: f64| {
        count.set(count.get() + 1);
        f(y)
    };
    let mut differenced = y0;
    method()
        .step(&mut differenced, &counted, 0.0, dt)
        .expect("the differenced step");
    let differenced_count = count.replace(0);
    let analytic_forces =
        WithJacobian::new(counted, |y: &[f64; N], _t: f64, j: &mut Jacobian<f64>| {
            jacobian(y, j)
        });
    let mut analytic = y0;
    method()
        .step(&mut analytic, &analytic_forces, 0.0, dt)
        .expect("the analytic step");
    (differenced, analytic, differenced_count - count.get())
}

/// An adaptive run of `kind` over `[0, end]` with differences and with the closed-form
/// Jacobian: the two ends and statistics.
fn adaptive_run<const N: usize>(
    kind: impl Fn() -> AdaptiveKind,
    f: fn(&[f64; N]) -> [f64; N],
    jacobian: fn(&[f64; N], &mut Jacobian<f64>),
    y0: [f64; N],
    end: f64,
) -> ([f64; N], Statistics, [f64; N], Statistics) {
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let mut differenced = y0;
    let differenced_statistics = Adaptive::new(kind())
        .with_tolerances(tolerances)
        .solve(&mut differenced, &|y: &[f64; N], _t: f64| f(y), 0.0, end)
        .expect("the differenced run");
    let analytic_forces = WithJacobian::new(
        |y: &[f64; N], _t: f64| f(y),
        |y: &[f64; N], _t: f64, j: &mut Jacobian<f64>| jacobian(y, j),
    );
    let mut analytic = y0;
    let analytic_statistics = Adaptive::new(kind())
        .with_tolerances(tolerances)
        .solve(&mut analytic, &analytic_forces, 0.0, end)
        .expect("the analytic run");
    (
        differenced,
        differenced_statistics,
        analytic,
        analytic_statistics,
    )
}

#[test]
fn one_differenced_step_of_each_fixed_step_method_matches_the_closed_form_jacobian() {
    let y0 = [2.0, 0.0];
    let dt = 0.05;
    let cases: [(&str, Compared<2>); 3] = [
        (
            "backward-euler",
            one_step(
                BackwardEuler::new,
                van_der_pol,
                van_der_pol_jacobian,
                y0,
                dt,
            ),
        ),
        (
            "rodas4",
            one_step(|| Rodas4, van_der_pol, van_der_pol_jacobian, y0, dt),
        ),
        (
            "radau5",
            one_step(Radau5::new, van_der_pol, van_der_pol_jacobian, y0, dt),
        ),
    ];
    for (name, (differenced, analytic, extra)) in cases {
        let error = relative(&differenced, &analytic);
        println!(
            "{name}: {differenced:?} against {analytic:?}, {error:e}, {extra} evaluations more"
        );
        assert!(error < 1e-6, "{name}: {error:e}");
        assert_eq!(
            extra, 2,
            "{name}: a dense Jacobian of 2 unknowns costs 2 evaluations"
        );
    }
}

#[test]
fn a_banded_differenced_jacobian_costs_a_band_of_evaluations_and_one_check() {
    let y0 = chain_start();
    let dt = 0.1;
    let band = Structure::Banded { lower: 1, upper: 1 };
    let cases: [(&str, Compared<CHAIN>); 3] = [
        (
            "backward-euler",
            one_step(
                || BackwardEuler::new().with_structure(band),
                chain,
                chain_jacobian,
                y0,
                dt,
            ),
        ),
        (
            "rodas4",
            one_step(
                || Rodas4.with_structure(band),
                chain,
                chain_jacobian,
                y0,
                dt,
            ),
        ),
        (
            "radau5",
            one_step(
                || Radau5::new().with_structure(band),
                chain,
                chain_jacobian,
                y0,
                dt,
            ),
        ),
    ];
    for (name, (differenced, analytic, extra)) in cases {
        let error = relative(&differenced, &analytic);
        println!("{name}: {error:e}, {extra} evaluations more");
        assert!(error < 1e-6, "{name}: {error:e}");
        // The analytic run checks its band too (one evaluation): the differences add the
        // band's three.
        assert_eq!(extra, 3, "{name}: lower + upper + 1 = 3 evaluations");
    }
}

#[test]
fn the_adaptive_bdf_and_seulex_take_the_same_steps_with_differences() {
    let y0 = [2.0, 0.0];
    let kinds: [(&str, Kind); 2] = [
        ("bdf", || AdaptiveKind::Bdf(Bdf::new())),
        ("seulex", || AdaptiveKind::Seulex(Seulex::new())),
    ];
    for (name, kind) in kinds {
        let (differenced, d, analytic, a) =
            adaptive_run(kind, van_der_pol, van_der_pol_jacobian, y0, 2.0);
        let error = relative(&differenced, &analytic);
        println!("{name}: {error:e}\n  differenced {d:?}\n  analytic    {a:?}");
        assert!(error < 1e-6, "{name}: {error:e}");
        assert_eq!(
            (d.accepted, d.rejected, d.jacobians),
            (a.accepted, a.rejected, a.jacobians),
            "{name}: the same steps and Jacobians"
        );
        let extra = d.evaluations - a.evaluations;
        let lowest = 2 * d.jacobians;
        assert!(
            (lowest..=lowest + d.jacobians).contains(&extra),
            "{name}: {extra} evaluations more for {} Jacobians",
            d.jacobians
        );
    }
}

#[test]
fn robertson_as_a_dae_starts_with_a_differenced_jacobian() {
    let y0 = [1.0, 0.0, 0.0];
    let differenced = WithMass::new(robertson_dae, two_differential);
    let analytic = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let end = 1e-2;
    let kinds: [(&str, Kind); 3] = [
        ("radau5", || AdaptiveKind::Radau5(Radau5::new())),
        ("bdf", || AdaptiveKind::Bdf(Bdf::new())),
        ("rodas4", || AdaptiveKind::Rodas4(Rodas4.rosenbrock())),
    ];
    for (name, kind) in kinds {
        let tolerances = Tolerances::new(1e-8, 1e-12);
        let mut y = y0;
        Adaptive::new(kind())
            .with_tolerances(tolerances)
            .solve(&mut y, &differenced, 0.0, end)
            .unwrap_or_else(|e| panic!("{name} with differences: {e}"));
        let mut reference = y0;
        Adaptive::new(kind())
            .with_tolerances(tolerances)
            .solve(&mut reference, &analytic, 0.0, end)
            .unwrap_or_else(|e| panic!("{name} with the Jacobian: {e}"));
        let error = relative(&y, &reference);
        let sum = (y.iter().sum::<f64>() - 1.0).abs();
        println!("{name}: {y:?}, {error:e}, |Σy − 1| = {sum:e}");
        assert!(error < 1e-6, "{name}: {error:e}");
        assert!(sum < 1e-14, "{name}: |Σy − 1| = {sum:e}");
    }
    let mut y = y0;
    let mut reference = y0;
    let mut method = BackwardEuler::new();
    let mut with_jacobian = BackwardEuler::new();
    for step in 0..10 {
        let t = step as f64 * 1e-3;
        method
            .step(&mut y, &differenced, t, 1e-3)
            .expect("backward Euler with differences");
        with_jacobian
            .step(&mut reference, &analytic, t, 1e-3)
            .expect("backward Euler with the Jacobian");
    }
    let error = relative(&y, &reference);
    let sum = (y.iter().sum::<f64>() - 1.0).abs();
    println!("backward-euler: {y:?}, {error:e}, |Σy − 1| = {sum:e}");
    assert!(error < 1e-6, "backward-euler: {error:e}");
    assert!(sum < 1e-12, "backward-euler: |Σy − 1| = {sum:e}");
}
