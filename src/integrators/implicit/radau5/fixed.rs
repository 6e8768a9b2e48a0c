//! Radau5 at a fixed step: one Radau IIA step, its stage system solved to a tight
//! tolerance, as a [`Scheme`].

use super::Radau5;
use super::workspace::Radau5Workspace;
use crate::integrators::implicit::contraction;
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, Scalar, State, StepError, Vector};
use num_traits::One;

/// Jacobians a fixed step may evaluate: at the start, and again at the end stage's
/// iterate (twice at most) when the iteration stalls.
const MAX_JACOBIANS: usize = 3;

impl Scheme for Radau5 {
    type Workspace<S: State> = Radau5Workspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Radau5Workspace<S> {
        Radau5Workspace::new(state, self.structure())
    }

    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Radau5Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        state.derivative_into(forces, t, &mut workspace.start_rate);
        if !workspace.start_rate.is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        workspace.read_coordinates(state);
        let tolerance = S::Scalar::from_f64(match self.tolerance() {
            Some(tolerance) => tolerance,
            None => *workspace
                .memory
                .default_tolerance
                .get_or_insert_with(|| contraction::default_tolerance::<S::Scalar>().to_f64()),
        });
        let n = workspace.dim();
        for i in 0..n {
            let size = S::Scalar::one() + workspace.coordinate(i);
            workspace.linear()?.scale[i] = tolerance * size;
        }
        workspace.evaluate_jacobian(state, forces, t, false)?;
        workspace.factor(dt)?;
        workspace.zero_start();
        let mut jacobians = 1;
        let mut since_jacobian = 0;
        let mut iterations = 0;
        let mut previous = f64::INFINITY;
        loop {
            let correction = workspace.newton_iteration(state, forces, t, dt);
            iterations += 1;
            since_jacobian += 1;
            if !correction.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            if correction <= 1.0 {
                break;
            }
            let theta = correction / previous;
            let stalled = since_jacobian > 1 && theta > 0.5;
            previous = correction;
            if since_jacobian >= self.max_iterations() || stalled {
                if jacobians >= MAX_JACOBIANS {
                    // No smaller than the last correction with the last Jacobian allowed:
                    // diverging, not merely slow.
                    return Err(if stalled && (theta >= 1.0 || theta.is_nan()) {
                        StepError::Diverged {
                            iterations,
                            contraction: theta,
                        }
                    } else {
                        StepError::NotConverged {
                            iterations,
                            correction: correction * tolerance.to_f64(),
                        }
                    });
                }
                // Simplified Newton with the start's Jacobian is not enough: take it
                // again where the solution is now, at the end of the step.
                workspace.evaluate_jacobian(state, forces, t + dt, true)?;
                workspace.factor(dt)?;
                jacobians += 1;
                since_jacobian = 0;
                previous = f64::INFINITY;
            }
        }
        if !workspace.z[2].is_finite() {
            return Err(StepError::NonFiniteResidual);
        }
        state.advance(&workspace.z[2], S::Scalar::one());
        Ok(())
    }

    fn properties(&self) -> Properties {
        Properties::explicit("radau5", 5, 1).implicit()
    }
}

impl Memoryless for Radau5 {}
