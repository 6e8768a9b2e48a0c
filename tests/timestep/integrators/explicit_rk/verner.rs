//! Verner's pairs (J. H. Verner, "Numerically optimal Runge–Kutta pairs with interpolants",
//! Numer. Algorithms 53 (2010) 383–396): each table's simplest order conditions to
//! rounding, and the three orders of each pair measured on a nonlinear problem.
//!
//! A pair of orders p(p̂) with an interpolant of order q makes, in one step of length h,
//! a local error `O(h^(p+1))` in the propagated solution, an error estimate
//! `h Σ eᵢ kᵢ = O(h^(p̂+1))` (the embedded solution's local error: the propagated one is
//! smaller), and an error `O(h^(q+1))` in the dense output inside the step. Halving `h`
//! divides each by `2^(order+1)`. Measured through the [`AdaptiveMethod`] calls the driver
//! makes, on Kepler's problem with eccentricity ½ from aphelion (every elementary
//! differential of a nonlinear four-dimensional system, where a scalar or linear problem
//! would hide some of the order conditions), against DOP853 at 1/200 of the step.
//!
//! The full set of order conditions (every rooted tree) is in `tableaus.rs`.

use timestep::control::{AdaptiveMethod, IntoAdaptive};
use timestep::{
    Adaptive, AdaptiveKind, Dop853, EmbeddedPair, Integrator, Statistics, Tolerances, Vern6, Vern7,
    Vern8, Vern9,
};

use crate::common::log_log_slope;
use std::f64::consts::SQRT_2;

/// Kepler's problem, `GM = 1`: `x″ = −x/|x|³`, `y = (x, y, vx, vy)`.
fn kepler(y: &[f64; 4], _t: f64) -> [f64; 4] {
    let r2 = y[0] * y[0] + y[1] * y[1];
    let r3 = r2 * r2.sqrt();
    [y[2], y[3], -y[0] / r3, -y[1] / r3]
}

/// Aphelion of the orbit with `a = 1`, `e = ½`: `r = 1.5`, speed `√((1 − e)/(1 + e))`.
const START: [f64; 4] = [1.0, 0.3, -0.2, 0.9];

/// The state at `t` from [`START`], by DOP853 in 200 steps (its error, `O((t/200)⁸)`, is
/// far below what is measured).
fn reference(t: f64) -> [f64; 4] {
    let mut y = START;
    let dt = t / 200.0;
    for i in 0..200 {
        Dop853.step(&mut y, &kepler, i as f64 * dt, dt).unwrap();
    }
    y
}

fn distance(a: &[f64; 4], b: &[f64; 4]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(x, y)| (x - y).powi(2))
        .sum::<f64>()
        .sqrt()
}

/// One step of `h` from [`START`] as the driver takes it: the propagated solution's error,
/// the error estimate (its RMS norm, with absolute tolerance 1), the dense output's error
/// at mid-step, and the evaluations of the step without reading its dense output and with.
fn one_step<M: IntoAdaptive<Method: AdaptiveMethod<[f64; 4]>>>(
    method: M,
    h: f64,
) -> ([f64; 3], [u64; 2]) {
    let method = method.into_adaptive();
    let mut evaluations = [0; 2];
    let mut errors = [0.0; 3];
    for (dense, evaluations) in [false, true].into_iter().zip(&mut evaluations) {
        let mut workspace = method.workspace(&START);
        let mut statistics = Statistics::default();
        let mut end = START;
        method.begin(&mut workspace, &START, &kepler, 0.0, &mut statistics);
        let estimate = method
            .attempt(
                &mut workspace,
                &START,
                &kepler,
                0.0,
                h,
                &Tolerances::new(0.0, 1.0),
                &mut end,
                &mut statistics,
            )
            .unwrap();
        method.accept(
            &mut workspace,
            &START,
            &end,
            &kepler,
            0.0,
            h,
            dense,
            &mut statistics,
        );
        if dense {
            method.prepare_dense(&mut workspace, &START, &kepler, 0.0, h, &mut statistics);
            let mut middle = START;
            method.dense(&mut workspace, &START, h, 0.5, &mut middle);
            errors = [
                distance(&end, &reference(h)),
                estimate,
                distance(&middle, &reference(0.5 * h)),
            ];
        }
        *evaluations = statistics.evaluations;
    }
    (errors, evaluations)
}

