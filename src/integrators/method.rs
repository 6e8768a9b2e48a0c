//! [`Method`]: every integrator by name, from one list.

use super::{Properties, Scheme, Stepper};
use crate::{
    AdamsBashforthMoulton, BackwardEuler, Beeman, Bs3, Composition, Dop853, Dopri5, ExplicitEuler,
    ExponentialEuler, Forces, ImplicitMidpoint, ImplicitSettings, ImprovedEuler, Leapfrog,
    Midpoint, Newmark, PositionVerlet, PredictorCorrector, Radau5, Rk4, SemiImplicitEuler, State,
    StepError, Trapezoid, Tsit5, Verlet,
};
use crate::{Rodas4, Rodas5P, Ros3p, Rosenbrock};
use core::fmt;
use core::str::FromStr;

/// Any method, chosen at run time: a [`Stepper`] of [`MethodKind`], which keeps the chosen
/// method's workspace (and history) between steps.
///
/// It parses from and prints as the method's kebab-case name, and steps by dispatching to
/// the method it names.
///
/// | name | method |
/// |---|---|
/// | `explicit-euler` | [`ExplicitEuler`] |
/// | `semi-implicit-euler` | [`SemiImplicitEuler`] |
/// | `midpoint` | [`Midpoint`] |
/// | `improved-euler` | [`ImprovedEuler`] |
/// | `rk4` | [`Rk4`] |
/// | `verlet` | [`Verlet`] |
/// | `position-verlet` | [`PositionVerlet`] |
/// | `backward-euler` | [`BackwardEuler`] with its default settings |
/// | `bs3` | [`Bs3`], at a fixed step |
/// | `dopri5` | [`Dopri5`], at a fixed step |
/// | `tsit5` | [`Tsit5`], at a fixed step |
/// | `dop853` | [`Dop853`], at a fixed step |
/// | `leapfrog` | [`Leapfrog`] |
/// | `beeman` | [`Beeman`] |
/// | `adams-bashforth-moulton` | [`AdamsBashforthMoulton`] |
/// | `exponential-euler` | [`ExponentialEuler`] (its linear part comes with the forces) |
/// | `predictor-corrector` | [`PredictorCorrector`] |
/// | `forest-ruth` (also `yoshida4`) | [`Composition::FOREST_RUTH`] |
/// | `suzuki4` | [`Composition::SUZUKI4`] |
/// | `yoshida6` | [`Composition::YOSHIDA6`] |
/// | `yoshida8` | [`Composition::YOSHIDA8`] |
/// | `blanes-moan4` | [`Composition::BLANES_MOAN4`] |
/// | `kahan-li8` | [`Composition::KAHAN_LI8`] |
/// | `trapezoid` | [`Trapezoid`] with its default settings |
/// | `implicit-midpoint` | [`ImplicitMidpoint`] with its default settings |
/// | `newmark` | [`Newmark::new`] (average acceleration) |
/// | `rodas4` | [`Rodas4`] (any [`Rosenbrock`] with its tableau: banded too), at a fixed step |
/// | `rodas5p` | [`Rodas5P`] (as `rodas4`), at a fixed step |
/// | `ros3p` | [`Ros3p`] (as a [`Rosenbrock`] too), at a fixed step |
/// | `radau5` | [`Radau5`] with its default settings, at a fixed step |
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Method, MethodKind, Particle};
///
/// let mut method: Method<Particle<f64>> = "semi-implicit-euler".parse()?;
/// assert_eq!(method.to_string(), "semi-implicit-euler");
///
/// let mut particle = Particle::new(1.0, 0.0, 1.0);
/// method.step(&mut particle, &|_: &Particle<f64>, _t: f64| 0.0, 0.0, 0.5)?;
/// assert_eq!(particle.position(), 0.5);
///
/// assert_eq!(MethodKind::NAMES.len(), 30);
/// assert_eq!("yoshida4".parse::<Method<f64>>()?.name(), "forest-ruth");
/// assert!("rk5".parse::<Method<Particle<f64>>>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
pub type Method<S> = Stepper<MethodKind, S>;

