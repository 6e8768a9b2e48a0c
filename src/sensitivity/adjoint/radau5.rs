//! The discrete adjoint of Radau5's step: the exact adjoint of the converged 3-stage
//! Radau IIA step (Hager 2000, §3, for implicit Runge–Kutta methods; Sandu, *On the
//! properties of Runge–Kutta discrete adjoints*, ICCS 2006, §2).
//!
//! # Derivation
//!
//! The step of `h` from `y` at `t` is the solution `Z = (Z₁, Z₂, Z₃)` of the stage
//! equations, then the last stage (the method is stiffly accurate, `bⱼ = a₃ⱼ`):
//!
//! ```text
//! Zᵢ = h Σⱼ aᵢⱼ f(tⱼ, y + Zⱼ, p),    tⱼ = t + cⱼ h,    y₊ = y + Z₃ = y + h Σⱼ bⱼ f(tⱼ, Yⱼ, p)
//! ```
//!
//! with `Yⱼ = y + Zⱼ`, `Jⱼ = ∂f/∂y` and `Pⱼ = ∂f/∂p` at stage `j`. Differentiating,
//! with `Kⱼ = Jⱼ dYⱼ + Pⱼ dp`:
//!
//! ```text
//! dYᵢ = dy + h Σⱼ aᵢⱼ Kⱼ,    dy₊ = dy + h Σⱼ bⱼ Kⱼ.
//! ```
//!
//! Take `λ = ∂L/∂y₊` and look for stage weights `uᵢ` such that
//! `λᵀ dy₊ = (λ + Σᵢ μᵢ)ᵀ dy + Σᵢ uᵢᵀ Pᵢ dp` for every `dy`, `dp`, with `μᵢ = Jᵢᵀ uᵢ`.
//! Write `λᵀ dy₊ = λᵀ dy + Σⱼ h bⱼ λᵀ Kⱼ` and add the stage equations times `μᵢ`,
//! `Σᵢ μᵢᵀ (dy + h Σⱼ aᵢⱼ Kⱼ − dYᵢ) = 0`:
//!
//! ```text
//! λᵀ dy₊ = (λ + Σᵢ μᵢ)ᵀ dy + Σⱼ (h bⱼ λ + h Σᵢ aᵢⱼ μᵢ)ᵀ Kⱼ − Σⱼ μⱼᵀ dYⱼ
//!        = (λ + Σᵢ μᵢ)ᵀ dy + Σⱼ uⱼᵀ Pⱼ dp + Σⱼ (Jⱼᵀ uⱼ − μⱼ)ᵀ dYⱼ
//! ```
//!
//! with `uⱼ = h bⱼ λ + h Σᵢ aᵢⱼ μᵢ`. The last sum vanishes for `μⱼ = Jⱼᵀ uⱼ`, which makes
//! the weights the solution of one linear system of `3n` unknowns, the transposed stage
//! system:
//!
//! ```text
//! uᵢ − h Σⱼ aⱼᵢ Jⱼᵀ uⱼ = h bᵢ λ        (block (i, j): δᵢⱼ I − h aⱼᵢ Jⱼᵀ)
//! ∂L/∂y = λ + Σᵢ Jᵢᵀ uᵢ,    ∂L/∂p += Σᵢ Pᵢᵀ uᵢ
//! ```
//!
//! These are the explicit pairs' formulas with the sum over every stage instead of the
//! later ones: for a strictly lower triangular `A` the system is triangular and solved
//! by back substitution. Its matrix is the transpose of the Newton matrix
//! `δᵢⱼ I − h aᵢⱼ Jⱼ` of the stage equations with the blocks' `Jⱼ` moved across a row,
//! non-singular where the step's own Newton iteration converged.
//!
//! # Stages
//!
//! Radau5 stops its simplified Newton iteration at a fraction of the error tolerance;
//! the adjoint is that of the step whose stage equations hold exactly. Each step is
//! taken again from its start (the checkpoint's state, or the state the stretch reached)
//! and its stage equations solved to round-off by Newton's method with the `3n × 3n`
//! matrix `δᵢⱼ I − h aᵢⱼ Jⱼ` at the iterate, from the forward solve's own stages (kept at
//! each checkpoint, from its collocation polynomial) or from the collocation polynomial of
//! the step before extrapolated, as radau5.f starts its iteration. The converged stages of
//! every step of a stretch are kept for its backward steps.
//!
//! # Cost
//!
//! Dense LU of `3n × 3n` matrices, `O((3n)³) = 27 n³ / 3` operations each, one per Newton
//! Jacobian and one per backward step, with `3n` cotangents for the stage Jacobians
//! (rows `Jⱼᵀ e_r`): for small and moderate systems (tens of unknowns). Memory: the
//! stages of a stretch (`3K` states) and `12 n²` numbers.

