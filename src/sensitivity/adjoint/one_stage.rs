//! The discrete adjoint of a fixed step of a one-stage implicit method: backward Euler,
//! the trapezoidal rule and the implicit midpoint rule (Hager 2000, §3, for implicit
//! Runge–Kutta methods; Sandu, *On the properties of Runge–Kutta discrete adjoints*, ICCS
//! 2006, §2).
//!
//! # Derivation
//!
//! On a first-order system the step of `h` from `y` at `t` is `y₊ = y + h D`, with the
//! step's rate `D` the solution of the stage equation (the crate's one-stage rule, stage
//! at `c`, weight `w` of its rate):
//!
//! ```text
//! D = (1 − w) f(t, y, p) + w f(t + c h, Y, p),    Y = y + c h D
//! ```
//!
//! (backward Euler `c = 1, w = 1`; trapezoid `c = 1, w = ½`; midpoint `c = ½, w = 1`).
//! With `J`, `P` the Jacobians `∂f/∂y`, `∂f/∂p` at the stage and `J₀`, `P₀` at the start,
//! differentiating gives
//!
//! ```text
//! (I − w c h J) dD = (1 − w)(J₀ dy + P₀ dp) + w (J dy + P dp),    dy₊ = dy + h dD.
//! ```
//!
//! For `λ = ∂L/∂y₊` take `v` with `(I − w c h J)ᵀ v = h λ`: then `λᵀ dy₊ = λᵀ dy + vᵀ (…)`,
//!
//! ```text
//! ∂L/∂y = λ + J₀ᵀ (1 − w) v + Jᵀ (w v),    ∂L/∂p += P₀ᵀ (1 − w) v + Pᵀ (w v)
//! ```
//!
//! one transposed solve and one cotangent at the stage, and one at the start for `w < 1`.
//!
//! # The step taken again
//!
//! The forward run's Newton iteration stops at a tolerance; the adjoint is that of the
//! step whose stage equation holds exactly. Each step is taken again from its start (the
//! checkpoint's state, or the state the stretch reached) and its stage equation solved
//! to round-off by Newton's method with the exact matrix `I − w c h J(Y)` at the iterate
//! (Radau5's adjoint's rule for a new matrix and for convergence), from the forward run's
//! rate `(y₊ − y)/h` at a checkpoint or the step before's `D`. The `D` of every step of
//! a stretch is kept for its backward steps.
//!
//! # Cost
//!
//! A dense `n × n` Jacobian (`n` cotangents, or `n + 1` evaluations without) and LU
//! (`n³/3`) per Newton iteration taken again and per backward step: for small and
//! moderate systems. Memory: `D` of a stretch (`K` states) and `2 n²` numbers.

use super::linearised::Linearised;
use super::method::BackwardStep;
use super::round_off::{self, MAX_ITERATIONS, Next, not_solved};
use crate::linalg::dense;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Scalar, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{Float, One, Zero};

/// The rates `D` of a stretch's steps, and the buffers of the stage equation.
pub struct OneStageBackward<V: Vector> {
    n: usize,
    /// `c`: where the stage sits, as a fraction of the step.
    stage_fraction: f64,
    /// `w`: the weight of the stage's rate.
    weight: f64,
    /// `D` of each step of the stretch.
    rates: Vec<V>,
    /// The stage's state `Y`, its rate, and the start's part `(1 − w) f(t, y)`.
    stage: V,
    stage_rate: V,
    start_part: V,
    /// The adjoint's `v`, and a cotangent's state part.
    weights: V,
    mu: V,
    /// `J` row-major, and `I − w c h J` factored in place with its pivots.
    jacobian: Vec<V::Scalar>,
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    /// A right-hand side and solution of `n`.
    vector: Vec<V::Scalar>,
    parameter_part: Vec<V::Scalar>,
}

impl<V: Vector> OneStageBackward<V> {
    /// The buffers for stretches of up to `interval` steps of the rule `(c, w)`.
    pub(super) fn new(
        (stage_fraction, weight): (f64, f64),
        like: &V,
        interval: usize,
        parameters: usize,
    ) -> Self {
        let n = like.dim();
        let zero = V::Scalar::zero();
        OneStageBackward {
            n,
            stage_fraction,
            weight,
            rates: vec![like.zero_like(); interval],
            stage: like.zero_like(),
            stage_rate: like.zero_like(),
            start_part: like.zero_like(),
            weights: like.zero_like(),
            mu: like.zero_like(),
            jacobian: vec![zero; n * n],
            matrix: vec![zero; n * n],
            pivots: vec![0; n],
            vector: vec![zero; n],
            parameter_part: vec![zero; parameters],
        }
    }

    /// `Y = y + c h D` of step `index`, and its time.
    fn stage_state(&mut self, index: usize, y: &V, t: V::Scalar, h: V::Scalar) -> V::Scalar {
        let ch = V::Scalar::from_f64(self.stage_fraction) * h;
        self.stage.assign(y);
        self.stage.add_scaled_assign(&self.rates[index], ch);
        t + ch
    }

