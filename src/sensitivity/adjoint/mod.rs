//! [`Adjoint`]: the gradient of a function of the solution, by the discrete adjoint of the
//! method that solved it (an explicit pair, Radau5, a Rosenbrock method, SEULEX, the BDF,
//! or a fixed-step run), with checkpoints.
//!
//! - `method.rs`: what a method gives the one driver here ([`AdjointMethod`]);
//! - `fixed.rs`: the fixed-step runs ([`Adjoint::gradient_fixed`], [`FixedAdjointMethod`]),
//!   on the same backward sweep; `one_stage.rs`: the backward step of backward Euler, the
//!   trapezoid and the implicit midpoint rule;
//! - `explicit.rs`, `radau5.rs`, `rosenbrock.rs`: the backward step of an explicit pair,
//!   of Radau5 and of a Rosenbrock method;
//! - `seulex.rs`: the backward step of SEULEX;
//! - `bdf.rs`: the backward step of the BDF;
//! - `round_off.rs`: Newton's method taken to round-off, as the implicit methods' steps
//!   are taken again;
//! - `linearised.rs`: the model's rates and Jacobian products, counted.

mod bdf;
mod explicit;
mod fixed;
mod linearised;
mod method;
mod one_stage;
mod radau5;
mod rosenbrock;
mod round_off;
mod seulex;

pub use fixed::FixedAdjointMethod;
pub use method::AdjointMethod;

use super::{Model, SensitivityError};
use crate::{Adaptive, Forces, Jacobian, Scalar, Statistics, Vector};
use alloc::vec;
use alloc::vec::Vec;
use core::cell::{Cell, RefCell};
use core::num::NonZeroUsize;
use linearised::Linearised;
use method::BackwardStep;
use num_traits::{One, Zero};

