//! Recovers Robertson's three rate constants from noisy concentrations, on a log scale,
//! with Radau5 and adjoint gradients.
//!
//! Robertson's kinetics (Hairer–Wanner II, IV.1), `A → B` at `k₁`, `2B → B + C` at `k₂`,
//! `B + C → A + C` at `k₃`:
//!
//! ```text
//! a' = −k₁ a + k₃ b c,   b' = k₁ a − k₃ b c − k₂ b²,   c' = k₂ b²,
//! ```
//!
//! true `k = (0.04, 3·10⁷, 10⁴)`, from `(1, 0, 0)`, is "measured" at 40 times spread
//! evenly in `log t` from 10⁻⁵ to 10³ (every species, relative noise of standard deviation
//! `--noise`, 1%, from `--seed`: SplitMix64 and Box–Muller). The fit works on
//! `θ = ln k` (the constants span eleven decades, and stay positive), from a start a factor
//! `--start` (3) off every constant, alternately above and below, and minimises the cost
//! `½ Σ rᵢ²` of the relative residuals `rᵢ = (yᵢ − dᵢ) / (σ dᵢ)`.
//!
//! Each evaluation solves the stiff system once with Radau5 and takes the cost's gradient
//! in `θ` by the discrete adjoint of that solve ([`timestep::sensitivity::Adjoint`], the
//! model's exact cotangent): one backward sweep for all three constants, exact for the
//! steps taken, so the gradient and the cost belong to the same discrete solution. An
//! adjoint gives `∇L = Jᵀ r`, not `J` itself, so the iteration is a quasi-Newton one: BFGS
//! with a backtracking line search (Nocedal and Wright, *Numerical Optimization*, 2nd ed.,
//! §6.1), a step of no more than a factor `e` in any constant. Levenberg–Marquardt, which
//! this example used before, needs `Jᵀ J`, that is the forward sensitivities of every
//! residual: it takes fewer iterations (6 here against 18) but its cost per iteration grows
//! with the number of constants, where the adjoint's does not. The standard errors at the
//! end still need `Jᵀ J`: one solve with forward sensitivities
//! ([`timestep::sensitivity::Forward`]) at the fit gives it (`s² (Jᵀ J)⁻¹`).
//!
//! ```text
//! cargo run --release --example fit_kinetics
//! cargo run --release --example fit_kinetics -- --noise 0.05 --seed 7 --start 10
//! ```
//!
//! Output: the header `iteration,k1,k2,k3,cost`, then a row per iteration from the start
//! (iteration 0), until no constant moves by more than 10⁻⁸ relative (or no lower cost is
//! found within that distance: the solves' round-off). The true constants and the fit with
//! its standard errors go to stderr. With the defaults it converges in 18 iterations
//! (about 50 ms) to k₁ = 0.040064 ± 0.15%, k₂ = 3.00036·10⁷ ± 0.30%, k₃ = 1.00181·10⁴ ±
//! 0.52%, each within 1.1 standard errors of the truth, cost 66.0 (60 expected from the
//! noise alone): the fit Levenberg–Marquardt found; from 100 times off, the same in 64.

mod cli;

use cli::{Flag, csv};
use std::io::{self, BufWriter, Write};
use std::process::ExitCode;
use timestep::sensitivity::{Adjoint, Augmented, ErrorControl, Forward, WithRespectTo};
use timestep::{Adaptive, Radau5, Tolerances};

#[path = "problems/random.rs"]
mod random;
use random::SplitMix64;
#[path = "problems/robertson.rs"]
mod robertson;
use robertson::{ROBERTSON_K, Robertson};

const PROGRAM: &str = "fit_kinetics";
const TRUE_K: [f64; 3] = ROBERTSON_K;
const START: [f64; 3] = [1.0, 0.0, 0.0];
const SAMPLES: usize = 40;

/// Each sample's concentrations and their sensitivities `∂y/∂θᵢ`.
type Samples = Vec<([f64; 3], [[f64; 3]; 3])>;

