//! Rosenbrock methods (Rodas4, Rodas5P, ROS3P): their tableaus satisfy the order conditions, their
//! measured orders (fixed step, embedded, dense output) are the papers', and they solve the
//! stiff problems of Hairer–Wanner II, IV.1 and IV.10 (Robertson, Van der Pol at μ = 1000,
//! the stiff linear problem) in few steps, with the literature's numbers.
//!
//! A Rosenbrock step solves `(I/(hγ) − J) Uᵢ = rhsᵢ` once per stage with one Jacobian and
//! one factorisation; in the original form (Hairer–Wanner IV.7, (7.4)) its coefficients are
//! `α = A Γ`, `b = m Γ` with `Γ = (I/γ − C)⁻¹`, and the order conditions of Table IV.7.1
//! (with `βᵢⱼ = αᵢⱼ + γᵢⱼ`, `β′ᵢ = Σⱼ₍ⱼ<ᵢ₎ βᵢⱼ`, `αᵢ = Σⱼ αᵢⱼ`) are, up to order 4:
//!
//! ```text
//! Σ bᵢ = 1
//! Σ bᵢ β′ᵢ = 1/2 − γ
//! Σ bᵢ αᵢ² = 1/3                 Σ bᵢ βᵢⱼ β′ⱼ = 1/6 − γ + γ²
//! Σ bᵢ αᵢ³ = 1/4                 Σ bᵢ αᵢ αᵢⱼ β′ⱼ = 1/8 − γ/3
//! Σ bᵢ βᵢⱼ αⱼ² = 1/12 − γ/3     Σ bᵢ βᵢⱼ βⱼₖ β′ₖ = 1/24 − γ/2 + 3γ²/2 − γ³
//! ```
//!
//! and at order 5 the nine conditions of the trees with five vertices, in their general
//! form (Hairer–Wanner II, IV.7, Theorem 7.4 with `γ` moved into `β`): `Σ bᵢ Φᵢ(t) =
//! 1/t!`, where `Φ` takes `β + Γ`'s diagonal along an edge from a vertex with one child
//! and `α` along an edge from a vertex with several.
// The tableau algebra indexes its matrices as the formulas do.
#![allow(clippy::needless_range_loop)]

use crate::common;

use approx::assert_relative_eq;
use common::{C, log_log_slope, rosenbrock_stability};
use timestep::adaptive::{Adaptive, Direction, Event};
use timestep::{AdaptiveError, Tolerances};
use timestep::{
    Dopri5, InPlace, Integrator, Jacobian, Rodas4, Rodas5P, Ros3p, Rosenbrock, RosenbrockDense,
    RosenbrockTableau, StepError, Stepper, Structure, WithJacobian,
};

/// Runs `body` once for each method under test, with its name, the method, and the order
/// and embedded order its paper gives. (A macro: the methods' stage counts differ, so they
/// are different types.)
macro_rules! each_method {
    (|$name:ident, $method:ident, $order:ident, $embedded:ident| $body:block) => {{
        {
            let ($name, $method, $order, $embedded): (&str, Rosenbrock<6>, u32, u32) =
                ("rodas4", Rodas4.rosenbrock(), 4, 3);
            $body
        }
        {
            let ($name, $method, $order, $embedded): (&str, Rosenbrock<8>, u32, u32) =
                ("rodas5p", Rodas5P.rosenbrock(), 5, 4);
            $body
        }
        {
            let ($name, $method, $order, $embedded): (&str, Rosenbrock<3>, u32, u32) =
                ("ros3p", Ros3p.rosenbrock(), 3, 2);
            $body
        }
    }};
}

// ---------------------------------------------------------------------------------------
// The tableaus

/// The original form of a transformed tableau: `(Γ, α, b)` with `Γ` lower triangular.
pub(super) fn original<const S: usize>(
    tableau: &RosenbrockTableau<S>,
    weights: [f64; S],
) -> ([[f64; S]; S], [[f64; S]; S], [f64; S]) {
    // Γ⁻¹ = I/γ − C, lower triangular: invert by forward substitution.
    let mut inverse = [[0.0; S]; S];
    for i in 0..S {
        for j in 0..S {
            inverse[i][j] = if i == j {
                1.0 / tableau.gamma
            } else {
                -tableau.c[i][j]
            };
        }
    }
    let mut gamma = [[0.0; S]; S];
    for col in 0..S {
        for i in 0..S {
            let mut sum = if i == col { 1.0 } else { 0.0 };
            for k in 0..i {
                sum -= inverse[i][k] * gamma[k][col];
            }
            gamma[i][col] = sum / inverse[i][i];
        }
    }
    let times = |m: &[[f64; S]; S]| {
        let mut out = [[0.0; S]; S];
        for i in 0..S {
            for j in 0..S {
                out[i][j] = (0..S).map(|k| m[i][k] * gamma[k][j]).sum();
            }
        }
        out
    };
    let alpha = times(&tableau.a);
    let b = core::array::from_fn(|j| (0..S).map(|k| weights[k] * gamma[k][j]).sum());
    (gamma, alpha, b)
}