/// The gradient of a scalar function of the solution, `L = Σₖ gₖ(y(tₖ))` (a final value,
/// or a sum over sample times), with respect to every parameter and the initial value, by
/// the discrete adjoint of the method that solved it: an explicit pair
/// ([`Pair`](crate::Pair): Dopri5, Tsit5, Vern9 …), [`Radau5`](crate::Radau5) or a
/// [`Rosenbrock`](crate::Rosenbrock) method ([`Rodas4`](crate::Rodas4),
/// [`Ros3p`](crate::Ros3p)), [`Seulex`](crate::Seulex) or the [`Bdf`](crate::Bdf) (see
/// [`AdjointMethod`]).
///
/// A forward solve with the method under error control records its steps; the adjoint then
/// runs the steps backwards. For one step of an explicit pair `y₊ = y + h Σᵢ bᵢ kᵢ` with stages
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
/// **Radau5.** The same formulas hold for an implicit Runge–Kutta step with the sum over
/// every stage, `uᵢ = h bᵢ λ + h Σⱼ aⱼᵢ Jⱼᵀ uⱼ`: one linear system of `3n` unknowns per
/// step, solved by dense LU (`O((3n)³)` per step, for small and moderate `n`), with the
/// stage Jacobians read a row per cotangent (the derivation is in
/// `src/sensitivity/adjoint/radau5.rs`). Radau5's Newton iteration stops at a fraction
/// of the tolerance, so the adjoint differentiates the steps with their stage equations
/// solved exactly: after the forward solve every step is taken again from `y0` and its
/// stage equations solved to round-off (Newton's method with the exact `3n × 3n` matrix,
/// from the forward solve's stages), and the checkpoints, the samples (and so what
/// `loss_gradient` sees) are those states. It then equals forward sensitivities of
/// Radau5 over the same steps with the stages solved tightly, to round-off. Give the
/// model a [`Model::cotangent`]: each stage Jacobian costs `n` of them (`n + 1`
/// evaluations without). A step whose stage equations cannot be solved again is
/// [`SensitivityError::StagesNotSolved`]. Costs, on Robertson's kinetics
/// (`benches/sensitivity.rs`): about 8 plain solves.
///
/// **Rosenbrock methods.** A step `(I − hγJ) Uᵢ = hγ (f(Yᵢ) + Σⱼ (cᵢⱼ/h) Uⱼ + γᵢ h f_t)`
/// depends on `y` and `p` through its stages and through `J = f_y(t, y, p)` and `f_t`
/// themselves. Its adjoint takes one transposed solve per stage with the step's own LU,
/// one cotangent per stage, and the second-order term `Σᵢ ∇_{y,p} (uᵢᵀ J Uᵢ)` as central
/// differences of two cotangents at `y ± δUᵢ` (about `ε^(2/3)` relative to the
/// first-order terms: 10⁻¹¹ in `f64`), and `f_t`'s term exactly (the derivation is in
/// `src/sensitivity/adjoint/rosenbrock.rs`). The step is that with the model's Jacobian
/// (from its cotangents or tangents, dense whatever the method's
/// [`Structure`](crate::Structure)): the forward solve takes it too, and every step is
/// taken again from `y0` before the backward sweep, as for Radau5, so the samples are
/// those of the map differentiated. It equals forward sensitivities of the same method
/// over the same steps with the augmented system's exact Jacobian to round-off. A model
/// with neither cotangent nor tangent gets `J` by differences, and the second-order term
/// is then noise of about `ε^(1/6)` relative: give a cotangent. Costs, on Robertson's
/// kinetics under Rodas4: about 6.4 plain solves.
///
/// **SEULEX.** A step of `κ` lines takes `nⱼ` linearly implicit Euler substeps
/// `(I/hⱼ − J) Δₘ = f(τₘ, yₘ)` in line `j` (`hⱼ = h/nⱼ`, one `J = f_y(t, y, p)` for all)
/// and extrapolates the lines' ends (Aitken–Neville: Hairer–Wanner II, IV.9; Deuflhard
/// 1985), linearly, `y₊ = y + Σⱼ cⱼ Sⱼ`. Its adjoint takes each line back from its last
/// substep, one transposed solve with the line's LU and one cotangent per substep, with
/// `J`'s own change with `(y, p)` as for a Rosenbrock method, by central differences of
/// cotangents (per substep, or per row of `J` when the substeps outnumber the unknowns;
/// Sandu et al. 2003; the derivation is in `src/sensitivity/adjoint/seulex.rs`). The step
/// sizes and the lines of each step are those of the forward solve, held fixed. SEULEX
/// keeps its Jacobian over several steps while its stability check allows; the map
/// differentiated takes the model's fresh at every step, so, as for Rosenbrock methods,
/// the forward solve takes the model's Jacobian and every step is taken again from `y0`
/// with a fresh one before the backward sweep: the samples (and the end) are those
/// states. It equals forward sensitivities of the same steps and lines to round-off.
/// Costs, on Robertson's kinetics at rtol 10⁻⁶: about 3.6 plain solves
/// (`benches/sensitivity.rs`). Memory: the points and increments of one line's substeps
/// (twice 96 states at most), 21 more states, `3n²` numbers.
///
/// **The BDF.** CVODE's variable-order, variable-step BDF in fixed-leading-coefficient
/// Nordsieck form (Hindmarsh et al., ACM TOMS 31 (2005) 363–396, §2.1) is differentiated as
/// it ran, with its steps, orders and formulas held fixed (the discrete adjoint, as Sandu
/// derives it for multistep methods, *Reverse automatic differentiation of linear multistep
/// methods*, LNCSE 64 (2008) 1–12; CVODES's adjoint, Serban and Hindmarsh, ASME 2005, is
/// instead the continuous one, the adjoint equation solved by its own BDF). Between two
/// accepted steps every operation on the Nordsieck array but the correction is linear
/// (rescalings by `ηʲ`, failed attempts included, order changes, Pascal's predictor,
/// `zⱼ += lⱼ Δ`): the forward solve records, per step, that map (a `5 × 6` matrix on the
/// columns and the correction saved for an order increase), the order, `l`, and whether the
/// array restarted from `z₁ = h f(t, y)`. The corrector `Δ = γ f(t + h, y₍₀₎ + Δ) − z₁₍₀₎/l₁`
/// is the one non-linear part: its adjoint is one transposed solve `(I − γJ)ᵀ u = w` at the
/// step's end by dense LU of `n × n` (for small and moderate `n`) and one cotangent, then
/// the linear maps transposed; a restart adds a cotangent at the step's start (the
/// derivation is in `src/sensitivity/adjoint/bdf.rs`). As for Radau5, the forward Newton
/// iteration stops at a tolerance, so every step is taken again from `y0` with its
/// corrector solved to round-off (Newton's method with the exact `I − γJ`), and the
/// samples are those states; the gradient is the exact derivative of that map (checked
/// against its differences to 10⁻¹⁰ across orders 1 to 5). A checkpoint keeps the whole
/// array (seven states: `y`, `z₁ … z₅`, the saved correction), a step 44 numbers more.
/// Each stretch between sample times is a run of its own, which restarts the BDF at the
/// first order. A model with a mass matrix is refused
/// ([`SensitivityError::MassMatrix`]). Costs, on Robertson's kinetics at rtol 10⁻⁶: about
/// 5.3 plain BDF solves (`benches/sensitivity.rs`).
///
/// **Fixed steps.** [`gradient_fixed`](Adjoint::gradient_fixed) is the adjoint of a run of
/// fixed steps ([`FixedAdjointMethod`]): the explicit tableaus (RK4 …) by the formulas
/// above, and backward Euler, the trapezoid and the implicit midpoint rule with each step
/// taken again and its stage equation solved to round-off, as for Radau5 (one transposed
/// `n × n` solve and one or two cotangents per step: `src/sensitivity/adjoint/one_stage.rs`).
/// Costs, on `y' = W y` with 100 parameters in 100 steps: about 5.5 plain runs for RK4,
/// 9.1 for the trapezoid.
///
/// **Checkpoints.** The forward solve keeps the state at every `K`-th step
/// ([`with_checkpoint_interval`](Adjoint::with_checkpoint_interval), default 32) and the
/// times of all steps; the backward sweep recomputes each stretch of `K` steps from its
/// checkpoint, then each step's stages. Memory: `⌈N/K⌉ + K` states for `N` steps, two
/// scalars per step and the method's record (SEULEX one number, the BDF 44), one state
/// per sample time, and `3s + 6` states of scratch for an `s`-stage pair (for Radau5 three
/// more states per checkpoint, the stages of a stretch, `3K` states, and `12 n²` numbers;
/// for the BDF six more states per checkpoint, the ends of a stretch's steps, `K` states,
/// and `2n²` numbers); nothing is allocated per step. Work for a pair: the forward solve,
/// then about two more evaluations and one cotangent per stage and step (one evaluation
/// fewer with `K = 1`, which keeps every state); for Radau5, two Newton solves of each
/// step's stages (one for the stretch's last) and one transposed system; for the BDF, two
/// Newton solves of each corrector (one for the stretch's last) and one transposed
/// `n × n` system.
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
    /// The most steps a fixed-step run may take.
    max_steps: u64,
}