/// The concentrations at the sample times and their sensitivities, solved at `theta`.
fn simulate(theta: [f64; 3], times: &[f64]) -> Result<Samples, String> {
    let wrt = [0, 1, 2].map(WithRespectTo::Parameter);
    let forward = Forward::new(Robertson, theta, wrt).map_err(|e| e.to_string())?;
    let mut y: [[f64; 3]; 4] = forward.initial(START).map_err(|e| e.to_string())?;
    let tolerances = ErrorControl::StateOnly.tolerances(&y, tolerances());
    let mut samples = Vec::with_capacity(times.len());
    Adaptive::new(Radau5::new())
        .with_component_tolerances(tolerances)
        .solve_at(&mut y, &forward, 0.0, times, |_, y| {
            let s = |i| *y.sensitivity(i);
            samples.push((*y.state(), [s(0), s(1), s(2)]));
        })
        .map_err(|e| e.to_string())?;
    Ok(samples)
}

/// The tolerances of every solve.
fn tolerances() -> Tolerances {
    Tolerances::new(1e-9, 1e-14)
}

/// `½ Σ rᵢ²` at `theta` and its gradient in `θ`, by the adjoint of the Radau5 solve:
/// the loss at sample `k` is `½ Σⱼ rⱼ²`, `rⱼ = (yⱼ − dⱼ)/(σ dⱼ)`, whose gradient in
/// `y(tₖ)` is `rⱼ / (σ dⱼ)` (σ taken as 1 when it is 0).
fn cost_and_gradient(
    theta: [f64; 3],
    times: &[f64],
    data: &[[f64; 3]],
    sigma: f64,
) -> Result<(f64, [f64; 3]), String> {
    let scale = if sigma > 0.0 { sigma } else { 1.0 };
    let mut cost = 0.0;
    let mut solver = Adaptive::new(Radau5::new()).with_tolerances(tolerances());
    let gradient = Adjoint::new(Robertson, theta)
        .and_then(|adjoint| {
            adjoint.gradient(&mut solver, &START, 0.0, times, |k, _, y, out| {
                for j in 0..3 {
                    let weight = 1.0 / (scale * data[k][j]);
                    let r = (y[j] - data[k][j]) * weight;
                    cost += 0.5 * r * r;
                    out[j] = r * weight;
                }
            })
        })
        .map_err(|e| e.to_string())?;
    let g = &gradient.parameters;
    Ok((cost, [g[0], g[1], g[2]]))
}

/// Each residual `(yⱼ − dⱼ)/(σ dⱼ)` with its row of `J`, `∂rⱼ/∂θ`.
fn residuals<'a>(
    samples: &'a Samples,
    data: &'a [[f64; 3]],
    sigma: f64,
) -> impl Iterator<Item = (f64, [f64; 3])> + 'a {
    let scale = if sigma > 0.0 { sigma } else { 1.0 };
    samples.iter().zip(data).flat_map(move |((y, s), d)| {
        (0..3).map(move |j| {
            let weight = 1.0 / (scale * d[j]);
            (
                (y[j] - d[j]) * weight,
                [s[0][j] * weight, s[1][j] * weight, s[2][j] * weight],
            )
        })
    })
}

/// `Jᵀ J` and `Jᵀ r`.
fn normal_equations(samples: &Samples, data: &[[f64; 3]], sigma: f64) -> ([[f64; 3]; 3], [f64; 3]) {
    let mut jtj = [[0.0; 3]; 3];
    let mut jtr = [0.0; 3];
    for (r, row) in residuals(samples, data, sigma) {
        for a in 0..3 {
            jtr[a] += row[a] * r;
            for b in 0..3 {
                jtj[a][b] += row[a] * row[b];
            }
        }
    }
    (jtj, jtr)
}

/// `x` with `m x = v` by Gaussian elimination with partial pivoting; `None` if singular.
fn solve(mut m: [[f64; 3]; 3], mut v: [f64; 3]) -> Option<[f64; 3]> {
    for col in 0..3 {
        let pivot = (col..3).max_by(|&a, &b| m[a][col].abs().total_cmp(&m[b][col].abs()))?;
        if m[pivot][col] == 0.0 || !m[pivot][col].is_finite() {
            return None;
        }
        m.swap(col, pivot);
        v.swap(col, pivot);
        let (above, below) = m.split_at_mut(col + 1);
        let pivot_row = above[col];
        for (offset, row) in below.iter_mut().enumerate() {
            let factor = row[col] / pivot_row[col];
            for (entry, pivot_entry) in row.iter_mut().zip(pivot_row).skip(col) {
                *entry -= factor * pivot_entry;
            }
            v[col + 1 + offset] -= factor * v[col];
        }
    }
    let mut x = [0.0; 3];
    for row in (0..3).rev() {
        let rest: f64 = (row + 1..3).map(|k| m[row][k] * x[k]).sum();
        x[row] = (v[row] - rest) / m[row][row];
    }
    Some(x)
}

