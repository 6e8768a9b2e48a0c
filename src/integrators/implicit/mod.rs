//! Implicit methods: each step solves an equation for the end of the step, with Newton's
//! method on the crate's [linear algebra](crate::linalg).

mod backward_euler;

pub use backward_euler::{BackwardEuler, BackwardEulerWorkspace, WithJacobian};

// Rosenbrock methods: linearly implicit, one Jacobian and one LU per step.
mod jacobian;
mod rodas4;
mod rosenbrock;

pub use rodas4::Rodas4;
pub use rosenbrock::{Rosenbrock, RosenbrockDense, RosenbrockTableau, RosenbrockWorkspace};
mod ros3p;
pub use ros3p::Ros3p;
