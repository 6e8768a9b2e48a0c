//! Embedded Runge–Kutta pairs as [`AdaptiveMethod`]s: the stages, the error estimate, and
//! the continuous extension of an [`EmbeddedPair`].

use super::{AdaptiveMethod, ErrorNorm, Statistics};
use crate::integrators::{EmbeddedPair, Stages, combination};
use crate::{DerivativeOf, Forces, Scalar, State};

/// The buffers of a pair's run: one rate per stage, a probe state for the stages, and two
/// rates for sums of stages; and the pair's stage counts, read once from its tables.
pub struct PairWorkspace<S: State, const N: usize> {
    rates: [DerivativeOf<S>; N],
    probe: S,
    sum: DerivativeOf<S>,
    error: DerivativeOf<S>,
    /// [`EmbeddedPair::attempt_stages`].
    attempt_stages: usize,
    /// [`EmbeddedPair::end_stage`].
    end_stage: usize,
}

impl<S: State, const N: usize> AdaptiveMethod<S> for &'static EmbeddedPair<N> {
    type Workspace = PairWorkspace<S, N>;

    #[inline(always)]
    fn workspace(&self, state: &S) -> PairWorkspace<S, N> {
        let zero = state.zero_rate();
        PairWorkspace {
            rates: core::array::from_fn(|_| zero.clone()),
            probe: state.clone(),
            sum: zero.clone(),
            error: zero,
            attempt_stages: self.attempt_stages(),
            end_stage: self.end_stage(),
        }
    }

    #[inline(always)]
    fn error_order(&self) -> u32 {
        self.tableau.order.min(self.embedded_order)
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
    fn attempt<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut PairWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        norm: &mut ErrorNorm<'_, S>,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> f64 {
        let PairWorkspace {
            rates,
            probe,
            sum,
            error,
            attempt_stages: stages,
            ..
        } = workspace;
        let stages = *stages;
        // The first stage is the start rate, from `begin` or the last step.
        self.tableau.stages(
            rates,
            probe,
            sum,
            state,
            forces,
            t,
            h,
            Stages::Span(1, stages),
        );
        statistics.evaluations += stages as u64 - 1;

        let (direction, factor) = combination(&self.tableau.b, rates, sum);
        end.clone_from(state);
        end.advance(direction, h * S::Scalar::from_f64(factor));

        norm.measure(state, end);
        let h = h.to_f64().abs();
        let (direction, factor) = combination(&self.error, rates, error);
        let Some(guard) = &self.error_guard else {
            return norm.norm(direction, h * factor);
        };
        let (guard_direction, guard_factor) = combination(guard, rates, sum);
        let (estimate, lower) =
            norm.norms(direction, h * factor, guard_direction, h * guard_factor);
        let denominator = estimate * estimate + 0.01 * lower * lower;
        if denominator > 0.0 {
            estimate * estimate / num_traits::Float::sqrt(denominator)
        } else {
            // Both estimates vanish (or are NaN, which the comparison sends here too): keep
            // a NaN, and a zero is a zero.
            estimate + lower
        }
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
        let last = workspace.end_stage;
        if last >= workspace.attempt_stages {
            end.derivative_into(forces, t + h, &mut workspace.rates[last]);
            statistics.evaluations += 1;
        }
        if dense && last + 1 < N {
            let PairWorkspace {
                rates, probe, sum, ..
            } = workspace;
            self.tableau.stages(
                rates,
                probe,
                sum,
                start,
                forces,
                t,
                h,
                Stages::Span(last + 1, N),
            );
            statistics.evaluations += (N - last - 1) as u64;
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
        let weights = self.dense_weights(theta);
        let (direction, factor) = combination(&weights, &workspace.rates, &mut workspace.sum);
        out.clone_from(start);
        out.advance(direction, h * S::Scalar::from_f64(factor));
    }

    #[inline(always)]
    fn step_on(&self, workspace: &mut PairWorkspace<S, N>) {
        workspace.rates.swap(0, workspace.end_stage);
    }
}

/// Makes a unit struct that names a pair (`Dopri5` for `Dopri5::PAIR`) the same
/// [`AdaptiveMethod`], with the controller its authors tuned it for (by default
/// dopri5.f's).
macro_rules! adaptive_pair {
    ($method:ident, $stages:literal) => {
        $crate::adaptive::adaptive_pair!($method, $stages, $crate::adaptive::Controller::DOPRI5);
    };
    ($method:ident, $stages:literal, $controller:expr) => {
        impl<S: $crate::State> $crate::adaptive::AdaptiveMethod<S> for $method {
            type Workspace = $crate::adaptive::PairWorkspace<S, $stages>;

            #[inline(always)]
            fn workspace(&self, state: &S) -> Self::Workspace {
                (&Self::PAIR).workspace(state)
            }

            #[inline(always)]
            fn error_order(&self) -> u32 {
                AdaptiveMethod::<S>::error_order(&&Self::PAIR)
            }

            #[inline(always)]
            fn controller(&self) -> $crate::adaptive::Controller {
                $controller
            }

            #[inline(always)]
            fn begin<F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace,
                state: &S,
                forces: &F,
                t: S::Scalar,
                statistics: &mut $crate::adaptive::Statistics,
            ) {
                (&Self::PAIR).begin(workspace, state, forces, t, statistics)
            }

            #[inline(always)]
            fn start_rate<'w>(
                &self,
                workspace: &'w Self::Workspace,
            ) -> &'w $crate::DerivativeOf<S> {
                (&Self::PAIR).start_rate(workspace)
            }

            #[inline(always)]
            fn attempt<F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace,
                state: &S,
                forces: &F,
                t: S::Scalar,
                h: S::Scalar,
                norm: &mut $crate::adaptive::ErrorNorm<'_, S>,
                end: &mut S,
                statistics: &mut $crate::adaptive::Statistics,
            ) -> f64 {
                (&Self::PAIR).attempt(workspace, state, forces, t, h, norm, end, statistics)
            }

            #[inline(always)]
            fn accept<F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace,
                start: &S,
                end: &S,
                forces: &F,
                t: S::Scalar,
                h: S::Scalar,
                dense: bool,
                statistics: &mut $crate::adaptive::Statistics,
            ) {
                (&Self::PAIR).accept(workspace, start, end, forces, t, h, dense, statistics)
            }

            #[inline(always)]
            fn dense(
                &self,
                workspace: &mut Self::Workspace,
                start: &S,
                h: S::Scalar,
                theta: f64,
                out: &mut S,
            ) {
                (&Self::PAIR).dense(workspace, start, h, theta, out)
            }

            #[inline(always)]
            fn step_on(&self, workspace: &mut Self::Workspace) {
                AdaptiveMethod::<S>::step_on(&&Self::PAIR, workspace)
            }
        }
    };
}
pub(crate) use adaptive_pair;
