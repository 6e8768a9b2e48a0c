//! [`NystromPair`]: the coefficients of an embedded Runge–Kutta–Nyström pair, and
//! [`Nystrom`], the [`AdaptiveMethod`] that steps any of them.
//!
//! A state of the crate keeps momenta, not velocities, and knows how to turn a momentum
//! into a velocity ([`State::velocity_into`]), not the masses. A Nyström stage needs the
//! position `x₀ + h (c v₀ + h Σⱼ aⱼ Fⱼ / m)`: the state kicked by `h Σⱼ aⱼ Fⱼ` moves at
//! `v₀ + h Σⱼ aⱼ Fⱼ / m` (the velocity is linear in the momentum), so the stage is the state
//! drifted by `h` times that velocity plus `(c − 1) v₀`, whatever the masses. A state that
//! knows its masses forms that rate in one pass instead ([`State::nystrom_rate_into`]).

use crate::control::{AdaptiveMethod, Controller, ErrorNorm, Statistics, ToleranceSet};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::One;

/// The coefficients of an embedded Runge–Kutta–Nyström pair of `S` stages for
/// `x'' = f(t, x)`:
///
/// ```text
/// xᵢ = x₀ + cᵢ h v₀ + h² Σⱼ aᵢⱼ fⱼ        fᵢ = f(t + cᵢ h, xᵢ)
/// x₁ = x₀ + h v₀ + h² Σᵢ bᵢ fᵢ,           v₁ = v₀ + h Σᵢ b'ᵢ fᵢ
/// ```
///
/// with the error estimates `h² Σᵢ eᵢ fᵢ` (position) and `h Σᵢ e'ᵢ fᵢ` (velocity), the
/// differences of the two members' weights, and a continuous extension: the pair's own
/// ([`NystromDense`]) or, for a pair without one, Hermite's interpolation of the step's
/// ends (quintic in the position from its values, velocities and accelerations, cubic in
/// the momentum from its values and forces).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NystromPair<const S: usize> {
    /// The pair's name (`"dprkn6"`).
    pub name: &'static str,
    /// The order of the solution.
    pub order: u32,
    /// The order of the embedded member, which the error estimate measures.
    pub embedded_order: u32,
    /// The nodes `cᵢ`.
    pub c: [f64; S],
    /// The position coupling `aᵢⱼ` (lower triangular).
    pub a: [[f64; S]; S],
    /// The position weights `bᵢ`.
    pub b: [f64; S],
    /// The velocity weights `b'ᵢ`.
    pub b_velocity: [f64; S],
    /// The position error weights `eᵢ = bᵢ − b̂ᵢ`.
    pub error: [f64; S],
    /// The velocity error weights `e'ᵢ = b'ᵢ − b̂'ᵢ`.
    pub error_velocity: [f64; S],
    /// The pair's own continuous extension, if it has one; otherwise the dense output is
    /// Hermite's.
    pub dense: Option<NystromDense<S>>,
    /// The step-size controller the pair is tuned for.
    pub controller: Controller,
}

/// A Nyström pair's continuous extension, `x(θ) = x₀ + θ h v₀ + (θ h)² Σᵢ bᵢ(θ) fᵢ`,
/// `v(θ) = v₀ + θ h Σᵢ b'ᵢ(θ) fᵢ`, with polynomials of degree 4 in `θ`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NystromDense<const S: usize> {
    /// `bᵢ(θ) = Σₖ position[i][k] θᵏ`.
    pub position: [[f64; 5]; S],
    /// `b'ᵢ(θ) = Σₖ velocity[i][k] θᵏ`.
    pub velocity: [[f64; 5]; S],
}

impl<const S: usize> NystromPair<S> {
    /// Whether the last stage is the end's position (`c = 1` and the position weights as
    /// its row), so that its force is the next step's first.
    fn first_same_as_last(&self) -> bool {
        self.c[S - 1] == 1.0 && self.a[S - 1] == self.b
    }
}

