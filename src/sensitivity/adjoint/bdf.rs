//! The discrete adjoint of the BDF's step (CVODE's fixed-leading-coefficient Nordsieck
//! form, Hindmarsh et al., ACM TOMS 31 (2005) 363–396, §2.1): the exact derivative of the
//! computed solution with the steps, orders and formulas held fixed, as Sandu derives
//! discrete adjoints of multistep methods (*Reverse automatic differentiation of linear
//! multistep methods*, in Advances in Automatic Differentiation, LNCSE 64, Springer 2008,
//! 1–12; Sandu, *On the properties of Runge–Kutta discrete adjoints*, ICCS 2006).
//!
//! # Derivation
//!
//! The method's state after step `n` is `yₙ`, the Nordsieck columns `z₁ … z₅` (those
//! above the order unused) and the correction `s` saved for an order increase. Step `n`
//! of `h` from `t` at order `q` with the formula `l` (`γ = h/l₁`):
//!
//! ```text
//! aⱼ = Σₖ Tⱼₖ zₖ + Tⱼ,ₛ s                  (j = 1 … q: rescalings, order change)
//!      or a₁ = h f(t, y)                   (a restart: a run's first step, or at order 1
//!                                           after repeated failures)
//! pⱼ = Σₖ₌ⱼ^q C(k, j) aₖ                   (j = 0 … q: Pascal's predictor, p₀ from k ≥ 1)
//! Δ  = γ f(t + h, y + p₀ + Δ) − p₁/l₁       (the corrector)
//! y₊ = y + p₀ + Δ,   z₊ⱼ = pⱼ + lⱼ Δ,   s₊ = Δ if the step saves it, else s
//! ```
//!
//! Everything but `Δ` is linear with coefficients that depend on the steps only: the
//! forward solve records `T` (the composition of every rescaling `zⱼ ← ηʲ zⱼ`, order
//! increase and decrease between the two accepted arrays, failed attempts included: see
//! `src/integrators/implicit/bdf/tape.rs`), `q`, `l`, whether it restarted and whether it
//! saved. With `J = f_y`, `P = f_p` at `(t + h, y₊)`, `(I − γJ) dΔ = γJ (dy + dp₀) +
//! γP dθ − dp₁/l₁`. Given the adjoints `λ = ∂L/∂y₊`, `ζⱼ = ∂L/∂z₊ⱼ`, `σ = ∂L/∂s₊`:
//!
//! ```text
//! w = λ + Σⱼ lⱼ ζⱼ (+ σ if saved),   (I − γJ)ᵀ u = w
//! ∂L/∂y = λ + γJᵀu,   ∂L/∂θ += γPᵀu,   π₀ = λ + γJᵀu,   π₁ = ζ₁ − u/l₁,   πⱼ = ζⱼ
//! αₖ = Σⱼ₌₀^k C(k, j) πⱼ,   ∂L/∂zₖ = Σⱼ Tⱼₖ αⱼ,   ∂L/∂s = Σⱼ Tⱼ,ₛ αⱼ (+ σ if not saved)
//! ```
//!
//! and a restart instead sends `α₁` through `a₁ = h f(t, y)`: `∂L/∂y += h Jᵀα₁`,
//! `∂L/∂θ += h Pᵀα₁` at `(t, y)`, and `∂L/∂z = 0`. Two cotangents a step (three at a
//! restart) with `n` more for `J`.
//!
//! # The corrector solved exactly
//!
//! The forward Newton iteration stops at a tolerance; the adjoint differentiates the steps
//! with `Δ` solved to round-off: every step is taken again from `y₀` (Newton's method
//! with the exact `I − γJ`, from `Δ = 0`), and the checkpoints keep the array taken again.
//!
//! # Cost
//!
//! Dense LU of `n × n` for each Newton matrix and each transposed solve: for small and
//! moderate systems. Memory: the checkpoint's seven states (`y`, `z₁ … z₅`, `s`), the
//! ends of a stretch's steps (`K` states), 44 numbers per step, and `2n²` numbers.

use super::linearised::Linearised;
use super::method::{AdjointMethod, BackwardStep, private::Sealed};
use super::round_off::{self, MAX_ITERATIONS, Next, not_solved};
use crate::adaptive::Step;
use crate::integrators::implicit::bdf::tape::SAVED;
use crate::linalg::dense;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Bdf, Forces, Scalar, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{Float, One, Zero};

