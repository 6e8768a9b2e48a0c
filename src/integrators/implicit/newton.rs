//! The Newton solve every one-stage implicit method shares: the [`Rule`] that says what the
//! step solves, the settings, the workspace, and the simplified Newton iteration on the
//! crate's [linear algebra](crate::linalg).
//!
//! Backward Euler, the trapezoidal rule, the implicit midpoint rule and Newmark-β differ
//! only in where their implicit stage sits and how much of its rate the step takes, so one
//! iteration serves them all, as Hairer's `dc_decsol` serves Radau5 and Rodas. Its
//! convergence control is Radau5's, radau5.f's rules ([`Contraction`]): it stops when the
//! contraction rate `θ` of successive corrections bounds the error left within the
//! tolerance, gives up at `θ ≥ 0.99` or when `θ` predicts no convergence in time, and keeps
//! the matrix for the next step when `θ ≤ 0.001`. What it adds for steps with no error
//! estimate behind them is the fallback chain (the kept matrix, then one made anew, then
//! full Newton), the rounding allowance, and the refusal of a step rounding cannot resolve.
//!
//! Backward Euler also takes a constant mass matrix `M` ([`Forces::mass_matrix`]): its
//! residual is then `M D − f(t + dt, y₀ + D dt)` and its Newton matrix `M − dt ∂f/∂y`
//! (the other rules refuse one, [`StepError::MassUnsupported`]).
//!
//! Every rule may solve its Newton systems matrix-free by restarted GMRES instead
//! ([`LinearSolver::Gmres`], on the BDF's operator, `krylov.rs`): an inexact Newton
//! iteration, the Jacobian at the current iterate, with the same convergence control.

use super::contraction::{self, Contraction, Verdict};
use super::jacobian::{self, DifferenceStep, Differenced, Differences, Point};
use super::krylov::NewtonOperator;
use super::mass::{self, HigherIndex, Mass};
use super::settings::ImplicitSettings;
use crate::integrators::continues;
use crate::linalg::{Buffer, Gmres, GmresWorkspace, LinearSolver, Matrix, Order};
use crate::math;
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

/// Newton iterations allowed per step by the one-stage methods when their settings leave
/// it open.
pub(crate) const DEFAULT_MAX_ITERATIONS: usize = 20;

/// The buffers of an implicit step: the Newton unknown and its residuals (rates of the
/// state), the stage's probe state, the matrix and its LU factors, and three numbers per
/// unknown; the trapezoidal rule and Newmark-β keep one more rate, the explicit part of
/// their step. With [GMRES](LinearSolver::Gmres) the matrix is only a banded
/// preconditioner's band (or the diagonal), and the workspace keeps GMRES's Krylov basis,
/// `(max_dimension + 3) n` numbers, and one more state. Kept by a
/// [`Stepper`](crate::Stepper), it also carries the factored matrix and the iteration's
/// contraction from one step to the next.
#[derive(Clone, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(bound = "S: crate::SerdeState", deny_unknown_fields)
)]
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
    rounding: Result<Buffer<S::Scalar>, StepError>,
    memory: Memory<S::Scalar>,
    /// The forces' mass matrix; its `checked` flag, set once it has been read and the
    /// run's start checked against its algebraic equations (at once without a singular
    /// `M`), is the one flag a step tests. Not saved: read again after loading.
    #[cfg_attr(feature = "serde", serde(skip))]
    mass: Mass<S::Scalar>,
    /// Whether the Newton matrix is still all zeros, as a new workspace makes it (not one
    /// loaded), so that reading `M` into it needs no clearing first.
    #[cfg_attr(feature = "serde", serde(skip))]
    zeroed: bool,
    /// GMRES's buffers, when it solves the Newton systems (not saved: scratch, made
    /// again by the first step after loading).
    #[cfg_attr(feature = "serde", serde(skip))]
    krylov: Option<Krylov<S>>,
}

/// What GMRES needs beside the Newton buffers: its settings, its basis and vectors, the
/// Newton test's weights, and a state for the directional differences.
#[derive(Clone, Debug)]
struct Krylov<S: State> {
    settings: Gmres,
    gmres: GmresWorkspace,
    solution: Buffer<f64>,
    weights: Buffer<f64>,
    probe: S,
}

impl<S: State> Krylov<S> {
    /// The buffers of `settings` for `n` unknowns of states like `state`.
    ///
    /// # Errors
    ///
    /// [`StepError::OutOfMemory`] or [`StepError::TooManyUnknowns`] when they cannot be
    /// allocated.
    fn new(state: &S, n: usize, settings: Gmres) -> Result<Self, StepError> {
        Ok(Krylov {
            settings,
            gmres: GmresWorkspace::new(n, settings.max_dimension())?,
            solution: Buffer::zeroed(n)?,
            weights: Buffer::zeroed(n)?,
            probe: state.clone(),
        })
    }
}

/// What a workspace remembers of its last step, for the next.
#[derive(Clone, Copy, Debug)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(deny_unknown_fields)
)]
struct Memory<T> {
    /// The step the factored matrix was made for, while the next step may keep it (set
    /// when it is made, cleared when a step fails or contracts slowly).
    kept_for: Option<T>,
    /// When the last step ended, if it succeeded: the rate buffer then holds its rate.
    ended: Option<T>,
    /// `64 ε max_i Σ_j |∂rᵢ/∂D_j − δᵢⱼ| / |c dt|` of the kept matrix: bounds how much
    /// rounding of the coordinates moves a residual row, for any coordinates.
    rounding_per_coordinate: T,
    /// What the kept matrix's inverse shrinks any vector by at least, in the ∞-norm:
    /// `minᵢ (|Aᵢᵢ| − Σⱼ≠ᵢ |Aᵢⱼ|)` when every row is diagonally dominant by more than 1
    /// (Varah's bound on `‖A⁻¹‖∞`), otherwise 1.
    damping: T,
    /// Whether the matrix was made from the forces' own Jacobian (not by differences).
    analytic: bool,
    /// Whether a banded matrix has been checked against the forces
    /// ([`Matrix::check_band`]): once per workspace.
    band_checked: bool,
    /// The Newton iteration's convergence control, shared with Radau5 (radau5.f's).
    #[cfg_attr(feature = "serde", serde(default))]
    contraction: Contraction,
    /// [`default_tolerance`](super::contraction::default_tolerance), once computed. Not
    /// saved: computed again after loading, to the same bits.
    #[cfg_attr(feature = "serde", serde(skip))]
    default_tolerance: Option<T>,
    /// Krylov iterations made by GMRES in this workspace's steps.
    #[cfg_attr(feature = "serde", serde(default))]
    linear_iterations: u64,
}

