//! Newmark-β: structural dynamics' implicit family for second-order states, with its two
//! classic members, average and linear acceleration.

use super::newton::{ImplicitWorkspace, Newton, Rule};
use super::settings::ImplicitSettings;
use super::settings::newton_builders;
use crate::integrators::{Memoryless, Properties, Scheme};
use crate::{Forces, State, StepError};
use core::fmt;

/// Newmark-β, the implicit family of structural dynamics: positions and velocities advance
/// on a blend of the accelerations at both ends of the step, weighted by `β` and `γ`.
///
/// ```text
/// x(t + dt) = x + v dt + dt² ((½ − β) a + β a(t + dt))
/// v(t + dt) = v + dt ((1 − γ) a + γ a(t + dt))
/// a(t + dt) = F(t + dt, x(t + dt), v(t + dt)) / m
/// ```
///
/// The crate's states know no mass, so the step is written through them: the momenta
/// advance by `dt ((1 − γ) F + γ F(t + dt))`, and the positions along
/// `(1 − β/γ) v + (β/γ) v(t + dt) + (½ − β/γ) Δv`, with `Δv` the velocity change a kick by
/// the start force makes (`a dt` for a particle). For a [`Particle`](crate::Particle) that
/// is the textbook scheme exactly; for a rigid body it is its natural extension. Each step
/// solves for the end of the step with the Newton iteration of
/// [`BackwardEuler`](crate::BackwardEuler) (the same settings, Jacobians, errors and
/// workspace).
///
/// The members, by their parameters:
///
/// | | `β` | `γ` | order | undamped oscillator |
/// |---|---|---|---|---|
/// | [`new`](Newmark::new): average acceleration | ¼ | ½ | 2 | stable at every `dt`, energy kept exactly |
/// | [`linear_acceleration`](Newmark::linear_acceleration) | ⅙ | ½ | 2 | stable for `ω dt ≤ 2√3 ≈ 3.46` |
/// | `with_parameters(0.0, 0.5)`: central difference | 0 | ½ | 2 | stable for `ω dt ≤ 2` (velocity Verlet's positions) |
/// | `γ > ½` | | | 1 | numerical damping of high frequencies |
///
/// - **Order** 2 when `γ = ½`, 1 otherwise.
/// - **Stability** on an undamped oscillator: unconditional for `2β ≥ γ ≥ ½`; with `γ = ½`
///   and `β < ¼`, up to `ω dt = 1/√(γ/2 − β)` (`2√3` for linear acceleration, 2 for the
///   central difference). With `γ > ½` the method damps, more at higher frequencies
///   (`γ < ½` would gain energy at every step for every `dt`, and is refused). Average acceleration keeps a linear oscillator's energy exactly: on the
///   particle's `(x, p)` it is the [`Trapezoid`](crate::Trapezoid) rule.
/// - **Cost**: one force evaluation at the start, then per Newton iteration one, plus with
///   finite differences one per coordinate (or per diagonal of a band). Through a
///   [`Stepper`](crate::Stepper) the factored matrix is kept from step to step, as
///   [`BackwardEuler`](crate::BackwardEuler) keeps it.
///
/// **First-order states** (`y' = f(t, y)`, with no positions: `Vec<f64>`, arrays): the
/// position equation has nothing to move, and the velocity equation becomes the θ-method
/// `y(t + dt) = y + dt ((1 − γ) f + γ f(t + dt, y(t + dt)))`, `β` playing no part: with
/// `γ = ½` the trapezoidal rule (order 2, as promised), with `γ = 1` backward Euler. Read
/// `y` as the velocity and `f` as its acceleration: the same as a partitioned method's kicks
/// doing all the work on such a state.
///
/// With `dt = 0` the state is untouched, a negative `dt` integrates backwards, and a
/// non-finite `t`, `dt` or force is refused ([`StepError`]) with the state unchanged, as for
/// every method ([`Integrator`](crate::Integrator)).
///
/// Use it for structural models (beams, cloth, FE meshes) written as second-order states,
/// where engineers know their `β` and `γ`.
///
/// # Example
///
/// A spring of k = 10⁶ at 60 Hz, `ω dt = 16.7`: average acceleration keeps its energy;
/// linear acceleration, past its limit `2√3`, blows up:
///
/// ```
/// use timestep::{Integrator, Newmark, Particle, State};
///
/// let stiff = |p: &Particle<f64>, _t: f64| -1.0e6 * p.position();
/// let energy = |p: &Particle<f64>| 0.5 * p.velocity().powi(2) + 0.5e6 * p.position().powi(2);
/// let (mut average, mut linear) = (Particle::new(1.0, 1.0, 0.0), Particle::new(1.0, 1.0, 0.0));
/// for i in 0..60 {
///     let t = i as f64 / 60.0;
///     Newmark::new().step(&mut average, &stiff, t, 1.0 / 60.0)?;
///     Newmark::linear_acceleration().step(&mut linear, &stiff, t, 1.0 / 60.0)?;
/// }
/// assert!((energy(&average) / 0.5e6 - 1.0).abs() < 1e-12);
/// assert!(energy(&linear) > 1e10 * 0.5e6);
/// # Ok::<(), timestep::StepError>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[doc(alias = "newmark-beta")]
pub struct Newmark {
    beta: f64,
    gamma: f64,
    newton: ImplicitSettings,
}

