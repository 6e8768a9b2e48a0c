//! Speed of light for `peers/adaptive-arenstorf-*` and `peers/adaptive-lorenz-*`: a
//! hand-written, maximally tight DOP853 on `[f64; N]` (every stage in registers, every
//! coefficient a constant, dop853.f's controller and timestep's initial step, so that it
//! takes timestep's steps), against timestep's `Adaptive<_, Dop853>` and `ode_solvers`'
//! `Dop853` run exactly as `benches/peers.rs` runs them. All three are handed the problem's
//! right-hand side as the same function item (`examples/problems/mod.rs`).
//!
//! The hand-written variants differ in what lies on the dependent chain of a step:
//!
//! - `ts-order`: the stage probes as timestep forms them, `y + h·(Σⱼ aᵢⱼ kⱼ)`, the newest
//!   rate added last to the sum (latency from `kᵢ₋₁`: mul, add, mul, add); the error norm
//!   and controller as timestep computes them (`√` of each norm, `e5²/√(e5² + 0.01 e3²)`,
//!   three `√` for `err^(1/8)`, `1/(plain/1/0.9)`).
//! - `prescaled`: `(y + h Σⱼ₍ⱼ<ᵢ₋₁₎ aᵢⱼ kⱼ) + (h aᵢ,ᵢ₋₁) kᵢ₋₁`: the part without the newest
//!   rate is formed while it is evaluated; from `kᵢ₋₁` only a mul and an add.
//! - `+powf`: the controller's `err^(1/8)` by `powf` instead of three `√`.
//! - `+short-ctl`: the error and controller with fewer operations on the chain: `err²` (no
//!   `√` of the norms, one division), `err^(1/8) = (err²)^(1/16)` by four `√`, and the
//!   factor `0.9/plain` in one division.
//!
//! The groups `adaptive_sol/dop853-<N>` (N = 2, 6, 28, 100, 1000) measure the pair's cost
//! per step at each size: timestep on an FPU-β chain as `[f64; N]` and as `Vec<f64>` against
//! `tight/ts-order` (`ADAPTIVE_SOL_PROFILE=dop853-28/timestep-vec` for callgrind); the groups
//! `adaptive_sol/dopri5-<N>` the same for Dopri5 against the hand-written `tight5`
//! (`ADAPTIVE_SOL_PROFILE=dopri5-28/tight`; `ADAPTIVE_SOL_RUNS=0` checks the steps).
//!
//! ```text
//! cargo bench -p timestep-peers --bench adaptive_sol
//! ADAPTIVE_SOL_PROFILE=arenstorf/<function> ADAPTIVE_SOL_RUNS=1000 target/release/deps/adaptive_sol-*   # for callgrind
//! ```

#[path = "../../examples/problems/mod.rs"]
mod problems;

#[path = "shared/mod.rs"]
#[allow(dead_code)]
mod shared;

use criterion::{Criterion, criterion_group, criterion_main};
use shared::{Rhs, rung};
use std::hint::black_box;
use std::time::Duration;
use timestep::adaptive::Adaptive;
use timestep::control::{AdaptiveMethod, IntoAdaptive};
use timestep::{InPlace, Tolerances};

const PAIR: timestep::EmbeddedPair<16> = timestep::Dop853::PAIR;
const A: [[f64; 16]; 16] = PAIR.tableau.a;
const B: [f64; 16] = PAIR.tableau.b;
const E5: [f64; 16] = PAIR.error;
const E3: [f64; 16] = match PAIR.error_guard {
    Some(guard) => guard,
    None => [0.0; 16],
};

/// Dormand and Prince's 5(4) pair, for the hand-written Dopri5.
const PAIR5: timestep::EmbeddedPair<7> = timestep::Dopri5::PAIR;
const A5: [[f64; 7]; 7] = PAIR5.tableau.a;
const B5: [f64; 7] = PAIR5.tableau.b;
const E5_5: [f64; 7] = PAIR5.error;