    /// Factors `I − w c h J(Y, t_Y)` (the Jacobian at the stage state in `self.stage`).
    fn factor<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        stage_time: V::Scalar,
        h: V::Scalar,
        time: V::Scalar,
    ) -> Result<(), SensitivityError> {
        let n = self.n;
        model.jacobian(&self.stage, stage_time, &mut self.jacobian);
        let wch = V::Scalar::from_f64(self.weight * self.stage_fraction) * h;
        for (r, row) in self.matrix.chunks_mut(n.max(1)).take(n).enumerate() {
            for (c, entry) in row.iter_mut().enumerate() {
                let diagonal = if r == c {
                    V::Scalar::one()
                } else {
                    V::Scalar::zero()
                };
                *entry = diagonal - wch * self.jacobian[r * n + c];
            }
        }
        if self.matrix.iter().any(|entry| !entry.is_finite()) {
            return Err(not_solved(time));
        }
        dense::factor(&mut self.matrix, &mut self.pivots, n).map_err(|_| not_solved(time))
    }
}

impl<V: Vector> BackwardStep<V> for OneStageBackward<V> {
    /// Solves `D = (1 − w) f(t, y) + w f(t + c h, y + c h D)` by Newton's method, a new
    /// matrix whenever the correction shrinks by less than half, until the correction is
    /// round-off. The checkpoint is the step's start and the forward run's end.
    fn advance<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        index: usize,
        checkpoint: &[V],
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        next: Option<&mut V>,
    ) -> Result<(), SensitivityError> {
        let one = V::Scalar::one();
        let (done, rest) = self.rates.split_at_mut(index);
        let rate = &mut rest[0];
        if let Some(before) = done.last() {
            rate.assign(before);
        } else {
            rate.assign(&checkpoint[1]);
            rate.add_scaled_assign(y, -one);
            rate.scale_assign(one / h);
        }
        let weight = V::Scalar::from_f64(self.weight);
        if self.weight != 1.0 {
            model.rate(y, t, &mut self.start_part);
            self.start_part.scale_assign(one - weight);
        }
        let tiny = V::Scalar::min_positive_value();
        let mut previous = V::Scalar::infinity();
        let mut refresh = true;
        for _ in 0..MAX_ITERATIONS {
            let stage_time = self.stage_state(index, y, t, h);
            model.rate(&self.stage, stage_time, &mut self.stage_rate);
            if refresh {
                self.factor(model, stage_time, h, t)?;
            }
            // The residual (1 − w) f₀ + w f(Y) − D, then the correction.
            let rate = &mut self.rates[index];
            for (r, entry) in self.vector.iter_mut().enumerate() {
                let start = if self.weight != 1.0 {
                    self.start_part.component(r)
                } else {
                    V::Scalar::zero()
                };
                *entry = start + weight * self.stage_rate.component(r) - rate.component(r);
            }
            dense::solve(&self.matrix, &self.pivots, self.n, &mut self.vector);
            let mut size = V::Scalar::zero();
            for (r, &correction) in self.vector.iter().enumerate() {
                let value = rate.component(r) + correction;
                rate.set_component(r, value);
                let start = y.component(r);
                let scale = (start + h * value).abs().max(start.abs()).max(tiny);
                size = size.max((h * correction).abs() / scale);
            }
            match round_off::next(size, previous, t)? {
                Next::Solved => {
                    if let Some(next) = next {
                        next.assign(y);
                        next.add_scaled_assign(&self.rates[index], h);
                    }
                    return Ok(());
                }
                Next::Again { refresh: slow } => (refresh, previous) = (slow, size),
            }
        }
        Err(not_solved(t))
    }

    /// Solves `(I − w c h J)ᵀ v = h λ` (the module's derivation), then
    /// `∂L/∂y = λ + Jᵀ (w v) + J₀ᵀ ((1 − w) v)` and `∂L/∂p += Pᵀ (w v) + P₀ᵀ ((1 − w) v)`.
    fn adjoint<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        index: usize,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        lambda: &mut V,
        gradient: &mut [V::Scalar],
    ) -> Result<(), SensitivityError> {
        let stage_time = self.stage_state(index, y, t, h);
        self.factor(model, stage_time, h, t)?;
        for (r, entry) in self.vector.iter_mut().enumerate() {
            *entry = h * lambda.component(r);
        }
        dense::solve_transposed(&self.matrix, &self.pivots, self.n, &mut self.vector);
        for (r, &value) in self.vector.iter().enumerate() {
            self.weights.set_component(r, value);
        }
        let parts = [(self.weight, true), (1.0 - self.weight, false)];
        for (share, at_stage) in parts.into_iter().filter(|&(share, _)| share != 0.0) {
            let (state, time) = if at_stage {
                (&self.stage, stage_time)
            } else {
                (y, t)
            };
            self.start_part.assign(&self.weights);
            self.start_part.scale_assign(V::Scalar::from_f64(share));
            model.cotangent(
                state,
                time,
                &self.start_part,
                &mut self.mu,
                &mut self.parameter_part,
            );
            lambda.add_scaled_assign(&self.mu, V::Scalar::one());
            for (sum, part) in gradient.iter_mut().zip(&self.parameter_part) {
                *sum = *sum + *part;
            }
        }
        Ok(())
    }
}
