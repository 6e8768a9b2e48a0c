//! [`AdaptiveKind`]: every method with error control by name, from one list.

use super::method::ParseMethodError;
use super::{
    Bdf, Bs3, Dop853, Dopri5, Dprkn6, Dprkn12, Nystrom, Pair, Radau5, Rodas4, Ros3p, Rosenbrock,
    Seulex, Tsit5, Vern6, Vern7, Vern8, Vern9,
};
use crate::control::{
    AdaptiveMethod, Controller, Decision, IntoAdaptive, Statistics, ToleranceSet,
};
use crate::{DerivativeOf, Forces, ImplicitSettings, State, StepError};
use core::fmt;
use core::str::FromStr;

/// One list of every method with error control: the variants of [`AdaptiveKind`], their
/// names and how each is made by default.
macro_rules! adaptive_methods {
    ($($variant:ident($method:ty) = $name:literal, $make:expr;)*) => {
        /// Which method with error control, with its settings, chosen at run time: the
        /// value [`Adaptive`](crate::Adaptive) steps when the method is a name.
        ///
        /// It parses from and prints as the method's name, the same as
        /// [`MethodKind`](crate::MethodKind)'s for the same method at a fixed step:
        ///
        /// | name | method |
        /// |---|---|
        /// | `bs3` | [`Bs3`] |
        /// | `dopri5` | [`Dopri5`] |
        /// | `tsit5` | [`Tsit5`] |
        /// | `vern6` | [`Vern6`] |
        /// | `vern7` | [`Vern7`] |
        /// | `vern8` | [`Vern8`] |
        /// | `vern9` | [`Vern9`] |
        /// | `dop853` | [`Dop853`] |
        /// | `rodas4` | [`Rodas4`] (any [`Rosenbrock`] with its tableau: banded too) |
        /// | `ros3p` | [`Ros3p`] |
        /// | `radau5` | [`Radau5`] with its settings |
        /// | `seulex` | [`Seulex`] with its settings |
        /// | `bdf` | [`Bdf`] with its settings |
        /// | `dprkn6` | [`Dprkn6`]: second-order states only ([`needs_second_order`](AdaptiveKind::needs_second_order)) |
        /// | `dprkn12` | [`Dprkn12`]: second-order states only |
        ///
        /// ```
        /// use timestep::{Adaptive, AdaptiveKind, Tolerances};
        ///
        /// // y′ = −y², y(0) = 1: y = 1/(1 + t).
        /// let f = |y: &f64, _t: f64| -y * y;
        /// for kind in AdaptiveKind::all().into_iter().filter(|kind| !kind.needs_second_order()) {
        ///     let mut y = 1.0_f64;
        ///     Adaptive::new(kind)
        ///         .with_tolerances(Tolerances::new(1e-8, 1e-8))
        ///         .solve(&mut y, &f, 0.0, 1.0)?;
        ///     assert!((y - 0.5).abs() < 1e-7, "{kind}");
        /// }
        /// let dop853: AdaptiveKind = "dop853".parse()?;
        /// assert_eq!(dop853.to_string(), "dop853");
        /// assert!("rk4".parse::<AdaptiveKind>().is_err()); // no error estimate
        /// # Ok::<(), Box<dyn std::error::Error>>(())
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum AdaptiveKind {
            $(
                #[doc = concat!("`", $name, "`.")]
                $variant($method),
            )*
        }

        /// The workspace of an [`AdaptiveKind`]: the workspace of the method it names.
        #[allow(clippy::large_enum_variant)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(bound = "S: crate::SerdeState", rename_all = "kebab-case")
        )]
        pub enum AdaptiveKindWorkspace<S: State> {
            $(
                #[doc = concat!("`", $name, "`'s.")]
                $variant(<$method as AdaptiveMethod<S>>::Workspace),
            )*
        }

        impl<S: State> Clone for AdaptiveKindWorkspace<S> {
            fn clone(&self) -> Self {
                match self {
                    $(AdaptiveKindWorkspace::$variant(workspace) => {
                        AdaptiveKindWorkspace::$variant(workspace.clone())
                    })*
                }
            }
        }

        /// The dense output of an [`AdaptiveKind`]'s step: that of the method it names.
        #[allow(clippy::large_enum_variant)]
        pub enum AdaptiveKindInterpolant<S: State> {
            $(
                #[doc = concat!("`", $name, "`'s.")]
                $variant(<$method as AdaptiveMethod<S>>::Interpolant),
            )*
        }

        impl<S: State> Clone for AdaptiveKindInterpolant<S> {
            fn clone(&self) -> Self {
                match self {
                    $(Self::$variant(interpolant) => Self::$variant(interpolant.clone()),)*
                }
            }
        }

        impl AdaptiveKind {
            /// The names of all methods with error control, in the order of
            /// [`all`](AdaptiveKind::all).
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name),*];

            /// Every method with error control with its default settings, in the order
            /// of [`NAMES`](AdaptiveKind::NAMES).
            #[must_use]
            pub fn all() -> [Self; Self::NAMES.len()] {
                [$(AdaptiveKind::$variant($make)),*]
            }

            /// The method's name.
            #[must_use]
            pub fn name(&self) -> &'static str {
                match self {
                    $(AdaptiveKind::$variant(_) => $name,)*
                }
            }
        }

        /// Each call goes to the method named, with its workspace: the four that do a step's work