/// The residuals of the order conditions up to `order` for the weights `weights`.
fn order_conditions<const S: usize>(
    tableau: &RosenbrockTableau<S>,
    weights: [f64; S],
    order: u32,
) -> Vec<(&'static str, f64)> {
    let (gamma_full, alpha, b) = original(tableau, weights);
    let g = tableau.gamma;
    let beta = |i: usize, j: usize| {
        if j < i {
            alpha[i][j] + gamma_full[i][j]
        } else {
            0.0
        }
    };
    let beta_prime: Vec<f64> = (0..S).map(|i| (0..i).map(|j| beta(i, j)).sum()).collect();
    let a: Vec<f64> = (0..S).map(|i| alpha[i].iter().sum()).collect();
    let sum = |f: &dyn Fn(usize) -> f64| (0..S).map(|i| b[i] * f(i)).sum::<f64>();
    let mut residuals = vec![("Σ b = 1", sum(&|_| 1.0) - 1.0)];
    if order >= 2 {
        residuals.push(("Σ b β′ = 1/2 − γ", sum(&|i| beta_prime[i]) - (0.5 - g)));
    }
    if order >= 3 {
        residuals.push(("Σ b α² = 1/3", sum(&|i| a[i] * a[i]) - 1.0 / 3.0));
        residuals.push((
            "Σ b β β′ = 1/6 − γ + γ²",
            sum(&|i| (0..S).map(|j| beta(i, j) * beta_prime[j]).sum()) - (1.0 / 6.0 - g + g * g),
        ));
    }
    if order >= 4 {
        residuals.push(("Σ b α³ = 1/4", sum(&|i| a[i].powi(3)) - 0.25));
        residuals.push((
            "Σ b α αᵢⱼ β′ = 1/8 − γ/3",
            sum(&|i| a[i] * (0..S).map(|j| alpha[i][j] * beta_prime[j]).sum::<f64>())
                - (0.125 - g / 3.0),
        ));
        residuals.push((
            "Σ b β α² = 1/12 − γ/3",
            sum(&|i| (0..S).map(|j| beta(i, j) * a[j] * a[j]).sum()) - (1.0 / 12.0 - g / 3.0),
        ));
        residuals.push((
            "Σ b β β β′ = 1/24 − γ/2 + 3γ²/2 − γ³",
            sum(&|i| {
                (0..S)
                    .map(|j| beta(i, j) * (0..S).map(|k| beta(j, k) * beta_prime[k]).sum::<f64>())
                    .sum()
            }) - (1.0 / 24.0 - g / 2.0 + 1.5 * g * g - g.powi(3)),
        ));
    }
    if order >= 5 {
        // β with its diagonal γ, along an edge from a vertex with one child.
        let single = |i: usize, j: usize| beta(i, j) + if i == j { g } else { 0.0 };
        for tree in trees(5) {
            let phi = elementary_weights(&tree, &alpha, &single);
            let residual = (0..S).map(|i| b[i] * phi[i]).sum::<f64>() - 1.0 / density(&tree);
            residuals.push(("a tree of order 5", residual));
        }
    }
    residuals
}

/// A rooted tree: its root's subtrees.
#[derive(Clone, Debug, PartialEq, Eq, PartialOrd, Ord)]
struct Tree(Vec<Tree>);

impl Tree {
    fn vertices(&self) -> usize {
        1 + self.0.iter().map(Tree::vertices).sum::<usize>()
    }
}

/// The rooted trees with `n` vertices, each once (its subtrees sorted).
fn trees(n: usize) -> Vec<Tree> {
    // The forests of `n` vertices whose trees are no greater than `bound`, sorted.
    fn forests(n: usize, bound: Option<&Tree>) -> Vec<Vec<Tree>> {
        if n == 0 {
            return vec![vec![]];
        }
        let mut out = Vec::new();
        for first in 1..=n {
            for tree in trees(first) {
                if bound.is_some_and(|bound| tree > *bound) {
                    continue;
                }
                for mut rest in forests(n - first, Some(&tree)) {
                    rest.insert(0, tree.clone());
                    out.push(rest);
                }
            }
        }
        out
    }
    forests(n - 1, None).into_iter().map(Tree).collect()
}

/// `t!`, the product of every vertex's subtree size.
fn density(tree: &Tree) -> f64 {
    tree.vertices() as f64 * tree.0.iter().map(density).product::<f64>()
}

/// `Φᵢ(t)` for each stage `i`.
fn elementary_weights<const S: usize>(
    tree: &Tree,
    alpha: &[[f64; S]; S],
    single: &dyn Fn(usize, usize) -> f64,
) -> [f64; S] {
    let mut phi = [1.0; S];
    for child in &tree.0 {
        let below = elementary_weights(child, alpha, single);
        for i in 0..S {
            let edge = |j: usize| {
                if tree.0.len() == 1 {
                    single(i, j)
                } else {
                    alpha[i][j]
                }
            };
            phi[i] *= (0..S).map(|j| edge(j) * below[j]).sum::<f64>();
        }
    }
    phi
}

