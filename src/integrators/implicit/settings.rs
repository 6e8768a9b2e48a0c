//! The settings every implicit method takes ([`ImplicitSettings`]: the Jacobian's
//! structure, the Newton tolerance and iterations, the linear-forces declaration, the
//! linear solver), written
//! once: a macro gives each one-stage method the same checked builders, getters and serde
//! form, so that a fix to one is a fix to all.

use crate::{LinearSolver, Structure};

/// The settings every implicit method takes, as one value: which entries of the Jacobian
/// can be non-zero ([`Structure`]), the relative Newton tolerance, the Newton iterations
/// allowed per step, whether the forces are declared affine with an exact constant
/// Jacobian, and how the Newton systems are solved ([`LinearSolver`]). Each implicit method has `with_settings` and `settings`, and so have
/// [`AdaptiveKind`](crate::AdaptiveKind) and [`MethodKind`](crate::MethodKind), which give
/// them to whichever implicit method they name: a banded Rodas4 chosen by name is still
/// `"rodas4"`.
///
/// A field left at its default means "the method's own default": no tolerance
/// ([`tolerance`](Self::tolerance) `None`) is the method's default tolerance, no iteration
/// count ([`max_iterations`](Self::max_iterations) `None`) the method's own count (20 for
/// [`BackwardEuler`](crate::BackwardEuler), [`Trapezoid`](crate::Trapezoid),
/// [`ImplicitMidpoint`](crate::ImplicitMidpoint) and [`Newmark`](crate::Newmark), radau5.f's
/// 7 for [`Radau5`](crate::Radau5)), so that one value serves every method.
///
/// Not every method has every setting. What each takes (a method's `with_settings` says so
/// too); the settings it does not take are dropped, and its `settings` reports them at
/// their defaults:
///
/// | method | structure | tolerance | max_iterations | linear_forces | linear_solver |
/// |---|---|---|---|---|---|
/// | [`BackwardEuler`](crate::BackwardEuler), [`Trapezoid`](crate::Trapezoid), [`ImplicitMidpoint`](crate::ImplicitMidpoint), [`Newmark`](crate::Newmark) | yes | yes | yes (default 20) | yes | yes |
/// | [`Radau5`](crate::Radau5) | yes | yes (radau5.f's `FNEWT`) | yes (default 7) | no | no: direct |
/// | [`Rosenbrock`](crate::Rosenbrock) ([`Rodas4`](crate::Rodas4), [`Rodas5P`](crate::Rodas5P), [`Ros3p`](crate::Ros3p)), [`Seulex`](crate::Seulex) | yes | no: no Newton iteration | no | no | no: direct |
/// | [`Bdf`](crate::Bdf) | yes | no: CVODE's own test | no: CVODE's 3 | no | its own [`Bdf::with_linear_solver`](crate::Bdf::with_linear_solver) |
///
/// A setting dropped changes nothing: the method runs as it would without it (a method
/// with no Newton iteration has no tolerance to meet nor iterations to count; the BDF
/// stops its iteration by CVODE's test, and Radau5 by radau5.f's for linear forces too).
/// Giving the same value to methods chosen by name is therefore safe, and each method's
/// `settings` says what it took.
///
/// ```
/// use timestep::{AdaptiveKind, ImplicitSettings, Radau5, Structure};
///
/// let tridiagonal = Structure::Banded { lower: 1, upper: 1 };
/// let settings = ImplicitSettings::new().with_structure(tridiagonal).with_tolerance(1e-3);
/// assert_eq!(settings.max_iterations(), None); // each method's own count
///
/// // The same value for a method by type and by name.
/// let radau = Radau5::new().with_settings(settings);
/// assert_eq!((radau.structure(), radau.max_iterations()), (tridiagonal, 7));
/// let rodas4 = "rodas4".parse::<AdaptiveKind>()?.with_settings(settings);
/// assert_eq!(rodas4.to_string(), "rodas4");
/// // Rodas4 has no Newton iteration: it keeps the structure alone.
/// assert_eq!(rodas4.settings(), Some(ImplicitSettings::new().with_structure(tridiagonal)));
/// # Ok::<(), timestep::ParseMethodError>(())
/// ```
///
/// With the `serde` feature it is saved as its fields,
/// `{"structure": "dense", "tolerance": null, "max_iterations": null, "linear_forces": false}`
/// and, when it is not the direct solver, `"linear_solver"` (each may be left out; unknown
/// fields, and values the builders refuse, are refused).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ImplicitSettings {
    pub(crate) structure: Structure,
    pub(crate) tolerance: Option<f64>,
    pub(crate) max_iterations: Option<usize>,
    /// Forces declared affine in the state with a constant, exact Jacobian: a step whose
    /// matrix comes from that Jacobian ends after one correction.
    pub(crate) linear_forces: bool,
    pub(crate) linear_solver: LinearSolver,
}