/// The orders `(p, p̂, q)` measured from one step at each of `steps`, as log–log slopes
/// less one; and the evaluations of a step without and with its dense output.
fn measured_orders<M: IntoAdaptive<Method: AdaptiveMethod<[f64; 4]>> + Copy>(
    method: M,
    steps: [f64; 3],
) -> ([f64; 3], [u64; 2]) {
    let runs = steps.map(|h| one_step(method, h));
    let orders = core::array::from_fn(|which| {
        let points: Vec<(f64, f64)> = (steps.iter().zip(&runs))
            .map(|(h, (errors, _))| (*h, errors[which]))
            .collect();
        println!("{points:?}");
        log_log_slope(&points) - 1.0
    });
    (orders, runs[0].1)
}

/// `cᵢ = Σⱼ aᵢⱼ` to rounding (relative to `Σⱼ |aᵢⱼ|`, the size of the terms summed), and the
/// quadrature conditions `Σᵢ wᵢ cᵢᵏ = θ^(k+1)/(k+1)`, `k < order`, for the propagated
/// weights (`θ = 1`, order p), the embedded ones (order p̂) and the interpolant's `w(θ)`
/// (order q).
fn check_quadrature<const N: usize>(pair: &EmbeddedPair<N>) {
    let t = &pair.tableau;
    for i in 0..N {
        let sum: f64 = t.a[i].iter().sum();
        let size: f64 = t.a[i].iter().map(|a| a.abs()).sum();
        assert!(
            (sum - t.c[i]).abs() <= 4.0 * f64::EPSILON * size.max(1.0),
            "{}: c[{i}] = {} ≠ Σ a = {sum}",
            t.name,
            t.c[i]
        );
    }
    let embedded: [f64; N] = core::array::from_fn(|i| t.b[i] - pair.error[i]);
    // Each weight with the size of the terms it was summed from: the interpolant's
    // polynomials have coefficients up to 10⁴ that cancel to weights of order 1.
    let mut weights = vec![
        (1.0, t.b, t.b.map(f64::abs), t.order),
        (1.0, embedded, embedded.map(f64::abs), pair.embedded_order),
    ];
    for theta in [0.3, 0.5, 0.8_f64] {
        let size = pair.dense.map(|row| {
            (row.iter().enumerate())
                .map(|(k, r)| (r * theta.powi(k as i32 + 1)).abs())
                .sum()
        });
        weights.push((theta, pair.dense_weights(theta), size, pair.dense_order));
    }
    for (theta, w, w_size, order) in weights {
        for k in 0..order as i32 {
            let sum: f64 = (0..N).map(|i| w[i] * t.c[i].powi(k)).sum();
            let size: f64 = (0..N).map(|i| w_size[i] * t.c[i].powi(k).abs()).sum();
            let exact = theta.powi(k + 1) / f64::from(k + 1);
            assert!(
                (sum - exact).abs() <= 64.0 * f64::EPSILON * size,
                "{} at θ = {theta}: Σ w c^{k} = {sum}, not {exact}",
                t.name
            );
        }
    }
}

#[test]
fn verner_tables_meet_their_quadrature_conditions() {
    check_quadrature(&Vern6::PAIR);
    check_quadrature(&Vern7::PAIR);
    check_quadrature(&Vern8::PAIR);
    check_quadrature(&Vern9::PAIR);
}

/// Checks the orders `(p, p̂, q)` measured from one step of each length in `steps`, and the
/// evaluations of a step without and with its dense output.
///
/// Each order is measured at least as high as its theory (less 0.3), and up to one and a
/// half higher: Verner chose each table to make the terms of the order above its own small
/// (Vern6's order-7 conditions are missed by at most 1.8·10⁻³ of their size, its order-8
/// ones by up to 0.49; Vern9's embedded weights miss order 9 by 0.07 and order 10 by 5), so
/// over the steps whose errors stand above rounding the next order's terms may still
/// dominate. The exact orders are in `tableaus.rs`; here a table that lost an order would
/// fall below the band.
fn check_orders<M: IntoAdaptive<Method: AdaptiveMethod<[f64; 4]>> + Copy>(
    name: &str,
    method: M,
    steps: [f64; 3],
    theory: [f64; 3],
    evaluations: [u64; 2],
) {
    let (orders, measured_evaluations) = measured_orders(method, steps);
    println!(
        "{name}: orders {orders:.2?} (theory {theory:?}), evaluations {measured_evaluations:?}"
    );
    for ((what, measured), theory) in ["solution", "estimate", "dense output"]
        .into_iter()
        .zip(orders)
        .zip(theory)
    {
        assert!(
            measured > theory - 0.3 && measured < theory + 1.5,
            "{name}: {what} order {measured}, theory {theory}"
        );
    }
    assert_eq!(measured_evaluations, evaluations, "{name}");
}

