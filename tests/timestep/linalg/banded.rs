//! Large implicit solves: backward Euler with a banded Jacobian costs `O(n)` per Newton
//! iteration. Finite differences perturb the columns a band keeps apart together, so a
//! tridiagonal system needs 3 force evaluations per Jacobian whatever its size; the banded
//! LU gives the dense LU's answer; and a 10⁵-unknown heat equation steps in a thread with a
//! 2 MiB stack.

use std::cell::Cell;
use timestep::{BackwardEuler, InPlace, Integrator, Jacobian, Stepper, Structure, WithJacobian};

const TRIDIAGONAL: Structure = Structure::Banded { lower: 1, upper: 1 };

/// `u'ᵢ = c (uᵢ₋₁ − 2uᵢ + uᵢ₊₁)` with `u = 0` beyond both ends, counting evaluations.
fn diffusion(c: f64, calls: &Cell<usize>) -> impl Fn(&Vec<f64>, f64, &mut Vec<f64>) + '_ {
    move |u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| {
        calls.set(calls.get() + 1);
        let n = u.len();
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            du[i] = c * (left - 2.0 * u[i] + right);
        }
    }
}

/// A step costs the rate at the start, one residual per Newton iteration, and one Jacobian
/// (kept while the iteration contracts), which banded takes 3 evaluations for 10 unknowns
/// or 10 000: `1 + k + 3` for `k` iterations (a linear system takes 2 or 3: the
/// finite-difference Jacobian's `√ε` error leaves a second correction of about 10⁻⁸, and a
/// third may be needed to get below the tolerance), and one more on a workspace's first
/// Jacobian, which checks the band against the forces. Dense, the Jacobian takes one
/// evaluation per unknown, and nothing is checked.
#[test]
fn a_tridiagonal_jacobian_costs_three_evaluations_whatever_the_size() {
    for n in [10, 1000, 10_000] {
        let calls = Cell::new(0);
        let forces = InPlace(diffusion(1.0, &calls));
        let mut u: Vec<f64> = (0..n).map(|i| (i as f64 * 0.01).sin()).collect();
        let mut solver = Stepper::new(BackwardEuler::new().with_structure(TRIDIAGONAL));
        solver.step(&mut u, &forces, 0.0, 0.5).unwrap();
        assert!(
            [7, 8].contains(&calls.get()),
            "n = {n}: {} evaluations",
            calls.get()
        );
    }
    let calls = Cell::new(0);
    let forces = InPlace(diffusion(1.0, &calls));
    let mut u: Vec<f64> = (0..40).map(|i| (i as f64 * 0.1).sin()).collect();
    BackwardEuler::new()
        .step(&mut u, &forces, 0.0, 0.5)
        .unwrap();
    assert!(
        [1 + 2 + 40, 1 + 3 + 40].contains(&calls.get()),
        "{}",
        calls.get()
    );
}

/// Banded and dense, finite differences and the analytic Jacobian: the same answer, which
/// is the exact solution of the linear backward Euler step `(I − dt A) u₁ = u₀` (checked
/// by multiplying back).
#[test]
fn banded_and_dense_solves_agree_and_solve_the_step() {
    let n = 60;
    let dt = 0.3;
    let calls = Cell::new(0);
    let finite_differences = InPlace(diffusion(2.0, &calls));
    let analytic = WithJacobian::new(
        InPlace(diffusion(2.0, &calls)),
        |u: &Vec<f64>, _t: f64, j: &mut Jacobian<f64>| {
            for i in 0..u.len() {
                j[(i, i)] = -4.0;
                if i > 0 {
                    j[(i, i - 1)] = 2.0;
                }
                if i + 1 < u.len() {
                    j[(i, i + 1)] = 2.0;
                }
            }
        },
    );
    let start: Vec<f64> = (0..n).map(|i| ((i * i) as f64 * 0.013).cos()).collect();
    let mut results = Vec::new();
    for structure in [Structure::Dense, TRIDIAGONAL] {
        let solver = BackwardEuler::new()
            .with_structure(structure)
            .with_tolerance(1e-13);
        let mut u = start.clone();
        Stepper::new(solver)
            .step(&mut u, &finite_differences, 0.0, dt)
            .unwrap();
        results.push(u);
        let mut u = start.clone();
        Stepper::new(solver)
            .step(&mut u, &analytic, 0.0, dt)
            .unwrap();
        results.push(u);
    }
    for u in &results {
        for i in 0..n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < n { u[i + 1] } else { 0.0 };
            let back = u[i] - dt * 2.0 * (left - 2.0 * u[i] + right);
            assert!(
                (back - start[i]).abs() < 1e-11,
                "row {i}: {back} vs {}",
                start[i]
            );
        }
        for (a, b) in u.iter().zip(&results[0]) {
            assert!((a - b).abs() < 1e-11);
        }
    }
}