impl Newmark {
    /// The average acceleration method (the trapezoidal rule of structural dynamics):
    /// `β = ¼, γ = ½`. Second order, unconditionally stable, and it keeps a linear undamped
    /// oscillator's energy exactly. Default Newton settings (those of
    /// [`BackwardEuler::new`](crate::BackwardEuler::new)).
    ///
    /// ```
    /// use timestep::Newmark;
    ///
    /// assert_eq!((Newmark::new().beta(), Newmark::new().gamma()), (0.25, 0.5));
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        Newmark {
            beta: 0.25,
            gamma: 0.5,
            newton: ImplicitSettings::new(),
        }
    }

    /// The linear acceleration method, `β = ⅙, γ = ½`: second order, more accurate than
    /// average acceleration at small steps, but stable on an undamped oscillator only for
    /// `ω dt ≤ 2√3 ≈ 3.46`.
    ///
    /// ```
    /// use timestep::Newmark;
    ///
    /// assert_eq!(Newmark::linear_acceleration().beta(), 1.0 / 6.0);
    /// ```
    #[must_use]
    pub const fn linear_acceleration() -> Self {
        Newmark {
            beta: 1.0 / 6.0,
            gamma: 0.5,
            newton: ImplicitSettings::new(),
        }
    }

    /// The member with parameters `beta` and `gamma`, and the default Newton settings.
    ///
    /// `gamma` is the weight of the end-of-step acceleration in the velocity update and
    /// must lie in `[½, 1]`: below `½` every member gains energy at every step, whatever
    /// `dt` (negative numerical damping), and above 1 the step would extrapolate the
    /// accelerations instead of blending them. `beta`, half that weight in the position
    /// update, must lie in `[0, 1]`, which takes in `(γ + ½)²/4`, the most damping choice
    /// for any `γ`; `β = 0` gives explicit positions (the central difference method).
    /// Tiny values are as good as zero; there is no other special case.
    ///
    /// # Panics
    ///
    /// If either is out of its range or not finite (`NaN`, infinite): the message names the
    /// value. [`try_with_parameters`](Self::try_with_parameters) returns the error instead.
    ///
    /// ```
    /// use timestep::Newmark;
    ///
    /// // Numerical damping of high frequencies, first order.
    /// let damped = Newmark::with_parameters(0.3025, 0.6);
    /// assert_eq!(damped.gamma(), 0.6);
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_parameters(beta: f64, gamma: f64) -> Self {
        match Self::try_with_parameters(beta, gamma) {
            Ok(newmark) => newmark,
            Err(error) => panic!("{error}"),
        }
    }

    /// [`with_parameters`](Self::with_parameters), returning an error for parameters out of
    /// range or not finite instead of panicking.
    ///
    /// # Errors
    ///
    /// [`NewmarkError`], carrying the values given, unless `0 ≤ beta ≤ 1` and
    /// `½ ≤ gamma ≤ 1`.
    ///
    /// ```
    /// use timestep::Newmark;
    ///
    /// assert!(Newmark::try_with_parameters(0.25, 0.5).is_ok());
    /// for (beta, gamma) in [(0.25, 0.4), (-0.1, 0.5), (0.25, 1.5), (f64::NAN, 0.5), (0.25, f64::INFINITY)] {
    ///     let error = Newmark::try_with_parameters(beta, gamma).unwrap_err();
    ///     assert!(error.to_string().starts_with("Newmark parameters out of range"));
    /// }
    /// ```
    pub fn try_with_parameters(beta: f64, gamma: f64) -> Result<Self, NewmarkError> {
        // Written so that NaN fails every comparison and is refused.
        let beta_ok = (0.0..=1.0).contains(&beta);
        let gamma_ok = (0.5..=1.0).contains(&gamma);
        if beta_ok && gamma_ok {
            Ok(Newmark {
                beta,
                gamma,
                newton: ImplicitSettings::new(),
            })
        } else {
            Err(NewmarkError { beta, gamma })
        }
    }

    /// `β`: half the weight of the end-of-step acceleration in the position update.
    #[must_use]
    pub fn beta(&self) -> f64 {
        self.beta
    }

    /// `γ`: the weight of the end-of-step acceleration in the velocity update.
    #[must_use]
    pub fn gamma(&self) -> f64 {
        self.gamma
    }

    /// The one-stage rule the Newton iteration solves: the stage at the end of the step,
    /// `β/γ` of its velocity and `γ` of its force, and `½ − β/γ` of the start force's
    /// velocity change.
    fn rule(&self) -> Rule {
        let ratio = self.beta / self.gamma;
        Rule {
            stage: 1.0,
            velocity_weight: ratio,
            force_weight: self.gamma,
            start_kick: 0.5 - ratio,
        }
    }
}