/// through `separately`'s functions, so that each method's step stays a function of its own.
        impl<S: State> AdaptiveMethod<S> for AdaptiveKind {
            type Workspace = AdaptiveKindWorkspace<S>;
            type Interpolant = AdaptiveKindInterpolant<S>;

            fn workspace(&self, state: &S) -> AdaptiveKindWorkspace<S> {
                match self {
                    $(AdaptiveKind::$variant(method) => {
                        AdaptiveKindWorkspace::$variant(method.workspace(state))
                    })*
                }
            }

            fn error_order(&self) -> u32 {
                match self {
                    $(AdaptiveKind::$variant(method) => AdaptiveMethod::<S>::error_order(method),)*
                }
            }

            fn controller(&self) -> Controller {
                match self {
                    $(AdaptiveKind::$variant(method) => AdaptiveMethod::<S>::controller(method),)*
                }
            }

            fn begin<F: Forces<S> + ?Sized>(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                state: &S,
                forces: &F,
                t: S::Scalar,
                statistics: &mut Statistics,
            ) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        separately::begin(method, workspace, state, forces, t, statistics)
                    })*
                    _ => mismatch(),
                }
            }

            fn start_rate<'w>(&self, workspace: &'w AdaptiveKindWorkspace<S>) -> &'w DerivativeOf<S> {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.start_rate(workspace)
                    })*
                    _ => mismatch(),
                }
            }

            fn attempt<F: Forces<S> + ?Sized, T: ToleranceSet>(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                state: &S,
                forces: &F,
                t: S::Scalar,
                h: S::Scalar,
                tolerances: &T,
                end: &mut S,
                statistics: &mut Statistics,
            ) -> Result<f64, StepError> {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        separately::attempt(method, workspace, state, forces, t, h, tolerances, end, statistics)
                    })*
                    _ => mismatch(),
                }
            }

            fn decide(&self, workspace: &mut AdaptiveKindWorkspace<S>, error: f64) -> Option<Decision> {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.decide(workspace, error)
                    })*
                    _ => mismatch(),
                }
            }

            fn accept<F: Forces<S> + ?Sized>(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                start: &S,
                end: &S,
                forces: &F,
                t: S::Scalar,
                h: S::Scalar,
                dense: bool,
                statistics: &mut Statistics,
            ) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        separately::accept(method, workspace, start, end, forces, t, h, dense, statistics)
                    })*
                    _ => mismatch(),
                }
            }

            fn prepare_dense<F: Forces<S> + ?Sized>(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                start: &S,
                forces: &F,
                t: S::Scalar,
                h: S::Scalar,
                statistics: &mut Statistics,
            ) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        separately::prepare_dense(method, workspace, start, forces, t, h, statistics)
                    })*
                    _ => mismatch(),
                }
            }

            fn dense(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                start: &S,
                h: S::Scalar,
                theta: f64,
                out: &mut S,
            ) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.dense(workspace, start, h, theta, out)
                    })*
                    _ => mismatch(),
                }
            }

            fn interpolant(&self, workspace: &AdaptiveKindWorkspace<S>) -> AdaptiveKindInterpolant<S> {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        AdaptiveKindInterpolant::$variant(method.interpolant(workspace))
                    })*
                    _ => mismatch(),
                }
            }

            fn interpolate(
                &self,
                interpolant: &AdaptiveKindInterpolant<S>,
                start: &S,
                h: S::Scalar,
                theta: f64,
                out: &mut S,
            ) {
                match (self, interpolant) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindInterpolant::$variant(interpolant)) => {
                        method.interpolate(interpolant, start, h, theta, out)
                    })*
                    _ => mismatch(),
                }
            }

            fn settle<F: Forces<S> + ?Sized>(
                &self,
                workspace: &mut AdaptiveKindWorkspace<S>,
                state: &mut S,
                forces: &F,
                t: S::Scalar,
                statistics: &mut Statistics,
            ) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.settle(workspace, state, forces, t, statistics)
                    })*
                    _ => mismatch(),
                }
            }

            fn step_on(&self, workspace: &mut AdaptiveKindWorkspace<S>) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.step_on(workspace)
                    })*
                    _ => mismatch(),
                }
            }

            fn steps_through_events(&self) -> bool {
                match self {
                    $(AdaptiveKind::$variant(method) => {
                        AdaptiveMethod::<S>::steps_through_events(method)
                    })*
                }
            }

            fn stiffness(&self, workspace: &mut AdaptiveKindWorkspace<S>) -> Option<f64> {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.stiffness(workspace)
                    })*
                    _ => mismatch(),
                }
            }

            fn gives_increment(&self) -> bool {
                match self {
                    $(AdaptiveKind::$variant(method) => AdaptiveMethod::<S>::gives_increment(method),)*
                }
            }

            fn increment(&self, workspace: &mut AdaptiveKindWorkspace<S>, start: &S, h: S::Scalar, out: &mut DerivativeOf<S>) {
                match (self, workspace) {
                    $((AdaptiveKind::$variant(method), AdaptiveKindWorkspace::$variant(workspace)) => {
                        method.increment(workspace, start, h, out)
                    })*
                    _ => mismatch(),
                }
            }
        }
    };
}

