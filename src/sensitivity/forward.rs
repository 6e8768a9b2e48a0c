//! [`Forward`]: the rate of a state and its sensitivities, as forces every method takes.

use super::{Augmented, Model, SensitivityError};
use crate::{Forces, Scalar, Vector};
use core::cell::RefCell;
use num_traits::{Float, One, Zero};

/// What a sensitivity is taken with respect to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum WithRespectTo {
    /// Parameter `k` of the model: `s(0) = 0`, `s' = J_y s + ∂f/∂p_k`.
    Parameter(usize),
    /// The initial value of coordinate `j` of the state: `s(0) = e_j`, `s' = J_y s`.
    InitialValue(usize),
}

/// Forward sensitivities of a [`Model`]: the forces of an [`Augmented`] state, the
/// state `y` with `y' = f(t, y, p)` and each sensitivity `sᵢ = ∂y/∂θᵢ` with the variational
/// equation `sᵢ' = J_y sᵢ + ∂f/∂θᵢ` (CVODES's "simultaneous" approach: Hindmarsh et al.,
/// *SUNDIALS*, ACM TOMS 31 (2005) 363–396, §3.2). `sᵢ'` is one directional derivative of
/// `f`, along `(sᵢ, e_k)` for parameter `k` or `(sᵢ, 0)` for an initial value, so each
/// sensitivity costs one more evaluation per stage: [`Model::tangent`] when the model
/// gives it, else a one-sided difference
///
/// ```text
/// sᵢ' ≈ (f(t, y + h sᵢ, p + h e_k) − f(t, y, p)) / h,
/// h = √ε / maxⱼ(|dⱼ| / max(|xⱼ|, 1))
/// ```
///
/// over the coordinates `xⱼ` of `(y, p_k)` and `dⱼ` of the direction `(sᵢ, 1)`: no
/// coordinate moves by more than `√ε` relative (absolute below 1), which balances
/// truncation against rounding (Dennis and Schnabel, *Numerical Methods for Unconstrained
/// Optimization*, 1983, §5.4). Its error is about `√ε` (10⁻⁸ in `f64`) relative.
///
/// Since the augmented state is a plain [`Vector`], every method steps it unchanged. For
/// an explicit Runge–Kutta method with an exact tangent the sensitivities are exactly the
/// derivatives of the method's discrete map (the variational equations integrated by the
/// same tableau). Implicit methods estimate the Jacobian of the whole augmented system by
/// finite differences (block lower triangular: `J_y` on the diagonal, the derivatives of
/// the tangents below it); give [`Model::tangent`] for them, since differences of
/// differences are rough. Error control includes the sensitivities with plain
/// [`Tolerances`](crate::Tolerances), or excludes them with
/// [`ErrorControl::StateOnly`](super::ErrorControl) (as CVODES's `errconS`).
///
/// A finite-difference tangent carries rounding noise of about `√ε` relative: more than
/// a tolerance below 10⁻⁸ can control on the sensitivities (measure the state alone,
/// [`ErrorControl::StateOnly`](super::ErrorControl)), and more than the default Newton
/// tolerance of the fixed-step implicit methods (`ε^(2/3)`), whose iteration then reports
/// divergence: give those a looser one (`with_tolerance(1e-7)`), or a tangent.
///
/// Scratch buffers for the finite differences sit in a `RefCell` (made on the first
/// evaluation, then reused): `Forward` is `Send` but not `Sync`.
///
/// # Example
///
/// `y' = −k y`, `y(0) = 1`: `y = e^(−kt)`, `∂y/∂k = −t e^(−kt)`, `∂y/∂y₀ = e^(−kt)`.
///
/// ```
/// use timestep::sensitivity::{Augmented, Forward, WithRespectTo};
/// use timestep::{Adaptive, Dopri5, Tolerances};
///
/// let decay = |y: &f64, p: &[f64], _t: f64, out: &mut f64| *out = -p[0] * y;
/// let wrt = [WithRespectTo::Parameter(0), WithRespectTo::InitialValue(0)];
/// let forward = Forward::new(decay, [2.0], wrt)?;
/// let mut y: [f64; 3] = forward.initial(1.0)?;
/// Adaptive::new(Dopri5)
///     .with_tolerances(Tolerances::new(1e-10, 1e-12))
///     .solve(&mut y, &forward, 0.0, 1.0)?;
/// let e = (-2.0_f64).exp();
/// assert!((y.state() - e).abs() < 1e-9);
/// assert!((y.sensitivity(0) + e).abs() < 1e-7); // −t e^(−kt) at t = 1
/// assert!((y.sensitivity(1) - e).abs() < 1e-7);
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub struct Forward<V: Vector, M, P, W> {
    model: M,
    parameters: P,
    with_respect_to: W,
    scratch: RefCell<Scratch<V, P>>,
}

