//! The Newton solve every one-stage implicit method shares: the [`Rule`] that says what the
//! step solves, the settings, the workspace, and the simplified Newton iteration on the
//! crate's [linear algebra](crate::linalg).
//!
//! Backward Euler, the trapezoidal rule, the implicit midpoint rule and Newmark-β differ
//! only in where their implicit stage sits and how much of its rate the step takes, so one
//! iteration serves them all, as Hairer's `dc_decsol` serves Radau5 and Rodas.

use crate::linalg::{Buffer, Matrix, Structure};
use crate::{DerivativeOf, Forces, Scalar, State, StepError, Vector};
use num_traits::{Float, One, Zero};

/// What a one-stage implicit step solves, as coefficients: the step's rate `D`
/// (`y₁ = y₀ + D dt`) satisfies
///
/// ```text
/// D = E + W f(t + c dt, y₀ + c D dt)
/// E = (1 − W) f(t, y₀) + k (v(y₀ kicked by F(t, y₀) dt) − v(y₀))   (velocity rows only)
/// ```
///
/// with `W` the weight of the stage's rate (`w_v` on the velocity rows, `w_F` on the force
/// rows). Backward Euler is `c = 1, W = 1`; the trapezoidal rule `c = 1, W = ½`; the
/// implicit midpoint rule `c = ½, W = 1`; Newmark-β `c = 1, w_v = β/γ, w_F = γ,
/// k = ½ − β/γ`. The Newton matrix is `∂r/∂D = I − c dt W ∂f/∂y`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Rule {
    /// `c`: where the stage sits, as a fraction of the step.
    pub(crate) stage: f64,
    /// `w_v`: the weight of the stage's velocity in the step's position rate.
    pub(crate) velocity_weight: f64,
    /// `w_F`: the weight of the stage's force in the step's momentum rate.
    pub(crate) force_weight: f64,
    /// `k`: the weight of the velocity change a kick by the start force makes (Newmark's
    /// `(½ − β) a₀ dt` term, written through the state so that it needs no mass).
    pub(crate) start_kick: f64,
}

impl Rule {
    /// Backward Euler's rule: the whole rate at the end of the step.
    pub(crate) const BACKWARD_EULER: Rule = Rule {
        stage: 1.0,
        velocity_weight: 1.0,
        force_weight: 1.0,
        start_kick: 0.0,
    };

    /// Whether the rule has an explicit part `E` (which then needs its own buffer).
    pub(crate) fn has_explicit_part(&self) -> bool {
        self.velocity_weight != 1.0 || self.force_weight != 1.0 || self.start_kick != 0.0
    }
}

/// The settings of a Newton solve, checked where they are set.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct Settings {
    pub(crate) tolerance: Option<f64>,
    pub(crate) max_iterations: usize,
    pub(crate) structure: Structure,
}

impl Settings {
    /// Newton iterations allowed per step by default.
    pub(crate) const DEFAULT_MAX_ITERATIONS: usize = 20;

    /// The default tolerance (`ε^(2/3)` of the state's scalar), iterations and a dense
    /// Jacobian.
    pub(crate) const DEFAULT: Settings = Settings {
        tolerance: None,
        max_iterations: Self::DEFAULT_MAX_ITERATIONS,
        structure: Structure::Dense,
    };

    /// Why `tolerance` is refused, if it is: it must be finite and positive.
    pub(crate) fn check_tolerance(tolerance: f64) -> Result<(), &'static str> {
        if tolerance.is_finite() && tolerance > 0.0 {
            Ok(())
        } else {
            Err("tolerance must be finite and positive")
        }
    }

    /// Why `max_iterations` is refused, if it is: at least one.
    pub(crate) fn check_max_iterations(max_iterations: usize) -> Result<(), &'static str> {
        if max_iterations > 0 {
            Ok(())
        } else {
            Err("needs at least one Newton iteration")
        }
    }
}

/// The buffers of an implicit step: the Newton unknown and its residuals (rates of the
/// state), the stage's probe state, the matrix and its LU factors, and four numbers per
/// unknown; the trapezoidal rule and Newmark-β keep one more rate, the explicit part of
/// their step.
#[derive(Clone, Debug)]
pub struct ImplicitWorkspace<S: State> {
    rate: DerivativeOf<S>,
    residual: DerivativeOf<S>,
    nudged: DerivativeOf<S>,
    nudged_residual: DerivativeOf<S>,
    stage_rate: DerivativeOf<S>,
    coordinates: DerivativeOf<S>,
    explicit: Option<DerivativeOf<S>>,
    stage: S,
    matrix: Result<Matrix<S::Scalar>, StepError>,
    correction: Result<Buffer<S::Scalar>, StepError>,
    nudges: Result<Buffer<S::Scalar>, StepError>,
    allowed: Result<Buffer<S::Scalar>, StepError>,
    rounding: Result<Buffer<S::Scalar>, StepError>,
}

