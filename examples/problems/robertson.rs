//! Robertson's kinetics (Hairer–Wanner II, IV.1) as a parameterised model on a log scale,
//! parameters `θ = ln k` for `k = (k₁, k₂, k₃)`, state `(a, b, c)`, with its exact tangent
//! and cotangent: the model of the `fit_kinetics` example, the adjoint tests and
//! `benches/sensitivity.rs`.
//!
//! `A → B` at `k₁`, `2B → B + C` at `k₂`, `B + C → A + C` at `k₃`:
//!
//! ```text
//! a' = −k₁ a + k₃ b c,   b' = k₁ a − k₃ b c − k₂ b²,   c' = k₂ b²,
//! ```
//!
//! stiff at the classic `k = (0.04, 3·10⁷, 10⁴)`.

use timestep::sensitivity::Model;

/// The classic rate constants.
#[allow(dead_code)] // not every user needs them
pub const ROBERTSON_K: [f64; 3] = [0.04, 3e7, 1e4];

/// Robertson's kinetics with `θ = ln k` as its parameters.
#[derive(Clone, Copy, Debug)]
pub struct Robertson;

impl Model<[f64; 3]> for Robertson {
    #[inline]
    fn rate(&self, y: &[f64; 3], theta: &[f64], _t: f64, out: &mut [f64; 3]) {
        let [k1, k2, k3] = [theta[0].exp(), theta[1].exp(), theta[2].exp()];
        let [a, b, c] = *y;
        *out = [
            -k1 * a + k3 * b * c,
            k1 * a - k3 * b * c - k2 * b * b,
            k2 * b * b,
        ];
    }

    /// `J_y dy + Σ ∂f/∂θᵢ dθᵢ`, with `∂f/∂θᵢ = kᵢ ∂f/∂kᵢ`.
    #[inline]
    fn tangent(
        &self,
        y: &[f64; 3],
        theta: &[f64],
        _t: f64,
        dy: &[f64; 3],
        dtheta: &[f64],
        out: &mut [f64; 3],
    ) -> bool {
        let [k1, k2, k3] = [theta[0].exp(), theta[1].exp(), theta[2].exp()];
        let [a, b, c] = *y;
        let [da, db, dc] = *dy;
        let first = -k1 * da - k1 * a * dtheta[0];
        let second = 2.0 * k2 * b * db + k2 * b * b * dtheta[1];
        let third = k3 * (c * db + b * dc) + k3 * b * c * dtheta[2];
        *out = [first + third, -first - third - second, second];
        true
    }

    /// `J_yᵀ w` and `J_θᵀ w`: the transpose of the tangent's matrix
    /// `J_y = [[−k₁, k₃c, k₃b], [k₁, −k₃c − 2k₂b, −k₃b], [0, 2k₂b, 0]]`, and
    /// `∂f/∂θ = (k₁a (−1, 1, 0), k₂b² (0, −1, 1), k₃bc (1, −1, 0))`.
    #[inline]
    fn cotangent(
        &self,
        y: &[f64; 3],
        theta: &[f64],
        _t: f64,
        w: &[f64; 3],
        out_y: &mut [f64; 3],
        out_theta: &mut [f64],
    ) -> bool {
        let [k1, k2, k3] = [theta[0].exp(), theta[1].exp(), theta[2].exp()];
        let [a, b, c] = *y;
        let [w0, w1, w2] = *w;
        *out_y = [
            k1 * (w1 - w0),
            k3 * c * (w0 - w1) + 2.0 * k2 * b * (w2 - w1),
            k3 * b * (w0 - w1),
        ];
        out_theta[0] = k1 * a * (w1 - w0);
        out_theta[1] = k2 * b * b * (w2 - w1);
        out_theta[2] = k3 * b * c * (w0 - w1);
        true
    }
}
