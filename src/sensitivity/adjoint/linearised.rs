//! [`Linearised`]: a model at fixed parameters, its rate and the products with its
//! Jacobians that a backward sweep asks for, counted.

use crate::math;
use crate::sensitivity::Model;
use crate::{Scalar, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{Float, One, Zero};

/// The model at fixed parameters: rates, cotangents `J_yᵀ w`, `J_pᵀ w` and dense
/// Jacobians `J_y`, with the evaluations and cotangents spent. When the model gives no
/// [`Model::cotangent`], each is built a column at a time from [`Model::tangent`] or a
/// one-sided difference (the step of [`Forward`](crate::sensitivity::Forward)'s: `√ε`
/// relative, absolute below 1).
pub struct Linearised<'a, V: Vector, M> {
    model: &'a M,
    parameters: &'a [V::Scalar],
    rate: V,
    column: V,
    probe: V,
    unit: V,
    zero: V,
    perturbed: Vec<V::Scalar>,
    unit_parameter: Vec<V::Scalar>,
    /// The parameter part of a cotangent taken only for its state part.
    discarded: Vec<V::Scalar>,
    /// Evaluations of the rate.
    pub(super) evaluations: u64,
    /// Cotangents taken (each Jacobian row read through one counts).
    pub(super) cotangents: u64,
}

impl<'a, V: Vector, M: Model<V>> Linearised<'a, V, M> {
    pub(super) fn new(model: &'a M, parameters: &'a [V::Scalar], like: &V) -> Self {
        let zero = like.zero_like();
        Linearised {
            model,
            parameters,
            rate: zero.clone(),
            column: zero.clone(),
            probe: zero.clone(),
            unit: zero.clone(),
            zero,
            perturbed: parameters.to_vec(),
            unit_parameter: vec![V::Scalar::zero(); parameters.len()],
            discarded: vec![V::Scalar::zero(); parameters.len()],
            evaluations: 0,
            cotangents: 0,
        }
    }

    /// How many parameters the model has.
    pub(super) fn parameter_count(&self) -> usize {
        self.parameters.len()
    }

    /// Writes `f(t, y, p)` into `out`.
    pub(super) fn rate(&mut self, y: &V, t: V::Scalar, out: &mut V) {
        self.model.rate(y, self.parameters, t, out);
        self.evaluations += 1;
    }

    /// Writes `J_yᵀ w` into `out_y` and `J_pᵀ w` into `out_p` at (`y`, `p`, `t`).
    pub(super) fn cotangent(
        &mut self,
        y: &V,
        t: V::Scalar,
        w: &V,
        out_y: &mut V,
        out_p: &mut [V::Scalar],
    ) {
        self.cotangents += 1;
        if self.model.cotangent(y, self.parameters, t, w, out_y, out_p) {
            return;
        }
        self.rate_at_state(y, t);
        for j in 0..y.dim() {
            self.state_column(y, t, j);
            out_y.set_component(j, dot(w, &self.column));
        }
        for (k, out) in out_p.iter_mut().enumerate() {
            self.parameter_column(y, t, k);
            *out = dot(w, &self.column);
        }
    }

    /// Writes `J_y` at (`y`, `p`, `t`) row-major into `out` (`n × n` for `n = y.dim()`):
    /// from the model's products when it gives them ([`model_jacobian`](Self::model_jacobian)),
    /// else a column at a time by differences.
    pub(super) fn jacobian(&mut self, y: &V, t: V::Scalar, out: &mut [V::Scalar]) {
        if self.model_jacobian(y, t, out) {
            return;
        }
        let n = y.dim();
        self.rate_at_state(y, t);
        for c in 0..n {
            self.state_column(y, t, c);
            for r in 0..n {
                out[r * n + c] = self.column.component(r);
            }
        }
    }

    /// Writes `J_y` at (`y`, `p`, `t`) row-major into `out` and returns `true` when the
    /// model gives its products: a row per cotangent `J_yᵀ e_r`, or else a column per
    /// tangent `J_y e_c`; returns `false` (with `out` partly written) when it gives
    /// neither.
    pub(super) fn model_jacobian(&mut self, y: &V, t: V::Scalar, out: &mut [V::Scalar]) -> bool {
        let n = y.dim();
        let one = V::Scalar::one();
        for r in 0..n {
            self.unit.set_zero();
            self.unit.set_component(r, one);
            let given = self.model.cotangent(
                y,
                self.parameters,
                t,
                &self.unit,
                &mut self.column,
                &mut self.discarded,
            );
            if !given {
                break;
            }
            self.cotangents += 1;
            for c in 0..n {
                out[r * n + c] = self.column.component(c);
            }
            if r + 1 == n {
                return true;
            }
        }
        for c in 0..n {
            self.unit.set_zero();
            self.unit.set_component(c, one);
            let given = self.model.tangent(
                y,
                self.parameters,
                t,
                &self.unit,
                &self.unit_parameter,
                &mut self.column,
            );
            if !given {
                return false;
            }
            for r in 0..n {
                out[r * n + c] = self.column.component(r);
            }
        }
        true
    }

