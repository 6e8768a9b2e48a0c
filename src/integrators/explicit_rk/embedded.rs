//! Embedded Runge–Kutta pairs as [`AdaptiveMethod`]s: the stages, the error estimate, and
//! the continuous extension of an [`EmbeddedPair`].

use super::{EmbeddedPair, Stages};
use crate::control::{
    AdaptiveMethod, Controller, ErrorNorm, IntoAdaptive, Statistics, ToleranceSet,
};
use crate::vector::{combination, constant_combination};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};

/// The most bytes of stage rates an attempt copies out of the workspace into locals: a
/// state of up to eight `f64` with sixteen stages.
const LOCAL_RATES: usize = 1024;

/// The buffers of a pair's run: one rate per stage, a probe state for the stages, and two
/// rates for sums of stages; and the pair's stage counts, read once from its tables.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct PairWorkspace<S: State, const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::array"))]
    rates: [DerivativeOf<S>; N],
    probe: S,
    sum: DerivativeOf<S>,
    error: DerivativeOf<S>,
    /// [`EmbeddedPair::attempt_stages`].
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::at_most::<_, N>")
    )]
    attempt_stages: usize,
    /// [`EmbeddedPair::end_stage`].
    #[cfg_attr(
        feature = "serde",
        serde(deserialize_with = "crate::saved::below::<_, N>")
    )]
    end_stage: usize,
    /// The pair's [real stability boundary](crate::Tableau::real_stability_boundary),
    /// found when the stiffness test first needs it (`NaN` until then).
    #[cfg_attr(feature = "serde", serde(skip, default = "crate::saved::nan"))]
    stability_boundary: f64,
}

/// Where a [`Pair`] finds its coefficients: a unit struct that names a pair
/// ([`Dopri5`](crate::Dopri5), [`Dop853`](crate::Dop853), …), whose table is a constant
/// that the compiler folds into the stage loop, or any `&'static EmbeddedPair<N>`.
pub trait PairSource<const N: usize>: Copy {
    /// The pair.
    #[must_use]
    fn pair(self) -> &'static EmbeddedPair<N>;

    /// The pair's [`attempt_stages`](EmbeddedPair::attempt_stages) and
    /// [`end_stage`](EmbeddedPair::end_stage) when they are constants (the named pairs),
    /// so that the stage loop's tests of which stages an attempt evaluates fold away
    /// (DOP853 on 2 unknowns spent 4 % of its instructions on them); `None`, the
    /// default, has them computed once per workspace.
    #[must_use]
    #[inline(always)]
    fn stage_counts(self) -> Option<(usize, usize)> {
        None
    }
}

impl<const N: usize> PairSource<N> for &'static EmbeddedPair<N> {
    #[inline(always)]
    fn pair(self) -> Self {
        self
    }
}

/// An embedded pair as the [`Adaptive`](crate::Adaptive) driver steps it: its stages, its
/// error estimate and its continuous extension, from the coefficients its
/// [`PairSource`] gives. `Adaptive::new(Dopri5)` steps a `Pair<Dopri5, 7>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pair<P, const N: usize>(pub P);

impl<P: PairSource<N>, const N: usize> Pair<P, N> {
    /// The stages a step attempt evaluates and the stage that is the rate at the new
    /// state: the source's constants, or the workspace's.
    #[inline(always)]
    fn stage_counts<S: State>(&self, workspace: &PairWorkspace<S, N>) -> (usize, usize) {
        self.0
            .stage_counts()
            .unwrap_or((workspace.attempt_stages, workspace.end_stage))
    }
}

impl<S: State, const N: usize, P: PairSource<N>> AdaptiveMethod<S> for Pair<P, N> {
    type Workspace = PairWorkspace<S, N>;

    #[inline(always)]
    fn workspace(&self, state: &S) -> PairWorkspace<S, N> {
        let zero = state.zero_rate();
        PairWorkspace {
            rates: core::array::from_fn(|_| zero.clone()),
            probe: state.clone(),
            sum: zero.clone(),
            error: zero,
            attempt_stages: self.0.pair().attempt_stages(),
            end_stage: self.0.pair().end_stage(),
            stability_boundary: f64::NAN,
        }
    }

    #[inline(always)]
    fn error_order(&self) -> u32 {
        self.0
            .pair()
            .tableau
            .order
            .min(self.0.pair().embedded_order)
    }

    #[inline(always)]
    fn controller(&self) -> Controller {
        self.0.pair().controller
    }