/// An initial value problem `y' = f(y)` from 0 to `end`, and the tolerances its groups
/// run at (those of `benches/peers.rs`).
#[derive(Clone, Copy)]
struct Ivp<const N: usize, F> {
    name: &'static str,
    start: [f64; N],
    end: f64,
    f: F,
    tolerances: [(&'static str, f64); 2],
    /// How far the variants' end states may lie from timestep's: their rounding differs,
    /// and Arenstorf's close approach to the Earth magnifies a difference of the last bit
    /// ten-thousandfold.
    agree: f64,
}

/// What a run ends with.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run<const N: usize> {
    y: [f64; N],
    accepted: u64,
    rejected: u64,
    evaluations: u64,
}

/// timestep's initial step (src/adaptive/run.rs `initial_step`; `q` one more than the
/// pair's lower order: 8 for DOP853, 5 for Dopri5), with its arithmetic; one evaluation.
#[inline(always)]
fn initial_step<const N: usize>(
    q: u32,
    f: impl Fn(&[f64; N]) -> [f64; N],
    y: &[f64; N],
    k0: &[f64; N],
    tol: f64,
    max_step: f64,
    direction: f64,
) -> f64 {
    let n = N as f64;
    let scale: [f64; N] = core::array::from_fn(|i| tol + tol * y[i].abs());
    let weight: [f64; N] = core::array::from_fn(|i| 1.0 / (tol + tol * y[i].abs().max(y[i].abs())));
    let mut dnf = 0.0;
    for i in 0..N {
        let s = k0[i] * 1.0 * weight[i];
        dnf += s * s;
    }
    let dnf = f64::sqrt(dnf / n);
    let mut dny = 0.0;
    for i in 0..N {
        let s = y[i] / scale[i];
        dny += s * s;
    }
    let dny = f64::sqrt(dny / n);
    let h0 = if dnf <= 1e-5 || dny <= 1e-5 {
        1e-6
    } else {
        0.01 * dny / dnf
    };
    let h0 = h0.min(max_step) * direction;
    let probe: [f64; N] = core::array::from_fn(|i| y[i] + k0[i] * h0);
    let k1 = f(&probe);
    let mut second = 0.0;
    for i in 0..N {
        let d = (k1[i] - k0[i]) / scale[i];
        second += d * d;
    }
    let second = f64::sqrt(second / n) / h0.abs();
    let largest = second.max(dnf);
    let h1 = if largest <= 1e-15 {
        (h0.abs() * 1e-3).max(1e-6)
    } else {
        (0.01 / largest).powf(1.0 / f64::from(q))
    };
    (100.0 * h0.abs()).min(h1).min(max_step) * direction
}

/// `a·k` for a vector.
#[inline(always)]
fn mul<const N: usize>(k: &[f64; N], a: f64) -> [f64; N] {
    core::array::from_fn(|i| k[i] * a)
}

/// `s + k·a`.
#[inline(always)]
fn axpy<const N: usize>(s: &[f64; N], k: &[f64; N], a: f64) -> [f64; N] {
    core::array::from_fn(|i| s[i] + k[i] * a)
}

/// The hand-written DOP853 on `p` at `rtol = atol = tol`.
///
/// `PRESCALED`: the stage probes as `(y + h Σⱼ₍ⱼ<ᵢ₋₁₎ aᵢⱼ kⱼ) + (h aᵢ,ᵢ₋₁) kᵢ₋₁` instead of
/// `y + h (Σⱼ aᵢⱼ kⱼ)`. `POWF`: `err^(1/8)` by `powf`. `SHORT`: the shorter error and
/// controller chain.
#[inline(never)]
fn tight<const N: usize, F: Rhs<N>, const PRESCALED: bool, const POWF: bool, const SHORT: bool>(
    p: &Ivp<N, F>,
    tol: f64,
) -> Run<N> {
    let f = |y: &[f64; N]| (p.f)(y, 0.0);
    let end = p.end;
    let (t0, direction) = (0.0_f64, 1.0_f64);
    let max_step = (end - t0).abs();
    let mut y = p.start;
    let mut k0 = f(&y);
    let mut h = initial_step(8, f, &y, &k0, tol, max_step, direction);
    let mut run = Run {
        y,
        accepted: 0,
        rejected: 0,
        evaluations: 2,
    };
    let (safety, min_factor, max_factor) = (0.9, 0.333, 6.0);
    let (shrink, grow) = (1.0 / min_factor, 1.0 / max_factor);
    let mut after_rejection = false;
    let mut t = t0;
    let mut last = false;

    // One stage: its nonzero coefficients' columns, the newest last.
    macro_rules! probe {
        ($k:ident, $i:literal; $j0:literal) => {
            axpy(&y, &$k[$j0], h * A[$i][$j0])
        };
        ($k:ident, $i:literal; $j0:literal $($j:literal)* ; $last:literal) => {{
            if PRESCALED {
                #[allow(unused_mut)]
                let mut s = mul(&$k[$j0], A[$i][$j0]);
                $( s = axpy(&s, &$k[$j], A[$i][$j]); )*
                let partial = axpy(&y, &s, h);
                axpy(&partial, &$k[$last], h * A[$i][$last])
            } else {
                let mut s = mul(&$k[$j0], A[$i][$j0]);
                $( s = axpy(&s, &$k[$j], A[$i][$j]); )*
                s = axpy(&s, &$k[$last], A[$i][$last]);
                axpy(&y, &s, h)
            }
        }};
    }
    // `Σ w_j k_j` over the weights' nonzero columns, in timestep's order.
    macro_rules! combine {
        ($k:ident, $w:ident; $j0:literal $($j:literal)*) => {{
            let mut s = mul(&$k[$j0], $w[$j0]);
            $( s = axpy(&s, &$k[$j], $w[$j]); )*
            s
        }};
    }

    loop {
        if 0.1 * h.abs() <= t.abs() * f64::EPSILON || h == 0.0 {
            panic!("step too small at t = {t}");
        }
        if (t + 1.01 * h - end) * direction > 0.0 {
            h = end - t;
            last = true;
        }
        let mut k = [[0.0; N]; 12];
        k[0] = k0;
        k[1] = f(&probe!(k, 1; 0));
        k[2] = f(&probe!(k, 2; 0; 1));
        k[3] = f(&probe!(k, 3; 0; 2));
        k[4] = f(&probe!(k, 4; 0 2; 3));
        k[5] = f(&probe!(k, 5; 0 3; 4));
        k[6] = f(&probe!(k, 6; 0 3 4; 5));
        k[7] = f(&probe!(k, 7; 0 3 4 5; 6));
        k[8] = f(&probe!(k, 8; 0 3 4 5 6; 7));
        k[9] = f(&probe!(k, 9; 0 3 4 5 6 7; 8));
        k[10] = f(&probe!(k, 10; 0 3 4 5 6 7 8; 9));
        k[11] = f(&probe!(k, 11; 0 3 4 5 6 7 8 9; 10));
        run.evaluations += 11;

        let sum = combine!(k, B; 0 5 6 7 8 9 10 11);
        let y_new = axpy(&y, &sum, h);
        let e5 = combine!(k, E5; 0 5 6 7 8 9 10 11);
        let e3 = combine!(k, E3; 0 5 6 7 8 9 10 11);
        let habs = h.abs();
        let weight: [f64; N] =
            core::array::from_fn(|i| 1.0 / (tol + tol * y[i].abs().max(y_new[i].abs())));
        let (mut s5, mut s3) = (0.0, 0.0);
        for i in 0..N {
            let a = e5[i] * habs * weight[i];
            let b = e3[i] * habs * weight[i];
            s5 += a * a;
            s3 += b * b;
        }

        // The error against 1, and the controller's `err^(1/8)`, as `(accept, plain)`.
        let (accept, plain) = if SHORT {
            // err² = est⁴ / (est² + 0.01 lower²), est² = s5/n: one division, no √.
            let (est2, lower2) = (s5 / N as f64, s3 / N as f64);
            let deno = est2 + 0.01 * lower2;
            let err2 = if deno > 0.0 { est2 * est2 / deno } else { 0.0 };
            let plain = if POWF {
                err2.powf(1.0 / 16.0)
            } else {
                err2.sqrt().sqrt().sqrt().sqrt()
            };
            (err2 <= 1.0, plain)
        } else {
            let (estimate, lower) = (f64::sqrt(s5 / N as f64), f64::sqrt(s3 / N as f64));
            let deno = estimate * estimate + 0.01 * lower * lower;
            let err = if deno > 0.0 {
                estimate * estimate / f64::sqrt(deno)
            } else {
                estimate + lower
            };
            let plain = if POWF {
                err.powf(1.0 / 8.0)
            } else {
                err.sqrt().sqrt().sqrt()
            };
            (err <= 1.0, plain)
        };
        if !accept {
            run.rejected += 1;
            after_rejection = true;
            last = false;
            let factor = if SHORT {
                (safety / plain).max(min_factor)
            } else {
                1.0 / shrink.min(plain / safety)
            };
            h *= factor;
            continue;
        }
        let factor = if SHORT {
            (safety / plain).clamp(min_factor, max_factor)
        } else {
            let fac = (plain / 1.0 / safety).clamp(grow, shrink);
            1.0 / fac
        };
        let factor = if after_rejection {
            factor.min(1.0)
        } else {
            factor
        };
        run.accepted += 1;
        k0 = f(&y_new);
        run.evaluations += 1;
        y = y_new;
        t = if last { end } else { t + h };
        if last {
            run.y = y;
            return run;
        }
        after_rejection = false;
        h = (h * factor).abs().min(max_step) * direction;
    }
}

/// The hand-written Dopri5 (Dormand and Prince, J. Comput. Appl. Math. 6 (1980) 19–26;
/// dopri5.f's controller, Hairer–Nørsett–Wanner I, II.4) on `p` at `rtol = atol = tol`,
/// with timestep's arithmetic (the probes `y + h·(Σⱼ aᵢⱼ kⱼ)`, the error norm, the PI
/// controller's `exp` and `ln`, the initial step) so that it takes timestep's steps: every
/// stage in registers, every coefficient a constant, the seventh stage's probe the new
/// state, as dopri5.f's `Y1`.
#[inline(never)]
fn tight5<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, tol: f64) -> Run<N> {
    let f = |y: &[f64; N]| (p.f)(y, 0.0);
    let end = p.end;
    let (t0, direction) = (0.0_f64, 1.0_f64);
    let max_step = (end - t0).abs();
    let mut y = p.start;
    let mut k0 = f(&y);
    let mut h = initial_step(5, f, &y, &k0, tol, max_step, direction);
    let mut run = Run {
        y,
        accepted: 0,
        rejected: 0,
        evaluations: 2,
    };
    // dopri5.f's controller as timestep's `Controller::decide` computes it.
    let (safety, min_factor, max_factor, beta) = (0.9, 0.2, 10.0, 0.04);
    let exponent = 1.0 / 5.0 - 0.75 * beta;
    let mut ln_previous = -9.210340371976182_f64;
    let mut after_rejection = false;
    let mut t = t0;
    let mut last = false;

    macro_rules! probe {
        ($k:ident, $i:literal; $j0:literal $($j:literal)*) => {{
            let mut s = mul(&$k[$j0], A5[$i][$j0]);
            $( s = axpy(&s, &$k[$j], A5[$i][$j]); )*
            axpy(&y, &s, h)
        }};
    }

    loop {
        if 0.1 * h.abs() <= t.abs() * f64::EPSILON || h == 0.0 {
            panic!("step too small at t = {t}");
        }
        if (t + 1.01 * h - end) * direction > 0.0 {
            h = end - t;
            last = true;
        }
        let mut k = [[0.0; N]; 7];
        k[0] = k0;
        k[1] = f(&axpy(&y, &k[0], h * A5[1][0]));
        k[2] = f(&probe!(k, 2; 0 1));
        k[3] = f(&probe!(k, 3; 0 1 2));
        k[4] = f(&probe!(k, 4; 0 1 2 3));
        k[5] = f(&probe!(k, 5; 0 1 2 3 4));
        // The seventh stage's probe (its row of `a` is `b`) is the new state.
        let mut s = mul(&k[0], B5[0]);
        for j in [2, 3, 4, 5] {
            s = axpy(&s, &k[j], B5[j]);
        }
        let y_new = axpy(&y, &s, h);
        k[6] = f(&y_new);
        run.evaluations += 6;

        let mut e = mul(&k[0], E5_5[0]);
        for j in [2, 3, 4, 5, 6] {
            e = axpy(&e, &k[j], E5_5[j]);
        }
        let habs = h.abs();
        let mut sum = 0.0;
        for i in 0..N {
            let scaled = e[i] * habs * (1.0 / (tol + tol * y[i].abs().max(y_new[i].abs())));
            sum += scaled * scaled;
        }
        let err = f64::sqrt(sum / N as f64);
        // A NaN error is rejected, as the controller rejects it.
        let accept = err <= 1.0;
        if !accept {
            run.rejected += 1;
            after_rejection = true;
            last = false;
            let plain = (exponent * err.ln()).exp();
            h *= (safety / plain).max(min_factor);
            continue;
        }
        let ln_error = err.ln();
        let growth = safety * (beta * ln_previous - exponent * ln_error).exp();
        let mut factor = growth.max(min_factor).min(max_factor);
        ln_previous = ln_error.max(-9.210340371976182);
        if after_rejection {
            factor = factor.min(1.0);
        }
        run.accepted += 1;
        k0 = k[6];
        y = y_new;
        t = if last { end } else { t + h };
        if last {
            run.y = y;
            return run;
        }
        after_rejection = false;
        h = (h * factor).abs().min(max_step) * direction;
    }
}