    /// For the pair `(u, w)`, adds `∇_y (uᵀ J(y, p) w)` to `sum` and `∇_p (uᵀ J(y, p) w)` to `gradient`, `J` at
    /// time `t`: the change of a linearly implicit step's own Jacobian with `(y, p)`
    /// (`rosenbrock.rs` derives it), by the central difference of the cotangents
    /// `J(y ± δw)ᵀ u`, `P(y ± δw)ᵀ u`, `δ = ε^(1/3) · max(‖y‖∞, 1) / ‖w‖∞`: about
    /// `ε^(2/3)` relative to `Jᵀ u` (exact for a model quadratic in `y`, up to rounding).
    /// Nothing for a zero `u` or `w`. `scratch` is a probe state, a cotangent and a
    /// parameter part.
    pub(super) fn second_order(
        &mut self,
        y: &V,
        t: V::Scalar,
        (u, w): (&V, &V),
        scratch: (&mut V, &mut V, &mut [V::Scalar]),
        sum: &mut V,
        gradient: &mut [V::Scalar],
    ) {
        let (probe, cotangent, parameter_part) = scratch;
        let size = largest(w);
        if size == V::Scalar::zero() || largest(u) == V::Scalar::zero() {
            return;
        }
        let third = V::Scalar::from_f64(1.0 / 3.0);
        let delta =
            math::powf(V::Scalar::epsilon(), third) * largest(y).max(V::Scalar::one()) / size;
        let half = V::Scalar::from_f64(0.5) / delta;
        for sign in [V::Scalar::one(), -V::Scalar::one()] {
            probe.assign(y);
            probe.add_scaled_assign(w, sign * delta);
            self.cotangent(probe, t, u, cotangent, parameter_part);
            sum.add_scaled_assign(cotangent, sign * half);
            for (total, part) in gradient.iter_mut().zip(parameter_part.iter()) {
                *total = *total + sign * half * *part;
            }
        }
    }

    /// `f(t, y, p)` into `self.rate`, for the columns by differences.
    fn rate_at_state(&mut self, y: &V, t: V::Scalar) {
        self.model.rate(y, self.parameters, t, &mut self.rate);
        self.evaluations += 1;
    }

    /// Column `j` of `J_y` into `self.column` (`self.rate` holds the rate at `y`).
    fn state_column(&mut self, y: &V, t: V::Scalar, j: usize) {
        let one = V::Scalar::one();
        self.unit.set_zero();
        self.unit.set_component(j, one);
        if self.model.tangent(
            y,
            self.parameters,
            t,
            &self.unit,
            &self.unit_parameter,
            &mut self.column,
        ) {
            return;
        }
        self.probe.assign(y);
        let x = y.component(j);
        let step = V::Scalar::epsilon().sqrt() * x.abs().max(one);
        self.probe.set_component(j, x + step);
        let step = self.probe.component(j) - x; // the step as represented
        self.model
            .rate(&self.probe, self.parameters, t, &mut self.column);
        self.evaluations += 1;
        self.column.add_scaled_assign(&self.rate, -one);
        self.column.scale_assign(one / step);
    }

    /// Column `k` of `J_p` into `self.column` (`self.rate` holds the rate at `y`).
    fn parameter_column(&mut self, y: &V, t: V::Scalar, k: usize) {
        let one = V::Scalar::one();
        self.unit_parameter[k] = one;
        let exact = self.model.tangent(
            y,
            self.parameters,
            t,
            &self.zero,
            &self.unit_parameter,
            &mut self.column,
        );
        self.unit_parameter[k] = V::Scalar::zero();
        if exact {
            return;
        }
        let x = self.parameters[k];
        let step = V::Scalar::epsilon().sqrt() * x.abs().max(one);
        self.perturbed[k] = x + step;
        let step = self.perturbed[k] - x;
        self.model.rate(y, &self.perturbed, t, &mut self.column);
        self.evaluations += 1;
        self.perturbed[k] = x;
        self.column.add_scaled_assign(&self.rate, -one);
        self.column.scale_assign(one / step);
    }
}

/// `max |xⱼ|`.
fn largest<V: Vector>(x: &V) -> V::Scalar {
    (0..x.dim()).fold(V::Scalar::zero(), |m, j| m.max(x.component(j).abs()))
}

fn dot<V: Vector>(a: &V, b: &V) -> V::Scalar {
    (0..a.dim()).fold(V::Scalar::zero(), |sum, i| {
        sum + a.component(i) * b.component(i)
    })
}
