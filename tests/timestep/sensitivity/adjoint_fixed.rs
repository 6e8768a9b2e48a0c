//! The adjoint gradient of a run of fixed steps (`Adjoint::gradient_fixed`): the exact
//! adjoint of the one-stage implicit steps (backward Euler, trapezoid, implicit midpoint)
//! with their stage equations solved to round-off, and of the explicit tableaus (RK4 …).
//!
//! What it is checked against:
//!
//! - the discrete map in closed form: on the linear spring `y' = A(k, b) y` a step is
//!   `y₊ = R(hA) y` (backward Euler `(I − hA)⁻¹`, trapezoid and midpoint
//!   `(I − hA/2)⁻¹ (I + hA/2)`, RK4 the Taylor polynomial of degree 4), so after `N` steps
//!   `y_N = R^N y₀`, differentiated exactly here by dual numbers: to 10⁻¹² relative;
//! - forward sensitivities of the same method over the same steps with the stage
//!   equation solved tightly (Newton tolerance 10⁻¹³), on a forced Van der Pol oscillator
//!   (nonlinear, time-dependent): both the exact derivative of the same discrete map, to
//!   10⁻¹⁰ relative; and central differences of the discrete map;
//! - the ODE's exact gradient (the spring's closed form): the gradient's error falls at
//!   the method's order as `dt` halves (1, 2, 2, 4);
//! - itself at other checkpoint intervals (the same arithmetic, to round-off).

use super::{B, Dual, K, LargeSpring, Spring, V0, X0, spring_exact};
use approx::assert_relative_eq;
use core::num::NonZeroUsize;
use timestep::sensitivity::{
    Adjoint, Augmented, FixedAdjointMethod, Forward, Gradient, Model, SensitivityError,
    WithRespectTo,
};
use timestep::{BackwardEuler, ImplicitMidpoint, Integrator, Rk4, StepError, Stepper, Trapezoid};

/// `[∂L/∂k, ∂L/∂b, ∂L/∂x₀, ∂L/∂v₀]` of a gradient of the spring.
fn four(gradient: &Gradient<[f64; 2]>) -> [f64; 4] {
    [
        gradient.parameters[0],
        gradient.parameters[1],
        gradient.initial_value[0],
        gradient.initial_value[1],
    ]
}

/// The adjoint gradient of `L = x(t)` for the spring by `method` in steps of `dt`.
fn spring_adjoint<I: FixedAdjointMethod<[f64; 2]>>(method: &I, dt: f64, t: f64) -> [f64; 4] {
    let gradient = Adjoint::new(Spring, [K, B])
        .unwrap()
        .gradient_fixed(method, &[X0, V0], 0.0, dt, &[t], |_, _, _, out| {
            *out = [1.0, 0.0];
        })
        .unwrap();
    four(&gradient)
}

type Matrix = [[Dual; 2]; 2];

fn product(a: &Matrix, b: &Matrix) -> Matrix {
    let entry = |r: usize, c: usize| a[r][0].mul(b[0][c]).add(a[r][1].mul(b[1][c]));
    [[entry(0, 0), entry(0, 1)], [entry(1, 0), entry(1, 1)]]
}

fn sum(a: &Matrix, b: &Matrix, scale: f64) -> Matrix {
    let entry = |r: usize, c: usize| a[r][c].add(b[r][c].scale(scale));
    [[entry(0, 0), entry(0, 1)], [entry(1, 0), entry(1, 1)]]
}

fn inverse(a: &Matrix) -> Matrix {
    let det = a[0][0].mul(a[1][1]).sub(a[0][1].mul(a[1][0]));
    let zero = Dual::constant(0.0);
    [
        [a[1][1].div(det), zero.sub(a[0][1]).div(det)],
        [zero.sub(a[1][0]).div(det), a[0][0].div(det)],
    ]
}

/// Which one-step map `R(hA)` of the linear spring.
#[derive(Clone, Copy)]
enum Map {
    BackwardEuler,
    Trapezoid,
    Rk4,
}

