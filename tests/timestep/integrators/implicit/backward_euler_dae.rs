//! Backward Euler on `M y' = f(t, y)` with a constant mass matrix: each step solves
//! `M (y₁ − y₀) = dt f(t₁, y₁)` with the Newton matrix `M − dt ∂f/∂y` (Hairer–Wanner II,
//! VI.1: the implicit Euler method applied to an index-1 system `y' = f`, `0 = g` is
//! `y₁ = y₀ + h f(y₁)`, `0 = g(y₁)`, of order 1 in both parts).
//!
//! - `y₁' = −y₁ + y₂`, `0 = y₂ − sin t`: order 1 measured in `y₁`, and `y₂ = sin t` at every
//!   step's end (the algebraic equation is solved at the step's end, and it is linear);
//!   an inconsistent start and an index-2 system refused (the shared assertions of
//!   `dae.rs`).
//! - Robertson's kinetics with the conservation law as its third equation: backward Euler
//!   is stiffly accurate, so `y₁ + y₂ + y₃ = 1` to rounding at every step; and since every
//!   Runge–Kutta method keeps linear invariants, its steps on the ODE form (third equation
//!   `y₃' = 3·10⁷ y₂²`) are the same, to the Newton tolerance.
//! - `M = I` given changes no bit; a diagonal `M = diag(m)` on `m y' = −k y` gives the
//!   step `y₁ = y₀ / (1 + dt k/m)`.
//! - The trapezoidal and implicit midpoint rules and Newmark-β, which share the Newton
//!   iteration, refuse a mass matrix instead of ignoring it.

use super::dae::{
    AT_40, assert_inconsistent_start_refused_at_a_fixed_step,
    assert_index_two_refused_at_a_fixed_step, assert_linear_dae_order_at_fixed_steps,
    robertson_dae, robertson_jacobian, two_differential,
};
use timestep::{
    BackwardEuler, ImplicitMidpoint, Integrator, Jacobian, Newmark, Particle, StepError, Stepper,
    Trapezoid, WithJacobian, WithMass,
};

/// What backward Euler's start check allows an algebraic unknown of size `y`: `√ε (1 + |y|)`.
fn start_scale(y: f64) -> f64 {
    f64::EPSILON.sqrt() * (1.0 + y.abs())
}

#[test]
fn a_linear_dae_converges_at_order_one_on_its_algebraic_equation() {
    // A fresh workspace each step (the start checked every step), and a stepper's.
    assert_linear_dae_order_at_fixed_steps("BackwardEuler", BackwardEuler::new, 1.0, 1e-12);
    assert_linear_dae_order_at_fixed_steps(
        "Stepper<BackwardEuler>",
        || Stepper::new(BackwardEuler::new()),
        1.0,
        1e-12,
    );
}

#[test]
fn an_inconsistent_start_and_an_index_two_system_are_refused() {
    assert_inconsistent_start_refused_at_a_fixed_step(
        "BackwardEuler",
        BackwardEuler::new(),
        start_scale(1e-3),
    );
    assert_inconsistent_start_refused_at_a_fixed_step(
        "Stepper<BackwardEuler>",
        Stepper::new(BackwardEuler::new()),
        start_scale(1e-3),
    );
    assert_index_two_refused_at_a_fixed_step("BackwardEuler", BackwardEuler::new());
    assert_index_two_refused_at_a_fixed_step(
        "Stepper<BackwardEuler>",
        Stepper::new(BackwardEuler::new()),
    );
}

/// Robertson from `t = 0` to 40 in steps growing by 10% from 10⁻⁶ (the last one cut to end
/// at 40): `f` is the DAE's or the ODE's, `mass` whether `M = diag(1, 1, 0)` is given.
fn robertson_run(dae: bool) -> ([f64; 3], f64, usize) {
    let ode = |y: &[f64; 3], t: f64| {
        let mut rate = robertson_dae(y, t);
        rate[2] = 3e7 * y[1] * y[1];
        rate
    };
    let ode_jacobian = |y: &[f64; 3], t: f64, j: &mut Jacobian<f64>| {
        robertson_jacobian(y, t, j);
        j[(2, 0)] = 0.0;
        j[(2, 1)] = 6e7 * y[1];
        j[(2, 2)] = 0.0;
    };
    let mut solver = Stepper::new(BackwardEuler::new());
    let mut y = [1.0, 0.0, 0.0];
    let (mut t, mut dt, mut steps) = (0.0_f64, 1e-6_f64, 0);
    let mut worst: f64 = 0.0;
    while t < 40.0 {
        let h = dt.min(40.0 - t);
        if dae {
            let forces = WithMass::new(
                WithJacobian::new(robertson_dae, robertson_jacobian),
                two_differential,
            );
            solver.step(&mut y, &forces, t, h).unwrap();
        } else {
            solver
                .step(&mut y, &WithJacobian::new(ode, ode_jacobian), t, h)
                .unwrap();
        }
        worst = worst.max((y.iter().sum::<f64>() - 1.0).abs());
        t += h;
        dt *= 1.1;
        steps += 1;
    }
    (y, worst, steps)
}

