//! The Newton convergence control every implicit method shares (radau5.f's, Hairer &
//! Wanner II, IV.8, (8.10)–(8.11)), seen through backward Euler on `y' = λ(t) y` with the
//! analytic Jacobian `λ`, where every number is in closed form.
//!
//! Backward Euler's rate `D` solves `r(D) = D − λ (y₀ + D dt) = 0`, so `D = λ y₀/(1 − λ dt)`,
//! and its Newton matrix is `1 − λ dt`. Simplified Newton with the matrix `1 − λ' dt` of
//! another `λ'` maps the error `e` of `D` to `(1 − (1 − λ dt)/(1 − λ' dt)) e`: it contracts
//! by `θ = |1 − (1 − λ dt)/(1 − λ' dt)|` per iteration, exactly (0 for the step's own
//! matrix). With `dt = 1` and `λ` from −3 to −2 the numbers are dyadic, so the iterates are
//! exact and so is what the tests compare.

use std::cell::Cell;
use timestep::{BackwardEuler, Integrator, Jacobian, Stepper, WithJacobian};

/// `y' = λ(t) y` with its Jacobian, counting evaluations of each: `λ(t)` is `before` up to
/// `switch` and `after` beyond it.
struct Decay {
    before: f64,
    after: f64,
    switch: f64,
    evaluations: Cell<usize>,
    jacobians: Cell<usize>,
}

impl Decay {
    fn new(before: f64, after: f64, switch: f64) -> Self {
        Decay {
            before,
            after,
            switch,
            evaluations: Cell::new(0),
            jacobians: Cell::new(0),
        }
    }

    fn lambda(&self, t: f64) -> f64 {
        if t <= self.switch {
            self.before
        } else {
            self.after
        }
    }

    /// Steps `stepper` from `t` by `dt`; the evaluations and Jacobians the step took.
    fn step(
        &self,
        stepper: &mut Stepper<BackwardEuler, f64>,
        y: &mut f64,
        t: f64,
    ) -> (usize, usize) {
        let (evaluations, jacobians) = (self.evaluations.get(), self.jacobians.get());
        let forces = WithJacobian::new(
            |y: &f64, t: f64| {
                self.evaluations.set(self.evaluations.get() + 1);
                self.lambda(t) * y
            },
            |_: &f64, t: f64, j: &mut Jacobian<f64>| {
                self.jacobians.set(self.jacobians.get() + 1);
                j[(0, 0)] = self.lambda(t);
            },
        );
        stepper.step(y, &forces, t, 1.0).unwrap();
        (
            self.evaluations.get() - evaluations,
            self.jacobians.get() - jacobians,
        )
    }
}

fn contraction(stepper: &Stepper<BackwardEuler, f64>) -> f64 {
    stepper.workspace().unwrap().contraction()
}

/// With the step's own matrix a linear problem's first correction is its solution: the
/// second correction is zero, `θ = 0`, and the step stops there. The first step evaluates
/// the start's rate and two iterates; the next ones, starting from the last step's rate
/// with its matrix kept (`θ ≤ 0.001`), the two iterates alone, and no Jacobian.
#[test]
fn the_exact_matrix_converges_in_one_iteration() {
    let decay = Decay::new(-3.0, -3.0, f64::INFINITY);
    let mut stepper = Stepper::new(BackwardEuler::new());
    let mut y = 1.0;
    assert_eq!(decay.step(&mut stepper, &mut y, 0.0), (3, 1));
    assert_eq!(contraction(&stepper), 0.0);
    for n in 1..10 {
        assert_eq!(decay.step(&mut stepper, &mut y, f64::from(n)), (2, 0));
        assert_eq!(contraction(&stepper), 0.0);
    }
    // y_n = (1/(1 − λ dt))ⁿ = 4⁻ⁿ, to the bit.
    assert_eq!(y, 0.25_f64.powi(10));
}

/// The matrix kept from a step at `λ' = −3` serves a step at `λ = −2`: it contracts by
/// `θ = |1 − 3/4| = 1/4`, measured from the corrections' norms to within what the
/// tolerance leaves of them; the step still lands on its solution, and the matrix is not
/// kept for the step after (`θ > 0.001`).
///
/// radau5.f would judge this step's first correction by the last step's `θ` (0 here) and
/// stop at once, at `y₂ = −1/16`: with no error estimate behind a fixed step, the
/// one-stage methods do not.
#[test]
fn a_stale_matrix_contracts_by_the_closed_form() {
    let decay = Decay::new(-3.0, -2.0, 1.5);
    let mut stepper = Stepper::new(BackwardEuler::new().with_max_iterations(40));
    let mut y = 1.0;
    assert_eq!(decay.step(&mut stepper, &mut y, 0.0), (3, 1));
    assert_eq!(y, 0.25);
    let (evaluations, jacobians) = decay.step(&mut stepper, &mut y, 1.0);
    let theta = (1.0_f64 - 3.0 / 4.0).abs();
    approx::assert_relative_eq!(contraction(&stepper), theta, max_relative = 1e-9);
    assert_eq!(jacobians, 0, "the kept matrix");
    // The error 7/12 of the rate shrinks fourfold an iteration to the tolerance's
    // ε^(2/3) ≈ 3.7·10⁻¹¹: some twenty iterations.
    assert!(
        (15..=25).contains(&evaluations),
        "{evaluations} evaluations"
    );
    // y₂ = y₁/(1 − λ dt) = 1/12, to the tolerance.
    approx::assert_relative_eq!(y, 1.0 / 12.0, max_relative = 1e-10);
    // θ = 1/4 is above radau5.f's THET: the next step makes its matrix anew.
    assert_eq!(decay.step(&mut stepper, &mut y, 2.0).1, 1);
}

/// A kept matrix far from the step's own (`λ' = −1`, `λ = −1000`: `θ = 499.5`) diverges
/// on its second iteration (`θ ≥ 0.99`); the step falls back to a matrix made anew from
/// the start's rate, which is exact, and succeeds: two evaluations for the diverged
/// attempt, three for the fresh one, one Jacobian.
#[test]
fn a_divergent_iteration_falls_back_and_the_step_succeeds() {
    let decay = Decay::new(-1.0, -1000.0, 1.5);
    let mut stepper = Stepper::new(BackwardEuler::new());
    let mut y = 1.0;
    assert_eq!(decay.step(&mut stepper, &mut y, 0.0), (3, 1));
    assert_eq!(y, 0.5);
    assert_eq!(decay.step(&mut stepper, &mut y, 1.0), (2 + 3, 1));
    assert!(
        contraction(&stepper) <= 1e-3,
        "θ = {}",
        contraction(&stepper)
    );
    approx::assert_relative_eq!(y, 0.5 / 1001.0, max_relative = 1e-15);
}