/// timestep, as benches/peers.rs runs its side (`adaptive_timestep` with "dop853").
#[inline(never)]
fn by_timestep<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    tol: f64,
) -> ([f64; N], timestep::Statistics) {
    by_pair(timestep::Dop853, p, tol)
}

/// timestep's `Dopri5`, as [`by_timestep`] runs `Dop853`.
#[inline(never)]
fn by_timestep5<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    tol: f64,
) -> ([f64; N], timestep::Statistics) {
    by_pair(timestep::Dopri5, p, tol)
}

/// timestep's `pair` on `p` as `[f64; N]`.
#[inline(always)]
fn by_pair<const N: usize, F: Rhs<N>, P: IntoAdaptive<Method: AdaptiveMethod<[f64; N]>>>(
    pair: P,
    p: &Ivp<N, F>,
    tol: f64,
) -> ([f64; N], timestep::Statistics) {
    let mut y = p.start;
    let tolerances = Tolerances::new(tol, tol);
    let statistics = Adaptive::new(pair)
        .with_tolerances(tolerances)
        .solve(&mut y, &p.f, 0.0, p.end)
        .expect("an adaptive run within its step budget");
    (y, statistics)
}

/// timestep on the problem as a `Vec<f64>`, stepped in place (rates written by `rate_into`).
#[inline(never)]
fn by_timestep_vec<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    rate_into: fn(&[f64], &mut [f64]),
    tol: f64,
) -> (Vec<f64>, timestep::Statistics) {
    by_pair_vec(timestep::Dop853, p, rate_into, tol)
}

