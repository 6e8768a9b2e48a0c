//! Partitioned methods: kicks of the momenta and drifts of the positions in a method's own
//! order.

mod position_verlet;
mod semi_implicit_euler;
mod verlet;

pub use position_verlet::{PositionVerlet, PositionVerletWorkspace};
pub use semi_implicit_euler::{SemiImplicitEuler, SemiImplicitEulerWorkspace};
pub use verlet::{Verlet, VerletWorkspace};
