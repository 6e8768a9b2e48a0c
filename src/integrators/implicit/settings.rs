//! The Newton settings every implicit method takes (tolerance, iterations, the Jacobian's
//! structure), written once: a macro gives each method the same checked builders, getters
//! and serde form, so that a fix to one is a fix to all.

/// Gives `$method` (a struct with a `newton: Settings` field) the builders `with_tolerance`,
/// `with_max_iterations`, `with_structure` and `with_linear_forces`, their getters and
/// `DEFAULT_MAX_ITERATIONS`.
macro_rules! newton_builders {
    ($method:ident) => {
        impl $method {
            /// Newton iterations allowed per step by default.
            pub const DEFAULT_MAX_ITERATIONS: usize =
                $crate::integrators::implicit::newton::Settings::DEFAULT_MAX_ITERATIONS;

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
                    $crate::integrators::implicit::newton::Settings::check_tolerance(tolerance)
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
                    $crate::integrators::implicit::newton::Settings::check_max_iterations(
                        max_iterations
                    )
                    .is_ok(),
                    concat!(stringify!($method), " needs at least one Newton iteration")
                );
                let mut method = self;
                method.newton.max_iterations = max_iterations;
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
                method.newton.linear = true;
                method
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
                self.newton.max_iterations
            }

            /// Which entries of the Jacobian can be non-zero.
            #[must_use]
            pub fn structure(&self) -> $crate::Structure {
                self.newton.structure
            }

            /// Whether the forces are declared affine with an exact constant Jacobian
            /// ([`with_linear_forces`](Self::with_linear_forces)).
            #[must_use]
            pub fn linear_forces(&self) -> bool {
                self.newton.linear
            }
        }
    };
}

/// Serde for `$method` (whose settings are its Newton settings alone) through its public
/// settings, checked again on the way in as the builders check them; saved under
/// `$serde_name`, with a missing `structure` read as dense and a missing `linear_forces` as
/// `false`.
#[cfg(feature = "serde")]
macro_rules! newton_serde {
    ($method:ident, $serde_name:literal) => {
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
            }

            impl serde::Serialize for $method {
                fn serialize<S: serde::Serializer>(
                    &self,
                    serializer: S,
                ) -> Result<S::Ok, S::Error> {
                    Saved {
                        tolerance: self.newton.tolerance,
                        max_iterations: self.newton.max_iterations,
                        structure: self.newton.structure,
                        linear_forces: self.newton.linear,
                    }
                    .serialize(serializer)
                }
            }

            impl<'de> serde::Deserialize<'de> for $method {
                fn deserialize<D: serde::Deserializer<'de>>(
                    deserializer: D,
                ) -> Result<Self, D::Error> {
                    let saved = Saved::deserialize(deserializer)?;
                    let newton = InvalidSettings::check(
                        $serde_name,
                        saved.tolerance,
                        saved.max_iterations,
                        saved.structure,
                        saved.linear_forces,
                    )
                    .map_err(serde::de::Error::custom)?;
                    Ok($method { newton })
                }
            }
        };
    };
}

pub(crate) use newton_builders;

/// A one-stage rule with fixed coefficients as a method: its `Default` (`new()`), and the
/// [`Scheme`](crate::Scheme) that solves `$rule` on the shared Newton iteration.
macro_rules! one_stage_scheme {
    ($method:ident, $rule:expr, $properties:expr) => {
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
                    self.newton.structure,
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
                $crate::integrators::implicit::newton::Newton::new(
                    &self.newton,
                    &$rule,
                    workspace,
                    state,
                )?
                .solve(state, forces, t, dt)
            }

            fn properties(&self) -> $crate::integrators::Properties {
                $properties
            }
        }

        impl $crate::integrators::Memoryless for $method {}
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
    /// The Newton settings, or why they are refused.
    pub(crate) fn check(
        method: &'static str,
        tolerance: Option<f64>,
        max_iterations: usize,
        structure: crate::Structure,
        linear: bool,
    ) -> Result<super::newton::Settings, InvalidSettings> {
        use super::newton::Settings;
        let refuse = |why| InvalidSettings { method, why };
        if let Some(tolerance) = tolerance {
            Settings::check_tolerance(tolerance).map_err(refuse)?;
        }
        Settings::check_max_iterations(max_iterations).map_err(refuse)?;
        Ok(Settings {
            tolerance,
            max_iterations,
            structure,
            linear,
        })
    }
}

#[cfg(feature = "serde")]
impl core::fmt::Display for InvalidSettings {
    fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
        write!(f, "{} {}", self.method, self.why)
    }
}