/// What [`Adjoint::gradient`] and [`Adjoint::gradient_fixed`] give.
#[derive(Clone, Debug)]
#[non_exhaustive]
pub struct Gradient<V: Vector> {
    /// `∂L/∂p`, one entry per parameter.
    pub parameters: Vec<V::Scalar>,
    /// `∂L/∂y(t₀)`.
    pub initial_value: V,
    /// The state at the last sample time: for a method whose steps are taken again to
    /// round-off (Radau5, the Rosenbrock methods, SEULEX, the one-stage implicit methods),
    /// that of the steps taken again, the run differentiated, which `loss_gradient` sees.
    pub end: V,
    /// The forward solve's statistics (summed over the stretches between sample times).
    pub statistics: Statistics,
    /// Evaluations of the rate after the forward solve (steps taken again, and the
    /// columns of cotangents and Jacobians built from differences).
    pub adjoint_evaluations: u64,
    /// Cotangents taken (one per stage with a weight, and step; for Radau5 also one per
    /// row of each stage Jacobian; for a Rosenbrock method also one per row of each
    /// step's Jacobian, forward and backward, two per stage for the second-order term
    /// and two for `f_t`; for SEULEX one per substep instead of per stage, one per row of
    /// each step's Jacobian, forward and backward, and two per substep or per row of the
    /// Jacobian for the second-order term; for backward Euler, the trapezoid and the
    /// implicit midpoint rule one per row of each Jacobian, of the steps taken again and
    /// taken back; for the BDF one per step, one more per restart, and one per row of
    /// each Jacobian of the steps taken again and back).
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
            max_steps: 10_000_000,
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
    /// and limits), calls `loss_gradient(k, tₖ, y(tₖ), out)` for each sample time, in
    /// order, after the forward solve, to have `∂gₖ/∂y` written into `out` (zero on entry;
    /// leave it zero for a time that does not count), and returns the gradient of
    /// `L = Σₖ gₖ(y(tₖ))`.
    ///
    /// Each stretch between sample times is a solve of its own that lands on the sample
    /// (a time equal to the one before, or to `t0`, adds a sample without steps).
    ///
    /// # Errors
    ///
    /// [`SensitivityError::InvalidTimes`] when `t0` or a time is not finite, or `times` is
    /// empty or not ordered forward from `t0` (each at or after the one before, the first
    /// at or after `t0`); [`SensitivityError::Solve`] when the forward solve stops (too
    /// many steps, a step too small, a non-finite rate: the solver's error says which);
    /// [`SensitivityError::StagesNotSolved`] when Radau5's stage equations of a step
    /// cannot be solved again to round-off (a non-finite Jacobian, a singular matrix), or
    /// a Rosenbrock step taken again meets a singular or non-finite `I − hγJ` or
    /// non-finite stages, or a SEULEX step taken again a singular or non-finite
    /// `I/hⱼ − J` or non-finite increments, or the BDF's corrector of a step cannot be
    /// solved again to round-off (a non-finite Jacobian, a singular `I − γJ`).
    /// [`SensitivityError::MassMatrix`] when the model gives a mass matrix to a method that
    /// reads one (Radau5, the Rosenbrock methods, the BDF; the explicit pairs solve
    /// `y' = f`, SEULEX refuses it).
    pub fn gradient<V, A, G>(
        &self,
        solver: &mut Adaptive<V, A>,
        y0: &V,
        t0: V::Scalar,
        times: &[V::Scalar],
        loss_gradient: G,
    ) -> Result<Gradient<V>, SensitivityError>
    where
        V: Vector,
        M: Model<V>,
        P: AsRef<[V::Scalar]>,
        A: AdjointMethod<V>,
        G: FnMut(usize, V::Scalar, &V, &mut V),
    {
        check_times(t0, times)?;
        let parameters = self.parameters.as_ref();
        let interval = self.checkpoint_interval.get();
        let forces = Rates {
            model: &self.model,
            parameters,
            mass: Cell::new(false),
            jacobian: A::MODEL_JACOBIAN.then(|| {
                let entries = vec![V::Scalar::zero(); y0.dim() * y0.dim()];
                RefCell::new((Linearised::new(&self.model, parameters, y0), entries))
            }),
        };

        // Forward: the steps' times, a checkpoint every `interval` steps, the state at
        // each sample.
        let mut steps: Vec<(V::Scalar, V::Scalar)> = Vec::new();
        let mut records: Vec<f64> = Vec::new();
        let mut checkpoints: Vec<V> = Vec::new();
        let mut samples: Vec<(usize, V)> = Vec::with_capacity(times.len());
        let mut statistics = Statistics::default();
        let mut y = y0.clone();
        let mut t = t0;
        for &sample_time in times {
            if sample_time > t {
                let solved = solver.solve_with(&mut y, &forces, t, sample_time, |step| {
                    if steps.len() % interval == 0 {
                        A::checkpoint(step, &mut checkpoints);
                    }
                    steps.push((step.start_time(), step.end_time() - step.start_time()));
                    A::record(step, &mut records);
                });
                if forces.mass.get() {
                    return Err(SensitivityError::MassMatrix);
                }
                statistics += solved?;
                t = sample_time;
            }
            samples.push((steps.len(), y.clone()));
        }

        let stretch = interval.min(steps.len()).max(1);
        let backward = solver.method().backward(y0, stretch, parameters.len());
        let mut model = Linearised::new(&self.model, parameters, y0);
        let recorded = Recorded {
            steps: &steps,
            records: &records,
            record_size: A::RECORD,
            checkpoints: &mut checkpoints,
            samples: &mut samples,
            interval,
            checkpoint_states: A::CHECKPOINT_STATES,
            takes_steps_again: A::TAKES_STEPS_AGAIN,
        };
        let (parameter_gradient, lambda, end) =
            sweep(&mut model, backward, recorded, y0, times, loss_gradient)?;
        Ok(Gradient {
            parameters: parameter_gradient,
            initial_value: lambda,
            end,
            statistics,
            adjoint_evaluations: model.evaluations,
            cotangents: model.cotangents + forces.cotangents(),
        })
    }
}