impl ImplicitSettings {
    /// Every setting at its default: a dense Jacobian, and each method's own tolerance
    /// and iteration count; forces not declared linear; the direct linear solver.
    ///
    /// ```
    /// use timestep::{ImplicitSettings, Structure};
    ///
    /// let settings = ImplicitSettings::new();
    /// assert_eq!(settings.structure(), Structure::Dense);
    /// assert_eq!((settings.tolerance(), settings.max_iterations()), (None, None));
    /// assert!(!settings.linear_forces());
    /// assert_eq!(settings, ImplicitSettings::default());
    /// ```
    #[must_use]
    pub const fn new() -> Self {
        ImplicitSettings {
            structure: Structure::Dense,
            tolerance: None,
            max_iterations: None,
            linear_forces: false,
            linear_solver: LinearSolver::Direct,
        }
    }

    /// The same settings, with the Jacobian's non-zero entries in `structure` (see a
    /// method's `with_structure`, [`BackwardEuler::with_structure`](crate::BackwardEuler::with_structure)
    /// for one).
    ///
    /// ```
    /// use timestep::{ImplicitSettings, Structure};
    ///
    /// let banded = ImplicitSettings::new().with_structure(Structure::Banded { lower: 2, upper: 1 });
    /// assert_eq!(banded.structure().bandwidth(), 4);
    /// ```
    #[must_use]
    pub const fn with_structure(self, structure: Structure) -> Self {
        ImplicitSettings { structure, ..self }
    }

    /// The same settings, with relative Newton tolerance `tolerance` (what it means to each
    /// method: its `with_tolerance`).
    ///
    /// # Panics
    ///
    /// If `tolerance` is not finite and positive (zero, negative, infinite or `NaN`).
    ///
    /// ```
    /// use timestep::ImplicitSettings;
    ///
    /// assert_eq!(ImplicitSettings::new().with_tolerance(1e-10).tolerance(), Some(1e-10));
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_tolerance(self, tolerance: f64) -> Self {
        assert!(
            Self::check_tolerance(tolerance).is_ok(),
            "ImplicitSettings tolerance must be finite and positive, got {tolerance:e}"
        );
        ImplicitSettings {
            tolerance: Some(tolerance),
            ..self
        }
    }

    /// The same settings, allowing `max_iterations` Newton iterations per step.
    ///
    /// # Panics
    ///
    /// If `max_iterations` is 0.
    ///
    /// ```
    /// use timestep::ImplicitSettings;
    ///
    /// assert_eq!(ImplicitSettings::new().with_max_iterations(5).max_iterations(), Some(5));
    /// ```
    #[track_caller]
    #[must_use]
    pub fn with_max_iterations(self, max_iterations: usize) -> Self {
        assert!(
            Self::check_max_iterations(max_iterations).is_ok(),
            "ImplicitSettings needs at least one Newton iteration"
        );
        ImplicitSettings {
            max_iterations: Some(max_iterations),
            ..self
        }
    }

    /// The same settings, with the forces declared affine in the state with a constant
    /// Jacobian that they give exactly (see
    /// [`BackwardEuler::with_linear_forces`](crate::BackwardEuler::with_linear_forces)).
    ///
    /// ```
    /// assert!(timestep::ImplicitSettings::new().with_linear_forces().linear_forces());
    /// ```
    #[must_use]
    pub const fn with_linear_forces(self) -> Self {
        ImplicitSettings {
            linear_forces: true,
            ..self
        }
    }

