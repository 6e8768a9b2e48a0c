//! [`BdfWorkspace`] and the parts of a BDF step: the Nordsieck array (prediction,
//! rescaling, order changes, correction), the Newton iteration for the correction with
//! CVODE's convergence test, and the weighted norms.

use super::coefficients::{self, MAX_ORDER};
use super::control::{DAE_NEWTON_TOLERANCE, DIVERGENCE, MAX_ITERATIONS, Memory, RATE_DECAY};
use super::tape::Tape;
use crate::control::Statistics;
use crate::integrators::implicit::jacobian::{self, DifferenceStep, Differences, Point};
use crate::integrators::implicit::krylov::NewtonOperator;
use crate::integrators::implicit::mass::{self, Mass};
use crate::linalg::{
    Buffer, GmresWorkspace, LinearSolver, Matrix, Order, Preconditioner, Structure,
};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One};

/// The buffers of a BDF run: the Nordsieck array `zⱼ = hʲ y⁽ʲ⁾(tₙ)/j!` (`j = 1 … 5`; the
/// value `z₀` is the state itself, and slot 0 keeps the last step's increment
/// `yₙ − yₙ₋₁` for the dense output) and its prediction, the Newton correction, the
/// correction saved for an order increase, a few rates, two probe states, the Jacobian and
/// the factors of `I − γJ`, and what the step and order control remembers.
///
/// Made once per [`Adaptive`](crate::adaptive::Adaptive) and reused: nothing in a step
/// allocates. Up to 16 unknowns the matrices are on the stack; beyond, on the heap
/// (without `alloc` a run then stops with
/// [`AdaptiveError::StepFailed`](crate::AdaptiveError::StepFailed)).
///
/// ```
/// use timestep::control::AdaptiveMethod;
/// use timestep::workspace::BdfWorkspace;
/// use timestep::Bdf;
///
/// let workspace: BdfWorkspace<[f64; 3]> = Bdf::new().workspace(&[1.0, 0.0, 0.0]);
/// # drop(workspace);
/// ```
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
pub struct BdfWorkspace<S: State> {
    /// `f(t, y)` at the run's start (or after an event).
    pub(super) rate: DerivativeOf<S>,
    /// The Nordsieck array of the last accepted step, scaled for `memory.h`.
    pub(super) z: [DerivativeOf<S>; MAX_ORDER + 1],
    /// The predicted array of the step attempted (slot 0: the predicted increment).
    pub(super) predicted: [DerivativeOf<S>; MAX_ORDER + 1],
    /// The correction `yₙ − yₙ₍₀₎`, and the one saved for an order increase.
    pub(super) correction: DerivativeOf<S>,
    pub(super) saved: DerivativeOf<S>,
    /// The Newton residual and update, the iterate's increment and rate.
    pub(super) residual: DerivativeOf<S>,
    pub(super) increment: DerivativeOf<S>,
    pub(super) stage_rate: DerivativeOf<S>,
    /// The finite differences' buffers.
    pub(super) coordinates: DerivativeOf<S>,
    pub(super) nudge: DerivativeOf<S>,
    pub(super) nudged_rate: DerivativeOf<S>,
    pub(super) iterate: S,
    pub(super) probe: S,
    /// `J`, kept across steps, and `I − γJ` factored.
    pub(super) jacobian: Result<Matrix<S::Scalar>, StepError>,
    pub(super) matrix: Result<Matrix<S::Scalar>, StepError>,
    /// A right-hand side and solution, and the finite differences' steps.
    pub(super) solution: Result<Buffer<S::Scalar>, StepError>,
    pub(super) steps: Result<Buffer<S::Scalar>, StepError>,
    /// `1/(rtolᵢ |yᵢ| + atolᵢ)` at the step's start (CVODE's `ewt`).
    pub(super) weights: Result<Buffer<f64>, StepError>,
    pub(super) memory: Memory,
    /// A banded Jacobian has been checked against the forces (or needs no check: a
    /// preconditioner's band).
    band_checked: bool,
    /// How the Newton systems are solved; GMRES's basis and its right-hand side (empty
    /// for the direct solver).
    linear: LinearSolver,
    gmres: Result<GmresWorkspace, StepError>,
    krylov_solution: Result<Buffer<f64>, StepError>,
    /// The forces' mass matrix `M` and its algebraic equations, read at the first
    /// attempt (not saved: read again after loading).
    #[cfg_attr(feature = "serde", serde(skip))]
    mass: Mass<S::Scalar>,
    /// The next run starts at an event cut of this one (`AdaptiveMethod::settle`): from
    /// the method's own dense output, its start not checked again.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) settled: bool,
    /// The first unknown of index 2 ([`Bdf::with_index_two`](super::Bdf::with_index_two),
    /// at most `n`), set at each attempt's weights.
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) index_two: usize,
    /// The linear map from the last accepted array to the attempt's, and that of the
    /// last accepted step, for the adjoint (not saved: a loaded run's next step is the
    /// first its adjoint would see).
    #[cfg_attr(feature = "serde", serde(skip))]
    pub(super) tape: Tape,
}

