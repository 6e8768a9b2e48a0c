//! The eigen-decomposition of a symmetric 3×3 matrix, by cyclic Jacobi rotations.

use num_traits::Float;

/// A symmetric 3×3 matrix, row by row.
pub(crate) type Symmetric = [[f64; 3]; 3];

/// The eigenvalues `λ` of the symmetric matrix `a` and a rotation `V` whose columns are unit
/// eigenvectors, so that `a = V diag(λ) Vᵀ` with `det V = +1`.
///
/// Cyclic Jacobi: each rotation in a coordinate plane zeroes one off-diagonal entry, and
/// sweeps over the three planes converge quadratically; a 3×3 matrix needs a handful of
/// sweeps. A diagonal matrix is returned as it is, with `V = 1`, exactly. `V`, a product of
/// plane rotations, is a rotation by construction. The eigenvalues come in the order the
/// iteration leaves them on the diagonal (unsorted). Entries must be finite.
pub(crate) fn symmetric_eigen(a: Symmetric) -> ([f64; 3], Symmetric) {
    let mut a = a;
    let mut v = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
    for sweep in 0..64 {
        if a[0][1] == 0.0 && a[0][2] == 0.0 && a[1][2] == 0.0 {
            break;
        }
        for (p, q) in [(0, 1), (0, 2), (1, 2)] {
            let apq = a[p][q];
            if apq == 0.0 {
                continue;
            }
            let (app, aqq) = (a[p][p], a[q][q]);
            // An entry below the rounding of both diagonal entries it couples is zero.
            let small = 100.0 * Float::abs(apq);
            let (app_size, aqq_size) = (Float::abs(app), Float::abs(aqq));
            if sweep > 3 && app_size + small == app_size && aqq_size + small == aqq_size {
                a[p][q] = 0.0;
                a[q][p] = 0.0;
                continue;
            }
            // The rotation angle φ with tan φ = t zeroes a[p][q]: t² + 2θt − 1 = 0,
            // θ = (a_qq − a_pp) / 2a_pq, taking the smaller root for stability.
            let theta = (aqq - app) / (2.0 * apq);
            let t = if Float::abs(theta) > 1.0e150 {
                0.5 / theta
            } else {
                Float::signum(theta) / (Float::abs(theta) + Float::sqrt(theta * theta + 1.0))
            };
            let c = 1.0 / Float::sqrt(t * t + 1.0);
            let s = t * c;
            rotate(&mut a, &mut v, p, q, c, s);
        }
    }
    ([a[0][0], a[1][1], a[2][2]], v)
}

/// `a ← Jᵀ a J` and `v ← v J` for the rotation `J` in the `(p, q)` plane
/// (`J[p][p] = J[q][q] = c`, `J[p][q] = s`, `J[q][p] = −s`).
fn rotate(a: &mut Symmetric, v: &mut Symmetric, p: usize, q: usize, c: f64, s: f64) {
    for row in a.iter_mut().chain(v.iter_mut()) {
        let (rp, rq) = (row[p], row[q]);
        row[p] = c * rp - s * rq;
        row[q] = s * rp + c * rq;
    }
    let (row_p, row_q) = (a[p], a[q]);
    a[p] = core::array::from_fn(|k| c * row_p[k] - s * row_q[k]);
    a[q] = core::array::from_fn(|k| s * row_p[k] + c * row_q[k]);
    // The rotation was chosen to zero this pair; keep the matrix exactly symmetric.
    a[p][q] = 0.0;
    a[q][p] = 0.0;
    for (i, j) in [(0, 1), (0, 2), (1, 2)] {
        let mean = 0.5 * (a[i][j] + a[j][i]);
        a[i][j] = mean;
        a[j][i] = mean;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn reconstruct(values: [f64; 3], v: Symmetric) -> Symmetric {
        let mut out = [[0.0; 3]; 3];
        for (i, row) in out.iter_mut().enumerate() {
            for (j, entry) in row.iter_mut().enumerate() {
                *entry = (0..3).map(|k| v[i][k] * values[k] * v[j][k]).sum();
            }
        }
        out
    }

    #[test]
    fn diagonal_is_left_exactly() {
        let (values, v) = symmetric_eigen([[1.0, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]);
        assert_eq!(values, [1.0, 2.0, 3.0]);
        assert_eq!(v, [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]);
    }

    #[test]
    fn dense_matrix_is_reconstructed() {
        let a = [[4.0, 1.0, -2.0], [1.0, 3.0, 0.5], [-2.0, 0.5, 5.0]];
        let (values, v) = symmetric_eigen(a);
        let back = reconstruct(values, v);
        for i in 0..3 {
            for j in 0..3 {
                assert!(Float::abs(back[i][j] - a[i][j]) < 1e-14, "{back:?}");
            }
        }
        // The trace and determinant are the sum and product of the eigenvalues.
        assert!(Float::abs(values.iter().sum::<f64>() - 12.0) < 1e-13);
    }
}
