//! The BDF with matrix-free GMRES in its Newton iteration ([`LinearSolver::Gmres`]) against
//! the same BDF with its direct LU: on Robertson's kinetics (`cvRoberts_dns`'s setting) and
//! on the 1-D reaction–diffusion `u' = Δu + u²` (40 points), the same end values to the
//! tolerance and step counts close to the direct solver's, as CVODE's SPGMR gives its
//! direct solvers' (a Newton iteration with a good enough linear solve is the same
//! iteration). A banded preconditioner that is the whole tridiagonal `I − γJ` makes each
//! linear solve take about one iteration; the forces' own `J v` and preconditioner are
//! used when given, and a missing one is a clear error.

use approx::assert_relative_eq;
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveError, Bdf, ComponentTolerances, DerivativeOf, Forces, Gmres, InPlace, LinearSolver,
    Preconditioner, Side, Statistics, StepError, Tolerances,
};

fn gmres(preconditioner: Preconditioner, side: Side) -> Bdf {
    Bdf::new().with_linear_solver(LinearSolver::Gmres(
        Gmres::new().with_preconditioner(preconditioner, side),
    ))
}

/// Robertson to 4·10¹⁰ at `cvRoberts_dns`'s tolerances.
fn robertson(bdf: Bdf) -> ([f64; 3], Statistics) {
    let rates = |y: &[f64; 3], _t: f64| {
        let (a, b, c) = (0.04 * y[0], 1.0e4 * y[1] * y[2], 3.0e7 * y[1] * y[1]);
        [b - a, a - b - c, c]
    };
    let mut y = [1.0, 0.0, 0.0];
    let statistics = Adaptive::new(bdf)
        .with_component_tolerances(ComponentTolerances::new(
            vec![1e-4; 3],
            vec![1e-8, 1e-14, 1e-6],
        ))
        .solve(&mut y, &rates, 0.0, 4e10)
        .unwrap();
    (y, statistics)
}

/// Counts within `fraction` of the direct solver's.
fn close(what: &str, ours: u64, direct: u64, fraction: f64) {
    let ratio = ours as f64 / direct as f64;
    assert!(
        (1.0 - fraction..=1.0 + fraction).contains(&ratio),
        "{what}: {ours} against the direct solver's {direct}"
    );
}

/// Robertson (3 unknowns: GMRES of dimension 5 is exact in 3 iterations): an end as
/// accurate as the direct BDF's (y₁(4·10¹⁰) = 5.208·10⁻⁸), its steps within 25%, every
/// linear iteration one `J v`, and no Jacobian or factorisation.
#[test]
fn robertson_matches_the_direct_solver() {
    let (direct, direct_statistics) = robertson(Bdf::new());
    let (ours, statistics) = robertson(gmres(Preconditioner::None, Side::Left));
    println!("direct {direct:?} {direct_statistics:?}\ngmres {ours:?} {statistics:?}");
    // Both ends as close to the true y₁ as CVODE's (33% off: rtol 10⁻⁴ allows that on
    // this decay), and mass conserved.
    for y in [ours, direct] {
        assert_relative_eq!(y[0], 5.208345e-8, max_relative = 0.33);
        assert!((y.iter().sum::<f64>() - 1.0).abs() < 1e-6);
    }
    close(
        "steps",
        statistics.accepted,
        direct_statistics.accepted,
        0.25,
    );
    assert_eq!((statistics.jacobians, statistics.decompositions), (0, 0));
    assert!(statistics.linear_iterations > statistics.accepted);
    assert_eq!(statistics.jacobian_products, statistics.linear_iterations);
}

const N: usize = 40;

/// `u' = Δu + u²` on `N` points of (0, 1), `u = 0` at both ends; with its analytic `J v`
/// and, as its preconditioner, the tridiagonal `I − γJ` solved by Thomas' algorithm.
struct ReactionDiffusion {
    /// Whether `jacobian_times` and `precondition` are given.
    analytic: bool,
}

impl ReactionDiffusion {
    fn scale() -> f64 {
        ((N + 1) * (N + 1)) as f64
    }
}

impl Forces<Vec<f64>> for ReactionDiffusion {
    fn force(&self, u: &Vec<f64>, _t: f64) -> Vec<f64> {
        let s = Self::scale();
        (0..N)
            .map(|i| {
                let left = if i > 0 { u[i - 1] } else { 0.0 };
                let right = if i + 1 < N { u[i + 1] } else { 0.0 };
                s * (left - 2.0 * u[i] + right) + u[i] * u[i]
            })
            .collect()
    }

    fn jacobian_times(
        &self,
        u: &Vec<f64>,
        _t: f64,
        v: &DerivativeOf<Vec<f64>>,
        out: &mut DerivativeOf<Vec<f64>>,
    ) -> bool {
        // A first-order state's rates are the `force` part of a `Derivative`.
        let (v, out) = (&v.force, &mut out.force);
        if self.analytic {
            let s = Self::scale();
            for i in 0..N {
                let left = if i > 0 { v[i - 1] } else { 0.0 };
                let right = if i + 1 < N { v[i + 1] } else { 0.0 };
                out[i] = s * (left - 2.0 * v[i] + right) + 2.0 * u[i] * v[i];
            }
        }
        self.analytic
    }