    /// The same settings, solving the Newton systems by `linear_solver` (see a one-stage
    /// method's `with_linear_solver`,
    /// [`BackwardEuler::with_linear_solver`](crate::BackwardEuler::with_linear_solver) for
    /// one).
    ///
    /// ```
    /// use timestep::{Gmres, ImplicitSettings, LinearSolver};
    ///
    /// let gmres = LinearSolver::Gmres(Gmres::new());
    /// assert_eq!(ImplicitSettings::new().with_linear_solver(gmres).linear_solver(), gmres);
    /// ```
    #[must_use]
    pub const fn with_linear_solver(self, linear_solver: LinearSolver) -> Self {
        ImplicitSettings {
            linear_solver,
            ..self
        }
    }

    /// Which entries of the Jacobian can be non-zero.
    #[must_use]
    pub const fn structure(&self) -> Structure {
        self.structure
    }

    /// How the Newton systems are solved.
    #[must_use]
    pub const fn linear_solver(&self) -> LinearSolver {
        self.linear_solver
    }

    /// The structure of the matrix a one-stage method stores: the Jacobian's for the
    /// direct solver; for GMRES, which stores no Jacobian, a banded preconditioner's band,
    /// else the diagonal alone (where a mass matrix is read, to be refused).
    pub(crate) const fn stored_structure(&self) -> Structure {
        match self.linear_solver {
            LinearSolver::Direct => self.structure,
            LinearSolver::Gmres(gmres) => match gmres.preconditioner() {
                crate::Preconditioner::Banded { lower, upper } => {
                    Structure::Banded { lower, upper }
                }
                _ => Structure::Banded { lower: 0, upper: 0 },
            },
        }
    }

    /// The relative Newton tolerance set, or `None` for each method's default.
    #[must_use]
    pub const fn tolerance(&self) -> Option<f64> {
        self.tolerance
    }

    /// The Newton iterations allowed per step, or `None` for each method's own count.
    #[must_use]
    pub const fn max_iterations(&self) -> Option<usize> {
        self.max_iterations
    }

    /// Whether the forces are declared affine with an exact constant Jacobian.
    #[must_use]
    pub const fn linear_forces(&self) -> bool {
        self.linear_forces
    }

    /// The iterations allowed, `default` when none were set.
    pub(crate) const fn max_iterations_or(&self, default: usize) -> usize {
        match self.max_iterations {
            Some(max_iterations) => max_iterations,
            None => default,
        }
    }

    /// These settings as a method without a Newton iteration keeps them: the structure
    /// alone.
    pub(crate) const fn structure_only(structure: Structure) -> Self {
        ImplicitSettings::new().with_structure(structure)
    }

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

impl Default for ImplicitSettings {
    /// [`ImplicitSettings::new`].
    fn default() -> Self {
        ImplicitSettings::new()
    }
}

/// Saved as its fields, each optional, checked again on the way in as the builders check
/// them.
#[cfg(feature = "serde")]
const _: () = {
    #[derive(serde::Serialize, serde::Deserialize)]
    #[serde(rename = "ImplicitSettings", deny_unknown_fields)]
    struct Saved {
        #[serde(default)]
        structure: Structure,
        #[serde(default)]
        tolerance: Option<f64>,
        #[serde(default)]
        max_iterations: Option<usize>,
        #[serde(default)]
        linear_forces: bool,
        #[serde(default, skip_serializing_if = "LinearSolver::is_direct")]
        linear_solver: LinearSolver,
    }

    impl serde::Serialize for ImplicitSettings {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            Saved {
                structure: self.structure,
                tolerance: self.tolerance,
                max_iterations: self.max_iterations,
                linear_forces: self.linear_forces,
                linear_solver: self.linear_solver,
            }
            .serialize(serializer)
        }
    }

    impl<'de> serde::Deserialize<'de> for ImplicitSettings {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            let saved = Saved::deserialize(deserializer)?;
            let refuse = |why| serde::de::Error::custom(format_args!("ImplicitSettings {why}"));
            if let Some(tolerance) = saved.tolerance {
                ImplicitSettings::check_tolerance(tolerance).map_err(refuse)?;
            }
            if let Some(max_iterations) = saved.max_iterations {
                ImplicitSettings::check_max_iterations(max_iterations).map_err(refuse)?;
            }
            Ok(ImplicitSettings {
                structure: saved.structure,
                tolerance: saved.tolerance,
                max_iterations: saved.max_iterations,
                linear_forces: saved.linear_forces,
                linear_solver: saved.linear_solver,
            })
        }
    }
};

