//! What every method with error control uses, below the methods and the driver: the
//! [`Tolerances`] (or [`ComponentTolerances`], both a [`ToleranceSet`]) and the
//! [`ErrorNorm`] they define, the step-size [`Controller`], the
//! [`Statistics`] of a run, and the [`AdaptiveMethod`] trait a method implements to be
//! stepped under error control.
//!
//! The layers point one way:
//!
//! ```text
//! adaptive     the driver: Adaptive, Run (a controlled step you own), events, Solution
//!    ↓
//! integrators  the methods: tableaus, schemes, each method's error estimate and interpolant
//!    ↓
//! control      tolerances, error norm, controller, statistics, the AdaptiveMethod trait
//!    ↓
//! the model    State, Vector, SmallVector, Forces, Particle, rigid bodies; linalg
//! ```

mod controller;
mod method;
mod norm;
mod statistics;
mod tolerances;

pub(crate) use controller::Memory;
pub use controller::{Controller, Decision};
pub use method::{AdaptiveMethod, IntoAdaptive};
pub use norm::ErrorNorm;
pub use statistics::{Statistics, Stop};
pub(crate) use tolerances::AnyTolerances;
#[cfg(feature = "alloc")]
pub use tolerances::ComponentTolerances;
pub use tolerances::{ToleranceSet, Tolerances};