/// An embedded [`NystromPair`] as the [`Adaptive`](crate::Adaptive) driver steps it.
/// `Adaptive::new(Dprkn6)` steps a `Nystrom<6>`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Nystrom<const S: usize>(pub &'static NystromPair<S>);

/// The buffers of a Nyström pair's run: one rate per stage (the velocity of the first, the
/// force of each), the rate at the step's end (for a pair that is not first same as last),
/// a probe state and two rates for sums.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct NystromWorkspace<S: State, const N: usize> {
    #[cfg_attr(feature = "serde", serde(with = "crate::saved::array"))]
    rates: [DerivativeOf<S>; N],
    end_rate: DerivativeOf<S>,
    probe: S,
    sum: DerivativeOf<S>,
    scratch: DerivativeOf<S>,
}

/// `out ← Σⱼ wⱼ Fⱼ` over the stages' forces.
fn force_sum<S: State>(weights: &[f64], rates: &[DerivativeOf<S>], out: &mut S::Force) {
    out.set_zero();
    for (&weight, rate) in weights.iter().zip(rates) {
        if weight != 0.0 {
            out.add_scaled_assign(&rate.force, S::Scalar::from_f64(weight));
        }
    }
}

/// `sum ← (c v₀ + v(p₀ + h Σⱼ wⱼ Fⱼ) − v₀, Σⱼ w′ⱼ Fⱼ)` (the force zero without
/// `momentum_weights`): the rate that moves `state` over `h` to `x₀ + h (c v₀ + h Σⱼ wⱼ Fⱼ
/// / m)` and `p₀ + h Σⱼ w′ⱼ Fⱼ`. In one pass where the state knows its masses
/// ([`State::nystrom_rate_into`]); otherwise from a kick into `probe`.
#[allow(clippy::too_many_arguments)]
fn nystrom_rate<S: State>(
    state: &S,
    rates: &[DerivativeOf<S>],
    weights: &[f64],
    momentum_weights: Option<&[f64]>,
    c: f64,
    h: S::Scalar,
    sum: &mut DerivativeOf<S>,
    probe: &mut S,
) {
    if state.nystrom_rate_into(
        weights,
        momentum_weights,
        rates,
        S::Scalar::from_f64(c),
        h,
        sum,
    ) {
        return;
    }
    sum.velocity.set_zero();
    force_sum::<S>(weights, rates, &mut sum.force);
    state.probe_into(sum, h, probe);
    probe.velocity_into(&mut sum.velocity);
    sum.velocity
        .add_scaled_assign(&rates[0].velocity, S::Scalar::from_f64(c - 1.0));
    match momentum_weights {
        Some(weights) => force_sum::<S>(weights, rates, &mut sum.force),
        None => sum.force.set_zero(),
    }
}

