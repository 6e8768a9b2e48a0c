//! [`Adjoint`]: the gradient of a function of the solution, by the discrete adjoint of an
//! explicit Runge–Kutta pair, with checkpoints.

use super::{Model, SensitivityError};
use crate::{Adaptive, Forces, Pair, PairSource, Scalar, Statistics, Tableau, Vector};
use alloc::vec;
use alloc::vec::Vec;
use core::num::NonZeroUsize;
use num_traits::{Float, One, Zero};

/// The gradient of a scalar function of the solution, `L = Σₖ gₖ(y(tₖ))` (a final value,
/// or a sum over sample times), with respect to every parameter and the initial value, by
/// the discrete adjoint of the explicit pair that solved it.
///
/// A forward solve with the pair under error control records its steps; the adjoint then
/// runs the steps backwards. For one step `y₊ = y + h Σᵢ bᵢ kᵢ` with stages
/// `kᵢ = f(t + cᵢh, Yᵢ, p)`, `Yᵢ = y + h Σⱼ aᵢⱼ kⱼ`, and `λ = ∂L/∂y₊`:
///
/// ```text
/// uᵢ = h bᵢ λ + h Σⱼ₌ᵢ₊₁ aⱼᵢ μⱼ,    μᵢ = J_y(Yᵢ)ᵀ uᵢ,    (i from the last stage down)
/// ∂L/∂y = λ + Σᵢ μᵢ,    ∂L/∂p += Σᵢ J_p(Yᵢ)ᵀ uᵢ
/// ```
///
/// (Hager, *Runge–Kutta methods in optimal control and the transformed adjoint system*,
/// Numer. Math. 87 (2000) 247–282; Sandu, *On the properties of Runge–Kutta discrete
/// adjoints*, ICCS 2006.) This is the exact derivative of the computed solution for the
/// steps taken, their sizes held fixed: it equals what forward sensitivities of the same
/// pair over the same steps give, to round-off, at one backward sweep for every parameter
/// instead of one sensitivity each. Each stage costs one [`Model::cotangent`] (give it:
/// without it each is built from `n + p` evaluations).
///
/// **Checkpoints.** The forward solve keeps the state at every `K`-th step
/// ([`with_checkpoint_interval`](Adjoint::with_checkpoint_interval), default 32) and the
/// times of all steps; the backward sweep recomputes each stretch of `K` steps from its
/// checkpoint, then each step's stages. Memory: `⌈N/K⌉ + K` states for `N` steps, two
/// scalars per step, one state per sample time, and `3s + 6` states of scratch for an
/// `s`-stage pair; nothing is allocated per step. Work: the forward solve, then about
/// two more evaluations and one cotangent per stage and step (one evaluation fewer with
/// `K = 1`, which keeps every state).
///
/// # Example
///
/// `y' = −k y`, `y(0) = y₀`: `L = y(1)² / 2` has `∂L/∂k = −y(1)²` and
/// `∂L/∂y₀ = y(1)²/y₀`.
///
/// ```
/// use timestep::sensitivity::{Adjoint, Model};
/// use timestep::{Adaptive, Dopri5, Tolerances};
///
/// struct Decay;
/// impl Model<f64> for Decay {
///     fn rate(&self, y: &f64, p: &[f64], _t: f64, out: &mut f64) {
///         *out = -p[0] * y;
///     }
///     fn cotangent(&self, y: &f64, p: &[f64], _t: f64, w: &f64, out_y: &mut f64, out_p: &mut [f64]) -> bool {
///         *out_y = -p[0] * w;
///         out_p[0] = -y * w;
///         true
///     }
/// }
///
/// let mut solver = Adaptive::new(Dopri5).with_tolerances(Tolerances::new(1e-10, 1e-12));
/// let gradient = Adjoint::new(Decay, [2.0])?.gradient(&mut solver, &1.5, 0.0, &[1.0], |_, _, y, out| *out = *y)?;
/// let end = 1.5 * (-2.0_f64).exp();
/// assert!((gradient.end - end).abs() < 1e-9);
/// assert!((gradient.parameters[0] + end * end).abs() < 1e-9);
/// assert!((gradient.initial_value - end * end / 1.5).abs() < 1e-9);
/// # Ok::<(), timestep::sensitivity::SensitivityError>(())
/// ```
#[derive(Clone, Debug)]
pub struct Adjoint<M, P> {
    model: M,
    parameters: P,
    checkpoint_interval: NonZeroUsize,
}