impl<S: State> ImplicitWorkspace<S> {
    /// Buffers for states of the size of `state`, solving `rule` as `settings` say (the
    /// Jacobian's structure, the linear solver). A size the stack cannot hold without
    /// `alloc` is reported by the first step, not here.
    pub(crate) fn new(state: &S, settings: &ImplicitSettings, rule: &Rule) -> Self {
        let rate = state.zero_rate();
        let (n, order) = (rate.dim(), Order::of(&rate));
        let krylov = match settings.linear_solver() {
            LinearSolver::Direct => None,
            LinearSolver::Gmres(gmres) => Krylov::new(state, n, gmres).ok(),
        };
        ImplicitWorkspace {
            residual: rate.clone(),
            nudged: rate.clone(),
            nudged_residual: rate.clone(),
            stage_rate: rate.clone(),
            coordinates: rate.clone(),
            explicit: rule.has_explicit_part().then(|| rate.clone()),
            rate,
            stage: state.clone(),
            matrix: Matrix::new(settings.stored_structure(), order, n),
            correction: Buffer::zeroed(n),
            nudges: Buffer::zeroed(n),
            rounding: Buffer::zeroed(n),
            memory: Memory {
                kept_for: None,
                ended: None,
                rounding_per_coordinate: S::Scalar::zero(),
                damping: S::Scalar::one(),
                analytic: false,
                // A preconditioner's band drops what lies outside it.
                band_checked: !settings.linear_solver().is_direct(),
                contraction: Contraction::new(),
                default_tolerance: None,
                linear_iterations: 0,
            },
            mass: Mass::default(),
            zeroed: true,
            krylov,
        }
    }

    /// The Krylov iterations GMRES has made in this workspace's steps
    /// ([`BackwardEuler::with_linear_solver`](crate::BackwardEuler::with_linear_solver)),
    /// every attempt counted; 0 with the direct solver. Each costs one force evaluation
    /// (or one [`Forces::jacobian_times`]) and, with a preconditioner, one application of
    /// it: the measure of how well a preconditioner works.
    ///
    /// ```
    /// use timestep::{BackwardEuler, Gmres, Integrator, LinearSolver, Stepper};
    ///
    /// // y' = −y: a 1 × 1 system, solved in one Krylov iteration per Newton iteration.
    /// let gmres = BackwardEuler::new().with_linear_solver(LinearSolver::Gmres(Gmres::new()));
    /// let mut stepper = Stepper::new(gmres);
    /// let mut y = 1.0;
    /// stepper.step(&mut y, &|y: &f64, _t: f64| -y, 0.0, 0.1)?;
    /// let iterations = stepper.workspace().unwrap().linear_iterations();
    /// assert!((1..=3).contains(&iterations), "{iterations}");
    /// assert!((y - 1.0 / 1.1).abs() < 1e-12);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    pub fn linear_iterations(&self) -> u64 {
        self.memory.linear_iterations
    }

    /// The contraction rate `θ` of the last step's Newton iteration: the ratio of the
    /// last two corrections' scaled norms (from the third iteration on, the geometric
    /// mean of the last two ratios, as radau5.f measures it), or `0.001` (radau5.f's
    /// `THET`, below which the next step keeps the matrix) when the step converged
    /// before a second correction. The simplified Newton iteration gives up at
    /// `θ ≥ 0.99`; with a matrix that is not the step's own, `θ` measures how far it is:
    /// on `y' = λ y`, backward Euler's matrix for `λ'` contracts by
    /// `|1 − (1 − λ dt)/(1 − λ' dt)|`.
    ///
    /// ```
    /// use timestep::{BackwardEuler, Integrator, Stepper};
    ///
    /// // y' = −y: the matrix (by differences, exact to rounding) is the step's own, so
    /// // the iteration contracts at once, and the next step keeps the matrix.
    /// let decay = |y: &f64, _t: f64| -y;
    /// let mut stepper = Stepper::new(BackwardEuler::new());
    /// let mut y = 1.0;
    /// stepper.step(&mut y, &decay, 0.0, 0.1)?;
    /// let theta = stepper.workspace().unwrap().contraction();
    /// assert!(theta <= 0.001, "θ = {theta}");
    /// assert!((y - 1.0 / 1.1).abs() < 1e-12);
    /// # Ok::<(), timestep::StepError>(())
    /// ```
    pub fn contraction(&self) -> f64 {
        self.memory.contraction.theta
    }
}

/// One implicit solve: the rule, the settings and the workspace, unpacked.
pub(crate) struct Newton<'w, S: State> {
    tolerance: S::Scalar,
    max_iterations: usize,
    linear: bool,
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
    rounding: &'w mut [S::Scalar],
    memory: &'w mut Memory<S::Scalar>,
    mass: &'w mut Mass<S::Scalar>,
    zeroed: &'w mut bool,
    higher_index: HigherIndex,
    /// GMRES's buffers when it solves the Newton systems, `None` for the direct solver.
    krylov: Option<&'w mut Krylov<S>>,
}