impl<S: State> ImplicitWorkspace<S> {
    /// Buffers for states of the size of `state`, solving `rule` with a Jacobian of
    /// `structure`. A size the stack cannot hold without `alloc` is reported by the first
    /// step, not here.
    pub(crate) fn new(state: &S, structure: Structure, rule: &Rule) -> Self {
        let rate = state.zero_rate();
        let n = rate.dim();
        ImplicitWorkspace {
            residual: rate.clone(),
            nudged: rate.clone(),
            nudged_residual: rate.clone(),
            stage_rate: rate.clone(),
            coordinates: rate.clone(),
            explicit: rule.has_explicit_part().then(|| rate.clone()),
            rate,
            stage: state.clone(),
            matrix: Matrix::new(structure, n),
            correction: Buffer::zeroed(n),
            nudges: Buffer::zeroed(n),
            allowed: Buffer::zeroed(n),
            rounding: Buffer::zeroed(n),
        }
    }
}

/// One implicit solve: the rule, the settings and the workspace, unpacked.
pub(crate) struct Newton<'w, S: State> {
    tolerance: S::Scalar,
    max_iterations: usize,
    stage: S::Scalar,
    velocity_weight: S::Scalar,
    force_weight: S::Scalar,
    start_kick: S::Scalar,
    rate: &'w mut DerivativeOf<S>,
    residual: &'w mut DerivativeOf<S>,
    nudged: &'w mut DerivativeOf<S>,
    nudged_residual: &'w mut DerivativeOf<S>,
    stage_rate: &'w mut DerivativeOf<S>,
    coordinates: &'w mut DerivativeOf<S>,
    has_coordinates: bool,
    explicit: Option<&'w mut DerivativeOf<S>>,
    stage_state: &'w mut S,
    matrix: &'w mut Matrix<S::Scalar>,
    correction: &'w mut [S::Scalar],
    nudges: &'w mut [S::Scalar],
    allowed: &'w mut [S::Scalar],
    rounding: &'w mut [S::Scalar],
}

impl<'w, S: State> Newton<'w, S> {
    /// Unpacks `workspace` for a step of `state` by `rule`.
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when the workspace could not be made (no `alloc`).
    pub(crate) fn new(
        settings: &Settings,
        rule: &Rule,
        workspace: &'w mut ImplicitWorkspace<S>,
        state: &S,
    ) -> Result<Self, StepError> {
        let ImplicitWorkspace {
            rate,
            residual,
            nudged,
            nudged_residual,
            stage_rate,
            coordinates,
            explicit,
            stage,
            matrix,
            correction,
            nudges,
            allowed,
            rounding,
        } = workspace;
        let has_coordinates = state.coordinates_into(coordinates);
        let scalar = S::Scalar::from_f64;
        Ok(Newton {
            tolerance: match settings.tolerance {
                Some(tolerance) => scalar(tolerance),
                None => S::Scalar::epsilon().powf(scalar(2.0 / 3.0)),
            },
            max_iterations: settings.max_iterations,
            stage: scalar(rule.stage),
            velocity_weight: scalar(rule.velocity_weight),
            force_weight: scalar(rule.force_weight),
            start_kick: scalar(rule.start_kick),
            rate,
            residual,
            nudged,
            nudged_residual,
            stage_rate,
            coordinates,
            has_coordinates,
            explicit: explicit.as_mut(),
            stage_state: stage,
            matrix: matrix.as_mut().map_err(|e| *e)?,
            correction: correction.as_mut().map_err(|e| *e)?,
            nudges: nudges.as_mut().map_err(|e| *e)?,
            allowed: allowed.as_mut().map_err(|e| *e)?,
            rounding: rounding.as_mut().map_err(|e| *e)?,
        })
    }

    /// The size of coordinate `i` of the state (0 when the state does not say).
    fn coordinate(&self, i: usize) -> S::Scalar {
        if self.has_coordinates {
            self.coordinates.component(i).abs()
        } else {
            S::Scalar::zero()
        }
    }

