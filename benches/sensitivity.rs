//! What forward sensitivities cost: the damped spring `x'' = −k x − b x'` (unit mass,
//! k = 4, b = 0.5, from x = 1, v = 0.3) solved by Dormand–Prince 5(4) to t = 20 at
//! tolerances 10⁻⁸, plain and with p = 1, 2, 4 sensitivities (k; k and b; k, b, x₀, v₀)
//! by the exact tangent, and p = 2 by finite differences. The error control measures the
//! state alone ([`ErrorControl::StateOnly`]), so every case takes the plain solve's
//! steps; the target is at most `1.3 (1 + p)` times the plain solve.
//!
//! And what the adjoint gradient costs with p = 100 parameters: `y' = W y` with 10
//! unknowns and the entries of `W` as the parameters (examples/problems/linear.rs), from
//! t = 0 to 5, Dormand–Prince 5(4) at 10⁻⁸, `L = |y(5)|²/2`: `linear` the plain solve,
//! `adjoint` the gradient with respect to all 100 parameters and the 10 initial values
//! (checkpoints every 32 steps), `adjoint-all` keeping every state. The target is at most
//! 6 times the plain solve.
//!
//! And what the adjoint costs under Radau5: Robertson's kinetics with `θ = ln k`
//! (examples/problems/robertson.rs) from (1, 0, 0) to t = 400 at tolerances 10⁻⁶
//! (absolute 10⁻¹⁰), `L = c(400)`: `robertson` the plain solve, `robertson-adjoint` the
//! gradient with respect to the three `ln k` and the initial values (checkpoints every 32
//! steps).
//!
//! And under Rodas4, the same problem and gradient: `rodas4` the plain solve with the
//! model's Jacobian (a row per cotangent, as the adjoint's forward solve takes it, so the
//! same steps), `rodas4-differences` with the rate alone (Rodas4's own differences),
//! `rodas4-adjoint` the gradient.
//!
//! And what the adjoint of a fixed-step run costs: the same `y' = W y` and `L = |y(5)|²/2`
//! in 100 steps of 0.05, `fixed-trapezoid` the plain run of the trapezoidal rule (a
//! [`Stepper`], its default Newton), `fixed-trapezoid-adjoint` its gradient
//! (`Adjoint::gradient_fixed`, checkpoints every 32 steps), and `fixed-rk4`,
//! `fixed-rk4-adjoint` the same for RK4.
//!
//! And under SEULEX, the same problem and gradient: `seulex` the plain solve with the
//! model's Jacobian (the adjoint's forward solve, the same steps), `seulex-differences`
//! with the rate alone, `seulex-adjoint` the gradient.
//!
//! And under the BDF, the same problem and gradient: `bdf` the plain solve (the BDF's own
//! difference Jacobian, as in the adjoint's forward solve, so the same steps),
//! `bdf-adjoint` the gradient.
//!
//! With `SENSITIVITY_PROFILE` set to one of the cases' names the binary runs
//! that case alone, `SENSITIVITY_PROFILE_RUNS` times (100 unless given), without
//! criterion, for `valgrind --tool=callgrind`, and prints its step counts.
//!
//! ```text
//! cargo bench --bench sensitivity
//! ```

use criterion::{Criterion, criterion_group};
use std::hint::black_box;
use std::num::NonZeroUsize;
use timestep::control::{AdaptiveMethod, IntoAdaptive};
use timestep::sensitivity::FixedAdjointMethod;
use timestep::sensitivity::{Adjoint, AdjointMethod, ErrorControl, Forward, Model, WithRespectTo};
use timestep::{
    Adaptive, Bdf, Dopri5, Integrator, Jacobian, Radau5, Rk4, Rodas4, Scheme, Seulex, Statistics,
    Stepper, Tolerances, Trapezoid, WithJacobian,
};

const K: f64 = 4.0;
const B: f64 = 0.5;
const START: [f64; 2] = [1.0, 0.3];
const END: f64 = 20.0;
const TOLERANCES: Tolerances = Tolerances::new(1e-8, 1e-8);

#[path = "../examples/problems/spring.rs"]
mod spring;
use spring::Spring;

#[path = "../examples/problems/linear.rs"]
mod linear;
use linear::Linear;

const LINEAR_END: f64 = 5.0;

#[path = "../examples/problems/robertson.rs"]
mod robertson;
use robertson::{ROBERTSON_K, Robertson};

const ROBERTSON_END: f64 = 400.0;
const ROBERTSON_TOLERANCES: Tolerances = Tolerances::new(1e-6, 1e-10);

