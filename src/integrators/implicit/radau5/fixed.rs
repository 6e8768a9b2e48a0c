//! Radau5 at a fixed step: one Radau IIA step, its stage system solved to a tight
//! tolerance under radau5.f's convergence control ([`Contraction`]), as a [`Scheme`].

use super::Radau5;
use super::workspace::Radau5Workspace;
use crate::integrators::implicit::contraction::{self, Contraction, Verdict};
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One};

/// Jacobians a fixed step may evaluate: at the start, and again at the end stage's
/// iterate (twice at most) when the iteration diverges or is too slow
/// ([`Contraction::observe`]).
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
        // radau5.f's convergence control, shared with adaptive Radau5 and the one-stage
        // methods: it tells divergence (`θ ≥ 0.99`) and an iteration too slow for the
        // iterations left, which take the Jacobian again. A fixed step trusts no
        // contraction of the steps before (`η = 1` at its first correction), and the
        // norms are already over the tolerance (`1`).
        let uround = S::Scalar::epsilon().to_f64();
        let mut contraction = Contraction::new();
        contraction.start_afresh(uround);
        let max_iterations = self.max_iterations();
        let (mut jacobians, mut since_jacobian, mut iterations) = (1, 0, 0);
        loop {
            let norm = workspace.newton_iteration(state, forces, t, dt);
            iterations += 1;
            since_jacobian += 1;
            if !norm.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            let verdict = contraction.observe(since_jacobian, norm, max_iterations, 1.0);
            match verdict {
                // With no error estimate behind it to catch an iteration stopped early
                // (`θ` from the first corrections underestimates a nonlinear one's), the
                // last correction must also be within the tolerance itself.
                Verdict::Converged if norm <= 1.0 => break,
                Verdict::Converged | Verdict::Continue if since_jacobian < max_iterations => {
                    continue;
                }
                _ => {}
            }
            // Diverging, or not converging within the iterations left: with no shorter
            // step to retry, take the Jacobian again where the solution is now, at the
            // end of the step, and start afresh; past the last Jacobian allowed, refuse.
            if jacobians >= MAX_JACOBIANS {
                return Err(match verdict {
                    Verdict::Diverged => StepError::Diverged {
                        iterations,
                        contraction: contraction.theta,
                    },
                    _ => StepError::NotConverged {
                        iterations,
                        correction: norm * tolerance.to_f64(),
                    },
                });
            }
            workspace.evaluate_jacobian(state, forces, t + dt, true)?;
            workspace.factor(dt)?;
            jacobians += 1;
            since_jacobian = 0;
            contraction.start_afresh(uround);
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