/// timestep's `Dopri5`, as [`by_timestep_vec`] runs `Dop853`.
#[inline(never)]
fn by_timestep5_vec<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    rate_into: fn(&[f64], &mut [f64]),
    tol: f64,
) -> (Vec<f64>, timestep::Statistics) {
    by_pair_vec(timestep::Dopri5, p, rate_into, tol)
}

/// timestep's `pair` on `p` as a `Vec<f64>`.
#[inline(always)]
fn by_pair_vec<const N: usize, F: Rhs<N>, P: IntoAdaptive<Method: AdaptiveMethod<Vec<f64>>>>(
    pair: P,
    p: &Ivp<N, F>,
    rate_into: fn(&[f64], &mut [f64]),
    tol: f64,
) -> (Vec<f64>, timestep::Statistics) {
    let mut y = p.start.to_vec();
    let forces = InPlace(move |y: &Vec<f64>, _t: f64, out: &mut Vec<f64>| rate_into(y, out));
    let statistics = Adaptive::new(pair)
        .with_tolerances(Tolerances::new(tol, tol))
        .solve(&mut y, &forces, 0.0, p.end)
        .expect("an adaptive run within its step budget");
    (y, statistics)
}

/// ode_solvers' Dop853, as benches/peers.rs runs it.
#[inline(never)]
fn by_ode_solvers<const N: usize, F: Rhs<N>>(
    p: &Ivp<N, F>,
    tol: f64,
) -> ([f64; N], ode_solvers::dop_shared::Stats) {
    shared::ode_solvers_dop853(p.f, p.start, p.end, tol)
}

