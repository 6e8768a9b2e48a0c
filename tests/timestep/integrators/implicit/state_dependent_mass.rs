//! A mass matrix that depends on the state, `M(t, y) y' = f(t, y)`, through the rewrite
//! documented on `WithMass`: the rates as new unknowns `z = y'`, and the constant-mass
//! index-1 system `y' = z`, `0 = M(t, y) z − f(t, y)` (Hairer–Wanner II, VI.1).
//!
//! The problem: `M(t, y) = [[e^y₁, 0], [y₂, 1]]`, `f = (1, 0)`, i.e. `e^y₁ y₁' = 1` and
//! `y₂ y₁' + y₂' = 0` (the second a momentum-like `d(y₂ ·)/dt` coupling through the first's
//! rate), from `y = (0, 1)`: `y₁ = ln(1 + t)`, `y₂ = 1/(1 + t)`, and
//! `z = y' = (1/(1 + t), −1/(1 + t)²)`, `z₀ = M(0, y₀)⁻¹ f = (1, −1)`.

use crate::common::log_log_slope;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveError, AdaptiveKind, BackwardEuler, Bdf, Integrator, Jacobian, Radau5, StepError,
    Stepper, Tolerances, WithMass,
};

/// `(y₁, y₂, z₁, z₂)`: `y' = z`, `0 = M(t, y) z − f(t, y)`.
fn rewritten(u: &[f64; 4], _t: f64) -> [f64; 4] {
    let ([y1, y2], [z1, z2]) = ([u[0], u[1]], [u[2], u[3]]);
    [z1, z2, y1.exp() * z1 - 1.0, y2 * z1 + z2]
}

/// `diag(1, 1, 0, 0)`.
fn mass(m: &mut Jacobian<f64>) {
    m[(0, 0)] = 1.0;
    m[(1, 1)] = 1.0;
}

fn exact(t: f64) -> [f64; 4] {
    let s = 1.0 + t;
    [s.ln(), 1.0 / s, 1.0 / s, -1.0 / (s * s)]
}

const START: [f64; 4] = [0.0, 1.0, 1.0, -1.0];

/// The largest errors of `y` and of `z` at the step ends of `method` to t = 3 at
/// `rtol = atol`.
fn errors(method: AdaptiveKind, rtol: f64) -> (f64, f64) {
    let forces = WithMass::new(rewritten, mass);
    let mut u = START;
    let (mut worst_y, mut worst_z) = (0.0_f64, 0.0_f64);
    Adaptive::new(method)
        .with_tolerances(Tolerances::new(rtol, rtol))
        .solve_with(&mut u, &forces, 0.0, 3.0, |step| {
            let (u, exact) = (step.end(), exact(step.end_time()));
            worst_y = worst_y.max((u[0] - exact[0]).abs().max((u[1] - exact[1]).abs()));
            worst_z = worst_z.max((u[2] - exact[2]).abs().max((u[3] - exact[3]).abs()));
        })
        .unwrap();
    (worst_y, worst_z)
}

#[test]
fn radau5_and_the_bdf_follow_the_closed_form_to_the_tolerance() {
    // The global error in tolerances: Radau5's stays below one here (measured 0.01–0.06
    // in y, 0.2–0.3 in z); the BDF's, whose local errors add up over its many more
    // steps, reaches 5–20 (its own tests allow 20 on the linear DAE).
    for (method, allowed) in [
        (AdaptiveKind::Radau5(Radau5::new()), 1.0),
        (AdaptiveKind::Bdf(Bdf::new()), 50.0),
    ] {
        let mut previous = None;
        for rtol in [1e-5, 1e-7, 1e-9] {
            let (y, z) = errors(method, rtol);
            println!("{method}: rtol {rtol:e}: |y − exact| ≤ {y:e}, |z − exact| ≤ {z:e}");
            assert!(y < allowed * rtol, "{method} rtol {rtol:e}: y off by {y:e}");
            // z = y' is an index-1 algebraic unknown, as accurate as y.
            assert!(z < allowed * rtol, "{method} rtol {rtol:e}: z off by {z:e}");
            if let Some(previous) = previous {
                // A hundredfold tighter tolerance: at least a twentyfold smaller error.
                assert!(previous / y > 20.0, "{method}: {previous:e} then {y:e}");
            }
            previous = Some(y);
        }
    }
}

/// Backward Euler at fixed steps: order 1 in `y`, and `z` from the algebraic equations at
/// each step's end.
#[test]
fn backward_euler_converges_at_order_one() {
    let forces = WithMass::new(rewritten, mass);
    let mut points = Vec::new();
    for n in [20, 40, 80, 160] {
        let dt = 3.0 / f64::from(n);
        let mut u = START;
        let mut solver = Stepper::new(BackwardEuler::new());
        for i in 0..n {
            solver.step(&mut u, &forces, f64::from(i) * dt, dt).unwrap();
            // The algebraic equations hold at the step's end.
            let residual = rewritten(&u, 0.0);
            assert!(
                residual[2].abs() < 1e-10 && residual[3].abs() < 1e-10,
                "{residual:?}"
            );
        }
        let exact = exact(3.0);
        points.push((dt, (u[0] - exact[0]).abs().max((u[1] - exact[1]).abs())));
    }
    let order = log_log_slope(&points);
    println!("backward Euler: {points:?}, order {order:.2}");
    assert!((0.8..1.2).contains(&order), "order {order}");
}

/// A start with `z = 0` is refused, and `Radau5::consistent_start` completes it to
/// `z₀ = M(0, y₀)⁻¹ f = (1, −1)` (Newton's method on `0 = M z − f`, linear in `z`).
#[test]
fn an_inconsistent_rate_is_refused_and_completed() {
    let forces = WithMass::new(rewritten, mass);
    let mut u = [0.0, 1.0, 0.0, 0.0];
    let error = Adaptive::new(Bdf::new())
        .solve(&mut u, &forces, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::InconsistentStart { coordinate: 2, .. },
                ..
            }
        ),
        "{error:?}"
    );
    Radau5::new()
        .consistent_start(&mut u, &forces, 0.0)
        .unwrap();
    for (got, want) in u.iter().zip(START) {
        assert!((got - want).abs() < 1e-12, "{u:?}");
    }
    Adaptive::new(Bdf::new())
        .solve(&mut u, &forces, 0.0, 1.0)
        .unwrap();
    assert!((u[0] - 2.0_f64.ln()).abs() < 1e-4, "{u:?}");
}
