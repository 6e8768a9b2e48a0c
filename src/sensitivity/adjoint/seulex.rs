//! The discrete adjoint of a SEULEX step ([`Seulex`]: the linearly implicit Euler method
//! with extrapolation, Hairer–Wanner II, IV.9, after seulex.f; the extrapolation of
//! Deuflhard, *Recent progress in extrapolation methods for ordinary differential
//! equations*, SIAM Review 27 (1985) 505–535). The adjoint of a linearly implicit step
//! whose matrix holds `J(y, p)` itself is Sandu, Daescu, Carmichael, Atmos. Environ. 37
//! (2003) 5083–5096 (there for Rosenbrock methods, `rosenbrock.rs`); derived here for
//! SEULEX's step.
//!
//! # Derivation
//!
//! The step of `h` from `y` at `t` that took `κ` lines of the table: `J = f_y(t, y, p)`,
//! and line `j` (`1 ≤ j ≤ κ`) takes `nⱼ` linearly implicit Euler substeps of
//! `hⱼ = h/nⱼ` from `y₀ = y` with `Mⱼ = I/hⱼ − J`:
//!
//! ```text
//! Mⱼ Δₘ = f(τₘ, yₘ, p),    yₘ₊₁ = yₘ + Δₘ,    Sⱼ = Σₘ Δₘ = y_nⱼ − y,
//! τₘ = t + (m + 1) hⱼ   (t + m hⱼ for autonomous forces, the rate at the start for m = 0)
//! ```
//!
//! The Aitken–Neville scheme is linear with coefficients that depend on the `nⱼ` alone:
//! `Tκκ = Σⱼ cⱼ Sⱼ`, `Σⱼ cⱼ = 1` (the `cⱼ` are the scheme run on unit vectors), and
//! `y₊ = y + Tκκ`. Differentiating a substep, `Mⱼ dΔₘ = Jₘ dyₘ + Pₘ dp + dJ Δₘ`, with
//! `Jₘ`, `Pₘ` the Jacobians `f_y`, `f_p` at `(τₘ, yₘ)` and `dJ` the change of `J` itself
//! with `(y, p)`. With `λ = ∂L/∂y₊`, line `j`'s substeps are taken back from the last,
//! the cotangent of `Δₘ` being `aₘ = cⱼ λ + Σᵢ₍ᵢ>ₘ₎ μᵢ` (every later point `yᵢ` holds
//! `Δₘ`):
//!
//! ```text
//! Mⱼᵀ uₘ = aₘ,    μₘ = Jₘᵀ uₘ,
//! ∂L/∂y = λ + Σⱼ Σₘ μₘ + Σⱼ Σₘ ∇_y (uₘᵀ J Δₘ),
//! ∂L/∂p += Σⱼ Σₘ Pₘᵀ uₘ + Σⱼ Σₘ ∇_p (uₘᵀ J Δₘ)
//! ```
//!
//! (the direct `λ` is `λ (1 − Σⱼ cⱼ)` plus the `cⱼ λ` each line passes to `y₀ = y`). One
//! transposed solve with the line's LU and one cotangent per substep; the second-order
//! term is `rosenbrock.rs`'s central difference of two cotangents at `y ± δw`
//! (`Linearised::second_order`), taken per substep, `(uₘ, Δₘ)`, or, when the substeps
//! outnumber the unknowns, once per row `r` of `J`: `Σ uᵀ J Δ = Σᵣ e_rᵀ J gᵣ` with
//! `gᵣ = Σ (uₘ)ᵣ Δₘ`, `2n` cotangents whatever the lines.
//!
//! # Which map
//!
//! The step sizes, the lines `κ` of each step (recorded from the forward solve,
//! `AdjointMethod::record`) and the sequence are held fixed: the stability check and the
//! error test only choose them. [`Seulex`] keeps its Jacobian from step to step while
//! its stability check allows (seulex.f's `THET`, `θ ≤ min(10⁻⁴, rtol)`), and takes it
//! by differences or as the forces' own; the map differentiated takes the model's
//! Jacobian (rows of its cotangents, dense whatever the method's
//! [`Structure`](crate::Structure)) fresh at every step. The forward solve takes the
//! model's too (`AdjointMethod::MODEL_JACOBIAN`), so it chooses the same kind of steps
//! as a plain solve with an analytic Jacobian, and every step is taken again from `y0`
//! with a fresh one before the backward sweep (as for Rosenbrock methods), so the samples
//! are those of the map differentiated: they differ from the forward solve's by the
//! effect of a Jacobian kept over several steps.
//!
//! # Cost
//!
//! Per step taken again (three times a step in all: once from `y0`, once from a
//! checkpoint, once for the adjoint): one Jacobian (`n` cotangents) and `κ` LUs of
//! `n × n`, `Σⱼ nⱼ` rates and solves. Per backward step, `Σⱼ nⱼ` transposed solves and
//! cotangents, and `2 min(Σⱼ nⱼ, n)` cotangents for the second-order term. Memory:
//! the points and increments of a line's substeps (`2 · 96` states for seulex.f's
//! sequence, whose twelfth line has 96), 21 more states and `3n²` numbers.