/// The highest order, and the columns of a checkpoint: `y`, `z₁ … z₅`, the saved `s`.
const MAX_ORDER: usize = Bdf::MAX_ORDER;
const COLUMNS: usize = MAX_ORDER + 2;

/// A step's record: restart, order, saved, `l₀ … l₅`, the transfer's rows `1 … 5`.
const RECORD: usize = 3 + (MAX_ORDER + 1) + MAX_ORDER * COLUMNS;

impl Sealed for Bdf {}

impl<V: Vector> AdjointMethod<V> for Bdf {
    type Backward = BdfBackward<V>;

    /// The state, the Nordsieck columns `z₁ … z₅` and the saved correction: the forward
    /// solve keeps the state (the rest is filled when the steps are taken again).
    const CHECKPOINT_STATES: usize = COLUMNS;

    const TAKES_STEPS_AGAIN: bool = true;

    const RECORD: usize = RECORD;

    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>) {
        let start = step.start();
        out.push(start.clone());
        out.extend((1..COLUMNS).map(|_| start.zero_like()));
    }

    fn record<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<f64>) {
        let (tape, order, l) = step.method_workspace_mut().tape();
        let flag = |on: bool| if on { 1.0 } else { 0.0 };
        out.extend([flag(tape.restarted()), order as f64, flag(tape.saved())]);
        out.extend(l);
        for j in 1..=MAX_ORDER {
            match tape.transfer() {
                Some(transfer) => out.extend(transfer[j]),
                None => out.extend((0..COLUMNS).map(|k| flag(k == j))),
            }
        }
    }

    fn backward(&self, like: &V, interval: usize, parameters: usize) -> BdfBackward<V> {
        let n = like.dim();
        let zero = V::Scalar::zero();
        let zeros = |count| vec![like.zero_like(); count];
        BdfBackward {
            n,
            tape: Record::default(),
            array: zeros(COLUMNS),
            transferred: zeros(MAX_ORDER + 1),
            predicted: zeros(MAX_ORDER + 1),
            ends: zeros(interval),
            delta: like.zero_like(),
            rate: like.zero_like(),
            adjoint: zeros(COLUMNS),
            scratch: zeros(MAX_ORDER + 1),
            weight: like.zero_like(),
            mu: like.zero_like(),
            jacobian: vec![zero; n * n],
            matrix: vec![zero; n * n],
            pivots: vec![0; n],
            vector: vec![zero; n],
            parameter_part: vec![zero; parameters],
        }
    }
}

/// One step's record, read back.
#[derive(Clone, Copy, Debug, Default)]
struct Record {
    /// The array restarted from `z₁ = h f(t, y)`.
    restart: bool,
    /// The order `q` and the formula's `l`.
    order: usize,
    l: [f64; MAX_ORDER + 1],
    /// The step saved its correction.
    saved: bool,
    /// Rows `1 … q`: the array before the prediction from the last accepted one's
    /// columns `1 … 5` and its saved correction (row 0 unused).
    transfer: [[f64; COLUMNS]; MAX_ORDER + 1],
}

/// The Nordsieck array carried through a stretch, the ends of its steps, and the
/// adjoint's buffers.
pub struct BdfBackward<V: Vector> {
    n: usize,
    /// The record of the step taken again or back.
    tape: Record,
    /// After the last step taken again: `z₁ … z₅` at 1 … 5, the saved correction at 6
    /// (slot 0 unused).
    array: Vec<V>,
    /// The step's `aⱼ`, then its prediction `pⱼ` (`j = 0 … 5`).
    transferred: Vec<V>,
    predicted: Vec<V>,
    /// `y₊` of each step of the stretch.
    ends: Vec<V>,
    /// The correction `Δ` and the rate at the iterate.
    delta: V,
    rate: V,
    /// `∂L/∂zⱼ` (1 … 5) and `∂L/∂s` (6) after the step taken back (slot 0 unused).
    adjoint: Vec<V>,
    /// `πⱼ`, then `αⱼ`.
    scratch: Vec<V>,
    weight: V,
    mu: V,
    /// `J` row-major, `I − γJ` factored, its pivots, and an `n`-vector (a Newton
    /// residual and update, `w` and `u`).
    jacobian: Vec<V::Scalar>,
    matrix: Vec<V::Scalar>,
    pivots: Vec<usize>,
    vector: Vec<V::Scalar>,
    parameter_part: Vec<V::Scalar>,
}