/// What [`Adjoint::gradient`] gives.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Gradient<V: Vector> {
    /// `∂L/∂p`, one entry per parameter.
    pub parameters: Vec<V::Scalar>,
    /// `∂L/∂y(t₀)`.
    pub initial_value: V,
    /// The state at the last sample time.
    pub end: V,
    /// The forward solve's statistics (summed over the stretches between sample times).
    pub statistics: Statistics,
    /// Evaluations of the rate in the backward sweep (recomputed states and stages, and the
    /// columns of cotangents built from them).
    pub adjoint_evaluations: u64,
    /// Cotangents taken (one per stage with a weight, and step).
    pub cotangents: u64,
}

impl<M, P> Adjoint<M, P> {
    /// The adjoint of `model` at `parameters`.
    ///
    /// # Errors
    ///
    /// [`SensitivityError::NonFiniteParameter`] for an infinite or `NaN` parameter.
    pub fn new<T: Scalar>(model: M, parameters: P) -> Result<Self, SensitivityError>
    where
        P: AsRef<[T]>,
    {
        let values = parameters.as_ref();
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, p)| !p.is_finite()) {
            return Err(SensitivityError::NonFiniteParameter {
                index,
                value: value.to_f64(),
            });
        }
        Ok(Adjoint {
            model,
            parameters,
            checkpoint_interval: NonZeroUsize::new(32).expect("32 is not zero"),
        })
    }

    /// Keeps the state at every `steps`-th step of the forward solve (see the type's
    /// docs): 1 keeps them all (no recomputation), `usize::MAX` only the first (memory of
    /// one stretch as long as the whole run). The gradient is the same to round-off.
    #[must_use]
    pub fn with_checkpoint_interval(mut self, steps: NonZeroUsize) -> Self {
        self.checkpoint_interval = steps;
        self
    }

    /// Solves from `y0` at `t0` through `times` with `solver` (its tolerances, first step
    /// and limits), calls `loss_gradient(k, tₖ, y(tₖ), out)` at each sample time to have
    /// `∂gₖ/∂y` written into `out` (zero on entry; leave it zero for a time that does not
    /// count), and returns the gradient of `L = Σₖ gₖ(y(tₖ))`.
    ///
    /// Each stretch between sample times is a solve of its own that lands on the sample
    /// (a time equal to the one before, or to `t0`, adds a sample without steps).
    ///
    /// # Errors
    ///
    /// [`SensitivityError::InvalidTimes`] when `t0` or a time is not finite, or `times` is
    /// empty or not ordered forward from `t0` (each at or after the one before, the first
    /// at or after `t0`); [`SensitivityError::Solve`] when the forward solve stops (too
    /// many steps, a step too small, a non-finite rate: the solver's error says which).
    pub fn gradient<V, Src, const N: usize, G>(
        &self,
        solver: &mut Adaptive<V, Pair<Src, N>>,
        y0: &V,
        t0: V::Scalar,
        times: &[V::Scalar],
        mut loss_gradient: G,
    ) -> Result<Gradient<V>, SensitivityError>
    where
        V: Vector,
        M: Model<V>,
        P: AsRef<[V::Scalar]>,
        Src: PairSource<N>,
        G: FnMut(usize, V::Scalar, &V, &mut V),
    {
        let ordered = t0.is_finite()
            && times.first().is_some_and(|&first| first >= t0)
            && times.windows(2).all(|pair| pair[1] >= pair[0])
            && times.iter().all(|t| t.is_finite());
        if !ordered {
            return Err(SensitivityError::InvalidTimes);
        }
        let parameters = self.parameters.as_ref();
        let interval = self.checkpoint_interval.get();
        let forces = Rates {
            model: &self.model,
            parameters,
        };

        // Forward: the steps' times, a state every `interval` steps, ∂gₖ/∂y at each sample.
        let mut steps: Vec<(V::Scalar, V::Scalar)> = Vec::new();
        let mut checkpoints: Vec<V> = Vec::new();
        let mut samples: Vec<(usize, V)> = Vec::with_capacity(times.len());
        let mut statistics = Statistics::default();
        let mut y = y0.clone();
        let mut t = t0;
        for (k, &sample_time) in times.iter().enumerate() {
            if sample_time > t {
                statistics += solver.solve_with(&mut y, &forces, t, sample_time, |step| {
                    if steps.len() % interval == 0 {
                        checkpoints.push(step.start().clone());
                    }
                    steps.push((step.start_time(), step.end_time() - step.start_time()));
                })?;
                t = sample_time;
            }
            let mut out = y.zero_like();
            loss_gradient(k, sample_time, &y, &mut out);
            samples.push((steps.len(), out));
        }

        // Backward, a stretch at a time from the last checkpoint.
        let tableau = &solver.method().0.pair().tableau;
        let mut sweep = Sweep::new(&self.model, parameters, tableau, y0, interval, steps.len());
        let mut lambda = y0.zero_like();
        let mut pending = samples.len();
        for (c, checkpoint) in checkpoints.iter().enumerate().rev() {
            let first = c * interval;
            let last = (first + interval).min(steps.len());
            sweep.recompute(checkpoint, &steps[first..last]);
            for n in (first..last).rev() {
                while pending > 0 && samples[pending - 1].0 == n + 1 {
                    pending -= 1;
                    lambda.add_scaled_assign(&samples[pending].1, V::Scalar::one());
                }
                sweep.adjoint_step(n - first, steps[n], &mut lambda);
            }
        }
        for (_, sample) in &samples[..pending] {
            lambda.add_scaled_assign(sample, V::Scalar::one());
        }
        Ok(Gradient {
            parameters: sweep.parameter_gradient,
            initial_value: lambda,
            end: y,
            statistics,
            adjoint_evaluations: sweep.evaluations,
            cotangents: sweep.cotangents,
        })
    }
}

