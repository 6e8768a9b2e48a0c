//! Backward Euler with matrix-free GMRES in its Newton iteration
//! ([`BackwardEuler::with_linear_solver`]) against the same method with its banded LU, on
//! the 1-D heat equation `u' = Δu` on `N = 1000` points, at steps 200 and 2000 times the
//! explicit limit `dx²/2`. A backward Euler step multiplies the sine mode `k` by
//! `1/(1 − dt λₖ)`, `λₖ = −(2 − 2 cos(kπ/(N + 1)))(N + 1)²` the exact eigenvalue of the
//! discrete Laplacian, so a sum of modes has a closed form after any number of steps;
//! a rough start (a box) makes GMRES work, and must end where the direct solve ends, to
//! the Newton tolerance. The tridiagonal `I − dt J` as preconditioner (a band, or the
//! forces' own by Thomas' algorithm) is the exact inverse: one Krylov iteration per solve,
//! far fewer than without (whose residual, weighted as Newton's test weighs it, takes
//! thousands at condition 400). A stiff torsion spring, where Newton's Jacobian moves within
//! the step, still converges; a mass matrix is refused.

use super::torsion_spring::rotation_vector;
use approx::assert_relative_eq;
use glam::{DQuat, DVec3};
use std::f64::consts::PI;
use timestep::rigid::{DRigidBody, Inertia};
use timestep::{
    BackwardEuler, DerivativeOf, Forces, Gmres, Integrator, Jacobian, LinearSolver, Preconditioner,
    Side, StepError, Stepper, Structure, Trapezoid, WithMass,
};

const N: usize = 1000;
/// 2000 times the explicit limit `dx²/2`.
const DT: f64 = 1e-3;
const STEPS: usize = 20;
const TRIDIAGONAL: Structure = Structure::Banded { lower: 1, upper: 1 };

/// `u'ᵢ = (uᵢ₋₁ − 2uᵢ + uᵢ₊₁)(N + 1)²` with `u = 0` beyond both ends; with its `J v` and,
/// as its preconditioner, `(I − γJ)⁻¹` by Thomas' algorithm, when `analytic`.
struct Heat {
    analytic: bool,
}

fn scale() -> f64 {
    ((N + 1) * (N + 1)) as f64
}

/// `out ← s (v[i−1] − 2 v[i] + v[i+1])`.
fn laplacian(v: &[f64], out: &mut [f64]) {
    let s = scale();
    for i in 0..N {
        let left = if i > 0 { v[i - 1] } else { 0.0 };
        let right = if i + 1 < N { v[i + 1] } else { 0.0 };
        out[i] = s * (left - 2.0 * v[i] + right);
    }
}

impl Forces<Vec<f64>> for Heat {
    fn force(&self, u: &Vec<f64>, _t: f64) -> Vec<f64> {
        let mut out = vec![0.0; N];
        laplacian(u, &mut out);
        out
    }

    fn force_into(&self, u: &Vec<f64>, _t: f64, out: &mut Vec<f64>) {
        laplacian(u, out);
    }

    fn jacobian_times(
        &self,
        _u: &Vec<f64>,
        _t: f64,
        v: &DerivativeOf<Vec<f64>>,
        out: &mut DerivativeOf<Vec<f64>>,
    ) -> bool {
        // A first-order state's rates are the `force` part of a `Derivative`.
        if self.analytic {
            laplacian(&v.force, &mut out.force);
        }
        self.analytic
    }

    fn precondition(
        &self,
        _u: &Vec<f64>,
        _t: f64,
        gamma: f64,
        r: &DerivativeOf<Vec<f64>>,
        z: &mut DerivativeOf<Vec<f64>>,
    ) -> bool {
        if !self.analytic {
            return false;
        }
        let (r, z) = (&r.force, &mut z.force);
        // I − γJ: off-diagonals −γs, diagonal 1 + 2γs.
        let s = scale();
        crate::common::thomas(-gamma * s, |_| 1.0 + 2.0 * gamma * s, r, z);
        true
    }
}

/// The exact eigenvalue of mode `k` of the discrete Laplacian.
fn eigenvalue(k: usize) -> f64 {
    -(2.0 - 2.0 * (k as f64 * PI / (N + 1) as f64).cos()) * scale()
}

/// Sine mode `k` on the grid.
fn mode(k: usize) -> Vec<f64> {
    (1..=N)
        .map(|i| (k as f64 * PI * i as f64 / (N + 1) as f64).sin())
        .collect()
}

