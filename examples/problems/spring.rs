//! The damped spring `x'' = −k x − b x'` (unit mass) as a parameterised model, parameters
//! `[k, b]`, state `[x, v]`, with its exact tangent and cotangent: the model of the `fit_spring` example,
//! the sensitivity tests and `benches/sensitivity.rs`.

use timestep::sensitivity::Model;

/// The damped spring with its exact directional derivative `J_y·dy + J_p·dp` and its
/// transpose `(J_yᵀ w, J_pᵀ w)`.
#[derive(Clone, Copy, Debug)]
pub struct Spring;

impl Model<[f64; 2]> for Spring {
    #[inline]
    fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
        *out = [y[1], -p[0] * y[0] - p[1] * y[1]];
    }

    #[inline]
    fn tangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        dy: &[f64; 2],
        dp: &[f64],
        out: &mut [f64; 2],
    ) -> bool {
        *out = [
            dy[1],
            -p[0] * dy[0] - p[1] * dy[1] - dp[0] * y[0] - dp[1] * y[1],
        ];
        true
    }

    #[inline]
    fn cotangent(
        &self,
        y: &[f64; 2],
        p: &[f64],
        _t: f64,
        w: &[f64; 2],
        out_y: &mut [f64; 2],
        out_p: &mut [f64],
    ) -> bool {
        *out_y = [-p[0] * w[1], w[0] - p[1] * w[1]];
        out_p[0] = -y[0] * w[1];
        out_p[1] = -y[1] * w[1];
        true
    }
}