newton_builders!(Newmark);

impl Default for Newmark {
    fn default() -> Self {
        Newmark::new()
    }
}

impl Scheme for Newmark {
    type Workspace<S: State> = ImplicitWorkspace<S>;

    fn workspace<S: State>(&self, state: &S) -> Self::Workspace<S> {
        ImplicitWorkspace::new(state, &self.newton, &self.rule())
    }

    fn advance<S: State, F: Forces<S> + ?Sized>(
        &self,
        workspace: &mut Self::Workspace<S>,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        Newton::new(&self.newton, &self.rule(), workspace, state)?.solve(state, forces, t, dt)
    }

    fn properties(&self) -> Properties {
        let order = if self.gamma == 0.5 { 2 } else { 1 };
        Properties::explicit("newmark", order, 1).implicit()
    }
}

impl Memoryless for Newmark {}

/// Newmark parameters out of range: `β` must lie in `[0, 1]` and `γ` in `[½, 1]`, both
/// finite. Carries the values given.
///
/// ```
/// use timestep::{Newmark, NewmarkError};
///
/// let error = Newmark::try_with_parameters(0.25, 0.0).unwrap_err();
/// assert_eq!(error, NewmarkError { beta: 0.25, gamma: 0.0 });
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct NewmarkError {
    /// The `β` given.
    pub beta: f64,
    /// The `γ` given.
    pub gamma: f64,
}

impl fmt::Display for NewmarkError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "Newmark parameters out of range (β = {}, γ = {}): β must lie in [0, 1] and γ in [0.5, 1]",
            self.beta, self.gamma
        )
    }
}

impl core::error::Error for NewmarkError {}

/// Serde goes through the parameters and the Newton settings, checked again on the way in
/// as the constructors and builders check them.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::super::settings::InvalidSettings;
    use super::Newmark;
    use crate::{LinearSolver, Structure};

    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "Newmark", deny_unknown_fields)]
    struct Saved {
        beta: f64,
        gamma: f64,
        tolerance: Option<f64>,
        max_iterations: usize,
        #[serde(default)]
        structure: Structure,
        #[serde(default)]
        linear_forces: bool,
        #[serde(default, skip_serializing_if = "LinearSolver::is_direct")]
        linear_solver: LinearSolver,
    }

    impl serde::Serialize for Newmark {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Saved {
                beta: self.beta,
                gamma: self.gamma,
                tolerance: self.newton.tolerance,
                max_iterations: self.max_iterations(),
                structure: self.newton.structure,
                linear_forces: self.newton.linear_forces,
                linear_solver: self.newton.linear_solver,
            }
            .serialize(serializer)
        }
    }

    impl<'de> serde::Deserialize<'de> for Newmark {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            use serde::de::Error;
            let saved = Saved::deserialize(deserializer)?;
            let newton = InvalidSettings::check(
                "Newmark",
                saved.tolerance,
                saved.max_iterations,
                saved.structure,
                saved.linear_forces,
                saved.linear_solver,
                Newmark::DEFAULT_MAX_ITERATIONS,
            )
            .map_err(D::Error::custom)?;
            let newmark =
                Newmark::try_with_parameters(saved.beta, saved.gamma).map_err(D::Error::custom)?;
            Ok(Newmark { newton, ..newmark })
        }
    }
}