    /// Solves the rule for the step's rate `D`, starting from the rate at the start, and on
    /// success advances `state` by `D dt`.
    ///
    /// # Errors
    ///
    /// Every [`StepError`] of an implicit solve; `state` is then unchanged.
    pub(crate) fn solve<F: Forces<S> + ?Sized>(
        mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        let stage_dt = self.stage * dt;
        let stage_time = t + stage_dt;
        let n = self.rate.dim();
        state.derivative_into(forces, t, self.rate);
        self.explicit_part(state, dt);
        let mut relative = S::Scalar::infinity();
        // The Jacobian and its factors are kept while the iteration contracts fast
        // (simplified Newton, as Hairer's implicit codes do): a linear system then costs
        // one Jacobian and one factorisation per step, whatever its iterations.
        let mut fresh_jacobian = false;
        let mut previous_ratio = S::Scalar::infinity();
        for iteration in 0..self.max_iterations {
            self.residual_into(state, forces, stage_time, stage_dt, Probe::Rate);
            if !self.residual.is_finite() {
                return Err(StepError::NonFiniteResidual);
            }
            if !fresh_jacobian {
                self.newton_matrix(state, forces, stage_time, stage_dt, dt)?;
                self.set_allowed_corrections(stage_dt, dt);
                self.matrix.factor()?;
                fresh_jacobian = true;
            }
            for (i, c) in self.correction.iter_mut().enumerate() {
                *c = -self.residual.component(i);
            }
            self.matrix.solve(self.correction);
            let mut converged = true;
            let mut ratio = S::Scalar::zero();
            relative = S::Scalar::zero();
            for i in 0..n {
                let delta = self.correction[i];
                self.rate.set_component(i, self.rate.component(i) + delta);
                let scale =
                    S::Scalar::one() + self.rate.component(i).abs() + self.coordinate(i) / dt.abs();
                relative = relative.max(delta.abs() / scale);
                ratio = ratio.max(delta.abs() / self.allowed[i]);
                // A NaN correction is not convergence.
                converged &= delta.abs() <= self.allowed[i];
            }
            if converged {
                if !self.rate.is_finite() {
                    return Err(StepError::NonFiniteResidual);
                }
                self.check_resolved(dt)?;
                state.advance(self.rate, dt);
                return Ok(());
            }
            // A correction that did not shrink at least tenfold on the last one: the kept
            // Jacobian is too far from the current one, so the next iteration makes anew.
            let contracting = ratio <= S::Scalar::from_f64(0.1) * previous_ratio;
            if iteration > 0 && (ratio.is_nan() || !contracting) {
                fresh_jacobian = false;
            }
            previous_ratio = ratio;
        }
        Err(StepError::NotConverged {
            iterations: self.max_iterations,
            correction: relative.to_f64(),
        })
    }

    /// Writes the explicit part `E` of the rule from the start rate (held in `rate`), with
    /// the stage probe and its rate as scratch.
    fn explicit_part(&mut self, state: &S, dt: S::Scalar) {
        let Some(explicit) = self.explicit.as_deref_mut() else {
            return;
        };
        let one = S::Scalar::one();
        explicit.assign(self.rate);
        explicit.velocity.scale_assign(one - self.velocity_weight);
        explicit.force.scale_assign(one - self.force_weight);
        if self.start_kick != S::Scalar::zero() {
            // v(y₀ kicked by F₀ dt) − v₀: for a particle a₀ dt, and for any state the
            // velocity change the start force makes over the step, with no mass needed.
            self.nudged.velocity.set_zero();
            self.nudged.force.assign(&self.rate.force);
            state.probe_into(self.nudged, dt, self.stage_state);
            self.stage_state
                .velocity_into(&mut self.stage_rate.velocity);
            explicit
                .velocity
                .add_scaled_assign(&self.stage_rate.velocity, self.start_kick);
            explicit
                .velocity
                .add_scaled_assign(&self.rate.velocity, -self.start_kick);
        }
    }