/// Gives `$method` (a struct with a `newton: ImplicitSettings` field, all of which it uses)
/// the builders `with_settings`, `with_tolerance`, `with_max_iterations`, `with_structure`,
/// `with_linear_forces` and `with_linear_solver`, their getters and
/// `DEFAULT_MAX_ITERATIONS`.
macro_rules! newton_builders {
    ($method:ident) => {
        impl $method {
            /// Newton iterations allowed per step by default.
            pub const DEFAULT_MAX_ITERATIONS: usize =
                $crate::integrators::implicit::newton::DEFAULT_MAX_ITERATIONS;

            #[doc = concat!(
                "The same method with `settings`, all of which it takes: the Jacobian's ",
                "structure, the Newton tolerance (`None`: the default of the state's ",
                "precision), the iterations (`None`: ",
                "[`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS)) and the ",
                "linear-forces declaration. The same as the four builders one by one; ",
                "[`settings`](Self::settings) gives them back as they were given.\n\n",
                "```\n",
                "use timestep::{", stringify!($method), ", ImplicitSettings, Structure};\n\n",
                "let settings = ImplicitSettings::new()\n",
                "    .with_structure(Structure::Banded { lower: 1, upper: 1 })\n",
                "    .with_tolerance(1e-12);\n",
                "let solver = ", stringify!($method), "::new().with_settings(settings);\n",
                "assert_eq!(solver.settings(), settings);\n",
                "assert_eq!(solver.max_iterations(), ", stringify!($method), "::DEFAULT_MAX_ITERATIONS);\n",
                "assert_eq!(\n",
                "    solver,\n",
                "    ", stringify!($method), "::new()\n",
                "        .with_structure(Structure::Banded { lower: 1, upper: 1 })\n",
                "        .with_tolerance(1e-12)\n",
                ");\n",
                "```"
            )]
            #[must_use]
            pub const fn with_settings(self, settings: $crate::ImplicitSettings) -> Self {
                let mut method = self;
                method.newton = settings;
                method
            }

            /// The settings of the Newton solve, as [`with_settings`](Self::with_settings)
            /// or the builders set them.
            #[must_use]
            pub const fn settings(&self) -> $crate::ImplicitSettings {
                self.newton
            }

            #[doc = concat!(
                "The same method with relative Newton tolerance `tolerance` (the default is ",
                "`ε^(2/3)` of the state's scalar: about `4·10⁻¹¹` in `f64`, `2·10⁻⁵` in `f32`).\n\n",
                "# Panics\n\n",
                "If `tolerance` is not finite and positive (zero, negative, infinite or `NaN`).\n\n",
                "```\n",
                "use timestep::", stringify!($method), ";\n\n",
                "let solver = ", stringify!($method), "::new().with_tolerance(1e-12);\n",
                "assert_eq!(solver.tolerance(), Some(1e-12));\n",
                "```"
            )]
            #[track_caller]
            #[must_use]
            pub fn with_tolerance(self, tolerance: f64) -> Self {
                assert!(
                    $crate::ImplicitSettings::check_tolerance(tolerance)
                        .is_ok(),
                    concat!(
                        stringify!($method),
                        " tolerance must be finite and positive, got {:e}"
                    ),
                    tolerance
                );
                let mut method = self;
                method.newton.tolerance = Some(tolerance);
                method
            }

            #[doc = concat!(
                "The same method allowing `max_iterations` Newton iterations per step ",
                "(default [`DEFAULT_MAX_ITERATIONS`](Self::DEFAULT_MAX_ITERATIONS)); a step ",
                "that needs more returns [`StepError::NotConverged`](crate::StepError::NotConverged).\n\n",
                "# Panics\n\n",
                "If `max_iterations` is 0.\n\n",
                "```\n",
                "use timestep::", stringify!($method), ";\n\n",
                "let solver = ", stringify!($method), "::new().with_max_iterations(5);\n",
                "assert_eq!(solver.max_iterations(), 5);\n",
                "```"
            )]
            #[track_caller]
            #[must_use]
            pub fn with_max_iterations(self, max_iterations: usize) -> Self {
                assert!(
                    $crate::ImplicitSettings::check_max_iterations(max_iterations)
                    .is_ok(),
                    concat!(stringify!($method), " needs at least one Newton iteration")
                );
                let mut method = self;
                method.newton.max_iterations = Some(max_iterations);
                method
            }

            #[doc = concat!(
                "The same method, told which entries of the Jacobian can be non-zero. A ",
                "[banded](crate::Structure::Banded) Jacobian makes each Newton iteration `O(n)` ",
                "for a chain or a 1-D grid: finite differences take one force evaluation per ",
                "diagonal, and the LU factorisation works inside the band. A band that covers ",
                "the whole matrix is solved densely. A second-order state's unknowns are ",
                "interleaved, each position beside its momentum, so that a chain of masses is ",
                "banded ([`Structure::chain`](crate::Structure::chain)); a band that misses ",
                "some of the forces' dependences is refused by the first step ",
                "([`StepError::BandTooNarrow`](crate::StepError::BandTooNarrow)). A ",
                "[sparse](crate::Structure::Sparse) Jacobian (feature `sparse`) takes the ",
                "entries the forces list (`Forces::jacobian_pattern`): a 2-D ",
                "grid, a network.\n\n",
                "```\n",
                "use timestep::{", stringify!($method), ", Structure};\n\n",
                "let tridiagonal = Structure::Banded { lower: 1, upper: 1 };\n",
                "let solver = ", stringify!($method), "::new().with_structure(tridiagonal);\n",
                "assert_eq!(solver.structure(), tridiagonal);\n",
                "```"
            )]
            #[must_use]
            pub const fn with_structure(self, structure: $crate::Structure) -> Self {
                let mut method = self;
                method.newton.structure = structure;
                method
            }

            #[doc = concat!(
                "The same method, told that the forces are affine in the state with a ",
                "constant Jacobian that they give exactly: `f(t, y) = A y + b(t)` with `A` ",
                "from [`Forces::jacobian`](crate::Forces::jacobian) (or ",
                "[`WithJacobian`](crate::WithJacobian) around a closure), as for the heat ",
                "equation or linear springs and dampers. Newton's method solves such a ",
                "system in its first correction, so a step ends there instead of evaluating ",
                "a second residual that would only confirm it: half the force evaluations ",
                "and solves per step (SUNDIALS' ARKODE calls this a linearly implicit ",
                "problem). Forces with no Jacobian of their own are still iterated to the ",
                "tolerance, since finite differences are exact only to `√ε`.\n\n",
                "Nothing checks the declaration: forces that are not affine, or whose ",
                "Jacobian changes with `t` or the state, leave the error of one Newton ",
                "correction in every step. The step-length check stays: a step too long ",
                "for rounding to resolve is still refused.\n\n",
                "```\n",
                "use timestep::{", stringify!($method), ", Integrator, Particle, WithJacobian};\n\n",
                "// A spring of k = 10⁶ on a mass of 1 kg, and its Jacobian in (x, p):\n",
                "// ∂ẋ/∂p = 1/m = 1, ∂ṗ/∂x = −k.\n",
                "let spring = WithJacobian::new(\n",
                "    |p: &Particle<f64>, _t: f64| -1.0e6 * p.position(),\n",
                "    |_p: &Particle<f64>, _t: f64, j: &mut timestep::Jacobian<'_, f64>| {\n",
                "        j[(0, 1)] = 1.0;\n",
                "        j[(1, 0)] = -1.0e6;\n",
                "    },\n",
                ");\n",
                "let mut linear = ", stringify!($method), "::new().with_linear_forces();\n",
                "assert!(linear.linear_forces());\n",
                "let mut iterated = ", stringify!($method), "::new();\n",
                "let (mut a, mut b) = (Particle::new(1.0, 1.0, 0.0), Particle::new(1.0, 1.0, 0.0));\n",
                "for i in 0..60 {\n",
                "    let t = i as f64 / 60.0;\n",
                "    linear.step(&mut a, &spring, t, 1.0 / 60.0)?;\n",
                "    iterated.step(&mut b, &spring, t, 1.0 / 60.0)?;\n",
                "}\n",
                "assert!((a.position() - b.position()).abs() < 1e-12);\n",
                "# Ok::<(), timestep::StepError>(())\n",
                "```"
            )]
            #[must_use]
            pub const fn with_linear_forces(self) -> Self {
                let mut method = self;
                method.newton.linear_forces = true;
                method
            }

            #[doc = concat!(
                "The same method solving its Newton systems by `linear_solver`: the ",
                "[direct](crate::LinearSolver::Direct) LU of its [`Structure`](crate::Structure) ",
                "(the default), or matrix-free restarted [GMRES](crate::LinearSolver::Gmres) ",
                "(Saad and Schultz 1986, as CVODE's `SUNLinSol_SPGMR`), for systems too large ",
                "to factor. With GMRES no Jacobian is stored: each Krylov iteration forms ",
                "`v − c dt W J v` (`c` the stage, `W` the weight of the stage's rate) from ",
                "[`Forces::jacobian_times`](crate::Forces::jacobian_times), else from one force ",
                "evaluation, `J v ≈ (f(y + σv) − f(y))/σ` with `σ v` `√ε` times the size of ",
                "the state, as the direct solver's differences size a column (Brown and ",
                "Hindmarsh, Appl. Math. Comput. 31 (1989) 40–91, for CVODE). The structure ",
                "is then not used; a ",
                "[banded preconditioner](crate::Preconditioner::Banded)'s band is made and ",
                "factored where the direct solver would make its matrix (entries outside it ",
                "dropped, not refused), and the [forces' own](crate::Preconditioner::User) is ",
                "told `γ = c dt W` of the force rows. Each solve stops when the linear ",
                "residual, weighted by the Newton test's scale `1 + |Dᵢ| + |yᵢ|/|dt|`, is at ",
                "most [`tolerance_factor`](crate::Gmres::tolerance_factor) times what Newton's ",
                "iteration leaves (its tolerance times 0.1), or that factor times the ",
                "residual it started from (Eisenstat and Walker's forcing term: rounding of ",
                "the stiff components keeps the residual above a tight tolerance, though not ",
                "the correction); a solve that falls short but ",
                "reduced the residual is used, one that did not fails the iteration ",
                "([`StepError::NotConverged`](crate::StepError::NotConverged)). Forces with a ",
                "mass matrix other than the identity are refused ",
                "([`StepError::MassWithGmres`](crate::StepError::MassWithGmres)), and forces ",
                "that do not give the preconditioner asked for too ",
                "([`StepError::NoPreconditioner`](crate::StepError::NoPreconditioner)). The ",
                "Krylov iterations made are counted by the workspace ",
                "([`ImplicitWorkspace::linear_iterations`](crate::workspace::ImplicitWorkspace::linear_iterations)).\n\n",
                "```\n",
                "use timestep::{", stringify!($method), ", Gmres, LinearSolver, Preconditioner, Side};\n\n",
                "let gmres = Gmres::new()\n",
                "    .with_preconditioner(Preconditioner::Banded { lower: 1, upper: 1 }, Side::Right);\n",
                "let solver = ", stringify!($method), "::new().with_linear_solver(LinearSolver::Gmres(gmres));\n",
                "assert_eq!(solver.linear_solver(), LinearSolver::Gmres(gmres));\n",
                "```"
            )]
            #[must_use]
            pub const fn with_linear_solver(self, linear_solver: $crate::LinearSolver) -> Self {
                let mut method = self;
                method.newton.linear_solver = linear_solver;
                method
            }

            /// How the Newton systems are solved
            /// ([`with_linear_solver`](Self::with_linear_solver)).
            #[must_use]
            pub fn linear_solver(&self) -> $crate::LinearSolver {
                self.newton.linear_solver
            }

            /// The relative Newton tolerance set, or `None` for the default of the state's
            /// precision.
            #[must_use]
            pub fn tolerance(&self) -> Option<f64> {
                self.newton.tolerance
            }

            /// Newton iterations allowed per step.
            #[must_use]
            pub fn max_iterations(&self) -> usize {
                self.newton
                    .max_iterations_or(Self::DEFAULT_MAX_ITERATIONS)
            }

            /// Which entries of the Jacobian can be non-zero.
            #[must_use]
            pub fn structure(&self) -> $crate::Structure {
                self.newton.structure()
            }

            /// Whether the forces are declared affine with an exact constant Jacobian
            /// ([`with_linear_forces`](Self::with_linear_forces)).
            #[must_use]
            pub fn linear_forces(&self) -> bool {
                self.newton.linear_forces
            }
        }
    };
}

