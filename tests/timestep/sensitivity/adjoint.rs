//! The adjoint gradient (`timestep::sensitivity::Adjoint`): the discrete adjoint of an
//! explicit pair over the steps it took.
//!
//! What it is checked against:
//!
//! - forward sensitivities of the same pair over the same steps (error control on the state
//!   alone takes the plain solve's steps): both are the exact derivative of the same
//!   discrete map, so they agree to round-off;
//! - the damped spring's closed form differentiated exactly (the dual numbers of the
//!   forward tests), for a final value and for a least-squares sum over samples;
//! - central differences of tightly solved runs, for a linear system of 10 unknowns whose
//!   100 matrix entries are the parameters.

use super::{ALL_FOUR, B, Dual, K, LargeSpring, Spring, V0, X0, spring_closed_form, spring_exact};
use approx::assert_relative_eq;
use core::num::NonZeroUsize;
use timestep::control::IntoAdaptive;
use timestep::sensitivity::{Adjoint, ErrorControl, Forward, Gradient, Model, SensitivityError};
use timestep::{
    Adaptive, Bs3, Dop853, Dopri5, Pair, PairSource, Tolerances, Tsit5, Vern6, Vern7, Vern8, Vern9,
};

/// The gradient of `L = x(T)` by the adjoint of `method`, and by forward sensitivities of
/// the same method with error control on the state alone: `[k, b, x₀, v₀]` each.
fn both_ways<Src, const N: usize>(
    method: Src,
    t: f64,
    tolerances: Tolerances,
) -> ([f64; 4], [f64; 4])
where
    Src: PairSource<N> + IntoAdaptive<Method = Pair<Src, N>>,
{
    let mut solver = Adaptive::new(method).with_tolerances(tolerances);
    let gradient = Adjoint::new(Spring, [K, B])
        .unwrap()
        .gradient(&mut solver, &[X0, V0], 0.0, &[t], |_, _, _, out| {
            *out = [1.0, 0.0]
        })
        .unwrap();
    let adjoint = [
        gradient.parameters[0],
        gradient.parameters[1],
        gradient.initial_value[0],
        gradient.initial_value[1],
    ];

    let forward = Forward::new(Spring, [K, B], ALL_FOUR).unwrap();
    let mut y: [[f64; 2]; 5] = forward.initial([X0, V0]).unwrap();
    let statistics = Adaptive::new(method)
        .with_component_tolerances(ErrorControl::StateOnly.tolerances(&y, tolerances))
        .solve(&mut y, &forward, 0.0, t)
        .unwrap();
    assert_eq!(
        statistics.accepted, gradient.statistics.accepted,
        "the same steps"
    );
    // The same steps to round-off: the augmented state's error norm sums in another order
    // (10⁻¹⁵ apart for most pairs, 10⁻¹¹ for Verner's 6, 8 and 9).
    for (adjoint, forward) in gradient.end.iter().zip(y[0]) {
        assert_relative_eq!(*adjoint, forward, max_relative = 1e-10);
    }
    (adjoint, [y[1][0], y[2][0], y[3][0], y[4][0]])
}

#[test]
fn every_explicit_pair_gives_the_forward_sensitivities_of_its_own_steps() {
    // Both exact derivatives of the same discrete map: they agree as closely as the two
    // solves' states do (see `both_ways`), far below the method's error (10⁻⁴ here).
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let t = 3.0;
    let pairs = [
        ("bs3", both_ways(Bs3, t, tolerances)),
        ("dopri5", both_ways(Dopri5, t, tolerances)),
        ("tsit5", both_ways(Tsit5, t, tolerances)),
        ("dop853", both_ways(Dop853, t, tolerances)),
        ("vern6", both_ways(Vern6, t, tolerances)),
        ("vern7", both_ways(Vern7, t, tolerances)),
        ("vern8", both_ways(Vern8, t, tolerances)),
        ("vern9", both_ways(Vern9, t, tolerances)),
    ];
    for (name, (adjoint, forward)) in pairs {
        for (a, f) in adjoint.iter().zip(forward) {
            assert_relative_eq!(*a, f, max_relative = 1e-10);
        }
        // …and both are the derivative within the method's error at this tolerance.
        for (which, a) in adjoint.iter().enumerate() {
            let exact = spring_exact(which, t)[0];
            assert!(
                (a - exact).abs() < 1e-4 * exact.abs().max(1.0),
                "{name} {which}: {a} against {exact}"
            );
        }
    }
}