/// The end of a fit: `θ` and the cost there.
struct Fit {
    theta: [f64; 3],
    cost: f64,
}

/// Iterations allowed.
const MAX_ITERATIONS: usize = 200;

/// The fit has converged when no `θᵢ = ln kᵢ` moves by more than this: 10⁻⁸ relative
/// in each constant.
const STEP_TOLERANCE: f64 = 1e-8;

fn row(iteration: usize, theta: [f64; 3], cost: f64) -> String {
    let k = theta.map(f64::exp);
    format!(
        "{iteration},{},{},{},{}",
        csv(k[0]),
        csv(k[1]),
        csv(k[2]),
        csv(cost)
    )
}

fn dot(a: [f64; 3], b: [f64; 3]) -> f64 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

/// BFGS with a backtracking line search from `theta`, a row per iteration to `out`
/// (Nocedal and Wright, *Numerical Optimization*, 2nd ed., Algorithm 6.1, with the first
/// inverse Hessian scaled by (6.20) and Armijo's condition, `c₁ = 10⁻⁴`).
fn fit(
    mut theta: [f64; 3],
    times: &[f64],
    data: &[[f64; 3]],
    sigma: f64,
    out: &mut impl Write,
) -> Result<Fit, String> {
    let io = |e: io::Error| e.to_string();
    let (mut current, mut gradient) = cost_and_gradient(theta, times, data, sigma)?;
    writeln!(out, "{}", row(0, theta, current)).map_err(io)?;
    // The inverse Hessian, and whether it has been scaled yet.
    let mut inverse = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    let mut scaled = false;
    for iteration in 1..=MAX_ITERATIONS {
        let mut direction = inverse.map(|row| -dot(row, gradient));
        let slope = dot(direction, gradient);
        if slope >= 0.0 {
            // Not a descent direction (round-off in a flat valley): start over downhill.
            direction = gradient.map(|g| -g);
            inverse = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
            scaled = false;
        }
        // No constant moves by more than a factor e in one step.
        let longest = direction.iter().fold(0.0_f64, |m, d| m.max(d.abs()));
        let mut alpha = (1.0 / longest).min(1.0);
        let slope = dot(direction, gradient);
        let (step, next_cost, next_gradient) = loop {
            let step = direction.map(|d| alpha * d);
            let trial = [0, 1, 2].map(|i| theta[i] + step[i]);
            // A trial off the system's range (an overflowing constant) counts as worse.
            match cost_and_gradient(trial, times, data, sigma) {
                Ok((cost, g)) if cost <= current + 1e-4 * alpha * slope => break (step, cost, g),
                _ if step.iter().all(|s| s.abs() <= STEP_TOLERANCE) => {
                    // Nothing lower within round-off of the solves: converged.
                    return Ok(Fit {
                        theta,
                        cost: current,
                    });
                }
                _ => alpha *= 0.5,
            }
        };
        let change = [0, 1, 2].map(|i| next_gradient[i] - gradient[i]);
        let curvature = dot(step, change);
        theta = [0, 1, 2].map(|i| theta[i] + step[i]);
        current = next_cost;
        gradient = next_gradient;
        writeln!(out, "{}", row(iteration, theta, current)).map_err(io)?;
        if step.iter().all(|s| s.abs() <= STEP_TOLERANCE) {
            return Ok(Fit {
                theta,
                cost: current,
            });
        }
        if curvature > 0.0 {
            if !scaled {
                let factor = curvature / dot(change, change);
                inverse = inverse.map(|row| row.map(|x| x * factor));
                scaled = true;
            }
            inverse = bfgs_update(inverse, step, change, curvature);
        }
    }
    Err(format!("no convergence in {MAX_ITERATIONS} iterations"))
}

/// `H₊ = (I − ρ s yᵀ) H (I − ρ y sᵀ) + ρ s sᵀ`, `ρ = 1/(yᵀ s)` (Nocedal and Wright (6.17)).
fn bfgs_update(h: [[f64; 3]; 3], s: [f64; 3], y: [f64; 3], curvature: f64) -> [[f64; 3]; 3] {
    let rho = 1.0 / curvature;
    let hy = h.map(|row| dot(row, y));
    let yhy = dot(y, hy);
    let mut out = h;
    for i in 0..3 {
        for j in 0..3 {
            out[i][j] +=
                -rho * (s[i] * hy[j] + hy[i] * s[j]) + (rho * rho * yhy + rho) * s[i] * s[j];
        }
    }
    out
}

