//! Restarted GMRES ([`GmresWorkspace`]) alone, on systems whose behaviour is known in exact
//! arithmetic (Saad and Schultz 1986; Saad, "Iterative methods for sparse linear systems",
//! 2nd ed., §6.5): on an `n × n` system GMRES of dimension `n` ends with the exact solution
//! (to round-off); on a diagonal matrix with `n` distinct eigenvalues and a right-hand side
//! with no zero component it needs all `n` iterations (the minimal polynomial of `b` has
//! degree `n`), so a dimension of `n − 1` without restarts falls short and restarts reach
//! it; and a preconditioner equal to the matrix makes one iteration enough, on either side.

use approx::assert_relative_eq;
use proptest::prelude::*;
use timestep::Side;
use timestep::StepError;
use timestep::linalg::{GmresWorkspace, LinearOperator};

/// A dense matrix, row-major, with an optional exact inverse as its preconditioner.
struct Dense {
    n: usize,
    entries: Vec<f64>,
    inverse: Option<Vec<f64>>,
    products: usize,
}

fn multiply(n: usize, entries: &[f64], v: &[f64], out: &mut [f64]) {
    for (i, o) in out.iter_mut().enumerate() {
        *o = (0..n).map(|j| entries[i * n + j] * v[j]).sum();
    }
}

impl LinearOperator for Dense {
    fn apply(&mut self, v: &[f64], out: &mut [f64]) -> Result<(), StepError> {
        self.products += 1;
        multiply(self.n, &self.entries, v, out);
        Ok(())
    }

    fn precondition(&mut self, r: &[f64], out: &mut [f64]) -> Result<(), StepError> {
        match &self.inverse {
            Some(inverse) => multiply(self.n, inverse, r, out),
            None => out.copy_from_slice(r),
        }
        Ok(())
    }
}

/// The inverse by Gauss–Jordan elimination with partial pivoting.
fn inverse(n: usize, entries: &[f64]) -> Vec<f64> {
    let mut a = entries.to_vec();
    let mut inv: Vec<f64> = (0..n * n)
        .map(|k| if k / n == k % n { 1.0 } else { 0.0 })
        .collect();
    for c in 0..n {
        let p = (c..n)
            .max_by(|&x, &y| a[x * n + c].abs().total_cmp(&a[y * n + c].abs()))
            .unwrap();
        for j in 0..n {
            a.swap(c * n + j, p * n + j);
            inv.swap(c * n + j, p * n + j);
        }
        let d = a[c * n + c];
        for j in 0..n {
            a[c * n + j] /= d;
            inv[c * n + j] /= d;
        }
        for r in (0..n).filter(|&r| r != c) {
            let f = a[r * n + c];
            for j in 0..n {
                a[r * n + j] -= f * a[c * n + j];
                inv[r * n + j] -= f * inv[c * n + j];
            }
        }
    }
    inv
}

/// `‖A x − b‖∞ / ‖b‖∞`.
fn relative_residual(n: usize, entries: &[f64], x: &[f64], b: &[f64]) -> f64 {
    let mut ax = vec![0.0; n];
    multiply(n, entries, x, &mut ax);
    let worst = ax
        .iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max);
    worst / b.iter().map(|b| b.abs()).fold(0.0, f64::max)
}

proptest! {
    /// Any well-conditioned nonsymmetric `n × n` system (a diagonally weighted random
    /// matrix) is solved to round-off in at most `n` iterations by GMRES of dimension `n`,
    /// whatever the weights.
    #[test]
    fn dimension_n_solves_n_by_n_systems(
        n in 2usize..12,
        seed in proptest::collection::vec(-1.0f64..1.0, 144),
        rhs in proptest::collection::vec(-1.0f64..1.0, 12),
        weights in proptest::collection::vec(0.1f64..10.0, 12),
    ) {
        let entries: Vec<f64> = (0..n * n)
            .map(|k| seed[k] + if k / n == k % n { 3.0 } else { 0.0 })
            .collect();
        let b: Vec<f64> = rhs[..n].iter().map(|v| v + 0.1_f64.copysign(*v)).collect();
        let mut operator = Dense { n, entries: entries.clone(), inverse: None, products: 0 };
        let mut gmres = GmresWorkspace::new(n, n).unwrap();
        let mut x = b.clone();
        let outcome = gmres.solve(&mut operator, None, &weights[..n], &mut x, 1e-300, 0).unwrap();
        prop_assert!(outcome.iterations <= n as u64);
        prop_assert!(relative_residual(n, &entries, &x, &b) < 1e-11);
    }
}