/// Refuses sample times that are empty, not finite, or not ordered forward from `t0`.
fn check_times<T: Scalar>(t0: T, times: &[T]) -> Result<(), SensitivityError> {
    let ordered = t0.is_finite()
        && times.first().is_some_and(|&first| first >= t0)
        && times.windows(2).all(|pair| pair[1] >= pair[0])
        && times.iter().all(|t| t.is_finite());
    if ordered {
        Ok(())
    } else {
        Err(SensitivityError::InvalidTimes)
    }
}

/// What a forward run recorded for the backward sweep: the steps' `(t, h)`, what the
/// method keeps of each ([`AdjointMethod::record`], `record_size` numbers a step; empty
/// for a fixed-step run, whose steps have nothing more), a checkpoint of `checkpoint_states` states every `interval`
/// steps, and the state at each sample with the number of steps before it; and whether
/// the method takes its steps again.
struct Recorded<'r, V: Vector> {
    steps: &'r [(V::Scalar, V::Scalar)],
    records: &'r [f64],
    record_size: usize,
    checkpoints: &'r mut [V],
    samples: &'r mut [(usize, V)],
    interval: usize,
    checkpoint_states: usize,
    takes_steps_again: bool,
}

/// The backward sweep every run shares (adaptive or fixed-step): the steps taken again
/// from `y0` when the method asks it, `loss_gradient` at each sample, then each stretch's
/// states recomputed from its checkpoint and its steps taken back. Returns `∂L/∂p`,
/// `∂L/∂y(t₀)` and the state at the last sample (of the steps taken again, if they were).
fn sweep<V, M, B, G>(
    model: &mut Linearised<'_, V, M>,
    mut backward: B,
    recorded: Recorded<'_, V>,
    y0: &V,
    times: &[V::Scalar],
    mut loss_gradient: G,
) -> Result<(Vec<V::Scalar>, V, V), SensitivityError>
where
    V: Vector,
    M: Model<V>,
    B: BackwardStep<V>,
    G: FnMut(usize, V::Scalar, &V, &mut V),
{
    let Recorded {
        steps,
        records,
        record_size,
        checkpoints,
        samples,
        interval,
        checkpoint_states,
        takes_steps_again,
    } = recorded;
    // Step n's record, none for a fixed-step run.
    let record = |n: usize| records.get(n * record_size..(n + 1) * record_size);
    let stretch = interval.min(steps.len()).max(1);
    let mut states = vec![y0.zero_like(); stretch];
    if takes_steps_again {
        // The forward solve's states are its Newton iteration's: the run the adjoint
        // differentiates is that of the steps solved exactly, from `y0`.
        let mut carried = y0.clone();
        let mut sample = samples.iter().take_while(|(n, _)| *n == 0).count();
        for (c, checkpoint) in checkpoints.chunks_mut(checkpoint_states).enumerate() {
            let first = c * interval;
            let last = (first + interval).min(steps.len());
            checkpoint[0].assign(&carried);
            backward.carry(checkpoint);
            states[0].assign(&carried);
            for (i, &(t, h)) in steps[first..last].iter().enumerate() {
                let n = first + i;
                let (done, after) = states.split_at_mut(i + 1);
                let next = if n + 1 < last {
                    &mut after[0]
                } else {
                    &mut carried
                };
                if let Some(record) = record(n) {
                    backward.select(record);
                }
                backward.advance(&mut *model, i, checkpoint, &done[i], t, h, Some(&mut *next))?;
                while sample < samples.len() && samples[sample].0 == n + 1 {
                    samples[sample].1.assign(next);
                    sample += 1;
                }
            }
        }
    }
    let end = samples
        .last()
        .map_or_else(|| y0.clone(), |(_, state)| state.clone());
    // ∂gₖ/∂y at each sample, in place of its state.
    for (k, ((_, sample), &time)) in samples.iter_mut().zip(times).enumerate() {
        let mut out = sample.zero_like();
        loss_gradient(k, time, sample, &mut out);
        *sample = out;
    }

    // Backward, a stretch at a time from the last checkpoint: its states (and what
    // the method keeps of its steps) taken again, then its steps taken back.
    let mut parameter_gradient = vec![V::Scalar::zero(); model.parameter_count()];
    let mut lambda = y0.zero_like();
    let mut pending = samples.len();
    let stretches = checkpoints.len() / checkpoint_states;
    for (c, checkpoint) in checkpoints.chunks(checkpoint_states).enumerate().rev() {
        let first = c * interval;
        let last = (first + interval).min(steps.len());
        // The steps taken again from the start left the last stretch in the buffers.
        let kept = takes_steps_again && c + 1 == stretches;
        if !kept {
            states[0].assign(&checkpoint[0]);
        }
        for n in (first..last).filter(|_| !kept) {
            let i = n - first;
            let (done, after) = states.split_at_mut(i + 1);
            let next = if n + 1 < last {
                after.first_mut()
            } else {
                None
            };
            let (t, h) = steps[n];
            if let Some(record) = record(n) {
                backward.select(record);
            }
            backward.advance(&mut *model, i, checkpoint, &done[i], t, h, next)?;
        }
        for n in (first..last).rev() {
            while pending > 0 && samples[pending - 1].0 == n + 1 {
                pending -= 1;
                lambda.add_scaled_assign(&samples[pending].1, V::Scalar::one());
            }
            let (t, h) = steps[n];
            let i = n - first;
            if let Some(record) = record(n) {
                backward.select(record);
            }
            backward.adjoint(
                &mut *model,
                i,
                &states[i],
                t,
                h,
                &mut lambda,
                &mut parameter_gradient,
            )?;
        }
    }
    for (_, sample) in &samples[..pending] {
        lambda.add_scaled_assign(sample, V::Scalar::one());
    }
    Ok((parameter_gradient, lambda, end))
}