#[test]
fn final_value_gradient_matches_the_closed_form() {
    let t = 5.0;
    let (adjoint, _) = both_ways(Dop853, t, Tolerances::new(1e-12, 1e-14));
    for (which, a) in adjoint.iter().enumerate() {
        assert_relative_eq!(*a, spring_exact(which, t)[0], max_relative = 1e-7);
    }
}

/// Samples of the spring at `times`, with a fixed pattern of errors added.
fn measurements(times: &[f64]) -> Vec<f64> {
    let c = Dual::constant;
    times
        .iter()
        .enumerate()
        .map(|(i, &t)| {
            spring_closed_form(c(K), c(B), c(X0), c(V0), t).0.0 + 0.01 * ((i * 7 % 11) as f64 - 5.0)
        })
        .collect()
}

#[test]
fn least_squares_gradient_over_samples_matches_the_closed_form() {
    // L = Σ (x(tᵢ) − dᵢ)² / 2 at 50 times, the first at t₀ (it counts only in ∂L/∂x₀):
    // ∂L/∂θ = Σ (x(tᵢ) − dᵢ) ∂x(tᵢ)/∂θ, exactly from the closed form.
    let times: Vec<f64> = (0..50).map(|i| 0.1 * i as f64).collect();
    let data = measurements(&times);
    let (k, b) = (K + 0.3, B - 0.1); // away from the data's parameters, so the residuals are not noise alone
    let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-12, 1e-14));
    let gradient = Adjoint::new(Spring, [k, b])
        .unwrap()
        .with_checkpoint_interval(NonZeroUsize::new(5).unwrap())
        .gradient(&mut solver, &[X0, V0], 0.0, &times, |i, _, y, out| {
            *out = [y[0] - data[i], 0.0]
        })
        .unwrap();

    let mut exact = [0.0; 4];
    for (which, e) in exact.iter_mut().enumerate() {
        for (&t, &d) in times.iter().zip(&data) {
            let seed = |i: usize, a: f64| {
                if i == which {
                    Dual::variable(a)
                } else {
                    Dual::constant(a)
                }
            };
            let (x, _) = spring_closed_form(seed(0, k), seed(1, b), seed(2, X0), seed(3, V0), t);
            *e += (x.0 - d) * x.1;
        }
    }
    let adjoint = [
        gradient.parameters[0],
        gradient.parameters[1],
        gradient.initial_value[0],
        gradient.initial_value[1],
    ];
    for (a, e) in adjoint.iter().zip(exact) {
        assert_relative_eq!(*a, e, max_relative = 1e-7);
    }
}

#[test]
fn checkpoint_interval_changes_memory_not_the_gradient() {
    let times = [1.0, 2.5, 4.0];
    let run = |interval: usize| {
        let mut solver = Adaptive::new(Tsit5).with_tolerances(Tolerances::new(1e-8, 1e-10));
        Adjoint::new(Spring, [K, B])
            .unwrap()
            .with_checkpoint_interval(NonZeroUsize::new(interval).unwrap())
            .gradient(&mut solver, &[X0, V0], 0.0, &times, |_, _, y, out| {
                *out = [y[0], y[1]]
            })
            .unwrap()
    };
    let all = run(1);
    // With every state kept, no stretch is recomputed: 6 stages per step and no more.
    let steps = all.statistics.accepted;
    assert_eq!(all.adjoint_evaluations, 6 * steps);
    assert_eq!(all.cotangents, 6 * steps);
    for interval in [2, 7, usize::MAX] {
        let other = run(interval);
        // Recomputing each stretch costs one more pass of the stages, fewer the last steps.
        assert!(other.adjoint_evaluations > all.adjoint_evaluations);
        assert!(other.adjoint_evaluations <= 12 * steps);
        for (a, b) in other.parameters.iter().zip(&all.parameters) {
            assert_relative_eq!(*a, *b, max_relative = 1e-12);
        }
        for i in 0..2 {
            assert_relative_eq!(
                other.initial_value[i],
                all.initial_value[i],
                max_relative = 1e-12
            );
        }
    }
}