/// One list of every method: the variants of [`MethodKind`], their names, how each is made
/// by default, and its workspace.
macro_rules! methods {
    ($($variant:ident($method:ty) = $name:literal, $make:expr;)*) => {
        /// Which method, with its settings: every integrator in the crate as a value,
        /// without a state type. [`Method`] steps it.
        ///
        /// ```
        /// use timestep::{MethodKind, Scheme};
        ///
        /// let rk4: MethodKind = "rk4".parse()?;
        /// assert_eq!(rk4.properties().order, 4);
        /// assert_eq!(MethodKind::NAMES[4], "rk4");
        /// # Ok::<(), timestep::ParseMethodError>(())
        /// ```
        #[derive(Clone, Copy, Debug, PartialEq)]
        #[non_exhaustive]
        pub enum MethodKind {
            $(
                #[doc = concat!("`", $name, "`: [`", stringify!($method), "`].")]
                $variant($method),
            )*
        }

        /// The workspace of a [`MethodKind`]: the workspace of the method it names.
        #[derive(Clone, Debug)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(bound = "S: crate::SerdeState")
        )]
        pub struct MethodWorkspace<S: State>(WorkspaceOf<S>);

        #[derive(Clone, Debug)]
        #[allow(clippy::large_enum_variant)]
        #[cfg_attr(
            feature = "serde",
            derive(serde::Serialize, serde::Deserialize),
            serde(bound = "S: crate::SerdeState")
        )]
        enum WorkspaceOf<S: State> {
            // Saved under the method's name (`rodas5p`, not the variant's kebab case).
            $(
                #[cfg_attr(feature = "serde", serde(rename = $name))]
                $variant(<$method as Scheme>::Workspace<S>),
            )*
        }

        impl MethodKind {
            /// The names of all methods, in the order of [`all`](MethodKind::all).
            pub const NAMES: [&'static str; [$($name),*].len()] = [$($name),*];

            /// Every method with its default settings, in the order of
            /// [`NAMES`](MethodKind::NAMES).
            #[must_use]
            pub fn all() -> [Self; Self::NAMES.len()] {
                [$(MethodKind::$variant($make)),*]
            }
        }

        impl Scheme for MethodKind {
            type Workspace<S: State> = MethodWorkspace<S>;

            fn workspace<S: State>(&self, state: &S) -> MethodWorkspace<S> {
                MethodWorkspace(match self {
                    $(MethodKind::$variant(method) => {
                        WorkspaceOf::$variant(method.workspace(state))
                    })*
                })
            }

            #[inline]
            fn advance<S: State, F: Forces<S> + ?Sized>(
                &self,
                workspace: &mut MethodWorkspace<S>,
                state: &mut S,
                forces: &F,
                t: S::Scalar,
                dt: S::Scalar,
            ) -> Result<(), StepError> {
                match (self, &mut workspace.0) {
                    $((MethodKind::$variant(method), WorkspaceOf::$variant(workspace)) => {
                        method.advance(workspace, state, forces, t, dt)
                    })*
                    _ => unreachable!("a Method's workspace is made by its own kind"),
                }
            }

            fn properties(&self) -> Properties {
                match self {
                    $(MethodKind::$variant(method) => method.properties(),)*
                }
            }
        }
    };
}