/// A hand-written variant, by name.
type Variant<const N: usize, F> = (&'static str, fn(&Ivp<N, F>, f64) -> Run<N>);

fn variants<const N: usize, F: Rhs<N>>() -> [Variant<N, F>; 6] {
    [
        ("tight/ts-order", tight::<N, F, false, false, false>),
        ("tight/ts-order+powf", tight::<N, F, false, true, false>),
        (
            "tight/ts-order+short-ctl",
            tight::<N, F, false, false, true>,
        ),
        ("tight/prescaled", tight::<N, F, true, false, false>),
        ("tight/prescaled+powf", tight::<N, F, true, true, false>),
        (
            "tight/prescaled+short-ctl",
            tight::<N, F, true, false, true>,
        ),
    ]
}

/// Checks that every variant takes timestep's steps and ends where it does.
fn check<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, tol: f64) {
    let name = p.name;
    let (ts_y, ts) = by_timestep(p, tol);
    let (os_y, os) = by_ode_solvers(p, tol);
    println!(
        "{name} tol {tol:.3e}: timestep {} accepted / {} rejected / {} evaluations",
        ts.accepted, ts.rejected, ts.evaluations
    );
    println!(
        "{name} tol {tol:.3e}: ode_solvers {} accepted / {} rejected / {} evaluations, |Δy| = {:.1e}",
        os.accepted_steps,
        os.rejected_steps,
        os.num_eval,
        problems::distance(&os_y, &ts_y)
    );
    for (variant, run) in variants::<N, F>() {
        let run = run(p, tol);
        let d = problems::distance(&run.y, &ts_y);
        println!(
            "{name} tol {tol:.3e}: {variant}: {} / {} / {} evaluations, |Δy| from timestep = {d:.1e}",
            run.accepted, run.rejected, run.evaluations
        );
        assert_eq!(
            (run.accepted, run.rejected),
            (ts.accepted, ts.rejected),
            "{name} {variant}"
        );
        assert_eq!(run.evaluations, ts.evaluations, "{name} {variant}");
        assert!(d <= p.agree, "{name} {variant} ends {d:e} from timestep");
    }
}