/// Serde for `$method` (whose settings are its Newton settings alone, and its
/// `$higher_index` field when named) through its public settings, checked again on the
/// way in as the builders check them; saved under `$serde_name`, with a missing
/// `structure` read as dense, a missing `linear_forces` as `false` and a missing
/// `higher_index` as none (which is not written). The iterations are saved as the count the
/// method takes, and its default count loads as left at the default.
#[cfg(feature = "serde")]
macro_rules! newton_serde {
    ($method:ident, $serde_name:literal $(, $higher_index:ident)?) => {
        const _: () = {
            use $crate::integrators::implicit::settings::InvalidSettings;

            #[derive(serde::Serialize, serde::Deserialize)]
            #[serde(rename = $serde_name, deny_unknown_fields)]
            struct Saved {
                tolerance: Option<f64>,
                max_iterations: usize,
                #[serde(default)]
                structure: $crate::Structure,
                #[serde(default)]
                linear_forces: bool,
                $(
                    #[serde(
                        default = "no_higher_index",
                        skip_serializing_if = "is_no_higher_index"
                    )]
                    $higher_index: $crate::integrators::implicit::mass::HigherIndex,
                )?
                #[serde(default, skip_serializing_if = "crate::LinearSolver::is_direct")]
                linear_solver: $crate::LinearSolver,
            }

            $(
                const fn no_higher_index() -> $crate::integrators::implicit::mass::HigherIndex {
                    $crate::integrators::implicit::mass::HigherIndex::NONE
                }

                /// The default is not written: settings saved before it existed read the
                /// same.
                fn is_no_higher_index(
                    $higher_index: &$crate::integrators::implicit::mass::HigherIndex,
                ) -> bool {
                    *$higher_index == $crate::integrators::implicit::mass::HigherIndex::NONE
                }
            )?

            impl serde::Serialize for $method {
                fn serialize<S: serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    Saved {
                        tolerance: self.newton.tolerance,
                        max_iterations: self.max_iterations(),
                        structure: self.newton.structure,
                        linear_forces: self.newton.linear_forces,
                        $($higher_index: self.$higher_index,)?
                        linear_solver: self.newton.linear_solver,
                    }
                    .serialize(serializer)
                }
            }

            impl<'de> serde::Deserialize<'de> for $method {
                fn deserialize<D: serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Self, D::Error> {
                    let saved = Saved::deserialize(deserializer)?;
                    $(
                        if saved.$higher_index.index3 < saved.$higher_index.index2 {
                            return Err(serde::de::Error::custom(concat!(
                                $serde_name,
                                "'s index-3 unknowns must follow its index-2 ones"
                            )));
                        }
                    )?
                    let newton = InvalidSettings::check(
                        $serde_name,
                        saved.tolerance,
                        saved.max_iterations,
                        saved.structure,
                        saved.linear_forces,
                        saved.linear_solver,
                        $method::DEFAULT_MAX_ITERATIONS,
                    )
                    .map_err(serde::de::Error::custom)?;
                    Ok($method {
                        newton,
                        $($higher_index: saved.$higher_index,)?
                    })
                }
            }
        };
    };
}