/// Each tableau, taken back to its original form, satisfies the order conditions of its
/// order with its propagated weights and of its embedded order with the embedded ones; its
/// `αᵢ` are the row sums of the original `αᵢⱼ` and its `γᵢ` those of `Γ` (what `∂f/∂t`
/// needs), its stages are explicit (strictly lower `a` and `c`), and its dense output is
/// the step at `θ = 1`.
#[test]
fn the_tableaus_satisfy_their_order_conditions() {
    each_method!(|name, method, order, embedded| {
        let tableau = method.tableau();
        for (weights, order) in [(tableau.b, order), (tableau.b_hat, embedded)] {
            for (condition, residual) in order_conditions(tableau, weights, order) {
                println!("{name}: {condition}: {residual:e}");
                assert!(residual.abs() < 1e-12, "{name}: {condition}: {residual:e}");
            }
        }
        // One order more fails: the orders are exactly those claimed.
        assert!(
            order_conditions(tableau, tableau.b_hat, embedded + 1)
                .iter()
                .any(|(_, r)| r.abs() > 1e-6),
            "{name}: the embedded weights are of higher order than claimed"
        );
        let (gamma, alpha, b) = original(tableau, tableau.b);
        // As a quadrature rule (J = 0, f of t alone) a step is
        // h Σ bᵢ f(t + αᵢh) + h² (Σ bᵢ γᵢ) f′: Rodas4's weights integrate quartics too
        // (Σ bᵢ αᵢ⁴ = 1/5), so on y' = g(t) it is of order 5 (`integrators::first_order`).
        let quartic: f64 = (0..b.len())
            .map(|i| b[i] * alpha[i].iter().sum::<f64>().powi(4))
            .sum::<f64>()
            - 0.2;
        println!("{name}: Σ b α⁴ − 1/5 = {quartic:e}");
        if name == "rodas4" {
            assert!(quartic.abs() < 1e-12, "{name}: {quartic:e}");
        }
        for i in 0..tableau.b.len() {
            let alpha_i: f64 = alpha[i].iter().sum();
            let gamma_i: f64 = gamma[i].iter().sum();
            assert!((alpha_i - tableau.alpha[i]).abs() < 1e-12, "{name}: α{i}");
            assert!(
                (gamma_i - tableau.gamma_sums[i]).abs() < 1e-12,
                "{name}: γ{i}"
            );
            for j in i..tableau.b.len() {
                assert_eq!((tableau.a[i][j], tableau.c[i][j]), (0.0, 0.0));
            }
        }
        if let RosenbrockDense::Stages { weights, .. } = tableau.dense {
            for (w, b) in weights.iter().zip(tableau.b) {
                assert!(
                    (w.iter().sum::<f64>() - b).abs() < 1e-13,
                    "{name}: w(1) = b"
                );
            }
        }
    });
}

// ---------------------------------------------------------------------------------------
// Orders

/// A named scalar problem `y' = f(t, y)` and its exact solution from `y(0) = 1`.
type Problem = (&'static str, fn(&f64, f64) -> f64, fn(f64) -> f64);

/// The test problems of the orders: `y' = −10 (y − cos t) − sin t` (linear, non-autonomous,
/// mildly stiff; `y = cos t` from `y(0) = 1`), and `y' = −y²` (nonlinear; `y = 1/(1 + t)`).
/// Rodas4 is in its asymptotic range on both from 16 steps on [0, 2]; ROS3P approaches
/// its order from below and is measured from 64 steps (its slope is 2.4 to 2.8 at 8 to 64).
fn problems() -> [Problem; 2] {
    [
        (
            "relaxation",
            |y, t| -10.0 * (y - t.cos()) - t.sin(),
            |t| t.cos(),
        ),
        ("y' = −y²", |y, _t| -y * y, |t| 1.0 / (1.0 + t)),
    ]
}

/// The error at t = 2 of `steps` fixed steps of `method` on `f` from `y(0) = 1`.
fn fixed_step_error<const N: usize>(
    method: Rosenbrock<N>,
    f: fn(&f64, f64) -> f64,
    exact: fn(f64) -> f64,
    steps: usize,
) -> f64 {
    let dt = 2.0 / steps as f64;
    let mut y = 1.0;
    let mut stepper = Stepper::new(method);
    for i in 0..steps {
        stepper.step(&mut y, &f, i as f64 * dt, dt).unwrap();
    }
    (y - exact(2.0)).abs()
}

/// The embedded weights as a method of their own.
fn embedded_method<const N: usize>(method: Rosenbrock<N>) -> Rosenbrock<N> {
    let tableau = method.tableau();
    let leaked: &'static RosenbrockTableau<N> = Box::leak(Box::new(RosenbrockTableau {
        b: tableau.b_hat,
        ..*tableau
    }));
    Rosenbrock::new(leaked)
}

