//! The BDF on `M y' = f(t, y)` with a constant, singular mass matrix: index-1
//! differential-algebraic systems (the corrector `M (y − a) − γ f(t, y) = 0`, as DASSL's
//! BDF solves `F(t, y, y') = 0`: Brenan, Campbell and Petzold, "Numerical Solution of
//! Initial-Value Problems in Differential-Algebraic Equations", 1996, ch. 3), on the
//! problems of `dae.rs` (Radau5's), with their closed forms and reference values.
//!
//! - Robertson's kinetics with the conservation law as its third equation has the ODE
//!   form's solution (the Test Set's values at t = 40, y₁(4·10¹⁰) = 5.2083451767·10⁻⁸);
//!   the algebraic equation is linear and Newton's matrix has its row exactly (the
//!   analytic Jacobian), and each Newton update solves it, so the sum `y₁ + y₂ + y₃` is 1
//!   to rounding at every output (the dense output is a combination of step ends).
//! - `y₁' = −y₁ + y₂`, `0 = y₂ − sin t` from `y₁(0) = 0`: `y₂ = sin t` and
//!   `y₁ = (sin t − cos t + e⁻ᵗ)/2` (the particular solution `(sin t − cos t)/2` of
//!   `y₁' + y₁ = sin t`, plus `e⁻ᵗ/2` for `y₁(0) = 0`), to the tolerance, the error
//!   falling with it (measured: 2.7·10⁻⁴, 4.1·10⁻⁶, 3.3·10⁻⁸ at rtol 10⁻⁴, 10⁻⁶, 10⁻⁸).
//! - A start off its algebraic equation, an index-2 system and a mass matrix with GMRES are
//!   refused with their errors, the state untouched.

use super::dae::{
    AT_40, Y1_AT_4E10, assert_inconsistent_start_refused, assert_index_two_refused,
    assert_linear_dae_converges, first_differential, linear_dae, linear_exact, robertson_dae,
    robertson_jacobian, two_differential,
};
use timestep::adaptive::Adaptive;
use timestep::{
    AdaptiveError, AdaptiveKind, Bdf, Gmres, Jacobian, LinearSolver, Radau5, StepError, Structure,
    Tolerances, WithJacobian, WithMass,
};

/// The `robertson_dae` example's output times: 1 and 4 per decade from 10⁻⁶ to 4·10¹⁰.
fn output_times() -> Vec<f64> {
    (-6..=10)
        .flat_map(|exponent| {
            let decade = 10f64.powi(exponent);
            [decade, 4.0 * decade]
        })
        .collect()
}

/// Robertson's DAE to 4·10¹⁰ by `method` at rtol 10⁻⁶ and the example's atol 10⁻¹⁴:
/// the values at 40 and at the end, the largest `|Σy − 1|` at the outputs, and the
/// statistics.
fn robertson_run(method: AdaptiveKind) -> ([f64; 3], [f64; 3], f64, timestep::Statistics) {
    let forces = WithMass::new(
        WithJacobian::new(robertson_dae, robertson_jacobian),
        two_differential,
    );
    let mut y = [1.0, 0.0, 0.0];
    let (mut at_40, mut worst) = ([0.0; 3], 0.0_f64);
    let statistics = Adaptive::new(method)
        .with_tolerances(Tolerances::new(1e-6, 1e-14))
        .solve_at(&mut y, &forces, 0.0, &output_times(), |t, y| {
            worst = worst.max((y.iter().sum::<f64>() - 1.0).abs());
            if t == 40.0 {
                at_40 = *y;
            }
        })
        .unwrap();
    (at_40, y, worst, statistics)
}

