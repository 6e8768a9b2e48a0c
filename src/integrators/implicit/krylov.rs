//! The Newton matrix `I − γJ` of an implicit step as a matrix-free operator for GMRES
//! ([`NewtonOperator`]): `J v` from the forces or by CVODE's directional difference
//! (`cvLsDQJtimes`), and the preconditioners of [`Preconditioner`]. The BDF's (one `γ`)
//! and the one-stage methods' (`γ = c dt W`, the weight `W` of the velocity rows apart
//! from the force rows' for Newmark-β) share it.

use crate::linalg::{LinearOperator, Matrix, Preconditioner};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};

/// `A = I − γJ` at the Newton iterate `state` (whose rate is `rate`), with its
/// preconditioner, over the buffers of an implicit workspace.
pub(crate) struct NewtonOperator<'w, S: State, F: ?Sized> {
    pub forces: &'w F,
    pub t: S::Scalar,
    /// `γ` of the rows before `split` (the velocity rows) and of the others; the user's
    /// preconditioner is told the second.
    pub gamma: [f64; 2],
    pub split: usize,
    pub state: &'w S,
    pub rate: &'w DerivativeOf<S>,
    /// The norm that sizes the difference: `1/(rtolᵢ |yᵢ| + atolᵢ)` for the BDF.
    pub weights: &'w [f64],
    /// How far the difference moves the state, in that norm: 1 for the BDF (CVODE's: the
    /// size of the tolerance).
    pub reach: f64,
    pub preconditioner: Preconditioner,
    /// `I − γJ_band` factored, for [`Preconditioner::Banded`].
    pub matrix: &'w mut Matrix<S::Scalar>,
    pub scalars: &'w mut [S::Scalar],
    /// Scratch: the vector, the product, the perturbed state.
    pub vector: &'w mut DerivativeOf<S>,
    pub product: &'w mut DerivativeOf<S>,
    pub probe: &'w mut S,
    /// Force evaluations made by the differences.
    pub evaluations: u64,
}

impl<S: State, F: Forces<S> + ?Sized> NewtonOperator<'_, S, F> {
    /// `vector ← v`.
    fn load(&mut self, v: &[f64]) {
        for (i, value) in v.iter().enumerate() {
            self.vector.set_component(i, S::Scalar::from_f64(*value));
        }
    }

    /// `product ← J vector`: the forces' own product, else `(f(y + σv) − f(y))/σ` with
    /// `σ = reach/‖v‖` in the weighted root mean square (CVODE's `cvLsDQJtimes`, whose
    /// perturbation is the size of the tolerance, `reach` 1). `norm` is `‖v‖`, not 0.
    fn jacobian_times(&mut self, norm: f64) -> Result<(), StepError> {
        if self
            .forces
            .jacobian_times(self.state, self.t, self.vector, self.product)
        {
            return Ok(());
        }
        let sigma = S::Scalar::from_f64(self.reach / norm);
        self.state.probe_into(self.vector, sigma, self.probe);
        self.probe
            .derivative_into(self.forces, self.t, self.product);
        self.evaluations += 1;
        self.product
            .add_scaled_assign(self.rate, -S::Scalar::from_f64(1.0));
        self.product
            .scale_assign(S::Scalar::from_f64(norm / self.reach));
        Ok(())
    }
}

impl<S: State, F: Forces<S> + ?Sized> LinearOperator for NewtonOperator<'_, S, F> {
    fn apply(&mut self, v: &[f64], out: &mut [f64]) -> Result<(), StepError> {
        let squares: f64 = v
            .iter()
            .zip(self.weights)
            .map(|(x, w)| (x * w) * (x * w))
            .sum();
        let norm = num_traits::Float::sqrt(squares / v.len().max(1) as f64);
        out.copy_from_slice(v);
        if norm == 0.0 {
            return Ok(());
        }
        self.load(v);
        self.jacobian_times(norm)?;
        if !self.product.is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        for (i, value) in out.iter_mut().enumerate() {
            let gamma = self.gamma[usize::from(i >= self.split)];
            *value -= gamma * self.product.component(i).to_f64();
        }
        Ok(())
    }

    fn precondition(&mut self, r: &[f64], out: &mut [f64]) -> Result<(), StepError> {
        match self.preconditioner {
            Preconditioner::None => out.copy_from_slice(r),
            Preconditioner::Banded { .. } => {
                for (x, value) in self.scalars.iter_mut().zip(r) {
                    *x = S::Scalar::from_f64(*value);
                }
                self.matrix.solve(self.scalars);
                for (value, x) in out.iter_mut().zip(self.scalars.iter()) {
                    *value = x.to_f64();
                }
            }
            Preconditioner::User => {
                self.load(r);
                let gamma = S::Scalar::from_f64(self.gamma[1]);
                if !self
                    .forces
                    .precondition(self.state, self.t, gamma, self.vector, self.product)
                {
                    return Err(StepError::NoPreconditioner);
                }
                for (i, value) in out.iter_mut().enumerate() {
                    *value = self.product.component(i).to_f64();
                }
            }
        }
        Ok(())
    }
}
