//! `y' = W y` with 10 unknowns, the 100 entries of `W` (row-major) its parameters, with the
//! exact cotangent: a model with many parameters for the adjoint's tests and
//! `benches/sensitivity.rs`.

use timestep::sensitivity::Model;

/// The linear system `y' = W y`, `W` a 10 × 10 matrix given row by row as the parameters.
#[derive(Clone, Copy, Debug)]
pub struct Linear;

impl Model<[f64; 10]> for Linear {
    #[inline]
    fn rate(&self, y: &[f64; 10], w: &[f64], _t: f64, out: &mut [f64; 10]) {
        for (out, row) in out.iter_mut().zip(w.chunks_exact(10)) {
            *out = row.iter().zip(y).map(|(w, y)| w * y).sum();
        }
    }

    /// `Wᵀ v`, and `∂(W y)ᵢ/∂Wᵢⱼ = yⱼ`, so `J_pᵀ v` is the outer product `v yᵀ`.
    #[inline]
    fn cotangent(
        &self,
        y: &[f64; 10],
        w: &[f64],
        _t: f64,
        v: &[f64; 10],
        out_y: &mut [f64; 10],
        out_p: &mut [f64],
    ) -> bool {
        *out_y = [0.0; 10];
        for ((row, &v), out_row) in w.chunks_exact(10).zip(v).zip(out_p.chunks_exact_mut(10)) {
            for ((out, &w), (out_p, &y)) in out_y.iter_mut().zip(row).zip(out_row.iter_mut().zip(y))
            {
                *out += w * v;
                *out_p = v * y;
            }
        }
        true
    }
}

/// A stable, non-normal `W`: −1 on the diagonal, couplings of up to 0.15 around it.
pub fn parameters() -> Vec<f64> {
    (0..100)
        .map(|k| {
            let (i, j) = (k / 10, k % 10);
            if i == j {
                -1.0
            } else {
                0.3 * (((3 * i + 7 * j) % 13) as f64 / 13.0 - 0.5)
            }
        })
        .collect()
}

/// The start: `yᵢ = 1 + i/10`.
pub const START: [f64; 10] = [1.0, 1.1, 1.2, 1.3, 1.4, 1.5, 1.6, 1.7, 1.8, 1.9];