impl<'w, S: State> Newton<'w, S> {
    /// Unpacks `workspace` for a step of `state` by `rule`.
    ///
    /// # Errors
    ///
    /// [`StepError::TooManyUnknowns`] when the workspace could not be made (no `alloc`),
    /// and [`StepError::OutOfMemory`] for GMRES's buffers.
    pub(crate) fn new(
        settings: &ImplicitSettings,
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
            rounding,
            memory,
            mass,
            zeroed,
            krylov,
        } = workspace;
        let krylov = match settings.linear_solver() {
            LinearSolver::Direct => None,
            LinearSolver::Gmres(gmres) => {
                // Made here when the workspace could not make it, or was loaded.
                if !matches!(krylov, Some(k) if k.settings == gmres) {
                    *krylov = Some(Krylov::new(state, rate.dim(), gmres)?);
                }
                krylov.as_mut()
            }
        };
        let has_coordinates = state.coordinates_into(coordinates);
        let scalar = S::Scalar::from_f64;
        Ok(Newton {
            tolerance: match settings.tolerance {
                Some(tolerance) => scalar(tolerance),
                None => *memory
                    .default_tolerance
                    .get_or_insert_with(contraction::default_tolerance),
            },
            max_iterations: settings.max_iterations_or(DEFAULT_MAX_ITERATIONS),
            linear: settings.linear_forces,
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
            rounding: rounding.as_mut().map_err(|e| *e)?,
            memory,
            mass,
            zeroed,
            higher_index: HigherIndex::NONE,
            krylov,
        })
    }

    /// The same solve for a differential-algebraic system whose unknowns from
    /// `higher_index` on are of index 2 and 3 (backward Euler's
    /// [`with_higher_index`](crate::BackwardEuler::with_higher_index)): the start is
    /// checked by the algebraic equations' residuals ([`mass::residual_inconsistency`]),
    /// and the convergence test's allowance of those unknowns is divided by `|dt|` and
    /// `dt²` ([`update`](Self::update)).
    pub(crate) fn with_higher_index(self, higher_index: HigherIndex) -> Self {
        Newton {
            higher_index,
            ..self
        }
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
    /// A step as long as the last one, whose iteration contracted by `θ ≤ 0.001`
    /// (radau5.f's rule, [`Contraction::keeps_jacobian`]), starts with the last step's
    /// factored matrix, and a step that continues the last one (with no
    /// explicit part) from its rate; should the step fail so, it is solved again from the
    /// start's rate with a matrix made anew, so that what is kept never turns into an
    /// error. Should simplified Newton still diverge or stall, the step is solved once
    /// more by full Newton ([`Attempt::Full`]), which converges wherever Newton's method
    /// does.
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
        if !self.mass.checked {
            self.prepare_mass(state, forces, t, dt)?;
        }
        // Times computed as `t₀ + i·dt` give steps that differ in their last bits; the
        // matrix is as good for them.
        let rounding = S::Scalar::from_f64(16.0) * S::Scalar::epsilon() * (t.abs() + dt.abs());
        let same_dt = |kept: S::Scalar| {
            (dt - kept).abs() <= rounding.min(dt.abs() * S::Scalar::from_f64(1e-6))
        };
        let kept = self.memory.kept_for.is_some_and(same_dt);
        // Without an explicit part the start rate is only the iteration's first guess, and
        // the last step's rate is as good a one when this step continues it: for backward
        // Euler it is the rate at this step's start, to the Newton tolerance.
        let guessed =
            self.explicit.is_none() && self.memory.ended.is_some_and(|end| continues(end, t, dt));
        let mut outcome = self.iterate(state, forces, t, dt, Attempt::Simplified { kept, guessed });
        if (kept || guessed) && outcome.is_err() {
            outcome = self.iterate(state, forces, t, dt, Attempt::FRESH);
        }
        if matches!(
            outcome,
            Err(StepError::Diverged { .. }
                | StepError::NotConverged { .. }
                | StepError::NonFiniteResidual)
        ) {
            outcome = self.iterate(state, forces, t, dt, Attempt::Full);
        }
        match outcome {
            Ok(keep) => {
                if !keep {
                    self.memory.kept_for = None;
                }
                self.memory.ended = Some(t + dt);
                state.advance(self.rate, dt);
                Ok(())
            }
            Err(error) => {
                self.memory.kept_for = None;
                self.memory.ended = None;
                Err(error)
            }
        }
    }

    /// Reads the forces' mass matrix (once per workspace) and checks the start against
    /// its algebraic equations (until a start passes).
    ///
    /// # Errors
    ///
    /// As [`read_mass`](Self::read_mass) and [`check_start`](Self::check_start).
    #[cold]
    fn prepare_mass<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if !self.mass.is_read() {
            self.read_mass(forces, state)?;
        }
        if self.mass.is_singular() {
            self.check_start(state, forces, t, dt)?;
        }
        self.mass.checked = true;
        Ok(())
    }

    /// Asks the forces for their mass matrix, once per workspace, in the layout of the
    /// Newton matrix (read into it, which is made anew before its next use; a matrix kept
    /// by a loaded workspace is put back).
    ///
    /// # Errors
    ///
    /// [`StepError::MassUnsupported`] for a rule other than backward Euler's given a mass
    /// matrix; [`StepError::MassWithGmres`] for GMRES given one other than the identity
    /// (its operator is `I − c dt W J`); [`Matrix::prepare`]'s and [`Mass::set`]'s errors
    /// (a sparse structure without the forces' pattern).
    fn read_mass<F: Forces<S> + ?Sized>(&mut self, forces: &F, state: &S) -> Result<(), StepError> {
        self.matrix.prepare(forces, state)?;
        let kept = self.memory.kept_for.is_some().then(|| self.matrix.clone());
        if !*self.zeroed {
            self.matrix.clear();
        }
        let given = forces.mass_matrix(&mut self.matrix.as_jacobian());
        let mass = given.then(|| self.matrix.clone());
        if let Some(kept) = kept {
            *self.matrix = kept;
        }
        let mass = match mass {
            Some(mass) if self.krylov.is_some() => {
                let zero = S::Scalar::zero();
                let off_identity = |i| mass.off_identity_row_norms(i, |_| zero).1;
                if (0..mass.dim()).any(|i| off_identity(i) != zero) {
                    return Err(StepError::MassWithGmres);
                }
                None
            }
            mass => mass,
        };
        // Backward Euler's rule: the whole stage's rate, at the end of the step.
        let one = S::Scalar::one();
        let backward_euler = || {
            self.explicit.is_none()
                && self.stage == one
                && self.velocity_weight == one
                && self.force_weight == one
        };
        if mass.is_some() && !backward_euler() {
            return Err(StepError::MassUnsupported);
        }
        self.mass.set(mass)
    }

    /// Refuses a differential-algebraic start whose algebraic equations `0 = fᵢ(t, y)`
    /// (the zero rows of `M`; nothing to do without one) do not hold, as the BDF and the
    /// Rosenbrock methods do: one
    /// Newton step on them, at the start's Jacobian, may move no algebraic unknown by more
    /// than `√ε (1 + |yᵢ|)` (a fixed step has no error tolerance; `√ε` is 1.5·10⁻⁸ in
    /// `f64`, far above what a converged step leaves, `tolerance · |yᵢ|`). The Jacobian
    /// is made in the Newton matrix's storage, which is made anew before its next use.
    /// With unknowns declared of index 2 or 3, whose algebraic equations do not determine
    /// them, the equations' residuals are judged instead, in the same units
    /// ([`mass::residual_inconsistency`]).
    ///
    /// # Errors
    ///
    /// [`StepError::InconsistentStart`]; [`StepError::IndexAboveOne`] when the algebraic
    /// equations do not determine the algebraic unknowns (and none is declared of index 2
    /// or 3); the Jacobian's errors.
    fn check_start<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        if !self.mass.is_singular() {
            return Ok(());
        }
        let mass = &*self.mass;
        self.memory.kept_for = None;
        state.derivative_into(forces, t, self.rate);
        jacobian::jacobian(
            Point {
                state,
                t,
                rate: self.rate,
                offset: None,
            },
            forces,
            DifferenceStep::Scaled {
                h: dt,
                floor: &|_| S::Scalar::zero(),
                algebraic: mass.algebraic(),
            },
            self.matrix,
            Differences {
                coordinates: self.coordinates,
                nudge: self.nudged,
                nudged_rate: self.nudged_residual,
                probe: self.stage_state,
                steps: self.nudges,
                band_checked: &mut self.memory.band_checked,
            },
        )?;
        let root = S::Scalar::epsilon().sqrt();
        let rate = |i| self.rate.component(i);
        if self.higher_index.within(self.correction.len()) {
            let has_coordinates = self.has_coordinates;
            let coordinates = &*self.coordinates;
            let scale = |j: usize| {
                let y = if has_coordinates {
                    coordinates.component(j).abs()
                } else {
                    S::Scalar::zero()
                };
                root * (S::Scalar::one() + y)
            };
            return mass::residual_inconsistency(mass, self.matrix, rate, scale)
                .map_or(Ok(()), Err);
        }
        match mass::algebraic_correction_in_place(mass, self.matrix, rate, self.correction) {
            Err(StepError::SingularJacobian) => return Err(StepError::IndexAboveOne),
            result => result?,
        };
        let has_coordinates = self.has_coordinates;
        let coordinates = &*self.coordinates;
        let correction = &*self.correction;
        let relative = |i: usize| {
            let y = if has_coordinates {
                coordinates.component(i).abs()
            } else {
                S::Scalar::zero()
            };
            (correction[i].abs() / (root * (S::Scalar::one() + y))).to_f64()
        };
        mass::inconsistency(correction.len(), relative).map_or(Ok(()), Err)
    }

    /// The Newton iteration of `attempt`, from the rate at the start (from the rate already
    /// in `rate` when `guessed`), with the last step's factored matrix when `kept`, under
    /// radau5.f's convergence control ([`Contraction`]) on the scaled correction of
    /// [`update`](Self::update), whose allowance is 1: it converges when `η · ratio ≤ κ`
    /// ([`KAPPA`]), with `η = θ/(1 − θ)` from the contraction rate `θ` of successive
    /// corrections (`η = 1` on the first iteration). Simplified Newton gives up when `θ ≥ 0.99`
    /// ([`StepError::Diverged`]) or when `θ` predicts no convergence within the iterations
    /// allowed ([`StepError::NotConverged`]); full Newton, whose matrix changes every
    /// iteration, goes on through those, and every attempt stops after [`STALL`]
    /// iterations without progress. On convergence the step's rate is in `rate`, and the
    /// result says whether the next step may keep the matrix (`θ ≤ THET`, radau5.f's rule).
    ///
    /// Each solve starts with `η = 1`, not with radau5.f's `η` carried from the last step:
    /// radau5.f may then accept a first correction at once, which with a matrix kept from
    /// a step whose Jacobian differs leaves an error of `θ` times the correction; Radau5's
    /// error estimate catches it, but a fixed step has none (backward Euler on
    /// `y' = λ(t) y`, `λ` going from −3 to −2 at `dt = 1`, would end its second step at
    /// `−1/16` instead of `1/12`).
    fn iterate<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
        attempt: Attempt,
    ) -> Result<bool, StepError> {
        let (kept, guessed, full) = match attempt {
            Attempt::Simplified { kept, guessed } => (kept, guessed, false),
            Attempt::Full => (false, false, true),
        };
        let stage_dt = self.stage * dt;
        let stage_time = t + stage_dt;
        if !guessed {
            state.derivative_into(forces, t, self.rate);
        }
        self.explicit_part(state, dt);
        let mut make = !kept;
        // The kept matrix's rounding allowance was for the coordinates of its own step:
        // until the matrix is made anew the test leaves it out, which is only stricter.
        let mut matrix_rounding = S::Scalar::zero();
        self.memory
            .contraction
            .start_afresh(S::Scalar::epsilon().to_f64());
        // The smallest ratio so far and the iterations since it, for the stall guard.
        let mut best = S::Scalar::infinity();
        let mut stalled = 0;
        for iteration in 1..=self.max_iterations {
            self.stage_into(state, forces, stage_time, stage_dt, Probe::Rate);
            // Finite differences need the residual itself; otherwise its negation goes
            // straight into the correction when the buffers are slices.
            let negated = if make { None } else { self.negated_residual() };
            if negated.is_none() {
                self.residual_from_stage(Probe::Rate);
            }
            if !negated.unwrap_or_else(|| self.residual.is_finite()) {
                return Err(StepError::NonFiniteResidual);
            }
            if make {
                // Kept for this step's length, not for the lengths that round to it
                // after: a `dt` that creeps does not take the matrix along.
                self.memory.kept_for = Some(dt);
                if self.stores_matrix() {
                    self.memory.analytic =
                        self.newton_matrix(state, forces, stage_time, stage_dt, dt)?;
                    self.set_rounding(stage_dt);
                    self.matrix.factor()?;
                    matrix_rounding = S::Scalar::one();
                    if self.krylov.is_some() {
                        // GMRES differences at the stage, which the matrix's took over.
                        self.stage_into(state, forces, stage_time, stage_dt, Probe::Rate);
                    }
                }
                // Full Newton makes the matrix anew at every iteration.
                make = full;
            }
            if negated.is_none() {
                match self.residual.as_scalars() {
                    Some(residual) => {
                        for (c, &r) in self.correction.iter_mut().zip(residual) {
                            *c = -r;
                        }
                    }
                    None => {
                        for (i, c) in self.correction.iter_mut().enumerate() {
                            *c = -self.residual.component(i);
                        }
                    }
                }
            }
            if self.krylov.is_some() {
                self.solve_krylov(forces, stage_time, stage_dt, dt)?;
            } else {
                self.matrix.solve(self.correction);
            }
            if self.linear && self.memory.analytic && self.krylov.is_none() {
                // The exact matrix of affine forces: this correction is the solution, to
                // rounding, and a second residual would only confirm it.
                if !self.add_correction() {
                    return Err(StepError::NonFiniteResidual);
                }
                self.check_resolved(dt, matrix_rounding)?;
                return Ok(true);
            }
            let ratio = self.update(dt, matrix_rounding);
            let contraction = &mut self.memory.contraction;
            match contraction.observe(iteration, ratio.to_f64(), self.max_iterations, KAPPA) {
                Verdict::Converged => {
                    if !self.rate.is_finite() {
                        return Err(StepError::NonFiniteResidual);
                    }
                    self.check_resolved(dt, matrix_rounding)?;
                    return Ok(self.memory.contraction.keeps_jacobian());
                }
                Verdict::Diverged if !full => {
                    return Err(StepError::Diverged {
                        iterations: iteration,
                        contraction: contraction.theta,
                    });
                }
                Verdict::TooSlow { .. } if !full => {
                    return Err(StepError::NotConverged {
                        iterations: iteration,
                        correction: self.relative_correction(dt).to_f64(),
                    });
                }
                _ => {}
            }
            if ratio < best {
                (best, stalled) = (ratio, 0);
            } else {
                stalled += 1;
            }
            if stalled >= STALL || ratio.is_nan() {
                return Err(StepError::Diverged {
                    iterations: iteration,
                    contraction: (ratio / best).to_f64(),
                });
            }
        }
        Err(StepError::NotConverged {
            iterations: self.max_iterations,
            correction: self.relative_correction(dt).to_f64(),
        })
    }

    /// Whether the linear solver solves with a matrix made and factored here: the direct
    /// solver's Newton matrix, a banded preconditioner's band.
    fn stores_matrix(&self) -> bool {
        self.krylov
            .as_ref()
            .is_none_or(|krylov| krylov.settings.stores_matrix())
    }

    /// `correction ← A⁻¹ correction` approximately, by GMRES with `A = ∂r/∂D =
    /// I − c dt W ∂f/∂y` applied matrix-free at the stage (whose state and rate the stage
    /// buffers hold), as the BDF solves (CVODE's `cvLsSolve` with SPGMR): the residual is
    /// weighted by the Newton test's scale, `1/(1 + |Dᵢ| + |yᵢ|/|dt|)`, and brought to
    /// `epslin` (the [tolerance factor](Gmres::tolerance_factor)) times what the
    /// iteration leaves, `κ` times its tolerance. The directional differences move the
    /// stage state by `√ε` of its size in that scale (`√ε |dt|` in the rate's weights),
    /// as a column of the direct solver's differences moves it. A solve that falls short
    /// but reduced the residual is used (CVODE's `SUNLS_RES_REDUCED`); one that did not
    /// fails the iteration.
    fn solve_krylov<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        let Newton {
            krylov: Some(krylov),
            rate,
            coordinates,
            has_coordinates,
            correction,
            stage_state,
            stage_rate,
            nudged,
            nudged_residual,
            matrix,
            nudges,
            memory,
            tolerance,
            velocity_weight,
            force_weight,
            ..
        } = self
        else {
            unreachable!("called for GMRES only")
        };
        let per_dt = 1.0 / dt.abs().to_f64();
        let rows = krylov.weights.iter_mut().zip(krylov.solution.iter_mut());
        for (i, ((w, x), &c)) in rows.zip(correction.iter()).enumerate() {
            let y = if *has_coordinates {
                coordinates.component(i).abs().to_f64()
            } else {
                0.0
            };
            *w = 1.0 / (1.0 + rate.component(i).abs().to_f64() + y * per_dt);
            *x = c.to_f64();
        }
        let settings = krylov.settings;
        let mut operator = NewtonOperator {
            forces,
            t: stage_time,
            gamma: [
                (stage_dt * *velocity_weight).to_f64(),
                (stage_dt * *force_weight).to_f64(),
            ],
            split: rate.velocity.dim(),
            state: &**stage_state,
            rate: &**stage_rate,
            weights: &krylov.weights,
            reach: (S::Scalar::epsilon().sqrt() * dt.abs()).to_f64(),
            preconditioner: settings.preconditioner(),
            matrix,
            scalars: nudges,
            vector: nudged,
            product: nudged_residual,
            probe: &mut krylov.probe,
            evaluations: 0,
        };
        let factor = settings.tolerance_factor();
        let outcome = krylov.gmres.solve_relative(
            &mut operator,
            settings.side(),
            &krylov.weights,
            &mut krylov.solution,
            factor * KAPPA * tolerance.to_f64(),
            factor,
            settings.restarts(),
        )?;
        memory.linear_iterations += outcome.iterations;
        // `NaN` residuals count as not reduced.
        let reduced = outcome.residual < outcome.initial;
        if !outcome.converged && !reduced {
            return Err(StepError::NotConverged {
                iterations: outcome.iterations as usize,
                correction: outcome.residual,
            });
        }
        for (c, &x) in correction.iter_mut().zip(&*krylov.solution) {
            *c = S::Scalar::from_f64(x);
        }
        Ok(())
    }

    /// Adds the correction to the rate and returns the largest ratio of a coordinate's
    /// correction to what it may still be at convergence: the tolerance relative to the
    /// rate and the state's coordinate, `tolerance · (1 + |Dᵢ| + |yᵢ|/|dt|)`, plus what
    /// rounding of the stage state leaves unresolved (`64 ε (|Dᵢ| + W Σⱼ |∂fᵢ/∂yⱼ| |yⱼ|)`,
    /// the second term scaled by `matrix_rounding`). A NaN correction is left out of the
    /// ratio (the rate is checked for it at convergence). The allowance of an unknown of
    /// index 2 (3) is divided by `|dt|` (`dt²`), radau5.f's `SCAL(I)/HHFAC`: a residual's
    /// rounding, or the error a converged iterate leaves, moves it by `1/dt` (`1/dt²`)
    /// times what it moves the others by, and the iteration could not otherwise resolve
    /// it at small steps.
    fn update(&mut self, dt: S::Scalar, matrix_rounding: S::Scalar) -> S::Scalar {
        let one = S::Scalar::one();
        let noise = S::Scalar::from_f64(64.0) * S::Scalar::epsilon();
        let per_dt = one / dt.abs();
        let tolerance = self.tolerance;
        let mut largest = S::Scalar::zero();
        // Divides only where the ratio beats the largest so far, and keeps `largest` off a
        // chain of dependent `max`es: a division per coordinate and that chain took as
        // long as the rest of the loop. (A NaN correction never beats it, as `max` would
        // leave it out too.)
        let mut ratio = |d: S::Scalar, delta: S::Scalar, y: S::Scalar, rounding: S::Scalar| {
            let rounding = noise * d.abs() + matrix_rounding * rounding;
            let allowed = tolerance * (one + d.abs() + y * per_dt) + rounding;
            if delta.abs() > largest * allowed {
                largest = largest.max(delta.abs() / allowed);
            }
        };
        let higher = self.higher_index;
        if higher.within(self.correction.len()) {
            for (i, &delta) in self.correction.iter().enumerate() {
                let d = self.rate.component(i);
                self.rate.set_component(i, d + delta);
                let y = self.coordinate(i);
                // Taken out of `delta` rather than put into the allowance: the same test.
                let widened = delta.abs() * math::powi(dt.abs(), higher.power(i));
                ratio(d, widened, y, self.rounding[i]);
            }
            return largest;
        }
        // Over memory when the rate and the coordinates are plain slices (a `Vec<f64>`):
        // a third of the instructions of the loop through `component`.
        if let (Some(rate), Some(coordinates), true) = (
            self.rate.as_scalars_mut(),
            self.coordinates.as_scalars(),
            self.has_coordinates,
        ) {
            let rows = rate.iter_mut().zip(coordinates).zip(&*self.rounding);
            for (((d, y), &rounding), &delta) in rows.zip(&*self.correction) {
                ratio(*d, delta, y.abs(), rounding);
                *d = *d + delta;
            }
        } else {
            for (i, &delta) in self.correction.iter().enumerate() {
                let d = self.rate.component(i);
                self.rate.set_component(i, d + delta);
                let y = self.coordinate(i);
                ratio(d, delta, y, self.rounding[i]);
            }
        }
        largest
    }

    /// Adds the correction to the rate, and says whether the rate is finite.
    fn add_correction(&mut self) -> bool {
        if let Some(rate) = self.rate.as_scalars_mut() {
            let mut finite = true;
            for (d, &delta) in rate.iter_mut().zip(&*self.correction) {
                *d = *d + delta;
                finite &= d.is_finite();
            }
            finite
        } else {
            for (i, &delta) in self.correction.iter().enumerate() {
                let d = self.rate.component(i);
                self.rate.set_component(i, d + delta);
            }
            self.rate.is_finite()
        }
    }

    /// The largest correction relative to its coordinate's scale, for the error of a step
    /// that did not converge.
    fn relative_correction(&self, dt: S::Scalar) -> S::Scalar {
        let one = S::Scalar::one();
        let mut relative = S::Scalar::zero();
        for (i, delta) in self.correction.iter().enumerate() {
            let scale = one + self.rate.component(i).abs() + self.coordinate(i) / dt.abs();
            relative = relative.max(delta.abs() / scale);
        }
        relative
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

    /// The stage probe at the rate `D` and its rate.
    #[inline]
    fn stage_into<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
        probe: Probe,
    ) {
        let Probe::Rate = probe;
        let stage_state = &mut *self.stage_state;
        stage(
            state,
            forces,
            stage_time,
            stage_dt,
            self.rate,
            stage_state,
            self.stage_rate,
        );
    }

    /// The residual at the rate `D` from the stage's rate.
    #[inline]
    fn residual_from_stage(&mut self, probe: Probe) {
        let Probe::Rate = probe;
        let weights: Weights<'_, S> = Weights {
            mass: self.mass.matrix(),
            explicit: self.explicit.as_deref(),
            velocity_weight: self.velocity_weight,
            force_weight: self.force_weight,
        };
        weights.residual(self.rate, self.stage_rate, self.residual);
    }

    /// `−r(D)` from the stage's rate straight into the correction, in one pass over
    /// slices with the arithmetic of [`residual_from_stage`](Self::residual_from_stage)
    /// (the residual buffer is left as it was), and whether it is finite; `None` when the
    /// buffers are not slices.
    fn negated_residual(&mut self) -> Option<bool> {
        if self.mass.matrix().is_some() {
            return None;
        }
        let rate = self.rate.as_scalars()?;
        // A slice only without velocity, so the stage's rate is all force.
        let stage = self.stage_rate.as_scalars()?;
        let weight = -self.force_weight;
        let mut finite = true;
        let mut negate = |c: &mut S::Scalar, r: S::Scalar| {
            finite &= r.is_finite();
            *c = -r;
        };
        let rows = self.correction.iter_mut().zip(rate).zip(stage);
        match self.explicit.as_deref() {
            Some(explicit) => {
                for (((c, &d), &s), &e) in rows.zip(explicit.as_scalars()?) {
                    negate(c, (d + e * -S::Scalar::one()) + s * weight);
                }
            }
            None => {
                for ((c, &d), &s) in rows {
                    negate(c, d + s * weight);
                }
            }
        }
        Some(finite)
    }

    /// Writes `∂r/∂D = I − c dt W ∂f/∂y` at the current stage into the matrix: from the
    /// forces' Jacobian when they give one, otherwise by forward differences of the
    /// residual `r(D)` ([`Residuals`]) through the crate's one column loop
    /// ([`jacobian::difference_columns`]: the columns a band keeps apart perturbed together,
    /// the first banded matrix checked) with the steps of [`DifferenceStep::Rate`]. Says
    /// whether the matrix came from the forces' Jacobian.
    fn newton_matrix<F: Forces<S> + ?Sized>(
        &mut self,
        state: &S,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
        dt: S::Scalar,
    ) -> Result<bool, StepError> {
        self.matrix.prepare(forces, state)?;
        let analytic = self.analytic_matrix(forces, stage_time, stage_dt);
        let Newton {
            rate,
            residual,
            nudged,
            nudged_residual,
            stage_rate,
            coordinates,
            has_coordinates,
            explicit,
            stage_state,
            matrix,
            nudges,
            memory,
            mass,
            velocity_weight,
            force_weight,
            ..
        } = self;
        let mut residuals = Residuals {
            state,
            forces,
            stage_time,
            stage_dt,
            rule: DifferenceStep::Rate { dt },
            coordinates: has_coordinates.then_some(&**coordinates),
            rate,
            residual,
            nudged,
            nudged_residual,
            stage_state,
            stage_rate,
            weights: Weights {
                mass: mass.matrix(),
                explicit: explicit.as_deref(),
                velocity_weight: *velocity_weight,
                force_weight: *force_weight,
            },
        };
        jacobian::difference_columns(
            &mut residuals,
            matrix,
            nudges,
            &mut memory.band_checked,
            analytic,
        )?;
        Ok(analytic)
    }

    /// Writes `∂r/∂D` into the (cleared) matrix from the forces' Jacobian at the current
    /// stage, when they give one; says whether they did.
    fn analytic_matrix<F: Forces<S> + ?Sized>(
        &mut self,
        forces: &F,
        stage_time: S::Scalar,
        stage_dt: S::Scalar,
    ) -> bool {
        self.matrix.clear();
        if !forces.jacobian(self.stage_state, stage_time, &mut self.matrix.as_jacobian()) {
            return false;
        }
        let split = self.rate.velocity.dim();
        let (velocity_factor, force_factor) = (
            stage_dt * self.velocity_weight,
            stage_dt * self.force_weight,
        );
        let factor = |i| {
            if i < split {
                velocity_factor
            } else {
                force_factor
            }
        };
        match self.mass.matrix() {
            None => self.matrix.make_newton_matrix(factor),
            Some(mass) => self.matrix.make_newton_matrix_with_mass(mass, factor),
        }
        true
    }

    /// Keeps, for the matrix just made, how much rounding of the stage state's coordinates
    /// moves each row of the residual, `64 ε W Σⱼ |∂fᵢ/∂yⱼ| |yⱼ|`, and the same per unit of
    /// the largest coordinate.
    fn set_rounding(&mut self, stage_dt: S::Scalar) {
        // The matrix's off-identity row is `c dt wᵢ ∂fᵢ/∂y`: divided by `c dt` it is how
        // much the residual's row moves with the stage's coordinates.
        let noise = S::Scalar::from_f64(64.0) * S::Scalar::epsilon() / stage_dt.abs();
        let mut largest_row = S::Scalar::zero();
        let mut margin = S::Scalar::infinity();
        for i in 0..self.matrix.dim() {
            let (rounding, row) = self
                .matrix
                .off_identity_row_norms(i, |j| self.coordinate(j));
            self.rounding[i] = noise * rounding;
            largest_row = largest_row.max(row);
            margin = margin.min(self.matrix.dominance(i));
        }
        self.memory.rounding_per_coordinate = noise * largest_row;
        // Not `max`, which would take a NaN margin for 1 silently: the same, spelt out.
        self.memory.damping = if margin > S::Scalar::one() {
            margin
        } else {
            S::Scalar::one()
        };
    }

    /// Refuses a solution that rounding alone could move by more than the whole state's
    /// extent: a step so long (backward Euler at `dt = 10⁴⁵` on a spring) that the
    /// stage's force cannot be resolved, where accepting it would leave garbage. With a
    /// kept matrix (`matrix_rounding` 0) the rounding is bounded through the largest
    /// coordinate; a step refused on that bound is solved again with a matrix made anew.
    ///
    /// Rounding moves each residual row by some `δᵢ`, which moves the rate by
    /// `A⁻¹ δ` (`A = ∂r/∂D`, the Newton matrix) and the state by `dt` times that. A matrix
    /// whose rows are all diagonally dominant shrinks it: `‖A⁻¹ δ‖∞ ≤ ‖δ‖∞ / margin`
    /// (Varah's bound, the margin kept by [`set_rounding`](Self::set_rounding)). That is
    /// what makes a stiff step well conditioned: backward Euler on
    /// `y' = −10¹⁶ (y − cos t)` at `dt = 0.01` rounds its residual by 10³, which
    /// `A = 1 + 10¹⁴` brings down to 10⁻¹¹ in the rate, and its answer
    /// `(y₀ + dt k cos t₁)/(1 + dt k)` is taken. A matrix that is not dominant (the spring
    /// at `dt = 10⁴⁵`, whose rows are `(1, −dt/m)` and `(dt k, 1)`) is bounded without
    /// it, as before.
    fn check_resolved(&self, dt: S::Scalar, matrix_rounding: S::Scalar) -> Result<(), StepError> {
        let noise = S::Scalar::from_f64(64.0) * S::Scalar::epsilon();
        let zero = S::Scalar::zero();
        let (mut rounding, mut extent, mut largest) = (zero, zero, zero);
        let mut measure = |d: S::Scalar, y: S::Scalar, matrix: S::Scalar| {
            rounding = rounding.max(noise * d.abs() + matrix_rounding * matrix);
            extent = extent.max(y + (d * dt).abs());
            largest = largest.max(y);
        };
        if let (Some(rate), Some(coordinates), true) = (
            self.rate.as_scalars(),
            self.coordinates.as_scalars(),
            self.has_coordinates,
        ) {
            for ((&d, y), &matrix) in rate.iter().zip(coordinates).zip(&*self.rounding) {
                measure(d, y.abs(), matrix);
            }
        } else {
            for (i, &matrix) in self.rounding.iter().enumerate() {
                measure(self.rate.component(i), self.coordinate(i), matrix);
            }
        }
        if matrix_rounding == zero {
            rounding = rounding + self.memory.rounding_per_coordinate * largest;
        }
        let worst = rounding / self.memory.damping * dt.abs();
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

/// Hairer & Wanner's `κ` (II, IV.8, (8.11), "between 10⁻¹ and 10⁻²"): the iteration stops
/// when the error it leaves, `η · ratio` in the units of [`update`](Newton::update)'s
/// allowance, is within this fraction of the tolerance.
const KAPPA: f64 = 0.1;

/// Iterations in a row without a correction smaller than the smallest so far, after which
/// the Newton iteration is taken to diverge, however many iterations are allowed (so that
/// a limit of `usize::MAX` ends as soon as progress stops: an iteration that jumps between
/// two values forever, a `NaN` ratio): more than the one rise a matrix made anew may bring
/// before full Newton's quadratic convergence sets in.
const STALL: usize = 4;

/// How one attempt at a step's Newton solve starts and iterates.
#[derive(Clone, Copy)]
enum Attempt {
    /// Simplified Newton: one matrix for the whole iteration, the last step's when
    /// `kept`, starting from the last step's rate when `guessed`.
    Simplified { kept: bool, guessed: bool },
    /// Full Newton: the matrix made anew at every iteration, from the start's rate. Each
    /// iteration costs a Jacobian and a factorisation, but the iteration converges
    /// quadratically wherever the step's equation is smooth enough: where the matrix of
    /// the start is too far from that of the end for simplified Newton (a stiff torsion
    /// spring turned through half a radian in one frame).
    Full,
}

impl Attempt {
    /// Simplified Newton from the start's rate with a matrix made anew.
    const FRESH: Attempt = Attempt::Simplified {
        kept: false,
        guessed: false,
    };
}

/// Which rate a residual is taken at: the iterate (the differences take theirs through
/// [`Residuals`]).
#[derive(Clone, Copy)]
enum Probe {
    Rate,
}

/// `state` moved along the rate `rate` for `stage_dt`, into `probe`, and its rate at
/// `stage_time`, into `probe_rate`: the stage of a one-stage step.
#[inline]
fn stage<S: State, F: Forces<S> + ?Sized>(
    state: &S,
    forces: &F,
    stage_time: S::Scalar,
    stage_dt: S::Scalar,
    rate: &DerivativeOf<S>,
    probe: &mut S,
    probe_rate: &mut DerivativeOf<S>,
) {
    state.probe_into(rate, stage_dt, probe);
    probe.derivative_into(forces, stage_time, probe_rate);
}

/// What a rule's residual takes from its stage's rate: the mass matrix (backward Euler's
/// rule only), the explicit part `E` and the weights `W` of the stage's rate.
struct Weights<'a, S: State> {
    mass: Option<&'a Matrix<S::Scalar>>,
    explicit: Option<&'a DerivativeOf<S>>,
    velocity_weight: S::Scalar,
    force_weight: S::Scalar,
}

