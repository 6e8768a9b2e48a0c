//! The structure of a Jacobian against the state it belongs to (issue 24): a chain of
//! masses, a second-order state, is banded in the crate's interleaved order
//! (`Structure::chain`), a band narrower than the forces' reach is refused instead of
//! solved wrongly, and a dense Jacobian too large to factor is refused before anything is
//! allocated.

use timestep::adaptive::Adaptive;
use timestep::{
    BackwardEuler, InPlace, Integrator, Particles, Radau5, Rodas4, StepError, Stepper, Structure,
    Tolerances,
};

/// A chain of `n` unit masses on a line, springs of stiffness `k` and rest length 1
/// between neighbours, each end tied to a wall by the same spring; stretched by 20% with
/// a wave in it.
fn chain(n: usize) -> Particles<f64> {
    let positions = (0..n)
        .map(|i| 1.2 * (i + 1) as f64 + 0.1 * (i as f64 * 0.7).sin())
        .collect();
    Particles::new(vec![1.0; n], positions, vec![0.0; n])
}

fn springs(k: f64, n: usize) -> impl Fn(&Particles<f64>, f64, &mut Vec<f64>) {
    move |chain: &Particles<f64>, _t: f64, force: &mut Vec<f64>| {
        let x = chain.positions();
        for i in 0..n {
            let left = if i == 0 { 0.0 } else { x[i - 1] };
            let right = if i + 1 == n { (n + 1) as f64 } else { x[i + 1] };
            // Cubic springs, so that the Jacobian changes from step to step.
            let pull = |stretch: f64| k * (stretch - 1.0) * (1.0 + (stretch - 1.0).powi(2));
            force[i] = pull(right - x[i]) - pull(x[i] - left);
        }
    }
}

#[test]
fn a_chain_of_masses_is_banded_in_the_interleaved_order() {
    let (n, k, dt) = (200, 1e4, 0.01);
    let forces = InPlace(springs(k, n));
    let mut dense = chain(n);
    let mut banded = chain(n);
    let mut by_dense = Stepper::new(BackwardEuler::new());
    let mut by_band = Stepper::new(BackwardEuler::new().with_structure(Structure::chain(1, 1)));
    for i in 0..20 {
        let t = i as f64 * dt;
        by_dense.step(&mut dense, &forces, t, dt).unwrap();
        by_band.step(&mut banded, &forces, t, dt).unwrap();
    }
    // The same Newton solve, to its tolerance: the band holds every entry.
    for (a, b) in dense.positions().iter().zip(banded.positions()) {
        approx::assert_abs_diff_eq!(a, b, epsilon = 1e-9);
    }
    for (a, b) in dense.momenta().iter().zip(banded.momenta()) {
        approx::assert_abs_diff_eq!(a, b, epsilon = 1e-7);
    }
}

#[test]
fn rosenbrock_and_radau5_solve_a_banded_chain_as_a_dense_one() {
    let (n, k) = (20, 1e2);
    let forces = InPlace(springs(k, n));
    let tolerances = Tolerances::new(1e-8, 1e-8);
    let run = |structure: Structure, radau: bool| {
        let mut state = chain(n);
        if radau {
            Adaptive::new(Radau5::new().with_structure(structure))
                .with_tolerances(tolerances)
                .solve(&mut state, &forces, 0.0, 0.2)
                .unwrap();
        } else {
            Adaptive::new(Rodas4.with_structure(structure))
                .with_tolerances(tolerances)
                .solve(&mut state, &forces, 0.0, 0.2)
                .unwrap();
        }
        state
    };
    for radau in [false, true] {
        let dense = run(Structure::Dense, radau);
        let banded = run(Structure::chain(1, 1), radau);
        for (a, b) in dense.positions().iter().zip(banded.positions()) {
            approx::assert_abs_diff_eq!(a, b, epsilon = 1e-6);
        }
    }
}

