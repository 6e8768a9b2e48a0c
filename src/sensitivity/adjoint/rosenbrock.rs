//! The discrete adjoint of a Rosenbrock step ([`Rodas4`](crate::Rodas4),
//! [`Ros3p`](crate::Ros3p), any [`RosenbrockTableau`]): A. Sandu, D. N. Daescu,
//! G. R. Carmichael, "Direct and adjoint sensitivity analysis of chemical kinetic systems
//! with KPP: Part I — theory and software tools", Atmos. Environ. 37 (2003) 5083–5096
//! (the discrete adjoint of a Rosenbrock method, with its second-order term), checked
//! numerically in Part II (Daescu, Sandu, Carmichael, same volume, 5097–5114); the
//! Runge–Kutta case in Sandu, *On the properties of Runge–Kutta discrete adjoints*, ICCS
//! 2006. Derived here for the crate's form of the step.
//!
//! # Derivation
//!
//! The step of `h` from `y` at `t`, in the form of Hairer–Wanner II, IV.7, (7.4′) (the
//! form [`Rosenbrock`] runs), with `σ = hγ`, `J = f_y(t, y, p)`, `f_t` the central
//! difference in time of [`Rosenbrock`]'s step, and `M = I − σJ`:
//!
//! ```text
//! M Uᵢ = σ (f(tᵢ, Yᵢ, p) + Σⱼ₍ⱼ<ᵢ₎ (cᵢⱼ/h) Uⱼ + γᵢ h f_t),   Yᵢ = y + Σⱼ₍ⱼ<ᵢ₎ aᵢⱼ Uⱼ,
//! y₊ = y + Σᵢ bᵢ Uᵢ,   tᵢ = t + αᵢ h.
//! ```
//!
//! Differentiating, with `Jᵢ`, `Pᵢ` the Jacobians `f_y`, `f_p` at stage `i` and `dJ` the
//! change of `J` itself with `(y, p)`:
//!
//! ```text
//! M dUᵢ = σ (Jᵢ dYᵢ + Pᵢ dp + Σⱼ (cᵢⱼ/h) dUⱼ + γᵢ h d f_t) + σ dJ Uᵢ
//! ```
//!
//! Take `λ = ∂L/∂y₊`, add the stage equations times multipliers `uᵢ/σ`, and choose the
//! `uᵢ` so that every `dUᵢ` drops out (the last stage first):
//!
//! ```text
//! Mᵀ uᵢ = σ bᵢ λ + σ Σₖ₍ₖ>ᵢ₎ (aₖᵢ μₖ + (cₖᵢ/h) uₖ),    μᵢ = Jᵢᵀ uᵢ
//! ∂L/∂y = λ + Σᵢ μᵢ + Σᵢ ∇_y (uᵢᵀ J Uᵢ) + h ∇_y (gᵀ f_t)
//! ∂L/∂p += Σᵢ Pᵢᵀ uᵢ + Σᵢ ∇_p (uᵢᵀ J Uᵢ) + h ∇_p (gᵀ f_t),    g = Σᵢ γᵢ uᵢ
//! ```
//!
//! The first two terms are an explicit Runge–Kutta pair's adjoint (`explicit.rs`) with
//! one transposed solve per stage, all with the matrix the stages were solved with (its LU
//! serves both: `Aᵀ x = b` from `P A = L U`). The third is the second-order term from
//! `J`'s dependence on `y` and `p`: `∇_y (uᵀ J(y) w)` is the Hessian of `uᵀ f` along `w`,
//! `d/dε J(y + εw)ᵀ u`, and `∇_p` likewise `d/dε P(y + εw)ᵀ u`; with only first
//! derivatives it is the central difference of two cotangents at `y ± δ w`,
//! `δ = ε^(1/3) · max(‖y‖∞, 1) / ‖w‖∞`. Its error, `δ² ‖w‖² |∂³f|/6` and
//! `ε |Jᵀu| / δ`, is about `ε^(2/3)` (10⁻¹¹ in `f64`) relative to the first-order terms
//! `Jᵀ u` (exact for a model quadratic in `y`, Robertson's, up to the rounding). The last
//! term is exact: `f_t` is itself the difference `(f(t⁺) − f(t⁻))/(t⁺ − t⁻)`, whose
//! gradient is that of two cotangents at `t±` (none for an
//! [autonomous](Rosenbrock::assume_autonomous) method, whose `f_t` is zero).
//!
//! # Which map
//!
//! The step is differentiated with `J` the model's own (the rows of its cotangents, or
//! the columns of its tangents; differences of its rate when it gives neither, whose
//! second-order term is then noise of about `ε^(1/6)` relative: give a cotangent). The
//! forward solve takes the same Jacobian (`AdjointMethod::MODEL_JACOBIAN`), whatever
//! [`Structure`](crate::Structure) the method was given, and the steps are taken again
//! from `y0` with it before the backward sweep (as for Radau5), so the samples and the
//! derivative are of one map to round-off.
//!
//! # Cost
//!
//! Per step taken again (three times a step in all: once from `y0`, once from a
//! checkpoint, once for the adjoint): one Jacobian (`n` cotangents), `f_t` (two rates),
//! a dense LU of `n × n` and the stages. Per backward step, `s` transposed solves and
//! `3s + 2` cotangents (`s` stage cotangents, `2s` for the second-order term, two for
//! `f_t`). Memory: `4s + 6` states, `2n²` numbers.