pub(crate) use newton_builders;

/// Gives `$method`, a method with no Newton settings of its own but the Jacobian's structure
/// (its `with_structure` and `structure`), `with_settings` and `settings`; `$why` says why
/// it takes nothing else, `$make` makes one with its defaults in the doc example.
macro_rules! structure_settings {
    ([$($generics:tt)*] $method:ty, $name:literal, $make:literal, $why:literal) => {
        impl<$($generics)*> $method {
            #[doc = concat!(
                "The same method with `settings`' structure, as ",
                "[`with_structure`](Self::with_structure) sets it. ", $why, " The tolerance, ",
                "the iterations and the linear-forces declaration are therefore dropped, and ",
                "[`settings`](Self::settings) reports them at their defaults: the settings ",
                "are what the method takes.\n\n",
                "```\n",
                "use timestep::{", $name, ", ImplicitSettings, Structure};\n\n",
                "let banded = ImplicitSettings::new().with_structure(Structure::Banded { lower: 1, upper: 1 });\n",
                "let method = ", $make, ".with_settings(banded.with_tolerance(1e-3).with_linear_forces());\n",
                "assert_eq!(method, ", $make, ".with_structure(banded.structure()));\n",
                "assert_eq!(method.settings(), banded);\n",
                "```"
            )]
            #[must_use]
            pub const fn with_settings(self, settings: $crate::ImplicitSettings) -> Self {
                self.with_structure(settings.structure())
            }

            /// The settings it takes: its [`structure`](Self::structure), every other
            /// setting at its default.
            #[must_use]
            pub const fn settings(&self) -> $crate::ImplicitSettings {
                $crate::ImplicitSettings::structure_only(self.structure())
            }
        }
    };
}