use super::linearised::Linearised;
use super::method::{AdjointMethod, BackwardStep, private::Sealed};
use super::round_off::{self, MAX_ITERATIONS, Next, not_solved};
use crate::adaptive::Step;
use crate::integrators::implicit::radau5::{matrix, nodes};
use crate::linalg::dense;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Forces, Radau5, Scalar, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{Float, One, Zero};

impl Sealed for Radau5 {}

impl<V: Vector> AdjointMethod<V> for Radau5 {
    type Backward = Radau5Backward<V>;

    /// The state at the step's start and the increments `Zᵢ` of its three stages.
    const CHECKPOINT_STATES: usize = 4;

    const TAKES_STEPS_AGAIN: bool = true;

    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>) {
        let start = step.start().clone();
        let (t, h) = (step.start_time(), step.end_time() - step.start_time());
        let mut stage = start.clone();
        out.push(start.clone());
        for c in nodes() {
            // The collocation polynomial passes through the stages the iteration reached.
            step.state_at(t + V::Scalar::from_f64(c) * h, &mut stage);
            stage.add_scaled_assign(&start, -V::Scalar::one());
            out.push(stage.clone());
        }
    }

    fn backward(&self, like: &V, interval: usize, parameters: usize) -> Radau5Backward<V> {
        let n = like.dim();
        let zero = V::Scalar::zero();
        let zeros = |count| vec![like.zero_like(); count];
        Radau5Backward {
            n,
            a: matrix(),
            c: nodes(),
            stages: zeros(3 * interval),
            previous_h: zero,
            stage: like.zero_like(),
            rates: zeros(3),
            weights: zeros(3),
            mu: like.zero_like(),
            jacobians: vec![zero; 3 * n * n],
            matrix: vec![zero; 9 * n * n],
            pivots: vec![0; 3 * n],
            vector: vec![zero; 3 * n],
            parameter_part: vec![zero; parameters],
        }
    }
}

/// The converged stages of a stretch and the buffers of the stage systems.
pub struct Radau5Backward<V: Vector> {
    n: usize,
    a: [[f64; 3]; 3],
    c: [f64; 3],
    /// `Zᵢ` of each step of the stretch, three by three.
    stages: Vec<V>,
    /// The step before the one being taken again, for its Newton start.
    previous_h: V::Scalar,
    /// A stage's state `Yᵢ = y + Zᵢ`.
    stage: V,
    /// `f(tᵢ, Yᵢ)`.
    rates: Vec<V>,
    /// The stage weights `uᵢ`.
    weights: Vec<V>,
    mu: V,
    /// `Jᵢ`, row-major, one after another.
    jacobians: Vec<V::Scalar>,
    /// The `3n × 3n` matrix, factored in place, and its pivots.
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    /// A right-hand side and solution of `3n`.
    vector: Vec<V::Scalar>,
    parameter_part: Vec<V::Scalar>,
}

impl<V: Vector> Radau5Backward<V> {
    /// The stage Jacobians `Jⱼ` at `y + Zⱼ` of step `index`.
    fn stage_jacobians<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        index: usize,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) {
        let nn = self.n * self.n;
        for j in 0..3 {
            self.stage.assign(y);
            self.stage
                .add_scaled_assign(&self.stages[3 * index + j], V::Scalar::one());
            let tj = t + V::Scalar::from_f64(self.c[j]) * h;
            model.jacobian(&self.stage, tj, &mut self.jacobians[j * nn..(j + 1) * nn]);
        }
    }

    /// Factors the `3n × 3n` matrix with block `(i, j)` equal to `δᵢⱼ I − h a Jⱼ` (with
    /// `Jⱼ` transposed when `transposed`), `a = aⱼᵢ` when `transposed`, else `aᵢⱼ`.
    fn factor(
        &mut self,
        h: V::Scalar,
        transposed: bool,
        time: V::Scalar,
    ) -> Result<(), SensitivityError> {
        let n = self.n;
        let size = 3 * n;
        for i in 0..3 {
            for j in 0..3 {
                let a = if transposed {
                    self.a[j][i]
                } else {
                    self.a[i][j]
                };
                let ha = h * V::Scalar::from_f64(a);
                let jacobian = &self.jacobians[j * n * n..(j + 1) * n * n];
                for r in 0..n {
                    for c in 0..n {
                        let entry = if transposed {
                            jacobian[c * n + r]
                        } else {
                            jacobian[r * n + c]
                        };
                        let diagonal = if i == j && r == c {
                            V::Scalar::one()
                        } else {
                            V::Scalar::zero()
                        };
                        self.matrix[(i * n + r) * size + j * n + c] = diagonal - ha * entry;
                    }
                }
            }
        }
        dense::factor(&mut self.matrix, &mut self.pivots, size).map_err(|_| not_solved(time))
    }

    /// The Newton start for step `index`: the checkpoint's stages, or the step before's
    /// collocation polynomial `u(s)` (through `0` and `Zᵢ` at `0` and `cᵢ`) extrapolated,
    /// `Zᵢ = u(1 + cᵢ h/h₋) − Z₃` (radau5.f's start).
    fn start(&mut self, index: usize, checkpoint: &[V], h: V::Scalar) {
        if index == 0 {
            for (stage, kept) in self.stages[..3].iter_mut().zip(&checkpoint[1..4]) {
                stage.assign(kept);
            }
            return;
        }
        let (done, rest) = self.stages.split_at_mut(3 * index);
        let before = &done[3 * index - 3..];
        let ratio = (h / self.previous_h).to_f64();
        let nodes = [0.0, self.c[0], self.c[1], self.c[2]];
        for (i, stage) in rest[..3].iter_mut().enumerate() {
            let s = 1.0 + self.c[i] * ratio;
            stage.set_zero();
            for (k, z) in before.iter().enumerate() {
                // The Lagrange weight of node k + 1 at s.
                let weight = (0..4)
                    .filter(|&m| m != k + 1)
                    .fold(1.0, |w, m| w * (s - nodes[m]) / (nodes[k + 1] - nodes[m]));
                stage.add_scaled_assign(z, V::Scalar::from_f64(weight));
            }
            stage.add_scaled_assign(&before[2], -V::Scalar::one());
        }
    }
}

