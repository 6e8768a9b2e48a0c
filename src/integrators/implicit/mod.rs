//! Implicit methods: each step solves an equation for the end of the step, with Newton's
//! method on the crate's [linear algebra](crate::linalg).

mod backward_euler;

pub use backward_euler::{BackwardEuler, BackwardEulerWorkspace, WithJacobian};