use super::linearised::Linearised;
use super::method::{AdjointMethod, BackwardStep, private::Sealed};
use crate::adaptive::Step;
use crate::integrators::implicit::jacobian::time_difference_times;
use crate::linalg::dense;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Forces, Rosenbrock, RosenbrockTableau, Scalar, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{One, Zero};

impl<const S: usize> Sealed for Rosenbrock<S> {}

impl<V: Vector, const S: usize> AdjointMethod<V> for Rosenbrock<S> {
    type Backward = RosenbrockBackward<V, S>;

    /// The state at the step's start: the stages are cheap to take again.
    const CHECKPOINT_STATES: usize = 1;

    /// The forward solve's Jacobian may be another's (a model without products, whose
    /// differences the method sizes by its tolerance): the run differentiated is that of
    /// the steps taken with the model's, from `y0`.
    const TAKES_STEPS_AGAIN: bool = true;

    const MODEL_JACOBIAN: bool = true;

    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>) {
        out.push(step.start().clone());
    }

    fn backward(&self, like: &V, _interval: usize, parameters: usize) -> RosenbrockBackward<V, S> {
        let n = like.dim();
        let zero = V::Scalar::zero();
        let zeros = |count| vec![like.zero_like(); count];
        RosenbrockBackward {
            tableau: self.tableau(),
            autonomous: self.is_autonomous(),
            n,
            jacobian: vec![zero; n * n],
            matrix: vec![zero; n * n],
            pivots: vec![0; n],
            vector: vec![zero; n],
            stages: zeros(S),
            points: zeros(S),
            weights: zeros(S),
            mu: zeros(S),
            rate: like.zero_like(),
            time_rate: like.zero_like(),
            sum: like.zero_like(),
            probe: like.zero_like(),
            cotangent: like.zero_like(),
            parameter_part: vec![zero; parameters],
        }
    }
}

/// One step's Jacobian, LU, stages and adjoint weights.
pub struct RosenbrockBackward<V: Vector, const S: usize> {
    tableau: &'static RosenbrockTableau<S>,
    autonomous: bool,
    n: usize,
    /// `J` at the step's start, row-major.
    jacobian: Vec<V::Scalar>,
    /// `I − hγ J`, factored in place, and its pivots.
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    /// A right-hand side and solution.
    vector: Vec<V::Scalar>,
    /// The increments `Uᵢ` and the stage points `Yᵢ`.
    stages: Vec<V>,
    points: Vec<V>,
    /// The adjoint weights `uᵢ` and `μᵢ = Jᵢᵀ uᵢ`.
    weights: Vec<V>,
    mu: Vec<V>,
    /// A stage's rate; `f_t`; a sum; a perturbed state; a cotangent.
    rate: V,
    time_rate: V,
    sum: V,
    probe: V,
    cotangent: V,
    parameter_part: Vec<V::Scalar>,
}

