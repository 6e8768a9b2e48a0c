//! Sparse Jacobians (issue 24, feature `sparse`): a 2-D heat equation on an `N × N` grid,
//! `u' = Δu` with the 5-point stencil and `u = 0` on the boundary of the unit square, whose
//! Jacobian has at most 5 entries per row and no narrow band (the rows `N` apart are
//! coupled). Sparse and dense Jacobians give the same steps to rounding for backward
//! Euler, Rodas4, Radau5 and SEULEX; at `N = 100` (10⁴ unknowns, refused dense) the
//! sparse run follows the slowest mode `sin(πx) sin(πy) e^{−2π² t}`, an eigenvector of
//! the discrete Laplacian too (eigenvalue `λ = −(8/h²) sin²(πh/2)`), so that each method's
//! answer is known in closed form; the columns of the stencil are coloured into 5 groups,
//! so finite differences take 5 evaluations per Jacobian whatever `N`; and a pattern that
//! misses an entry is refused.

use std::cell::Cell;
use std::f64::consts::PI;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveKind, BackwardEuler, Bdf, Forces, Integrator, Jacobian, Pattern, Radau5, Rodas4,
    Seulex, StepError, Stepper, Structure, Tolerances,
};

/// `u' = Δu + source·u²` on an `n × n` grid of spacing `h = 1/(n + 1)`, counting force
/// evaluations; with `analytic`, its own Jacobian; its pattern leaves out `(0, 1)` when
/// `missing`.
struct Heat {
    n: usize,
    source: f64,
    analytic: bool,
    missing: bool,
    calls: Cell<usize>,
}

impl Heat {
    fn new(n: usize) -> Self {
        Heat {
            n,
            source: 0.0,
            analytic: false,
            missing: false,
            calls: Cell::new(0),
        }
    }

    /// The unknowns whose values `u[k]`'s rate reads: itself and its grid neighbours.
    fn stencil(&self, k: usize) -> impl Iterator<Item = (usize, f64)> {
        let n = self.n;
        let scale = ((n + 1) * (n + 1)) as f64;
        let (i, j) = (k / n, k % n);
        let mut entries = vec![(k, -4.0 * scale)];
        if i > 0 {
            entries.push((k - n, scale));
        }
        if i + 1 < n {
            entries.push((k + n, scale));
        }
        if j > 0 {
            entries.push((k - 1, scale));
        }
        if j + 1 < n {
            entries.push((k + 1, scale));
        }
        entries.into_iter()
    }

    fn rate(&self, u: &[f64], out: &mut [f64]) {
        self.calls.set(self.calls.get() + 1);
        let n = self.n;
        let scale = ((n + 1) * (n + 1)) as f64;
        for i in 0..n {
            for j in 0..n {
                let k = i * n + j;
                let at = |a: Option<usize>| a.map_or(0.0, |a| u[a]);
                let up = at((i > 0).then(|| k - n));
                let down = at((i + 1 < n).then_some(k + n));
                let left = at((j > 0).then(|| k - 1));
                let right = at((j + 1 < n).then_some(k + 1));
                out[k] =
                    scale * (up + down + left + right - 4.0 * u[k]) + self.source * u[k] * u[k];
            }
        }
    }
}

impl Forces<Vec<f64>> for Heat {
    fn force(&self, u: &Vec<f64>, _t: f64) -> Vec<f64> {
        let mut out = vec![0.0; u.len()];
        self.rate(u, &mut out);
        out
    }

    fn force_into(&self, u: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        self.rate(u, out);
    }

    fn jacobian(&self, u: &Vec<f64>, _t: f64, jacobian: &mut Jacobian<'_, f64>) -> bool {
        if !self.analytic {
            return false;
        }
        for k in 0..u.len() {
            for (column, value) in self.stencil(k) {
                jacobian[(k, column)] = value;
            }
            jacobian[(k, k)] += 2.0 * self.source * u[k];
        }
        true
    }

