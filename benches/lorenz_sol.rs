//! Speed of light for `peers/adaptive-lorenz-*`: a hand-written, maximally tight DOP853 on
//! the Lorenz system in `[f64; 3]` (everything in registers, every coefficient a constant,
//! dop853.f's controller and timestep's initial step, so that it takes timestep's steps),
//! against timestep's `Adaptive<_, Dop853>` and `ode_solvers`' `Dop853` run exactly as
//! `benches/peers.rs` runs them.
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
//! ```text
//! cargo bench --bench lorenz_sol
//! LORENZ_SOL_PROFILE=<function> LORENZ_SOL_RUNS=1000 target/release/deps/lorenz_sol-*   # for callgrind
//! ```

#[path = "../examples/problems/mod.rs"]
mod problems;

#[path = "shared/mod.rs"]
#[allow(dead_code)]
mod shared;

use criterion::{Criterion, criterion_group, criterion_main};
use ode_solvers::dop_shared::OutputType;
use ode_solvers::{SVector, System};
use shared::rung;
use std::hint::black_box;
use std::time::Duration;
use timestep::adaptive::{Adaptive, Tolerances};

type V = [f64; 3];

const PAIR: timestep::EmbeddedPair<16> = timestep::Dop853::PAIR;
const A: [[f64; 16]; 16] = PAIR.tableau.a;
const B: [f64; 16] = PAIR.tableau.b;
const E5: [f64; 16] = PAIR.error;
const E3: [f64; 16] = match PAIR.error_guard {
    Some(guard) => guard,
    None => [0.0; 16],
};

#[inline(always)]
fn f(y: &V) -> V {
    problems::lorenz(y, 0.0)
}

/// What a run ends with.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Run {
    y: V,
    accepted: u64,
    rejected: u64,
    evaluations: u64,
}

