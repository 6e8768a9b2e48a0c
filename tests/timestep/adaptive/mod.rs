//! `src/adaptive/`: the driver under error control (its runs, a solution, events) and its
//! stiffness test.

mod compensation;
mod driver;
mod events;
mod fuzz;
mod snapshot;
mod solution;
mod stiffness;