/// The spring with its tangent and no cotangent.
struct TangentOnly;

impl Model<[f64; 2]> for TangentOnly {
    fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
        Spring.rate(y, p, t, out);
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
        Spring.tangent(y, p, t, dy, dp, out)
    }
}

#[test]
fn without_a_cotangent_it_is_built_from_tangents_or_differences() {
    /// The gradient of `x(2)` for `model`.
    fn of<M: Model<[f64; 2]>>(model: M) -> Gradient<[f64; 2]> {
        let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-9, 1e-11));
        Adjoint::new(model, [K, B])
            .unwrap()
            .gradient(&mut solver, &[X0, V0], 0.0, &[2.0], |_, _, y, out| {
                *out = [y[0], 0.0];
            })
            .unwrap()
    }
    let (exact, by_tangent) = (of(Spring), of(TangentOnly));
    let by_differences = Adjoint::new(LargeSpring, vec![K, B])
        .unwrap()
        .gradient(
            &mut Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-9, 1e-11)),
            &vec![X0, V0],
            0.0,
            &[2.0],
            |_, _, y: &Vec<f64>, out: &mut Vec<f64>| out[0] = y[0],
        )
        .unwrap();
    assert_eq!(
        exact.statistics.accepted,
        by_differences.statistics.accepted
    );
    for i in 0..2 {
        assert_relative_eq!(
            by_tangent.parameters[i],
            exact.parameters[i],
            max_relative = 1e-13
        );
        assert_relative_eq!(
            by_tangent.initial_value[i],
            exact.initial_value[i],
            max_relative = 1e-13
        );
        // One-sided differences: about √ε relative per column.
        assert_relative_eq!(
            by_differences.parameters[i],
            exact.parameters[i],
            max_relative = 1e-6
        );
        assert_relative_eq!(
            by_differences.initial_value[i],
            exact.initial_value[i],
            max_relative = 1e-6
        );
    }
    // Columns by differences cost an evaluation each (n + p = 4) and one at the point.
    assert_eq!(
        by_differences.adjoint_evaluations - exact.adjoint_evaluations,
        5 * exact.cotangents
    );
}

#[path = "../../../examples/problems/linear.rs"]
mod linear;
use linear::Linear;

#[test]
fn a_hundred_parameters_match_central_differences() {
    let w = linear::parameters();
    let y0 = linear::START;
    let tolerances = Tolerances::new(1e-12, 1e-14);
    // L = Σᵢ yᵢ(2)² / 2.
    let loss_of = |w: &[f64]| {
        let forces = |y: &[f64; 10], t: f64| {
            let mut out = [0.0; 10];
            Linear.rate(y, w, t, &mut out);
            out
        };
        let mut y = y0;
        Adaptive::new(Dopri5)
            .with_tolerances(tolerances)
            .solve(&mut y, &forces, 0.0, 2.0)
            .unwrap();
        y.iter().map(|y| y * y).sum::<f64>() / 2.0
    };
    let gradient = Adjoint::new(Linear, w.clone())
        .unwrap()
        .gradient(
            &mut Adaptive::new(Dopri5).with_tolerances(tolerances),
            &y0,
            0.0,
            &[2.0],
            |_, _, y, out| *out = *y,
        )
        .unwrap();
    assert_eq!(gradient.parameters.len(), 100);
    for k in [0, 1, 13, 47, 58, 99] {
        let h = 1e-6;
        let (mut up, mut down) = (w.clone(), w.clone());
        up[k] += h;
        down[k] -= h;
        let central = (loss_of(&up) - loss_of(&down)) / (2.0 * h);
        assert_relative_eq!(gradient.parameters[k], central, max_relative = 1e-6);
    }
}

