//! Forward sensitivities (`src/sensitivity/`): the variational equations
//! `sᵢ' = J_y sᵢ + ∂f/∂θᵢ` integrated alongside the state.
//!
//! What they are checked against:
//!
//! - the damped spring `x'' + b x' + k x = 0` (unit mass) has the closed form
//!   `x = e^(−γt) (x₀ cos ωt + (v₀ + γ x₀)/ω sin ωt)`, `γ = b/2`, `ω = √(k − γ²)`, whose
//!   derivatives in `k`, `b`, `x₀`, `v₀` are taken exactly here by forward-mode automatic
//!   differentiation (dual numbers `a + a' ε`, `ε² = 0`: the complex-step derivative
//!   without its `h²` term);
//! - central differences `(y(θ + h) − y(θ − h)) / 2h` of tightly solved runs;
//! - for every method on fixed steps: the variational equations integrated by the same
//!   method are the derivative of the method's discrete map (for a Runge–Kutta method,
//!   exactly: differentiating the stage equations gives the same method applied to the
//!   variational system), so the sensitivities equal the central differences of the
//!   discrete map to their truncation and rounding, far below the method's own error.

use approx::assert_relative_eq;
use timestep::sensitivity::{
    Augmented, ErrorControl, Forward, Model, SensitivityError, Stacked, WithRespectTo,
};
use timestep::{
    Adaptive, AdaptiveKind, Integrator, Method, MethodKind, Radau5, Rodas4, Scheme, Stepper,
    Tolerances, Trapezoid, Vector,
};

/// The adaptive method of that name.
fn kind(name: &str) -> AdaptiveKind {
    name.parse().unwrap()
}

#[path = "../../examples/problems/spring.rs"]
mod spring;
use spring::Spring;

#[path = "../../examples/problems/robertson.rs"]
mod robertson;

/// The same spring as a state sized at run time, with no tangent (finite differences).
#[derive(Debug)]
struct LargeSpring;

impl Model<Vec<f64>> for LargeSpring {
    fn rate(&self, y: &Vec<f64>, p: &[f64], _t: f64, out: &mut Vec<f64>) {
        out[0] = y[1];
        out[1] = -p[0] * y[0] - p[1] * y[1];
    }
}

/// A dual number `a + a' ε` with `ε² = 0`: carries one derivative through arithmetic.
#[derive(Clone, Copy, Debug)]
struct Dual(f64, f64);

impl Dual {
    fn constant(a: f64) -> Self {
        Dual(a, 0.0)
    }
    fn variable(a: f64) -> Self {
        Dual(a, 1.0)
    }
    fn add(self, o: Dual) -> Dual {
        Dual(self.0 + o.0, self.1 + o.1)
    }
    fn sub(self, o: Dual) -> Dual {
        Dual(self.0 - o.0, self.1 - o.1)
    }
    fn mul(self, o: Dual) -> Dual {
        Dual(self.0 * o.0, self.1 * o.0 + self.0 * o.1)
    }
    fn div(self, o: Dual) -> Dual {
        Dual(self.0 / o.0, (self.1 * o.0 - self.0 * o.1) / (o.0 * o.0))
    }
    fn scale(self, c: f64) -> Dual {
        Dual(self.0 * c, self.1 * c)
    }
    fn sqrt(self) -> Dual {
        let r = self.0.sqrt();
        Dual(r, self.1 / (2.0 * r))
    }
    fn exp(self) -> Dual {
        let e = self.0.exp();
        Dual(e, self.1 * e)
    }
    fn cos(self) -> Dual {
        Dual(self.0.cos(), -self.1 * self.0.sin())
    }
    fn sin(self) -> Dual {
        Dual(self.0.sin(), self.1 * self.0.cos())
    }
}