/// The measured order of `method` on `problem` at 16 to 128 fixed steps (64 to 512 for
/// third-order methods).
fn measured_order<const N: usize>(
    method: Rosenbrock<N>,
    f: fn(&f64, f64) -> f64,
    exact: fn(f64) -> f64,
) -> f64 {
    let ladder = if method.tableau().order >= 4 {
        [16, 32, 64, 128]
    } else {
        [64, 128, 256, 512]
    };
    let points: Vec<(f64, f64)> = ladder
        .iter()
        .map(|&n| (2.0 / n as f64, fixed_step_error(method, f, exact, n)))
        .collect();
    log_log_slope(&points)
}

/// At fixed steps each method converges at its order, and its embedded weights at theirs,
/// on a non-autonomous problem (so the `∂f/∂t` terms matter) and a nonlinear one; and the
/// error estimate of one step, `y₁ − ŷ₁`, shrinks like `h^(q+1)` for the embedded order
/// `q`.
#[test]
fn fixed_step_and_embedded_orders() {
    each_method!(|name, method, order, embedded| {
        for (problem, f, exact) in problems() {
            for (what, m, theory) in [
                ("propagated", method, order),
                ("embedded", embedded_method(method), embedded),
            ] {
                let slope = measured_order(m, f, exact);
                println!("{name} {what} on {problem}: order {slope:.3}");
                // Rodas5P's embedded method misses order 5 by little on the linear
                // problem: at 16 to 128 steps its error falls 20 times a halving (4.3),
                // 16 times from 256 steps on, where rounding takes over.
                let within = if (name, what) == ("rodas5p", "embedded") {
                    0.35
                } else {
                    0.15
                };
                assert!(
                    (slope - f64::from(theory)).abs() < within,
                    "{name} {what} on {problem}: order {slope}, theory {theory}"
                );
            }
            // The local error estimate of one step from t = 0.3.
            let points: Vec<(f64, f64)> = [0.04, 0.02, 0.01, 0.005]
                .iter()
                .map(|&h| {
                    let mut high = exact(0.3);
                    let mut low = high;
                    method.clone().step(&mut high, &f, 0.3, h).unwrap();
                    embedded_method(method).step(&mut low, &f, 0.3, h).unwrap();
                    (h, (high - low).abs())
                })
                .collect();
            let slope = log_log_slope(&points);
            println!("{name} on {problem}: error estimate order {slope:.3}");
            assert!(
                (slope - f64::from(embedded + 1)).abs() < 0.15,
                "{name} on {problem}: error estimate of order {slope}, theory {}",
                embedded + 1
            );
        }
    });
}

/// Declaring time-dependent forces autonomous drops the `∂f/∂t` terms, and with them the
/// order (a check that the terms are there and right): Rodas4 falls below 3.5.
#[test]
fn the_time_derivative_terms_keep_the_order() {
    let (_, f, exact) = problems()[0];
    let slope = measured_order(Rodas4.assume_autonomous(), f, exact);
    println!("rodas4 without ∂f/∂t: order {slope:.3}");
    assert!(slope < 3.5, "order {slope}");
}

/// The dense output has its order: one step of `h` on `y' = y cos t` (`y = e^(sin t)`),
/// sampled at θ = 0.1, 0.2, …, 0.9, errs by `O(h^(q+1))` at worst. (The largest error over
/// the step: at a single θ the interpolant's error and the step's own can cancel. On
/// nonlinear problems the same holds, from smaller steps on.)
#[test]
fn dense_output_has_its_order() {
    each_method!(|name, method, _order, _embedded| {
        let order = match method.tableau().dense {
            RosenbrockDense::Stages { order, .. } => order,
            RosenbrockDense::Hermite => 3,
        };
        let errors = [0.2, 0.1, 0.05, 0.025].map(|h| {
            let growth = |y: &f64, t: f64| y * t.cos();
            let mut solver = Adaptive::new(method)
                .with_tolerances(Tolerances::new(1.0, 1.0))
                .with_initial_step(h)
                .with_max_step(h);
            let mut y = 1.0;
            let mut sample = 0.0;
            let mut largest: f64 = 0.0;
            solver
                .solve_with(&mut y, &growth, 0.0, h, |step| {
                    for k in 1..10 {
                        let t = 0.1 * k as f64 * h;
                        step.state_at(t, &mut sample);
                        largest = largest.max((sample - t.sin().exp()).abs());
                    }
                })
                .unwrap();
            largest
        });
        for pair in errors.windows(2) {
            let measured = (pair[0] / pair[1]).log2() - 1.0;
            println!("{name}: dense output order {measured:.2}");
            assert!(
                (measured - f64::from(order)).abs() < 0.3,
                "{name}: dense output order {measured}, theory {order}"
            );
        }
    });
}

// ---------------------------------------------------------------------------------------
// Robertson