/// timestep's initial step (src/adaptive/solver.rs `initial_step`, q = 8), with its
/// arithmetic; one evaluation.
#[inline(always)]
fn initial_step(y: &V, k0: &V, tol: f64, max_step: f64, direction: f64) -> f64 {
    let n = 3.0;
    let scale: V = core::array::from_fn(|i| tol + tol * y[i].abs());
    let weight: V = core::array::from_fn(|i| 1.0 / (tol + tol * y[i].abs().max(y[i].abs())));
    let mut dnf = 0.0;
    for i in 0..3 {
        let s = k0[i] * 1.0 * weight[i];
        dnf += s * s;
    }
    let dnf = f64::sqrt(dnf / n);
    let mut dny = 0.0;
    for i in 0..3 {
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
    let probe: V = core::array::from_fn(|i| y[i] + k0[i] * h0);
    let k1 = f(&probe);
    let mut second = 0.0;
    for i in 0..3 {
        let d = (k1[i] - k0[i]) / scale[i];
        second += d * d;
    }
    let second = f64::sqrt(second / n) / h0.abs();
    let largest = second.max(dnf);
    let h1 = if largest <= 1e-15 {
        (h0.abs() * 1e-3).max(1e-6)
    } else {
        (0.01 / largest).powf(1.0 / 8.0)
    };
    (100.0 * h0.abs()).min(h1).min(max_step) * direction
}

/// `a·k` for a vector.
#[inline(always)]
fn mul(k: &V, a: f64) -> V {
    [k[0] * a, k[1] * a, k[2] * a]
}

/// `s + k·a`.
#[inline(always)]
fn axpy(s: &V, k: &V, a: f64) -> V {
    [s[0] + k[0] * a, s[1] + k[1] * a, s[2] + k[2] * a]
}

/// The hand-written DOP853 on Lorenz from 0 to 10 at `rtol = atol = tol`.
///
/// `PRESCALED`: the stage probes as `(y + h Σⱼ₍ⱼ<ᵢ₋₁₎ aᵢⱼ kⱼ) + (h aᵢ,ᵢ₋₁) kᵢ₋₁` instead of
/// `y + h (Σⱼ aᵢⱼ kⱼ)`. `POWF`: `err^(1/8)` by `powf`. `SHORT`: the shorter error and
/// controller chain.
#[inline(never)]
fn tight<const PRESCALED: bool, const POWF: bool, const SHORT: bool>(tol: f64) -> Run {
    let end = problems::LORENZ_END;
    let (t0, direction) = (0.0_f64, 1.0_f64);
    let max_step = (end - t0).abs();
    let mut y: V = problems::LORENZ_START;
    let mut k0 = f(&y);
    let mut h = initial_step(&y, &k0, tol, max_step, direction);
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
        let mut k = [[0.0; 3]; 12];
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
        let weight: V =
            core::array::from_fn(|i| 1.0 / (tol + tol * y[i].abs().max(y_new[i].abs())));
        let (mut s5, mut s3) = (0.0, 0.0);
        for i in 0..3 {
            let a = e5[i] * habs * weight[i];
            let b = e3[i] * habs * weight[i];
            s5 += a * a;
            s3 += b * b;
        }

        // The error against 1, and the controller's `err^(1/8)`, as `(accept, plain)`.
        let (accept, plain) = if SHORT {
            // err² = est⁴ / (est² + 0.01 lower²), est² = s5/n: one division, no √.
            let (est2, lower2) = (s5 / 3.0, s3 / 3.0);
            let deno = est2 + 0.01 * lower2;
            let err2 = if deno > 0.0 { est2 * est2 / deno } else { 0.0 };
            let plain = if POWF {
                err2.powf(1.0 / 16.0)
            } else {
                err2.sqrt().sqrt().sqrt().sqrt()
            };
            (err2 <= 1.0, plain)
        } else {
            let (estimate, lower) = (f64::sqrt(s5 / 3.0), f64::sqrt(s3 / 3.0));
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

/// timestep, as benches/peers.rs runs its side (`adaptive_timestep` with "dop853").
#[inline(never)]
fn by_timestep(tol: f64) -> (V, timestep::adaptive::Statistics) {
    let mut y = problems::LORENZ_START;
    let tolerances = Tolerances::new(tol, tol);
    let statistics = Adaptive::new(timestep::Dop853)
        .with_tolerances(tolerances)
        .solve(&mut y, &problems::lorenz, 0.0, problems::LORENZ_END)
        .expect("an adaptive run within its step budget");
    (y, statistics)
}

/// `ode_solvers`' system, as in benches/peers.rs.
struct OdeSolversIvp<F>(F);

impl<const N: usize, F: Fn(&[f64; N], f64) -> [f64; N]> System<f64, SVector<f64, N>>
    for OdeSolversIvp<F>
{
    fn system(&self, t: f64, y: &SVector<f64, N>, dy: &mut SVector<f64, N>) {
        *dy = SVector::from((self.0)(&(*y).into(), t));
    }
}

/// ode_solvers' Dop853, as benches/peers.rs runs it.
#[inline(never)]
fn by_ode_solvers(tol: f64) -> (V, ode_solvers::dop_shared::Stats) {
    let end = problems::LORENZ_END;
    let mut solver = ode_solvers::Dop853::from_param(
        OdeSolversIvp(problems::lorenz),
        0.0,
        end,
        end,
        SVector::from(problems::LORENZ_START),
        tol,
        tol,
        0.9,
        0.0,
        0.333,
        6.0,
        end,
        0.0,
        1_000_000,
        1000,
        OutputType::Sparse,
    );
    let stats = solver.integrate().expect("Dop853 within its step budget");
    (
        (*solver.y_out().last().expect("the end state")).into(),
        stats,
    )
}

type Variant = (&'static str, fn(f64) -> Run);

const VARIANTS: [Variant; 6] = [
    ("tight/ts-order", tight::<false, false, false>),
    ("tight/ts-order+powf", tight::<false, true, false>),
    ("tight/ts-order+short-ctl", tight::<false, false, true>),
    ("tight/prescaled", tight::<true, false, false>),
    ("tight/prescaled+powf", tight::<true, true, false>),
    ("tight/prescaled+short-ctl", tight::<true, false, true>),
];

/// Checks that every variant takes timestep's steps and ends where it does.
fn check(tol: f64) {
    let (ts_y, ts) = by_timestep(tol);
    let (os_y, os) = by_ode_solvers(tol);
    println!(
        "tol {tol:.3e}: timestep {} accepted / {} rejected / {} evaluations, y = {ts_y:?}",
        ts.accepted, ts.rejected, ts.evaluations
    );
    println!(
        "tol {tol:.3e}: ode_solvers {} accepted / {} rejected / {} evaluations, |Δy| = {:.1e}",
        os.accepted_steps,
        os.rejected_steps,
        os.num_eval,
        problems::distance(&os_y, &ts_y)
    );
    for (name, variant) in VARIANTS {
        let run = variant(tol);
        let d = problems::distance(&run.y, &ts_y);
        println!(
            "tol {tol:.3e}: {name}: {} / {} / {} evaluations, |Δy| from timestep = {d:.1e}",
            run.accepted, run.rejected, run.evaluations
        );
        assert_eq!(
            (run.accepted, run.rejected),
            (ts.accepted, ts.rejected),
            "{name}"
        );
        assert_eq!(run.evaluations, ts.evaluations, "{name}");
        assert!(d <= 1e-10, "{name} ends {d:e} from timestep");
    }
}

fn run_one(name: &str, tol: f64) {
    match name {
        "timestep" => {
            black_box(by_timestep(black_box(tol)));
        }
        "ode_solvers" => {
            black_box(by_ode_solvers(black_box(tol)));
        }
        _ => {
            let (_, variant) = VARIANTS
                .iter()
                .find(|(n, _)| *n == name)
                .unwrap_or_else(|| panic!("no variant {name}"));
            black_box(variant(black_box(tol)));
        }
    }
}

fn bench(c: &mut Criterion) {
    let tolerances = [("1e-6", rung(64)), ("1e-10", rung(94))];
    if let Ok(name) = std::env::var("LORENZ_SOL_PROFILE") {
        let runs: usize = std::env::var("LORENZ_SOL_RUNS").map_or(1000, |r| r.parse().unwrap());
        let tol = match std::env::var("LORENZ_SOL_TOL").as_deref() {
            Ok("1e-10") => rung(94),
            _ => rung(64),
        };
        for _ in 0..runs {
            run_one(&name, tol);
        }
        std::process::exit(0);
    }
    for (_, tol) in tolerances {
        check(tol);
    }
    for (label, tol) in tolerances {
        let mut group = c.benchmark_group(format!("lorenz_sol/{label}"));
        group.bench_function("timestep", |b| b.iter(|| by_timestep(black_box(tol))));
        group.bench_function("ode_solvers", |b| b.iter(|| by_ode_solvers(black_box(tol))));
        for (name, variant) in VARIANTS {
            group.bench_function(name, |b| b.iter(|| variant(black_box(tol))));
        }
        group.finish();
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(3));
    targets = bench
}
criterion_main!(benches);