impl<S: State> BdfWorkspace<S> {
    pub(super) fn new(
        state: &S,
        structure: Structure,
        max_order: usize,
        linear: LinearSolver,
    ) -> Self {
        let zero = state.zero_rate();
        let (n, order) = (zero.dim(), Order::of(&zero));
        // GMRES stores no Jacobian: only a banded preconditioner's band.
        let (structure, stored, krylov) = match linear {
            LinearSolver::Direct => (structure, n, (0, 1)),
            LinearSolver::Gmres(gmres) => match gmres.preconditioner() {
                Preconditioner::Banded { lower, upper } => (
                    Structure::Banded { lower, upper },
                    n,
                    (n, gmres.max_dimension()),
                ),
                _ => (
                    Structure::Banded { lower: 0, upper: 0 },
                    0,
                    (n, gmres.max_dimension()),
                ),
            },
        };
        BdfWorkspace {
            rate: zero.clone(),
            z: core::array::from_fn(|_| zero.clone()),
            predicted: core::array::from_fn(|_| zero.clone()),
            correction: zero.clone(),
            saved: zero.clone(),
            residual: zero.clone(),
            increment: zero.clone(),
            stage_rate: zero.clone(),
            coordinates: zero.clone(),
            nudge: zero.clone(),
            nudged_rate: zero,
            iterate: state.clone(),
            probe: state.clone(),
            jacobian: Matrix::new(structure, order, stored),
            matrix: Matrix::new(structure, order, stored),
            solution: Buffer::zeroed(n),
            steps: Buffer::zeroed(n),
            weights: Buffer::zeroed(n),
            memory: Memory::new(max_order),
            band_checked: !linear.is_direct(),
            linear,
            gmres: GmresWorkspace::new(krylov.0, krylov.1),
            krylov_solution: Buffer::zeroed(krylov.0),
            mass: Mass::default(),
            settled: false,
            index_two: n,
            tape: Tape::default(),
        }
    }

    /// What maps the array before the last accepted step to the one it corrected, and
    /// that step's order and formula's `l`; the next steps' maps are tracked from now on.
    #[cfg(feature = "alloc")]
    pub(crate) fn tape(&mut self) -> (&Tape, usize, &[f64; MAX_ORDER + 1]) {
        self.tape.record();
        (&self.tape, self.memory.order, &self.memory.formula.l)
    }