impl<V: Vector> BackwardStep<V> for Radau5Backward<V> {
    /// Solves the stage equations `Zᵢ − h Σⱼ aᵢⱼ f(tⱼ, y + Zⱼ) = 0` by Newton's method,
    /// a new matrix whenever the correction shrinks by less than half, until the
    /// correction is round-off.
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
        self.start(index, checkpoint, h);
        let n = self.n;
        let tiny = V::Scalar::min_positive_value();
        let mut previous = V::Scalar::infinity();
        let mut refresh = true;
        let mut converged = false;
        for _ in 0..MAX_ITERATIONS {
            for j in 0..3 {
                self.stage.assign(y);
                self.stage
                    .add_scaled_assign(&self.stages[3 * index + j], V::Scalar::one());
                let tj = t + V::Scalar::from_f64(self.c[j]) * h;
                model.rate(&self.stage, tj, &mut self.rates[j]);
            }
            if refresh {
                self.stage_jacobians(model, index, y, t, h);
                self.factor(h, false, t)?;
            }
            // The residual −(Zᵢ − h Σⱼ aᵢⱼ fⱼ), then the correction.
            for i in 0..3 {
                let z = &self.stages[3 * index + i];
                for r in 0..n {
                    let sum = (0..3).fold(V::Scalar::zero(), |sum, j| {
                        sum + V::Scalar::from_f64(self.a[i][j]) * self.rates[j].component(r)
                    });
                    self.vector[i * n + r] = h * sum - z.component(r);
                }
            }
            dense::solve(&self.matrix, &self.pivots, 3 * n, &mut self.vector);
            let mut size = V::Scalar::zero();
            for i in 0..3 {
                let z = &mut self.stages[3 * index + i];
                for r in 0..n {
                    let correction = self.vector[i * n + r];
                    let value = z.component(r) + correction;
                    z.set_component(r, value);
                    let scale = (y.component(r) + value)
                        .abs()
                        .max(y.component(r).abs())
                        .max(tiny);
                    size = size.max(correction.abs() / scale);
                }
            }
            match round_off::next(size, previous, t)? {
                Next::Solved => {
                    converged = true;
                    break;
                }
                Next::Again { refresh: slow } => (refresh, previous) = (slow, size),
            }
        }
        if !converged {
            return Err(not_solved(t));
        }
        self.previous_h = h;
        if let Some(next) = next {
            next.assign(y);
            next.add_scaled_assign(&self.stages[3 * index + 2], V::Scalar::one());
        }
        Ok(())
    }

    /// Solves `uᵢ − h Σⱼ aⱼᵢ Jⱼᵀ uⱼ = h bᵢ λ` (the module's derivation) by dense LU, then
    /// `∂L/∂y = λ + Σᵢ Jᵢᵀ uᵢ`, `∂L/∂p += Σᵢ Pᵢᵀ uᵢ` by one cotangent per stage.
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
        let n = self.n;
        self.stage_jacobians(model, index, y, t, h);
        self.factor(h, true, t)?;
        for i in 0..3 {
            // bᵢ = a₃ᵢ: stiffly accurate.
            let hb = h * V::Scalar::from_f64(self.a[2][i]);
            for r in 0..n {
                self.vector[i * n + r] = hb * lambda.component(r);
            }
        }
        dense::solve(&self.matrix, &self.pivots, 3 * n, &mut self.vector);
        for i in 0..3 {
            let weight = &mut self.weights[i];
            for r in 0..n {
                weight.set_component(r, self.vector[i * n + r]);
            }
        }
        for i in 0..3 {
            self.stage.assign(y);
            self.stage
                .add_scaled_assign(&self.stages[3 * index + i], V::Scalar::one());
            let ti = t + V::Scalar::from_f64(self.c[i]) * h;
            model.cotangent(
                &self.stage,
                ti,
                &self.weights[i],
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