impl<S: State> Weights<'_, S> {
    /// `r(D) = D − E − W f(t + c dt, y₀ + c D dt)` (with a mass matrix `M D − f(t + dt,
    /// y₀ + D dt)`) for the rate `D` = `rate`, whose stage's rate is `stage_rate`, into
    /// `out`.
    #[inline]
    fn residual(
        &self,
        rate: &DerivativeOf<S>,
        stage_rate: &DerivativeOf<S>,
        out: &mut DerivativeOf<S>,
    ) {
        if let Some(mass) = self.mass {
            mass.multiply_each(
                |j| rate.component(j),
                |i, product| out.set_component(i, product - stage_rate.component(i)),
            );
            return;
        }
        out.assign(rate);
        if let Some(explicit) = self.explicit {
            out.add_scaled_assign(explicit, -S::Scalar::one());
        }
        out.velocity
            .add_scaled_assign(&stage_rate.velocity, -self.velocity_weight);
        out.force
            .add_scaled_assign(&stage_rate.force, -self.force_weight);
    }
}

/// A one-stage step's Newton residual `r(D)` as a function of its rate `D`, differenced
/// by the crate's one column loop ([`jacobian::difference_columns`]). The residual is
/// differenced, not `f`: its matrix `∂r/∂D` is then made by the same arithmetic whatever
/// the rule (a mass matrix, Newmark's velocity and force weights `W`, the stage `c`) and
/// is exactly what the iteration solves with, and backward Euler's steps (and the hashes
/// of tests/determinism.rs) stay those it has always taken.
struct Residuals<'a, S: State, F: ?Sized> {
    state: &'a S,
    forces: &'a F,
    stage_time: S::Scalar,
    stage_dt: S::Scalar,
    rule: DifferenceStep<'a, S::Scalar>,
    coordinates: Option<&'a DerivativeOf<S>>,
    rate: &'a DerivativeOf<S>,
    residual: &'a DerivativeOf<S>,
    nudged: &'a mut DerivativeOf<S>,
    nudged_residual: &'a mut DerivativeOf<S>,
    stage_state: &'a mut S,
    stage_rate: &'a mut DerivativeOf<S>,
    weights: Weights<'a, S>,
}