/// What the finite differences and the tangent's parameter direction are written into.
struct Scratch<V, P> {
    /// The perturbed state `y + h sᵢ` (made on first use: its size is the state's).
    probe: Option<V>,
    /// The rate at the state and at a perturbed one, for the Jacobian's differences.
    rates: Option<(V, V)>,
    /// The parameters, one of them perturbed while a difference is taken.
    perturbed: P,
    /// The parameter direction `e_k` (zero but while a tangent is taken).
    direction: P,
}

impl<V: Vector, M: core::fmt::Debug, P: core::fmt::Debug, W: core::fmt::Debug> core::fmt::Debug
    for Forward<V, M, P, W>
{
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        f.debug_struct("Forward")
            .field("model", &self.model)
            .field("parameters", &self.parameters)
            .field("with_respect_to", &self.with_respect_to)
            .finish_non_exhaustive()
    }
}

impl<V, M, P, W> Forward<V, M, P, W>
where
    V: Vector,
    M: Model<V>,
    P: AsRef<[V::Scalar]> + AsMut<[V::Scalar]> + Clone,
    W: AsRef<[WithRespectTo]>,
{
    /// Sensitivities of `model` at `parameters` with respect to each of `with_respect_to`
    /// (parameters and initial values, in the order of the sensitivity blocks).
    ///
    /// # Errors
    ///
    /// [`SensitivityError::NonFiniteParameter`] for an infinite or `NaN` parameter,
    /// [`SensitivityError::ParameterOutOfRange`] for a sensitivity with respect to a
    /// parameter not in `parameters`. (Initial values are checked by
    /// [`initial`](Forward::initial), which knows the state's size.)
    pub fn new(model: M, parameters: P, with_respect_to: W) -> Result<Self, SensitivityError> {
        let values = parameters.as_ref();
        if let Some((index, &value)) = values.iter().enumerate().find(|(_, p)| !p.is_finite()) {
            return Err(SensitivityError::NonFiniteParameter {
                index,
                value: Scalar::to_f64(value),
            });
        }
        for wrt in with_respect_to.as_ref() {
            if let WithRespectTo::Parameter(index) = *wrt {
                if index >= values.len() {
                    return Err(SensitivityError::ParameterOutOfRange {
                        index,
                        count: values.len(),
                    });
                }
            }
        }
        let mut direction = parameters.clone();
        direction.as_mut().fill(V::Scalar::zero());
        let scratch = Scratch {
            probe: None,
            rates: None,
            perturbed: parameters.clone(),
            direction,
        };
        Ok(Forward {
            model,
            parameters,
            with_respect_to,
            scratch: RefCell::new(scratch),
        })
    }

    /// The augmented state at the start: `y0`, then each sensitivity's initial value
    /// (`e_j` for the initial value of coordinate `j`, zero for a parameter).
    ///
    /// # Errors
    ///
    /// [`SensitivityError::InitialValueOutOfRange`] for a coordinate `y0` does not have;
    /// [`SensitivityError::BlockCount`] for an array of the wrong number of blocks.
    pub fn initial<B: Augmented<Block = V>>(&self, y0: V) -> Result<B, SensitivityError> {
        let dim = y0.dim();
        let mut augmented = B::stack(y0, self.with_respect_to.as_ref().len())?;
        let blocks = &mut augmented.blocks_mut()[1..];
        for (block, wrt) in blocks.iter_mut().zip(self.with_respect_to.as_ref()) {
            if let WithRespectTo::InitialValue(index) = *wrt {
                if index >= dim {
                    return Err(SensitivityError::InitialValueOutOfRange { index, dim });
                }
                block.set_component(index, V::Scalar::one());
            }
        }
        Ok(augmented)
    }

    /// The model.
    #[must_use]
    pub fn model(&self) -> &M {
        &self.model
    }

    /// The parameters.
    #[must_use]
    pub fn parameters(&self) -> &[V::Scalar] {
        self.parameters.as_ref()
    }

    /// What each sensitivity is taken with respect to.
    #[must_use]
    pub fn with_respect_to(&self) -> &[WithRespectTo] {
        self.with_respect_to.as_ref()
    }

    /// Writes `sᵢ' = J_y · dy + ∂f/∂p_k` (without the last term for an initial value)
    /// into `out`, given `rate = f(t, y, p)`: the model's tangent, or the one-sided
    /// difference of the type's docs.
    #[allow(clippy::too_many_arguments)]
    #[inline]
    fn tangent(
        &self,
        scratch: &mut Scratch<V, P>,
        y: &V,
        t: V::Scalar,
        dy: &V,
        parameter: Option<usize>,
        rate: &V,
        out: &mut V,
    ) {
        let p = self.parameters.as_ref();
        if let Some(k) = parameter {
            scratch.direction.as_mut()[k] = V::Scalar::one();
        }
        let given = self
            .model
            .tangent(y, p, t, dy, scratch.direction.as_ref(), out);
        if let Some(k) = parameter {
            scratch.direction.as_mut()[k] = V::Scalar::zero();
        }
        if given {
            return;
        }
        // The largest relative move of any coordinate per unit h.
        let one = V::Scalar::one();
        let mut ratio = V::Scalar::zero();
        for j in 0..y.dim() {
            ratio = ratio.max(dy.component(j).abs() / y.component(j).abs().max(one));
        }
        if let Some(k) = parameter {
            ratio = ratio.max(one / p[k].abs().max(one));
        }
        if ratio == V::Scalar::zero() {
            out.set_zero(); // a zero direction: a zero derivative
            return;
        }
        let h = V::Scalar::epsilon().sqrt() / ratio;
        let probe = scratch.probe.get_or_insert_with(|| y.zero_like());
        probe.assign(y);
        probe.add_scaled_assign(dy, h);
        if let Some(k) = parameter {
            scratch.perturbed.as_mut()[k] = p[k] + h;
        }
        self.model.rate(probe, scratch.perturbed.as_ref(), t, out);
        if let Some(k) = parameter {
            scratch.perturbed.as_mut()[k] = p[k];
        }
        out.add_scaled_assign(rate, -one);
        out.scale_assign(one / h);
    }
}