/// `x_N` of `y_N = R(hA)^N y₀` for the spring, with its derivative along the seeded
/// `θ` (`which`: 0 = k, 1 = b, 2 = x₀, 3 = v₀).
fn discrete_x(map: Map, h: f64, steps: usize, which: usize) -> f64 {
    let seed = |i: usize, a: f64| {
        if i == which {
            Dual::variable(a)
        } else {
            Dual::constant(a)
        }
    };
    let (zero, one) = (Dual::constant(0.0), Dual::constant(1.0));
    let identity = [[one, zero], [zero, one]];
    let a = [[zero, one], [zero.sub(seed(0, K)), zero.sub(seed(1, B))]];
    let r = match map {
        Map::BackwardEuler => inverse(&sum(&identity, &a, -h)),
        Map::Trapezoid => product(
            &inverse(&sum(&identity, &a, -h / 2.0)),
            &sum(&identity, &a, h / 2.0),
        ),
        Map::Rk4 => {
            // I + hA (I + hA/2 (I + hA/3 (I + hA/4))), Horner's form of the Taylor sum.
            let mut r = identity;
            for j in [4.0, 3.0, 2.0, 1.0] {
                r = sum(&identity, &product(&a, &r), h / j);
            }
            r
        }
    };
    let mut y = [seed(2, X0), seed(3, V0)];
    for _ in 0..steps {
        y = [
            r[0][0].mul(y[0]).add(r[0][1].mul(y[1])),
            r[1][0].mul(y[0]).add(r[1][1].mul(y[1])),
        ];
    }
    y[0].1
}

#[test]
fn the_linear_spring_gradient_is_the_closed_form_of_the_discrete_map() {
    // 20 steps of 1/8 to t = 2.5: every step exactly dt.
    let (h, steps) = (0.125, 20);
    let t = h * steps as f64;
    let cases: [(&str, [f64; 4], Map); 5] = [
        (
            "backward euler",
            spring_adjoint(&BackwardEuler::new(), h, t),
            Map::BackwardEuler,
        ),
        (
            "trapezoid",
            spring_adjoint(&Trapezoid::new(), h, t),
            Map::Trapezoid,
        ),
        // On a linear autonomous system the midpoint rule's map is the trapezoid's.
        (
            "implicit midpoint",
            spring_adjoint(&ImplicitMidpoint::new(), h, t),
            Map::Trapezoid,
        ),
        ("rk4", spring_adjoint(&Rk4, h, t), Map::Rk4),
        // A tableau is a method too.
        (
            "rk4's tableau",
            spring_adjoint(&&Rk4::TABLEAU, h, t),
            Map::Rk4,
        ),
    ];
    for (name, adjoint, map) in cases {
        for (which, &value) in adjoint.iter().enumerate() {
            let exact = discrete_x(map, h, steps, which);
            assert!(
                (value - exact).abs() <= 1e-12 * exact.abs(),
                "{name}, θ{which}: {value} against {exact}"
            );
        }
    }
}

/// A forced Van der Pol oscillator `x'' = μ (1 − x²) x' − x + a cos t`, parameters
/// `[μ, a]`: nonlinear and time-dependent, with its tangent and cotangent.
struct Forced;

impl Model<[f64; 2]> for Forced {
    fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
        *out = [
            y[1],
            p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0] + p[1] * t.cos(),
        ];
    }

    fn tangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        t: f64,
        dy: &[f64; 2],
        dp: &[f64],
        out: &mut [f64; 2],
    ) -> bool {
        let (x, v) = (y[0], y[1]);
        *out = [
            dy[1],
            (-2.0 * p[0] * x * v - 1.0) * dy[0]
                + p[0] * (1.0 - x * x) * dy[1]
                + dp[0] * (1.0 - x * x) * v
                + dp[1] * t.cos(),
        ];
        true
    }

    fn cotangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        t: f64,
        w: &[f64; 2],
        out_y: &mut [f64; 2],
        out_p: &mut [f64],
    ) -> bool {
        let (x, v) = (y[0], y[1]);
        *out_y = [
            (-2.0 * p[0] * x * v - 1.0) * w[1],
            w[0] + p[0] * (1.0 - x * x) * w[1],
        ];
        out_p[0] = (1.0 - x * x) * v * w[1];
        out_p[1] = t.cos() * w[1];
        true
    }
}

