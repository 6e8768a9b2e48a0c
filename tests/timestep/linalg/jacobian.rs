//! `Jacobian`'s index (issue 24): a dense matrix stores entry `(i, j)` at `i · dim + j` and
//! nothing else (the forces' writes take that one multiply-add, without the structure
//! dispatch), an index outside the matrix panics instead of landing on another entry (even
//! one whose `i · dim + j` would wrap around to a valid offset), and a band still refuses
//! the entries outside it while storing those inside where a dense matrix's solve finds
//! them.

use proptest::prelude::*;
use timestep::{BackwardEuler, InPlace, Integrator, Jacobian, Structure, WithJacobian};

proptest! {
    /// Every write of a dense Jacobian lands at `i · dim + j` of its storage and nowhere
    /// else; storage past `dim²` is never touched; the entry reads back.
    #[test]
    fn a_dense_entry_is_stored_row_by_row(dim in 1_usize..7, i in 0_usize..7, j in 0_usize..7, extra in 0_usize..3) {
        prop_assume!(i < dim && j < dim);
        let mut entries = vec![0.0_f64; dim * dim + extra];
        let mut jacobian = Jacobian::new(&mut entries, dim);
        jacobian[(i, j)] = 7.5;
        prop_assert_eq!(jacobian[(i, j)], 7.5);
        for (at, &entry) in entries.iter().enumerate() {
            prop_assert_eq!(entry, if at == i * dim + j { 7.5 } else { 0.0 }, "offset {}", at);
        }
    }
}

#[test]
#[should_panic(expected = "Jacobian index (3, 0) is outside the 3 × 3 matrix")]
fn a_dense_row_past_the_matrix_panics() {
    let mut entries = [0.0_f64; 12];
    let mut jacobian = Jacobian::new(&mut entries, 3);
    // Storage holds a fourth row's worth, but the matrix has three rows.
    jacobian[(3, 0)] = 1.0;
}

#[test]
#[should_panic(expected = "Jacobian index (0, 3) is outside the 3 × 3 matrix")]
fn a_dense_column_past_the_matrix_panics() {
    let mut entries = [0.0_f64; 9];
    let mut jacobian = Jacobian::new(&mut entries, 3);
    // `0 · 3 + 3` is entry (1, 0)'s offset: the column is checked, not only the offset.
    jacobian[(0, 3)] = 1.0;
}

/// `row · 3` wraps to 2 for `row = ⌊(2⁶⁴ − 1)/3⌋ + 1` on 64-bit targets: offset 2 of 9, a
/// valid one, which only the row's own check refuses.
#[test]
#[should_panic(expected = "is outside the 3 × 3 matrix")]
fn a_row_whose_offset_wraps_panics() {
    let mut entries = [0.0_f64; 9];
    let mut jacobian = Jacobian::new(&mut entries, 3);
    let row = usize::MAX / 3 + 1;
    assert!(
        row.wrapping_mul(3) < 9 || usize::BITS != 64,
        "the offset wraps to a valid one"
    );
    jacobian[(row, 0)] = 1.0;
}

/// A matrix of no unknowns has no entry to write.
#[test]
#[should_panic(expected = "Jacobian index (0, 0) is outside the 0 × 0 matrix")]
fn an_empty_jacobian_refuses_every_index() {
    let mut entries = [0.0_f64; 4];
    let mut jacobian = Jacobian::new(&mut entries, 0);
    assert_eq!(jacobian.dim(), 0);
    jacobian[(0, 0)] = 1.0;
}

/// A size whose square overflows `usize` is refused, not wrapped to a small one (`(2³²)²`
/// is 0 modulo 2⁶⁴, which an empty slice would "hold").
#[test]
#[should_panic(expected = "Jacobian needs")]
fn a_size_whose_square_overflows_is_refused() {
    let mut entries: [f64; 0] = [];
    let _ = Jacobian::new(&mut entries, 1 << (usize::BITS / 2));
}

/// `u'ᵢ = uᵢ₋₁ − 2uᵢ + uᵢ₊₁`, `u = 0` beyond both ends: tridiagonal.
fn diffusion(u: &[f64], du: &mut [f64]) {
    let n = u.len();
    for i in 0..n {
        let left = if i > 0 { u[i - 1] } else { 0.0 };
        let right = if i + 1 < n { u[i + 1] } else { 0.0 };
        du[i] = left - 2.0 * u[i] + right;
    }
}

fn diffusion_jacobian(n: usize, j: &mut Jacobian<'_, f64>) {
    for i in 0..n {
        j[(i, i)] = -2.0;
        if i > 0 {
            j[(i, i - 1)] = 1.0;
        }
        if i + 1 < n {
            j[(i, i + 1)] = 1.0;
        }
    }
}

/// The analytic Jacobian written into a band (through the structure's general path) and
/// into a dense matrix (the row-major one) gives one backward Euler step the same end: the
/// linear system `(I − h J) u₁ = u₀` solved exactly by either, to rounding.
#[test]
fn a_banded_and_a_dense_analytic_jacobian_give_one_step() {
    let forces = WithJacobian::new(
        InPlace(|u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| diffusion(u, du)),
        |u: &Vec<f64>, _t: f64, j: &mut Jacobian<'_, f64>| diffusion_jacobian(u.len(), j),
    );
    let start: Vec<f64> = (0..12).map(|i| (0.4 * i as f64).sin()).collect();
    let mut dense = start.clone();
    BackwardEuler::new()
        .step(&mut dense, &forces, 0.0, 0.3)
        .unwrap();
    let mut banded = start.clone();
    BackwardEuler::new()
        .with_structure(Structure::Banded { lower: 1, upper: 1 })
        .step(&mut banded, &forces, 0.0, 0.3)
        .unwrap();
    for (a, b) in dense.iter().zip(&banded) {
        approx::assert_relative_eq!(a, b, max_relative = 1e-13, epsilon = 1e-15);
    }
    assert_ne!(dense, start, "the step moved the state");
}

/// An analytic Jacobian that writes outside its band is stopped by a panic naming the
/// entry, as before the dense path was made cheap.
#[test]
#[should_panic(expected = "Jacobian index (0, 2) is outside the 4 × 4 matrix or its band")]
fn a_banded_write_outside_the_band_panics() {
    let forces = WithJacobian::new(
        InPlace(|u: &Vec<f64>, _t: f64, du: &mut Vec<f64>| diffusion(u, du)),
        |u: &Vec<f64>, _t: f64, j: &mut Jacobian<'_, f64>| {
            diffusion_jacobian(u.len(), j);
            j[(0, 2)] = 0.5;
        },
    );
    let mut u = vec![1.0, 0.5, 0.25, 0.125];
    let _ = BackwardEuler::new()
        .with_structure(Structure::Banded { lower: 1, upper: 1 })
        .step(&mut u, &forces, 0.0, 0.1);
}