use super::linearised::Linearised;
use super::method::{AdjointMethod, BackwardStep, private::Sealed};
use crate::adaptive::Step;
use crate::integrators::implicit::seulex::{MAX_COLUMNS, Table, extrapolate};
use crate::linalg::dense;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Forces, Scalar, Seulex, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{One, Zero};

impl Sealed for Seulex {}

impl<V: Vector> AdjointMethod<V> for Seulex {
    type Backward = SeulexBackward<V>;

    /// The state at the step's start: its lines are cheap to take again.
    const CHECKPOINT_STATES: usize = 1;

    /// The forward solve keeps its Jacobian over several steps: the run differentiated
    /// is that of the steps taken with a fresh one, from `y0`.
    const TAKES_STEPS_AGAIN: bool = true;

    const MODEL_JACOBIAN: bool = true;

    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>) {
        out.push(step.start().clone());
    }

    /// The lines of the step's table.
    const RECORD: usize = 1;

    fn record<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<f64>) {
        out.push(step.method_workspace().lines() as f64);
    }

    fn backward(&self, like: &V, _interval: usize, parameters: usize) -> SeulexBackward<V> {
        let n = like.dim();
        let zero = V::Scalar::zero();
        let zeros = |count| vec![like.zero_like(); count];
        let sequence = self.table();
        let substeps = sequence.numbers[MAX_COLUMNS - 1] as usize;
        SeulexBackward {
            sequence,
            autonomous: self.is_autonomous(),
            n,
            lines: 0,
            coefficients: [0.0; MAX_COLUMNS],
            jacobian: vec![zero; n * n],
            matrix: vec![zero; n * n],
            pivots: vec![0; n],
            vector: vec![zero; n],
            table: zeros(MAX_COLUMNS),
            points: zeros(substeps),
            increments: zeros(substeps),
            rows: zeros(n),
            start_rate: like.zero_like(),
            rate: like.zero_like(),
            sum: like.zero_like(),
            weight: like.zero_like(),
            carried: like.zero_like(),
            gathered: like.zero_like(),
            probe: like.zero_like(),
            cotangent: like.zero_like(),
            parameter_part: vec![zero; parameters],
        }
    }
}

/// One step's Jacobian, a line's LU, points and increments, and the adjoint's buffers.
pub struct SeulexBackward<V: Vector> {
    sequence: &'static Table,
    autonomous: bool,
    n: usize,
    /// The lines `κ` of the step being taken, and its extrapolation coefficients `cⱼ`.
    lines: usize,
    coefficients: [f64; MAX_COLUMNS],
    /// `J` at the step's start, row-major.
    jacobian: Vec<V::Scalar>,
    /// `I/hⱼ − J`, factored in place, and its pivots.
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    /// A right-hand side and solution.
    vector: Vec<V::Scalar>,
    /// The lines' `Sⱼ`, extrapolated in place.
    table: Vec<V>,
    /// A line's points `yₘ` and increments `Δₘ`.
    points: Vec<V>,
    increments: Vec<V>,
    /// `gᵣ = Σ (uₘ)ᵣ Δₘ`, one per row of `J`.
    rows: Vec<V>,
    /// The rate at the step's start (autonomous forces); a rate; `Sⱼ` as it sums.
    start_rate: V,
    rate: V,
    sum: V,
    /// `uₘ`; `aₘ`; the new `λ` as it gathers; a probe state; a cotangent.
    weight: V,
    carried: V,
    gathered: V,
    probe: V,
    cotangent: V,
    parameter_part: Vec<V::Scalar>,
}

impl<V: Vector> SeulexBackward<V> {
    /// The step's `J` at `(t, y)`, and the start's rate for autonomous forces.
    fn start<M: Model<V>>(&mut self, model: &mut Linearised<'_, V, M>, y: &V, t: V::Scalar) {
        model.jacobian(y, t, &mut self.jacobian);
        if self.autonomous {
            model.rate(y, t, &mut self.start_rate);
        }
    }