/// `STEPS` steps of `dt` by `method` from `u`, and the Krylov iterations they made.
fn run(method: BackwardEuler, forces: &Heat, mut u: Vec<f64>, dt: f64) -> (Vec<f64>, u64) {
    let mut stepper = Stepper::new(method);
    for i in 0..STEPS {
        stepper.step(&mut u, forces, i as f64 * dt, dt).unwrap();
    }
    (u, stepper.workspace().unwrap().linear_iterations())
}

fn gmres(gmres: Gmres) -> BackwardEuler {
    BackwardEuler::new().with_linear_solver(LinearSolver::Gmres(gmres))
}

const BANDED: Preconditioner = Preconditioner::Banded { lower: 1, upper: 1 };

/// Modes 1 and 300 (`dt λ₃₀₀ ≈ −810`: stiff) decay as `(1 − dt λₖ)⁻ⁿ` to 10⁻⁸ of the
/// start's size at the default Newton tolerance, preconditioned by the band (on the left,
/// `J v` differenced) or by the forces (on the right, their own `J v`).
#[test]
fn gmres_steps_decay_sine_modes_as_the_closed_form() {
    let (slow, fast) = (mode(1), mode(300));
    let start: Vec<f64> = slow.iter().zip(&fast).map(|(a, b)| a + 0.5 * b).collect();
    let decay = |k: usize| (1.0 - DT * eigenvalue(k)).powi(-(STEPS as i32));
    assert!(DT * eigenvalue(300) < -800.0);
    let expected: Vec<f64> = slow
        .iter()
        .zip(&fast)
        .map(|(a, b)| a * decay(1) + 0.5 * b * decay(300))
        .collect();
    for (settings, analytic) in [
        (Gmres::new().with_preconditioner(BANDED, Side::Left), false),
        (
            Gmres::new().with_preconditioner(Preconditioner::User, Side::Right),
            true,
        ),
    ] {
        let forces = Heat { analytic };
        let (u, iterations) = run(gmres(settings), &forces, start.clone(), DT);
        for (u, e) in u.iter().zip(&expected) {
            assert!((u - e).abs() <= 1e-8, "{u} vs {e} ({settings:?})");
        }
        assert!(iterations > 0, "{settings:?}");
    }
}

/// A box `u₀ = 1` on `(0.3, 0.6]` has every mode in it. At `dt = 10⁻⁴` (200 times the
/// explicit limit, `I − dt J` of condition 400) GMRES (40 iterations a cycle, up to 10
/// restarts) without a preconditioner, with the tridiagonal band on the left, and with the
/// forces' Thomas solve on the right, all end where the banded LU ends, to the Newton
/// tolerance (10⁻¹⁰ relative, `10⁻¹⁰ (1 + |Dᵢ| + |yᵢ|/dt)` per coordinate and step); the
/// preconditioned solves take one Krylov iteration each, the bare one many.
#[test]
fn gmres_ends_where_the_banded_lu_ends() {
    let dt = 1e-4;
    let start: Vec<f64> = (1..=N)
        .map(|i| {
            let x = i as f64 / (N + 1) as f64;
            if x > 0.3 && x <= 0.6 { 1.0 } else { 0.0 }
        })
        .collect();
    let tolerance = 1e-10;
    let forces = Heat { analytic: true };
    let direct = BackwardEuler::new()
        .with_structure(TRIDIAGONAL)
        .with_tolerance(tolerance);
    let (reference, none) = run(direct, &forces, start.clone(), dt);
    assert_eq!(none, 0);
    let krylov = Gmres::new().with_max_dimension(40).with_restarts(10);
    let bare = gmres(krylov).with_tolerance(tolerance);
    let (u, bare_iterations) = run(bare, &Heat { analytic: false }, start.clone(), dt);
    for (u, r) in u.iter().zip(&reference) {
        assert_relative_eq!(u, r, epsilon = 1e-9, max_relative = 1e-9);
    }
    let banded = krylov.with_preconditioner(BANDED, Side::Left);
    let user = krylov.with_preconditioner(Preconditioner::User, Side::Right);
    for preconditioned in [banded, user] {
        let method = gmres(preconditioned).with_tolerance(tolerance);
        let (u, iterations) = run(method, &forces, start.clone(), dt);
        for (u, r) in u.iter().zip(&reference) {
            assert_relative_eq!(u, r, epsilon = 1e-9, max_relative = 1e-9);
        }
        // One iteration a Newton iteration (a correction and its check), a few steps
        // a third.
        assert!(
            iterations <= 3 * STEPS as u64,
            "{iterations} with {preconditioned:?}"
        );
        assert!(
            10 * iterations < bare_iterations,
            "{iterations} preconditioned, {bare_iterations} bare"
        );
    }
}