/// `runs` runs of one function on `p` at its tolerance `label`, for callgrind.
fn profile<const N: usize, F: Rhs<N>>(p: &Ivp<N, F>, function: &str, label: &str, runs: usize) {
    let (_, tol) = *p
        .tolerances
        .iter()
        .find(|(l, _)| *l == label)
        .unwrap_or_else(|| panic!("no tolerance {label}"));
    for _ in 0..runs {
        match function {
            "timestep" => {
                black_box(by_timestep(p, black_box(tol)));
            }
            "ode_solvers" => {
                black_box(by_ode_solvers(p, black_box(tol)));
            }
            _ => {
                let (_, variant) = variants::<N, F>()
                    .into_iter()
                    .find(|(n, _)| *n == function)
                    .unwrap_or_else(|| panic!("no variant {function}"));
                black_box(variant(p, black_box(tol)));
            }
        }
    }
}

/// The groups `adaptive_sol/<problem>-<error>` of one problem.
fn groups<const N: usize, F: Rhs<N>>(c: &mut Criterion, p: &Ivp<N, F>) {
    for (_, tol) in p.tolerances {
        check(p, tol);
    }
    for (label, tol) in p.tolerances {
        let mut group = c.benchmark_group(format!("adaptive_sol/{}-{label}", p.name));
        group.bench_function("timestep", |b| b.iter(|| by_timestep(p, black_box(tol))));
        group.bench_function("ode_solvers", |b| {
            b.iter(|| by_ode_solvers(p, black_box(tol)))
        });
        for (name, variant) in variants::<N, F>() {
            group.bench_function(name, |b| b.iter(|| variant(p, black_box(tol))));
        }
        group.finish();
    }
}

/// The FPU-β chain: `n` unit masses between fixed walls joined by springs whose force is
/// `−(d + d³)` at a stretch `d` (Fermi, Pasta, Ulam and Tsingou 1955); `y = (x₁…xₙ, v₁…vₙ)`,
/// `2n` unknowns. Its right-hand side costs a few operations per unknown, so the pair's own
/// arithmetic is what a step costs, at any size.
fn chain_rate(y: &[f64], out: &mut [f64]) {
    let n = y.len() / 2;
    let (x, v) = y.split_at(n);
    let (dx, dv) = out.split_at_mut(n);
    dx.copy_from_slice(v);
    let spring = |d: f64| d + d * d * d;
    let mut left = spring(x[0]);
    for i in 0..n {
        let right = spring(if i + 1 < n { x[i + 1] } else { 0.0 } - x[i]);
        dv[i] = right - left;
        left = right;
    }
}