/// `C(k, j)`, Pascal's triangle (a table: computed per column per step, the binomials
/// took a tenth of the adjoint's instructions on Robertson).
const PASCAL: [[f64; MAX_ORDER + 1]; MAX_ORDER + 1] = [
    [1.0, 0.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 0.0, 0.0, 0.0, 0.0],
    [1.0, 2.0, 1.0, 0.0, 0.0, 0.0],
    [1.0, 3.0, 3.0, 1.0, 0.0, 0.0],
    [1.0, 4.0, 6.0, 4.0, 1.0, 0.0],
    [1.0, 5.0, 10.0, 10.0, 5.0, 1.0],
];

/// `C(k, j)`.
fn binomial(k: usize, j: usize) -> f64 {
    PASCAL[k][j]
}

impl<V: Vector> BdfBackward<V> {
    /// `aⱼ` and the prediction `pⱼ` of the step from `y` at `t` of `h`.
    fn predict<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) {
        let q = self.tape.order;
        if self.tape.restart {
            model.rate(y, t, &mut self.transferred[1]);
            self.transferred[1].scale_assign(h);
        } else {
            for j in 1..=q {
                let a = &mut self.transferred[j];
                a.set_zero();
                for (k, &c) in self.tape.transfer[j].iter().enumerate().skip(1) {
                    if c != 0.0 {
                        a.add_scaled_assign(&self.array[k], V::Scalar::from_f64(c));
                    }
                }
            }
        }
        for j in 0..=q {
            let p = &mut self.predicted[j];
            p.set_zero();
            for k in j.max(1)..=q {
                p.add_scaled_assign(&self.transferred[k], V::Scalar::from_f64(binomial(k, j)));
            }
        }
    }
}

impl<V: Vector> BackwardStep<V> for BdfBackward<V> {
    fn select(&mut self, record: &[f64]) {
        let tape = &mut self.tape;
        tape.restart = record[0] != 0.0;
        tape.order = record[1] as usize;
        tape.saved = record[2] != 0.0;
        tape.l.copy_from_slice(&record[3..3 + MAX_ORDER + 1]);
        for (row, values) in tape.transfer[1..]
            .iter_mut()
            .zip(record[3 + MAX_ORDER + 1..].chunks(COLUMNS))
        {
            row.copy_from_slice(values);
        }
    }

    fn carry(&self, checkpoint: &mut [V]) {
        for (kept, column) in checkpoint[1..].iter_mut().zip(&self.array[1..]) {
            kept.assign(column);
        }
    }