pub(crate) use structure_settings;

/// A one-stage rule with fixed coefficients as a method: its `Default` (`new()`), and the
/// [`Scheme`](crate::Scheme) that solves `$rule` on the shared Newton iteration (with the
/// unknowns of index 2 and 3 its `$higher_index` field declares, when named).
macro_rules! one_stage_scheme {
    ($method:ident, $rule:expr, $properties:expr $(, $higher_index:ident)?) => {
        impl Default for $method {
            fn default() -> Self {
                $method::new()
            }
        }

        impl $crate::integrators::Scheme for $method {
            type Workspace<S: $crate::State> =
                $crate::integrators::implicit::newton::ImplicitWorkspace<S>;

            fn workspace<S: $crate::State>(&self, state: &S) -> Self::Workspace<S> {
                $crate::integrators::implicit::newton::ImplicitWorkspace::new(
                    state,
                    &self.newton,
                    &$rule,
                )
            }

            fn advance<S: $crate::State, F: $crate::Forces<S> + ?Sized>(
                &self,
                workspace: &mut Self::Workspace<S>,
                state: &mut S,
                forces: &F,
                t: S::Scalar,
                dt: S::Scalar,
            ) -> Result<(), $crate::StepError> {
                let newton = $crate::integrators::implicit::newton::Newton::new(
                    &self.newton,
                    &$rule,
                    workspace,
                    state,
                )?;
                $(let newton = newton.with_higher_index(self.$higher_index);)?
                newton.solve(state, forces, t, dt)
            }

            fn properties(&self) -> $crate::integrators::Properties {
                $properties
            }
        }

        impl $crate::integrators::Memoryless for $method {}

        impl $method {
            /// The rule's stage `c` and the weight `W` of the stage's rate on a first-order
            /// system (no velocity rows): what the adjoint of its fixed steps differentiates.
            #[cfg(feature = "alloc")]
            pub(crate) const STAGE_AND_WEIGHT: (f64, f64) = ($rule.stage, $rule.force_weight);
        }
    };
}
#[cfg(feature = "serde")]
pub(crate) use newton_serde;
pub(crate) use one_stage_scheme;

