//! [`Method`]: every integrator by name.

use crate::{
    BackwardEuler, ExplicitEuler, Forces, ImprovedEuler, Integrator, Midpoint, PositionVerlet, Rk4,
    SemiImplicitEuler, State, StepError, Verlet,
};
use core::fmt;
use core::str::FromStr;

/// Every integrator in the crate, chosen at run time, for states of type `S`.
///
/// It parses from and prints as the method's kebab-case name, and steps by dispatching to
/// the method it names. (It is generic over the state because [`PositionVerlet`] keeps the
/// last step of its state; the other variants hold no state-dependent data.)
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
///
/// # Example
///
/// ```
/// use timestep::{Integrator, Method, Particle};
///
/// let mut method: Method<Particle<f64>> = "semi-implicit-euler".parse()?;
/// assert_eq!(method.to_string(), "semi-implicit-euler");
///
/// let mut particle = Particle::new(1.0, 0.0, 1.0);
/// method.step(&mut particle, &|_: &Particle<f64>, _t: f64| 0.0, 0.0, 0.5)?;
/// assert_eq!(particle.position(), 0.5);
///
/// assert_eq!(Method::<Particle<f64>>::NAMES.len(), 8);
/// assert!("rk5".parse::<Method<Particle<f64>>>().is_err());
/// # Ok::<(), Box<dyn std::error::Error>>(())
/// ```
#[derive(Clone, Copy, Debug, PartialEq)]
#[cfg_attr(
    feature = "serde",
    derive(serde::Serialize, serde::Deserialize),
    serde(rename_all = "kebab-case"),
    serde(bound(
        serialize = "S::Velocity: serde::Serialize, S::Scalar: serde::Serialize",
        deserialize = "S::Velocity: serde::Deserialize<'de>, S::Scalar: serde::Deserialize<'de>"
    ))
)]
pub enum Method<S: State> {
    /// [`ExplicitEuler`].
    ExplicitEuler(ExplicitEuler),
    /// [`SemiImplicitEuler`].
    SemiImplicitEuler(SemiImplicitEuler),
    /// [`Midpoint`].
    Midpoint(Midpoint),
    /// [`ImprovedEuler`].
    ImprovedEuler(ImprovedEuler),
    /// [`Rk4`].
    Rk4(Rk4),
    /// [`Verlet`].
    Verlet(Verlet),
    /// [`PositionVerlet`], with its memory of the last step.
    PositionVerlet(PositionVerlet<S>),
    /// [`BackwardEuler`].
    BackwardEuler(BackwardEuler),
}

impl<S: State> Method<S> {
    /// The names of all methods, in the order of [`all`](Method::all).
    pub const NAMES: [&'static str; 8] = [
        "explicit-euler",
        "semi-implicit-euler",
        "midpoint",
        "improved-euler",
        "rk4",
        "verlet",
        "position-verlet",
        "backward-euler",
    ];

    /// Every method, freshly made, in the order of [`NAMES`](Method::NAMES).
    ///
    /// ```
    /// use timestep::Method;
    ///
    /// let names: Vec<String> = Method::<f64>::all().iter().map(|m| m.to_string()).collect();
    /// assert_eq!(names, Method::<f64>::NAMES);
    /// ```
    pub fn all() -> [Self; 8] {
        [
            Method::ExplicitEuler(ExplicitEuler),
            Method::SemiImplicitEuler(SemiImplicitEuler),
            Method::Midpoint(Midpoint),
            Method::ImprovedEuler(ImprovedEuler),
            Method::Rk4(Rk4),
            Method::Verlet(Verlet),
            Method::PositionVerlet(PositionVerlet::new()),
            Method::BackwardEuler(BackwardEuler::new()),
        ]
    }

    /// The method's kebab-case name.
    pub fn name(&self) -> &'static str {
        let index = match self {
            Method::ExplicitEuler(_) => 0,
            Method::SemiImplicitEuler(_) => 1,
            Method::Midpoint(_) => 2,
            Method::ImprovedEuler(_) => 3,
            Method::Rk4(_) => 4,
            Method::Verlet(_) => 5,
            Method::PositionVerlet(_) => 6,
            Method::BackwardEuler(_) => 7,
        };
        Self::NAMES[index]
    }
}

impl<S: State> fmt::Display for Method<S> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.pad(self.name())
    }
}

impl<S: State> FromStr for Method<S> {
    type Err = ParseMethodError;

    fn from_str(name: &str) -> Result<Self, Self::Err> {
        Self::all()
            .into_iter()
            .find(|method| method.name() == name)
            .ok_or(ParseMethodError)
    }
}

impl<S: State> Integrator<S> for Method<S> {
    #[inline]
    fn step<F: Forces<S> + ?Sized>(
        &mut self,
        state: &mut S,
        forces: &F,
        t: S::Scalar,
        dt: S::Scalar,
    ) -> Result<(), StepError> {
        match self {
            Method::ExplicitEuler(m) => m.step(state, forces, t, dt),
            Method::SemiImplicitEuler(m) => m.step(state, forces, t, dt),
            Method::Midpoint(m) => m.step(state, forces, t, dt),
            Method::ImprovedEuler(m) => m.step(state, forces, t, dt),
            Method::Rk4(m) => m.step(state, forces, t, dt),
            Method::Verlet(m) => m.step(state, forces, t, dt),
            Method::PositionVerlet(m) => m.step(state, forces, t, dt),
            Method::BackwardEuler(m) => m.step(state, forces, t, dt),
        }
    }
}

/// A name that is not one of [`Method::NAMES`].
///
/// ```
/// use timestep::Method;
///
/// let error = "euler".parse::<Method<f64>>().unwrap_err();
/// assert!(error.to_string().starts_with("unknown method; expected one of: explicit-euler,"));
/// ```
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ParseMethodError;

impl fmt::Display for ParseMethodError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("unknown method; expected one of: ")?;
        for (i, name) in Method::<f64>::NAMES.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            f.write_str(name)?;
        }
        Ok(())
    }
}

impl core::error::Error for ParseMethodError {}