impl<V: Vector, const S: usize> RosenbrockBackward<V, S> {
    /// The step of `h` from `y` at `t`: `J`, `f_t`, the LU of `I − hγ J`, the stages.
    fn step<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) -> Result<(), SensitivityError> {
        let n = self.n;
        let tableau = self.tableau;
        let scalar = V::Scalar::from_f64;
        model.jacobian(y, t, &mut self.jacobian);
        if !self.autonomous {
            // Rosenbrock's own difference (`time_derivative`), at the same times.
            let (later, earlier) = time_difference_times(t, h);
            model.rate(y, later, &mut self.time_rate);
            model.rate(y, earlier, &mut self.sum);
            self.time_rate
                .add_scaled_assign(&self.sum, -V::Scalar::one());
            self.time_rate
                .scale_assign(V::Scalar::one() / (later - earlier));
        }
        let sigma = h * scalar(tableau.gamma);
        for (k, (entry, &j)) in self.matrix.iter_mut().zip(&self.jacobian).enumerate() {
            let diagonal = if k % (n + 1) == 0 {
                V::Scalar::one()
            } else {
                V::Scalar::zero()
            };
            *entry = diagonal - sigma * j;
        }
        dense::factor(&mut self.matrix, &mut self.pivots, n).map_err(|_| not_solved(t))?;
        for i in 0..S {
            let (done, rest) = self.stages.split_at_mut(i);
            let point = &mut self.points[i];
            point.assign(y);
            for (stage, &a) in done.iter().zip(&tableau.a[i]) {
                if a != 0.0 {
                    point.add_scaled_assign(stage, scalar(a));
                }
            }
            // ROS3P's third stage evaluates where its second did: the rate is kept.
            if !tableau.reuses_rate(i) {
                let stage_time = t + h * scalar(tableau.alpha[i]);
                model.rate(point, stage_time, &mut self.rate);
            }
            self.sum.assign(&self.rate);
            for (stage, &c) in done.iter().zip(&tableau.c[i]) {
                if c != 0.0 {
                    self.sum.add_scaled_assign(stage, scalar(c) / h);
                }
            }
            if !self.autonomous && tableau.gamma_sums[i] != 0.0 {
                self.sum
                    .add_scaled_assign(&self.time_rate, h * scalar(tableau.gamma_sums[i]));
            }
            for (k, x) in self.vector.iter_mut().enumerate() {
                *x = sigma * self.sum.component(k);
            }
            dense::solve(&self.matrix, &self.pivots, n, &mut self.vector);
            let stage = &mut rest[0];
            for (k, &x) in self.vector.iter().enumerate() {
                stage.set_component(k, x);
            }
            if !stage.is_finite() {
                return Err(not_solved(t));
            }
        }
        Ok(())
    }

    /// Adds the second-order term of stage `i`, `∇_{y,p} (uᵢᵀ J Uᵢ)`, to `self.sum` and
    /// `gradient` (the module's derivation).
    fn second_order<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        i: usize,
        y: &V,
        t: V::Scalar,
        gradient: &mut [V::Scalar],
    ) {
        let scratch = (
            &mut self.probe,
            &mut self.cotangent,
            &mut self.parameter_part[..],
        );
        model.second_order(
            y,
            t,
            (&self.weights[i], &self.stages[i]),
            scratch,
            &mut self.sum,
            gradient,
        );
    }
}