fn main() -> ExitCode {
    let flags = [
        Flag::new(
            "--noise",
            "SIGMA",
            "the relative noise's standard deviation, >= 0 and < 0.5",
            "0.01",
        ),
        Flag::new("--seed", "N", "the noise's seed, a whole number", "1"),
        Flag::new(
            "--start",
            "FACTOR",
            "how far off each starting constant is, a factor >= 1 and <= 1000",
            "3",
        ),
    ];
    let (mut noise, mut seed, mut factor) = (0.01, 1, 3.0);
    for (flag, value) in cli::parse(
        PROGRAM,
        "fits Robertson's rate constants (true 0.04, 3e7, 1e4) on a log scale to 40 noisy samples \
         of the three concentrations with Radau5 and adjoint gradients (BFGS), CSV iteration,k1,k2,k3,cost",
        &flags,
    ) {
        match flag {
            "--noise" => noise = cli::not_negative(PROGRAM, flag, &value),
            "--seed" => seed = cli::whole(PROGRAM, flag, &value, 0),
            _ => factor = cli::positive(PROGRAM, flag, &value),
        }
    }
    if noise >= 0.5 {
        cli::fail(
            PROGRAM,
            format!("--noise must be below 0.5 (relative), got {noise}"),
        );
    }
    if !(1.0..=1000.0).contains(&factor) {
        cli::fail(
            PROGRAM,
            format!("--start must be between 1 and 1000, got {factor}"),
        );
    }

    let times: Vec<f64> = (0..SAMPLES)
        .map(|i| 10f64.powf(-5.0 + 8.0 * i as f64 / (SAMPLES - 1) as f64))
        .collect();
    let truth = TRUE_K.map(f64::ln);
    let mut random = SplitMix64(seed);
    let data: Vec<[f64; 3]> = match simulate(truth, &times) {
        Ok(samples) => samples
            .iter()
            .map(|(y, _)| y.map(|y| y * (1.0 + noise * random.normal())))
            .collect(),
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            return ExitCode::FAILURE;
        }
    };
    let start = [
        truth[0] + factor.ln(),
        truth[1] - factor.ln(),
        truth[2] + factor.ln(),
    ];

    let mut out = BufWriter::new(io::stdout().lock());
    if writeln!(out, "iteration,k1,k2,k3,cost").is_err() {
        return ExitCode::FAILURE;
    }
    let result = fit(start, &times, &data, noise, &mut out);
    if out.flush().is_err() {
        return ExitCode::FAILURE;
    }
    match result {
        Ok(Fit { theta, cost }) => {
            // The standard errors from one solve with forward sensitivities at the fit.
            let normal = match simulate(theta, &times) {
                Ok(samples) => normal_equations(&samples, &data, noise).0,
                Err(message) => {
                    eprintln!("{PROGRAM}: {message}");
                    return ExitCode::FAILURE;
                }
            };
            // s² (Jᵀ J)⁻¹, s² estimated from the residuals (n − 3 degrees of freedom; about 1
            // when the noise is as assumed), is the covariance of θ; a relative error of k is
            // that of θ = ln k.
            let variance = 2.0 * cost / (3 * SAMPLES - 3) as f64;
            let spread = |i: usize| {
                let mut unit = [0.0; 3];
                unit[i] = 1.0;
                solve(normal, unit).map_or(f64::NAN, |column| (variance * column[i]).sqrt())
            };
            eprintln!(
                "true: k1 = {}, k2 = {}, k3 = {} (noise {noise}, seed {seed}, start off by {factor}x)",
                TRUE_K[0], TRUE_K[1], TRUE_K[2]
            );
            let k = theta.map(f64::exp);
            eprintln!(
                "fitted: k1 = {:.6e} ± {:.2}%, k2 = {:.6e} ± {:.2}%, k3 = {:.6e} ± {:.2}%, cost {cost:.4} ({} residuals)",
                k[0],
                100.0 * spread(0),
                k[1],
                100.0 * spread(1),
                k[2],
                100.0 * spread(2),
                3 * SAMPLES
            );
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("{PROGRAM}: {message}");
            ExitCode::FAILURE
        }
    }
}