/// The closed-form position and velocity of the underdamped spring at `t`.
fn spring_closed_form(k: Dual, b: Dual, x0: Dual, v0: Dual, t: f64) -> (Dual, Dual) {
    let gamma = b.scale(0.5);
    let omega = k.sub(gamma.mul(gamma)).sqrt();
    let c = v0.add(gamma.mul(x0)).div(omega);
    let decay = gamma.scale(-t).exp();
    let (cos, sin) = (omega.scale(t).cos(), omega.scale(t).sin());
    let x = decay.mul(x0.mul(cos).add(c.mul(sin)));
    // v = e^(−γt) (v₀ cos ωt − (γ v₀ + k x₀)/ω sin ωt), from differentiating x.
    let v = decay.mul(
        v0.mul(cos)
            .sub(gamma.mul(v0).add(k.mul(x0)).div(omega).mul(sin)),
    );
    (x, v)
}

const K: f64 = 4.0;
const B: f64 = 0.5;
const X0: f64 = 1.0;
const V0: f64 = 0.3;

/// `[∂x, ∂v]` by `θ` at `t` from the closed form: `which` 0 = k, 1 = b, 2 = x₀, 3 = v₀.
fn spring_exact(which: usize, t: f64) -> [f64; 2] {
    let seed = |i: usize, a: f64| {
        if i == which {
            Dual::variable(a)
        } else {
            Dual::constant(a)
        }
    };
    let (x, v) = spring_closed_form(seed(0, K), seed(1, B), seed(2, X0), seed(3, V0), t);
    [x.1, v.1]
}

const ALL_FOUR: [WithRespectTo; 4] = [
    WithRespectTo::Parameter(0),
    WithRespectTo::Parameter(1),
    WithRespectTo::InitialValue(0),
    WithRespectTo::InitialValue(1),
];

/// Solves the spring with its four sensitivities by `kind` to `t` at `tolerances`.
fn spring_sensitivities(kind: &str, t: f64, tolerances: Tolerances) -> [[f64; 2]; 5] {
    let forward = Forward::new(Spring, [K, B], ALL_FOUR).unwrap();
    let mut y: [[f64; 2]; 5] = forward.initial([X0, V0]).unwrap();
    let kind: AdaptiveKind = kind.parse().unwrap();
    Adaptive::new(kind)
        .with_tolerances(tolerances)
        .solve(&mut y, &forward, 0.0, t)
        .unwrap();
    y
}

/// With an exact tangent and a tight tolerance, the four sensitivities of the spring at
/// three times agree with the derivatives of the closed form to 10⁻⁷ relative.
#[test]
fn spring_sensitivities_match_the_closed_form() {
    for t in [0.7, 2.0, 5.0] {
        let y = spring_sensitivities("vern9", t, Tolerances::new(1e-13, 1e-15));
        for which in 0..4 {
            let exact = spring_exact(which, t);
            for (got, exact) in y.sensitivity(which).iter().zip(exact) {
                assert_relative_eq!(*got, exact, max_relative = 1e-7, epsilon = 1e-12);
            }
        }
    }
}

/// The dual-number derivative itself, against a central difference of the closed form
/// (so that a wrong closed-form derivative cannot pass the test above by agreeing with a
/// wrong integrator).
#[test]
fn closed_form_derivative_matches_its_central_difference() {
    let h = 1e-6;
    let x = |k: f64| {
        spring_closed_form(
            Dual::constant(k),
            Dual::constant(B),
            Dual::constant(X0),
            Dual::constant(V0),
            2.0,
        )
        .0
        .0
    };
    let difference = (x(K + h) - x(K - h)) / (2.0 * h);
    assert_relative_eq!(spring_exact(0, 2.0)[0], difference, max_relative = 1e-8);
}

/// The sensitivities against central differences of tightly solved runs of the plain
/// spring (one solve per perturbed parameter), to 10⁻⁷ relative.
#[test]
fn spring_sensitivities_match_central_differences_of_solves() {
    let t = 3.0;
    let y = spring_sensitivities("dop853", t, Tolerances::new(1e-13, 1e-15));
    let solve = |k: f64, b: f64| {
        let spring = |y: &[f64; 2], _t: f64| [y[1], -k * y[0] - b * y[1]];
        let mut state = [X0, V0];
        Adaptive::new(kind("dop853"))
            .with_tolerances(Tolerances::new(1e-14, 1e-16))
            .solve(&mut state, &spring, 0.0, t)
            .unwrap();
        state
    };
    let h = 1e-4;
    let by_k = (solve(K + h, B)[0] - solve(K - h, B)[0]) / (2.0 * h);
    let by_b = (solve(K, B + h)[0] - solve(K, B - h)[0]) / (2.0 * h);
    assert_relative_eq!(y.sensitivity(0)[0], by_k, max_relative = 1e-7);
    assert_relative_eq!(y.sensitivity(1)[0], by_b, max_relative = 1e-7);
}