/// Robertson's plain solve under `method` (Radau5, the BDF), its rate as a closure.
#[inline(never)]
fn robertson_plain<I: IntoAdaptive>(method: I) -> Statistics
where
    I::Method: AdjointMethod<[f64; 3]>,
{
    let theta = ROBERTSON_K.map(f64::ln);
    let forces = |y: &[f64; 3], t: f64| {
        let mut out = [0.0; 3];
        Robertson.rate(y, &theta, t, &mut out);
        out
    };
    let mut y = [1.0, 0.0, 0.0];
    Adaptive::new(method)
        .with_tolerances(ROBERTSON_TOLERANCES)
        .solve(&mut y, &forces, 0.0, ROBERTSON_END)
        .expect("Robertson solves")
}

/// The gradient of `c(400)` with respect to `ln k` and the initial values, under `method`
/// (Radau5, the BDF).
#[inline(never)]
fn robertson_adjoint<I: IntoAdaptive>(method: I) -> Statistics
where
    I::Method: AdjointMethod<[f64; 3]>,
{
    let mut solver = Adaptive::new(method).with_tolerances(ROBERTSON_TOLERANCES);
    let gradient = Adjoint::new(Robertson, ROBERTSON_K.map(f64::ln))
        .expect("finite parameters")
        .gradient(
            &mut solver,
            &[1.0, 0.0, 0.0],
            0.0,
            &[ROBERTSON_END],
            |_, _, _, out| *out = [0.0, 0.0, 1.0],
        )
        .expect("Robertson solves");
    black_box(&gradient.parameters);
    gradient.statistics
}

/// Robertson's plain solve under Rodas4, with the model's Jacobian (the rows of its
/// cotangent) or Rodas4's differences.
#[inline(never)]
fn robertson_rodas4_plain(model_jacobian: bool) -> Statistics {
    robertson_linearly_implicit_plain(Rodas4, model_jacobian)
}

/// Robertson's plain solve under a linearly implicit `method` (Rodas4, SEULEX), with the
/// model's Jacobian (the rows of its cotangent) or the method's differences.
fn robertson_linearly_implicit_plain<I>(method: I, model_jacobian: bool) -> Statistics
where
    I: IntoAdaptive,
    I::Method: AdaptiveMethod<[f64; 3]>,
{
    let theta = ROBERTSON_K.map(f64::ln);
    let rate = |y: &[f64; 3], t: f64| {
        let mut out = [0.0; 3];
        Robertson.rate(y, &theta, t, &mut out);
        out
    };
    let jacobian = |y: &[f64; 3], t: f64, j: &mut Jacobian<f64>| {
        let mut discarded = [0.0; 3];
        for r in 0..3 {
            let (mut unit, mut row) = ([0.0; 3], [0.0; 3]);
            unit[r] = 1.0;
            Robertson.cotangent(y, &theta, t, &unit, &mut row, &mut discarded);
            for (c, x) in row.into_iter().enumerate() {
                j[(r, c)] = x;
            }
        }
    };
    let mut y = [1.0, 0.0, 0.0];
    let mut solver = Adaptive::new(method).with_tolerances(ROBERTSON_TOLERANCES);
    if model_jacobian {
        solver.solve(
            &mut y,
            &WithJacobian::new(rate, jacobian),
            0.0,
            ROBERTSON_END,
        )
    } else {
        solver.solve(&mut y, &rate, 0.0, ROBERTSON_END)
    }
    .expect("Robertson solves")
}

/// The gradient of `c(400)` with respect to `ln k` and the initial values, under Rodas4.
#[inline(never)]
fn robertson_rodas4_adjoint() -> Statistics {
    robertson_linearly_implicit_adjoint(Rodas4)
}

/// Robertson's plain solve under SEULEX, with the model's Jacobian or SEULEX's
/// differences.
#[inline(never)]
fn robertson_seulex_plain(model_jacobian: bool) -> Statistics {
    robertson_linearly_implicit_plain(Seulex::new(), model_jacobian)
}

/// The gradient of `c(400)` with respect to `ln k` and the initial values, under SEULEX.
#[inline(never)]
fn robertson_seulex_adjoint() -> Statistics {
    robertson_linearly_implicit_adjoint(Seulex::new())
}

/// The gradient of `c(400)` with respect to `ln k` and the initial values, under `method`.
fn robertson_linearly_implicit_adjoint<I>(method: I) -> Statistics
where
    I: IntoAdaptive,
    I::Method: AdjointMethod<[f64; 3]>,
{
    let mut solver = Adaptive::new(method).with_tolerances(ROBERTSON_TOLERANCES);
    let gradient = Adjoint::new(Robertson, ROBERTSON_K.map(f64::ln))
        .expect("finite parameters")
        .gradient(
            &mut solver,
            &[1.0, 0.0, 0.0],
            0.0,
            &[ROBERTSON_END],
            |_, _, _, out| *out = [0.0, 0.0, 1.0],
        )
        .expect("Robertson solves");
    black_box(&gradient.parameters);
    gradient.statistics
}

