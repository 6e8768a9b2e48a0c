//! The adjoint gradient under the Rosenbrock methods (Rodas4, Rodas5P, ROS3P): the exact adjoint
//! of the step `y₊ = Φ(y, p)`, which depends on `(y, p)` through its stages and through
//! the Jacobian `J(y, p)` and `∂f/∂t` the step is built on.
//!
//! What it is checked against:
//!
//! - forward sensitivities of the same method on exactly the same steps, with the
//!   augmented system's exact Jacobian (its lower blocks `∂(J s + f_p)/∂y` written out):
//!   a Rosenbrock method applied to the variational system with that Jacobian is the
//!   derivative of its discrete map (the augmented `J`'s lower blocks are the change of
//!   `J` along the sensitivity, the adjoint's second-order term transposed; `∂f/∂t` is a
//!   difference in time, linear, on both sides), so the two agree to round-off: 10⁻¹⁰
//!   relative on a spring whose stiffness is pumped in time (`J` constant in `y`, but not
//!   in `k` nor in `t`) and on Van der Pol (where `J` depends on `y`);
//! - on Van der Pol, the same forward sensitivities with the augmented Jacobian's lower
//!   blocks dropped (what the adjoint is without its second-order term), which miss by
//!   far more than the tolerance: the term is needed, and the test can fail;
//! - central differences of tightly solved Robertson runs, to 10⁻⁷ relative (Rodas4 and
//!   Rodas5P: the adjoint takes any tableau);
//! - Robertson's total mass, a linear invariant of every step: its gradient is exactly
//!   that of the initial total, even over long, loose steps;
//! - itself at other checkpoint intervals (the same arithmetic, to round-off).

use super::{B, K, V0, X0};
use approx::assert_relative_eq;
use timestep::sensitivity::{
    Adjoint, AdjointMethod, Augmented, Forward, Model, SensitivityError, WithRespectTo,
};
use timestep::{
    Adaptive, Integrator, Jacobian, Rodas4, Rodas5P, Ros3p, Rosenbrock, SmallVector, Tolerances,
    WithJacobian,
};

use super::adjoint_radau5::{
    KINETICS_TIMES, adjoint_gradient, assert_checkpoint_intervals_agree,
    assert_matches_central_differences, kinetics_data, least_squares,
};
use super::robertson::{ROBERTSON_K, Robertson};

/// `x'' = −k (1 + ½ cos t) x − b x'`: a damped spring whose stiffness is pumped in time,
/// parameters `[k, b]`. Linear in the state, so `J` does not change with `y`; it does
/// with `k` and with `t`.
#[derive(Clone, Copy, Debug)]
struct PumpedSpring;

fn pump(t: f64) -> f64 {
    1.0 + 0.5 * t.cos()
}

impl Model<[f64; 2]> for PumpedSpring {
    fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
        *out = [y[1], -p[0] * pump(t) * y[0] - p[1] * y[1]];
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
        let m = pump(t);
        *out = [
            dy[1],
            -p[0] * m * dy[0] - p[1] * dy[1] - dp[0] * m * y[0] - dp[1] * y[1],
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
        let m = pump(t);
        *out_y = [-p[0] * m * w[1], w[0] - p[1] * w[1]];
        out_p[0] = -m * y[0] * w[1];
        out_p[1] = -y[1] * w[1];
        true
    }
}

/// The pumped spring's augmented Jacobian's lower blocks `∂(J s + f_p)/∂y` for the
/// sensitivities `[k, b, x₀, v₀]`: `∂f_k/∂y = [[0, 0], [−m(t), 0]]`, `∂f_b/∂y =
/// [[0, 0], [0, −1]]`, none for the initial values (`J s` is linear in `s` alone).
fn pumped_lower(_y: &[[f64; 2]], t: f64, block: usize) -> [[f64; 2]; 2] {
    match block {
        0 => [[0.0, 0.0], [-pump(t), 0.0]],
        1 => [[0.0, 0.0], [0.0, -1.0]],
        _ => [[0.0; 2]; 2],
    }
}

const MU: f64 = 5.0;

/// Van der Pol, `x' = v`, `v' = μ ((1 − x²) v − x)`, parameter `[μ]`.
#[derive(Clone, Copy, Debug)]
struct VanDerPol;