/// 10⁵ unknowns in a thread with a 2 MiB stack (the default for spawned threads, rayon's
/// and the test harness's): nothing of the solve lives on the stack.
#[test]
fn a_hundred_thousand_unknowns_in_a_two_mebibyte_thread() {
    let decayed = std::thread::Builder::new()
        .stack_size(2 << 20)
        .spawn(|| {
            let n = 100_000;
            let dx = 1.0 / (n + 1) as f64;
            let calls = Cell::new(0);
            let heat = InPlace(diffusion(1.0 / (dx * dx), &calls));
            let pi = std::f64::consts::PI;
            let mut u: Vec<f64> = (1..=n).map(|i| (pi * i as f64 * dx).sin()).collect();
            let mut solver = Stepper::new(BackwardEuler::new().with_structure(TRIDIAGONAL));
            let dt = 1e-3;
            for i in 0..5 {
                solver.step(&mut u, &heat, i as f64 * dt, dt).unwrap();
            }
            u[n / 2]
        })
        .unwrap()
        .join()
        .unwrap();
    // Five steps of backward Euler on the slowest mode: (1 + π² dt)⁻⁵, to O(dx²).
    let pi = std::f64::consts::PI;
    let expected = (1.0 + pi * pi * 1e-3_f64).powi(-5);
    assert!((decayed - expected).abs() < 1e-6, "{decayed} vs {expected}");
}

/// Through a [`Stepper`] the factored matrix is kept from step to step while `dt` stays
/// the same: on the heat equation (linear, so one matrix serves every step) the Jacobian is
/// asked for once in 20 steps, and once more when `dt` changes; a step costs two residuals
/// (a correction and its check), and the first also the rate at its start (the others
/// start from the last step's rate). Forces declared linear
/// ([`BackwardEuler::with_linear_forces`]) skip the check: one residual per step. Every
/// step is still the exact solution of the linear backward Euler step `(I − dt A) u₁ = u₀`,
/// to the Newton tolerance (checked by multiplying back).
#[test]
fn a_stepper_keeps_the_factored_matrix_while_dt_stays() {
    let n = 200;
    let c = 1e4;
    let calls = Cell::new(0);
    let jacobians = Cell::new(0);
    let forces = WithJacobian::new(
        InPlace(diffusion(c, &calls)),
        |u: &Vec<f64>, _t: f64, j: &mut Jacobian<f64>| {
            jacobians.set(jacobians.get() + 1);
            for i in 0..u.len() {
                j[(i, i)] = -2.0 * c;
                if i > 0 {
                    j[(i, i - 1)] = c;
                }
                if i + 1 < u.len() {
                    j[(i, i + 1)] = c;
                }
            }
        },
    );
    let iterated = BackwardEuler::new().with_structure(TRIDIAGONAL);
    for (method, residuals) in [(iterated, 2), (iterated.with_linear_forces(), 1)] {
        let mut u: Vec<f64> = (0..n).map(|i| (i as f64 * 0.05).sin() + 1.0).collect();
        let mut solver = Stepper::new(method);
        let mut t = 0.0;
        jacobians.set(0);
        for (dt, steps, expected_jacobians) in [(1e-3, 20, 1), (2e-3, 10, 2)] {
            for _ in 0..steps {
                let start = u.clone();
                calls.set(0);
                solver.step(&mut u, &forces, t, dt).unwrap();
                // The first step also makes the Jacobian and checks its band.
                let expected = if t == 0.0 { residuals + 2 } else { residuals };
                assert_eq!(calls.get(), expected, "{method:?}: evaluations at t = {t}");
                t += dt;
                let largest = start.iter().fold(0.0_f64, |m, x| m.max(x.abs()));
                for i in 0..n {
                    let left = if i > 0 { u[i - 1] } else { 0.0 };
                    let right = if i + 1 < n { u[i + 1] } else { 0.0 };
                    let back = u[i] - dt * c * (left - 2.0 * u[i] + right);
                    assert!(
                        (back - start[i]).abs() <= 1e-9 * largest,
                        "{method:?}, dt = {dt}, row {i}: {back} vs {}",
                        start[i]
                    );
                }
            }
            assert_eq!(jacobians.get(), expected_jacobians, "{method:?}, dt = {dt}");
        }
    }
}