methods! {
    ExplicitEuler(ExplicitEuler) = "explicit-euler", ExplicitEuler;
    SemiImplicitEuler(SemiImplicitEuler) = "semi-implicit-euler", SemiImplicitEuler;
    Midpoint(Midpoint) = "midpoint", Midpoint;
    ImprovedEuler(ImprovedEuler) = "improved-euler", ImprovedEuler;
    Rk4(Rk4) = "rk4", Rk4;
    Verlet(Verlet) = "verlet", Verlet;
    PositionVerlet(PositionVerlet) = "position-verlet", PositionVerlet;
    BackwardEuler(BackwardEuler) = "backward-euler", BackwardEuler::new();
    Bs3(Bs3) = "bs3", Bs3;
    Dopri5(Dopri5) = "dopri5", Dopri5;
    Tsit5(Tsit5) = "tsit5", Tsit5;
    Dop853(Dop853) = "dop853", Dop853;
    Leapfrog(Leapfrog) = "leapfrog", Leapfrog;
    Beeman(Beeman) = "beeman", Beeman;
    AdamsBashforthMoulton(AdamsBashforthMoulton) = "adams-bashforth-moulton", AdamsBashforthMoulton;
    ExponentialEuler(ExponentialEuler) = "exponential-euler", ExponentialEuler;
    PredictorCorrector(PredictorCorrector) = "predictor-corrector", PredictorCorrector;
    ForestRuth(Composition) = "forest-ruth", Composition::FOREST_RUTH;
    Suzuki4(Composition) = "suzuki4", Composition::SUZUKI4;
    Yoshida6(Composition) = "yoshida6", Composition::YOSHIDA6;
    Yoshida8(Composition) = "yoshida8", Composition::YOSHIDA8;
    BlanesMoan4(Composition) = "blanes-moan4", Composition::BLANES_MOAN4;
    KahanLi8(Composition) = "kahan-li8", Composition::KAHAN_LI8;
    Trapezoid(Trapezoid) = "trapezoid", Trapezoid::new();
    ImplicitMidpoint(ImplicitMidpoint) = "implicit-midpoint", ImplicitMidpoint::new();
    Newmark(Newmark) = "newmark", Newmark::new();
    Rodas4(Rosenbrock<6>) = "rodas4", Rodas4.rosenbrock();
    Rodas5P(Rosenbrock<8>) = "rodas5p", Rodas5P.rosenbrock();
    Ros3p(Rosenbrock<3>) = "ros3p", Ros3p.rosenbrock();
    Radau5(Radau5) = "radau5", Radau5::new();
}

impl MethodKind {
    /// The method's kebab-case name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.properties().name
    }

    /// The same method with `settings`, if it is implicit: each implicit method takes what
    /// its own `with_settings` takes ([`ImplicitSettings`] lists which), and keeps its name
    /// and its other settings (Newmark's parameters, Radau5's index). An explicit method
    /// has no such settings and is returned unchanged.
    ///
    /// ```
    /// use timestep::{ImplicitSettings, MethodKind, Rodas4, Structure};
    ///
    /// let banded = ImplicitSettings::new().with_structure(Structure::Banded { lower: 1, upper: 1 });
    /// let rodas4 = "rodas4".parse::<MethodKind>()?.with_settings(banded);
    /// assert_eq!(rodas4, MethodKind::Rodas4(Rodas4.with_structure(banded.structure())));
    /// assert_eq!((rodas4.to_string(), rodas4.settings()), ("rodas4".to_string(), Some(banded)));
    /// let rk4 = "rk4".parse::<MethodKind>()?;
    /// assert_eq!(rk4.with_settings(banded), rk4);
    /// # Ok::<(), timestep::ParseMethodError>(())
    /// ```
    #[must_use]
    pub fn with_settings(self, settings: ImplicitSettings) -> Self {
        match self {
            MethodKind::BackwardEuler(method) => {
                MethodKind::BackwardEuler(method.with_settings(settings))
            }
            MethodKind::Trapezoid(method) => MethodKind::Trapezoid(method.with_settings(settings)),
            MethodKind::ImplicitMidpoint(method) => {
                MethodKind::ImplicitMidpoint(method.with_settings(settings))
            }
            MethodKind::Newmark(method) => MethodKind::Newmark(method.with_settings(settings)),
            MethodKind::Rodas4(method) => MethodKind::Rodas4(method.with_settings(settings)),
            MethodKind::Rodas5P(method) => MethodKind::Rodas5P(method.with_settings(settings)),
            MethodKind::Ros3p(method) => MethodKind::Ros3p(method.with_settings(settings)),
            MethodKind::Radau5(method) => MethodKind::Radau5(method.with_settings(settings)),
            explicit => explicit,
        }
    }

    /// The implicit method's settings, as its own `settings` gives them; `None` for an
    /// explicit method.
    ///
    /// ```
    /// use timestep::{ImplicitSettings, MethodKind};
    ///
    /// assert_eq!("backward-euler".parse::<MethodKind>()?.settings(), Some(ImplicitSettings::new()));
    /// assert_eq!("rk4".parse::<MethodKind>()?.settings(), None);
    /// # Ok::<(), timestep::ParseMethodError>(())
    /// ```
    #[must_use]
    pub fn settings(&self) -> Option<ImplicitSettings> {
        match self {
            MethodKind::BackwardEuler(method) => Some(method.settings()),
            MethodKind::Trapezoid(method) => Some(method.settings()),
            MethodKind::ImplicitMidpoint(method) => Some(method.settings()),
            MethodKind::Newmark(method) => Some(method.settings()),
            MethodKind::Rodas4(method) => Some(method.settings()),
            MethodKind::Rodas5P(method) => Some(method.settings()),
            MethodKind::Ros3p(method) => Some(method.settings()),
            MethodKind::Radau5(method) => Some(method.settings()),
            _ => None,
        }
    }
}