/// Vern6: orders 6(5), interpolant 6; `begin`'s evaluation and eight stages a step (its
/// ninth is the next step's first), and the interpolant's three only when the dense output
/// is read.
#[test]
fn vern6_has_its_orders() {
    check_orders("vern6", Vern6, [0.4, 0.2, 0.1], [6.0, 5.0, 6.0], [9, 12]);
}

/// Vern7: orders 7(6), interpolant 6 (of degree 7: see [`Vern7`]); `begin`'s evaluation,
/// nine stages and the rate at the new state a step, and the interpolant's five only when
/// the dense output is read.
#[test]
fn vern7_has_its_orders() {
    check_orders("vern7", Vern7, [0.4, 0.2, 0.1], [7.0, 6.0, 6.0], [11, 16]);
}

/// Vern8: orders 8(7), interpolant 8; `begin`'s evaluation, twelve stages and the rate at
/// the new state a step, and the interpolant's seven only when the dense output is read.
/// Steps a factor √2 apart: the interpolant's coefficients (up to 1.4·10⁶) leave a
/// rounding error of about 10⁻¹¹ h |f| in the dense output inside the step (4·10⁻¹⁰ h |f|
/// at its end: `the_dense_output_at_a_step_s_end_is_the_end_to_its_weights_rounding`),
/// reached by its truncation error below h = 0.3.
#[test]
fn vern8_has_its_orders() {
    check_orders(
        "vern8",
        Vern8,
        [0.8, 0.8 / SQRT_2, 0.4],
        [8.0, 7.0, 8.0],
        [14, 21],
    );
}

/// Vern9: orders 9(8), interpolant 9; `begin`'s evaluation, fifteen stages and the rate at
/// the new state a step, and the interpolant's nine only when the dense output is read.
#[test]
fn vern9_has_its_orders() {
    check_orders(
        "vern9",
        Vern9,
        [0.8, 0.8 / SQRT_2, 0.4],
        [9.0, 8.0, 9.0],
        [17, 26],
    );
}

/// Through the driver, the interpolant's stages are evaluated only for the steps whose
/// dense output is read, once however often it is read: an observer that reads nothing
/// costs what a plain run costs, and one that reads three states a step costs the extra
/// stages once a step (Verner's three to nine, DOP853's three).
#[test]
fn interpolant_stages_are_evaluated_once_for_each_step_read() {
    for (name, extra) in [
        ("vern6", 3),
        ("vern7", 5),
        ("vern8", 7),
        ("vern9", 9),
        ("dop853", 3),
    ] {
        let kind: AdaptiveKind = name.parse().unwrap();
        let mut solver = Adaptive::new(kind).with_tolerances(Tolerances::new(1e-10, 1e-10));
        let plain = solver.solve(&mut START.clone(), &kepler, 0.0, 5.0).unwrap();
        let observed = solver
            .solve_with(&mut START.clone(), &kepler, 0.0, 5.0, |_step| {})
            .unwrap();
        let mut sample = START;
        let read = solver
            .solve_with(&mut START.clone(), &kepler, 0.0, 5.0, |step| {
                let (t0, t1) = (step.start_time(), step.end_time());
                for theta in [0.25, 0.5, 0.75] {
                    step.state_at(t0 + theta * (t1 - t0), &mut sample);
                }
            })
            .unwrap();
        assert_eq!(plain.accepted, read.accepted, "{name}");
        assert_eq!(observed.evaluations, plain.evaluations, "{name}");
        assert_eq!(
            read.evaluations,
            plain.evaluations + extra * read.accepted,
            "{name}"
        );
    }
}