const FORCED: [f64; 2] = [2.0, 0.7];
const FORCED_Y0: [f64; 2] = [1.5, 0.0];

/// `∂x(t)/∂[μ, a, x₀, v₀]` by forward sensitivities of `method` over `steps` steps of `dt`.
fn forced_forward<I: Integrator<[[f64; 2]; 5]>>(method: I, dt: f64, steps: usize) -> [f64; 4] {
    let wrt = [
        WithRespectTo::Parameter(0),
        WithRespectTo::Parameter(1),
        WithRespectTo::InitialValue(0),
        WithRespectTo::InitialValue(1),
    ];
    let forward = Forward::new(Forced, FORCED, wrt).unwrap();
    let mut y: [[f64; 2]; 5] = forward.initial(FORCED_Y0).unwrap();
    let mut method = method;
    for i in 0..steps {
        method.step(&mut y, &forward, i as f64 * dt, dt).unwrap();
    }
    core::array::from_fn(|i| y.sensitivity(i)[0])
}

/// `∂x(t)/∂[μ, a, x₀, v₀]` by the adjoint of `method` in steps of `dt` to `t`.
fn forced_adjoint<I: FixedAdjointMethod<[f64; 2]>>(method: &I, dt: f64, t: f64) -> [f64; 4] {
    let gradient = Adjoint::new(Forced, FORCED)
        .unwrap()
        .gradient_fixed(method, &FORCED_Y0, 0.0, dt, &[t], |_, _, _, out| {
            *out = [1.0, 0.0];
        })
        .unwrap();
    four(&gradient)
}

#[test]
fn the_forced_oscillator_gradient_is_the_forward_sensitivity_of_the_same_steps() {
    let (dt, steps) = (0.0625, 48);
    let t = dt * steps as f64;
    let tight = 1e-13;
    let cases = [
        (
            "backward euler",
            forced_adjoint(&BackwardEuler::new(), dt, t),
            forced_forward(
                Stepper::new(BackwardEuler::new().with_tolerance(tight)),
                dt,
                steps,
            ),
        ),
        (
            "trapezoid",
            forced_adjoint(&Trapezoid::new(), dt, t),
            forced_forward(
                Stepper::new(Trapezoid::new().with_tolerance(tight)),
                dt,
                steps,
            ),
        ),
        (
            "implicit midpoint",
            forced_adjoint(&ImplicitMidpoint::new(), dt, t),
            forced_forward(
                Stepper::new(ImplicitMidpoint::new().with_tolerance(tight)),
                dt,
                steps,
            ),
        ),
        (
            "rk4",
            forced_adjoint(&Rk4, dt, t),
            forced_forward(Stepper::new(Rk4), dt, steps),
        ),
    ];
    for (name, adjoint, forward) in cases {
        for (a, f) in adjoint.iter().zip(forward) {
            assert!(
                (a - f).abs() <= 1e-10 * f.abs(),
                "{name}: {adjoint:?} against {forward:?}"
            );
        }
    }
}

/// `L = Σₖ ½ (x(tₖ) − dₖ)²` over `SAMPLES` (a repeated time, one at the start, and times
/// that are not multiples of the step, so that steps are shortened), and its gradient, by
/// `method` in steps of `dt` with checkpoints every `interval` steps.
fn forced_least_squares<I: FixedAdjointMethod<[f64; 2]>>(
    method: &I,
    parameters: [f64; 2],
    y0: [f64; 2],
    interval: usize,
) -> (f64, [f64; 4]) {
    let mut cost = 0.0;
    let gradient = Adjoint::new(Forced, parameters)
        .unwrap()
        .with_checkpoint_interval(NonZeroUsize::new(interval).unwrap())
        .gradient_fixed(method, &y0, 0.0, 0.1, &SAMPLES, |k, _, y, out| {
            let residual = y[0] - DATA[k];
            cost += 0.5 * residual * residual;
            *out = [residual, 0.0];
        })
        .unwrap();
    (cost, four(&gradient))
}

