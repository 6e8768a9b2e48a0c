//! The adjoint gradient under the BDF (CVODE's variable-order, variable-step form): the
//! exact derivative of the computed solution with the steps, orders and formulas held
//! fixed, each corrector solved to round-off.
//!
//! What it is checked against:
//!
//! - closed forms: the decay `y' = −k y` (`∂y(T)/∂k = −T y(T)`, `∂y(T)/∂y₀ = y(T)/y₀`)
//!   and the damped spring (its closed form differentiated by dual numbers), to the
//!   method's own error at rtol 10⁻¹⁰;
//! - central differences of tightly solved Robertson runs (Radau5 at rtol 10⁻¹²), for a
//!   sum of squares over four sample times;
//! - itself at other checkpoint intervals (1, 7, all steps in one stretch: the same
//!   arithmetic, to round-off).
//!
//! That it is the derivative of the map the steps taken again compute, to round-off, over
//! order changes up to 5, step changes and failed attempts, is checked inside the crate
//! (`src/sensitivity/adjoint/bdf.rs`), where the recorded steps can be replayed.

use super::adjoint_radau5::{
    KINETICS_TIMES, adjoint_gradient, assert_checkpoint_intervals_agree,
    assert_loose_solve_is_exact_or_refused, assert_matches_central_differences, kinetics_data,
    least_squares,
};
use super::robertson::{ROBERTSON_K, Robertson};
use super::{B, K, Spring, V0, X0, spring_exact};
use approx::assert_relative_eq;
use timestep::sensitivity::{Adjoint, Model};
use timestep::{Adaptive, Bdf, Tolerances};

/// `y' = −k y`, with its cotangent.
struct Decay;

impl Model<f64> for Decay {
    fn rate(&self, y: &f64, p: &[f64], _t: f64, out: &mut f64) {
        *out = -p[0] * y;
    }

    fn cotangent(
        &self,
        y: &f64,
        p: &[f64],
        _t: f64,
        w: &f64,
        out_y: &mut f64,
        out_p: &mut [f64],
    ) -> bool {
        *out_y = -p[0] * w;
        out_p[0] = -y * w;
        true
    }
}

#[test]
fn decay_gradient_is_the_closed_form() {
    let (k, y0, t) = (2.0, 1.5, 3.0);
    let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-10, 1e-14));
    // The state the loss sees: the steps' taken again, correctors solved to round-off.
    let mut sample = 0.0;
    let gradient = Adjoint::new(Decay, [k])
        .unwrap()
        .gradient(&mut solver, &y0, 0.0, &[t], |_, _, y, out| {
            sample = *y;
            *out = 1.0;
        })
        .unwrap();
    let end = y0 * (-k * t).exp();
    assert!(gradient.statistics.accepted > 50);
    // The method's error in y(T) (3.6·10⁻⁸ measured) bounds the gradient's.
    assert_relative_eq!(gradient.end, end, max_relative = 1e-7);
    assert_relative_eq!(gradient.parameters[0], -t * end, max_relative = 1e-8);
    // Every step is linear in y for a linear rate: the computed y(T) is y₀ times a number
    // fixed by the steps, and its derivative in y₀ is y(T)/y₀ to round-off.
    assert_relative_eq!(sample, gradient.end, max_relative = 1e-9);
    assert_relative_eq!(gradient.initial_value, sample / y0, max_relative = 1e-13);
}

#[test]
fn spring_gradient_is_the_closed_form() {
    let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-10, 1e-12));
    let t = 2.0;
    let gradient = Adjoint::new(Spring, [K, B])
        .unwrap()
        .gradient(&mut solver, &[X0, V0], 0.0, &[t], |_, _, _, out| {
            *out = [1.0, 0.0]
        })
        .unwrap();
    let adjoint = adjoint_gradient(&gradient);
    for (which, &value) in adjoint.iter().enumerate() {
        assert_relative_eq!(value, spring_exact(which, t)[0], max_relative = 1e-7);
    }
}

#[test]
fn robertson_gradient_matches_central_differences_of_tight_solves() {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    // The BDF's gradient error follows its tolerance: 2·10⁻⁷ at rtol 10⁻¹¹, 7·10⁻⁹ at
    // 10⁻¹² (against Radau5's adjoint at 10⁻¹³).
    let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-12, 1e-16));
    let gradient = Adjoint::new(Robertson, theta)
        .unwrap()
        .gradient(&mut solver, &[1.0, 0.0, 0.0], 0.0, &KINETICS_TIMES, &loss)
        .unwrap();
    assert_matches_central_differences(&gradient.parameters, theta, &data);
}

#[test]
fn the_checkpoint_interval_changes_nothing_but_round_off() {
    let solver = || Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    assert_checkpoint_intervals_agree(solver, &[7, usize::MAX], 100);
}

#[test]
fn a_loose_forward_solve_is_still_an_exact_adjoint_or_a_clear_error() {
    let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-2, 1e-6));
    assert_loose_solve_is_exact_or_refused(&mut solver);
}