/// The trapezoidal rule takes GMRES from the same settings: its operator is
/// `I − (dt/2) J` (and so is the band it preconditions with), and a sine mode decays by
/// `(1 + dt λ/2)/(1 − dt λ/2)` a step.
#[test]
fn the_trapezoidal_rule_takes_gmres_too() {
    let settings = Gmres::new().with_preconditioner(BANDED, Side::Left);
    let method = Trapezoid::new().with_linear_solver(LinearSolver::Gmres(settings));
    let mut u = mode(3);
    let mut stepper = Stepper::new(method);
    for i in 0..STEPS {
        stepper
            .step(&mut u, &Heat { analytic: false }, i as f64 * DT, DT)
            .unwrap();
    }
    let z = DT * eigenvalue(3);
    let decay = ((1.0 + z / 2.0) / (1.0 - z / 2.0)).powi(STEPS as i32);
    for (u, s) in u.iter().zip(mode(3)) {
        assert!((u - decay * s).abs() <= 1e-8, "{u} vs {}", decay * s);
    }
    assert!(stepper.workspace().unwrap().linear_iterations() > 0);
}

/// The torsion spring of `torsion_spring.rs` (`k = 10⁶`, turned by half a radian, 60 Hz),
/// whose Jacobian at the end of a frame is far from the one at its start: with GMRES on
/// the body's 13 unknowns (a full Krylov space) every frame converges, to the direct
/// solver's angle within 10⁻⁹ of the swing, and the spring's energy falls away.
#[test]
fn gmres_steps_a_stiff_torsion_spring() {
    let k = 1e6;
    let spring =
        move |body: &DRigidBody, _t: f64| (DVec3::ZERO, -k * rotation_vector(body.orientation()));
    let start = {
        let mut body = DRigidBody::new(1.0, Inertia::sphere(1.0, 1.0));
        body.set_orientation(DQuat::from_rotation_z(0.5));
        body
    };
    let method = gmres(Gmres::new().with_max_dimension(13));
    let (mut krylov, mut direct) = (Stepper::new(method), Stepper::new(BackwardEuler::new()));
    let (mut a, mut b) = (start, start);
    let dt = 1.0 / 60.0;
    let scale = 0.5 * (1.0 + (k / 0.4_f64).sqrt() * dt);
    for frame in 0..60 {
        let t = f64::from(frame) * dt;
        krylov
            .step(&mut a, &spring, t, dt)
            .unwrap_or_else(|error| panic!("frame {frame}: {error}"));
        direct.step(&mut b, &spring, t, dt).unwrap();
        let (ta, tb) = (
            rotation_vector(a.orientation()),
            rotation_vector(b.orientation()),
        );
        assert!(
            (ta - tb).length() < 1e-9 * scale,
            "frame {frame}: {ta} vs {tb}"
        );
    }
    assert!(rotation_vector(a.orientation()).length() < 0.5e-6);
}

/// A mass matrix other than the identity is refused: GMRES's operator is `I − dt J`.
/// The identity written out is taken, and changes nothing.
#[test]
fn gmres_refuses_a_mass_matrix() {
    let decay = |y: &[f64; 2], _t: f64| [-y[0], -2.0 * y[1]];
    let method = gmres(Gmres::new());
    let mut y = [1.0, 1.0];
    let dae = WithMass::new(decay, |m: &mut Jacobian<f64>| m[(0, 0)] = 1.0);
    let mut stepper = Stepper::new(method);
    assert_eq!(
        stepper.step(&mut y, &dae, 0.0, 0.1),
        Err(StepError::MassWithGmres)
    );
    assert_eq!(y, [1.0, 1.0]);
    let identity = WithMass::new(decay, |m: &mut Jacobian<f64>| {
        m[(0, 0)] = 1.0;
        m[(1, 1)] = 1.0;
    });
    let mut stepper = Stepper::new(method);
    stepper.step(&mut y, &identity, 0.0, 0.1).unwrap();
    assert_relative_eq!(y[0], 1.0 / 1.1, max_relative = 1e-10);
    assert_relative_eq!(y[1], 1.0 / 1.2, max_relative = 1e-10);
}

/// The forces' preconditioner asked for and not given is a clear error.
#[test]
fn a_missing_preconditioner_is_refused() {
    let method = gmres(Gmres::new().with_preconditioner(Preconditioner::User, Side::Left));
    let mut u = mode(1);
    let error = Stepper::new(method)
        .step(&mut u, &Heat { analytic: false }, 0.0, DT)
        .unwrap_err();
    assert_eq!(error, StepError::NoPreconditioner);
    assert_eq!(u, mode(1));
}