#[test]
fn bad_input_is_a_clear_error() {
    let mut solver = Adaptive::new(Dopri5);
    let adjoint = Adjoint::new(Spring, [K, B]).unwrap();
    let loss = |_: usize, _: f64, _: &[f64; 2], _: &mut [f64; 2]| {};
    for times in [
        &[][..],
        &[1.0, 0.5],
        &[-1.0],
        &[f64::NAN],
        &[1.0, f64::INFINITY],
    ] {
        assert_eq!(
            adjoint
                .gradient(&mut solver, &[X0, V0], 0.0, times, loss)
                .unwrap_err(),
            SensitivityError::InvalidTimes,
            "{times:?}"
        );
    }
    assert_eq!(
        adjoint
            .gradient(&mut solver, &[X0, V0], f64::NAN, &[1.0], loss)
            .unwrap_err(),
        SensitivityError::InvalidTimes
    );
    assert!(matches!(
        Adjoint::new(Spring, [K, f64::NAN]).unwrap_err(),
        SensitivityError::NonFiniteParameter { index: 1, .. }
    ));
    // A sample at the start alone: no steps, the loss's own gradient.
    let start = adjoint
        .gradient(&mut solver, &[X0, V0], 0.0, &[0.0], |_, _, y, out| {
            *out = [2.0 * y[0], 0.0]
        })
        .unwrap();
    assert_eq!(start.initial_value, [2.0 * X0, 0.0]);
    assert_eq!(start.parameters, [0.0, 0.0]);
    assert_eq!(start.statistics.accepted, 0);
}

/// `y₁' = −p y₁ + y₂`, `0 = y₂ − 1`: a DAE, which the adjoint refuses under a method that
/// reads the mass matrix, rather than differentiate `y₂' = y₂ − 1` in its place.
struct Dae;
impl Model<[f64; 2]> for Dae {
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        *out = [-p[0] * y[0] + y[1], y[1] - 1.0];
    }
    fn mass_matrix(&self, mass: &mut timestep::Jacobian<'_, f64>) -> bool {
        mass[(0, 0)] = 1.0;
        true
    }
}

#[test]
fn a_mass_matrix_is_refused() {
    let adjoint = Adjoint::new(Dae, [2.0]).unwrap();
    let loss = |_: usize, _: f64, _: &[f64; 2], out: &mut [f64; 2]| out[0] = 1.0;
    let refused = adjoint.gradient(
        &mut Adaptive::new(timestep::Radau5::new()),
        &[0.0, 1.0],
        0.0,
        &[1.0],
        loss,
    );
    assert_eq!(refused.unwrap_err(), SensitivityError::MassMatrix);
    let refused = adjoint.gradient(
        &mut Adaptive::new(timestep::Rodas4),
        &[0.0, 1.0],
        0.0,
        &[1.0],
        loss,
    );
    assert_eq!(refused.unwrap_err(), SensitivityError::MassMatrix);
    let refused = adjoint.gradient(
        &mut Adaptive::new(timestep::Bdf::new()),
        &[0.0, 1.0],
        0.0,
        &[1.0],
        loss,
    );
    assert_eq!(refused.unwrap_err(), SensitivityError::MassMatrix);
    let backward_euler = timestep::BackwardEuler::new();
    let refused = adjoint.gradient_fixed(&backward_euler, &[0.0, 1.0], 0.0, 0.1, &[1.0], loss);
    assert_eq!(refused.unwrap_err(), SensitivityError::MassMatrix);
}

/// `Gradient::end` is the state `loss_gradient` saw last: for Radau5, whose steps are taken
/// again with their stages solved to round-off, that of the run differentiated, not the
/// forward solve's (within its Newton tolerance of it).
#[test]
fn the_end_is_the_state_the_loss_saw() {
    let decay = |y: &f64, p: &[f64], _t: f64, out: &mut f64| *out = -p[0] * y;
    let mut seen = f64::NAN;
    let gradient = Adjoint::new(decay, [3.0])
        .unwrap()
        .gradient(
            &mut Adaptive::new(timestep::Radau5::new())
                .with_tolerances(Tolerances::new(1e-6, 1e-8)),
            &1.0,
            0.0,
            &[0.5, 1.0],
            |_, _, y, out| {
                seen = *y;
                *out = 1.0;
            },
        )
        .unwrap();
    assert_eq!(gradient.end, seen);
    assert_relative_eq!(gradient.end, (-3.0_f64).exp(), max_relative = 1e-5);
}
