//! Restarted GMRES (Saad and Schultz, "GMRES: a generalized minimal residual algorithm for
//! solving nonsymmetric linear systems", SIAM J. Sci. Stat. Comput. 7 (1986) 856–869):
//! the Arnoldi process by modified Gram–Schmidt, the least-squares problem kept triangular
//! by Givens rotations, as SUNDIALS' `SUNLinSol_SPGMR` runs it for CVODE (zero initial
//! guess, the residual measured in the error weights, left or right preconditioning).
//!
//! The operator and the preconditioner are the caller's ([`LinearOperator`]); the
//! workspace ([`GmresWorkspace`]) is sized once, `(max_dimension + 1) · n` for the Krylov
//! basis and a few vectors: a solve allocates nothing.

use super::{Buffer, Side};
use crate::StepError;
use num_traits::Float;

/// A linear operator `A` and a preconditioner `P ≈ A`, on vectors of `f64`.
pub trait LinearOperator {
    /// `out ← A v`.
    ///
    /// # Errors
    ///
    /// Whatever makes the product unavailable (forces that are not finite).
    fn apply(&mut self, v: &[f64], out: &mut [f64]) -> Result<(), StepError>;

    /// `out ← P⁻¹ r` (only called when the solve is preconditioned).
    ///
    /// # Errors
    ///
    /// Whatever makes the preconditioner unavailable.
    fn precondition(&mut self, r: &[f64], out: &mut [f64]) -> Result<(), StepError>;
}

/// How a solve ended.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GmresOutcome {
    /// Krylov iterations made.
    pub iterations: u64,
    /// Products by `A` made: the iterations and each restart's residual.
    pub products: u64,
    /// The weighted root mean square of the (left-preconditioned) residual at the start.
    pub initial: f64,
    /// The same at the end.
    pub residual: f64,
    /// Whether the residual reached the tolerance.
    pub converged: bool,
}

/// The Krylov basis, the Hessenberg matrix, the rotations and the vectors of a restarted
/// GMRES of at most `max_dimension` iterations per cycle on `n` unknowns: what
/// [`Bdf`](crate::Bdf) and [`BackwardEuler`](crate::BackwardEuler) (and the other one-stage
/// implicit methods) solve with under [`LinearSolver::Gmres`](crate::LinearSolver), open
/// for any [`LinearOperator`].
///
/// ```
/// use timestep::linalg::{GmresWorkspace, LinearOperator};
/// use timestep::StepError;
///
/// /// The nonsymmetric `[[2, 1], [0, 3]]`.
/// struct Upper;
/// impl LinearOperator for Upper {
///     fn apply(&mut self, v: &[f64], out: &mut [f64]) -> Result<(), StepError> {
///         out[0] = 2.0 * v[0] + v[1];
///         out[1] = 3.0 * v[1];
///         Ok(())
///     }
///     fn precondition(&mut self, r: &[f64], out: &mut [f64]) -> Result<(), StepError> {
///         out.copy_from_slice(r);
///         Ok(())
///     }
/// }
///
/// let mut gmres = GmresWorkspace::new(2, 2)?;
/// let mut x = [4.0, 3.0]; // b, then x: 2·1.5 + 1 = 4, 3·1 = 3.
/// let outcome = gmres.solve(&mut Upper, None, &[1.0, 1.0], &mut x, 1e-12, 0)?;
/// assert!(outcome.converged && outcome.iterations <= 2);
/// assert!((x[0] - 1.5).abs() < 1e-12 && (x[1] - 1.0).abs() < 1e-12);
/// # Ok::<(), StepError>(())
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
pub struct GmresWorkspace {
    max_dimension: usize,
    /// `V₀ … V_m`, `n` entries each, in weighted coordinates.
    basis: Buffer<f64>,
    /// `H`, column `j` at `j (m + 1)`, rotated to triangular as it is built.
    hessenberg: Buffer<f64>,
    /// The rotations' cosines and sines.
    cosines: Buffer<f64>,
    sines: Buffer<f64>,
    /// The rotated right-hand side `β e₁`, then the least-squares solution.
    projected: Buffer<f64>,
    /// The right-hand side, and two scratch vectors.
    rhs: Buffer<f64>,
    vector: Buffer<f64>,
    product: Buffer<f64>,
}