    /// Line `j` (from 1) of the step of `h` from `y` at `t`: factors `I/hⱼ − J`, takes
    /// its substeps, keeping their points and increments, and leaves `Sⱼ` in `self.sum`.
    fn line<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        j: usize,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) -> Result<(), SensitivityError> {
        let n = self.n;
        let one = V::Scalar::one();
        let hj = h / V::Scalar::from_f64(self.sequence.n(j));
        let inverse = one / hj;
        for (k, (entry, &jacobian)) in self.matrix.iter_mut().zip(&self.jacobian).enumerate() {
            let diagonal = if k % (n + 1) == 0 {
                inverse
            } else {
                V::Scalar::zero()
            };
            *entry = diagonal - jacobian;
        }
        dense::factor(&mut self.matrix, &mut self.pivots, n).map_err(|_| not_solved(t))?;
        self.sum.set_zero();
        let lag = usize::from(self.autonomous);
        for m in 0..self.sequence.numbers[j - 1] as usize {
            let point = &mut self.points[m];
            point.assign(y);
            point.add_scaled_assign(&self.sum, one);
            if m == 0 && self.autonomous {
                self.rate.assign(&self.start_rate);
            } else {
                let time = t + hj * V::Scalar::from_f64((m + 1 - lag) as f64);
                model.rate(point, time, &mut self.rate);
            }
            for (k, x) in self.vector.iter_mut().enumerate() {
                *x = self.rate.component(k);
            }
            dense::solve(&self.matrix, &self.pivots, n, &mut self.vector);
            let increment = &mut self.increments[m];
            for (k, &x) in self.vector.iter().enumerate() {
                increment.set_component(k, x);
            }
            if !increment.is_finite() {
                return Err(not_solved(t));
            }
            self.sum.add_scaled_assign(increment, one);
        }
        Ok(())
    }
}

impl<V: Vector> BackwardStep<V> for SeulexBackward<V> {
    /// The step's lines `κ`, and the extrapolation's coefficients `cⱼ` for them: the
    /// scheme run on the unit vectors.
    fn select(&mut self, record: &[f64]) {
        let lines = record[0] as usize;
        if lines == self.lines {
            return;
        }
        self.lines = lines;
        for (i, coefficient) in self.coefficients.iter_mut().enumerate().take(lines) {
            let mut table = [0.0; MAX_COLUMNS];
            for j in 1..=lines {
                table[j - 1] = if j == i + 1 { 1.0 } else { 0.0 };
                if j > 1 {
                    extrapolate(&mut table[..], j, self.sequence);
                }
            }
            *coefficient = table[0];
        }
    }

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
        // The lines are taken again by `adjoint`; only the next state is wanted here.
        let Some(next) = next else {
            return Ok(());
        };
        self.start(model, y, t);
        for j in 1..=self.lines {
            self.line(model, j, y, t, h)?;
            self.table[j - 1].assign(&self.sum);
            if j > 1 {
                extrapolate(&mut self.table, j, self.sequence);
            }
        }
        next.assign(y);
        next.add_scaled_assign(&self.table[0], V::Scalar::one());
        Ok(())
    }

    /// The module's formulas: each line taken again, then back from its last substep,
    /// `Mⱼᵀ uₘ = cⱼ λ + Σᵢ₍ᵢ>ₘ₎ μᵢ`; then the second-order term.
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
        let (n, one) = (self.n, V::Scalar::one());
        let substeps: u32 = self.sequence.numbers[..self.lines].iter().sum();
        let by_rows = substeps as usize > n;
        for row in &mut self.rows {
            row.set_zero();
        }
        self.start(model, y, t);
        self.gathered.set_zero();
        let lag = usize::from(self.autonomous);
        for j in 1..=self.lines {
            self.line(model, j, y, t, h)?;
            let hj = h / V::Scalar::from_f64(self.sequence.n(j));
            self.carried.assign(lambda);
            self.carried
                .scale_assign(V::Scalar::from_f64(self.coefficients[j - 1]));
            for m in (0..self.sequence.numbers[j - 1] as usize).rev() {
                for (k, x) in self.vector.iter_mut().enumerate() {
                    *x = self.carried.component(k);
                }
                dense::solve_transposed(&self.matrix, &self.pivots, n, &mut self.vector);
                for (k, &x) in self.vector.iter().enumerate() {
                    self.weight.set_component(k, x);
                }
                // The rate at the start of an autonomous line is the step's, at `t`.
                let time = t + hj * V::Scalar::from_f64((m + 1 - lag) as f64);
                model.cotangent(
                    &self.points[m],
                    time,
                    &self.weight,
                    &mut self.cotangent,
                    &mut self.parameter_part,
                );
                self.carried.add_scaled_assign(&self.cotangent, one);
                self.gathered.add_scaled_assign(&self.cotangent, one);
                for (sum, part) in gradient.iter_mut().zip(&self.parameter_part) {
                    *sum = *sum + *part;
                }
                if by_rows {
                    for (r, row) in self.rows.iter_mut().enumerate() {
                        row.add_scaled_assign(&self.increments[m], self.weight.component(r));
                    }
                } else {
                    let scratch = (
                        &mut self.probe,
                        &mut self.cotangent,
                        &mut self.parameter_part[..],
                    );
                    model.second_order(
                        y,
                        t,
                        (&self.weight, &self.increments[m]),
                        scratch,
                        &mut self.gathered,
                        gradient,
                    );
                }
            }
        }
        if by_rows {
            for r in 0..n {
                // `weight` serves as the unit vector `e_r`.
                self.weight.set_zero();
                self.weight.set_component(r, one);
                let scratch = (
                    &mut self.probe,
                    &mut self.cotangent,
                    &mut self.parameter_part[..],
                );
                model.second_order(
                    y,
                    t,
                    (&self.weight, &self.rows[r]),
                    scratch,
                    &mut self.gathered,
                    gradient,
                );
            }
        }
        lambda.add_scaled_assign(&self.gathered, one);
        Ok(())
    }
}

