//! Rodas5P (G. Steinebach, BIT Numer. Math. 63 (2023) 27) beyond what
//! `integrators::implicit::rosenbrock` checks of every Rosenbrock tableau (its order
//! conditions to order 5, the measured orders of its solution, estimate and dense output,
//! Robertson against Hairer–Wanner's printed values, Van der Pol at μ = 1000, events):
//!
//! - its stability function `R(z) = 1 + Σᵢ bᵢ uᵢ(z)` (`common::rosenbrock_stability`)
//!   agrees with `eᶻ` to `O(z⁶)` (order 5 on `y' = λ y`), has `|R(iy)| ≤ 1` on the imaginary
//!   axis and its poles (`1/γ`) in the right half-plane, so it is A-stable, and
//!   `R(∞) = 0`, `R(z) = O(1/z)`: L-stable, and so is the embedded method;
//! - it is stiffly accurate: the embedded solution is where the last stage evaluates `f`,
//!   the solution that point plus the last increment, all at `t + h`;
//! - on Prothero and Robinson's stiff problem `y' = λ (y − g(t)) + g'(t)` with
//!   `λ = −10⁶`, at steps `10⁴` to `10⁵` times the stiff time scale, the error of fixed
//!   steps shrinks at its measured stiff order;
//! - as a quadrature rule (`y' = g(t)`) it is of order 5.
// The tableau algebra indexes its matrices as the formulas do.
#![allow(clippy::needless_range_loop)]

use super::rosenbrock::original;
use crate::common::{C, log_log_slope, rosenbrock_stability};
use timestep::{Integrator, Rodas4, Rodas5P, Rosenbrock, RosenbrockTableau, Stepper};

const TABLEAU: RosenbrockTableau<8> = Rodas5P::TABLEAU;

fn modulus(z: C) -> f64 {
    z.0.hypot(z.1)
}

/// The embedded weights as a tableau of their own.
fn embedded() -> RosenbrockTableau<8> {
    RosenbrockTableau {
        b: TABLEAU.b_hat,
        ..TABLEAU
    }
}

/// Stiffly accurate: rows 7 and 8 of `a` add `U₆` and then `U₇` to row 6, all three stages
/// at `t + h` with no `∂f/∂t` term, the embedded weights are row 8 and the propagated ones
/// row 8 plus `U₈`, so the error estimate is `U₈`.
#[test]
fn the_tableau_is_stiffly_accurate() {
    let a = TABLEAU.a;
    for i in 5..8 {
        assert_eq!(TABLEAU.alpha[i], 1.0, "α{i}");
        assert_eq!(TABLEAU.gamma_sums[i], 0.0, "γ{i}");
        assert_eq!(a[i][..5], a[5][..5], "row {i}");
    }
    assert_eq!(a[6][5..], [1.0, 0.0, 0.0]);
    assert_eq!(a[7][5..], [1.0, 1.0, 0.0]);
    assert_eq!(TABLEAU.b_hat, a[7]);
    let mut b = a[7];
    b[7] = 1.0;
    assert_eq!(TABLEAU.b, b);
    assert_eq!(
        TABLEAU.error_weights(),
        [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0]
    );
    assert_eq!((TABLEAU.order, TABLEAU.embedded_order), (5, 4));
}

/// On `y' = λ y` a step multiplies by `R(hλ) = 1 + Σₖ zᵏ bᵀ Bᵏ⁻¹ 𝟙` (`B = α + Γ`, the
/// original form's `β` with its diagonal; Hairer–Wanner II, IV.7): order 5 needs the
/// terms up to `z⁵` to be `eᶻ`'s, `1/k!`. Rodas5P's are up to `z⁶` (a linear problem sees
/// order 6; its `z⁷` term is off by 1.0·10⁻⁵), the embedded method's up to `z⁴` only.
/// And the series is the stability function the step has: at `z = −0.1` they agree to
/// rounding.
#[test]
fn the_stability_function_is_the_exponential_to_z_to_the_sixth() {
    for (tableau, exact) in [(TABLEAU, 6), (embedded(), 4)] {
        let (gamma, alpha, b) = original(&tableau, tableau.b);
        let mut power = [1.0; 8];
        let (mut factorial, mut series) = (1.0, 1.0);
        for k in 1..=12 {
            factorial *= f64::from(k);
            let term: f64 = (0..8).map(|i| b[i] * power[i]).sum();
            let residual = term - 1.0 / factorial;
            if k <= exact {
                assert!(residual.abs() < 1e-13, "z^{k}: {residual:e}");
            } else if k == exact + 1 {
                println!("exact to z^{exact}: z^{k}: {term} − 1/{k}! = {residual:e}");
                assert!(residual.abs() > 1e-6, "z^{k}: {residual:e}");
            }
            series += term * (-0.1_f64).powi(k);
            power = core::array::from_fn(|i| {
                (0..8).map(|j| (alpha[i][j] + gamma[i][j]) * power[j]).sum()
            });
        }
        let r = rosenbrock_stability(&tableau, C(-0.1, 0.0)).0;
        assert!((r - series).abs() < 1e-12, "{r} against {series}");
    }
}