impl Model<[f64; 2]> for VanDerPol {
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        let [x, v] = *y;
        *out = [v, p[0] * ((1.0 - x * x) * v - x)];
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
        let [x, v] = *y;
        *out = [
            dy[1],
            p[0] * ((-2.0 * x * v - 1.0) * dy[0] + (1.0 - x * x) * dy[1])
                + dp[0] * ((1.0 - x * x) * v - x),
        ];
        true
    }

    fn cotangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        w: &[f64; 2],
        out_y: &mut [f64; 2],
        out_p: &mut [f64],
    ) -> bool {
        let [x, v] = *y;
        *out_y = [
            p[0] * (-2.0 * x * v - 1.0) * w[1],
            w[0] + p[0] * (1.0 - x * x) * w[1],
        ];
        out_p[0] = ((1.0 - x * x) * v - x) * w[1];
        true
    }
}

/// Van der Pol's lower blocks `∂(J s + f_μ)/∂y` for the sensitivities `[μ, x₀, v₀]`:
/// `J s`'s second row `μ ((−2xv − 1) s₀ + (1 − x²) s₁)` differentiated in `(x, v)`, plus
/// `∂f_μ/∂y = [(−2xv − 1), (1 − x²)]` for `μ`.
fn van_der_pol_lower(y: &[[f64; 2]], _t: f64, block: usize) -> [[f64; 2]; 2] {
    let [x, v] = y[0];
    let s = y[block + 1];
    let mut row = [
        MU * (-2.0 * v * s[0] - 2.0 * x * s[1]),
        MU * (-2.0 * x * s[0]),
    ];
    if block == 0 {
        row[0] += -2.0 * x * v - 1.0;
        row[1] += 1.0 - x * x;
    }
    [[0.0, 0.0], row]
}

/// The model's `J_y` at `(y, p, t)` into `jacobian`, a row per cotangent (as the adjoint's
/// forward solve takes it, so that a solve with these forces takes the same steps).
fn model_jacobian<M: Model<[f64; 2]>>(
    model: &M,
    p: &[f64],
    y: &[f64; 2],
    t: f64,
    jacobian: &mut Jacobian<f64>,
) {
    let mut discarded = vec![0.0; p.len()];
    for r in 0..2 {
        let mut unit = [0.0; 2];
        unit[r] = 1.0;
        let mut row = [0.0; 2];
        assert!(model.cotangent(y, p, t, &unit, &mut row, &mut discarded));
        jacobian[(r, 0)] = row[0];
        jacobian[(r, 1)] = row[1];
    }
}

/// The steps `(t, h)` the adjoint's forward solve takes (the model's rate and Jacobian,
/// one solve per stretch between samples), and after how many steps each sample falls.
fn steps_of<M: Model<[f64; 2]>, const S: usize>(
    model: &M,
    p: &[f64],
    solver: &mut Adaptive<[f64; 2], Rosenbrock<S>>,
    y0: [f64; 2],
    times: &[f64],
) -> (Vec<(f64, f64)>, Vec<usize>) {
    let forces = WithJacobian::new(
        |y: &[f64; 2], t: f64| {
            let mut out = [0.0; 2];
            model.rate(y, p, t, &mut out);
            out
        },
        |y: &[f64; 2], t: f64, j: &mut Jacobian<f64>| model_jacobian(model, p, y, t, j),
    );
    let (mut steps, mut samples) = (Vec::new(), Vec::new());
    let (mut y, mut t) = (y0, 0.0);
    for &sample in times {
        if sample > t {
            solver
                .solve_with(&mut y, &forces, t, sample, |step| {
                    steps.push((step.start_time(), step.end_time() - step.start_time()));
                })
                .unwrap();
            t = sample;
        }
        samples.push(steps.len());
    }
    (steps, samples)
}