/// The step from `time` could not be taken again: a matrix `I/hⱼ − J` is singular or not
/// finite, or an increment is not finite.
#[cold]
fn not_solved<T: Scalar>(time: T) -> SensitivityError {
    SensitivityError::StagesNotSolved {
        time: time.to_f64(),
    }
}

#[cfg(test)]
mod tests {
    //! The adjoint against forward sensitivities of the same steps and lines: SEULEX's
    //! step applied to the variational system `(y, s)` with its exact Jacobian (lower
    //! block `∂(J s + f_p dp)/∂y`, the change of `J` along `s`) is the derivative of the
    //! step's map, so `wᵀ s(t_N)` must equal the adjoint's `∂L/∂y₀ · s₀ + ∂L/∂p · dp` for
    //! `L = wᵀ y(t_N)` to round-off.
    use super::*;
    use crate::StepSequence;

    const MU: f64 = 3.0;

    /// `x' = v`, `v' = μ g(t) q`, `q = (1 − x²) v − x`, `g(t) = 1 + t/4`: Van der Pol
    /// whose Jacobian changes with `y`, `μ` and `t`.
    struct VanDerPol;

    fn g(t: f64) -> f64 {
        1.0 + 0.25 * t
    }

    impl Model<[f64; 2]> for VanDerPol {
        fn rate(&self, y: &[f64; 2], p: &[f64], t: f64, out: &mut [f64; 2]) {
            let [x, v] = *y;
            *out = [v, p[0] * g(t) * ((1.0 - x * x) * v - x)];
        }

        fn cotangent(
            &self,
            y: &[f64; 2],
            p: &[f64],
            t: f64,
            w: &[f64; 2],
            out_y: &mut [f64; 2],
            out_p: &mut [f64],
        ) -> bool {
            let [x, v] = *y;
            let m = p[0] * g(t);
            *out_y = [
                m * (-2.0 * x * v - 1.0) * w[1],
                w[0] + m * (1.0 - x * x) * w[1],
            ];
            out_p[0] = g(t) * ((1.0 - x * x) * v - x) * w[1];
            true
        }
    }

    /// The variational system `(x, v, sₓ, sᵥ)` along `dμ`, with its exact Jacobian, or
    /// (`exact` false) without its lower block, the change of `J` along `s`.
    struct Variational {
        dmu: f64,
        exact: bool,
    }

    impl Model<[f64; 4]> for Variational {
        fn rate(&self, y: &[f64; 4], p: &[f64], t: f64, out: &mut [f64; 4]) {
            let [x, v, sx, sv] = *y;
            let (m, q) = (p[0] * g(t), (1.0 - x * x) * v - x);
            let (qx, qv) = (-2.0 * x * v - 1.0, 1.0 - x * x);
            *out = [v, m * q, sv, m * (qx * sx + qv * sv) + self.dmu * g(t) * q];
        }