/// `diag(1, 2, …, n)` and `b = (1, …, 1)`: the Krylov space fills the whole space only at
/// iteration `n`. Dimension `n` converges there; dimension `n − 1` alone stops short; with
/// restarts it converges, and every restart costs one more product (its residual).
#[test]
fn distinct_eigenvalues_need_n_iterations_or_restarts() {
    let n = 8;
    let entries: Vec<f64> = (0..n * n)
        .map(|k| {
            if k / n == k % n {
                (k / n + 1) as f64
            } else {
                0.0
            }
        })
        .collect();
    let b = vec![1.0; n];
    let weights = vec![1.0; n];
    let exact: Vec<f64> = (1..=n).map(|i| 1.0 / i as f64).collect();
    let run = |dimension: usize, restarts: usize| {
        let mut operator = Dense {
            n,
            entries: entries.clone(),
            inverse: None,
            products: 0,
        };
        let mut gmres = GmresWorkspace::new(n, dimension).unwrap();
        let mut x = b.clone();
        let outcome = gmres
            .solve(&mut operator, None, &weights, &mut x, 1e-12, restarts)
            .unwrap();
        assert_eq!(outcome.products, operator.products as u64);
        (outcome, x)
    };
    let (full, x) = run(n, 0);
    assert!(full.converged && full.iterations == n as u64, "{full:?}");
    for (x, exact) in x.iter().zip(&exact) {
        assert_relative_eq!(*x, *exact, max_relative = 1e-12);
    }
    let (short, _) = run(n - 1, 0);
    assert!(!short.converged && short.iterations == (n - 1) as u64);
    assert!(
        short.residual < short.initial && short.residual > 1e-12,
        "{short:?}"
    );
    let (restarted, x) = run(n - 1, 20);
    assert!(restarted.converged, "{restarted:?}");
    let cycles = restarted.products - restarted.iterations;
    assert!(cycles >= 1 && restarted.iterations > n as u64);
    for (x, exact) in x.iter().zip(&exact) {
        assert_relative_eq!(*x, *exact, max_relative = 1e-10);
    }
}

/// With `P = A` the preconditioned operator is the identity: one iteration, on either side;
/// the zero right-hand side needs none, and its solution is zero.
#[test]
fn exact_preconditioner_needs_one_iteration() {
    let n = 6;
    let entries: Vec<f64> = (0..n * n)
        .map(|k| {
            let (i, j) = (k / n, k % n);
            if i == j {
                4.0
            } else {
                1.0 / (1.0 + i as f64 + 2.0 * j as f64)
            }
        })
        .collect();
    let b: Vec<f64> = (0..n).map(|i| (i as f64).sin() + 2.0).collect();
    for side in [Side::Left, Side::Right] {
        let mut operator = Dense {
            n,
            inverse: Some(inverse(n, &entries)),
            entries: entries.clone(),
            products: 0,
        };
        let mut gmres = GmresWorkspace::new(n, 3).unwrap();
        let mut x = b.clone();
        let outcome = gmres
            .solve(&mut operator, Some(side), &[1.0; 6], &mut x, 1e-12, 0)
            .unwrap();
        assert!(
            outcome.converged && outcome.iterations == 1,
            "{side:?}: {outcome:?}"
        );
        assert!(relative_residual(n, &entries, &x, &b) < 1e-12);
        let mut zero = vec![0.0; n];
        let outcome = gmres
            .solve(&mut operator, Some(side), &[1.0; 6], &mut zero, 1e-12, 0)
            .unwrap();
        assert!(outcome.converged && outcome.iterations == 0);
        assert_eq!(zero, vec![0.0; n]);
    }
}

/// A singular matrix whose Krylov space holds no solution (`A = [[0, 1], [0, 0]]`,
/// `b = (0, 1)`: `A b = (1, 0)`, `A² b = 0`) is refused, not answered with `NaN`.
#[test]
fn singular_systems_are_refused() {
    let entries = vec![0.0, 1.0, 0.0, 0.0];
    let mut operator = Dense {
        n: 2,
        entries,
        inverse: None,
        products: 0,
    };
    let mut gmres = GmresWorkspace::new(2, 2).unwrap();
    let mut x = vec![0.0, 1.0];
    let result = gmres.solve(&mut operator, None, &[1.0, 1.0], &mut x, 1e-12, 0);
    assert_eq!(result, Err(StepError::SingularJacobian));
}