adaptive_methods! {
    Bs3(Pair<Bs3, 4>) = "bs3", Pair(Bs3);
    Dopri5(Pair<Dopri5, 7>) = "dopri5", Pair(Dopri5);
    Tsit5(Pair<Tsit5, 7>) = "tsit5", Pair(Tsit5);
    Vern6(Pair<Vern6, 12>) = "vern6", Pair(Vern6);
    Vern7(Pair<Vern7, 16>) = "vern7", Pair(Vern7);
    Vern8(Pair<Vern8, 21>) = "vern8", Pair(Vern8);
    Vern9(Pair<Vern9, 26>) = "vern9", Pair(Vern9);
    Dop853(Pair<Dop853, 16>) = "dop853", Pair(Dop853);
    Rodas4(Rosenbrock<6>) = "rodas4", Rodas4.into_adaptive();
    Ros3p(Rosenbrock<3>) = "ros3p", Ros3p.into_adaptive();
    Radau5(Radau5) = "radau5", Radau5::new();
    Seulex(Seulex) = "seulex", Seulex::new();
    Bdf(Bdf) = "bdf", Bdf::new();
    Dprkn6(Nystrom<6>) = "dprkn6", Dprkn6.into_adaptive();
    Dprkn12(Nystrom<17>) = "dprkn12", Dprkn12.into_adaptive();
}

/// A workspace or interpolant is made by its own method's kind.
#[cold]
fn mismatch() -> ! {
    unreachable!("an AdaptiveKind's workspace and interpolant are made by its own kind")
}

impl AdaptiveKind {
    /// The same method told that the forces do not depend on time: a Rosenbrock method
    /// then takes no `∂f/∂t` ([`Rosenbrock::assume_autonomous`]), SEULEX evaluates fewer
    /// rates ([`Seulex::assume_autonomous`]); the others need nothing.
    #[must_use]
    pub fn assume_autonomous(self) -> Self {
        match self {
            AdaptiveKind::Rodas4(method) => AdaptiveKind::Rodas4(method.assume_autonomous()),
            AdaptiveKind::Ros3p(method) => AdaptiveKind::Ros3p(method.assume_autonomous()),
            AdaptiveKind::Seulex(method) => AdaptiveKind::Seulex(method.assume_autonomous()),
            other => other,
        }
    }

    /// The same method with `settings`, if it is implicit (`rodas4`, `ros3p`, `radau5`,
    /// `seulex`, `bdf`): each takes what its own `with_settings` takes
    /// ([`ImplicitSettings`] lists which) and keeps its name and its other settings. An
    /// explicit method has no such settings and is returned unchanged.
    ///
    /// ```
    /// use timestep::{AdaptiveKind, ImplicitSettings, Radau5, Structure};
    ///
    /// let settings = ImplicitSettings::new()
    ///     .with_structure(Structure::Banded { lower: 1, upper: 1 })
    ///     .with_tolerance(1e-3);
    /// let radau5 = "radau5".parse::<AdaptiveKind>()?.with_settings(settings);
    /// assert_eq!(radau5, AdaptiveKind::Radau5(Radau5::new().with_settings(settings)));
    /// assert_eq!(radau5.settings(), Some(settings));
    /// assert_eq!(radau5.to_string(), "radau5");
    /// let dopri5 = "dopri5".parse::<AdaptiveKind>()?;
    /// assert_eq!(dopri5.with_settings(settings), dopri5);
    /// # Ok::<(), timestep::ParseMethodError>(())
    /// ```
    #[must_use]
    pub fn with_settings(self, settings: ImplicitSettings) -> Self {
        match self {
            AdaptiveKind::Rodas4(method) => AdaptiveKind::Rodas4(method.with_settings(settings)),
            AdaptiveKind::Ros3p(method) => AdaptiveKind::Ros3p(method.with_settings(settings)),
            AdaptiveKind::Radau5(method) => AdaptiveKind::Radau5(method.with_settings(settings)),
            AdaptiveKind::Seulex(method) => AdaptiveKind::Seulex(method.with_settings(settings)),
            AdaptiveKind::Bdf(method) => AdaptiveKind::Bdf(method.with_settings(settings)),
            explicit => explicit,
        }
    }