impl<S: State> Stepper<MethodKind, S> {
    /// The names of all methods (the same as [`MethodKind::NAMES`]).
    pub const NAMES: [&'static str; MethodKind::NAMES.len()] = MethodKind::NAMES;

    /// Every method with its default settings, each a stepper with no workspace yet, in
    /// the order of [`MethodKind::NAMES`].
    ///
    /// ```
    /// use timestep::{Method, MethodKind};
    ///
    /// let names: Vec<String> = Method::<f64>::all().iter().map(|m| m.to_string()).collect();
    /// assert_eq!(names, MethodKind::NAMES);
    /// ```
    #[must_use]
    pub fn all() -> [Self; MethodKind::NAMES.len()] {
        MethodKind::all().map(Stepper::new)
    }

    /// The method's kebab-case name.
    #[must_use]
    pub fn name(&self) -> &'static str {
        self.method().name()
    }
}

impl fmt::Display for MethodKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl FromStr for MethodKind {
    type Err = ParseMethodError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        // Forest and Ruth's method is Yoshida's 4th order.
        let canonical = match name {
            "yoshida4" => "forest-ruth",
            other => other,
        };
        Self::all()
            .into_iter()
            .find(|method| method.name() == canonical)
            .ok_or_else(|| ParseMethodError::new(name, &Self::NAMES))
    }
}

/// A name that is not one of [`MethodKind::NAMES`]. Its message repeats the name given
/// (up to 64 bytes) and lists the valid ones.
///
/// ```
/// use timestep::MethodKind;
///
/// let error = "euler".parse::<MethodKind>().unwrap_err();
/// assert!(error.to_string().starts_with("unknown method `euler`; expected one of: explicit-euler,"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseMethodError {
    given: [u8; 64],
    len: usize,
    /// The names it could have been.
    names: &'static [&'static str],
}

impl ParseMethodError {
    pub(super) fn new(name: &str, names: &'static [&'static str]) -> Self {
        // Cut at a character boundary at most 64 bytes in.
        let mut len = name.len().min(64);
        while !name.is_char_boundary(len) {
            len -= 1;
        }
        let mut given = [0; 64];
        given[..len].copy_from_slice(&name.as_bytes()[..len]);
        ParseMethodError { given, len, names }
    }

    /// The name that was given (its first 64 bytes).
    #[must_use]
    pub fn given(&self) -> &str {
        core::str::from_utf8(&self.given[..self.len]).unwrap_or("")
    }
}

impl fmt::Display for ParseMethodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "unknown method `{}`; expected one of: ", self.given())?;
        for (i, name) in self.names.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl core::error::Error for ParseMethodError {}

/// A method is saved as its name, `"rk4"`; one with settings other than its defaults (an
/// implicit method with its own tolerance, a Newmark with other parameters, a banded
/// Rosenbrock method) as a map from its name to its settings,
/// `{"backward-euler": {"tolerance": 1e-12, …}}`, the method's own saved form
/// (`{"rodas4": {"method": "rodas4", "structure": …, "autonomous": false}}`). Both forms
/// load.
#[cfg(feature = "serde")]
mod serde_impl {
    use super::MethodKind;
    use crate::{
        BackwardEuler, ImplicitMidpoint, Newmark, Radau5, Rodas4, Rodas5P, Ros3p, Trapezoid,
    };
    use core::fmt;
    use serde::de::{self, MapAccess, Visitor};
    use serde::ser::SerializeMap;