    fn jacobian_pattern(&self, u: &Vec<f64>, pattern: &mut Pattern) -> bool {
        for k in 0..u.len() {
            for (column, _) in self.stencil(k) {
                if !(self.missing && (k, column) == (0, 1)) {
                    pattern.insert(k, column);
                }
            }
        }
        true
    }
}

/// The slowest mode on the grid, `sin(πx) sin(πy)`.
fn slowest_mode(n: usize) -> Vec<f64> {
    let h = 1.0 / (n + 1) as f64;
    (0..n * n)
        .map(|k| (PI * h * (k / n + 1) as f64).sin() * (PI * h * (k % n + 1) as f64).sin())
        .collect()
}

/// A start with every mode in it, for comparisons that are not about one mode.
fn rough_start(n: usize) -> Vec<f64> {
    (0..n * n)
        .map(|k| (k as f64 * 0.37).sin() + 0.5 * (k as f64 * 1.3).cos())
        .collect()
}

fn max_difference(a: &[f64], b: &[f64]) -> f64 {
    a.iter()
        .zip(b)
        .map(|(a, b)| (a - b).abs())
        .fold(0.0, f64::max)
}

/// Sparse and dense (finite differences and the analytic Jacobian) take the same steps,
/// to rounding and the Newton tolerance: backward Euler and Rodas4 at a fixed step,
/// Radau5, SEULEX and the BDF under error control, on a nonlinear source so that Newton iterates
/// and the Jacobian changes.
#[test]
fn sparse_and_dense_agree_for_every_implicit_family() {
    let n = 6;
    let start = rough_start(n);
    for analytic in [false, true] {
        let mut forces = Heat::new(n);
        forces.source = 3.0;
        forces.analytic = analytic;
        let fixed = |structure: Structure, rosenbrock: bool| {
            let mut u = start.clone();
            for i in 0..10 {
                let t = i as f64 * 0.002;
                if rosenbrock {
                    Stepper::new(Rodas4.with_structure(structure))
                        .step(&mut u, &forces, t, 0.002)
                        .unwrap();
                } else {
                    Stepper::new(BackwardEuler::new().with_structure(structure))
                        .step(&mut u, &forces, t, 0.002)
                        .unwrap();
                }
            }
            u
        };
        let tolerances = Tolerances::new(1e-8, 1e-8);
        let adaptive = |method: fn(Structure) -> AdaptiveKind, structure: Structure| {
            let mut u = start.clone();
            Adaptive::new(method(structure))
                .with_tolerances(tolerances)
                .solve(&mut u, &forces, 0.0, 0.02)
                .unwrap();
            u
        };
        let radau5 = |structure| AdaptiveKind::Radau5(Radau5::new().with_structure(structure));
        let seulex = |structure| AdaptiveKind::Seulex(Seulex::new().with_structure(structure));
        let bdf = |structure| AdaptiveKind::Bdf(Bdf::new().with_structure(structure));
        for (name, dense, sparse, within) in [
            (
                "backward Euler",
                fixed(Structure::Dense, false),
                fixed(Structure::Sparse, false),
                1e-9,
            ),
            (
                "Rodas4",
                fixed(Structure::Dense, true),
                fixed(Structure::Sparse, true),
                1e-9,
            ),
            (
                "Radau5",
                adaptive(radau5, Structure::Dense),
                adaptive(radau5, Structure::Sparse),
                1e-9,
            ),
            (
                "SEULEX",
                adaptive(seulex, Structure::Dense),
                adaptive(seulex, Structure::Sparse),
                1e-9,
            ),
            (
                "BDF",
                adaptive(bdf, Structure::Dense),
                adaptive(bdf, Structure::Sparse),
                1e-9,
            ),
        ] {
            let difference = max_difference(&dense, &sparse);
            assert!(
                difference <= within,
                "{name} (analytic: {analytic}): sparse and dense differ by {difference:e}"
            );
        }
    }
}