impl GmresWorkspace {
    /// A workspace for `n` unknowns and at most `max_dimension` (at least 1) iterations per
    /// cycle.
    ///
    /// # Errors
    ///
    /// [`StepError::OutOfMemory`] or [`StepError::TooManyUnknowns`] when the buffers
    /// cannot be allocated.
    pub fn new(n: usize, max_dimension: usize) -> Result<Self, StepError> {
        let m = max_dimension.max(1);
        Ok(GmresWorkspace {
            max_dimension: m,
            basis: Buffer::zeroed((m + 1).saturating_mul(n))?,
            hessenberg: Buffer::zeroed((m + 1) * m)?,
            cosines: Buffer::zeroed(m)?,
            sines: Buffer::zeroed(m)?,
            projected: Buffer::zeroed(m + 1)?,
            rhs: Buffer::zeroed(n)?,
            vector: Buffer::zeroed(n)?,
            product: Buffer::zeroed(n)?,
        })
    }

    /// Solves `A x = b` approximately: `solution` holds `b` on entry and `x` on return.
    /// Starts from `x = 0`; each cycle makes at most `max_dimension` iterations, and up to
    /// `restarts` more cycles start from the residual. Stops once the residual's weighted
    /// root mean square `√(Σᵢ (wᵢ rᵢ)²/n)` (`r = P⁻¹(b − A x)` preconditioned on the left,
    /// `b − A x` otherwise) is at most `tolerance`.
    ///
    /// # Errors
    ///
    /// The operator's and the preconditioner's; [`StepError::SingularJacobian`] when the
    /// least-squares problem is singular (`A` singular on the Krylov space) or not finite.
    pub fn solve<A: LinearOperator>(
        &mut self,
        operator: &mut A,
        side: Option<Side>,
        weights: &[f64],
        solution: &mut [f64],
        tolerance: f64,
        restarts: usize,
    ) -> Result<GmresOutcome, StepError> {
        self.solve_relative(operator, side, weights, solution, tolerance, 0.0, restarts)
    }