/// The model at fixed parameters: the forces of the forward solve, with the model's own
/// Jacobian for a method whose step is built on it ([`AdjointMethod::MODEL_JACOBIAN`]):
/// the model's products, counted, and a row-major `n × n` buffer.
struct Rates<'a, V: Vector, M> {
    model: &'a M,
    parameters: &'a [V::Scalar],
    /// Whether a method read a mass matrix from the model (refused after the solve).
    mass: Cell<bool>,
    jacobian: Option<RefCell<ModelJacobian<'a, V, M>>>,
}

/// The model's products, counted, and a row-major `n × n` Jacobian.
type ModelJacobian<'a, V, M> = (Linearised<'a, V, M>, Vec<<V as Vector>::Scalar>);

impl<V: Vector, M: Model<V>> Rates<'_, V, M> {
    /// The cotangents the forward solve's Jacobians took.
    fn cotangents(&self) -> u64 {
        self.jacobian
            .as_ref()
            .map_or(0, |cell| cell.borrow().0.cotangents)
    }
}

impl<V: Vector, M: Model<V>> Forces<V> for Rates<'_, V, M> {
    fn force(&self, y: &V, t: V::Scalar) -> V {
        let mut out = y.zero_like();
        self.force_into(y, t, &mut out);
        out
    }

    #[inline]
    fn force_into(&self, y: &V, t: V::Scalar, out: &mut V) {
        self.model.rate(y, self.parameters, t, out);
    }

    /// The model's mass matrix, noted: the methods that read one (Radau5, the Rosenbrock
    /// methods, SEULEX) solve the system it makes, and the gradient is then refused
    /// ([`SensitivityError::MassMatrix`]).
    fn mass_matrix(&self, mass: &mut Jacobian<'_, V::Scalar>) -> bool {
        let given = self.model.mass_matrix(mass);
        self.mass.set(self.mass.get() || given);
        given
    }

    /// The model's Jacobian, when the method asks for it and the model gives its
    /// products (a model with neither cotangent nor tangent leaves it to the method's
    /// differences).
    fn jacobian(&self, y: &V, t: V::Scalar, jacobian: &mut Jacobian<'_, V::Scalar>) -> bool {
        let Some(cell) = &self.jacobian else {
            return false;
        };
        let (model, entries) = &mut *cell.borrow_mut();
        if !model.model_jacobian(y, t, entries) {
            return false;
        }
        let n = y.dim();
        for r in 0..n {
            for c in 0..n {
                if jacobian.contains((r, c)) {
                    jacobian[(r, c)] = entries[r * n + c];
                }
            }
        }
        true
    }
}