impl<const N: usize> NystromPair<N> {
    /// The continuous extension at `theta` of the step from `start` whose stage rates are
    /// `rates` and whose end's rate is `end_rate` (the last stage's for a first same as
    /// last pair), into `out`; `sum` and `scratch` are rate buffers.
    #[allow(clippy::too_many_arguments)]
    fn dense_from<S: State>(
        &self,
        rates: &[DerivativeOf<S>; N],
        end_rate: &DerivativeOf<S>,
        [sum, scratch]: [&mut DerivativeOf<S>; 2],
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let scalar = S::Scalar::from_f64;
        let Some(dense) = &self.dense else {
            // Hermite: x(θ) − x₀ = h (U h₃ + v₀ h₁ + v₁ h₄) + h² (a₀ h₂ + a₁ h₅), with
            // `U = (x₁ − x₀)/h`, and the accelerations' part `h (v(p₀ + h (h₂ F₀ + h₅ F₁))
            // − v₀)`; p(θ) − p₀ = h (P h₀₁ + F₀ h₁₀ + F₁ h₁₁), `P = (p₁ − p₀)/h`.
            let t = theta;
            let (t2, t3) = (t * t, t * t * t);
            let (t4, t5) = (t3 * t, t3 * t2);
            let v0_weight = t - 6.0 * t3 + 8.0 * t4 - 3.0 * t5;
            let a0_weight = 0.5 * t2 - 1.5 * t3 + 1.5 * t4 - 0.5 * t5;
            let x1_weight = 10.0 * t3 - 15.0 * t4 + 6.0 * t5;
            let v1_weight = -4.0 * t3 + 7.0 * t4 - 3.0 * t5;
            let a1_weight = 0.5 * t3 - t4 + 0.5 * t5;
            nystrom_rate(
                start,
                rates,
                &self.b,
                Some(&self.b_velocity),
                1.0,
                h,
                scratch,
                out,
            );
            scratch.velocity.scale_assign(scalar(x1_weight));
            scratch
                .velocity
                .add_scaled_assign(&rates[0].velocity, scalar(v0_weight - 1.0));
            scratch
                .velocity
                .add_scaled_assign(&end_rate.velocity, scalar(v1_weight));
            sum.velocity.set_zero();
            sum.force.assign(&rates[0].force);
            sum.force.scale_assign(scalar(a0_weight));
            sum.force
                .add_scaled_assign(&end_rate.force, scalar(a1_weight));
            start.probe_into(sum, h, out);
            out.velocity_into(&mut sum.velocity);
            sum.velocity
                .add_scaled_assign(&scratch.velocity, S::Scalar::one());
            sum.force.assign(&scratch.force);
            sum.force.scale_assign(scalar(3.0 * t2 - 2.0 * t3));
            sum.force
                .add_scaled_assign(&rates[0].force, scalar(t - 2.0 * t2 + t3));
            sum.force
                .add_scaled_assign(&end_rate.force, scalar(t3 - t2));
            start.probe_into(sum, h, out);
            return;
        };
        let _ = scratch;
        let at = |polynomial: &[f64; 5]| {
            theta
                * polynomial
                    .iter()
                    .rev()
                    .fold(0.0, |value, &k| value * theta + k)
        };
        // x(θ) = x₀ + h (θ v₀ + h Σ θ² bᵢ(θ) Fᵢ / m), p(θ) = p₀ + h Σ θ b'ᵢ(θ) Fᵢ.
        let position: [f64; N] = core::array::from_fn(|i| theta * at(&dense.position[i]));
        let velocity: [f64; N] = core::array::from_fn(|i| at(&dense.velocity[i]));
        nystrom_rate(start, rates, &position, Some(&velocity), theta, h, sum, out);
        start.probe_into(sum, h, out);
    }

    /// The rate at the step's end, after [`accept`](AdaptiveMethod::accept).
    fn end_rate<'r, D>(&self, rates: &'r [D; N], end_rate: &'r D) -> &'r D {
        if self.first_same_as_last() {
            &rates[N - 1]
        } else {
            end_rate
        }
    }
}

impl<S: State, const N: usize> AdaptiveMethod<S> for Nystrom<N> {
    type Workspace = NystromWorkspace<S, N>;

    fn workspace(&self, state: &S) -> NystromWorkspace<S, N> {
        let zero = state.zero_rate();
        NystromWorkspace {
            rates: core::array::from_fn(|_| zero.clone()),
            end_rate: zero.clone(),
            probe: state.clone(),
            sum: zero.clone(),
            scratch: zero,
        }
    }

    fn error_order(&self) -> u32 {
        self.0.order.min(self.0.embedded_order)
    }

    fn controller(&self) -> Controller {
        self.0.controller
    }