impl<V: Vector, const S: usize> BackwardStep<V> for RosenbrockBackward<V, S> {
    fn advance<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        _index: usize,
        _checkpoint: &[V],
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        next: Option<&mut V>,
    ) -> Result<(), SensitivityError> {
        // The stages are taken again by `adjoint`; only the next state is wanted here.
        let Some(next) = next else {
            return Ok(());
        };
        self.step(model, y, t, h)?;
        next.assign(y);
        for (stage, &b) in self.stages.iter().zip(&self.tableau.b) {
            if b != 0.0 {
                next.add_scaled_assign(stage, V::Scalar::from_f64(b));
            }
        }
        Ok(())
    }

    /// The module's formulas: `Mᵀ uᵢ = σ bᵢ λ + σ Σₖ₍ₖ>ᵢ₎ (aₖᵢ μₖ + (cₖᵢ/h) uₖ)` from the
    /// last stage down, then `∂L/∂y = λ + Σᵢ μᵢ + Σᵢ ∇_y (uᵢᵀ J Uᵢ) + h ∇_y (gᵀ f_t)` and
    /// the same in `p`.
    fn adjoint<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        _index: usize,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
        lambda: &mut V,
        gradient: &mut [V::Scalar],
    ) -> Result<(), SensitivityError> {
        self.step(model, y, t, h)?;
        let tableau = self.tableau;
        let scalar = V::Scalar::from_f64;
        let sigma = h * scalar(tableau.gamma);
        for i in (0..S).rev() {
            let (_, later) = self.weights.split_at_mut(i);
            let (weight, later) = later.split_first_mut().expect("stage i exists");
            weight.assign(lambda);
            weight.scale_assign(sigma * scalar(tableau.b[i]));
            for (k, u) in (i + 1..S).zip(later.iter()) {
                let (a, c) = (tableau.a[k][i], tableau.c[k][i]);
                if a != 0.0 {
                    weight.add_scaled_assign(&self.mu[k], sigma * scalar(a));
                }
                if c != 0.0 {
                    weight.add_scaled_assign(u, sigma * scalar(c) / h);
                }
            }
            for (k, x) in self.vector.iter_mut().enumerate() {
                *x = weight.component(k);
            }
            dense::solve_transposed(&self.matrix, &self.pivots, self.n, &mut self.vector);
            for (k, &x) in self.vector.iter().enumerate() {
                weight.set_component(k, x);
            }
            let stage_time = t + h * scalar(tableau.alpha[i]);
            model.cotangent(
                &self.points[i],
                stage_time,
                weight,
                &mut self.mu[i],
                &mut self.parameter_part,
            );
            for (sum, part) in gradient.iter_mut().zip(&self.parameter_part) {
                *sum = *sum + *part;
            }
        }
        // The new λ gathers in `sum`: the old one is read above.
        self.sum.set_zero();
        for i in 0..S {
            self.sum.add_scaled_assign(&self.mu[i], V::Scalar::one());
            self.second_order(model, i, y, t, gradient);
        }
        if !self.autonomous {
            // g = h Σᵢ γᵢ uᵢ against f_t = (f(t⁺) − f(t⁻))/(t⁺ − t⁻).
            self.probe.set_zero();
            for (u, &gamma) in self.weights.iter().zip(&tableau.gamma_sums) {
                if gamma != 0.0 {
                    self.probe.add_scaled_assign(u, h * scalar(gamma));
                }
            }
            let (later, earlier) = time_difference_times(t, h);
            let scale = V::Scalar::one() / (later - earlier);
            for (time, sign) in [(later, scale), (earlier, -scale)] {
                model.cotangent(
                    y,
                    time,
                    &self.probe,
                    &mut self.cotangent,
                    &mut self.parameter_part,
                );
                self.sum.add_scaled_assign(&self.cotangent, sign);
                for (sum, part) in gradient.iter_mut().zip(&self.parameter_part) {
                    *sum = *sum + sign * *part;
                }
            }
        }
        lambda.add_scaled_assign(&self.sum, V::Scalar::one());
        Ok(())
    }
}

/// The step from `time` could not be taken again: its matrix `I − hγJ` is singular or
/// not finite, or its stages are not finite.
#[cold]
fn not_solved<T: Scalar>(time: T) -> SensitivityError {
    SensitivityError::StagesNotSolved {
        time: time.to_f64(),
    }
}