    #[inline(always)]
    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.rates[0]);
        statistics.evaluations += 1;
    }

    #[inline(always)]
    fn start_rate<'w>(&self, workspace: &'w PairWorkspace<S, N>) -> &'w DerivativeOf<S> {
        &workspace.rates[0]
    }

    #[inline(always)]
    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        if S::splits_probes() && size_of::<[DerivativeOf<S>; N]>() <= LOCAL_RATES {
            // A small state of fixed size: the step's buffers as locals, which the compiler
            // keeps in registers, where in the workspace every term of every stage's sums
            // is a load and a store (DOP853 on Arenstorf at 10⁻⁶: 126 → 116 µs, the
            // hand-written bound of benches/adaptive_sol.rs about 107); the rates are handed
            // back for the next step and the dense output.
            // Only the first rate is read before the attempt writes it; the rest start
            // as copies of it, whose stores the compiler drops, and only the stages the
            // attempt wrote go back. The error estimate goes to the workspace: stored, it
            // is formed for all coordinates at once, where as a local it was formed one
            // coordinate at a time for the norm that reads it (DOP853 on 2 unknowns: 4 %
            // of the step).
            let counts = self.stage_counts(workspace);
            let attempt_stages = counts.0;
            let mut rates: [DerivativeOf<S>; N] =
                core::array::from_fn(|_| workspace.rates[0].clone());
            let (mut probe, mut sum) = (workspace.probe.clone(), workspace.sum.clone());
            let estimate = self.0.pair().attempt_in(
                &mut rates,
                &mut probe,
                &mut sum,
                &mut workspace.error,
                counts,
                state,
                forces,
                t,
                h,
                tolerances,
                end,
                statistics,
            );
            workspace.rates[..attempt_stages].clone_from_slice(&rates[..attempt_stages]);
            return Ok(estimate);
        }
        let counts = self.stage_counts(workspace);
        let PairWorkspace {
            rates,
            probe,
            sum,
            error,
            ..
        } = workspace;
        Ok(self.0.pair().attempt_in(
            rates, probe, sum, error, counts, state, forces, t, h, tolerances, end, statistics,
        ))
    }

    #[inline(always)]
    fn accept<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        dense: bool,
        statistics: &mut Statistics,
    ) {
        let (attempt_stages, last) = self.stage_counts(workspace);
        let _ = (start, dense);
        if last >= attempt_stages {
            end.derivative_into(forces, t + h, &mut workspace.rates[last]);
            statistics.evaluations += 1;
        }
    }

    /// The stages after the rate at the new state: an interpolant's own (DOP853's three,
    /// Verner's three to nine), evaluated only for a step whose dense output is read.
    #[inline(always)]
    fn prepare_dense<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        start: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        statistics: &mut Statistics,
    ) {
        let first = self.stage_counts(workspace).1 + 1;
        if first < N {
            let PairWorkspace {
                rates, probe, sum, ..
            } = workspace;
            self.0.pair().tableau.stages(
                rates,
                probe,
                sum,
                start,
                forces,
                t,
                h,
                Stages::Span(first, N),
            );
            statistics.evaluations += (N - first) as u64;
        }
    }

    #[inline(always)]
    fn dense(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        self.0
            .pair()
            .dense_from(&workspace.rates, &mut workspace.sum, start, h, theta, out);
    }

    type Interpolant = [DerivativeOf<S>; N];

    fn interpolant(&self, workspace: &PairWorkspace<S, N>) -> [DerivativeOf<S>; N] {
        workspace.rates.clone()
    }

    fn interpolate(
        &self,
        rates: &[DerivativeOf<S>; N],
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let mut sum = rates[0].zero_like();
        self.0
            .pair()
            .dense_from(rates, &mut sum, start, h, theta, out);
    }

    #[inline(always)]
    fn step_on(&self, workspace: &mut PairWorkspace<S, N>) {
        // The old first rate is not read again. A rate of fixed size is copied (exchanged,
        // an array of 28 `f64` went through an out-of-line `typed_swap`, 113 instructions a
        // step); others are exchanged in place (a `Vec`'s pointers, where `<[_]>::swap`
        // had moved an array of 36 `f64` through a temporary, three `memcpy`s a step).
        let end = self.stage_counts(workspace).1;
        if end > 0 {
            let (head, tail) = workspace.rates.split_at_mut(end);
            if DerivativeOf::<S>::fixed_zero().is_some() {
                head[0].assign(&tail[0]);
            } else {
                core::mem::swap(&mut head[0], &mut tail[0]);
            }
        }
    }

    fn stiffness(&self, workspace: &mut PairWorkspace<S, N>) -> Option<f64> {
        let PairWorkspace {
            rates,
            sum,
            end_stage,
            stability_boundary,
            ..
        } = workspace;
        let end = *end_stage;
        let stage = end.checked_sub(1)?;
        // At another time the rates would differ by `∂f/∂t` too.
        if self.0.pair().tableau.c[stage] != 1.0 {
            return None;
        }
        // `y₁ − yₛ = h Σⱼ (a_end,j − a_s,j) kⱼ`: the points' difference from the rates,
        // for any state, so `h` cancels from `h ‖Δf‖ / ‖Δy‖`.
        let weights: [f64; N] = core::array::from_fn(|j| {
            self.0.pair().tableau.a[end][j] - self.0.pair().tableau.a[stage][j]
        });
        let (direction, factor) = combination(&weights, rates, sum);
        let mut apart = 0.0;
        let mut rate_change = 0.0;
        for i in 0..direction.dim() {
            let d = direction.component(i).to_f64() * factor;
            let k = (rates[end].component(i) - rates[stage].component(i)).to_f64();
            apart += d * d;
            rate_change += k * k;
        }
        if !(apart > 0.0 && rate_change.is_finite()) {
            return None;
        }
        if stability_boundary.is_nan() {
            *stability_boundary = self.0.pair().tableau.real_stability_boundary();
        }
        Some(num_traits::Float::sqrt(rate_change / apart) / *stability_boundary)
    }

    fn gives_increment(&self) -> bool {
        true
    }

    fn increment(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        _start: &S,
        h: S::Scalar,
        out: &mut DerivativeOf<S>,
    ) {
        let PairWorkspace { rates, sum, .. } = workspace;
        let (direction, factor) = constant_combination(&self.0.pair().tableau.b, rates, sum);
        out.assign(direction);
        out.scale_assign(h * S::Scalar::from_f64(factor));
    }
}