/// Without a tangent, the one-sided differences of the rate give the sensitivities to
/// about √ε: 10⁻⁶ relative of the closed form's, in a state sized at run time. (Their
/// rounding noise, 10⁻⁸ relative, is more than a tolerance of 10⁻¹² can control: the
/// error control measures the state alone.)
#[test]
fn finite_difference_tangent_in_a_large_state() {
    let forward = Forward::new(LargeSpring, vec![K, B], ALL_FOUR.to_vec()).unwrap();
    let mut y: Stacked<Vec<f64>> = forward.initial(vec![X0, V0]).unwrap();
    assert_eq!(y.dim(), 10);
    let t = 2.0;
    let tolerances = ErrorControl::StateOnly.tolerances(&y, Tolerances::new(1e-12, 1e-14));
    Adaptive::new(kind("dop853"))
        .with_component_tolerances(tolerances)
        .solve(&mut y, &forward, 0.0, t)
        .unwrap();
    for which in 0..4 {
        let exact = spring_exact(which, t);
        for (got, exact) in y.sensitivity(which).iter().zip(exact) {
            assert_relative_eq!(*got, exact, max_relative = 1e-6, epsilon = 1e-9);
        }
    }
}

/// Van der Pol, `x'' = μ (1 − x²) x' − x`, parameter μ: a nonlinear system whose
/// sensitivities have no closed form.
struct VanDerPol;

impl Model<[f64; 2]> for VanDerPol {
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        *out = [y[1], p[0] * (1.0 - y[0] * y[0]) * y[1] - y[0]];
    }

    fn tangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        dy: &[f64; 2],
        dp: &[f64],
        out: &mut [f64; 2],
    ) -> bool {
        let (x, v) = (y[0], y[1]);
        let mu = p[0];
        *out = [
            dy[1],
            (-2.0 * mu * x * v - 1.0) * dy[0]
                + mu * (1.0 - x * x) * dy[1]
                + dp[0] * (1.0 - x * x) * v,
        ];
        true
    }
}

/// Van der Pol at μ = 5 (stiff enough that the implicit methods pay) to t = 3, by the
/// implicit methods on the augmented state, against central differences of tight runs:
/// to 10⁻⁷ with the exact tangent (Radau5 and Rodas4), to 10⁻⁵ with finite differences
/// (Radau5, on the block-diagonal Newton matrix).
#[test]
fn van_der_pol_with_implicit_methods_matches_central_differences() {
    let (mu, t) = (5.0, 3.0);
    let wrt = [WithRespectTo::Parameter(0), WithRespectTo::InitialValue(0)];
    let solve = |mu: f64, x0: f64| {
        let f = |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
        let mut state = [x0, 0.0];
        Adaptive::new(kind("vern9"))
            .with_tolerances(Tolerances::new(1e-14, 1e-14))
            .solve(&mut state, &f, 0.0, t)
            .unwrap();
        state
    };
    let h = 1e-5;
    let by_mu = (solve(mu + h, 2.0)[0] - solve(mu - h, 2.0)[0]) / (2.0 * h);
    let by_x0 = (solve(mu, 2.0 + h)[0] - solve(mu, 2.0 - h)[0]) / (2.0 * h);
    let forward = Forward::new(VanDerPol, [mu], wrt).unwrap();
    let start: [[f64; 2]; 3] = forward.initial([2.0, 0.0]).unwrap();
    let tolerances = Tolerances::new(1e-10, 1e-12);

    let mut y = start;
    Adaptive::new(Radau5::new())
        .with_tolerances(tolerances)
        .solve(&mut y, &forward, 0.0, t)
        .unwrap();
    assert_relative_eq!(y.sensitivity(0)[0], by_mu, max_relative = 1e-7);
    assert_relative_eq!(y.sensitivity(1)[0], by_x0, max_relative = 1e-7);

    // Without a tangent: Radau5 on the block-diagonal Newton matrix, the sensitivities
    // by one-sided differences (about √ε relative), with the error control on the state.
    let by_differences = |y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]| {
        VanDerPol.rate(y, p, t, out);
    };
    let forward_by_differences = Forward::new(by_differences, [mu], wrt).unwrap();
    let mut y: [[f64; 2]; 3] = forward_by_differences.initial([2.0, 0.0]).unwrap();
    Adaptive::new(Radau5::new())
        .with_component_tolerances(ErrorControl::StateOnly.tolerances(&y, tolerances))
        .solve(&mut y, &forward_by_differences, 0.0, t)
        .unwrap();
    assert_relative_eq!(y.sensitivity(0)[0], by_mu, max_relative = 1e-5);
    assert_relative_eq!(y.sensitivity(1)[0], by_x0, max_relative = 1e-5);

    let mut y = start;
    Adaptive::new(Rodas4)
        .with_tolerances(tolerances)
        .solve(&mut y, &forward, 0.0, t)
        .unwrap();
    assert_relative_eq!(y.sensitivity(0)[0], by_mu, max_relative = 1e-7);
    assert_relative_eq!(y.sensitivity(1)[0], by_x0, max_relative = 1e-7);
}