impl<B, V, M, P, W> Forces<B> for Forward<V, M, P, W>
where
    B: Augmented<Block = V, Scalar = V::Scalar>,
    V: Vector,
    M: Model<V>,
    P: AsRef<[V::Scalar]> + AsMut<[V::Scalar]> + Clone,
    W: AsRef<[WithRespectTo]>,
{
    fn force(&self, state: &B, t: B::Scalar) -> B {
        let mut out = state.zero_like();
        self.force_into(state, t, &mut out);
        out
    }

    #[inline]
    fn force_into(&self, state: &B, t: B::Scalar, out: &mut B) {
        let (y, sensitivities) = split(state.blocks());
        let (rate, rates) = split_mut(out.blocks_mut());
        self.model.rate(y, self.parameters.as_ref(), t, rate);
        let mut scratch = self.scratch.borrow_mut();
        let wrt = self.with_respect_to.as_ref();
        for ((s, out), wrt) in sensitivities.iter().zip(rates).zip(wrt) {
            let parameter = match *wrt {
                WithRespectTo::Parameter(k) => Some(k),
                WithRespectTo::InitialValue(_) => None,
            };
            self.tangent(&mut scratch, y, t, s, parameter, rate, out);
        }
    }
    /// With an exact [`Model::tangent`], `false`: the implicit methods' finite differences
    /// of the whole augmented rate give its block lower triangular Jacobian accurately
    /// (`J_y` on the diagonal, the tangents' derivatives below). With the tangent by
    /// finite differences those lower blocks would be differences of differences, noise
    /// that stalls Newton's iteration; so then the block-diagonal matrix `diag(J_y, …,
    /// J_y)` is written instead (CVODES's approximation for its simultaneous corrector:
    /// Hindmarsh et al. 2005, §3.2), with `J_y` by forward differences of the rate, step
    /// `√(ε · max(10⁻⁵, |yⱼ|))` (radau5.f's). Methods that iterate Newton to convergence
    /// (backward Euler, the trapezoid, implicit midpoint, Newmark, Radau5) reach the same
    /// solution with it; Rosenbrock methods and SEULEX build the Jacobian into their
    /// formulas, and their sensitivities lose order with it: give those a tangent.
    fn jacobian(
        &self,
        state: &B,
        t: B::Scalar,
        jacobian: &mut crate::Jacobian<'_, B::Scalar>,
    ) -> bool {
        let (y, sensitivities) = split(state.blocks());
        let Some(first) = sensitivities.first() else {
            return false;
        };
        let p = self.parameters.as_ref();
        let mut scratch = self.scratch.borrow_mut();
        let scratch = &mut *scratch;
        let (base, column) = scratch
            .rates
            .get_or_insert_with(|| (y.zero_like(), y.zero_like()));
        if self
            .model
            .tangent(y, p, t, first, scratch.direction.as_ref(), column)
        {
            return false;
        }
        let probe = scratch.probe.get_or_insert_with(|| y.zero_like());
        self.model.rate(y, p, t, base);
        let n = y.dim();
        let blocks = 1 + sensitivities.len();
        for c in 0..n {
            let yc = y.component(c);
            let step = (V::Scalar::epsilon() * yc.abs().max(V::Scalar::from_f64(1e-5))).sqrt();
            probe.assign(y);
            probe.set_component(c, yc + step);
            let step = probe.component(c) - yc; // the step as represented
            self.model.rate(probe, p, t, column);
            for r in 0..n {
                let entry = (column.component(r) - base.component(r)) / step;
                for b in 0..blocks {
                    let at = (b * n + r, b * n + c);
                    if jacobian.contains(at) {
                        jacobian[at] = entry;
                    }
                }
            }
        }
        true
    }

    /// `diag(J_y, …, J_y) v`, each block by [`Model::tangent`] with no parameter direction,
    /// the block-diagonal approximation of the augmented Jacobian (CVODES's simultaneous
    /// corrector, as [`jacobian`](Forces::jacobian) writes with a difference tangent): the
    /// product [GMRES](crate::LinearSolver::Gmres) takes, one tangent per block. Without a
    /// tangent, `false`: the method then differences the whole augmented rate.
    fn jacobian_times(
        &self,
        state: &B,
        t: B::Scalar,
        v: &crate::DerivativeOf<B>,
        out: &mut crate::DerivativeOf<B>,
    ) -> bool {
        let y = split(state.blocks()).0;
        let p = self.parameters.as_ref();
        let scratch = self.scratch.borrow();
        let no_parameter = scratch.direction.as_ref();
        v.force
            .blocks()
            .iter()
            .zip(out.force.blocks_mut())
            .all(|(v, out)| self.model.tangent(y, p, t, v, no_parameter, out))
    }

    /// The model's preconditioner ([`Model::precondition`]) on every block: `z ≈
    /// diag(I − γ J_y, …)⁻¹ r`. `false` when the model gives none.
    fn precondition(
        &self,
        state: &B,
        t: B::Scalar,
        gamma: B::Scalar,
        r: &crate::DerivativeOf<B>,
        z: &mut crate::DerivativeOf<B>,
    ) -> bool {
        let y = split(state.blocks()).0;
        let p = self.parameters.as_ref();
        r.force
            .blocks()
            .iter()
            .zip(z.force.blocks_mut())
            .all(|(r, z)| self.model.precondition(y, p, t, gamma, r, z))
    }

    /// The model's mass matrix ([`Model::mass_matrix`]) on the diagonal of every block:
    /// `M sᵢ' = J_y sᵢ + ∂f/∂θᵢ` for each sensitivity.
    fn mass_matrix(&self, mass: &mut crate::Jacobian<'_, B::Scalar>) -> bool {
        if !self.model.mass_matrix(mass) {
            return false;
        }
        let blocks = 1 + self.with_respect_to.as_ref().len();
        let n = mass.dim() / blocks;
        for row in 0..n {
            for column in 0..n {
                if !mass.contains((row, column)) {
                    continue;
                }
                let entry = mass[(row, column)];
                for b in 1..blocks {
                    let at = (b * n + row, b * n + column);
                    if mass.contains(at) {
                        mass[at] = entry;
                    }
                }
            }
        }
        true
    }
}

/// The state's block and the sensitivities'.
#[inline(always)]
fn split<V>(blocks: &[V]) -> (&V, &[V]) {
    blocks
        .split_first()
        .expect("an augmented state holds its state block")
}

/// [`split`], to write through.
#[inline(always)]
fn split_mut<V>(blocks: &mut [V]) -> (&mut V, &mut [V]) {
    blocks
        .split_first_mut()
        .expect("an augmented state holds its state block")
}
