//! The variable-order BDF ([`Bdf`]) against CVODE and reference solutions.

use timestep::adaptive::Adaptive;
use timestep::{Bdf, ComponentTolerances, Forces, Jacobian, WithJacobian};

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

#[test]
fn robertson_print() {
    let times: Vec<f64> = (0..12).map(|k| 0.4 * 10f64.powi(k)).collect();
    let mut y = [1.0, 0.0, 0.0];
    let statistics = Adaptive::new(Bdf::new())
        .with_component_tolerances(ComponentTolerances::new(vec![1e-4; 3], vec![1e-8, 1e-14, 1e-6]))
        .solve_at(&mut y, &robertson(), 0.0, &times, |t, y| println!("{t:e} {y:?}"))
        .unwrap();
    println!("{statistics:?}");
}
