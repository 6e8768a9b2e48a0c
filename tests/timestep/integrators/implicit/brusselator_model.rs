//! The 2-D Brusselator's model (`examples/problems/brusselator.rs`, shared by the
//! `brusselator_2d` example and `peers/benches/brusselator.rs`): the analytic Jacobian,
//! pattern and Jacobian–vector product that the bench hands to `timestep`'s BDF, diffsol and
//! (written again in C) CVODE, against differences of the right-hand side, which is cubic:
//! a central difference along one unknown is exact but for rounding.

#[path = "../../../../examples/problems/brusselator.rs"]
mod brusselator;

use brusselator::{A, B, Brusselator, start};
use std::collections::HashSet;
use timestep::Jacobian;

/// Points per side: small, and above 2, so that the four neighbours are distinct.
const N: usize = 5;
const DIM: usize = 2 * N * N;

/// The dense `∂f/∂y` at `y` from the model, row by row.
fn analytic(y: &[f64]) -> Vec<f64> {
    let mut entries = vec![0.0; DIM * DIM];
    Brusselator { n: N }.write_jacobian(y, &mut Jacobian::new(&mut entries, DIM));
    entries
}

/// A state off every symmetry: the start plus a ripple.
fn state() -> Vec<f64> {
    let mut y = start(N);
    for (i, value) in y.iter_mut().enumerate() {
        *value += 0.3 * (i as f64 * 0.7).sin();
    }
    y
}

#[test]
fn uniform_fixed_point_is_at_rest() {
    // (u, v) = (A, B/A) everywhere: the reaction's fixed point, and no diffusion.
    let y: Vec<f64> = (0..N * N).flat_map(|_| [A, B / A]).collect();
    let mut rate = vec![1.0; DIM];
    Brusselator { n: N }.rate(&y, &mut rate);
    let largest = rate.iter().fold(0.0_f64, |m, r| m.max(r.abs()));
    assert!(largest < 1e-14, "f at the fixed point: {largest:e}");
}

#[test]
fn jacobian_is_the_central_difference_of_the_rate() {
    let model = Brusselator { n: N };
    let y = state();
    let jacobian = analytic(&y);
    let h = 1e-3;
    let (mut plus, mut minus) = (vec![0.0; DIM], vec![0.0; DIM]);
    let mut largest = 0.0_f64;
    for column in 0..DIM {
        let mut shifted = y.clone();
        shifted[column] = y[column] + h;
        model.rate(&shifted, &mut plus);
        shifted[column] = y[column] - h;
        model.rate(&shifted, &mut minus);
        for row in 0..DIM {
            let difference = (plus[row] - minus[row]) / (2.0 * h);
            largest = largest.max((difference - jacobian[row * DIM + column]).abs());
        }
    }
    // Entries reach α N² · 4 + B + 1 + 2uv ≈ 20: rounding of f (≈ 10⁻¹⁵) over 2h.
    assert!(largest < 1e-10, "largest difference {largest:e}");
}

#[test]
fn pattern_holds_every_non_zero_entry_and_twelve_per_point() {
    let pattern: HashSet<(usize, usize)> = Brusselator { n: N }.pattern().collect();
    assert_eq!(pattern.len(), 12 * N * N);
    let jacobian = analytic(&state());
    for row in 0..DIM {
        for column in 0..DIM {
            if jacobian[row * DIM + column] != 0.0 {
                assert!(
                    pattern.contains(&(row, column)),
                    "({row}, {column}) missing"
                );
            }
        }
    }
}

#[test]
fn jacobian_times_is_the_jacobian_times_the_vector() {
    let y = state();
    let jacobian = analytic(&y);
    let v: Vec<f64> = (0..DIM).map(|i| (i as f64 * 1.3).cos()).collect();
    let mut product = vec![0.0; DIM];
    Brusselator { n: N }.jacobian_times(&y, &v, &mut product);
    for (row, value) in product.iter().enumerate() {
        let expected: f64 = (0..DIM).map(|c| jacobian[row * DIM + c] * v[c]).sum();
        assert!(
            (value - expected).abs() <= 1e-12 * expected.abs().max(1.0),
            "row {row}: {value} against {expected}"
        );
    }
}
