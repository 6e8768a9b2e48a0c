//! The adjoint gradient under SEULEX: the exact adjoint of the extrapolated linearly
//! implicit Euler step, which depends on `(y, p)` through its substeps and through the
//! Jacobian `J(y, p)` its matrices are built on.
//!
//! What it is checked against (the discrete map itself, to round-off, in
//! `src/sensitivity/adjoint/seulex.rs`'s unit tests: forward sensitivities of the same
//! steps and lines):
//!
//! - closed forms: the decay `y' = −k y`, the decay `y' = −k t y` whose Jacobian changes
//!   with time, and the damped spring, to the tolerance;
//! - central differences of tightly solved Robertson runs;
//! - Robertson's total mass, a linear invariant of every linearly implicit Euler substep:
//!   its gradient is exactly that of the initial total;
//! - itself at other checkpoint intervals (the same arithmetic, to round-off).

use super::{B, K, Spring, V0, X0, spring_exact};
use approx::assert_relative_eq;
use timestep::sensitivity::{Adjoint, Model, SensitivityError};
use timestep::{Adaptive, Seulex, StepSequence, Tolerances};

use super::adjoint_radau5::{
    KINETICS_TIMES, adjoint_gradient, assert_checkpoint_intervals_agree,
    assert_matches_central_differences, kinetics_data, least_squares,
};
use super::robertson::{ROBERTSON_K, Robertson};

/// `y' = −k tᵐ y` (`m` = 0 or 1): `y(t) = y₀ exp(−k tᵐ⁺¹/(m + 1))`, parameter `[k]`.
#[derive(Clone, Copy, Debug)]
struct Decay {
    power: i32,
}

impl Model<f64> for Decay {
    fn rate(&self, y: &f64, p: &[f64], t: f64, out: &mut f64) {
        *out = -p[0] * t.powi(self.power) * y;
    }

    fn cotangent(
        &self,
        y: &f64,
        p: &[f64],
        t: f64,
        w: &f64,
        out_y: &mut f64,
        out_p: &mut [f64],
    ) -> bool {
        let m = t.powi(self.power);
        *out_y = -p[0] * m * w;
        out_p[0] = -m * y * w;
        true
    }
}

/// The methods checked: seulex.f's sequence and Hairer–Wanner's, and the autonomous form.
fn methods() -> [Seulex; 3] {
    [
        Seulex::new(),
        Seulex::new().with_sequence(StepSequence::FromOne),
        Seulex::new().assume_autonomous(),
    ]
}

#[test]
fn decay_gradient_matches_the_closed_form() {
    let (y0, k, t) = (1.5, 2.0, 1.5);
    for power in [0, 1] {
        let model = Decay { power };
        let methods = methods();
        // Autonomous only where the forces are: `−k t y` is not.
        for method in &methods[..3 - power as usize] {
            let mut solver = Adaptive::new(*method).with_tolerances(Tolerances::new(1e-10, 1e-12));
            // L = y(t)²/2: ∂L/∂k = −tᵐ⁺¹/(m + 1) y², ∂L/∂y₀ = y²/y₀.
            let gradient = Adjoint::new(model, [k])
                .unwrap()
                .gradient(&mut solver, &y0, 0.0, &[t], |_, _, y, out| *out = *y)
                .unwrap();
            let scale = t.powi(power + 1) / f64::from(power + 1);
            let end = y0 * (-k * scale).exp();
            assert!(
                gradient.statistics.accepted > 3,
                "{}",
                gradient.statistics.accepted
            );
            assert_relative_eq!(gradient.end, end, max_relative = 1e-8);
            assert_relative_eq!(
                gradient.parameters[0],
                -scale * end * end,
                max_relative = 1e-8
            );
            assert_relative_eq!(gradient.initial_value, end * end / y0, max_relative = 1e-8);
        }
    }
}