/// At `N = 100` (10⁴ unknowns) dense is refused, and sparse solves: backward Euler gives
/// `(1 − dt λ)^{−k}` of the mode after `k` steps (to the Newton tolerance), Rodas4 and
/// Radau5 `e^{λt}` to their accuracy; and `e^{λt}` is within `2·10⁻⁴` (relative) of the
/// continuous `e^{−2π² t}` (the stencil's error, `π²h²/12` of `λ`, times `2π² t`). Few
/// factorisations (backward Euler keeps its matrix; Rodas4 takes 2 steps, Radau5 one):
/// faer's LU, compiled unoptimised in a debug build, takes about 2 s for each.
#[test]
fn ten_thousand_unknowns_decay_as_the_slowest_mode() {
    let n = 100;
    let h = 1.0 / (n + 1) as f64;
    let lambda = -8.0 / (h * h) * (PI * h / 2.0).sin().powi(2);
    let forces = Heat::new(n);
    let start = slowest_mode(n);
    let t = 0.02;
    let amplitude = |u: &[f64]| {
        // The mode's coefficient, by projection.
        let dot: f64 = u.iter().zip(&start).map(|(a, b)| a * b).sum();
        dot / start.iter().map(|s| s * s).sum::<f64>()
    };
    let mut u = start.clone();
    assert_eq!(
        Stepper::new(BackwardEuler::new()).step(&mut u, &forces, 0.0, t),
        Err(StepError::DenseTooLarge {
            unknowns: n * n,
            limit: Structure::DENSE_LIMIT
        })
    );
    let exact = (lambda * t).exp();
    let continuous = (-2.0 * PI * PI * t).exp();
    assert!(((exact - continuous) / continuous).abs() < 2e-4);

    let steps = 10;
    let dt = t / steps as f64;
    let mut euler = Stepper::new(BackwardEuler::new().with_structure(Structure::Sparse));
    for k in 0..steps {
        euler.step(&mut u, &forces, k as f64 * dt, dt).unwrap();
    }
    let by_euler = (1.0 - dt * lambda).powi(-steps);
    assert!(
        (amplitude(&u) - by_euler).abs() < 1e-8,
        "backward Euler: {} vs {by_euler}",
        amplitude(&u)
    );
    // The mode stays a mode: nothing leaks into the others.
    let mode: Vec<f64> = start.iter().map(|s| s * by_euler).collect();
    assert!(max_difference(&u, &mode) < 1e-8);

    let mut u = start.clone();
    let mut rodas = Stepper::new(Rodas4.with_structure(Structure::Sparse));
    for k in 0..2 {
        rodas
            .step(&mut u, &forces, k as f64 * t / 2.0, t / 2.0)
            .unwrap();
    }
    // Rodas4 at `dt λ ≈ −0.2`: its stability function is `e^z` to `O(z⁵)`.
    assert!(
        ((amplitude(&u) - exact) / exact).abs() < 1e-5,
        "Rodas4: {} vs {exact}",
        amplitude(&u)
    );

    let mut u = start.clone();
    Stepper::new(Radau5::new().with_structure(Structure::Sparse))
        .step(&mut u, &forces, 0.0, t)
        .unwrap();
    // One step at `dt λ ≈ −0.4`: Radau IIA's stability function is `e^z` to `O(z⁶)`.
    assert!(
        ((amplitude(&u) - exact) / exact).abs() < 1e-5,
        "Radau5: {} vs {exact}",
        amplitude(&u)
    );
    assert!(((amplitude(&u) - continuous) / continuous).abs() < 2e-4);
}