#[test]
fn robertson_as_a_dae_keeps_the_sum_to_rounding_and_takes_the_ode_s_steps() {
    let (dae, dae_sum, steps) = robertson_run(true);
    let (ode, ode_sum, _) = robertson_run(false);
    println!("{steps} steps: DAE {dae:?} (|Σy − 1| ≤ {dae_sum:e}), ODE {ode:?} ({ode_sum:e})");
    // Rounding of y₀ + dt D and of the sum of three numbers up to 1: a few ulps.
    assert!(
        dae_sum <= 4.0 * f64::EPSILON,
        "the DAE's sum drifts by {dae_sum:e}"
    );
    for i in 0..3 {
        // The same steps, to the Newton tolerance (ε^(2/3) ≈ 4·10⁻¹¹) relative to y₁ ≈ 1.
        assert!(
            (dae[i] - ode[i]).abs() < 1e-9 * dae[i].abs().max(1e-4),
            "y{}: DAE {} vs ODE {}",
            i + 1,
            dae[i],
            ode[i]
        );
        // First order at steps of 10% of t: within 3% of the Test Set's values (measured
        // 0.5%, 1.5%, 1.2%).
        let relative = (dae[i] - AT_40[i]) / AT_40[i];
        assert!(
            relative.abs() < 0.03,
            "y{}(40) = {} ({relative:e})",
            i + 1,
            dae[i]
        );
    }
}

#[test]
fn an_identity_mass_matrix_changes_no_bit() {
    let spring = |y: &[f64; 2], t: f64| [y[1], -1e4 * y[0] - 10.0 * y[1] + t.cos()];
    let identity = |m: &mut Jacobian<f64>| {
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1.0;
    };
    let run = |with_mass: bool| {
        let mut y = [1.0, 0.0];
        let mut stepper = Stepper::new(BackwardEuler::new());
        let mut fresh = [1.0, 0.0];
        for i in 0..200 {
            let t = f64::from(i) * 1e-3;
            if with_mass {
                let forces = WithMass::new(spring, identity);
                stepper.step(&mut y, &forces, t, 1e-3).unwrap();
                BackwardEuler::new()
                    .step(&mut fresh, &forces, t, 1e-3)
                    .unwrap();
            } else {
                stepper.step(&mut y, &spring, t, 1e-3).unwrap();
                BackwardEuler::new()
                    .step(&mut fresh, &spring, t, 1e-3)
                    .unwrap();
            }
        }
        (y.map(f64::to_bits), fresh.map(f64::to_bits))
    };
    let (with, without) = (run(true), run(false));
    assert_ne!(with.0, [1.0_f64.to_bits(), 0]);
    assert_eq!(with, without);
}

/// `m y' = −k y` with `M = diag(m)`: backward Euler's step is `y₁ = y₀ / (1 + dt k/m)`,
/// with the Jacobian by differences and analytic.
#[test]
fn a_diagonal_mass_divides_the_rate() {
    let (k, m, dt) = (3.0, [2.0, 0.5], 0.1);
    let decay = |y: &[f64; 2], _t: f64| [-k * y[0], -k * y[1]];
    let mass = |j: &mut Jacobian<f64>| {
        j[(0, 0)] = m[0];
        j[(1, 1)] = m[1];
    };
    let jacobian = |_: &[f64; 2], _t: f64, j: &mut Jacobian<f64>| {
        j[(0, 0)] = -k;
        j[(1, 1)] = -k;
    };
    let mut by_differences = [1.0, 1.0];
    let mut analytic = [1.0, 1.0];
    let mut solver = Stepper::new(BackwardEuler::new());
    let mut exact_solver = Stepper::new(BackwardEuler::new());
    for i in 0..10 {
        let t = f64::from(i) * dt;
        solver
            .step(&mut by_differences, &WithMass::new(decay, mass), t, dt)
            .unwrap();
        exact_solver
            .step(
                &mut analytic,
                &WithMass::new(WithJacobian::new(decay, jacobian), mass),
                t,
                dt,
            )
            .unwrap();
    }
    for i in 0..2 {
        let exact = (1.0 + dt * k / m[i]).powi(-10);
        for y in [by_differences[i], analytic[i]] {
            assert!((y - exact).abs() < 1e-12 * exact, "{y} vs {exact}");
        }
    }
}