        fn cotangent(
            &self,
            y: &[f64; 4],
            p: &[f64],
            t: f64,
            w: &[f64; 4],
            out_y: &mut [f64; 4],
            out_p: &mut [f64],
        ) -> bool {
            let [x, v, sx, sv] = *y;
            let m = p[0] * g(t);
            let (qx, qv) = (-2.0 * x * v - 1.0, 1.0 - x * x);
            let d = self.dmu * g(t);
            // The last row of the Jacobian: ∂/∂(x, v) of m (qₓ sₓ + qᵥ sᵥ) + d q, then m qₓ, m qᵥ.
            let lower = f64::from(u8::from(self.exact));
            let row = [
                lower * (m * (-2.0 * v * sx - 2.0 * x * sv) + d * qx),
                lower * (m * (-2.0 * x * sx) + d * qv),
                m * qx,
                m * qv,
            ];
            *out_y = [
                m * qx * w[1] + row[0] * w[3],
                w[0] + m * qv * w[1] + row[1] * w[3],
                row[2] * w[3],
                w[2] + row[3] * w[3],
            ];
            out_p[0] = 0.0; // not asked for
            true
        }
    }

    /// Steps `(t, h, lines)` of tables of 1 to 7 lines: one line's substeps are fewer than
    /// the unknowns (the second-order term a substep at a time), the others' more (a row
    /// of `J` at a time).
    const STEPS: [(f64, f64, usize); 7] = [
        (0.0, 0.1, 3),
        (0.1, 0.05, 5),
        (0.15, 0.2, 2),
        (0.35, 0.1, 7),
        (0.45, 0.3, 4),
        (0.75, 0.25, 6),
        (1.0, 0.05, 1),
    ];

    #[test]
    fn the_adjoint_is_the_derivative_of_the_steps_map() {
        let (y0, w) = ([2.0, -0.5], [0.7, -1.3]);
        let p = [MU];
        for method in [
            Seulex::new(),
            Seulex::new().with_sequence(StepSequence::FromOne),
            Seulex::new().assume_autonomous(),
        ] {
            // The adjoint: the states forward, then back.
            let mut model = Linearised::new(&VanDerPol, &p, &y0);
            let mut backward = AdjointMethod::<[f64; 2]>::backward(&method, &y0, 1, 1);
            let mut states = vec![y0];
            for &(t, h, lines) in &STEPS {
                let mut next = [0.0; 2];
                backward.select(&[lines as f64]);
                let y = *states.last().unwrap();
                backward
                    .advance(&mut model, 0, &[], &y, t, h, Some(&mut next))
                    .unwrap();
                states.push(next);
            }
            let (mut lambda, mut gradient) = (w, [0.0]);
            for (&(t, h, lines), y) in STEPS.iter().zip(&states).rev() {
                backward.select(&[lines as f64]);
                backward
                    .adjoint(&mut model, 0, y, t, h, &mut lambda, &mut gradient)
                    .unwrap();
            }
            // Forward sensitivities along x₀, v₀ and μ.
            for (direction, adjoint) in [
                ([1.0, 0.0, 0.0], lambda[0]),
                ([0.0, 1.0, 0.0], lambda[1]),
                ([0.0, 0.0, 1.0], gradient[0]),
            ] {
                let tangent = |exact| {
                    let variational = Variational {
                        dmu: direction[2],
                        exact,
                    };
                    let mut y = [y0[0], y0[1], direction[0], direction[1]];
                    let mut model = Linearised::new(&variational, &p, &y);
                    let mut forward = AdjointMethod::<[f64; 4]>::backward(&method, &y, 1, 1);
                    for &(t, h, lines) in &STEPS {
                        let mut next = [0.0; 4];
                        forward.select(&[lines as f64]);
                        forward
                            .advance(&mut model, 0, &[], &y, t, h, Some(&mut next))
                            .unwrap();
                        y = next;
                    }
                    assert!((y[0] - states[STEPS.len()][0]).abs() < 1e-14);
                    w[0] * y[2] + w[1] * y[3]
                };
                let exact = tangent(true);
                // Measured 2·10⁻¹⁵ to 1.4·10⁻¹³.
                let difference = (adjoint - exact).abs() / exact.abs();
                assert!(difference < 1e-10, "{difference:e}: {adjoint} {exact}");
                // Without the change of J the derivative is another map's (by 7·10⁻⁴ to
                // 6·10⁻³): the test can fail.
                let dropped = (tangent(false) - exact).abs() / exact.abs();
                assert!(dropped > 1e-4, "{dropped:e}");
            }
        }
    }

    #[test]
    fn the_extrapolation_coefficients_sum_to_one() {
        // The scheme is exact on constants: y₊ = y + Σⱼ cⱼ Sⱼ.
        let mut backward = AdjointMethod::<f64>::backward(&Seulex::new(), &0.0, 1, 0);
        for lines in 1..=MAX_COLUMNS {
            backward.select(&[lines as f64]);
            let sum: f64 = backward.coefficients[..lines].iter().sum();
            assert!((sum - 1.0).abs() < 1e-12, "{lines}: {sum}");
        }
    }
}