#[test]
fn stiff_decay_gradient_matches_the_closed_form() {
    // k = 1000 to t = 10⁻²: L = y(t), ∂L/∂k = −t y(t), ∂L/∂y₀ = e^(−kt).
    let end = (-10.0_f64).exp();
    for method in methods() {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-10, 1e-14));
        let gradient = Adjoint::new(Decay { power: 0 }, [1000.0])
            .unwrap()
            .gradient(&mut solver, &1.0, 0.0, &[1e-2], |_, _, _, out| *out = 1.0)
            .unwrap();
        assert_relative_eq!(gradient.parameters[0], -1e-2 * end, max_relative = 1e-8);
        assert_relative_eq!(gradient.initial_value, end, max_relative = 1e-8);
    }
}

#[test]
fn spring_gradient_matches_the_closed_form_when_solved_tightly() {
    let t = 2.0;
    for method in methods() {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-12, 1e-14));
        let gradient = Adjoint::new(Spring, [K, B])
            .unwrap()
            .gradient(&mut solver, &[X0, V0], 0.0, &[t], |_, _, _, out| {
                *out = [1.0, 0.0]
            })
            .unwrap();
        let adjoint = adjoint_gradient(&gradient);
        for (which, &value) in adjoint.iter().enumerate() {
            assert_relative_eq!(value, spring_exact(which, t)[0], max_relative = 1e-8);
        }
    }
}

/// Asserted to 10⁻⁷ (the bound); measured 8·10⁻⁹, 2.9·10⁻⁸, 2.0·10⁻⁸ for the
/// three `ln k` (Rodas4's 5·10⁻⁹–1.2·10⁻⁸ at its tolerance).
#[test]
fn robertson_gradient_matches_central_differences_of_tight_solves() {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    let y0 = [1.0, 0.0, 0.0];
    let gradient = Adjoint::new(Robertson, theta)
        .unwrap()
        .gradient(
            &mut Adaptive::new(Seulex::new()).with_tolerances(Tolerances::new(1e-10, 1e-16)),
            &y0,
            0.0,
            &KINETICS_TIMES,
            &loss,
        )
        .unwrap();
    assert_matches_central_differences(&gradient.parameters, theta, &data);
}

#[test]
fn the_checkpoint_interval_changes_nothing_but_round_off() {
    let solver = || Adaptive::new(Seulex::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    assert_checkpoint_intervals_agree(solver, &[7, usize::MAX], 20);
}

#[test]
fn the_total_mass_has_the_gradient_of_an_invariant_even_at_a_loose_tolerance() {
    // a + b + c is kept by every substep ((1, 1, 1) is orthogonal to the rates and to the
    // columns of J, so to every increment): its gradient is (1, 1, 1) in y₀ and zero in θ,
    // however long the steps (23 to 26 here, to t = 10⁵).
    let theta = ROBERTSON_K.map(f64::ln);
    for method in methods() {
        let mut solver = Adaptive::new(method).with_tolerances(Tolerances::new(1e-2, 1e-6));
        let gradient = Adjoint::new(Robertson, theta)
            .unwrap()
            .gradient(
                &mut solver,
                &[1.0, 0.0, 0.0],
                0.0,
                &[1e5],
                |_, _, _, out| *out = [1.0, 1.0, 1.0],
            )
            .unwrap();
        // Exact but for the rounding and the second-order term's differences, taken a
        // row of J at a time (each row's part is not zero, only their sum): measured
        // 2·10⁻¹³ (seulex.f's sequence) to 3·10⁻¹² (Hairer–Wanner's).
        for g in gradient.initial_value {
            assert_relative_eq!(g, 1.0, max_relative = 1e-11);
        }
        for g in gradient.parameters {
            assert!(g.abs() < 1e-11, "{g:e}");
        }
    }
}

#[test]
fn a_non_finite_model_is_a_clear_error() {
    // A rate that overflows: the forward solve stops and says why.
    let blow_up = |y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]| {
        *out = [p[0] * y[0] * y[0], 0.0];
    };
    let mut solver = Adaptive::new(Seulex::new());
    let result = Adjoint::new(blow_up, [1.0]).unwrap().gradient(
        &mut solver,
        &[1.0, 0.0],
        0.0,
        &[2.0],
        |_, _, _, out| *out = [1.0, 0.0],
    );
    assert!(
        matches!(result, Err(SensitivityError::Solve(_))),
        "{result:?}"
    );
}