    /// Predicts, solves the corrector by Newton's method with `I − γJ` (a new matrix
    /// whenever the update shrinks by less than half) until the update is round-off, and
    /// corrects the array.
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
        if index == 0 {
            for (column, kept) in self.array[1..].iter_mut().zip(&checkpoint[1..]) {
                column.assign(kept);
            }
        }
        self.predict(model, y, t, h);
        let (q, l) = (self.tape.order, self.tape.l);
        let one = V::Scalar::one();
        let gamma = h / V::Scalar::from_f64(l[1]);
        let inverse_l1 = V::Scalar::from_f64(1.0 / l[1]);
        let end_time = t + h;
        let tiny = V::Scalar::min_positive_value();
        let mut previous = V::Scalar::infinity();
        let mut refresh = true;
        let mut converged = false;
        self.delta.set_zero();
        for _ in 0..MAX_ITERATIONS {
            let end = &mut self.ends[index];
            end.assign(y);
            end.add_scaled_assign(&self.predicted[0], one);
            end.add_scaled_assign(&self.delta, one);
            model.rate(end, end_time, &mut self.rate);
            if refresh {
                let (jacobian, matrix) = (&mut self.jacobian, &mut self.matrix);
                factor(
                    model,
                    end,
                    end_time,
                    gamma,
                    jacobian,
                    matrix,
                    &mut self.pivots,
                )?;
            }
            // γ f − p₁/l₁ − Δ, then the update.
            for r in 0..self.n {
                self.vector[r] = gamma * self.rate.component(r)
                    - inverse_l1 * self.predicted[1].component(r)
                    - self.delta.component(r);
            }
            dense::solve(&self.matrix, &self.pivots, self.n, &mut self.vector);
            let mut size = V::Scalar::zero();
            for r in 0..self.n {
                let update = self.vector[r];
                self.delta
                    .set_component(r, self.delta.component(r) + update);
                let scale = end.component(r).abs().max(y.component(r).abs()).max(tiny);
                size = size.max(update.abs() / scale);
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
        let end = &mut self.ends[index];
        end.assign(y);
        end.add_scaled_assign(&self.predicted[0], one);
        end.add_scaled_assign(&self.delta, one);
        for (j, (column, &lj)) in self.array.iter_mut().zip(&l).enumerate().skip(1) {
            if j <= q {
                column.assign(&self.predicted[j]);
                column.add_scaled_assign(&self.delta, V::Scalar::from_f64(lj));
            } else {
                column.set_zero();
            }
        }
        if self.tape.saved {
            self.array[SAVED].assign(&self.delta);
        }
        if let Some(next) = next {
            next.assign(&self.ends[index]);
        }
        Ok(())
    }

    /// The module's derivation: `(I − γJ)ᵀ u = w` by dense LU at the step's end, one
    /// cotangent there, one more at a restart, the linear maps transposed.
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
        let (q, l) = (self.tape.order, self.tape.l);
        let one = V::Scalar::one();
        let gamma = h / V::Scalar::from_f64(l[1]);
        let end_time = t + h;
        // w = λ + Σⱼ lⱼ ζⱼ (+ σ when the step saved Δ, which then leaves s unread).
        self.weight.assign(lambda);
        for (zeta, &lj) in self.adjoint[1..=q].iter().zip(&l[1..]) {
            self.weight.add_scaled_assign(zeta, V::Scalar::from_f64(lj));
        }
        if self.tape.saved {
            self.weight.add_scaled_assign(&self.adjoint[SAVED], one);
            self.adjoint[SAVED].set_zero();
        }
        let end = &self.ends[index];
        let (jacobian, matrix) = (&mut self.jacobian, &mut self.matrix);
        factor(
            model,
            end,
            end_time,
            gamma,
            jacobian,
            matrix,
            &mut self.pivots,
        )?;
        for r in 0..self.n {
            self.vector[r] = self.weight.component(r);
        }
        dense::solve_transposed(&self.matrix, &self.pivots, self.n, &mut self.vector);
        for r in 0..self.n {
            self.weight.set_component(r, gamma * self.vector[r]);
        }
        model.cotangent(
            end,
            end_time,
            &self.weight,
            &mut self.mu,
            &mut self.parameter_part,
        );
        add(gradient, &self.parameter_part);
        lambda.add_scaled_assign(&self.mu, one);
        // π₀ = ∂L/∂y after Δ's part, π₁ = ζ₁ − u/l₁ (u = weight/γ), πⱼ = ζⱼ.
        self.scratch[0].assign(lambda);
        for j in 1..=q {
            self.scratch[j].assign(&self.adjoint[j]);
        }
        self.scratch[1].add_scaled_assign(&self.weight, -one / (gamma * V::Scalar::from_f64(l[1])));
        // αₖ = Σⱼ≤ₖ C(k, j) πⱼ, from the top so that each πⱼ is read before it is replaced.
        for k in (1..=q).rev() {
            let (lower, upper) = self.scratch.split_at_mut(k);
            for (j, pi) in lower.iter().enumerate() {
                upper[0].add_scaled_assign(pi, V::Scalar::from_f64(binomial(k, j)));
            }
        }
        for column in &mut self.adjoint[1..=MAX_ORDER] {
            column.set_zero();
        }
        if self.tape.restart {
            self.weight.assign(&self.scratch[1]);
            self.weight.scale_assign(h);
            model.cotangent(y, t, &self.weight, &mut self.mu, &mut self.parameter_part);
            add(gradient, &self.parameter_part);
            lambda.add_scaled_assign(&self.mu, one);
            return Ok(());
        }
        for j in 1..=q {
            for (k, &c) in self.tape.transfer[j].iter().enumerate().skip(1) {
                if c != 0.0 {
                    self.adjoint[k].add_scaled_assign(&self.scratch[j], V::Scalar::from_f64(c));
                }
            }
        }
        Ok(())
    }
}