/// Every fixed-step method by name on the augmented Van der Pol (μ = 1): the sensitivity
/// after 40 steps equals the central difference of the method's own discrete map (the
/// same 40 steps from perturbed μ and x₀). Explicit methods to 10⁻⁷ relative (the
/// difference's truncation and rounding); implicit ones to 10⁻⁵, since their Newton
/// iterations stop at a tolerance, which the perturbed runs see differently.
#[test]
fn every_method_steps_the_derivative_of_its_discrete_map() {
    let (mu, dt, steps) = (1.0, 0.05, 40);
    let wrt = [WithRespectTo::Parameter(0), WithRespectTo::InitialValue(0)];
    let forward = Forward::new(VanDerPol, [mu], wrt).unwrap();
    for method in MethodKind::all()
        .into_iter()
        .map(Method::<[[f64; 2]; 3]>::new)
    {
        let name = method.name();
        let plain = |mu: f64, x0: f64| {
            let f = |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
            let mut stepper = Method::<[f64; 2]>::new(name.parse().unwrap());
            let mut y = [x0, 0.0];
            for i in 0..steps {
                stepper.step(&mut y, &f, f64::from(i) * dt, dt).unwrap();
            }
            y
        };
        let mut stepper = method;
        let mut y: [[f64; 2]; 3] = forward.initial([2.0, 0.0]).unwrap();
        for i in 0..steps {
            stepper
                .step(&mut y, &forward, f64::from(i) * dt, dt)
                .unwrap_or_else(|e| panic!("{name}: {e}"));
        }
        // The state itself is the plain method's, to rounding.
        assert_relative_eq!(y.state()[0], plain(mu, 2.0)[0], max_relative = 1e-9);
        let h = 1e-5;
        let implicit = stepper.method().properties().implicit;
        let tolerance = if implicit { 1e-5 } else { 1e-7 };
        for j in 0..2 {
            let by_mu = (plain(mu + h, 2.0)[j] - plain(mu - h, 2.0)[j]) / (2.0 * h);
            let by_x0 = (plain(mu, 2.0 + h)[j] - plain(mu, 2.0 - h)[j]) / (2.0 * h);
            assert!(
                (y.sensitivity(0)[j] - by_mu).abs() <= tolerance * by_mu.abs().max(1e-3),
                "{name}: ∂y{j}/∂μ {} against {by_mu}",
                y.sensitivity(0)[j]
            );
            assert!(
                (y.sensitivity(1)[j] - by_x0).abs() <= tolerance * by_x0.abs().max(1e-3),
                "{name}: ∂y{j}/∂x₀ {} against {by_x0}",
                y.sensitivity(1)[j]
            );
        }
    }
}

