//! Partitioned methods: kicks of the momenta and drifts of the positions in a method's own
//! order, and compositions of them.

mod beeman;
mod compensated;
pub(crate) mod composition;
mod leapfrog;
mod position_verlet;
#[cfg(feature = "alloc")]
mod rattle;
mod semi_implicit_euler;
mod verlet;

pub use beeman::{Beeman, BeemanWorkspace};
pub(crate) use compensated::add_compensated;
pub use compensated::{AdditiveDrift, Compensated, CompensatedWorkspace};
pub use composition::{
    Coefficients, Composition, CompositionWorkspace, PlainDrift, Sequence, SymmetricStep,
};
pub use leapfrog::Leapfrog;
pub use position_verlet::{PositionVerlet, PositionVerletWorkspace};
#[cfg(feature = "alloc")]
pub use rattle::{Rattle, RattleSettingError};
pub use semi_implicit_euler::{SemiImplicitEuler, SemiImplicitEulerWorkspace};
pub use verlet::{Verlet, VerletWorkspace};