/// [`chain_rate`] on an array, as the hand-written DOP853 and timestep's by-value path take it.
fn chain<const N: usize>(y: &[f64; N], _t: f64) -> [f64; N] {
    let mut out = [0.0; N];
    chain_rate(y, &mut out);
    out
}

/// A right-hand side on `[f64; N]` as a function pointer.
type ArrayRhs<const N: usize> = fn(&[f64; N], f64) -> [f64; N];

/// The chain of `N / 2` masses at rest from displacements `0.3 sin(2.1 i)`, which excite
/// every normal mode (frequencies up to 2), for 50 time units: a few hundred steps, so the
/// run's setup is a small part of its cost.
fn chain_problem<const N: usize>() -> Ivp<N, ArrayRhs<N>> {
    let n = N / 2;
    let mut start = [0.0; N];
    for (i, x) in start[..n].iter_mut().enumerate() {
        *x = 0.3 * (2.1 * (i + 1) as f64).sin();
    }
    Ivp {
        name: "chain",
        start,
        end: 50.0,
        f: chain::<N>,
        // One tolerance: the size groups run at the first.
        tolerances: [("1e-6", 1e-6), ("1e-6", 1e-6)],
        agree: 1e-9,
    }
}

/// timestep's pair on the problem as a `Vec<f64>`, its rates written by the function given.
type VecSide<const N: usize> =
    fn(&Ivp<N, ArrayRhs<N>>, fn(&[f64], &mut [f64]), f64) -> (Vec<f64>, timestep::Statistics);

/// One size group's sides: timestep's pair on `[f64; N]` and on a `Vec<f64>`, and the
/// hand-written pair taking its steps (each out of line, for callgrind's `--toggle-collect`).
struct SizeSides<const N: usize> {
    /// `dop853` or `dopri5`: the group is `adaptive_sol/<pair>-<N>`.
    pair: &'static str,
    array: fn(&Ivp<N, ArrayRhs<N>>, f64) -> ([f64; N], timestep::Statistics),
    vec: VecSide<N>,
    /// The hand-written side's name in the group, and the side.
    hand: Variant<N, ArrayRhs<N>>,
}

/// DOP853 against `tight/ts-order`.
fn dop853_sides<const N: usize>() -> SizeSides<N> {
    SizeSides {
        pair: "dop853",
        array: by_timestep,
        vec: by_timestep_vec,
        hand: ("tight/ts-order", tight::<N, _, false, false, false>),
    }
}

/// Dopri5 against `tight5`.
fn dopri5_sides<const N: usize>() -> SizeSides<N> {
    SizeSides {
        pair: "dopri5",
        array: by_timestep5,
        vec: by_timestep5_vec,
        hand: ("tight", tight5),
    }
}

/// The groups `adaptive_sol/dop853-<N>` and `adaptive_sol/dopri5-<N>`: timestep's pair on
/// the chain as `[f64; N]` and as a `Vec<f64>`, against the hand-written pair, which the
/// group first checks takes the same steps and ends within the problem's agreement.
fn size_group<const N: usize>(c: &mut Criterion, sides: SizeSides<N>) {
    let SizeSides {
        pair,
        array,
        vec,
        hand: (hand_name, hand),
    } = sides;
    let p = chain_problem::<N>();
    let tol = p.tolerances[0].1;
    let (y, ts) = array(&p, tol);
    let (y_vec, ts_vec) = vec(&p, chain_rate, tol);
    let written = hand(&p, tol);
    println!(
        "{pair}-{N}: {} accepted / {} rejected / {} evaluations",
        ts.accepted, ts.rejected, ts.evaluations
    );
    assert_eq!(
        (written.accepted, written.rejected),
        (ts.accepted, ts.rejected)
    );
    assert_eq!(written.evaluations, ts.evaluations);
    assert_eq!(
        (ts_vec.accepted, ts_vec.rejected),
        (ts.accepted, ts.rejected)
    );
    assert!(problems::distance(&written.y, &y) <= p.agree);
    assert!(problems::distance(&y_vec, &y) <= p.agree);
    let mut group = c.benchmark_group(format!("adaptive_sol/{pair}-{N}"));
    group.bench_function("timestep", |b| b.iter(|| array(&p, black_box(tol))));
    group.bench_function("timestep-vec", |b| {
        b.iter(|| vec(&p, chain_rate, black_box(tol)))
    });
    group.bench_function(hand_name, |b| b.iter(|| hand(&p, black_box(tol))));
    group.finish();
}