/// `I − γJ` with `J` at `(t, y)` (written into `jacobian`, row-major), factored into
/// `matrix` and `pivots`.
fn factor<V: Vector, M: Model<V>>(
    model: &mut Linearised<'_, V, M>,
    y: &V,
    t: V::Scalar,
    gamma: V::Scalar,
    jacobian: &mut [V::Scalar],
    matrix: &mut [V::Scalar],
    pivots: &mut [usize],
) -> Result<(), SensitivityError> {
    let n = pivots.len();
    model.jacobian(y, t, jacobian);
    for (i, (entry, &j)) in matrix.iter_mut().zip(jacobian.iter()).enumerate() {
        let diagonal = if i / n == i % n {
            V::Scalar::one()
        } else {
            V::Scalar::zero()
        };
        *entry = diagonal - gamma * j;
    }
    dense::factor(matrix, pivots, n).map_err(|_| not_solved(t))
}

/// `sum += part`.
fn add<T: Scalar>(sum: &mut [T], part: &[T]) {
    for (s, p) in sum.iter_mut().zip(part) {
        *s = *s + *p;
    }
}

#[cfg(test)]
mod tests {
    //! The adjoint against the map it differentiates: the recorded steps of a forward
    //! solve replayed (taken again, each corrector solved to round-off) at perturbed
    //! parameters and initial values, differenced.

    use super::*;
    use crate::{Adaptive, Tolerances};

    /// Van der Pol's `x'' = μ (1 − x²) x' − ω² x`, parameters `[μ, ω²]`, with its
    /// cotangent: relaxation oscillations, whose sharp turns make the BDF lower its
    /// order and shorten its steps, and whose slow stretches raise them again.
    struct VanDerPol;

    impl Model<[f64; 2]> for VanDerPol {
        fn rate(&self, y: &[f64; 2], p: &[f64], _t: f64, out: &mut [f64; 2]) {
            let [x, v] = *y;
            *out = [v, p[0] * (1.0 - x * x) * v - p[1] * x];
        }

        fn cotangent(
            &self,
            y: &[f64; 2],
            p: &[f64],
            _t: f64,
            w: &[f64; 2],
            out_y: &mut [f64; 2],
            out_p: &mut [f64],
        ) -> bool {
            let [x, v] = *y;
            *out_y = [
                (-2.0 * p[0] * x * v - p[1]) * w[1],
                w[0] + p[0] * (1.0 - x * x) * w[1],
            ];
            out_p.copy_from_slice(&[(1.0 - x * x) * v * w[1], -x * w[1]]);
            true
        }
    }

    const P: [f64; 2] = [5.0, 1.0];
    const Y0: [f64; 2] = [2.0, 0.0];
    /// Two sample times: the second solve restarts at order 1 from the first's end.
    const TIMES: [f64; 2] = [4.0, 12.0];
    /// `L = W · y(12)`.
    const W: [f64; 2] = [1.0, 0.5];

    /// The forward solve's steps, their records, and its rejected attempts.
    fn forward() -> (Vec<(f64, f64)>, Vec<f64>, u64) {
        let rate = |y: &[f64; 2], t: f64| {
            let mut out = [0.0; 2];
            VanDerPol.rate(y, &P, t, &mut out);
            out
        };
        let mut solver = Adaptive::new(Bdf::new()).with_tolerances(Tolerances::new(1e-8, 1e-10));
        let (mut steps, mut records, mut rejected) = (Vec::new(), Vec::new(), 0);
        let (mut y, mut t) = (Y0, 0.0);
        for end in TIMES {
            let statistics = solver
                .solve_with(&mut y, &rate, t, end, |step| {
                    <Bdf as AdjointMethod<[f64; 2]>>::record(step, &mut records);
                    steps.push((step.start_time(), step.end_time() - step.start_time()));
                })
                .unwrap();
            rejected += statistics.rejected;
            t = end;
        }
        (steps, records, rejected)
    }