    /// `r(D) = D − E − W f(t + c dt, y₀ + c D dt)` for `D` the current rate (or its nudged
    /// copy), into the residual (or the nudged residual), with the stage probe and its rate
    /// left at that `D`.
    #[inline]
    fn residual_into<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
        probe: Probe,
    ) {
        let (rate, out) = match probe {
            Probe::Rate => (&*self.rate, &mut *self.residual),
            Probe::Nudged => (&*self.nudged, &mut *self.nudged_residual),
        };
        state.probe_into(rate, stage_dt, self.stage_state);
        self.stage_state
            .derivative_into(forces, stage_time, self.stage_rate);
        out.assign(rate);
        if let Some(explicit) = self.explicit.as_deref() {
            out.add_scaled_assign(explicit, -S::Scalar::one());
        }
        out.velocity
            .add_scaled_assign(&self.stage_rate.velocity, -self.velocity_weight);
        out.force
            .add_scaled_assign(&self.stage_rate.force, -self.force_weight);
    }

    /// Writes `∂r/∂D = I − c dt W ∂f/∂y` at the current stage into the matrix: from the
    /// forces' Jacobian when they give one, otherwise by forward differences of the
    /// residual, perturbing together the columns a band keeps apart.
    fn newton_matrix<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        self.matrix.clear();
        if forces.jacobian(self.stage_state, stage_time, &mut self.matrix.as_jacobian()) {
            let split = self.rate.velocity.dim();
            let (velocity_factor, force_factor) = (
                stage_dt * self.velocity_weight,
                stage_dt * self.force_weight,
            );
            self.matrix.make_newton_matrix(|i| {
                if i < split {
                    velocity_factor
                } else {
                    force_factor
                }
            });
            return Ok(());
        }
        let n = self.matrix.dim();
        let structure = self.matrix.structure();
        let groups = structure.bandwidth().min(n);
        let sqrt_epsilon = S::Scalar::epsilon().sqrt();
        for group in 0..groups {
            self.nudged.assign(self.rate);
            for j in (group..n).step_by(groups) {
                // Sized by what it moves, whatever the stage: the step's rate, and the
                // end-of-step coordinate it shifts by `h dt`.
                let d = self.rate.component(j);
                let size = d
                    .abs()
                    .max(self.coordinate(j) / dt.abs())
                    .max(S::Scalar::one());
                let h = sqrt_epsilon * size;
                let h = if d < S::Scalar::zero() { -h } else { h };
                self.nudged.set_component(j, d + h);
                // The step actually taken, after rounding.
                self.nudges[j] = self.nudged.component(j) - d;
            }
            self.residual_into(state, forces, stage_time, stage_dt, Probe::Nudged);
            let mut jacobian = self.matrix.as_jacobian();
            for j in (group..n).step_by(groups) {
                for i in structure.rows_of_column(j, n) {
                    jacobian[(i, j)] = (self.nudged_residual.component(i)
                        - self.residual.component(i))
                        / self.nudges[j];
                }
            }
        }
        Ok(())
    }

    /// How large a correction of each coordinate may still be at convergence: the
    /// tolerance relative to the rate and the state's coordinate, plus what rounding of the
    /// stage state leaves unresolved (`ε W Σⱼ |∂fᵢ/∂yⱼ| |yⱼ|`, with a margin).
    fn set_allowed_corrections(&mut self, stage_dt: S::Scalar, dt: S::Scalar) {
        let noise_factor = S::Scalar::from_f64(64.0) * S::Scalar::epsilon();
        for i in 0..self.matrix.dim() {
            let d = self.rate.component(i).abs();
            let scale = S::Scalar::one() + d + self.coordinate(i) / dt.abs();
            // The matrix's off-identity row is `c dt wᵢ ∂fᵢ/∂y`: divided by `c dt` it is
            // how much the residual's row moves with the stage's coordinates.
            let rounding =
                self.matrix.off_identity_row_norm(i, |j| self.coordinate(j)) / stage_dt.abs();
            self.rounding[i] = noise_factor * (rounding + d);
            self.allowed[i] = self.tolerance * scale + self.rounding[i];
        }
    }

    /// Refuses a solution that rounding alone could move by more than the whole state's
    /// extent: a step so long (backward Euler at `dt = 10⁴⁵` on a spring) that the
    /// stage's force cannot be resolved, where accepting it would leave garbage.
    fn check_resolved(&self, dt: S::Scalar) -> Result<(), StepError> {
        let n = self.matrix.dim();
        let mut extent = S::Scalar::zero();
        for i in 0..n {
            extent = extent.max(self.coordinate(i) + (self.rate.component(i) * dt).abs());
        }
        let worst = self
            .rounding
            .iter()
            .fold(S::Scalar::zero(), |m, r| m.max(*r))
            * dt.abs();
        if worst > extent {
            return Err(StepError::StepTooLong {
                dt: dt.to_f64(),
                uncertainty: worst.to_f64(),
                extent: extent.to_f64(),
            });
        }
        Ok(())
    }
}

/// Which rate a residual is taken at: the iterate, or its nudged copy for differences.
#[derive(Clone, Copy)]
enum Probe {
    Rate,
    Nudged,
}