/// Robertson's chemical kinetics (H. H. Robertson 1966; Hairer–Wanner II, IV.1 (1.3)):
/// `A → B` at k₁ = 0.04, `B + B → C + B` at k₂ = 3·10⁷, `B + C → A + C` at k₃ = 10⁴.
fn robertson(y: &[f64; 3], _t: f64) -> [f64; 3] {
    let [a, b, c] = *y;
    [
        -0.04 * a + 1e4 * b * c,
        0.04 * a - 1e4 * b * c - 3e7 * b * b,
        3e7 * b * b,
    ]
}

/// Its Jacobian, written out.
fn robertson_jacobian(y: &[f64; 3], _t: f64, j: &mut Jacobian<f64>) {
    let [_, b, c] = *y;
    j[(0, 0)] = -0.04;
    j[(0, 1)] = 1e4 * c;
    j[(0, 2)] = 1e4 * b;
    j[(1, 0)] = 0.04;
    j[(1, 1)] = -1e4 * c - 6e7 * b;
    j[(1, 2)] = -1e4 * b;
    j[(2, 1)] = 6e7 * b;
}

/// Robertson to t = 40 (Hairer–Wanner II, IV.1, Fig. 1.3 and IV.10's reference values):
/// `y₁ = 0.7158`, `y₂ = 9.185·10⁻⁶`, `y₃ = 0.2842` to those digits (y₂ = 9.1855…·10⁻⁶:
/// the book's digits are the leading ones, not a rounding), the same as a run at 10⁻¹²
/// to 10⁻⁸ relative, with `y₁ + y₂ + y₃ = 1`
/// kept to 10⁻¹⁰ (every step of a Rosenbrock method is a linear combination of rates whose
/// components sum to zero), and one Jacobian per accepted step and one factorisation per
/// attempted step, with the Jacobian from finite differences (three evaluations each) or
/// written out (none).
#[test]
fn robertson_to_40_matches_hairer_wanner() {
    let mut reference = [1.0, 0.0, 0.0];
    Adaptive::new(Rodas4)
        .with_tolerances(Tolerances::new(1e-12, 1e-18))
        .solve(&mut reference, &robertson, 0.0, 40.0)
        .unwrap();
    println!("reference y(40) = {reference:?}");
    each_method!(|name, method, _order, _embedded| {
        for analytic in [false, true] {
            let mut y = [1.0, 0.0, 0.0];
            let mut solver = Adaptive::new(method.assume_autonomous())
                .with_tolerances(Tolerances::new(1e-8, 1e-14));
            let statistics = if analytic {
                solver.solve(
                    &mut y,
                    &WithJacobian::new(robertson, robertson_jacobian),
                    0.0,
                    40.0,
                )
            } else {
                solver.solve(&mut y, &robertson, 0.0, 40.0)
            }
            .unwrap();
            println!("{name} (analytic Jacobian: {analytic}): y(40) = {y:?}, {statistics:?}");
            assert!((y[0] - 0.7158).abs() < 0.5e-4, "{name}: y₁ = {}", y[0]);
            assert!(
                (9.185e-6..9.186e-6).contains(&y[1]),
                "{name}: y₂ = {}",
                y[1]
            );
            assert!((y[2] - 0.2842).abs() < 0.5e-4, "{name}: y₃ = {}", y[2]);
            assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-10, "{name}: mass");
            for (value, reference) in y.iter().zip(reference) {
                assert_relative_eq!(*value, reference, max_relative = 1e-7);
            }
            // A rejected step is retried with its Jacobian, as rodas.f does.
            assert_eq!(statistics.jacobians, statistics.accepted);
            assert_eq!(statistics.decompositions, statistics.steps());
            let per_jacobian = if analytic { 0 } else { 3 };
            let stages = u64::from(method.tableau().evaluations());
            // The rate at each accepted step's end: ROS3P's Hermite interpolant takes it
            // there; Rodas4 at the next step's start, as rodas.f, so not past the last.
            let ends = match method.tableau().dense {
                RosenbrockDense::Hermite => statistics.accepted,
                RosenbrockDense::Stages { .. } => statistics.accepted - 1,
            };
            // Stages after the first per attempt, the differences per Jacobian, the ends'
            // rates, the start's rate and Hairer's initial-step probe once.
            assert_eq!(
                statistics.evaluations,
                statistics.steps() * (stages - 1) + statistics.jacobians * per_jacobian + ends + 2,
                "{name}"
            );
        }
    });
}

/// Robertson to t = 10¹¹, seventeen decades past the fast transient: the step grows with
/// t (about 1400 steps at 10⁻⁸, 10⁻¹⁴ for Rodas4, some 80 a decade; ROS3P, of order 3,
/// takes 13 times as many), `y₁ → 0`, `y₃ → 1`,
/// and mass is still conserved. The
/// values at 10¹¹ (Hairer–Wanner's "Robertson to 10¹¹" experiment): y₁ ≈ 2.08·10⁻⁸,
/// y₂ ≈ 8.3·10⁻¹⁴, y₃ ≈ 1 − 2.1·10⁻⁸.
#[test]
fn robertson_to_1e11() {
    each_method!(|name, method, _order, _embedded| {
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(method)
            .with_tolerances(Tolerances::new(1e-8, 1e-14))
            .solve(&mut y, &robertson, 0.0, 1e11)
            .unwrap();
        println!("{name}: y(1e11) = {y:?}, {statistics:?}");
        // Rodas4: 1407 steps; ROS3P, a third-order method at 10⁻⁸, 18866.
        let most = if name == "rodas4" { 2000 } else { 25_000 };
        assert!(statistics.accepted < most, "{name}: {statistics:?}");
        assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-10, "{name}: mass");
        assert_relative_eq!(y[0], 2.08e-8, max_relative = 0.01);
        assert_relative_eq!(y[1], 8.33e-14, max_relative = 0.01);
        assert!(y.iter().all(|v| *v >= -1e-14), "{name}: {y:?}");
    });
}

