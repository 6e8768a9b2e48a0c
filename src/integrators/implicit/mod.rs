//! Implicit methods: each step solves an equation for the end of the step, with Newton's
//! method on the crate's [linear algebra](crate::linalg). Every one of them is a one-stage
//! rule (where its stage sits, how much of the stage's rate it takes) handed to one shared
//! Newton iteration (`newton.rs`), with one set of settings (`settings.rs`): the
//! [`ImplicitSettings`] that every implicit method here takes (`with_settings`), each
//! keeping what it uses.
//!
//! One convergence control serves every simplified Newton iteration, the one-stage
//! methods' and Radau5's (`contraction.rs`): radau5.f's rules (Hairer & Wanner II, IV.8),
//! which stop when the contraction rate `θ` of successive corrections bounds the error
//! left within the tolerance, give up at `θ ≥ 0.99` or when `θ` predicts no convergence in
//! the iterations left, and keep the Jacobian for the next step when `θ ≤ 0.001`.
//!
//! A constant mass matrix `M` (`M y' = f(t, y)`, `mass.rs`, [`WithMass`]) is read by
//! Radau5 and backward Euler (index 1 to 3), the BDF (index 1 and 2) and the Rosenbrock
//! methods (index 1);
//! the trapezoidal and implicit midpoint rules and Newmark-β refuse it.

mod backward_euler;
mod contraction;
mod implicit_midpoint;
mod krylov;
mod mass;
mod newmark;
mod newton;
pub(crate) mod radau5;
mod settings;
mod trapezoid;
mod with_jacobian;
mod with_mass;

pub use backward_euler::{BackwardEuler, BackwardEulerWorkspace};
pub use implicit_midpoint::ImplicitMidpoint;
pub use newmark::{Newmark, NewmarkError};
pub use newton::ImplicitWorkspace;
pub use radau5::{Radau5, Radau5Workspace};
pub use settings::ImplicitSettings;
pub use trapezoid::Trapezoid;
pub use with_jacobian::WithJacobian;
pub use with_mass::WithMass;

// Rosenbrock methods: linearly implicit, one Jacobian and one LU per step.
pub(crate) mod jacobian;
mod rodas4;
mod rodas5p;
mod rosenbrock;

pub use rodas4::Rodas4;
pub use rodas5p::Rodas5P;
pub use rosenbrock::{Rosenbrock, RosenbrockDense, RosenbrockTableau, RosenbrockWorkspace};
mod ros3p;
pub use ros3p::Ros3p;

// SEULEX: the linearly implicit Euler method extrapolated, one Jacobian per step and one LU
// per line of its table.
pub(crate) mod seulex;
pub use seulex::{Seulex, SeulexWorkspace, StepSequence};

// BDF: variable order and step in Nordsieck form, CVODE's strategy.
pub(crate) mod bdf;
pub use bdf::{Bdf, BdfWorkspace};