/// The band the docs once promised for a chain, `(1, 1)`, misses each momentum's
/// dependence on the neighbours' positions (3 columns back in the interleaved order): it
/// ended in `NotConverged` or `NonFiniteResidual` under backward Euler and in results of
/// 10⁵⁶ under Rodas4; it is refused by the first step, whatever the method.
#[test]
fn a_band_narrower_than_the_forces_reach_is_refused() {
    let n = 50;
    let forces = InPlace(springs(1e4, n));
    let narrow = Structure::Banded { lower: 1, upper: 1 };
    let refused = |error: StepError| {
        assert!(
            matches!(
                error,
                StepError::BandTooNarrow {
                    lower: 1,
                    upper: 1,
                    ..
                }
            ),
            "{error:?}"
        );
        assert!(error.to_string().contains("Structure::chain"));
    };
    let mut state = chain(n);
    let before = state.clone();
    refused(
        BackwardEuler::new()
            .with_structure(narrow)
            .step(&mut state, &forces, 0.0, 0.01)
            .unwrap_err(),
    );
    assert_eq!(state.positions(), before.positions());
    for error in [
        Adaptive::new(Rodas4.with_structure(narrow)).solve(&mut state, &forces, 0.0, 1.0),
        Adaptive::new(Radau5::new().with_structure(narrow)).solve(&mut state, &forces, 0.0, 1.0),
    ] {
        match error.unwrap_err() {
            timestep::AdaptiveError::StepFailed { cause, .. } => refused(cause),
            other => panic!("{other:?}"),
        }
    }
    // One diagonal short is refused too: the first position of the body before.
    let short = Structure::Banded { lower: 2, upper: 2 };
    assert!(matches!(
        BackwardEuler::new()
            .with_structure(short)
            .step(&mut state, &forces, 0.0, 0.01),
        Err(StepError::BandTooNarrow { .. })
    ));
}

#[test]
fn a_dense_jacobian_beyond_the_limit_is_refused_before_allocating() {
    // 10⁵ unknowns: a dense matrix of 80 GB, which aborted the process.
    for n in [Structure::DENSE_LIMIT + 1, 100_000] {
        let mut y = vec![1.0_f64; n];
        let decay = InPlace(|y: &Vec<f64>, _t: f64, dy: &mut Vec<f64>| {
            for (d, y) in dy.iter_mut().zip(y) {
                *d = -y;
            }
        });
        let error = BackwardEuler::new()
            .step(&mut y, &decay, 0.0, 0.1)
            .unwrap_err();
        assert_eq!(
            error,
            StepError::DenseTooLarge {
                unknowns: n,
                limit: Structure::DENSE_LIMIT
            }
        );
        assert!(error.to_string().contains("Structure::Banded"));
        assert!(y.iter().all(|&y| y == 1.0));
        // Tridiagonal, it is solved: e^{−0.1} to backward Euler's first order.
        BackwardEuler::new()
            .with_structure(Structure::Banded { lower: 1, upper: 1 })
            .step(&mut y, &decay, 0.0, 0.1)
            .unwrap();
        approx::assert_relative_eq!(y[n / 2], 1.0 / 1.1, max_relative = 1e-12);
    }
}

/// Without the feature `sparse`, a sparse Jacobian is refused by every implicit family on
/// its first step, with the state untouched, and an adaptive run stops at once (no
/// shorter step changes it).
#[cfg(not(feature = "sparse"))]
#[test]
fn a_sparse_jacobian_without_the_feature_is_refused() {
    use timestep::Seulex;
    let decay = InPlace(|y: &Vec<f64>, _t: f64, dy: &mut Vec<f64>| {
        for (d, y) in dy.iter_mut().zip(y) {
            *d = -y;
        }
    });
    let mut y = vec![1.0_f64; 8];
    let refused = Err(StepError::SparseUnavailable);
    assert_eq!(
        BackwardEuler::new()
            .with_structure(Structure::Sparse)
            .step(&mut y, &decay, 0.0, 0.1),
        refused
    );
    assert_eq!(
        Rodas4
            .with_structure(Structure::Sparse)
            .step(&mut y, &decay, 0.0, 0.1),
        refused
    );
    assert!(y.iter().all(|&y| y == 1.0));
    let radau = Adaptive::new(Radau5::new().with_structure(Structure::Sparse))
        .solve(&mut y, &decay, 0.0, 1.0)
        .unwrap_err();
    let seulex = Adaptive::new(Seulex::new().with_structure(Structure::Sparse))
        .solve(&mut y, &decay, 0.0, 1.0)
        .unwrap_err();
    for error in [radau, seulex] {
        assert!(error.to_string().contains("feature `sparse`"), "{error:?}");
    }
}