/// Every adaptive method by name (but the Nyström pairs, which need a second-order state:
/// `sensitivity/second_order.rs`), with the error control on the state alone: the run takes exactly the plain
/// solve's steps, and its sensitivities are those of a solution that accurate.
#[test]
fn every_adaptive_method_with_state_only_error_control_takes_the_plain_steps() {
    let t = 2.0;
    let tolerances = Tolerances::new(1e-8, 1e-10);
    let forward = Forward::new(Spring, [K, B], ALL_FOUR).unwrap();
    let spring = |y: &[f64; 2], _t: f64| [y[1], -K * y[0] - B * y[1]];
    for kind in AdaptiveKind::all()
        .into_iter()
        .filter(|k| !k.needs_second_order())
    {
        let name = kind.name();
        let mut plain = [X0, V0];
        let plain_statistics = Adaptive::new(kind)
            .with_tolerances(tolerances)
            .solve(&mut plain, &spring, 0.0, t)
            .unwrap();
        let mut y: [[f64; 2]; 5] = forward.initial([X0, V0]).unwrap();
        let statistics = Adaptive::new(kind)
            .with_component_tolerances(ErrorControl::StateOnly.tolerances(&y, tolerances))
            .solve(&mut y, &forward, 0.0, t)
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let implicit = matches!(name, "rodas4" | "rodas5p" | "ros3p" | "radau5" | "seulex");
        if implicit {
            // The LU of the augmented matrix pivots across blocks, so the state's part of
            // each stage differs from the plain solve's by rounding, and the Newton
            // iterations of Radau5 and SEULEX, measured in the augmented norm, stop at
            // other iterates: a step near the tolerance may go one way or the other.
            let (a, b) = (statistics.steps(), plain_statistics.steps());
            assert!(
                a.abs_diff(b) <= 1.max(b / 20),
                "{name}: {a} steps against {b}"
            );
        } else {
            assert_eq!(
                (statistics.accepted, statistics.rejected),
                (plain_statistics.accepted, plain_statistics.rejected),
                "{name}"
            );
        }
        // Ros3p's own error estimate misses its error on this linear problem (the plain
        // solve at 10⁻⁸ is 7% off): its sensitivities are as poor, and not checked here.
        if name == "ros3p" {
            continue;
        }
        let tolerance = if implicit { 1e-7 } else { 1e-12 };
        assert!(
            (y.state()[0] - plain[0]).abs() < tolerance,
            "{name}: {} against {}",
            y.state()[0],
            plain[0]
        );
        for which in 0..4 {
            let exact = spring_exact(which, t);
            assert!(
                (y.sensitivity(which)[0] - exact[0]).abs() < 1e-3 * exact[0].abs().max(0.1),
                "{name}: sensitivity {which} {} against {}",
                y.sensitivity(which)[0],
                exact[0]
            );
        }
    }
}

/// Including the sensitivities in the error control makes the run take more steps (they
/// are measured too) and makes them more accurate than the state-only run's.
#[test]
fn error_control_on_the_sensitivities_makes_them_accurate() {
    let t = 5.0;
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let forward = Forward::new(Spring, [K, B], ALL_FOUR).unwrap();
    let start: [[f64; 2]; 5] = forward.initial([X0, V0]).unwrap();
    let run = |control: ErrorControl| {
        let mut y = start;
        let statistics = Adaptive::new(kind("dopri5"))
            .with_component_tolerances(control.tolerances(&y, tolerances))
            .solve(&mut y, &forward, 0.0, t)
            .unwrap();
        let error = (0..4)
            .map(|i| (y.sensitivity(i)[0] - spring_exact(i, t)[0]).abs())
            .fold(0.0, f64::max);
        (statistics.accepted, error)
    };
    let (all_steps, all_error) = run(ErrorControl::All);
    let (state_steps, state_error) = run(ErrorControl::StateOnly);
    assert!(
        all_steps > state_steps,
        "{all_steps} steps against {state_steps}"
    );
    assert!(all_error < state_error, "{all_error} against {state_error}");
    assert!(all_error < 1e-5, "{all_error}");
}