/// A saved setting a method's builders would refuse.
#[cfg(feature = "serde")]
#[derive(Debug)]
pub(crate) struct InvalidSettings {
    method: &'static str,
    why: &'static str,
}

#[cfg(feature = "serde")]
impl InvalidSettings {
    /// The Newton settings, or why they are refused; `max_iterations` equal to the
    /// method's `default` is read as left at the default (`None`), as the method's `new`
    /// has it, so that a saved default loads equal to it.
    pub(crate) fn check(
        method: &'static str,
        tolerance: Option<f64>,
        max_iterations: usize,
        structure: crate::Structure,
        linear_forces: bool,
        linear_solver: LinearSolver,
        default: usize,
    ) -> Result<ImplicitSettings, InvalidSettings> {
        let refuse = |why| InvalidSettings { method, why };
        if let Some(tolerance) = tolerance {
            ImplicitSettings::check_tolerance(tolerance).map_err(refuse)?;
        }
        ImplicitSettings::check_max_iterations(max_iterations).map_err(refuse)?;
        Ok(ImplicitSettings {
            tolerance,
            max_iterations: (max_iterations != default).then_some(max_iterations),
            structure,
            linear_forces,
            linear_solver,
        })
    }
}

#[cfg(feature = "serde")]
impl core::fmt::Display for InvalidSettings {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}", self.method, self.why)
    }
}