/// The linear system's plain solve, its rate as a closure.
#[inline(never)]
fn linear_plain(w: &[f64]) -> Statistics {
    let forces = |y: &[f64; 10], t: f64| {
        let mut out = [0.0; 10];
        Linear.rate(y, w, t, &mut out);
        out
    };
    let mut y = linear::START;
    Adaptive::new(Dopri5)
        .with_tolerances(TOLERANCES)
        .solve(&mut y, &forces, 0.0, LINEAR_END)
        .expect("the linear system solves")
}

/// The gradient of `|y(5)|²/2` with respect to the 100 entries of `W` and `y(0)`.
#[inline(never)]
fn linear_adjoint(w: &[f64], interval: usize) -> Statistics {
    let interval = NonZeroUsize::new(interval).expect("an interval of steps");
    let mut solver = Adaptive::new(Dopri5).with_tolerances(TOLERANCES);
    let gradient = Adjoint::new(Linear, w)
        .expect("finite parameters")
        .with_checkpoint_interval(interval)
        .gradient(
            &mut solver,
            &linear::START,
            0.0,
            &[LINEAR_END],
            |_, _, y, out| {
                *out = *y;
            },
        )
        .expect("the linear system solves");
    black_box(&gradient.parameters);
    gradient.statistics
}

/// The fixed step of the `fixed-*` cases.
const FIXED_DT: f64 = 0.05;

/// The linear system's plain run of fixed steps by `method`, its rate as a closure.
#[inline(never)]
fn linear_fixed<I: Scheme>(method: I, w: &[f64]) -> Statistics {
    let forces = |y: &[f64; 10], t: f64| {
        let mut out = [0.0; 10];
        Linear.rate(y, w, t, &mut out);
        out
    };
    let mut y = linear::START;
    let mut stepper = Stepper::for_state(method, &y);
    let steps = (LINEAR_END / FIXED_DT).round() as u64;
    for i in 0..steps {
        let t = i as f64 * FIXED_DT;
        stepper
            .step(&mut y, &forces, t, FIXED_DT)
            .expect("the linear system steps");
    }
    black_box(&y);
    Statistics {
        accepted: steps,
        ..Statistics::default()
    }
}

/// The gradient of `|y(5)|²/2` by the adjoint of `method`'s fixed steps.
#[inline(never)]
fn linear_fixed_adjoint<I: FixedAdjointMethod<[f64; 10]>>(method: &I, w: &[f64]) -> Statistics {
    let gradient = Adjoint::new(Linear, w)
        .expect("finite parameters")
        .gradient_fixed(
            method,
            &linear::START,
            0.0,
            FIXED_DT,
            &[LINEAR_END],
            |_, _, y, out| {
                *out = *y;
            },
        )
        .expect("the linear system steps");
    black_box(&gradient.parameters);
    gradient.statistics
}

/// The spring without a tangent: finite differences.
struct SpringByDifferences;

impl Model<[f64; 2]> for SpringByDifferences {
    #[inline]
    fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
        Spring.rate(y, p, t, out);
    }
}

/// The plain solve: the same rate as a closure.
#[inline(never)]
fn plain() -> ([f64; 2], Statistics) {
    let parameters = [K, B];
    let spring = |y: &[f64; 2], t: f64| {
        let mut out = [0.0; 2];
        Spring.rate(y, &parameters, t, &mut out);
        out
    };
    let mut y = START;
    let statistics = Adaptive::new(Dopri5)
        .with_tolerances(TOLERANCES)
        .solve(&mut y, &spring, 0.0, END)
        .expect("the spring solves");
    (y, statistics)
}

/// The solve with the sensitivities `wrt`, `N = 1 + wrt.len()` blocks.
#[inline(never)]
fn sensitivities<M: Model<[f64; 2]>, const N: usize>(
    model: M,
    wrt: &[WithRespectTo],
) -> ([[f64; 2]; N], Statistics) {
    let forward = Forward::new(model, [K, B], wrt).expect("valid parameters");
    let mut y: [[f64; 2]; N] = forward.initial(START).expect("N blocks");
    let tolerances = ErrorControl::StateOnly.tolerances(&y, TOLERANCES);
    let statistics = Adaptive::new(Dopri5)
        .with_component_tolerances(tolerances)
        .solve(&mut y, &forward, 0.0, END)
        .expect("the spring solves");
    (y, statistics)
}

const ALL: [WithRespectTo; 4] = [
    WithRespectTo::Parameter(0),
    WithRespectTo::Parameter(1),
    WithRespectTo::InitialValue(0),
    WithRespectTo::InitialValue(1),
];