/// Bad input is refused with an error that says what was wrong.
#[test]
fn bad_input_is_a_clear_error() {
    let out_of_range = Forward::new(Spring, [K, B], [WithRespectTo::Parameter(2)]).unwrap_err();
    assert_eq!(
        out_of_range,
        SensitivityError::ParameterOutOfRange { index: 2, count: 2 }
    );
    assert!(out_of_range.to_string().contains("parameter 2"));

    for value in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        let error = Forward::new(Spring, [K, value], [WithRespectTo::Parameter(0)]).unwrap_err();
        assert!(matches!(
            error,
            SensitivityError::NonFiniteParameter { index: 1, .. }
        ));
        assert!(error.to_string().contains("must be finite"), "{error}");
    }

    let forward = Forward::new(Spring, [K, B], [WithRespectTo::InitialValue(2)]).unwrap();
    let error = forward.initial::<[[f64; 2]; 2]>([X0, V0]).unwrap_err();
    assert_eq!(
        error,
        SensitivityError::InitialValueOutOfRange { index: 2, dim: 2 }
    );

    let forward = Forward::new(Spring, [K, B], [WithRespectTo::Parameter(0)]).unwrap();
    let error = forward.initial::<[[f64; 2]; 3]>([X0, V0]).unwrap_err();
    assert_eq!(error, SensitivityError::BlockCount { needed: 2, held: 3 });
    assert!(error.to_string().contains("3 blocks"), "{error}");
}

/// A sensitivity of an initial value starts as its unit vector, of a parameter at zero.
#[test]
fn initial_sensitivities() {
    let wrt = [WithRespectTo::InitialValue(1), WithRespectTo::Parameter(0)];
    let forward = Forward::new(Spring, [K, B], wrt).unwrap();
    let y: [[f64; 2]; 3] = forward.initial([X0, V0]).unwrap();
    assert_eq!(y, [[X0, V0], [0.0, 1.0], [0.0, 0.0]]);
    let forward = Forward::new(LargeSpring, vec![K, B], wrt).unwrap();
    let large: Stacked<Vec<f64>> = forward.initial(vec![X0, V0]).unwrap();
    assert_eq!(
        large.blocks(),
        [vec![X0, V0], vec![0.0, 1.0], vec![0.0, 0.0]]
    );
}

/// With the tangent by finite differences, a fixed-step implicit method whose Newton
/// tolerance is above the differences' `√ε` noise (here 10⁻⁷) converges, and its
/// sensitivities are the discrete map's to that noise.
#[test]
fn finite_difference_tangent_with_a_fixed_step_implicit_method() {
    let (mu, dt, steps) = (1.0, 0.05, 40);
    let by_differences = |y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]| {
        VanDerPol.rate(y, p, t, out);
    };
    let forward = Forward::new(by_differences, [mu], [WithRespectTo::Parameter(0)]).unwrap();
    let trapezoid = Trapezoid::new().with_tolerance(1e-7);
    let mut y: [[f64; 2]; 2] = forward.initial([2.0, 0.0]).unwrap();
    let mut stepper = Stepper::new(trapezoid);
    for i in 0..steps {
        stepper
            .step(&mut y, &forward, f64::from(i) * dt, dt)
            .unwrap();
    }
    let plain = |mu: f64| {
        let f = |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]];
        let mut stepper = Stepper::new(Trapezoid::new().with_tolerance(1e-12));
        let mut y = [2.0, 0.0];
        for i in 0..steps {
            stepper.step(&mut y, &f, f64::from(i) * dt, dt).unwrap();
        }
        y
    };
    let h = 1e-5;
    let by_mu = (plain(mu + h)[0] - plain(mu - h)[0]) / (2.0 * h);
    assert_relative_eq!(y.sensitivity(0)[0], by_mu, max_relative = 1e-5);
}

mod adjoint;
mod adjoint_bdf;
mod adjoint_fixed;
mod adjoint_radau5;
mod adjoint_rosenbrock;
mod adjoint_seulex;
mod complex_step;
mod dae;
mod forward_gmres;
mod second_order;