impl<S: State, F: Forces<S> + ?Sized> Differenced<S::Scalar> for Residuals<'_, S, F> {
    fn start(&mut self) {
        self.nudged.assign(self.rate);
    }

    fn step(&self, j: usize) -> S::Scalar {
        let y = self.coordinates.map(|coordinates| coordinates.component(j));
        self.rule.size(j, y, self.rate.component(j))
    }

    fn nudge(&mut self, j: usize, delta: S::Scalar) -> S::Scalar {
        let d = self.rate.component(j);
        self.nudged.set_component(j, d + delta);
        self.rule.taken(S::Scalar::zero(), d, delta)
    }

    fn restore(&mut self, j: usize) {
        self.nudged.set_component(j, self.rate.component(j));
    }

    fn evaluate(&mut self) {
        let (time, dt) = (self.stage_time, self.stage_dt);
        stage(
            self.state,
            self.forces,
            time,
            dt,
            self.nudged,
            self.stage_state,
            self.stage_rate,
        );
        self.weights
            .residual(self.nudged, self.stage_rate, self.nudged_residual);
    }

    fn change(&self, i: usize) -> (S::Scalar, S::Scalar) {
        let moved = self.nudged_residual.component(i) - self.residual.component(i);
        let size = self.rate.component(i).abs() + self.stage_rate.component(i).abs();
        (moved, size)
    }
}