/// Makes a unit struct with a `PAIR` of `$stages` stages that pair's [`PairSource`] and
/// [`IntoAdaptive`]: written once beside each table.
macro_rules! pair_source {
    ($($method:ident: $stages:literal),*) => {$(
        impl $crate::integrators::PairSource<$stages> for $method {
            #[inline(always)]
            fn pair(self) -> &'static $crate::EmbeddedPair<$stages> {
                &Self::PAIR
            }

            #[inline(always)]
            fn stage_counts(self) -> Option<(usize, usize)> {
                Some(const { (Self::PAIR.attempt_stages(), Self::PAIR.end_stage()) })
            }
        }

        impl $crate::control::IntoAdaptive for $method {
            type Method = $crate::integrators::Pair<Self, $stages>;

            #[inline(always)]
            fn into_adaptive(self) -> Self::Method {
                $crate::integrators::Pair(self)
            }
        }
    )*};
}
pub(crate) use pair_source;

impl<const N: usize> IntoAdaptive for &'static EmbeddedPair<N> {
    type Method = Pair<Self, N>;

    #[inline(always)]
    fn into_adaptive(self) -> Self::Method {
        Pair(self)
    }
}
impl<const N: usize> EmbeddedPair<N> {
    /// The continuous extension `y + h Σᵢ wᵢ(θ) kᵢ` from the step's rates.
    #[inline(always)]
    fn dense_from<S: State>(
        &self,
        rates: &[DerivativeOf<S>; N],
        sum: &mut DerivativeOf<S>,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let weights = self.dense_weights(theta);
        let (direction, factor) = combination(&weights, rates, sum);
        out.clone_from(start);
        out.advance(direction, h * S::Scalar::from_f64(factor));
    }