/// The model at fixed parameters: the forces of the forward solve.
struct Rates<'a, M, T> {
    model: &'a M,
    parameters: &'a [T],
}

impl<V: Vector, M: Model<V>> Forces<V> for Rates<'_, M, V::Scalar> {
    fn force(&self, y: &V, t: V::Scalar) -> V {
        let mut out = y.zero_like();
        self.force_into(y, t, &mut out);
        out
    }

    #[inline]
    fn force_into(&self, y: &V, t: V::Scalar, out: &mut V) {
        self.model.rate(y, self.parameters, t, out);
    }
}

/// The backward sweep's model, coefficients and buffers (made once per gradient).
struct Sweep<'a, V: Vector, M, const N: usize> {
    model: &'a M,
    parameters: &'a [V::Scalar],
    tableau: &'a Tableau<N>,
    /// The states at the start of each step of the stretch being swept.
    states: Vec<V>,
    /// The stages of the step being recomputed or swept.
    stages: Stages<V>,
    /// `μᵢ = J_y(Yᵢ)ᵀ uᵢ`, and `uᵢ`.
    mu: Vec<V>,
    u: V,
    /// `J_p(Yᵢ)ᵀ uᵢ`, and the sum of them so far.
    parameter_part: Vec<V::Scalar>,
    parameter_gradient: Vec<V::Scalar>,
    /// Scratch of the cotangent built a column at a time.
    columns: Columns<V>,
    evaluations: u64,
    cotangents: u64,
}