const SAMPLES: [f64; 6] = [0.0, 0.35, 0.35, 1.0, 2.27, 3.0];
const DATA: [f64; 6] = [1.4, 1.2, 1.2, 0.1, -1.5, -1.0];

/// The least-squares gradient against central differences of the discrete map (which
/// the states `loss_gradient` sees are: the stage equations solved to round-off).
fn assert_matches_central_differences<I: FixedAdjointMethod<[f64; 2]>>(method: &I) {
    let (_, gradient) = forced_least_squares(method, FORCED, FORCED_Y0, 7);
    let h = 1e-6;
    for (i, &adjoint) in gradient.iter().enumerate() {
        let (mut up, mut down) = ((FORCED, FORCED_Y0), (FORCED, FORCED_Y0));
        if i < 2 {
            up.0[i] += h;
            down.0[i] -= h;
        } else {
            up.1[i - 2] += h;
            down.1[i - 2] -= h;
        }
        let difference = (forced_least_squares(method, up.0, up.1, 7).0
            - forced_least_squares(method, down.0, down.1, 7).0)
            / (2.0 * h);
        assert_relative_eq!(adjoint, difference, max_relative = 1e-7);
    }
}

#[test]
fn a_sum_over_samples_matches_central_differences() {
    assert_matches_central_differences(&BackwardEuler::new());
    assert_matches_central_differences(&Trapezoid::new());
    assert_matches_central_differences(&ImplicitMidpoint::new());
    assert_matches_central_differences(&Rk4);
}

#[test]
fn the_checkpoint_interval_changes_nothing_but_round_off() {
    fn check<I: FixedAdjointMethod<[f64; 2]>>(method: &I) {
        let (cost, every) = forced_least_squares(method, FORCED, FORCED_Y0, 1);
        for interval in [7, usize::MAX] {
            let (other_cost, other) = forced_least_squares(method, FORCED, FORCED_Y0, interval);
            // Another Newton start for a step taken again: the same state to round-off.
            assert_relative_eq!(cost, other_cost, max_relative = 1e-14);
            for (a, b) in other.iter().zip(every) {
                assert_relative_eq!(*a, b, max_relative = 1e-13);
            }
        }
    }
    check(&BackwardEuler::new());
    check(&Trapezoid::new());
    check(&ImplicitMidpoint::new());
    check(&Rk4);
}

/// The observed order `log₂(e(dt) / e(dt/2))` of the gradient of `x(2.5)` against the
/// spring's exact gradient, for `dt` = 2.5/`steps`.
fn observed_order<I: FixedAdjointMethod<[f64; 2]>>(method: &I, steps: usize) -> f64 {
    let t = 2.5;
    let exact: [f64; 4] = core::array::from_fn(|i| spring_exact(i, t)[0]);
    let error = |dt: f64| {
        let adjoint = spring_adjoint(method, dt, t);
        adjoint
            .iter()
            .zip(exact)
            .map(|(a, e)| (a - e).abs())
            .fold(0.0, f64::max)
    };
    let dt = t / steps as f64;
    (error(dt) / error(dt / 2.0)).log2()
}

