//! The adjoint gradient under Radau5: the exact adjoint of the converged Radau IIA step,
//! over the steps the forward solve took.
//!
//! What it is checked against:
//!
//! - forward sensitivities of Radau5 on exactly the same steps, with the stage equations
//!   solved tightly (a fixed-step Radau5 at a Newton tolerance of 10⁻¹³): both are the
//!   exact derivative of the same discrete map (differentiating the stage equations gives
//!   the same method applied to the variational system), so they agree to round-off
//!   (10⁻¹⁰ relative), for a final value and a sum over samples, on the damped spring
//!   and on Robertson's stiff kinetics;
//! - the damped spring's closed form differentiated exactly (dual numbers), and central
//!   differences of tightly solved Robertson runs, to 10⁻⁷ relative;
//! - itself at other checkpoint intervals (the same arithmetic, to round-off).

use super::{B, K, Spring, V0, X0, spring_exact};
use approx::assert_relative_eq;
use core::num::NonZeroUsize;
use timestep::sensitivity::{
    Adjoint, AdjointMethod, Augmented, Forward, Gradient, Model, SensitivityError, WithRespectTo,
};
use timestep::{Adaptive, Integrator, Radau5, SmallVector, Tolerances, Vector};

use super::robertson::{ROBERTSON_K, Robertson};

/// The steps `(t, h)` of the adjoint's forward solve (a solve per stretch between sample
/// times), and after how many steps each sample falls.
fn steps_of<V, M: Model<V>>(
    model: &M,
    parameters: &[f64],
    solver: &mut Adaptive<V, Radau5>,
    y0: &V,
    times: &[f64],
) -> (Vec<(f64, f64)>, Vec<usize>)
where
    V: Vector<Scalar = f64>,
{
    let rate = |y: &V, t: f64| {
        let mut out = y.zero_like();
        model.rate(y, parameters, t, &mut out);
        out
    };
    let (mut steps, mut samples) = (Vec::new(), Vec::new());
    let (mut y, mut t) = (y0.clone(), 0.0);
    for &sample in times {
        if sample > t {
            solver
                .solve_with(&mut y, &rate, t, sample, |step| {
                    steps.push((step.start_time(), step.end_time() - step.start_time()));
                })
                .unwrap();
            t = sample;
        }
        samples.push(steps.len());
    }
    (steps, samples)
}

/// Forward sensitivities (every parameter, then every initial value) of fixed-step Radau5
/// over `steps`, with its stage equations solved to 10⁻¹³: the augmented state after
/// each sample's step count.
fn forward_over<V, M, const BLOCKS: usize>(
    model: M,
    parameters: &[f64],
    y0: V,
    steps: &[(f64, f64)],
    samples: &[usize],
) -> Vec<[V; BLOCKS]>
where
    V: Vector<Scalar = f64> + SmallVector + Copy,
    [V; BLOCKS]: Augmented<Block = V, Scalar = f64>,
    M: Model<V>,
{
    let n = y0.dim();
    let wrt: Vec<WithRespectTo> = (0..parameters.len())
        .map(WithRespectTo::Parameter)
        .chain((0..n).map(WithRespectTo::InitialValue))
        .collect();
    let forward = Forward::new(model, parameters.to_vec(), wrt).unwrap();
    let mut y: [V; BLOCKS] = forward.initial(y0).unwrap();
    let mut radau = Radau5::new().with_tolerance(1e-13).with_max_iterations(30);
    let mut out = Vec::new();
    let mut pending = samples.iter().peekable();
    for (n, &(t, h)) in steps.iter().enumerate() {
        while pending.next_if(|&&s| s == n).is_some() {
            out.push(y);
        }
        radau.step(&mut y, &forward, t, h).unwrap();
    }
    while pending.next().is_some() {
        out.push(y);
    }
    out
}

/// `Σₖ wₖ · s(tₖ)` for each sensitivity, from the forward sensitivities at the samples.
fn forward_gradient<V: Vector<Scalar = f64>, const BLOCKS: usize>(
    at_samples: &[[V; BLOCKS]],
    weights: &[V],
) -> Vec<f64> {
    (1..BLOCKS)
        .map(|i| {
            at_samples
                .iter()
                .zip(weights)
                .map(|(y, w)| {
                    (0..w.dim())
                        .map(|j| w.component(j) * y[i].component(j))
                        .sum::<f64>()
                })
                .sum()
        })
        .collect()
}

/// The adjoint's `∂L/∂p` then `∂L/∂y₀`, as one list.
pub(super) fn adjoint_gradient<V: Vector<Scalar = f64>>(gradient: &Gradient<V>) -> Vec<f64> {
    let y0 = &gradient.initial_value;
    gradient
        .parameters
        .iter()
        .copied()
        .chain((0..y0.dim()).map(|j| y0.component(j)))
        .collect()
}