    /// [`solve`](Self::solve), stopping at the larger of `tolerance` and `relative` times
    /// the residual at the start (an inexact Newton iteration's forcing term, Eisenstat
    /// and Walker, SIAM J. Sci. Comput. 17 (1996) 16–32).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn solve_relative<A: LinearOperator>(
        &mut self,
        operator: &mut A,
        side: Option<Side>,
        weights: &[f64],
        solution: &mut [f64],
        mut tolerance: f64,
        relative: f64,
        restarts: usize,
    ) -> Result<GmresOutcome, StepError> {
        let n = weights.len();
        let m = self.max_dimension;
        let root_n = Float::sqrt(n.max(1) as f64);
        self.rhs.copy_from_slice(solution);
        solution.fill(0.0);
        let mut outcome = GmresOutcome {
            iterations: 0,
            products: 0,
            initial: f64::NAN,
            residual: f64::NAN,
            converged: false,
        };
        for cycle in 0..=restarts {
            // The residual `b − A x`, preconditioned on the left.
            if cycle == 0 {
                self.vector.copy_from_slice(&self.rhs);
            } else {
                operator.apply(solution, &mut self.product)?;
                outcome.products += 1;
                for ((v, b), a) in self.vector.iter_mut().zip(&*self.rhs).zip(&*self.product) {
                    *v = b - a;
                }
            }
            if side == Some(Side::Left) {
                operator.precondition(&self.vector, &mut self.product)?;
                core::mem::swap(&mut self.vector, &mut self.product);
            }
            let first = &mut self.basis[..n];
            for ((v, r), w) in first.iter_mut().zip(&*self.vector).zip(weights) {
                *v = r * w;
            }
            let beta = norm(first);
            outcome.residual = beta / root_n;
            if cycle == 0 {
                outcome.initial = outcome.residual;
                // `max` keeps `tolerance` for a `NaN` product (caught just below).
                tolerance = tolerance.max(relative * outcome.initial);
            }
            if !beta.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            if outcome.residual <= tolerance {
                outcome.converged = true;
                return Ok(outcome);
            }
            first.iter_mut().for_each(|v| *v /= beta);
            self.projected.fill(0.0);
            self.projected[0] = beta;
            let mut k = 0;
            for j in 0..m {
                self.arnoldi(operator, side, weights, j)?;
                outcome.iterations += 1;
                outcome.products += 1;
                let next = self.rotate(j);
                k = j + 1;
                outcome.residual = Float::abs(self.projected[j + 1]) / root_n;
                if outcome.residual <= tolerance || next == 0.0 {
                    break;
                }
                let (_, later) = self.basis.split_at_mut((j + 1) * n);
                later[..n].iter_mut().for_each(|v| *v /= next);
            }
            self.update(operator, side, weights, solution, k)?;
            if outcome.residual <= tolerance {
                outcome.converged = true;
                return Ok(outcome);
            }
        }
        Ok(outcome)
    }

    /// Iteration `j` of Arnoldi's process: `V_{j+1} = S P⁻¹ A S⁻¹ Vⱼ` (`S` the weights,
    /// `P⁻¹` on the side given) orthogonalised against `V₀ … Vⱼ` by modified Gram–Schmidt
    /// into column `j` of `H`, unnormalised (its norm is `H[j + 1, j]`).
    fn arnoldi<A: LinearOperator>(
        &mut self,
        operator: &mut A,
        side: Option<Side>,
        weights: &[f64],
        j: usize,
    ) -> Result<(), StepError> {
        let n = weights.len();
        let column = j * (self.max_dimension + 1);
        for ((v, b), w) in self
            .vector
            .iter_mut()
            .zip(&self.basis[j * n..])
            .zip(weights)
        {
            *v = b / w;
        }
        if side == Some(Side::Right) {
            operator.precondition(&self.vector, &mut self.product)?;
            core::mem::swap(&mut self.vector, &mut self.product);
        }
        operator.apply(&self.vector, &mut self.product)?;
        if side == Some(Side::Left) {
            operator.precondition(&self.product, &mut self.vector)?;
            core::mem::swap(&mut self.vector, &mut self.product);
        }
        let (earlier, later) = self.basis.split_at_mut((j + 1) * n);
        let next = &mut later[..n];
        for ((v, p), w) in next.iter_mut().zip(&*self.product).zip(weights) {
            *v = p * w;
        }
        for i in 0..=j {
            let basis = &earlier[i * n..(i + 1) * n];
            let h: f64 = next.iter().zip(basis).map(|(a, b)| a * b).sum();
            self.hessenberg[column + i] = h;
            next.iter_mut().zip(basis).for_each(|(v, b)| *v -= h * b);
        }
        self.hessenberg[column + j + 1] = norm(next);
        Ok(())
    }

    /// Applies the earlier rotations to column `j` of `H`, makes the rotation that zeroes
    /// its subdiagonal and applies it to the right-hand side. Returns the subdiagonal
    /// before the rotation (the norm of the new basis vector).
    fn rotate(&mut self, j: usize) -> f64 {
        let column = &mut self.hessenberg[j * (self.max_dimension + 1)..];
        for i in 0..j {
            let (a, b) = (column[i], column[i + 1]);
            column[i] = self.cosines[i] * a + self.sines[i] * b;
            column[i + 1] = -self.sines[i] * a + self.cosines[i] * b;
        }
        let (a, b) = (column[j], column[j + 1]);
        let r = Float::hypot(a, b);
        let (c, s) = if r == 0.0 { (1.0, 0.0) } else { (a / r, b / r) };
        column[j] = r;
        column[j + 1] = 0.0;
        self.cosines[j] = c;
        self.sines[j] = s;
        let g = self.projected[j];
        self.projected[j] = c * g;
        self.projected[j + 1] = -s * g;
        b
    }

    /// `x ← x + P⁻¹ S⁻¹ Σₗ yₗ Vₗ` (`P⁻¹` on the right only), `y` the solution of the
    /// triangular `H[..k, ..k] y = g[..k]`.
    fn update<A: LinearOperator>(
        &mut self,
        operator: &mut A,
        side: Option<Side>,
        weights: &[f64],
        solution: &mut [f64],
        k: usize,
    ) -> Result<(), StepError> {
        let n = weights.len();
        let stride = self.max_dimension + 1;
        for i in (0..k).rev() {
            let mut sum = self.projected[i];
            for l in i + 1..k {
                sum -= self.hessenberg[l * stride + i] * self.projected[l];
            }
            let y = sum / self.hessenberg[i * stride + i];
            if !y.is_finite() {
                return Err(StepError::SingularJacobian);
            }
            self.projected[i] = y;
        }
        self.vector.fill(0.0);
        for l in 0..k {
            let y = self.projected[l];
            let basis = &self.basis[l * n..(l + 1) * n];
            self.vector
                .iter_mut()
                .zip(basis)
                .for_each(|(v, b)| *v += y * b);
        }
        self.vector
            .iter_mut()
            .zip(weights)
            .for_each(|(v, w)| *v /= w);
        if side == Some(Side::Right) {
            operator.precondition(&self.vector, &mut self.product)?;
            core::mem::swap(&mut self.vector, &mut self.product);
        }
        solution
            .iter_mut()
            .zip(&*self.vector)
            .for_each(|(x, d)| *x += d);
        Ok(())
    }
}

/// The Euclidean norm.
fn norm(x: &[f64]) -> f64 {
    Float::sqrt(x.iter().map(|v| v * v).sum::<f64>())
}