    /// The implicit method's settings, as its own `settings` gives them; `None` for an
    /// explicit method.
    ///
    /// ```
    /// use timestep::{AdaptiveKind, ImplicitSettings};
    ///
    /// assert_eq!("bdf".parse::<AdaptiveKind>()?.settings(), Some(ImplicitSettings::new()));
    /// assert_eq!("tsit5".parse::<AdaptiveKind>()?.settings(), None);
    /// # Ok::<(), timestep::ParseMethodError>(())
    /// ```
    #[must_use]
    pub fn settings(&self) -> Option<ImplicitSettings> {
        match self {
            AdaptiveKind::Rodas4(method) => Some(method.settings()),
            AdaptiveKind::Ros3p(method) => Some(method.settings()),
            AdaptiveKind::Radau5(method) => Some(method.settings()),
            AdaptiveKind::Seulex(method) => Some(method.settings()),
            AdaptiveKind::Bdf(method) => Some(method.settings()),
            _ => None,
        }
    }
}

impl AdaptiveKind {
    /// Whether the method steps second-order states alone (positions and momenta, forces
    /// of the positions): the Runge–Kutta–Nyström pairs. Given a first-order state, such a
    /// method refuses it ([`StepError::NotSecondOrder`]).
    ///
    /// ```
    /// use timestep::AdaptiveKind;
    ///
    /// let names: Vec<_> = AdaptiveKind::all()
    ///     .into_iter()
    ///     .filter(AdaptiveKind::needs_second_order)
    ///     .map(|kind| kind.name())
    ///     .collect();
    /// assert_eq!(names, ["dprkn6", "dprkn12"]);
    /// ```
    #[must_use]
    pub fn needs_second_order(&self) -> bool {
        matches!(self, AdaptiveKind::Dprkn6(_) | AdaptiveKind::Dprkn12(_))
    }
}

impl IntoAdaptive for AdaptiveKind {
    type Method = Self;

    fn into_adaptive(self) -> Self {
        self
    }
}

impl fmt::Display for AdaptiveKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for AdaptiveKind {
    type Err = ParseMethodError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::all()
            .into_iter()
            .find(|method| method.name() == name)
            .ok_or_else(|| ParseMethodError::new(name, &Self::NAMES))
    }
}

/// A method's step work behind calls that are never inlined.
///
/// Inlined, every method's step lands in one function per call site of the solver: a
/// match of fifteen steps, Radau5's and BDF's among them, that LLVM's optimiser spends
/// minutes on (seven for one `solve` on `[f64; 4]` in release, where each method alone takes
/// seconds). A call per step costs nothing next to a step's work; a program that wants the
/// step inlined names its method's type instead of a kind.
mod separately {
    use crate::control::{AdaptiveMethod, Statistics, ToleranceSet};
    use crate::{Forces, State, StepError};

    #[inline(never)]
    pub(super) fn begin<S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized>(
        method: &M,
        workspace: &mut M::Workspace,
        state: &S,
        forces: &F,
        t: S::Scalar,
        statistics: &mut Statistics,
    ) {
        method.begin(workspace, state, forces, t, statistics);
    }

    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn attempt<
        S: State,
        M: AdaptiveMethod<S>,
        F: Forces<S> + ?Sized,
        T: ToleranceSet,
    >(
        method: &M,
        workspace: &mut M::Workspace,
        state: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        tolerances: &T,
        end: &mut S,
        statistics: &mut Statistics,
    ) -> Result<f64, StepError> {
        method.attempt(workspace, state, forces, t, h, tolerances, end, statistics)
    }

    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    pub(super) fn accept<S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized>(
        method: &M,
        workspace: &mut M::Workspace,
        start: &S,
        end: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        dense: bool,
        statistics: &mut Statistics,
    ) {
        method.accept(workspace, start, end, forces, t, h, dense, statistics);
    }

    #[inline(never)]
    pub(super) fn prepare_dense<S: State, M: AdaptiveMethod<S>, F: Forces<S> + ?Sized>(
        method: &M,
        workspace: &mut M::Workspace,
        start: &S,
        forces: &F,
        t: S::Scalar,
        h: S::Scalar,
        statistics: &mut Statistics,
    ) {
        method.prepare_dense(workspace, start, forces, t, h, statistics);
    }
}