/// Forces declared linear but with no Jacobian of their own are iterated to the tolerance as
/// usual (a finite-difference Jacobian is exact only to `√ε`): the same evaluations and
/// the same result, bit for bit, as undeclared.
#[test]
fn linear_forces_without_a_jacobian_are_iterated() {
    let calls = Cell::new(0);
    let forces = InPlace(diffusion(1e4, &calls));
    let start: Vec<f64> = (0..100).map(|i| (i as f64 * 0.05).sin() + 1.0).collect();
    let run = |method: BackwardEuler| {
        let mut u = start.clone();
        let mut solver = Stepper::new(method.with_structure(TRIDIAGONAL));
        calls.set(0);
        for i in 0..10 {
            solver
                .step(&mut u, &forces, f64::from(i) * 1e-3, 1e-3)
                .unwrap();
        }
        (u, calls.get())
    };
    let (iterated, iterated_calls) = run(BackwardEuler::new());
    let (declared, declared_calls) = run(BackwardEuler::new().with_linear_forces());
    assert_eq!(iterated, declared);
    assert_eq!(iterated_calls, declared_calls);
    assert!(
        iterated_calls > 20,
        "{iterated_calls} evaluations in 10 steps"
    );
}

/// A kept matrix that no longer fits (the forces made stiffer by hand between two steps of
/// one stepper, twice or a hundred times) is made anew: the step is still the exact
/// backward Euler step `y₁ = y₀ / (1 + k dt)` of the new forces, to the Newton tolerance
/// (`ε^(2/3)`, 5·10⁻¹¹, relative to `|y|` and `|y'| dt`). With two iterations
/// allowed, the kept matrix alone does not converge, and the step is solved again with a
/// new one before any error.
#[test]
fn a_kept_matrix_that_no_longer_fits_is_made_anew() {
    let k = Cell::new(1.0);
    let forces = WithJacobian::new(
        |y: &f64, _t: f64| -k.get() * y,
        |_: &f64, _t: f64, j: &mut Jacobian<f64>| j[(0, 0)] = -k.get(),
    );
    for stiffer in [2.0, 100.0] {
        for max_iterations in [2, BackwardEuler::DEFAULT_MAX_ITERATIONS] {
            let mut solver = Stepper::new(BackwardEuler::new().with_max_iterations(max_iterations));
            let (mut y, dt) = (1.0_f64, 0.1);
            k.set(1.0);
            for i in 0..3 {
                let y0 = y;
                solver.step(&mut y, &forces, f64::from(i) * dt, dt).unwrap();
                assert!((y - y0 / (1.0 + dt)).abs() <= 1e-12 * y0, "{y}");
            }
            k.set(stiffer);
            let y0 = y;
            solver.step(&mut y, &forces, 0.3, dt).unwrap();
            let exact = y0 / (1.0 + stiffer * dt);
            assert!(
                (y - exact).abs() <= 1e-10 * y0,
                "k = {stiffer}, max_iterations {max_iterations}: {y} vs {exact}"
            );
        }
    }
}

/// Steps between times `tᵢ = t₀ + i·dt`, whose lengths `tᵢ₊₁ − tᵢ` differ in their last bits,
/// keep one matrix (asked for once in 50 steps); a step a ten-thousandth longer makes a new
/// one. Each step is the exact backward Euler step `y₁ = y₀ / (1 + k h)` of its length `h`.
#[test]
fn steps_that_differ_by_rounding_keep_the_matrix() {
    let k = 3.0;
    let jacobians = Cell::new(0);
    let forces = WithJacobian::new(
        |y: &f64, _t: f64| -k * y,
        |_: &f64, _t: f64, j: &mut Jacobian<f64>| {
            jacobians.set(jacobians.get() + 1);
            j[(0, 0)] = -k;
        },
    );
    let mut solver = Stepper::new(BackwardEuler::new());
    let (t0, dt) = (0.1, 1e-3);
    let mut y = 1.0_f64;
    let lengths: Vec<f64> = (0..50)
        .map(|i| (t0 + f64::from(i + 1) * dt) - (t0 + f64::from(i) * dt))
        .collect();
    assert!(
        lengths.iter().any(|&h| h != dt),
        "the lengths differ in their last bits"
    );
    let mut t = t0;
    for h in lengths {
        let y0 = y;
        solver.step(&mut y, &forces, t, h).unwrap();
        assert!((y - y0 / (1.0 + k * h)).abs() <= 1e-12 * y0);
        t += h;
    }
    assert_eq!(jacobians.get(), 1);
    solver.step(&mut y, &forces, t, dt * (1.0 + 1e-4)).unwrap();
    assert_eq!(jacobians.get(), 2);
}