    impl serde::Serialize for MethodKind {
        fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
            fn with_settings<S: serde::Serializer, T: serde::Serialize>(
                serializer: S,
                name: &str,
                settings: &T,
            ) -> Result<S::Ok, S::Error> {
                let mut map = serializer.serialize_map(Some(1))?;
                map.serialize_entry(name, settings)?;
                map.end()
            }
            match self {
                MethodKind::BackwardEuler(settings) if *settings != BackwardEuler::new() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Trapezoid(settings) if *settings != Trapezoid::new() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::ImplicitMidpoint(settings) if *settings != ImplicitMidpoint::new() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Newmark(settings) if *settings != Newmark::new() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Radau5(settings) if *settings != Radau5::new() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Rodas4(settings) if *settings != Rodas4.rosenbrock() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Rodas5P(settings) if *settings != Rodas5P.rosenbrock() => {
                    with_settings(serializer, self.name(), settings)
                }
                MethodKind::Ros3p(settings) if *settings != Ros3p.rosenbrock() => {
                    with_settings(serializer, self.name(), settings)
                }
                _ => serializer.serialize_str(self.name()),
            }
        }
    }

    impl<'de> serde::Deserialize<'de> for MethodKind {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            deserializer.deserialize_any(MethodVisitor)
        }
    }

    struct MethodVisitor;

    impl<'de> Visitor<'de> for MethodVisitor {
        type Value = MethodKind;

        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str(
                "a method name such as \"rk4\", or a map from a method name to its settings",
            )
        }

        fn visit_str<E: de::Error>(self, name: &str) -> Result<MethodKind, E> {
            name.parse().map_err(E::custom)
        }

        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<MethodKind, A::Error> {
            let Some(name) = map.next_key::<MethodName>()? else {
                return Err(de::Error::custom("expected a method name as the map's key"));
            };
            let method = match name.0 {
                MethodKind::BackwardEuler(_) => {
                    MethodKind::BackwardEuler(map.next_value::<BackwardEuler>()?)
                }
                MethodKind::Trapezoid(_) => MethodKind::Trapezoid(map.next_value()?),
                MethodKind::ImplicitMidpoint(_) => MethodKind::ImplicitMidpoint(map.next_value()?),
                MethodKind::Newmark(_) => MethodKind::Newmark(map.next_value()?),
                MethodKind::Radau5(_) => MethodKind::Radau5(map.next_value()?),
                MethodKind::Rodas4(_) => MethodKind::Rodas4(map.next_value()?),
                MethodKind::Rodas5P(_) => MethodKind::Rodas5P(map.next_value()?),
                MethodKind::Ros3p(_) => MethodKind::Ros3p(map.next_value()?),
                other => {
                    map.next_value::<NoSettings>()?;
                    other
                }
            };
            if map.next_key::<de::IgnoredAny>()?.is_some() {
                return Err(de::Error::custom("a method is one name, not several"));
            }
            Ok(method)
        }
    }

    /// The settings of a method that has none: `{}` or `null`, as a unit struct loads.
    /// Anything else is refused, so that `{"rk4": {"garbage": 1}}` does not load as RK4
    /// with the field silently dropped.
    struct NoSettings;

    impl<'de> serde::Deserialize<'de> for NoSettings {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct EmptyVisitor;
            impl<'de> Visitor<'de> for EmptyVisitor {
                type Value = NoSettings;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("no settings (this method has none): `{}` or `null`")
                }
                fn visit_unit<E: de::Error>(self) -> Result<NoSettings, E> {
                    Ok(NoSettings)
                }
                fn visit_none<E: de::Error>(self) -> Result<NoSettings, E> {
                    Ok(NoSettings)
                }
                fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<NoSettings, A::Error> {
                    match map.next_key::<de::IgnoredAny>()? {
                        None => Ok(NoSettings),
                        Some(_) => Err(de::Error::custom(
                            "this method has no settings: unknown field in its map",
                        )),
                    }
                }
            }
            deserializer.deserialize_any(EmptyVisitor)
        }
    }

    /// A method's name as a map key.
    struct MethodName(MethodKind);

    impl<'de> serde::Deserialize<'de> for MethodName {
        fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
            struct NameVisitor;
            impl Visitor<'_> for NameVisitor {
                type Value = MethodName;
                fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                    f.write_str("a method name")
                }
                fn visit_str<E: de::Error>(self, name: &str) -> Result<MethodName, E> {
                    name.parse().map(MethodName).map_err(E::custom)
                }
            }
            deserializer.deserialize_str(NameVisitor)
        }
    }
}