/// One case by name; its steps, accepted and rejected.
fn case(name: &str) -> (u64, u64) {
    let statistics = match name {
        "plain" => black_box(plain()).1,
        "p1" => black_box(sensitivities::<_, 2>(Spring, &ALL[..1])).1,
        "p2" => black_box(sensitivities::<_, 3>(Spring, &ALL[..2])).1,
        "p4" => black_box(sensitivities::<_, 5>(Spring, &ALL)).1,
        "p2-fd" => black_box(sensitivities::<_, 3>(SpringByDifferences, &ALL[..2])).1,
        "linear" => linear_plain(&linear::parameters()),
        "adjoint" => linear_adjoint(&linear::parameters(), 32),
        "adjoint-all" => linear_adjoint(&linear::parameters(), 1),
        "robertson" => robertson_plain(Radau5::new()),
        "robertson-adjoint" => robertson_adjoint(Radau5::new()),
        "rodas4" => robertson_rodas4_plain(true),
        "rodas4-differences" => robertson_rodas4_plain(false),
        "rodas4-adjoint" => robertson_rodas4_adjoint(),
        "seulex" => robertson_seulex_plain(true),
        "seulex-differences" => robertson_seulex_plain(false),
        "seulex-adjoint" => robertson_seulex_adjoint(),
        "fixed-trapezoid" => linear_fixed(Trapezoid::new(), &linear::parameters()),
        "fixed-trapezoid-adjoint" => linear_fixed_adjoint(&Trapezoid::new(), &linear::parameters()),
        "fixed-rk4" => linear_fixed(Rk4, &linear::parameters()),
        "fixed-rk4-adjoint" => linear_fixed_adjoint(&Rk4, &linear::parameters()),
        "bdf" => robertson_plain(Bdf::new()),
        "bdf-adjoint" => robertson_adjoint(Bdf::new()),
        _ => panic!(
            "SENSITIVITY_PROFILE is one of {CASES:?}, {ADJOINT_CASES:?}, {STIFF_CASES:?}, {ROSENBROCK_CASES:?}, {SEULEX_CASES:?}, {FIXED_CASES:?} or {BDF_CASES:?}, not {name:?}"
        ),
    };
    (statistics.accepted, statistics.rejected)
}

const CASES: [&str; 5] = ["plain", "p1", "p2", "p4", "p2-fd"];
const ADJOINT_CASES: [&str; 3] = ["linear", "adjoint", "adjoint-all"];
const STIFF_CASES: [&str; 2] = ["robertson", "robertson-adjoint"];
const ROSENBROCK_CASES: [&str; 3] = ["rodas4", "rodas4-differences", "rodas4-adjoint"];
const SEULEX_CASES: [&str; 3] = ["seulex", "seulex-differences", "seulex-adjoint"];
const FIXED_CASES: [&str; 4] = [
    "fixed-trapezoid",
    "fixed-trapezoid-adjoint",
    "fixed-rk4",
    "fixed-rk4-adjoint",
];
const BDF_CASES: [&str; 2] = ["bdf", "bdf-adjoint"];

fn benches(c: &mut Criterion) {
    let mut group = c.benchmark_group("sensitivity");
    let all = CASES.iter().chain(&ADJOINT_CASES);
    let stiff = STIFF_CASES
        .iter()
        .chain(&ROSENBROCK_CASES)
        .chain(&SEULEX_CASES)
        .chain(&BDF_CASES);
    for name in all.chain(stiff).chain(&FIXED_CASES) {
        group.bench_function(*name, |b| b.iter(|| case(name)));
    }
    group.finish();
}

criterion_group!(sensitivity, benches);

fn main() {
    if let Ok(name) = std::env::var("SENSITIVITY_PROFILE") {
        let runs = std::env::var("SENSITIVITY_PROFILE_RUNS").map_or(100, |runs| {
            runs.parse()
                .expect("SENSITIVITY_PROFILE_RUNS is a number of runs")
        });
        let mut steps = (0, 0);
        for _ in 0..runs {
            steps = case(&name);
        }
        println!("{name}: {} accepted, {} rejected steps", steps.0, steps.1);
        return;
    }
    // Every case takes the plain solve's steps, or the comparison is not like for like.
    for name in CASES {
        assert_eq!(case(name), case("plain"), "{name}");
    }
    for name in ADJOINT_CASES {
        assert_eq!(case(name), case("linear"), "{name}");
    }
    for name in STIFF_CASES {
        assert_eq!(case(name), case("robertson"), "{name}");
    }
    assert_eq!(case("rodas4-adjoint"), case("rodas4"), "rodas4-adjoint");
    assert_eq!(case("seulex-adjoint"), case("seulex"), "seulex-adjoint");
    for name in FIXED_CASES {
        assert_eq!(case(name), (100, 0), "{name}");
    }
    assert_eq!(case("bdf-adjoint"), case("bdf"), "bdf-adjoint");
    sensitivity();
    Criterion::default().configure_from_args().final_summary();
}