/// `runs` runs of one side of a size group, for callgrind (`runs = 0`: check that the
/// sides take the same steps, and print the counts).
fn profile_size<const N: usize>(sides: SizeSides<N>, function: &str, runs: usize) {
    let SizeSides {
        pair,
        array,
        vec,
        hand: (_, hand),
    } = sides;
    let p = chain_problem::<N>();
    let tol = p.tolerances[0].1;
    if runs == 0 {
        let (y, ts) = array(&p, tol);
        let (y_vec, ts_vec) = vec(&p, chain_rate, tol);
        let written = hand(&p, tol);
        println!("{pair}-{N}: {ts:?}");
        println!(
            "{pair}-{N}: hand {} / {} / {}, |Δy| {:.1e}; vec {} / {}, |Δy| {:.1e}",
            written.accepted,
            written.rejected,
            written.evaluations,
            problems::distance(&written.y, &y),
            ts_vec.accepted,
            ts_vec.rejected,
            problems::distance(&y_vec, &y)
        );
    }
    for _ in 0..runs {
        match function {
            "timestep" => {
                black_box(array(&p, black_box(tol)));
            }
            "timestep-vec" => {
                black_box(vec(&p, chain_rate, black_box(tol)));
            }
            _ => {
                black_box(hand(&p, black_box(tol)));
            }
        }
    }
}

fn bench(c: &mut Criterion) {
    // timestep's tolerances in `benches/peers.rs` (at Arenstorf's 1e-10, its loosest rung).
    let arenstorf = Ivp {
        name: "arenstorf",
        start: problems::ARENSTORF_START,
        end: problems::ARENSTORF_END,
        f: problems::arenstorf,
        tolerances: [("1e-6", rung(80)), ("1e-10", rung(110))],
        agree: 1e-8,
    };
    let lorenz = Ivp {
        name: "lorenz",
        start: problems::LORENZ_START,
        end: problems::LORENZ_END,
        f: problems::lorenz,
        tolerances: [("1e-6", rung(64)), ("1e-10", rung(94))],
        agree: 1e-10,
    };
    if let Ok(which) = std::env::var("ADAPTIVE_SOL_PROFILE") {
        let runs: usize = std::env::var("ADAPTIVE_SOL_RUNS").map_or(1000, |r| r.parse().unwrap());
        let label = std::env::var("ADAPTIVE_SOL_TOL").unwrap_or_else(|_| "1e-6".into());
        let (problem, function) = which
            .split_once('/')
            .expect("ADAPTIVE_SOL_PROFILE=<problem>/<function>");
        match problem {
            "arenstorf" => profile(&arenstorf, function, &label, runs),
            "dop853-2" => profile_size::<2>(dop853_sides(), function, runs),
            "dop853-6" => profile_size::<6>(dop853_sides(), function, runs),
            "dop853-28" => profile_size::<28>(dop853_sides(), function, runs),
            "dop853-100" => profile_size::<100>(dop853_sides(), function, runs),
            "dop853-1000" => profile_size::<1000>(dop853_sides(), function, runs),
            "dopri5-2" => profile_size::<2>(dopri5_sides(), function, runs),
            "dopri5-6" => profile_size::<6>(dopri5_sides(), function, runs),
            "dopri5-28" => profile_size::<28>(dopri5_sides(), function, runs),
            "dopri5-100" => profile_size::<100>(dopri5_sides(), function, runs),
            "dopri5-1000" => profile_size::<1000>(dopri5_sides(), function, runs),
            _ => profile(&lorenz, function, &label, runs),
        }
        std::process::exit(0);
    }
    groups(c, &arenstorf);
    groups(c, &lorenz);
    size_group::<2>(c, dop853_sides());
    size_group::<6>(c, dop853_sides());
    size_group::<28>(c, dop853_sides());
    size_group::<100>(c, dop853_sides());
    size_group::<1000>(c, dop853_sides());
    size_group::<2>(c, dopri5_sides());
    size_group::<6>(c, dopri5_sides());
    size_group::<28>(c, dopri5_sides());
    size_group::<100>(c, dopri5_sides());
    size_group::<1000>(c, dopri5_sides());
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