/// Events and the dense output work under a Rosenbrock method: the time at which half of A
/// is gone (y₁ = 1/2) is located on the dense output and agrees with a run that stops
/// there by a tighter route (a terminal event at a tighter tolerance).
#[test]
fn robertson_events_on_the_dense_output() {
    each_method!(|name, method, _order, _embedded| {
        let located = |rtol: f64| {
            let mut y = [1.0, 0.0, 0.0];
            let mut half = Event::new(|y: &[f64; 3], _t: f64| y[0] - 0.5)
                .direction(Direction::Falling)
                .terminal();
            let mut at = f64::NAN;
            Adaptive::new(method)
                .with_tolerances(Tolerances::new(rtol, 1e-14))
                .solve_with_events(&mut y, &robertson, 0.0, 1e3, &mut half, |_, t, _| at = t)
                .unwrap();
            (at, y)
        };
        let (loose, y) = located(1e-6);
        let (tight, _) = located(1e-10);
        println!("{name}: y₁ = 1/2 at t = {loose} (tight: {tight})");
        assert!((y[0] - 0.5).abs() < 1e-6, "{name}: {y:?}");
        assert_relative_eq!(loose, tight, max_relative = 1e-5);
    });
}

// ---------------------------------------------------------------------------------------
// Van der Pol and the stiff linear problem

/// Van der Pol's equation `x'' = μ(1 − x²)x' − x` as a first-order system.
fn van_der_pol(mu: f64) -> impl Fn(&[f64; 2], f64) -> [f64; 2] + Copy {
    move |y: &[f64; 2], _t: f64| [y[1], mu * (1.0 - y[0] * y[0]) * y[1] - y[0]]
}

/// Van der Pol at μ = 1000 over two periods (`2(3 − 2 ln 2) μ ≈ 3227`), from x = 2,
/// x' = 0 (Hairer–Wanner II, IV.1 and IV.10): Rodas4 at 10⁻⁶ takes a few hundred steps
/// and returns near its start (x = 2 at each period's start, to the relaxation's
/// O(μ^(−4/3)) drift in the period; ROS3P takes about 2900); Dormand–Prince 5(4), stable only while
/// `h ≲ 3.3/(2μ(x²−1))`, exhausts 100 000 steps.
#[test]
fn van_der_pol_at_mu_1000() {
    let mu = 1000.0;
    let end = 2.0 * (3.0 - 2.0 * 2.0_f64.ln()) * mu;
    each_method!(|name, method, _order, _embedded| {
        let mut y = [2.0, 0.0];
        let statistics = Adaptive::new(method.assume_autonomous())
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .solve(&mut y, &van_der_pol(mu), 0.0, end)
            .unwrap();
        println!("{name}: VdP μ = 1000 to {end}: y = {y:?}, {statistics:?}");
        // Rodas4: 953 steps, ROS3P (third order) 2981.
        let most = if name == "rodas4" { 1500 } else { 4000 };
        assert!(statistics.steps() < most, "{name}: {statistics:?}");
        assert!(y[0].abs() > 1.0 && y[0].abs() < 2.01, "{name}: {y:?}");
    });
    let mut y = [2.0, 0.0];
    let error = Adaptive::new(Dopri5)
        .with_tolerances(Tolerances::new(1e-6, 1e-6))
        .solve(&mut y, &van_der_pol(mu), 0.0, end)
        .unwrap_err();
    println!("dopri5: {error}");
    assert!(
        matches!(error, AdaptiveError::TooManySteps { .. }),
        "{error}"
    );
}