    /// [`AdaptiveMethod::attempt`] with its buffers given.
    #[allow(clippy::too_many_arguments)]
    #[inline(always)]
    fn attempt_in<S: State, F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        rates: &mut [DerivativeOf<S>; N],
        probe: &mut S,
        sum: &mut DerivativeOf<S>,
        error: &mut DerivativeOf<S>,
        (stages, end_stage): (usize, usize),
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> f64 {
        statistics.evaluations += stages as u64 - 1;
        // Where the rate at the step's end is one of the attempt's stages (Dormand–Prince
        // 5(4), Tsitouras 5(4)), the stages stop before it and it is evaluated at the end
        // itself, as dopri5.f evaluates it at `Y1`, rather than at a probe of the same point
        // formed in a pass of its own: for states whose probe is the end bit for bit, and
        // for small arrays, whose two-part probe differs from the end by rounding (Dormand–
        // Prince on six unknowns took 7 % less time).
        let at_end = end_stage < stages && (S::probe_is_advance() || S::splits_probes());
        // The first stage is the start rate, from `begin` or the last step.
        let before_end = if at_end { end_stage } else { stages };
        self.tableau.stages(
            rates,
            probe,
            sum,
            state,
            forces,
            t,
            h,
            Stages::Span(1, before_end),
        );
        if S::probe_is_advance() {
            // Formed as a probe, which for these states is the advance bit for bit, in one
            // pass: a `Vec`'s copy of the state was a call to `memcpy` and a pass of its own.
            state.probe_by_sum(&self.tableau.b, rates, h, sum, end);
        } else {
            end.clone_from(state);
            end.advance_by_sum(&self.tableau.b, rates, h, sum);
        }
        if at_end {
            let stage_time = t + h * S::Scalar::from_f64(self.tableau.c[end_stage]);
            end.derivative_into(forces, stage_time, &mut rates[end_stage]);
            self.tableau.stages(
                rates,
                probe,
                sum,
                state,
                forces,
                t,
                h,
                Stages::Span(end_stage + 1, stages),
            );
        }

        let norm = ErrorNorm::new(tolerances, state, end);
        let h = h.to_f64().abs();
        let (direction, factor) = constant_combination(&self.error, rates, error);
        let Some(guard) = &self.error_guard else {
            return norm.norm(direction, h * factor);
        };
        let (guard_direction, guard_factor) = constant_combination(guard, rates, sum);
        // `e²/√(e² + 0.01 ℓ²)` with `e² = Σ₅/n` and `ℓ² = Σ₃/n` (the squared norms) is
        // `Σ₅/√(n (Σ₅ + 0.01 Σ₃))`: from the sums, one root and one division.
        let (first, second) =
            norm.square_sums(direction, h * factor, guard_direction, h * guard_factor);
        let denominator = first + 0.01 * second;
        if denominator > 0.0 {
            let n = direction.dim().max(1) as f64;
            first / num_traits::Float::sqrt(n * denominator)
        } else {
            // Both estimates vanish (or are NaN, which the comparison sends here too): keep
            // a NaN, and a zero is a zero.
            first + second
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::control::Tolerances;
    use crate::{Dop853, Dopri5, Tsit5};

    /// One accepted step of `h` on `y′ = −λy` from `y = 1`, and its stiffness estimate.
    fn estimate<M: IntoAdaptive<Method: AdaptiveMethod<f64>>>(
        method: M,
        lambda: f64,
        h: f64,
    ) -> Option<f64> {
        let method = method.into_adaptive();
        let forces = move |y: &f64, _t: f64| -lambda * y;
        let mut workspace = method.workspace(&1.0);
        let tolerances = Tolerances::new(1e-6, 1e-6);
        let mut statistics = Statistics::default();
        let mut y1 = 0.0;
        method.begin(&mut workspace, &1.0, &forces, 0.0, &mut statistics);
        method
            .attempt(
                &mut workspace,
                &1.0,
                &forces,
                0.0,
                h,
                &tolerances,
                &mut y1,
                &mut statistics,
            )
            .unwrap();
        method.accept(
            &mut workspace,
            &1.0,
            &y1,
            &forces,
            0.0,
            h,
            false,
            &mut statistics,
        );
        method.stiffness(&mut workspace)
    }

    /// On a linear problem the rates' difference over the points' is `λ` itself: the
    /// estimate is `h|λ|` over the boundary at any `h` below the boundary, to rounding (the
    /// two points agree to high order, so their difference loses digits to cancellation).
    #[test]
    fn the_estimate_is_h_lambda_on_a_linear_problem() {
        for h in [1e-3, 0.01, 0.02, 0.03] {
            let lambda = 100.0;
            for (ratio, pair) in [
                (estimate(Dopri5, lambda, h), &Dopri5::PAIR.tableau),
                (estimate(Tsit5, lambda, h), &Tsit5::PAIR.tableau),
            ] {
                let exact = h * lambda / pair.real_stability_boundary();
                approx::assert_relative_eq!(ratio.unwrap(), exact, max_relative = 1e-5);
            }
            let ratio = estimate(Dop853, lambda, h).unwrap();
            let exact = h * lambda / Dop853::PAIR.tableau.real_stability_boundary();
            approx::assert_relative_eq!(ratio, exact, max_relative = 1e-5);
        }
    }
}