    /// The steps taken again from `y0` at `p`: the backward buffers and every state.
    fn replay(
        steps: &[(f64, f64)],
        records: &[f64],
        y0: [f64; 2],
        p: &[f64],
    ) -> (BdfBackward<[f64; 2]>, Vec<[f64; 2]>) {
        let mut model = Linearised::new(&VanDerPol, p, &y0);
        let mut backward = AdjointMethod::<[f64; 2]>::backward(&Bdf::new(), &y0, steps.len(), 2);
        let checkpoint = [[0.0; 2]; COLUMNS];
        let mut states = vec![y0];
        for (n, &(t, h)) in steps.iter().enumerate() {
            let mut next = [0.0; 2];
            backward.select(&records[n * RECORD..(n + 1) * RECORD]);
            backward
                .advance(
                    &mut model,
                    n,
                    &checkpoint,
                    &states[n],
                    t,
                    h,
                    Some(&mut next),
                )
                .unwrap();
            states.push(next);
        }
        (backward, states)
    }

    fn loss(steps: &[(f64, f64)], records: &[f64], y0: [f64; 2], p: &[f64]) -> f64 {
        let (_, states) = replay(steps, records, y0, p);
        let end = states[steps.len()];
        W[0] * end[0] + W[1] * end[1]
    }

    /// Central differences of fourth order, `(8 (L(x + δ) − L(x − δ)) − (L(x + 2δ) −
    /// L(x − 2δ))) / 12δ`: truncation `δ⁴ L⁽⁵⁾/30`, rounding `ε L/δ`.
    fn derivative(at: impl Fn(f64) -> f64, delta: f64) -> f64 {
        (8.0 * (at(delta) - at(-delta)) - (at(2.0 * delta) - at(-2.0 * delta))) / (12.0 * delta)
    }

    #[test]
    fn the_adjoint_is_the_derivative_of_the_replayed_steps() {
        let (steps, records, rejected) = forward();
        let record = |n: usize| &records[n * RECORD..(n + 1) * RECORD];
        // The run exercises what the tape records: orders 1 to 5, orders falling, steps
        // changing, failed attempts, and a restart where the second solve starts.
        let orders: Vec<usize> = (0..steps.len()).map(|n| record(n)[1] as usize).collect();
        assert_eq!(orders.iter().max(), Some(&5), "{orders:?}");
        let lowered =
            (1..steps.len()).filter(|&n| record(n)[0] == 0.0 && orders[n] < orders[n - 1]);
        assert!(lowered.count() > 0, "{orders:?}");
        let restarts: Vec<usize> = (0..steps.len()).filter(|&n| record(n)[0] != 0.0).collect();
        assert_eq!(restarts.len(), 2, "{restarts:?}");
        assert!(rejected > 0);
        let rescaled =
            (0..steps.len()).filter(|&n| record(n)[0] == 0.0 && record(n)[3 + 6 + 1] != 1.0);
        let rescaled = rescaled.count();
        assert!(rescaled > 5, "{rescaled}");

        // The adjoint of `L = W · y(12)`.
        let (mut backward, states) = replay(&steps, &records, Y0, &P);
        let mut model = Linearised::new(&VanDerPol, &P, &Y0);
        let (mut lambda, mut gradient) = (W, [0.0; 2]);
        for (n, &(t, h)) in steps.iter().enumerate().rev() {
            backward.select(record(n));
            backward
                .adjoint(&mut model, n, &states[n], t, h, &mut lambda, &mut gradient)
                .unwrap();
        }

        // The differences' error falls as δ⁴ (4·10⁻⁵, 3·10⁻⁷, 4·10⁻⁹, 10⁻¹⁰ relative at δ =
        // 10⁻², 3·10⁻³, 10⁻³, 3·10⁻⁴) down to their rounding, 10⁻¹⁰ here: what is left is
        // theirs.
        let delta = 3e-4;
        let mut worst: f64 = 0.0;
        for i in 0..2 {
            let difference = derivative(
                |d| {
                    let mut p = P;
                    p[i] += d * P[i];
                    loss(&steps, &records, Y0, &p)
                },
                delta,
            ) / P[i];
            worst = worst.max((gradient[i] - difference).abs() / difference.abs());
        }
        for j in 0..2 {
            let difference = derivative(
                |d| {
                    let mut y0 = Y0;
                    y0[j] += d;
                    loss(&steps, &records, y0, &P)
                },
                delta,
            );
            worst = worst.max((lambda[j] - difference).abs() / difference.abs().max(1e-3));
        }
        assert!(worst < 1e-9, "worst relative difference {worst:e}");
    }
}