    fn precondition(
        &self,
        u: &Vec<f64>,
        _t: f64,
        gamma: f64,
        r: &DerivativeOf<Vec<f64>>,
        z: &mut DerivativeOf<Vec<f64>>,
    ) -> bool {
        if !self.analytic {
            return false;
        }
        let (r, z) = (&r.force, &mut z.force);
        // I − γJ: off-diagonals −γs, diagonal 1 + 2γs − 2γuᵢ.
        let s = Self::scale();
        crate::common::thomas(
            -gamma * s,
            |i| 1.0 + 2.0 * gamma * s - 2.0 * gamma * u[i],
            r,
            z,
        );
        true
    }
}

fn reaction_diffusion(bdf: Bdf, forces: &ReactionDiffusion, rtol: f64) -> (Vec<f64>, Statistics) {
    let mut u: Vec<f64> = (1..=N)
        .map(|i| (std::f64::consts::PI * i as f64 / (N + 1) as f64).sin())
        .collect();
    let statistics = Adaptive::new(bdf)
        .with_tolerances(Tolerances::new(rtol, rtol * 1e-2))
        .solve(&mut u, forces, 0.0, 0.5)
        .unwrap();
    (u, statistics)
}

/// The 1-D reaction–diffusion problem (stiff: `‖J‖ ≈ 4·41²`) with GMRES unpreconditioned,
/// with the banded (tridiagonal: exact) preconditioner on either side, and with the
/// forces' own `J v` and Thomas preconditioner: each ends as close to a tight reference as the direct BDF does, to its
/// accuracy, in steps within 25% of its; preconditioned, about one iteration per solve.
#[test]
fn reaction_diffusion_matches_the_direct_solver() {
    let plain = ReactionDiffusion { analytic: false };
    let banded = Bdf::new().with_structure(timestep::Structure::Banded { lower: 1, upper: 1 });
    let (reference, _) = reaction_diffusion(banded, &plain, 1e-11);
    let error = |u: &[f64]| {
        u.iter()
            .zip(&reference)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max)
    };
    let (direct, direct_statistics) = reaction_diffusion(banded, &plain, 1e-6);
    let direct_error = error(&direct);
    println!("direct {direct_statistics:?}, error {direct_error:e}");
    // The solution decays as its slowest mode, e^(−π² t) to first order: u(0.5) ≈ 0.007.
    assert!(
        direct[N / 2] > 0.004 && direct[N / 2] < 0.012,
        "{}",
        direct[N / 2]
    );
    let band = Preconditioner::Banded { lower: 1, upper: 1 };
    let runs = [
        ("none", gmres(Preconditioner::None, Side::Left), &plain),
        ("band left", gmres(band, Side::Left), &plain),
        ("band right", gmres(band, Side::Right), &plain),
        (
            "user",
            gmres(Preconditioner::User, Side::Left),
            &ReactionDiffusion { analytic: true },
        ),
    ];
    for (name, bdf, forces) in runs {
        let (u, statistics) = reaction_diffusion(bdf, forces, 1e-6);
        println!("{name}: {statistics:?}, error {:e}", error(&u));
        // Preconditioned, as accurate as the direct solver at the same tolerance (errors
        // near 10⁻⁷ on a solution that started at 1). Unpreconditioned, 5 iterations often
        // only reduce the linear residual (`I − γJ` has eigenvalues up to 1 + 6724 γ), and
        // Newton's iteration converges to its tolerance on inexact solves: within rtol.
        let bound = if name == "none" {
            1e-6
        } else {
            2.0 * direct_error + 1e-8
        };
        assert!(error(&u) < bound, "{name}: error {:e}", error(&u));
        close(name, statistics.accepted, direct_statistics.accepted, 0.25);
        // Evaluations: Newton's, 2 more (the start, the first step's guess), 3 per band
        // (one per diagonal), one per `J v` by differences.
        let differenced = if name == "user" {
            0
        } else {
            statistics.jacobian_products
        };
        let solves = statistics.evaluations - 2 - 3 * statistics.jacobians - differenced;
        if name != "none" {
            // Tridiagonal preconditioners are exact but for the change of γ and y since
            // their setup.
            assert!(
                statistics.linear_iterations <= 2 * solves,
                "{name}: {} iterations for {solves} solves",
                statistics.linear_iterations
            );
        }
        if name == "user" {
            // J v by the forces: no evaluation beyond Newton's.
            assert_eq!(statistics.jacobians, 0);
        }
        if name.starts_with("band") {
            assert!(statistics.jacobians > 0 && statistics.decompositions >= statistics.jacobians);
        }
    }
}

/// Told to use the forces' preconditioner, forces without one stop the run with
/// [`StepError::NoPreconditioner`] at the first solve that needs it, not a wrong answer.
#[test]
fn a_missing_user_preconditioner_is_refused() {
    let decay = InPlace(|u: &Vec<f64>, _t: f64, out: &mut Vec<f64>| {
        out[0] = -1e3 * u[0];
    });
    let mut u = vec![1.0];
    let result =
        Adaptive::new(gmres(Preconditioner::User, Side::Right)).solve(&mut u, &decay, 0.0, 1.0);
    match result {
        Err(AdaptiveError::StepFailed { cause, .. }) => {
            assert_eq!(cause, StepError::NoPreconditioner);
        }
        other => panic!("{other:?}"),
    }
}