fn assert_all_close(adjoint: &[f64], forward: &[f64], relative: f64) {
    assert_eq!(adjoint.len(), forward.len());
    let scale = forward.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
    for (a, f) in adjoint.iter().zip(forward) {
        assert!(
            (a - f).abs() <= relative * scale.max(f.abs())
                && (a - f).abs() <= relative * f.abs().max(1e-3 * scale),
            "adjoint {adjoint:?}\nforward {forward:?}"
        );
    }
}

#[test]
fn spring_final_value_is_the_forward_sensitivity_of_the_same_steps() {
    let tolerances = Tolerances::new(1e-6, 1e-8);
    let times = [3.0];
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(tolerances);
    let gradient = Adjoint::new(Spring, [K, B])
        .unwrap()
        .gradient(&mut solver, &[X0, V0], 0.0, &times, |_, _, _, out| {
            *out = [1.0, 0.0]
        })
        .unwrap();
    let (steps, samples) = steps_of(&Spring, &[K, B], &mut solver, &[X0, V0], &times);
    assert_eq!(steps.len() as u64, gradient.statistics.accepted);
    assert!(steps.len() > 20, "{} steps", steps.len());
    let at = forward_over::<_, _, 5>(Spring, &[K, B], [X0, V0], &steps, &samples);
    let forward = forward_gradient(&at, &[[1.0, 0.0]]);
    assert_all_close(&adjoint_gradient(&gradient), &forward, 1e-10);
    // Far below Radau5's error at these tolerances, which the closed form shows.
    let exact = [0, 1, 2, 3].map(|which| spring_exact(which, 3.0)[0]);
    let error = (0..4).fold(0.0_f64, |m, i| m.max((forward[i] - exact[i]).abs()));
    assert!(error > 1e-8 && error < 1e-4, "method error {error:e}");
}

#[test]
fn spring_gradient_matches_the_closed_form_when_solved_tightly() {
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-12, 1e-14));
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

/// Robertson's concentrations at `times`, "measured" as the solution at `ROBERTSON_K`
/// scaled by `1 ± 2%` alternately.
pub(super) fn kinetics_data(times: &[f64]) -> Vec<[f64; 3]> {
    let theta = ROBERTSON_K.map(f64::ln);
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-10, 1e-14));
    let rate = |y: &[f64; 3], t: f64| {
        let mut out = [0.0; 3];
        Robertson.rate(y, &theta, t, &mut out);
        out
    };
    let (mut y, mut t) = ([1.0, 0.0, 0.0], 0.0);
    let mut data = Vec::new();
    for (k, &sample) in times.iter().enumerate() {
        solver.solve(&mut y, &rate, t, sample).unwrap();
        t = sample;
        let factor = if k % 2 == 0 { 1.02 } else { 0.98 };
        data.push(y.map(|x| x * factor));
    }
    data
}

/// The least-squares loss `½ Σₖ Σⱼ ((yⱼ − dⱼ)/dⱼ)²`'s gradient in `y(tₖ)`.
pub(super) fn least_squares(
    data: &[[f64; 3]],
) -> impl Fn(usize, f64, &[f64; 3], &mut [f64; 3]) + '_ {
    move |k, _, y, out| *out = [0, 1, 2].map(|j| (y[j] - data[k][j]) / (data[k][j] * data[k][j]))
}

/// `Σₖ ½ Σⱼ ((yⱼ − dⱼ)/dⱼ)²`'s gradient in `y` at each sample, for `forward_gradient`.
fn loss_weights(at: &[[[f64; 3]; 7]], data: &[[f64; 3]]) -> Vec<[f64; 3]> {
    at.iter()
        .zip(data)
        .map(|(y, d)| [0, 1, 2].map(|j| (y[0][j] - d[j]) / (d[j] * d[j])))
        .collect()
}

pub(super) const KINETICS_TIMES: [f64; 4] = [0.4, 4.0, 40.0, 400.0];

#[test]
fn robertson_sum_over_samples_is_the_forward_sensitivity_of_the_same_steps() {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    let y0 = [1.0, 0.0, 0.0];
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    let gradient = Adjoint::new(Robertson, theta)
        .unwrap()
        .gradient(&mut solver, &y0, 0.0, &KINETICS_TIMES, &loss)
        .unwrap();
    let (steps, samples) = steps_of(&Robertson, &theta, &mut solver, &y0, &KINETICS_TIMES);
    assert_eq!(steps.len() as u64, gradient.statistics.accepted);
    // Stiff: steps grow to hundreds of time units, far beyond the explicit limit (10⁻³).
    assert!(steps.iter().any(|&(_, h)| h > 10.0), "{steps:?}");
    let at = forward_over::<_, _, 7>(Robertson, &theta, y0, &steps, &samples);
    let forward = forward_gradient(&at, &loss_weights(&at, &data));
    assert_all_close(&adjoint_gradient(&gradient), &forward, 1e-10);
}

