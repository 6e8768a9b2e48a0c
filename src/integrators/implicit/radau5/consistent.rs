//! [`Radau5::consistent_start`]: completing the algebraic unknowns of a
//! differential-algebraic system's start.

use super::Radau5;
use super::workspace::Radau5Workspace;
use crate::math;
use crate::{Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One};

/// Newton iterations [`Radau5::consistent_start`] allows.
const MAX_ITERATIONS: usize = 10;

impl Radau5 {
    /// Completes the start of `M y' = f(t, y)`: the algebraic unknowns (those `i` whose row
    /// of the mass matrix, [`Forces::mass_matrix`], is zero) are solved from the algebraic
    /// equations `0 = fᵢ(t, y)` by Newton's method, the differential unknowns held fixed,
    /// with this method's Jacobian [structure](Radau5::structure) (the forces' own
    /// Jacobian, or finite differences). Returns the Newton iterations made: 0 when there
    /// is no algebraic equation (no mass matrix, or a regular one), and the state is left
    /// alone.
    ///
    /// The iteration stops when the last correction was below the
    /// [tolerance](Radau5::tolerance) (by default `ε^(2/3)`) relative to `1 + |yᵢ|` at
    /// every unknown. A run of [`Adaptive`](crate::adaptive::Adaptive) from a start whose
    /// algebraic unknowns are off by more than the error tolerance stops at once with
    /// [`StepError::InconsistentStart`] (in
    /// [`AdaptiveError::StepFailed`](crate::AdaptiveError::StepFailed)): call this first.
    /// The completed start is the system's, not Radau5's: a [`Bdf`](crate::Bdf) run,
    /// which checks its start the same way, starts from it as well.
    ///
    /// # Errors
    ///
    /// [`StepError::NotConverged`] after 10 iterations; [`StepError::NonFiniteResidual`]
    /// when the forces are not finite; [`StepError::SingularJacobian`] when the algebraic
    /// equations do not determine the algebraic unknowns (an index above 1: the
    /// constraint of an index-2 or index-3 system does not involve its multipliers); the
    /// matrices' own errors ([`StepError::DenseTooLarge`], …). On an error the state is
    /// left as it was.
    ///
    /// # Example
    ///
    /// Robertson's kinetics with the conservation law as its third equation,
    /// `0 = y₁ + y₂ + y₃ − 1`, started with `y₃` unknown:
    ///
    /// ```
    /// use timestep::{Jacobian, Radau5, WithMass};
    ///
    /// let robertson = WithMass::new(
    ///     |y: &[f64; 3], _t: f64| {
    ///         let reaction = 0.04 * y[0] - 1e4 * y[1] * y[2];
    ///         [-reaction, reaction - 3e7 * y[1] * y[1], y[0] + y[1] + y[2] - 1.0]
    ///     },
    ///     |m: &mut Jacobian<f64>| (m[(0, 0)], m[(1, 1)]) = (1.0, 1.0),
    /// );
    /// let mut y = [0.9, 0.0, 0.0];
    /// let iterations = Radau5::new().consistent_start(&mut y, &robertson, 0.0)?;
    /// // The differential part kept, the algebraic one completed.
    /// assert_eq!((y[0], y[1]), (0.9, 0.0));
    /// assert!((y[2] - 0.1).abs() < 1e-14);
    /// // Linear in y₃: one step, and at most two more for the finite-difference Jacobian.
    /// assert!((1..=3).contains(&iterations));
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    pub fn consistent_start<S: State, F: Forces<S> + ?Sized>(
        &self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
    ) -> Result<usize, StepError> {
        let start = state.clone();
        let result = self.complete(state, forces, t);
        if result.is_err() {
            state.clone_from(&start);
        }
        result
    }

    /// [`consistent_start`](Self::consistent_start), which restores the state on an error.
    fn complete<S: State, F: Forces<S> + ?Sized>(
        &self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
    ) -> Result<usize, StepError> {
        let mut workspace = Radau5Workspace::new(state, self.structure());
        self.complete_in(&mut workspace, state, forces, t, &mut 0)
    }

    /// After an adaptive run was cut at an event inside a step: the algebraic unknowns of
    /// the state there, read from the collocation polynomial (which satisfies the
    /// algebraic equations only at the collocation nodes), completed as
    /// [`consistent_start`](Self::consistent_start) does, in the run's `workspace` (its
    /// start rate, Jacobian and matrices are made anew when the run goes on). Only where
    /// the forces' mass matrix has a zero row and no unknown is declared of index 2 or 3
    /// ([`with_higher_index`](Self::with_higher_index)): there the algebraic equations do
    /// not determine their unknowns, and the state is left as it is. When the iteration
    /// fails the state is where it took it: the next step's check of the start then
    /// reports it ([`StepError::InconsistentStart`]).
    pub(super) fn settle_algebraic<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
    ) -> u64 {
        let mut evaluations = 0;
        let index_one = self.higher_index.index2 >= workspace.dim();
        if index_one && workspace.has_algebraic_equations() {
            let _ = self.complete_in(workspace, state, forces, t, &mut evaluations);
        }
        evaluations
    }

    /// The Newton iteration of [`consistent_start`](Self::consistent_start) in `workspace`,
    /// counting its force evaluations in `evaluations`; the state is left where the
    /// iteration took it, also on an error.
    fn complete_in<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        evaluations: &mut u64,
    ) -> Result<usize, StepError> {
        let tolerance = match self.tolerance() {
            Some(tolerance) => tolerance,
            None => math::powf(S::Scalar::epsilon().to_f64(), 2.0 / 3.0),
        };
        let mut largest = f64::INFINITY;
        for iteration in 1..=MAX_ITERATIONS {
            state.derivative_into(forces, t, &mut workspace.start_rate);
            *evaluations += 1;
            if !workspace.start_rate.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            workspace.read_coordinates(state);
            *evaluations += workspace.evaluate_jacobian(state, forces, t, false)?;
            if !workspace.algebraic_correction()? {
                return Ok(0);
            }
            largest = 0.0;
            for i in 0..workspace.dim() {
                let correction = workspace.correction(i);
                workspace.scratch.set_component(i, correction);
                let relative = correction.abs() / (S::Scalar::one() + workspace.coordinate(i));
                largest = largest.max(relative.to_f64());
            }
            if !largest.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            state.advance(&workspace.scratch, S::Scalar::one());
            if largest <= tolerance {
                return Ok(iteration);
            }
        }
        Err(StepError::NotConverged {
            iterations: MAX_ITERATIONS,
            correction: largest,
        })
    }
}