    /// Asks the forces for their mass matrix, once per workspace, in the layout of the
    /// Jacobian (with GMRES, which stores none, as a diagonal).
    ///
    /// # Errors
    ///
    /// [`StepError::MassWithGmres`] when GMRES is given a mass matrix other than the
    /// identity; the matrices' own errors (a sparse Jacobian without its pattern, …).
    pub(super) fn read_mass<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        state: &S,
    ) -> Result<(), StepError> {
        if self.mass.is_read() {
            return Ok(());
        }
        let n = self.rate.dim();
        let matrix = if self.linear.is_direct() {
            let jacobian = self.jacobian.as_mut().map_err(|e| *e)?;
            jacobian.prepare(forces, state)?;
            mass::read_mass(forces, jacobian)
        } else {
            let diagonal = Matrix::new(
                Structure::Banded { lower: 0, upper: 0 },
                Order::of(&self.rate),
                n,
            )?;
            mass::read_mass(forces, &diagonal)
        };
        match matrix {
            Some(matrix) if !self.linear.is_direct() => {
                self.mass.set(None)?;
                let mut product = Buffer::<S::Scalar>::zeroed(n)?;
                matrix.multiply(|_| S::Scalar::one(), &mut product);
                if product.iter().any(|&m| m != S::Scalar::one()) {
                    return Err(StepError::MassWithGmres);
                }
                Ok(())
            }
            matrix => self.mass.set(matrix),
        }
    }

    /// Refuses a differential-algebraic start whose algebraic equations `0 = fᵢ(t, y)`
    /// do not hold: one Newton step on them (at the start's Jacobian, evaluated here,
    /// and its rate `rate`) may move no algebraic unknown by more than its tolerance
    /// (`scale(i)`), as Radau5 checks its start. With unknowns of index 2, which the
    /// algebraic equations do not determine, their residuals are judged instead
    /// ([`mass::residual_inconsistency`]). Nothing to do without a singular mass matrix.
    ///
    /// # Errors
    ///
    /// [`StepError::InconsistentStart`]; [`StepError::IndexAboveOne`] when the algebraic
    /// equations do not determine the algebraic unknowns; the Jacobian's errors.
    pub(super) fn check_start<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        scale: impl Fn(usize) -> f64,
        statistics: &mut Statistics,
    ) -> Result<(), StepError> {
        if !self.mass.is_singular() {
            return Ok(());
        }
        self.iterate.clone_from(state);
        self.stage_rate.assign(&self.rate);
        statistics.jacobians += 1;
        self.evaluate_jacobian(forces, t, h, &mut statistics.evaluations)?;
        let jacobian = self.jacobian.as_ref().map_err(|e| *e)?;
        let matrix = self.matrix.as_mut().map_err(|e| *e)?;
        let correction = self.solution.as_mut().map_err(|e| *e)?;
        let rate = |i| self.rate.component(i);
        // An index-2 system's algebraic equations do not determine its index-2 unknowns:
        // no Newton step on them to take.
        if self.index_two < self.rate.dim() {
            let scale = |j| S::Scalar::from_f64(scale(j));
            return mass::residual_inconsistency(&self.mass, jacobian, rate, scale)
                .map_or(Ok(()), Err);
        }
        match mass::algebraic_correction(&self.mass, jacobian, matrix, rate, correction) {
            Ok(_) => {}
            Err(StepError::SingularJacobian) => return Err(StepError::IndexAboveOne),
            Err(cause) => return Err(cause),
        }
        let relative = |i: usize| correction[i].to_f64().abs() / scale(i);
        mass::inconsistency(correction.len(), relative).map_or(Ok(()), Err)
    }

    /// `1/scaleᵢ` at the step's start, for a step of `h`; a zero scale (a coordinate
    /// that is zero with a zero absolute tolerance) is refused: every error there would be
    /// infinite. The unknowns from `index_two` on are of index 2: their weights are `|h|`
    /// times theirs (radau5.f's `SCAL(I)/HHFAC`), for the Newton iteration only (the
    /// error test and the order selection leave them out, [`error_norm`](Self::error_norm)).
    pub(super) fn set_weights(
        &mut self,
        scale: impl Fn(usize) -> f64,
        h: f64,
        index_two: usize,
    ) -> Result<(), StepError> {
        let weights = self.weights.as_mut().map_err(|e| *e)?;
        self.index_two = index_two.min(weights.len());
        for (i, weight) in weights.iter_mut().enumerate() {
            let scale = scale(i);
            if scale <= 0.0 {
                return Err(StepError::ZeroScale { coordinate: i });
            }
            *weight = 1.0 / scale;
            if i >= self.index_two {
                *weight *= h.abs();
            }
        }
        Ok(())
    }

    /// The weighted root mean square of `x` for the error test and the order selection:
    /// [`norm`](Self::norm) with the index-2 unknowns left out of the sum (not of the
    /// count; IDA's `IDASetSuppressAlg`), the same number when there are none.
    pub(super) fn error_norm(&self, x: &DerivativeOf<S>) -> Result<f64, StepError> {
        let weights = self.weights.as_ref().map_err(|e| *e)?;
        Ok(Self::norm_of_first(weights, x, self.index_two))
    }

    /// Multiplies column `j` by `ηʲ` (CVODE's `cvRescale`): the array for a step of
    /// `η h`.
    pub(super) fn rescale(&mut self, eta: S::Scalar) {
        let mut factor = S::Scalar::one();
        for column in &mut self.z[1..=self.memory.order] {
            factor = factor * eta;
            column.scale_assign(factor);
        }
        self.tape.rescale(eta.to_f64(), self.memory.order);
    }

    /// The order rises from `q` (CVODE's `cvIncreaseBDF`).
    pub(super) fn raise_order(&mut self) {
        let q = self.memory.order;
        let (a1, c) = coefficients::increase(q, self.memory.h, &self.memory.tau);
        self.tape.raise(q, a1, &c);
        let (lower, upper) = self.z.split_at_mut(q + 1);
        let new = &mut upper[0];
        new.assign(&self.saved);
        new.scale_assign(S::Scalar::from_f64(a1));
        for (j, column) in lower.iter_mut().enumerate().skip(2) {
            column.add_scaled_assign(new, S::Scalar::from_f64(c[j]));
        }
    }

    /// The order falls from `q` (CVODE's `cvDecreaseBDF`; nothing to do from 2).
    pub(super) fn lower_order(&mut self, q: usize) {
        if q <= 2 {
            return;
        }
        let c = coefficients::decrease(q, self.memory.h, &self.memory.tau);
        self.tape.lower(q, &c);
        let (lower, upper) = self.z.split_at_mut(q);
        for (j, column) in lower.iter_mut().enumerate().take(q).skip(2) {
            column.add_scaled_assign(&upper[0], S::Scalar::from_f64(-c[j]));
        }
    }

    /// The predicted array `P z` (`P` Pascal's triangle; CVODE's `cvPredict` by repeated
    /// additions), slot 0 the predicted increment `Σⱼ zⱼ`.
    pub(super) fn predict(&mut self) {
        let q = self.memory.order;
        self.predicted[0].set_zero();
        for j in 1..=q {
            self.predicted[j].assign(&self.z[j]);
        }
        let one = S::Scalar::one();
        for k in 1..=q {
            for j in (k..=q).rev() {
                let (lower, upper) = self.predicted.split_at_mut(j);
                lower[j - 1].add_scaled_assign(&upper[0], one);
            }
        }
    }

    /// The weighted root mean square `√(Σᵢ (xᵢ wᵢ)²/n)` (CVODE's `N_VWrmsNorm` with
    /// `ewt`).
    pub(super) fn norm(weights: &[f64], x: &DerivativeOf<S>) -> f64 {
        Self::norm_of_first(weights, x, weights.len())
    }

    /// [`norm`](Self::norm) summed over the first `count` coordinates, divided by all.
    pub(super) fn norm_of_first(weights: &[f64], x: &DerivativeOf<S>, count: usize) -> f64 {
        let squares: f64 = weights[..count.min(weights.len())]
            .iter()
            .enumerate()
            .map(|(i, w)| {
                let scaled = x.component(i).to_f64() * w;
                scaled * scaled
            })
            .sum();
        Float::sqrt(squares / weights.len().max(1) as f64)
    }

    /// `γ f(t, y₍₀₎ + Δ) − z₁₍₀₎/l₁ − Δ` (CVODE's `cvNlsResidual`, negated) into
    /// `residual`, for the correction `Δ`; with a mass matrix
    /// `γ f(t, y₍₀₎ + Δ) − M (z₁₍₀₎/l₁ + Δ)`. One force evaluation, at `iterate`.
    ///
    /// The equation with `M`, from CVODE's: after the step the array's first column is
    /// `z₁ = h y'ₙ = z₁₍₀₎ + l₁ Δ` (the correction adds `lⱼ Δ` to column `j`) and
    /// `yₙ = y₍₀₎ + Δ`. For `y' = f` the BDF asks `h y'ₙ = h f(tₙ, yₙ)`, so
    /// `l₁ Δ = h f − z₁₍₀₎`: `Δ = γ f(tₙ, y₍₀₎ + Δ) − z₁₍₀₎/l₁` with `γ = h/l₁`. For
    /// `M y' = f` it asks `M h y'ₙ = h f(tₙ, yₙ)`, so `M (z₁₍₀₎ + l₁ Δ) = h f`, and
    /// divided by `l₁`, `M (Δ + z₁₍₀₎/l₁) − γ f(tₙ, y₍₀₎ + Δ) = 0`: that is
    /// `M (y − a) − γ f(t, y) = 0` for `y = yₙ`, `a = y₍₀₎ − z₁₍₀₎/l₁`, CVODE's own when
    /// `M = I`. Its Newton matrix is `M − γJ`; a zero row `i` of `M` is the algebraic
    /// equation `0 = fᵢ(tₙ, yₙ)` times `γ`. The history, the error test `tq₂ ‖Δ‖` and
    /// the order selection are the ODE's (as DASSL's BDF for index 1).
    fn residual<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        evaluations: &mut u64,
    ) -> Result<(), StepError> {
        let one = S::Scalar::one();
        self.increment.assign(&self.predicted[0]);
        self.increment.add_scaled_assign(&self.correction, one);
        state.probe_into(&self.increment, one, &mut self.iterate);
        self.iterate
            .derivative_into(forces, t, &mut self.stage_rate);
        *evaluations += 1;
        if !self.stage_rate.is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        let gamma = S::Scalar::from_f64(self.memory.gamma);
        let inverse_l1 = S::Scalar::from_f64(1.0 / self.memory.formula.l[1]);
        self.residual.assign(&self.stage_rate);
        self.residual.scale_assign(gamma);
        let Some(mass) = self.mass.matrix() else {
            self.residual
                .add_scaled_assign(&self.predicted[1], -inverse_l1);
            self.residual.add_scaled_assign(&self.correction, -one);
            return Ok(());
        };
        // With a mass matrix: − M (z₁₍₀₎/l₁ + Δ) (see `correct`).
        self.increment.assign(&self.correction);
        self.increment
            .add_scaled_assign(&self.predicted[1], inverse_l1);
        let product = self.solution.as_mut().map_err(|e| *e)?;
        mass.multiply(|i| self.increment.component(i), product);
        for (i, &value) in product.iter().enumerate() {
            self.residual
                .set_component(i, self.residual.component(i) - value);
        }
        Ok(())
    }

    /// The Jacobian at the predicted state (`iterate`, whose rate is `stage_rate`), the
    /// forces' own or by forward differences; then `I − γJ` factored.
    fn evaluate_jacobian<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        evaluations: &mut u64,
    ) -> Result<(), StepError> {
        let weights = self.weights.as_ref().map_err(|e| *e)?;
        let floor = |j: usize| S::Scalar::from_f64(1.0 / weights[j]);
        let steps = self.steps.as_mut().map_err(|e| *e)?;
        let matrix = self.jacobian.as_mut().map_err(|e| *e)?;
        *evaluations += jacobian::jacobian(
            Point {
                state: &self.iterate,
                t,
                rate: &self.stage_rate,
                offset: None,
            },
            forces,
            DifferenceStep::Scaled {
                h,
                floor: &floor,
                algebraic: self.mass.algebraic(),
            },
            matrix,
            Differences {
                coordinates: &mut self.coordinates,
                nudge: &mut self.nudge,
                nudged_rate: &mut self.nudged_rate,
                probe: &mut self.probe,
                steps,
                band_checked: &mut self.band_checked,
            },
        )?;
        Ok(())
    }

    /// Whether the linear solver keeps a matrix to evaluate and factor at a setup: the
    /// direct solver's `J`, a banded preconditioner's band.
    fn stores_matrix(&self) -> bool {
        match self.linear {
            LinearSolver::Direct => true,
            LinearSolver::Gmres(gmres) => gmres.stores_matrix(),
        }
    }

    /// `residual ← (I − γJ)⁻¹ residual`, by the direct solver or by GMRES.
    fn solve<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) -> Result<(), StepError> {
        match self.linear {
            LinearSolver::Direct => self.solve_direct(),
            LinearSolver::Gmres(_) => self.solve_krylov(forces, t, statistics),
        }
    }

    /// `residual ← (I − γJ)⁻¹ residual` approximately, by GMRES to a weighted residual
    /// of `epslin · tq₄` (CVODE's `cvLsSolve` with an iterative solver: no rescaling by
    /// the change of `γ`, which the operator has current). A solve that did not reduce the
    /// residual fails Newton's iteration; one that reduced it but fell short of the
    /// tolerance is used (CVODE's `SUNLS_RES_REDUCED`).
    fn solve_krylov<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) -> Result<(), StepError> {
        let LinearSolver::Gmres(settings) = self.linear else {
            unreachable!("called for GMRES only")
        };
        let gmres = self.gmres.as_mut().map_err(|e| *e)?;
        let solution = self.krylov_solution.as_mut().map_err(|e| *e)?;
        let weights = self.weights.as_ref().map_err(|e| *e)?;
        for (k, value) in solution.iter_mut().enumerate() {
            *value = self.residual.component(k).to_f64();
        }
        let mut operator = NewtonOperator {
            forces,
            t,
            gamma: [self.memory.gamma; 2],
            split: 0,
            state: &self.iterate,
            rate: &self.stage_rate,
            weights,
            reach: 1.0,
            preconditioner: settings.preconditioner(),
            matrix: self.matrix.as_mut().map_err(|e| *e)?,
            scalars: self.solution.as_mut().map_err(|e| *e)?,
            vector: &mut self.nudge,
            product: &mut self.nudged_rate,
            probe: &mut self.probe,
            evaluations: 0,
        };
        let tolerance = settings.tolerance_factor() * self.memory.formula.tq[4];
        let outcome = gmres.solve(
            &mut operator,
            settings.side(),
            weights,
            solution,
            tolerance,
            settings.restarts(),
        );
        statistics.evaluations += operator.evaluations;
        let outcome = outcome?;
        statistics.linear_iterations += outcome.iterations;
        statistics.jacobian_products += outcome.products;
        // `NaN` residuals count as not reduced.
        let reduced = outcome.residual < outcome.initial;
        if !outcome.converged && !reduced {
            return Err(not_converged(outcome.iterations as usize, outcome.residual));
        }
        for (k, value) in solution.iter().enumerate() {
            self.residual.set_component(k, S::Scalar::from_f64(*value));
        }
        Ok(())
    }

    /// `residual ← (I − γ_f J)⁻¹ residual`, times `2/(1 + γ/γ_f)` when `γ` moved since
    /// the factorisation (CVODE's `cvLsSolve`, for a BDF).
    fn solve_direct(&mut self) -> Result<(), StepError> {
        let matrix = self.matrix.as_mut().map_err(|e| *e)?;
        let solution = self.solution.as_mut().map_err(|e| *e)?;
        for (k, value) in solution.iter_mut().enumerate() {
            *value = self.residual.component(k);
        }
        if let Some(algebraic) = self.mass.algebraic() {
            let factor = S::Scalar::from_f64(self.memory.factored_gamma / self.memory.gamma);
            for (value, _) in solution
                .iter_mut()
                .zip(algebraic.iter())
                .filter(|(_, algebraic)| **algebraic)
            {
                *value = *value * factor;
            }
        }
        matrix.solve(solution);
        for (k, value) in solution.iter().enumerate() {
            self.residual.set_component(k, *value);
        }
        let ratio = self.memory.gamma / self.memory.factored_gamma;
        if ratio == 1.0 {
            return Ok(());
        }
        // An algebraic row of `M − γ_f J` is `−γ_f Jᵢ`, the current row `−γ Jᵢ` but for
        // the factor γ_f/γ: its right-hand side `γ fᵢ` is taken times γ_f/γ before the
        // solve, and the correction is not rescaled, so that each iterate satisfies the
        // algebraic equations' linearisation exactly (a linear constraint to rounding).
        if self.mass.is_singular() {
            // The Newton system is `γ`-free in `γ λ` for the index-2 unknowns `λ` (their
            // columns are `γ` times the forces' derivatives): the update solved at `γ_f`
            // is `γ_f/γ` times theirs at `γ`.
            let factor = S::Scalar::from_f64(1.0 / ratio);
            for i in self.index_two..self.residual.dim() {
                self.residual
                    .set_component(i, self.residual.component(i) * factor);
            }
        } else {
            self.residual
                .scale_assign(S::Scalar::from_f64(2.0 / (1.0 + ratio)));
        }
        Ok(())
    }

    /// Solves for the correction of the step to `t` of `h` from `state` by Newton's
    /// method (CVODE's `cvNls` with SUNDIALS' Newton solver and `cvNlsConvTest`): at
    /// most three iterations, stopped once `‖δ‖ min(1, ρ)` is below `tq[4]` (`ρ` the
    /// estimated convergence rate), or as diverging when a correction grows by more than
    /// 2. A failure with an old Jacobian is retried once with a new one. Returns the
    /// weighted norm of the correction, counting the cost in `statistics`.
    pub(super) fn correct<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        gamma_ratio: f64,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let mut setup = self.memory.refactor(gamma_ratio);
        let mut bad_jacobian = false;
        loop {
            let mut current = false;
            self.correction.set_zero();
            self.residual(state, forces, t, &mut statistics.evaluations)?;
            if setup && !self.stores_matrix() {
                // GMRES without a stored preconditioner: `J` is always current.
                self.memory.factored_gamma = self.memory.gamma;
                self.memory.rate = 1.0;
                self.memory.factored_at = self.memory.steps;
                current = true;
            } else if setup {
                if self.memory.new_jacobian(bad_jacobian) {
                    statistics.jacobians += 1;
                    self.evaluate_jacobian(forces, t, h, &mut statistics.evaluations)?;
                    self.memory.jacobian_at = self.memory.steps;
                    current = true;
                }
                let jacobian = self.jacobian.as_ref().map_err(|e| *e)?;
                let matrix = self.matrix.as_mut().map_err(|e| *e)?;
                let one = S::Scalar::one();
                let gamma = S::Scalar::from_f64(self.memory.gamma);
                let factored = match self.mass.matrix() {
                    Some(mass) => matrix.factor_shifted_mass(jacobian, mass, gamma, one),
                    None => matrix.factor_shifted(jacobian, gamma, one),
                };
                statistics.decompositions += 1;
                self.memory.factored_gamma = self.memory.gamma;
                self.memory.rate = 1.0;
                self.memory.factored_at = self.memory.steps;
                if let Err(cause) = factored {
                    if current {
                        return Err(cause);
                    }
                    (bad_jacobian, setup) = (true, true);
                    continue;
                }
            }
            match self.iterate_newton(state, forces, t, statistics) {
                Err(StepError::NotConverged { .. }) if !current => {
                    (bad_jacobian, setup) = (true, true);
                }
                result => return result,
            }
        }
    }

    /// The Newton iterations from the residual at a zero correction: the correction's
    /// norm once converged, [`StepError::NotConverged`] (with the iterations made and the
    /// last update's weighted norm) when the iteration fails.
    fn iterate_newton<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        let mut tolerance = self.memory.formula.tq[4];
        if self.mass.is_singular() {
            tolerance = tolerance.min(DAE_NEWTON_TOLERANCE);
        }
        let mut previous = 0.0;
        for m in 0..MAX_ITERATIONS {
            self.solve(forces, t, statistics)?;
            self.correction
                .add_scaled_assign(&self.residual, S::Scalar::one());
            let weights = self.weights.as_ref().map_err(|e| *e)?;
            let norm = Self::norm(weights, &self.residual);
            if m > 0 {
                self.memory.rate = (RATE_DECAY * self.memory.rate).max(norm / previous);
            }
            if norm * self.memory.rate.min(1.0) <= tolerance {
                let size = if m == 0 {
                    norm
                } else {
                    Self::norm(weights, &self.correction)
                };
                return Ok(size);
            }
            // NaN (a singular factorisation's solve) fails too.
            if (m >= 1 && norm > DIVERGENCE * previous) || norm.is_nan() {
                return Err(not_converged(m + 1, norm));
            }
            if m + 1 == MAX_ITERATIONS {
                return Err(not_converged(m + 1, norm));
            }
            previous = norm;
            self.residual(state, forces, t, &mut statistics.evaluations)?;
        }
        unreachable!("the last iteration returns")
    }
}

/// A Newton iteration that did not converge in `iterations`, its last update of weighted
/// norm `norm`.
fn not_converged(iterations: usize, norm: f64) -> StepError {
    StepError::NotConverged {
        iterations,
        correction: norm,
    }
}