/// The 5-point stencil's columns fall into 5 groups (a distance-2 colouring of the grid),
/// so a finite-difference Jacobian takes 5 force evaluations at any size: backward
/// Euler's first step costs the start's rate, its Newton residuals, 5 for the Jacobian
/// and 1 to check the pattern (against 3 + `N²` dense).
#[test]
fn the_five_point_stencil_takes_five_evaluations_per_jacobian() {
    for n in [5, 20, 60] {
        let forces = Heat::new(n);
        let mut u = rough_start(n);
        Stepper::new(BackwardEuler::new().with_structure(Structure::Sparse))
            .step(&mut u, &forces, 0.0, 1e-3)
            .unwrap();
        let sparse = forces.calls.get();
        // Rodas4 differences the state itself: 5 for the Jacobian, 1 for the check, and
        // its own stages; the same count with the analytic Jacobian is 6 fewer.
        let by_rodas = |analytic: bool| {
            let mut forces = Heat::new(n);
            forces.analytic = analytic;
            let mut u = rough_start(n);
            Stepper::new(Rodas4.with_structure(Structure::Sparse))
                .step(&mut u, &forces, 0.0, 1e-3)
                .unwrap();
            forces.calls.get()
        };
        assert_eq!(by_rodas(false) - by_rodas(true), 5, "n = {n}");
        // 1 start rate + k residuals (2 to 4 for a linear system: the differences' `√ε`
        // error leaves small corrections, more of them the stiffer the grid) + 5 + 1.
        assert!(
            (1 + 2 + 6..=1 + 4 + 6).contains(&sparse),
            "n = {n}: {sparse}"
        );
    }
}

/// A pattern without entry `(0, 1)`, which the forces have, is refused by the first step
/// (the check that refuses a band too narrow), by every family; forces that give no
/// pattern are refused too; both stop an adaptive run at once.
#[test]
fn a_pattern_missing_an_entry_is_refused() {
    let n = 8;
    let mut forces = Heat::new(n);
    forces.missing = true;
    let start = rough_start(n);
    let refused = Err(StepError::PatternTooSparse { row: 0 });
    let mut u = start.clone();
    assert_eq!(
        BackwardEuler::new()
            .with_structure(Structure::Sparse)
            .step(&mut u, &forces, 0.0, 1e-3),
        refused
    );
    assert_eq!(u, start, "a refused step leaves the state");
    assert_eq!(
        Rodas4
            .with_structure(Structure::Sparse)
            .step(&mut u, &forces, 0.0, 1e-3),
        refused
    );
    let run = Adaptive::new(Radau5::new().with_structure(Structure::Sparse))
        .solve(&mut u, &forces, 0.0, 1.0);
    assert!(
        matches!(run, Err(ref e) if e.to_string().contains("sparsity pattern")),
        "{run:?}"
    );

    // Plain closures give no pattern.
    let plain = |u: &Vec<f64>, _t: f64| u.iter().map(|x| -x).collect::<Vec<_>>();
    assert_eq!(
        BackwardEuler::new()
            .with_structure(Structure::Sparse)
            .step(&mut u, &plain, 0.0, 1e-3),
        Err(StepError::NoSparsityPattern)
    );
}

/// Forces whose analytic Jacobian writes an entry outside their pattern are stopped by a
/// panic naming it, as an entry outside a band is.
#[test]
#[should_panic(
    expected = "Jacobian index (0, 1) is outside the 4 × 4 matrix or its sparsity pattern"
)]
fn writing_outside_the_pattern_panics() {
    let mut forces = Heat::new(2);
    forces.analytic = true;
    forces.missing = true;
    let mut u = rough_start(2);
    // `(0, 1)` is missing from the pattern; the Jacobian writes it.
    let _ = BackwardEuler::new()
        .with_structure(Structure::Sparse)
        .step(&mut u, &forces, 0.0, 1e-3);
}

/// A stepper that holds a sparse LU (faer's factors and scratch memory) can still be sent
/// to and shared between threads, as one with a dense or banded matrix can.
#[test]
fn steppers_with_a_sparse_lu_are_send_and_sync() {
    fn send_and_sync<T: Send + Sync>(_: &T) {}
    let forces = Heat::new(3);
    let mut u = rough_start(3);
    let mut euler = Stepper::new(BackwardEuler::new().with_structure(Structure::Sparse));
    euler.step(&mut u, &forces, 0.0, 1e-3).unwrap();
    send_and_sync(&euler);
    let mut radau = Stepper::new(Radau5::new().with_structure(Structure::Sparse));
    radau.step(&mut u, &forces, 0.0, 1e-3).unwrap();
    send_and_sync(&radau);
}