#[test]
fn the_gradient_converges_at_the_method_order() {
    // Measured: 0.993 (backward Euler, 640 → 1280 steps), 2.000 (trapezoid and midpoint,
    // 160 → 320), 3.990 (RK4, 40 → 80).
    let cases: [(&str, f64, f64); 4] = [
        (
            "backward euler",
            observed_order(&BackwardEuler::new(), 640),
            1.0,
        ),
        ("trapezoid", observed_order(&Trapezoid::new(), 160), 2.0),
        (
            "implicit midpoint",
            observed_order(&ImplicitMidpoint::new(), 160),
            2.0,
        ),
        ("rk4", observed_order(&Rk4, 40), 4.0),
    ];
    for (name, observed, order) in cases {
        assert!((observed - order).abs() < 0.05, "{name}: {observed}");
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let adjoint = Adjoint::new(Spring, [K, B]).unwrap();
    let run = |adjoint: &Adjoint<Spring, [f64; 2]>, dt: f64, times: &[f64]| {
        adjoint
            .gradient_fixed(
                &Trapezoid::new(),
                &[X0, V0],
                0.0,
                dt,
                times,
                |_, _, _, out| {
                    *out = [1.0, 0.0];
                },
            )
            .map(|gradient| gradient.statistics.accepted)
    };
    for dt in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        let error = run(&adjoint, dt, &[1.0]).unwrap_err();
        assert!(
            matches!(error, SensitivityError::InvalidStep { dt: got } if got.to_bits() == dt.to_bits()),
            "{error:?}"
        );
    }
    for times in [&[1.0, 0.5][..], &[-1.0], &[], &[f64::NAN]] {
        assert_eq!(
            run(&adjoint, 0.1, times),
            Err(SensitivityError::InvalidTimes)
        );
    }
    // A tiny step is refused before it is taken, whatever the limit.
    assert_eq!(
        run(&adjoint, 1e-300, &[1.0]),
        Err(SensitivityError::TooManySteps { limit: 10_000_000 })
    );
    let limited = adjoint.clone().with_max_steps(10);
    assert_eq!(
        run(&limited, 0.1, &[0.5, 1.0, 1.05]),
        Err(SensitivityError::TooManySteps { limit: 10 })
    );
    // Ten steps to t = 1, the last of 0.1 + 10⁻¹⁶ absorbed; a huge step takes the span
    // in one; a time at the start takes none.
    assert_eq!(run(&limited, 0.1, &[1.0]), Ok(10));
    assert_eq!(run(&adjoint, 1e300, &[0.5, 1.0]), Ok(2));
    assert_eq!(run(&adjoint, 0.1, &[0.0, 0.0]), Ok(0));
}

#[test]
fn a_state_sized_at_run_time_with_cotangents_by_differences() {
    // The spring as a `Vec` with the rate alone: each cotangent built from n + p one-sided
    // differences (√ε relative), against the array spring's exact cotangent.
    let exact = spring_adjoint(&Trapezoid::new(), 0.05, 2.0);
    let gradient = Adjoint::new(LargeSpring, [K, B])
        .unwrap()
        .gradient_fixed(
            &Trapezoid::new(),
            &vec![X0, V0],
            0.0,
            0.05,
            &[2.0],
            |_, _, _, out| {
                out[0] = 1.0;
            },
        )
        .unwrap();
    let large = [
        gradient.parameters[0],
        gradient.parameters[1],
        gradient.initial_value[0],
        gradient.initial_value[1],
    ];
    for (a, e) in large.iter().zip(exact) {
        assert_relative_eq!(*a, e, max_relative = 1e-6);
    }
}

/// The spring whose rate is `NaN` from `t = 0.5` on.
struct Failing;

impl Model<[f64; 2]> for Failing {
    fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
        Spring.rate(y, p, t, out);
        if t >= 0.5 {
            out[1] = f64::NAN;
        }
    }
}

#[test]
fn a_failed_or_non_finite_forward_step_is_a_clear_error() {
    fn run<I: FixedAdjointMethod<[f64; 2]>>(
        method: &I,
    ) -> Result<Gradient<[f64; 2]>, SensitivityError> {
        Adjoint::new(Failing, [K, B]).unwrap().gradient_fixed(
            method,
            &[X0, V0],
            0.0,
            0.1,
            &[1.0],
            |_, _, _, out| {
                *out = [1.0, 0.0];
            },
        )
    }
    // RK4 takes the NaN into the state at the step from 0.4 (its last stage is at 0.5);
    // the trapezoid's Newton iteration meets it at its stage, at the same step's end.
    let error = run(&Rk4).unwrap_err();
    assert!(
        matches!(error, SensitivityError::NonFiniteState { time } if (time - 0.4).abs() < 1e-15),
        "{error:?}"
    );
    let error = run(&Trapezoid::new()).unwrap_err();
    assert_eq!(error, SensitivityError::Step(StepError::NonFiniteResidual));
}