impl<'a, V: Vector, M: Model<V>, const N: usize> Sweep<'a, V, M, N> {
    fn new(
        model: &'a M,
        parameters: &'a [V::Scalar],
        tableau: &'a Tableau<N>,
        like: &V,
        interval: usize,
        steps: usize,
    ) -> Self {
        // The stages after the last with a weight serve only the next step or dense output.
        let stages = tableau
            .b
            .iter()
            .rposition(|&b| b != 0.0)
            .map_or(0, |i| i + 1);
        let zero = like.zero_like();
        let zeros = |count| vec![zero.clone(); count];
        let parameter_count = parameters.len();
        Sweep {
            model,
            parameters,
            tableau,
            states: zeros(interval.min(steps).max(1)),
            stages: Stages {
                count: stages,
                states: zeros(stages),
                rates: zeros(stages),
            },
            mu: zeros(stages),
            u: zero.clone(),
            parameter_part: vec![V::Scalar::zero(); parameter_count],
            parameter_gradient: vec![V::Scalar::zero(); parameter_count],
            columns: Columns::new(&zero, parameters),
            evaluations: 0,
            cotangents: 0,
        }
    }

    /// The states at the start of `steps` from `checkpoint`, the first's.
    fn recompute(&mut self, checkpoint: &V, steps: &[(V::Scalar, V::Scalar)]) {
        self.states[0].assign(checkpoint);
        for (n, &(t, h)) in steps.iter().enumerate().take(steps.len() - 1) {
            let (done, next) = self.states.split_at_mut(n + 1);
            self.evaluations +=
                self.stages
                    .compute(self.model, self.parameters, self.tableau, &done[n], t, h);
            next[0].assign(&done[n]);
            for (rate, &b) in self.stages.rates.iter().zip(&self.tableau.b) {
                if b != 0.0 {
                    next[0].add_scaled_assign(rate, h * V::Scalar::from_f64(b));
                }
            }
        }
    }

    /// Takes `λ = ∂L/∂y₊` back over the step `(t, h)` from the stretch's state `index`.
    fn adjoint_step(&mut self, index: usize, (t, h): (V::Scalar, V::Scalar), lambda: &mut V) {
        let y = &self.states[index];
        self.evaluations += self
            .stages
            .compute(self.model, self.parameters, self.tableau, y, t, h);
        let Tableau { a, b, c, .. } = *self.tableau;
        let count = self.stages.count;
        for i in (0..count).rev() {
            let later = (i + 1..count).filter(|&j| a[j][i] != 0.0);
            if b[i] == 0.0 && later.clone().next().is_none() {
                self.mu[i].set_zero();
                continue;
            }
            self.u.assign(lambda);
            self.u.scale_assign(h * V::Scalar::from_f64(b[i]));
            for j in later {
                self.u
                    .add_scaled_assign(&self.mu[j], h * V::Scalar::from_f64(a[j][i]));
            }
            let ti = t + V::Scalar::from_f64(c[i]) * h;
            let (state, mu) = (&self.stages.states[i], &mut self.mu[i]);
            self.evaluations += self.columns.cotangent(
                self.model,
                state,
                self.parameters,
                ti,
                &self.u,
                mu,
                &mut self.parameter_part,
            );
            self.cotangents += 1;
            for (sum, part) in self.parameter_gradient.iter_mut().zip(&self.parameter_part) {
                *sum = *sum + *part;
            }
        }
        for mu in &self.mu[..count] {
            lambda.add_scaled_assign(mu, V::Scalar::one());
        }
    }
}

/// The stages' states `Yᵢ` and rates `kᵢ` of one step, up to `count`.
struct Stages<V> {
    count: usize,
    states: Vec<V>,
    rates: Vec<V>,
}