/// The stiff linear problem `y' = −10⁶ (y − cos t)` (Prothero–Robinson type; Hairer–Wanner
/// II, IV.1 and IV.15): at steps 10⁴ to 10⁶ times the stiff time scale the methods stay
/// stable, follow `y ≈ cos t + 10⁻⁶ sin t` to O(10⁻⁶ · h^p), and damp a start 1 away from
/// it by their stability function `R(−10⁶ h)` per step, where every explicit method
/// explodes: Rodas4 and Rodas5P to 10⁻³ of it in one step (L-stable, `R(∞) = 0`, `R(z) ≈
/// 8.8/z` and `−12.5/z`), ROS3P by `R(∞) = 1 − √3 ≈ −0.732` per step (A-stable only: the
/// transient flips sign and fades over tens of steps).
#[test]
fn stiff_linear_problem_is_stable_at_large_steps() {
    let stiff = |y: &f64, t: f64| -1e6 * (y - t.cos());
    let smooth = |t: f64| (1e12 * t.cos() + 1e6 * t.sin()) / (1e12 + 1.0);
    each_method!(|name, method, _order, _embedded| {
        for dt in [0.01, 0.1] {
            let mut y = 2.0;
            let mut stepper = Stepper::new(method);
            let steps = (10.0 / dt) as usize;
            for i in 0..steps {
                stepper.step(&mut y, &stiff, i as f64 * dt, dt).unwrap();
                if i == 0 {
                    // The transient e^(−10⁶ t), 1 at the start, times R(−10⁶ dt) ≈ R(∞).
                    let transient = y - smooth(dt);
                    let r = rosenbrock_stability(method.tableau(), C(-1e6 * dt, 0.0)).0;
                    let r_infinity = if name == "ros3p" {
                        1.0 - 3.0_f64.sqrt()
                    } else {
                        0.0
                    };
                    println!("{name}: dt = {dt}: transient after one step {transient:e}, R {r:e}");
                    assert!((transient - r).abs() < 1e-8, "{name}: {transient} vs {r}");
                    assert!((r - r_infinity).abs() < 2e-3, "{name}: {r}");
                }
            }
            let error = (y - smooth(10.0)).abs();
            println!("{name}: dt = {dt}: error at t = 10: {error:e}");
            assert!(error < 1e-6, "{name} dt = {dt}: error {error:e}");
        }
    });
    let mut y = 2.0;
    let mut rk4 = Stepper::new(timestep::Rk4);
    for i in 0..10 {
        rk4.step(&mut y, &stiff, i as f64 * 0.01, 0.01).unwrap();
    }
    assert!(y.abs() > 1e10, "RK4 must explode here: {y}");
}

// ---------------------------------------------------------------------------------------
// Jacobians, structure, failures

/// A banded Jacobian gives the same steps as a dense one (to rounding), at three force
/// evaluations per Jacobian instead of n; an analytic one at none.
#[test]
fn banded_dense_and_analytic_jacobians_agree() {
    let n = 50;
    let dx = 1.0 / (n + 1) as f64;
    // Heat with a nonlinear source: u_t = u_xx + u² (tridiagonal Jacobian).
    let heat = InPlace(move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = (left - 2.0 * u[i] + right) / (dx * dx) + u[i] * u[i];
        }
    });
    let start: Vec<f64> = (1..=n).map(|i| (3.0 * i as f64 * dx).sin()).collect();
    each_method!(|name, method, _order, _embedded| {
        let run = |method| {
            let mut u = start.clone();
            let statistics = Adaptive::new(method)
                .with_tolerances(Tolerances::new(1e-8, 1e-10))
                .solve(&mut u, &heat, 0.0, 0.1)
                .unwrap();
            (u, statistics)
        };
        let method = method.assume_autonomous();
        let (dense, dense_statistics) = run(method);
        let (banded, banded_statistics) =
            run(method.with_structure(Structure::Banded { lower: 1, upper: 1 }));
        println!("{name}: dense {dense_statistics:?}, banded {banded_statistics:?}");
        assert_eq!(dense_statistics.steps(), banded_statistics.steps());
        for (a, b) in dense.iter().zip(&banded) {
            assert!((a - b).abs() < 1e-9, "{name}: {a} vs {b}");
        }
        let per_step =
            |s: timestep::Statistics| (s.evaluations as f64 - s.accepted as f64) / s.steps() as f64;
        assert!(per_step(dense_statistics) > n as f64, "{name}");
        assert!(per_step(banded_statistics) < 10.0, "{name}");
    });
}

/// `y' = λ y` with `λ = 1/(hγ)` makes `I/(hγ) − J` singular at exactly that `h`: a fixed
/// step refuses it and leaves the state alone; under error control the attempt reports
/// `f64::MAX` and the driver retries shorter, and the run goes on.
#[test]
fn a_singular_matrix_is_refused_or_retried_shorter() {
    each_method!(|name, method, _order, _embedded| {
        // A step of h ≈ 1/(4γ) (1/(4γ) itself for Rodas4, whose hγ is then 1/4 exactly,
        // a few rounding units on for Rodas5P) at which hγ · (1/(hγ)) rounds to 1, so
        // that with the Jacobian λ = 1/(hγ) given exactly, 1 − hγλ is 0.
        let gamma = method.tableau().gamma;
        let h = (0..64)
            .map(|k| f64::from_bits((0.25 / gamma).to_bits() + k))
            .find(|h| h * gamma * (1.0 / (h * gamma)) == 1.0)
            .unwrap();
        let lambda = 1.0 / (h * gamma);
        let growth = WithJacobian::new(
            move |y: &f64, _t: f64| lambda * y,
            move |_: &f64, _t: f64, j: &mut Jacobian<f64>| j[(0, 0)] = lambda,
        );
        let mut y = 1.0;
        assert_eq!(
            method.assume_autonomous().step(&mut y, &growth, 0.0, h),
            Err(StepError::SingularJacobian),
            "{name}"
        );
        assert_eq!(y, 1.0);
        let statistics = Adaptive::new(method.assume_autonomous())
            .with_tolerances(Tolerances::new(1e-6, 1e-6))
            .with_initial_step(h)
            .solve(&mut y, &growth, 0.0, 2.0 * h)
            .unwrap();
        assert!(statistics.rejected >= 1, "{name}: {statistics:?}");
        // Rodas4 and Rodas5P then follow the growth. ROS3P's steps near its pole (hλ → 1/γ
        // = 1.27 on this growing solution) fool its error estimate (−63 for e^2.54 = 12.6): a known
        // limit of linearly implicit methods on growing modes at large hλ, not checked here.
        if name != "ros3p" {
            assert_relative_eq!(y, (lambda * 2.0 * h).exp(), max_relative = 1e-4);
        }
    });
}

