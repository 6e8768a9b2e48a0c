//! Forward sensitivities under the BDF with matrix-free GMRES: [`Forward`] forwards the
//! model's tangent as the Jacobian product of every block and the model's preconditioner
//! ([`Model::precondition`]) to every block, so a large sensitivity system is solved as the
//! plain one is. Checked against the same BDF with its direct LU, and by the linear
//! iterations the preconditioner saves.

use approx::assert_relative_eq;
use timestep::sensitivity::{Augmented, Forward, Model, Stacked, WithRespectTo};
use timestep::{Adaptive, Bdf, Gmres, LinearSolver, Preconditioner, Side, Statistics, Tolerances};

const N: usize = 40;

/// `u' = D Δu + u²` on `N` points of (0, 1), `u = 0` at both ends, `p = (D)`.
#[derive(Debug)]
struct ReactionDiffusion;

fn laplacian(u: &[f64], i: usize) -> f64 {
    let left = if i > 0 { u[i - 1] } else { 0.0 };
    let right = if i + 1 < N { u[i + 1] } else { 0.0 };
    ((N + 1) * (N + 1)) as f64 * (left - 2.0 * u[i] + right)
}

impl Model<Vec<f64>> for ReactionDiffusion {
    fn rate(&self, u: &Vec<f64>, p: &[f64], _t: f64, out: &mut Vec<f64>) {
        for i in 0..N {
            out[i] = p[0] * laplacian(u, i) + u[i] * u[i];
        }
    }

    fn tangent(
        &self,
        u: &Vec<f64>,
        p: &[f64],
        _t: f64,
        du: &Vec<f64>,
        dp: &[f64],
        out: &mut Vec<f64>,
    ) -> bool {
        for i in 0..N {
            out[i] = p[0] * laplacian(du, i) + 2.0 * u[i] * du[i] + dp[0] * laplacian(u, i);
        }
        true
    }

    /// `(I − γ J_y)⁻¹ r` exactly: `J_y = D Δ + diag(2u)` is tridiagonal (Thomas' algorithm).
    fn precondition(
        &self,
        u: &Vec<f64>,
        p: &[f64],
        _t: f64,
        gamma: f64,
        r: &Vec<f64>,
        z: &mut Vec<f64>,
    ) -> bool {
        let s = p[0] * ((N + 1) * (N + 1)) as f64;
        crate::common::thomas(
            -gamma * s,
            |i| 1.0 + 2.0 * gamma * s - 2.0 * gamma * u[i],
            r,
            z,
        );
        true
    }
}

/// The state and `∂u/∂D` at `t = 0.1` from a sine bump, and the solve's statistics.
fn solve(bdf: Bdf) -> (Stacked<Vec<f64>>, Statistics) {
    let forward = Forward::new(
        ReactionDiffusion,
        vec![1.0],
        vec![WithRespectTo::Parameter(0)],
    )
    .unwrap();
    let start: Vec<f64> = (1..=N)
        .map(|i| (core::f64::consts::PI * i as f64 / (N + 1) as f64).sin())
        .collect();
    let mut y: Stacked<Vec<f64>> = forward.initial(start).unwrap();
    let statistics = Adaptive::new(bdf)
        .with_tolerances(Tolerances::new(1e-6, 1e-8))
        .solve(&mut y, &forward, 0.0, 0.1)
        .unwrap();
    (y, statistics)
}

fn gmres(preconditioner: Preconditioner) -> Bdf {
    Bdf::new().with_linear_solver(LinearSolver::Gmres(
        Gmres::new().with_preconditioner(preconditioner, Side::Left),
    ))
}

#[test]
fn sensitivities_under_gmres_match_the_direct_bdf_and_take_the_models_preconditioner() {
    let (direct, _) = solve(Bdf::new());
    let (plain, plain_statistics) = solve(gmres(Preconditioner::None));
    let (preconditioned, statistics) = solve(gmres(Preconditioner::User));
    // The sensitivity is not small: diffusion over a tenth of a time unit damps the bump
    // by about e^(−π² D t) while the reaction feeds it.
    let sensitivity = &direct.blocks()[1];
    assert!(sensitivity.iter().any(|s| s.abs() > 0.1), "{sensitivity:?}");
    for y in [&plain, &preconditioned] {
        for (block, reference) in y.blocks().iter().zip(direct.blocks()) {
            for (got, want) in block.iter().zip(reference) {
                assert_relative_eq!(*got, *want, max_relative = 1e-5, epsilon = 1e-7);
            }
        }
    }
    // Each product is the model's tangents, not a difference of the augmented rate (one
    // evaluation each), so GMRES's many iterations cost no evaluations.
    assert!(
        plain_statistics.evaluations < plain_statistics.linear_iterations,
        "{plain_statistics:?}"
    );
    // The exact inverse of the state's Newton matrix, applied to every block, leaves
    // GMRES one iteration a Newton iteration (each of which evaluates the rate once):
    // 74 against 247 unpreconditioned.
    assert!(
        statistics.linear_iterations <= statistics.evaluations
            && plain_statistics.linear_iterations > 2 * plain_statistics.evaluations,
        "{statistics:?} against {plain_statistics:?}"
    );
}