/// Forward sensitivities (every parameter, then every initial value) of `method` at fixed
/// steps over `steps`, with the augmented system's Jacobian: `J` on the diagonal blocks
/// and, when `lower` is given, `lower(y, t, i)` as sensitivity `i`'s block below them.
/// The augmented state after each sample's step count.
fn forward_over<M, L, const S: usize, const BLOCKS: usize>(
    method: Rosenbrock<S>,
    model: M,
    parameters: &[f64],
    y0: [f64; 2],
    steps: &[(f64, f64)],
    samples: &[usize],
    lower: Option<L>,
) -> Vec<[[f64; 2]; BLOCKS]>
where
    M: Model<[f64; 2]> + Copy,
    L: Fn(&[[f64; 2]], f64, usize) -> [[f64; 2]; 2],
    [[f64; 2]; BLOCKS]: Augmented<Block = [f64; 2], Scalar = f64>,
{
    let wrt: Vec<WithRespectTo> = (0..parameters.len())
        .map(WithRespectTo::Parameter)
        .chain((0..2).map(WithRespectTo::InitialValue))
        .collect();
    let forward = Forward::new(model, parameters.to_vec(), wrt).unwrap();
    let jacobian = |y: &[[f64; 2]; BLOCKS], t: f64, j: &mut Jacobian<f64>| {
        let mut diagonal = [0.0; 4];
        let mut view = Jacobian::new(&mut diagonal, 2);
        model_jacobian(&model, parameters, &y[0], t, &mut view);
        for b in 0..BLOCKS {
            for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                j[(2 * b + r, 2 * b + c)] = diagonal[2 * r + c];
            }
        }
        if let Some(lower) = &lower {
            for b in 1..BLOCKS {
                let block = lower(&y[..], t, b - 1);
                for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
                    j[(2 * b + r, c)] = block[r][c];
                }
            }
        }
    };
    let mut y: [[f64; 2]; BLOCKS] = forward.initial(y0).unwrap();
    let forces = WithJacobian::new(forward, jacobian);
    let mut method = method;
    let mut out = Vec::new();
    let mut pending = samples.iter().peekable();
    for (n, &(t, h)) in steps.iter().enumerate() {
        while pending.next_if(|&&s| s == n).is_some() {
            out.push(y);
        }
        method.step(&mut y, &forces, t, h).unwrap();
    }
    while pending.next().is_some() {
        out.push(y);
    }
    out
}

/// `Σₖ wₖ · s(tₖ)` for each sensitivity.
fn forward_gradient<const BLOCKS: usize>(
    at_samples: &[[[f64; 2]; BLOCKS]],
    weights: &[[f64; 2]],
) -> Vec<f64> {
    (1..BLOCKS)
        .map(|i| {
            at_samples
                .iter()
                .zip(weights)
                .map(|(y, w)| w[0] * y[i][0] + w[1] * y[i][1])
                .sum()
        })
        .collect()
}

/// The largest difference relative to the largest entry of `expected`.
fn relative_difference(got: &[f64], expected: &[f64]) -> f64 {
    assert_eq!(got.len(), expected.len());
    let scale = expected.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    got.iter()
        .zip(expected)
        .fold(0.0_f64, |m, (g, e)| m.max((g - e).abs() / scale))
}

/// The adjoint of `method` for `L = Σₖ wₖ · y(tₖ)` (`samples` the pairs `(tₖ, wₖ)`), and forward
/// sensitivities of `method` over the same steps: with the exact augmented Jacobian, and
/// without its lower blocks.
fn both_ways<M, L, const S: usize, const BLOCKS: usize>(
    method: Rosenbrock<S>,
    model: M,
    parameters: &[f64],
    y0: [f64; 2],
    samples: &[(f64, [f64; 2])],
    tolerances: Tolerances,
    lower: L,
) -> (Vec<f64>, Vec<f64>, Vec<f64>)
where
    M: Model<[f64; 2]> + Copy,
    L: Fn(&[[f64; 2]], f64, usize) -> [[f64; 2]; 2],
    [[f64; 2]; BLOCKS]: Augmented<Block = [f64; 2], Scalar = f64> + SmallVector,
{
    let (times, weights): (Vec<f64>, Vec<[f64; 2]>) = samples.iter().copied().unzip();
    let mut solver = Adaptive::new(method).with_tolerances(tolerances);
    let gradient = Adjoint::new(model, parameters.to_vec())
        .unwrap()
        .gradient(&mut solver, &y0, 0.0, &times, |k, _, _, out| {
            *out = weights[k]
        })
        .unwrap();
    let (steps, after) = steps_of(&model, parameters, &mut solver, y0, &times);
    assert_eq!(
        steps.len() as u64,
        gradient.statistics.accepted,
        "the same steps"
    );
    assert!(steps.len() > 10, "{} steps", steps.len());
    let exact =
        forward_over::<_, _, S, BLOCKS>(method, model, parameters, y0, &steps, &after, Some(lower));
    let without =
        forward_over::<_, L, S, BLOCKS>(method, model, parameters, y0, &steps, &after, None);
    // The samples the adjoint saw are those of the steps taken again.
    let last = exact.last().unwrap()[0];
    assert_relative_eq!(gradient.end[0], last[0], max_relative = 1e-12);
    assert_relative_eq!(gradient.end[1], last[1], max_relative = 1e-12);
    (
        adjoint_gradient(&gradient),
        forward_gradient(&exact, &weights),
        forward_gradient(&without, &weights),
    )
}