#[test]
fn robertson_as_a_dae_by_bdf_has_the_ode_solution_and_keeps_the_sum_to_rounding() {
    let (at_40, end, worst, statistics) = robertson_run(AdaptiveKind::Bdf(Bdf::new()));
    let (_, radau_end, radau_worst, radau) = robertson_run(AdaptiveKind::Radau5(Radau5::new()));
    println!("BDF: t = 40 {at_40:?}, end {end:?}, |Σy − 1| ≤ {worst:e}, {statistics:?}");
    println!("Radau5: end {radau_end:?}, |Σy − 1| ≤ {radau_worst:e}, {radau:?}");
    // The global error of a BDF run is a few times its local tolerance.
    for i in 0..3 {
        let relative = (at_40[i] - AT_40[i]) / AT_40[i];
        assert!(
            relative.abs() < 2e-5,
            "y{}(40) = {} ({relative:e})",
            i + 1,
            at_40[i]
        );
    }
    // y₁ ≈ 5·10⁻⁸ at the end, 10⁶ times below y₃: its error relative to itself gathers
    // over ten decades of time.
    let relative = (end[0] - Y1_AT_4E10) / Y1_AT_4E10;
    assert!(
        relative.abs() < 1e-4,
        "y1(4e10) = {:e} ({relative:e})",
        end[0]
    );
    // y₂ = y₁/(2.5·10⁵) on the slow manifold, y₃ = 1 − y₁ − y₂.
    assert!((end[1] / end[0] * 2.5e5 - 1.0).abs() < 1e-3, "{end:?}");
    assert!((end[2] - (1.0 - Y1_AT_4E10)).abs() < 1e-10, "{end:?}");
    // Rounding of the sum of three numbers of size up to 1, a few ulps, at every output.
    assert!(worst <= 16.0 * f64::EPSILON, "the sum drifts by {worst:e}");
    // A variable-order multistep method: more, cheaper steps than Radau5 (one force
    // evaluation per Newton iteration against Radau5's three per iteration).
    assert!(statistics.accepted > radau.accepted);
    assert!(
        statistics.evaluations < radau.evaluations,
        "{statistics:?} {radau:?}"
    );
}

#[test]
fn a_linear_dae_by_bdf_follows_its_closed_form_and_converges_with_the_tolerance() {
    assert_linear_dae_converges(AdaptiveKind::Bdf(Bdf::new()));
}

#[test]
fn an_inconsistent_start_is_refused_by_bdf_and_completed_by_radau5s_helper() {
    assert_inconsistent_start_refused(AdaptiveKind::Bdf(Bdf::new()));
    let forces = WithMass::new(linear_dae, first_differential);
    let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-6, 1e-10));
    let mut y = [0.0, 1e-3];
    Radau5::new()
        .consistent_start(&mut y, &forces, 0.0)
        .unwrap();
    assert_eq!(y[0], 0.0);
    assert!(y[1].abs() <= 1e-18, "{y:?}");
    solver.solve(&mut y, &forces, 0.0, 1.0).unwrap();
    assert!((y[0] - linear_exact(1.0)[0]).abs() < 1e-5, "{y:?}");
}

#[test]
fn an_index_two_system_is_refused_by_bdf() {
    assert_index_two_refused(AdaptiveKind::Bdf(Bdf::new()));
}

/// Told that `y₂` is of index 2 ([`Bdf::with_index_two`]), the BDF solves the system it
/// refuses above, `y₁' = y₂`, `0 = y₁ − sin t` from `(0, 1)`: `y₁ = sin t` (the constraint,
/// which each step's end satisfies to the Newton iteration's tolerance: a linear one, to
/// rounding) and `y₂ = cos t`, whose error, left out of the error test, still falls with the
/// tolerance (a `k`-step BDF converges at order `k` for an index-2 unknown: Brenan, Campbell
/// and Petzold, ch. 3; the error test on `y₁`'s correction, the difference of the corrector
/// and the predictor, watches `y₁'s` derivative `y₂` too). Measured at t = 2:
/// `|y₂ − cos 2|` = 1.6·10⁻⁴, 8.8·10⁻⁶, 1.4·10⁻⁷ at rtol 10⁻⁴, 10⁻⁶, 10⁻⁸: 2 to 15 times
/// the tolerance, down by 19 and 65 from one to the next.
#[test]
fn an_index_two_system_told_so_is_solved_by_bdf() {
    let forces = WithMass::new(
        |y: &[f64; 2], t: f64| [y[1], y[0] - t.sin()],
        first_differential,
    );
    let mut previous = f64::INFINITY;
    for rtol in [1e-4, 1e-6, 1e-8] {
        let mut y = [0.0, 1.0];
        let statistics = Adaptive::new(Bdf::new().with_index_two(1))
            .with_tolerances(Tolerances::new(rtol, rtol))
            .solve(&mut y, &forces, 0.0, 2.0)
            .unwrap();
        let error = (y[1] - 2f64.cos()).abs();
        println!("rtol {rtol:e}: y = {y:?}, |y2 - cos 2| = {error:e}, {statistics:?}");
        assert!((y[0] - 2f64.sin()).abs() < 1e-14, "{y:?}");
        assert!(error < 20.0 * rtol, "rtol {rtol:e}: {error:e}");
        assert!(
            error < previous / 10.0,
            "rtol {rtol:e}: {error:e} after {previous:e}"
        );
        previous = error;
    }
}