#[test]
fn the_other_one_stage_methods_refuse_a_mass_matrix() {
    let forces = WithMass::new(
        |y: &[f64; 2], _t: f64| [-y[0], -y[1]],
        |m: &mut Jacobian<f64>| {
            m[(0, 0)] = 2.0;
            m[(1, 1)] = 2.0;
        },
    );
    let mut y = [1.0, 1.0];
    assert_eq!(
        Trapezoid::new().step(&mut y, &forces, 0.0, 0.1),
        Err(StepError::MassUnsupported)
    );
    assert_eq!(
        Stepper::new(ImplicitMidpoint::new()).step(&mut y, &forces, 0.0, 0.1),
        Err(StepError::MassUnsupported)
    );
    assert_eq!(y, [1.0, 1.0]);
    let spring = WithMass::new(
        |p: &Particle<f64>, _t: f64| -p.position(),
        |m: &mut Jacobian<f64>| {
            m[(0, 0)] = 1.0;
            m[(1, 1)] = 1.0;
        },
    );
    let mut particle = Particle::new(1.0, 1.0, 0.0);
    assert_eq!(
        Newmark::new().step(&mut particle, &spring, 0.0, 0.1),
        Err(StepError::MassUnsupported)
    );
    assert_eq!(particle.position(), 1.0);
}

/// The heat equation `u_t = u_xx` on (0, 1) by linear finite elements on `n` interior
/// nodes, `h = 1/(n + 1)`: `M u' = −A u` with the tridiagonal mass matrix
/// `M = h · (1/6, 2/3, 1/6)` and stiffness `A = (1/h) · (−1, 2, −1)`.
struct FiniteElementHeat {
    n: usize,
}

impl FiniteElementHeat {
    fn h(&self) -> f64 {
        1.0 / (self.n + 1) as f64
    }
}

impl timestep::Forces<Vec<f64>> for FiniteElementHeat {
    fn force(&self, u: &Vec<f64>, t: f64) -> Vec<f64> {
        let mut out = vec![0.0; self.n];
        self.force_into(u, t, &mut out);
        out
    }

    fn force_into(&self, u: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        let h = self.h();
        for i in 0..self.n {
            let left = if i > 0 { u[i - 1] } else { 0.0 };
            let right = if i + 1 < self.n { u[i + 1] } else { 0.0 };
            out[i] = (left - 2.0 * u[i] + right) / h;
        }
    }

    fn mass_matrix(&self, mass: &mut Jacobian<'_, f64>) -> bool {
        let h = self.h();
        for i in 0..self.n {
            mass[(i, i)] = 2.0 * h / 3.0;
            if i > 0 {
                mass[(i, i - 1)] = h / 6.0;
                mass[(i - 1, i)] = h / 6.0;
            }
        }
        true
    }

    #[cfg(feature = "sparse")]
    fn jacobian_pattern(&self, _u: &Vec<f64>, pattern: &mut timestep::Pattern) -> bool {
        for i in 0..self.n {
            pattern.extend([(i, i)]);
            if i > 0 {
                pattern.extend([(i, i - 1), (i - 1, i)]);
            }
        }
        true
    }
}

/// The slowest mode `sin(π xᵢ)` is an eigenvector of both `M` and `A`, with the ratio
/// `λ = (6/h²)(1 − cos πh)/(2 + cos πh)`, so backward Euler's step
/// `(M + dt A) u₁ = M u₀` multiplies it by exactly `1/(1 + dt λ)`: the mass matrix read
/// dense, banded (tridiagonal) and sparse gives that to the Newton tolerance.
#[test]
fn a_banded_finite_element_mass_matrix_gives_the_discrete_decay() {
    let heat = FiniteElementHeat { n: 50 };
    let (h, dt, steps) = (heat.h(), 0.01, 20);
    let pi = std::f64::consts::PI;
    let lambda = 6.0 / (h * h) * (1.0 - (pi * h).cos()) / (2.0 + (pi * h).cos());
    // The continuous problem's π², to O(h²).
    assert!((lambda - pi * pi).abs() < 1e-3 * pi * pi);
    let factor = (1.0 + dt * lambda).powi(-steps);
    let mut structures = vec![
        timestep::Structure::Dense,
        timestep::Structure::Banded { lower: 1, upper: 1 },
    ];
    if cfg!(feature = "sparse") {
        structures.push(timestep::Structure::Sparse);
    }
    for structure in structures {
        let mut u: Vec<f64> = (1..=heat.n).map(|i| (pi * i as f64 * h).sin()).collect();
        let mut solver = Stepper::new(BackwardEuler::new().with_structure(structure));
        for i in 0..steps {
            solver.step(&mut u, &heat, f64::from(i) * dt, dt).unwrap();
        }
        for (i, &value) in u.iter().enumerate() {
            let exact = factor * (pi * (i + 1) as f64 * h).sin();
            assert!(
                (value - exact).abs() < 1e-9,
                "{structure:?}: u{i} = {value}, not {exact}"
            );
        }
    }
}