    fn begin<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut NystromWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        state.derivative_into(forces, t, &mut workspace.rates[0]);
        statistics.evaluations += 1;
    }

    fn start_rate<'w>(&self, workspace: &'w NystromWorkspace<S, N>) -> &'w DerivativeOf<S> {
        &workspace.rates[0]
    }

    /// # Errors
    ///
    /// [`StepError::NotSecondOrder`] for a state without a velocity part.
    fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
        &self,
        workspace: &mut NystromWorkspace<S, N>,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let NystromWorkspace {
            rates, probe, sum, ..
        } = workspace;
        if rates[0].velocity.dim() == 0 {
            return Err(StepError::NotSecondOrder);
        }
        let pair = self.0;
        for i in 1..N {
            nystrom_rate(
                state,
                &rates[..i],
                &pair.a[i][..i],
                None,
                pair.c[i],
                h,
                sum,
                probe,
            );
            state.probe_into(sum, h, probe);
            let stage_time = t + h * S::Scalar::from_f64(pair.c[i]);
            probe.derivative_into(forces, stage_time, &mut rates[i]);
        }
        statistics.evaluations += (N - 1) as u64;
        let (b_velocity, e_velocity) = (Some(&pair.b_velocity[..]), Some(&pair.error_velocity[..]));
        nystrom_rate(state, rates, &pair.b, b_velocity, 1.0, h, sum, probe);
        state.probe_into(sum, h, end);
        // The error in both parts, over `h`: the position's `h Σ eᵢ Fᵢ / m` as a velocity,
        // the momentum's `Σ e'ᵢ Fᵢ` as a force.
        nystrom_rate(state, rates, &pair.error, e_velocity, 0.0, h, sum, probe);
        Ok(ErrorNorm::new(tolerances, state, end).norm(sum, h.to_f64()))
    }

    fn accept<F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut NystromWorkspace<S, N>,
        _start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        _dense: bool,
        statistics: &mut Statistics,
    ) {
        if self.0.first_same_as_last() {
            // The last stage's force is the end's (forces of the positions alone); the
            // end's velocity comes from its momentum, which the stage did not have.
            end.velocity_into(&mut workspace.rates[N - 1].velocity);
        } else {
            end.derivative_into(forces, t + h, &mut workspace.end_rate);
            statistics.evaluations += 1;
        }
    }

    fn dense(
        &self,
        workspace: &mut NystromWorkspace<S, N>,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let NystromWorkspace {
            rates,
            end_rate,
            sum,
            scratch,
            ..
        } = workspace;
        let end_rate = self.0.end_rate(rates, end_rate);
        self.0
            .dense_from(rates, end_rate, [sum, scratch], start, h, theta, out);
    }

    /// The stage rates and the end's rate.
    type Interpolant = ([DerivativeOf<S>; N], DerivativeOf<S>);

    fn interpolant(&self, workspace: &NystromWorkspace<S, N>) -> Self::Interpolant {
        (workspace.rates.clone(), workspace.end_rate.clone())
    }

    fn interpolate(
        &self,
        (rates, end_rate): &Self::Interpolant,
        start: &S,
        h: S::Scalar,
        theta: f64,
        out: &mut S,
    ) {
        let (mut sum, mut scratch) = (rates[0].zero_like(), rates[0].zero_like());
        let end_rate = self.0.end_rate(rates, end_rate);
        self.0.dense_from(
            rates,
            end_rate,
            [&mut sum, &mut scratch],
            start,
            h,
            theta,
            out,
        );
    }

    fn gives_increment(&self) -> bool {
        true
    }

    fn increment(
        &self,
        workspace: &mut NystromWorkspace<S, N>,
        start: &S,
        h: S::Scalar,
        out: &mut DerivativeOf<S>,
    ) {
        // The attempt's end, `start` moved by `h` times this rate.
        let NystromWorkspace { rates, probe, .. } = workspace;
        let b_velocity = Some(&self.0.b_velocity[..]);
        nystrom_rate(start, &rates[..], &self.0.b, b_velocity, 1.0, h, out, probe);
        out.scale_assign(h);
    }

    fn step_on(&self, workspace: &mut NystromWorkspace<S, N>) {
        if self.0.first_same_as_last() {
            workspace.rates.swap(0, N - 1);
        } else {
            core::mem::swap(&mut workspace.rates[0], &mut workspace.end_rate);
        }
    }
}
