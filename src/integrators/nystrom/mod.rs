//! Runge–Kutta–Nyström pairs: for second-order problems whose forces depend on the
//! positions (and time) alone, `x'' = f(t, x)`, as gravitation and molecular dynamics are.
//! A pair is data (a [`NystromPair`]: nodes, position coupling, weights, error weights and
//! its continuous extension) driven by one shared attempt (`pair.rs`).

mod dprkn12;
mod dprkn6;
mod pair;

pub use dprkn6::Dprkn6;
pub use dprkn12::Dprkn12;
pub use pair::{Nystrom, NystromDense, NystromPair, NystromWorkspace};