#[test]
fn pumped_spring_is_the_forward_sensitivity_of_the_same_steps() {
    let samples = [(1.0, [1.0, 0.0]), (2.0, [0.0, 1.0]), (3.0, [1.0, -0.5])];
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let y0 = [X0, V0];
    for method in [Rodas4.rosenbrock(), Rodas4.assume_autonomous()] {
        let (adjoint, forward, _) = both_ways::<_, _, 6, 5>(
            method,
            PumpedSpring,
            &[K, B],
            y0,
            &samples,
            tolerances,
            pumped_lower,
        );
        let difference = relative_difference(&adjoint, &forward);
        assert!(
            difference < 1e-10,
            "{difference:e}: {adjoint:?} {forward:?}"
        );
    }
    let (adjoint, forward, _) = both_ways::<_, _, 3, 5>(
        Ros3p.rosenbrock(),
        PumpedSpring,
        &[K, B],
        y0,
        &samples,
        tolerances,
        pumped_lower,
    );
    let difference = relative_difference(&adjoint, &forward);
    assert!(
        difference < 1e-10,
        "{difference:e}: {adjoint:?} {forward:?}"
    );
}

#[test]
fn van_der_pol_needs_the_second_order_term() {
    let samples = [(0.5, [1.0, 0.0]), (1.5, [0.3, 1.0])];
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let y0 = [2.0, 0.0];
    let (adjoint, forward, without) = both_ways::<_, _, 6, 4>(
        Rodas4.rosenbrock(),
        VanDerPol,
        &[MU],
        y0,
        &samples,
        tolerances,
        van_der_pol_lower,
    );
    // The central differences of the second-order term err by about ε^(2/3) of it
    // (5·10⁻¹⁴ apart here).
    let difference = relative_difference(&adjoint, &forward);
    assert!(
        difference < 1e-10,
        "{difference:e}: {adjoint:?} {forward:?}"
    );
    // Without the change of J with (y, μ) the derivative is another map's, off by far
    // more than the tolerance above: 1.8·10⁻² (the adjoint with its second-order term
    // left out gives exactly that, 10⁸ times the tolerance).
    let dropped = relative_difference(&without, &forward);
    assert!(dropped > 1e-3, "the second-order term is only {dropped:e}");
}

/// The gradient of a least-squares fit of Robertson's rate constants (in log form) from
/// a tight solve by `solver`, against central differences of tight solves.
fn robertson_gradient_matches_central_differences<A: AdjointMethod<[f64; 3]>>(
    solver: &mut Adaptive<[f64; 3], A>,
) {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    let y0 = [1.0, 0.0, 0.0];
    let gradient = Adjoint::new(Robertson, theta)
        .unwrap()
        .gradient(solver, &y0, 0.0, &KINETICS_TIMES, &loss)
        .unwrap();
    assert_matches_central_differences(&gradient.parameters, theta, &data);
}

#[test]
fn robertson_gradient_matches_central_differences_of_tight_solves() {
    let tolerances = Tolerances::new(1e-10, 1e-16);
    robertson_gradient_matches_central_differences(
        &mut Adaptive::new(Rodas4).with_tolerances(tolerances),
    );
    robertson_gradient_matches_central_differences(
        &mut Adaptive::new(Rodas5P).with_tolerances(tolerances),
    );
}

#[test]
fn the_checkpoint_interval_changes_nothing_but_round_off() {
    let solver = || Adaptive::new(Rodas4).with_tolerances(Tolerances::new(1e-6, 1e-10));
    assert_checkpoint_intervals_agree(solver, &[3, usize::MAX], 40);
}

#[test]
fn the_total_mass_has_the_gradient_of_an_invariant_even_at_a_loose_tolerance() {
    // The loss is the total mass a + b + c, a linear invariant that every Rosenbrock step
    // keeps exactly (the rates, and so the columns of Jᵀ, sum to zero): its gradient is
    // (1, 1, 1) in y₀ and zero in θ, however long the steps (27 here, to t = 10⁵).
    let theta = ROBERTSON_K.map(f64::ln);
    let mut solver = Adaptive::new(Rodas4).with_tolerances(Tolerances::new(1e-2, 1e-6));
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
    assert!(
        gradient.statistics.accepted < 100,
        "{}",
        gradient.statistics.accepted
    );
    for g in gradient.initial_value {
        assert_relative_eq!(g, 1.0, max_relative = 1e-12);
    }
    for g in gradient.parameters {
        assert!(g.abs() < 1e-12, "{g:e}");
    }
}

#[test]
fn a_non_finite_model_is_a_clear_error() {
    // A rate that overflows: the forward solve stops and says why.
    let blow_up = |y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]| {
        *out = [p[0] * y[0] * y[0], 0.0];
    };
    let mut solver = Adaptive::new(Rodas4);
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