impl<V: Vector> Stages<V> {
    /// The stages of the step of `h` from `y` at `t`; the evaluations spent.
    fn compute<M: Model<V>, const N: usize>(
        &mut self,
        model: &M,
        parameters: &[V::Scalar],
        tableau: &Tableau<N>,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) -> u64 {
        for i in 0..self.count {
            let (earlier, rest) = self.rates.split_at_mut(i);
            let state = &mut self.states[i];
            state.assign(y);
            for (rate, &a) in earlier.iter().zip(&tableau.a[i]) {
                if a != 0.0 {
                    state.add_scaled_assign(rate, h * V::Scalar::from_f64(a));
                }
            }
            let ti = t + V::Scalar::from_f64(tableau.c[i]) * h;
            model.rate(state, parameters, ti, &mut rest[0]);
        }
        self.count as u64
    }
}

/// A cotangent built a column at a time when the model gives none: each column of `J_y`
/// and `J_p` from [`Model::tangent`] or a one-sided difference (the step of
/// [`Forward`](super::Forward)'s: `√ε` relative, absolute below 1).
struct Columns<V: Vector> {
    rate: V,
    column: V,
    probe: V,
    unit: V,
    zero: V,
    perturbed: Vec<V::Scalar>,
    unit_parameter: Vec<V::Scalar>,
}

impl<V: Vector> Columns<V> {
    fn new(zero: &V, parameters: &[V::Scalar]) -> Self {
        Columns {
            rate: zero.clone(),
            column: zero.clone(),
            probe: zero.clone(),
            unit: zero.clone(),
            zero: zero.clone(),
            perturbed: parameters.to_vec(),
            unit_parameter: vec![V::Scalar::zero(); parameters.len()],
        }
    }

    /// Writes `J_yᵀ w` and `J_pᵀ w` at (`y`, `p`, `t`); the evaluations of the rate spent.
    #[allow(clippy::too_many_arguments)]
    fn cotangent<M: Model<V>>(
        &mut self,
        model: &M,
        y: &V,
        parameters: &[V::Scalar],
        t: V::Scalar,
        w: &V,
        out_y: &mut V,
        out_p: &mut [V::Scalar],
    ) -> u64 {
        if model.cotangent(y, parameters, t, w, out_y, out_p) {
            return 0;
        }
        let root_epsilon = V::Scalar::epsilon().sqrt();
        let one = V::Scalar::one();
        model.rate(y, parameters, t, &mut self.rate);
        let mut evaluations = 1;
        for j in 0..y.dim() {
            self.unit.set_zero();
            self.unit.set_component(j, one);
            if !model.tangent(
                y,
                parameters,
                t,
                &self.unit,
                &self.unit_parameter,
                &mut self.column,
            ) {
                self.probe.assign(y);
                let x = y.component(j);
                let step = root_epsilon * x.abs().max(one);
                self.probe.set_component(j, x + step);
                let step = self.probe.component(j) - x;
                model.rate(&self.probe, parameters, t, &mut self.column);
                self.column.add_scaled_assign(&self.rate, -one);
                self.column.scale_assign(one / step);
                evaluations += 1;
            }
            out_y.set_component(j, dot(w, &self.column));
        }
        for (k, out) in out_p.iter_mut().enumerate() {
            self.unit_parameter[k] = one;
            let exact = model.tangent(
                y,
                parameters,
                t,
                &self.zero,
                &self.unit_parameter,
                &mut self.column,
            );
            self.unit_parameter[k] = V::Scalar::zero();
            if !exact {
                let x = parameters[k];
                let step = root_epsilon * x.abs().max(one);
                self.perturbed[k] = x + step;
                let step = self.perturbed[k] - x;
                model.rate(y, &self.perturbed, t, &mut self.column);
                self.perturbed[k] = x;
                self.column.add_scaled_assign(&self.rate, -one);
                self.column.scale_assign(one / step);
                evaluations += 1;
            }
            *out = dot(w, &self.column);
        }
        evaluations
    }
}

fn dot<V: Vector>(a: &V, b: &V) -> V::Scalar {
    (0..a.dim()).fold(V::Scalar::zero(), |sum, i| {
        sum + a.component(i) * b.component(i)
    })
}