#[test]
fn robertson_gradient_matches_central_differences_of_tight_solves() {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    let y0 = [1.0, 0.0, 0.0];
    let tolerances = Tolerances::new(1e-12, 1e-18);
    let gradient = Adjoint::new(Robertson, theta)
        .unwrap()
        .gradient(
            &mut Adaptive::new(Radau5::new()).with_tolerances(tolerances),
            &y0,
            0.0,
            &KINETICS_TIMES,
            &loss,
        )
        .unwrap();
    assert_matches_central_differences(&gradient.parameters, theta, &data);
}

/// `gradient` (to `ln k`) of the sum of squares over `KINETICS_TIMES` against `data` is
/// within 10⁻⁷ of central differences of Radau5 solves at rtol 10⁻¹², from `θ = ln k`.
pub(super) fn assert_matches_central_differences(
    gradient: &[f64],
    theta: [f64; 3],
    data: &[[f64; 3]],
) {
    let y0 = [1.0, 0.0, 0.0];
    let tolerances = Tolerances::new(1e-12, 1e-18);
    let cost = |theta: [f64; 3]| {
        let rate = |y: &[f64; 3], t: f64| {
            let mut out = [0.0; 3];
            Robertson.rate(y, &theta, t, &mut out);
            out
        };
        let mut solver = Adaptive::new(Radau5::new()).with_tolerances(tolerances);
        let (mut y, mut t, mut sum) = (y0, 0.0, 0.0);
        for (k, &sample) in KINETICS_TIMES.iter().enumerate() {
            solver.solve(&mut y, &rate, t, sample).unwrap();
            t = sample;
            sum += (0..3)
                .map(|j| 0.5 * ((y[j] - data[k][j]) / data[k][j]).powi(2))
                .sum::<f64>();
        }
        sum
    };
    // Truncation h² f'''/6 is 10⁻¹⁰ of the gradient here (5·10⁻⁷ at h = 10⁻⁴), rounding
    // 10⁻¹²/h.
    let h = 1e-5;
    for i in 0..3 {
        let (mut up, mut down) = (theta, theta);
        up[i] += h;
        down[i] -= h;
        let difference = (cost(up) - cost(down)) / (2.0 * h);
        assert_relative_eq!(gradient[i], difference, max_relative = 1e-7);
    }
}

/// The least-squares gradient of Robertson's kinetics in `ln k` (rtol 10⁻⁶) by `solver`'s
/// method with every state kept, and with a checkpoint every `interval` steps for each of
/// `intervals`: the same arithmetic but for where the stretches start, so the same to
/// 10⁻¹² relative; the run takes more than `steps` steps, many stretches.
pub(super) fn assert_checkpoint_intervals_agree<A: AdjointMethod<[f64; 3]>>(
    solver: impl Fn() -> Adaptive<[f64; 3], A>,
    intervals: &[usize],
    steps: u64,
) {
    let theta = ROBERTSON_K.map(f64::ln);
    let data = kinetics_data(&KINETICS_TIMES);
    let loss = least_squares(&data);
    let at = |interval: usize| {
        Adjoint::new(Robertson, theta)
            .unwrap()
            .with_checkpoint_interval(NonZeroUsize::new(interval).unwrap())
            .gradient(&mut solver(), &[1.0, 0.0, 0.0], 0.0, &KINETICS_TIMES, &loss)
            .unwrap()
    };
    let every = at(1);
    let accepted = every.statistics.accepted;
    assert!(accepted > steps, "{accepted} steps");
    let every = adjoint_gradient(&every);
    for &interval in intervals {
        assert_all_close(&adjoint_gradient(&at(interval)), &every, 1e-12);
    }
}

#[test]
fn the_checkpoint_interval_changes_nothing_but_round_off() {
    let radau5 = || Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    assert_checkpoint_intervals_agree(radau5, &[3, 32, usize::MAX], 40);
}

/// At a tolerance of 10⁻², the steps of Robertson's kinetics to t = 10⁵ are long;
/// solving their equations again to round-off either works (and the gradient is finite)
/// or says which step failed.
pub(super) fn assert_loose_solve_is_exact_or_refused<A: AdjointMethod<[f64; 3]>>(
    solver: &mut Adaptive<[f64; 3], A>,
) {
    let theta = ROBERTSON_K.map(f64::ln);
    match Adjoint::new(Robertson, theta).unwrap().gradient(
        solver,
        &[1.0, 0.0, 0.0],
        0.0,
        &[1e5],
        |_, _, _, out| *out = [0.0, 0.0, 1.0],
    ) {
        Ok(gradient) => assert!(gradient.parameters.iter().all(|g| f64::is_finite(*g))),
        Err(SensitivityError::StagesNotSolved { time }) => assert!((0.0..1e5).contains(&time)),
        Err(other) => panic!("{other}"),
    }
}

#[test]
fn a_loose_forward_solve_is_still_an_exact_adjoint_or_a_clear_error() {
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(Tolerances::new(1e-2, 1e-6));
    assert_loose_solve_is_exact_or_refused(&mut solver);
}
