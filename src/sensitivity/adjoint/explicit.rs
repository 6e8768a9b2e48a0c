//! The discrete adjoint of an explicit pair's step (Hager 2000; Sandu 2006).

use super::linearised::Linearised;
use super::method::{AdjointMethod, BackwardStep, private::Sealed};
use crate::adaptive::Step;
use crate::sensitivity::{Model, SensitivityError};
use crate::{Forces, Pair, PairSource, Scalar, Tableau, Vector};
use alloc::vec;
use alloc::vec::Vec;
use num_traits::{One, Zero};

impl<Src, const N: usize> Sealed for Pair<Src, N> {}

impl<V: Vector, Src: PairSource<N>, const N: usize> AdjointMethod<V> for Pair<Src, N> {
    type Backward = ExplicitBackward<V, N>;

    /// The state at the step's start: the stages are cheap to take again.
    const CHECKPOINT_STATES: usize = 1;

    const TAKES_STEPS_AGAIN: bool = false;

    fn checkpoint<F: Forces<V> + ?Sized>(step: &mut Step<'_, '_, V, Self, F>, out: &mut Vec<V>) {
        out.push(step.start().clone());
    }

    fn backward(&self, like: &V, _interval: usize, parameters: usize) -> ExplicitBackward<V, N> {
        ExplicitBackward::new(&self.0.pair().tableau, like, parameters)
    }
}

/// The stages of the step being taken again or back, and the adjoint's buffers.
pub struct ExplicitBackward<V: Vector, const N: usize> {
    tableau: &'static Tableau<N>,
    /// The stages with a weight.
    count: usize,
    /// The stages' states `Yᵢ` and rates `kᵢ`.
    states: Vec<V>,
    rates: Vec<V>,
    /// `μᵢ = J_y(Yᵢ)ᵀ uᵢ`, and `uᵢ`.
    mu: Vec<V>,
    u: V,
    /// `J_p(Yᵢ)ᵀ uᵢ`.
    parameter_part: Vec<V::Scalar>,
}

impl<V: Vector, const N: usize> ExplicitBackward<V, N> {
    /// The buffers of `tableau`'s steps, for states like `like` and `parameters`
    /// parameters (an explicit pair's, or a fixed-step method's).
    pub(super) fn new(tableau: &'static Tableau<N>, like: &V, parameters: usize) -> Self {
        // The stages after the last with a weight serve only the next step or dense output.
        let count = tableau
            .b
            .iter()
            .rposition(|&b| b != 0.0)
            .map_or(0, |i| i + 1);
        let zeros = |count| vec![like.zero_like(); count];
        ExplicitBackward {
            tableau,
            count,
            states: zeros(count),
            rates: zeros(count),
            mu: zeros(count),
            u: like.zero_like(),
            parameter_part: vec![V::Scalar::zero(); parameters],
        }
    }

    /// The stages of the step of `h` from `y` at `t`.
    fn stages<M: Model<V>>(
        &mut self,
        model: &mut Linearised<'_, V, M>,
        y: &V,
        t: V::Scalar,
        h: V::Scalar,
    ) {
        for i in 0..self.count {
            let (earlier, rest) = self.rates.split_at_mut(i);
            let state = &mut self.states[i];
            state.assign(y);
            for (rate, &a) in earlier.iter().zip(&self.tableau.a[i]) {
                if a != 0.0 {
                    state.add_scaled_assign(rate, h * V::Scalar::from_f64(a));
                }
            }
            let ti = t + V::Scalar::from_f64(self.tableau.c[i]) * h;
            model.rate(state, ti, &mut rest[0]);
        }
    }
}

impl<V: Vector, const N: usize> BackwardStep<V> for ExplicitBackward<V, N> {
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
        self.stages(model, y, t, h);
        next.assign(y);
        for (rate, &b) in self.rates.iter().zip(&self.tableau.b) {
            if b != 0.0 {
                next.add_scaled_assign(rate, h * V::Scalar::from_f64(b));
            }
        }
        Ok(())
    }

    /// For `y₊ = y + h Σᵢ bᵢ kᵢ`, `kᵢ = f(t + cᵢh, Yᵢ, p)`, `Yᵢ = y + h Σⱼ aᵢⱼ kⱼ`:
    ///
    /// ```text
    /// uᵢ = h bᵢ λ + h Σⱼ₌ᵢ₊₁ aⱼᵢ μⱼ,    μᵢ = J_y(Yᵢ)ᵀ uᵢ,    (i from the last stage down)
    /// ∂L/∂y = λ + Σᵢ μᵢ,    ∂L/∂p += Σᵢ J_p(Yᵢ)ᵀ uᵢ
    /// ```
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
        self.stages(model, y, t, h);
        let Tableau { a, b, c, .. } = *self.tableau;
        let count = self.count;
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
            let (state, mu) = (&self.states[i], &mut self.mu[i]);
            model.cotangent(state, ti, &self.u, mu, &mut self.parameter_part);
            for (sum, part) in gradient.iter_mut().zip(&self.parameter_part) {
                *sum = *sum + *part;
            }
        }
        for mu in &self.mu[..count] {
            lambda.add_scaled_assign(mu, V::Scalar::one());
        }
        Ok(())
    }
}