/// A-stable: `|R(iy)| ≤ 1` for `y` from 10⁻⁴ to 10⁸ (the poles, all at `1/γ > 0`, are in
/// the right half-plane, so by the maximum principle `|R| ≤ 1` on the whole left
/// half-plane), and L-stable: along the negative real axis `z R(z)` tends to a constant
/// (−12.5; the embedded method's −0.22), so `R(∞) = 0`. Both for the propagated and the
/// embedded weights: Steinebach built the embedded method A-stable too.
#[test]
fn the_method_and_its_embedded_method_are_l_stable() {
    const { assert!(TABLEAU.gamma > 0.0) };
    for (what, tableau) in [("propagated", TABLEAU), ("embedded", embedded())] {
        let largest = (-400..=800)
            .map(|k| {
                modulus(rosenbrock_stability(
                    &tableau,
                    C(0.0, 10f64.powf(k as f64 / 100.0)),
                ))
            })
            .fold(0.0, f64::max);
        println!("{what}: largest |R(iy)| = {largest}");
        assert!(largest <= 1.0 + 1e-14, "{what}: |R(iy)| = {largest}");
        let scaled: Vec<f64> = [1e6, 1e8, 1e10, 1e12]
            .iter()
            .map(|&x| -x * rosenbrock_stability(&tableau, C(-x, 0.0)).0)
            .collect();
        println!("{what}: z R(z) at z = −10⁶ … −10¹²: {scaled:?}");
        for pair in scaled.windows(2) {
            assert!((pair[1] / pair[0] - 1.0).abs() < 1e-3, "{what}: {scaled:?}");
        }
        let at_infinity = rosenbrock_stability(&tableau, C(-1e15, 0.0)).0;
        assert!(
            at_infinity.abs() < 1e-13,
            "{what}: R(−10¹⁵) = {at_infinity}"
        );
    }
}

/// Fixed steps on `[0, 2]` of `method` on Prothero and Robinson's problem
/// `y' = λ (y − sin t) + cos t`, `y(0) = 0` (solution `sin t` for every `λ`), the error
/// at `t = 2` for each number of steps.
fn prothero_robinson<const N: usize>(method: Rosenbrock<N>, lambda: f64) -> Vec<(f64, f64)> {
    let f = move |y: &f64, t: f64| lambda * (y - t.sin()) + t.cos();
    [20, 40, 80, 160]
        .iter()
        .map(|&steps| {
            let h = 2.0 / f64::from(steps);
            let mut y = 0.0;
            let mut stepper = Stepper::new(method);
            for i in 0..steps {
                stepper.step(&mut y, &f, f64::from(i) * h, h).unwrap();
            }
            (h, (y - 2.0_f64.sin()).abs())
        })
        .collect()
}

/// Prothero–Robinson (Hairer–Wanner II, IV.15: the test of order reduction on stiff
/// problems). At `λ = −1` Rodas5P converges at its order 5. At `λ = −10⁶`, steps `h|λ|`
/// from 1.25·10⁴ to 10⁵, the error is `O(h³/|λ|)`, measured: a stiff order of 3, at
/// 6·10⁻¹² for h = 0.1, where Rodas4's is 1.6·10⁻⁹ and falls at a measured order 1.
#[test]
fn prothero_robinson_at_large_steps() {
    let nonstiff = prothero_robinson(Rodas5P.rosenbrock(), -1.0);
    let slope = log_log_slope(&nonstiff);
    println!("λ = −1: rodas5p {nonstiff:?}, order {slope:.3}");
    assert!((slope - 5.0).abs() < 0.15, "{slope}");
    let lambda = -1e6;
    let rodas5p = prothero_robinson(Rodas5P.rosenbrock(), lambda);
    let rodas4 = prothero_robinson(Rodas4.rosenbrock(), lambda);
    let (slope5, slope4) = (log_log_slope(&rodas5p), log_log_slope(&rodas4));
    println!("λ = {lambda:e}: rodas5p {rodas5p:?}, order {slope5:.3}");
    println!("λ = {lambda:e}: rodas4 {rodas4:?}, order {slope4:.3}");
    assert!((slope5 - 3.0).abs() < 0.15, "{slope5}");
    assert!((slope4 - 1.0).abs() < 0.15, "{slope4}");
    for ((h, five), (_, four)) in rodas5p.iter().zip(&rodas4) {
        assert!(
            five * 100.0 < *four,
            "h = {h}: {five:e} against Rodas4's {four:e}"
        );
    }
}

/// `y' = cos t`: a step is the quadrature `h Σ bᵢ g(t + αᵢ h) + h² (Σ bᵢ γᵢ) g′(t)` of the
/// original weights, exact for polynomials of degree 4 (the order conditions' bushes
/// `Σ bᵢ αᵢᵏ = 1/(k + 1)`, k ≤ 4, and `Σ bᵢ β′ᵢ = 1/2 − γ`), so of order 5 at fixed steps.
#[test]
fn as_a_quadrature_rule_it_has_order_five() {
    let rate = |_: &f64, t: f64| t.cos();
    let points: Vec<(f64, f64)> = [8, 16, 32, 64]
        .iter()
        .map(|&steps| {
            let h = 2.0 / f64::from(steps);
            let mut y = 0.0;
            let mut method = Rodas5P;
            for i in 0..steps {
                method.step(&mut y, &rate, f64::from(i) * h, h).unwrap();
            }
            (h, (y - 2.0_f64.sin()).abs())
        })
        .collect();
    let slope = log_log_slope(&points);
    println!("y' = cos t: {points:?}, order {slope:.3}");
    assert!((slope - 5.0).abs() < 0.2, "{slope}");
}