#[test]
fn bdf_with_gmres_refuses_a_mass_matrix_other_than_the_identity() {
    let gmres = Bdf::new().with_linear_solver(LinearSolver::Gmres(Gmres::new()));
    let dae = WithMass::new(linear_dae, first_differential);
    let mut y = [0.0, 0.0];
    let error = Adaptive::new(gmres)
        .solve(&mut y, &dae, 0.0, 1.0)
        .unwrap_err();
    assert!(
        matches!(
            error,
            AdaptiveError::StepFailed {
                cause: StepError::MassWithGmres,
                ..
            }
        ),
        "{error:?}"
    );
    // The identity given as a mass matrix is the ODE's: y' = −y.
    let identity = WithMass::new(
        |y: &[f64; 2], _t: f64| [-y[0], -y[1]],
        |m: &mut Jacobian<f64>| (m[(0, 0)], m[(1, 1)]) = (1.0, 1.0),
    );
    let mut y = [1.0, 2.0];
    Adaptive::new(gmres)
        .with_tolerances(Tolerances::new(1e-8, 1e-10))
        .solve(&mut y, &identity, 0.0, 1.0)
        .unwrap();
    assert!((y[0] - (-1f64).exp()).abs() < 1e-6, "{y:?}");
}

/// `M y' = f` with the regular `M = 2I` and `f = −2y`: `y = e⁻ᵗ y₀`, dense and banded.
#[test]
fn a_regular_mass_matrix_scales_the_equations_and_not_the_solution() {
    let forces = WithMass::new(
        |y: &[f64; 3], _t: f64| [-2.0 * y[0], -2.0 * (y[1] - y[0]), -2.0 * y[2]],
        |m: &mut Jacobian<f64>| (m[(0, 0)], m[(1, 1)], m[(2, 2)]) = (2.0, 2.0, 2.0),
    );
    // y₂' = −(y₂ − y₁) from y₂(0) = 0: y₂ = t e⁻ᵗ.
    let exact = |t: f64| [(-t).exp(), t * (-t).exp(), 3.0 * (-t).exp()];
    for structure in [Structure::Dense, Structure::Banded { lower: 1, upper: 0 }] {
        let mut y = [1.0, 0.0, 3.0];
        Adaptive::new(Bdf::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-8, 1e-10))
            .solve(&mut y, &forces, 0.0, 2.0)
            .unwrap();
        let exact = exact(2.0);
        for i in 0..3 {
            assert!(
                (y[i] - exact[i]).abs() < 1e-6 * exact[i],
                "{structure:?}: {y:?} against {exact:?}"
            );
        }
    }
}

/// Robertson's DAE with its full 3 × 3 pattern, for a sparse Jacobian.
#[cfg(feature = "sparse")]
struct SparseRobertson;

#[cfg(feature = "sparse")]
impl timestep::Forces<[f64; 3]> for SparseRobertson {
    fn force(&self, y: &[f64; 3], t: f64) -> [f64; 3] {
        robertson_dae(y, t)
    }

    fn jacobian(&self, y: &[f64; 3], t: f64, jacobian: &mut Jacobian<'_, f64>) -> bool {
        robertson_jacobian(y, t, jacobian);
        true
    }

    fn mass_matrix(&self, mass: &mut Jacobian<'_, f64>) -> bool {
        two_differential(mass);
        true
    }

    fn jacobian_pattern(&self, _y: &[f64; 3], pattern: &mut timestep::Pattern) -> bool {
        pattern.extend((0..3).flat_map(|i| (0..3).map(move |j| (i, j))));
        true
    }
}

/// A sparse Jacobian with its mass matrix in the same layout, and a banded one, solve the
/// DAE as the dense one does: each to the Test Set's values at t = 40 within what rtol
/// 10⁻⁶ allows. (Not step for step: the DAE's error tests sit close enough to 1 that the
/// rounding of different factorisations changes a decision, as it does for Radau5, whose
/// dense and banded runs differ by a rejected step.)
#[cfg(feature = "sparse")]
#[test]
fn sparse_and_banded_mass_matrices_solve_the_dae() {
    for structure in [
        Structure::Dense,
        Structure::Banded { lower: 2, upper: 2 },
        Structure::Sparse,
    ] {
        let mut y = [1.0, 0.0, 0.0];
        let statistics = Adaptive::new(Bdf::new().with_structure(structure))
            .with_tolerances(Tolerances::new(1e-6, 1e-14))
            .solve(&mut y, &SparseRobertson, 0.0, 40.0)
            .unwrap();
        println!("{structure:?}: {y:?} {statistics:?}");
        for i in 0..3 {
            let relative = (y[i] - AT_40[i]) / AT_40[i];
            assert!(relative.abs() < 2e-5, "{structure:?}: {y:?} ({relative:e})");
        }
        assert!(
            (y.iter().sum::<f64>() - 1.0).abs() <= 4.0 * f64::EPSILON,
            "{y:?}"
        );
    }
}