/// Forces that return NaN: a fixed step refuses the step (state unchanged); an adaptive
/// run reports a non-finite error. A NaN Jacobian from the forces is refused as such.
#[test]
fn non_finite_forces_and_jacobians_are_refused() {
    each_method!(|name, method, _order, _embedded| {
        let nan = |_: &f64, _t: f64| f64::NAN;
        let mut y = 1.0;
        let mut method = method;
        assert_eq!(
            method.step(&mut y, &nan, 0.0, 0.1),
            Err(StepError::NonFiniteResidual),
            "{name}"
        );
        assert_eq!(y, 1.0);
        let nan_jacobian = WithJacobian::new(
            |y: &f64, _t: f64| -y,
            |_: &f64, _t: f64, j: &mut Jacobian<f64>| j[(0, 0)] = f64::NAN,
        );
        assert_eq!(
            method.step(&mut y, &nan_jacobian, 0.0, 0.1),
            Err(StepError::NonFiniteJacobian),
            "{name}"
        );
        assert_eq!(y, 1.0);
        let error = Adaptive::new(method)
            .solve(&mut y, &nan, 0.0, 1.0)
            .unwrap_err();
        assert!(
            matches!(error, AdaptiveError::NonFiniteError { .. }),
            "{name}: {error}"
        );
    });
}

/// A step so long that the state overflows is a rejected step, not the end of the run: Van
/// der Pol at μ = 1000 and loose tolerances (10⁻²) sends Rodas4's step across a jump, where
/// the stages overflow to a non-finite error estimate; the driver retries it shorter and
/// the run ends at t = 3000 near the limit cycle (|x| ≤ 2.1).
#[test]
fn an_overflowing_step_is_retried_shorter() {
    let van_der_pol = van_der_pol(1000.0);
    for tolerance in [2.4e-2, 1e-2] {
        let mut y = [2.0, 0.0];
        let statistics = Adaptive::new(Rodas4.assume_autonomous())
            .with_tolerances(Tolerances::new(tolerance, tolerance))
            .solve(&mut y, &van_der_pol, 0.0, 3000.0)
            .unwrap_or_else(|error| panic!("tolerance {tolerance}: {error}"));
        assert!(y[0].abs() <= 2.1 && y[0].abs() >= 1.0, "{y:?}");
        assert!(statistics.rejected > 0, "{statistics:?}");
    }
}

/// Ros3p's embedded method has Ros3p's own stability function (Lang and Verwer's `m̂`
/// reproduce `R(z)` exactly), so its error estimate vanishes on every linear problem with
/// constant coefficients, however long the step: measured on `y' = −y` over a step of 1,
/// where the step's true error is 10⁻² and the tolerance 10⁻⁸. On `y' = −y²` the estimate
/// is there. Its docs say so; Rodas4's estimate sees both.
#[test]
fn ros3p_s_error_estimate_is_blind_to_linear_problems() {
    use timestep::control::{AdaptiveMethod, IntoAdaptive, Statistics};
    fn estimate(
        method: impl IntoAdaptive<Method: AdaptiveMethod<f64>>,
        f: fn(&f64, f64) -> f64,
    ) -> f64 {
        let method = method.into_adaptive();
        let (mut workspace, mut statistics, mut end) =
            (method.workspace(&1.0), Statistics::default(), 0.0);
        method.begin(&mut workspace, &1.0, &f, 0.0, &mut statistics);
        let tolerances = Tolerances::new(1e-8, 1e-8);
        method
            .attempt(
                &mut workspace,
                &1.0,
                &f,
                0.0,
                1.0,
                &tolerances,
                &mut end,
                &mut statistics,
            )
            .unwrap()
    }
    let linear: fn(&f64, f64) -> f64 = |y, _| -y;
    let nonlinear: fn(&f64, f64) -> f64 = |y, _| -y * y;
    assert!(estimate(Ros3p, linear) < 1e-6);
    assert!(estimate(Ros3p, nonlinear) > 1e4);
    assert!(estimate(Rodas4, linear) > 1e4);
}
